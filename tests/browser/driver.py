"""Playing through the page the way a person does: clicks on what is shown, waits on the DOM."""

from __future__ import annotations

import contextlib
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout

TURN_TIMEOUT_MS = 30_000

# What the page is waiting for, read from the DOM (never from timers).
STATE_JS = """() => {
  const app = document.getElementById('table-app');
  if (!app || app.dataset.state !== 'ready') return null;
  if (document.getElementById('dlg-match').open) return 'match';
  if (document.getElementById('dlg-deal').open) return 'deal';
  const pass = document.getElementById('pass-screen');
  if (pass && !pass.hidden) return 'pass';
  if (app.classList.contains('pending')) return null;
  if (app.dataset.myTurn === 'yes') return 'turn:' + app.dataset.phase;
  // bela 2p: the seven's holder may exchange while the leader thinks (out of turn)
  if (document.querySelector('#controls button[data-action=exchange]')) return 'turn:play';
  const consent = document.querySelector('#controls [data-action=next_deal]:not([disabled])');
  if (consent) return 'consent';
  return null;
}"""


def open_home(page: Any, base_url: str) -> None:
    page.goto(base_url + "/")
    page.wait_for_selector("#options-box")
    # the page's script has wired its forms (their buttons are enabled then: home.js)
    page.wait_for_selector("#play-computer:not([disabled])", state="attached")


def choose_game(
    page: Any, variant: str, *, players: int | None = None, options: dict[str, Any] | None = None
) -> None:
    """Pick the variant, the player count and options on the home form, by clicking."""
    page.check(f"input[name=variant][value={variant}]")
    if players is not None:
        page.check(f"input[name=players][value='{players}']", force=True)
    if options:
        if not page.locator("#options-box[open]").count():
            page.click("#options-box summary")
        for name, value in options.items():
            control = page.locator(f"#opt-{name}")
            if isinstance(value, bool):
                control.set_checked(value)
            else:
                control.select_option(str(value))


def start(page: Any, mode: str) -> None:
    page.click(f"#play-{mode}")
    if mode == "friends":
        page.wait_for_selector("#invite:not([hidden])")
    else:
        page.wait_for_url("**/g/**")
        wait_ready(page)


def wait_ready(page: Any) -> None:
    page.wait_for_selector("#table-app[data-state=ready]", timeout=TURN_TIMEOUT_MS)


def wait_state(page: Any, timeout: int = TURN_TIMEOUT_MS) -> str:
    handle = page.wait_for_function(STATE_JS, timeout=timeout)
    return str(handle.json_value())


def play_to(page: Any, wanted: str = "turn:play", limit: int = 100) -> None:
    """Take every turn the page asks for until it asks for ``wanted`` (a ``wait_state``)."""
    for _ in range(limit):
        state = wait_state(page)
        if state == wanted:
            return
        take_turn(page, state)
    raise AssertionError(f"{wanted} never came in {limit} turns")


LEGAL_CARDS = (
    "#hand button.card[aria-disabled=false], #piles-bottom button.card[aria-disabled=false]"
)


def legal_cards(page: Any):  # type: ignore[no-untyped-def]
    return page.locator(LEGAL_CARDS)


# The first card the seat may play, clicked in the step that finds it (the card itself, whatever
# overlaps it in a fanned hand): the page's version before the click, or null when no card may
# be played now.
PLAY_FIRST_JS = f"""() => {{ const card = document.querySelector({LEGAL_CARDS!r});
  if (!card) return null; const version = window.atoutTable.state.version;
  card.dispatchEvent(new MouseEvent('click', {{bubbles: true, cancelable: true}}));
  return version; }}"""

# What the table shows and holds, for a failure's message.
TABLE_REPORT_JS = """() => { const app = document.getElementById('table-app');
  const s = window.atoutTable && window.atoutTable.state; const v = s && s.view;
  return JSON.stringify({state: app && app.dataset.state, myTurn: app && app.dataset.myTurn,
    phase: app && app.dataset.phase, pending: !!app && app.classList.contains('pending'),
    version: s && s.version, room: s && s.room && {paused: s.room.paused},
    view: v && {phase: v.phase, seat: v.seat, to_act: v.to_act, legal: v.legal, hand: v.hand,
      claim: v.claim}}); }"""


def play_first_card(page: Any, state_js: str = STATE_JS) -> bool:
    """Play the first card the page lets the player play, and wait for the move's update. The
    state was read a moment before: if the turn has gone since (a view came in between), wait
    until a card may be played or the page asks for something else, and return False."""
    version = page.evaluate(PLAY_FIRST_JS)
    if version is not None:
        page.wait_for_function("(v) => window.atoutTable.state.version > v", arg=version)
        return True
    try:
        page.wait_for_function(
            f"() => !!document.querySelector({LEGAL_CARDS!r}) || ({state_js})() !== 'turn:play'",
            timeout=TURN_TIMEOUT_MS,
        )
    except PlaywrightTimeout as error:
        report = page.evaluate(TABLE_REPORT_JS)
        raise AssertionError(
            f"the page says it is the player's card but none is playable: {report}"
        ) from error
    return False


def take_turn(page: Any, state: str, *, bid: str = "take", log: list[str] | None = None) -> None:
    """Do one thing the page asks for. ``bid``: "take" names a trump when possible, "pass" not."""
    log = log if log is not None else []
    controls = page.locator("#controls")
    if state == "turn:bidding":
        buttons = controls.locator("button[data-action^=bid-]")
        if bid == "take" and buttons.count():
            # a suit rather than no/all trumps, so declarations stay possible
            suits = controls.locator(
                "button[data-action^=bid-]:not([data-action$=NT]):not([data-action$=AT])"
            )
            (suits if suits.count() else buttons).first.click()
            log.append("bid")
        elif controls.locator("button[data-action=pass]").count():
            controls.locator("button[data-action=pass]").click()
            log.append("pass")
        else:
            buttons.first.click()  # the dealer is forced to name trump
            log.append("forced")
    elif state == "turn:discard":
        cards = page.locator("#hand button.card")
        cards.nth(0).click()
        cards.nth(1).click()
        controls.locator("button[data-action=discard]:not([disabled])").click()
        log.append("discard")
    elif state == "turn:play":
        # ``state`` was read a moment ago: the server may have played a forced card since
        turn = card_turn(page)
        if controls.locator("button[data-action=exchange]").count():
            controls.locator("button[data-action=exchange]").click()  # bela 2p, offered once
            log.append("exchange")
        elif turn["forced"]:
            # "Play forced cards for me" (on by default): the only card is played by the server
            page.wait_for_function(
                "(v) => window.atoutTable.state.version > v", arg=turn["version"]
            )
            log.append("auto")
        elif not turn["cards"]:
            log.append("gone")  # it was played for the seat already; the caller reads again
        elif controls.locator("button[data-action=call]").count():
            controls.locator("button[data-action=suggest]").first.click()
            controls.locator("button[data-action=call]:not([disabled])").click()
            log.append("declare")
        elif controls.locator("button[data-action=call-belote]").count():
            controls.locator("button[data-action=call-belote]").click()
            log.append("belote")
        else:
            legal_cards(page).first.click()
            log.append("play")
    elif state == "deal":
        page.locator("#dlg-deal [data-action=continue]").click()
        log.append("deal-summary")
    elif state == "consent":
        # "Continue" in the controls (the deal summary was closed before it was agreed to).
        # The summary's own Continue may have sent the consent already: the button can vanish
        # before the click, which is fine.
        with contextlib.suppress(PlaywrightTimeout):
            page.click("#controls [data-action=next_deal]:not([disabled])", timeout=2_000)
        log.append("continue")
    elif state == "pass":
        page.click("#pass-ready")
    else:
        raise AssertionError(f"nothing to do in state {state}")


def bar_button(page: Any, selector: str) -> None:
    """Click one of the table bar's buttons (``#btn-hint``, ``#btn-chat``...): on a phone they
    are in the bar's menu, which is opened first."""
    if not page.locator(selector).is_visible() and page.locator("#btn-menu").is_visible():
        page.click("#btn-menu")
    page.click(selector)


# One reading of the page's state, so that the version and the turn agree: the seat's legal
# cards now, and whether the server plays its only card for it (the forced-cards setting).
CARD_TURN_JS = """() => { const s = window.atoutTable.state, v = s.view;
  const cards = v && v.phase === 'play' ? v.legal.filter(a => a.type === 'play').length : 0;
  const forced = localStorage.getItem('atout.autoPlay') !== '0' && cards === 1
    && v.legal.length === 1;
  return {version: s.version, cards: cards, forced: forced}; }"""


def card_turn(page: Any) -> dict[str, Any]:
    """``version``, ``cards`` (how many cards the seat may play now) and ``forced`` (the server
    plays its only card for it), read at once."""
    return dict(page.evaluate(CARD_TURN_JS))


def plays_itself(page: Any) -> bool:
    """Whether the server plays the seat's only card for it now (the forced-cards setting)."""
    return bool(card_turn(page)["forced"])


def phase(page: Any) -> str:
    return str(page.get_attribute("#table-app", "data-phase"))


def deals_scored(page: Any) -> int:
    return int(
        page.evaluate("window.atoutTable.state.view.results.filter(r => !r.thrown_in).length")
    )
