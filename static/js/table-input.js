// @ts-check
// Input: taps, right-clicks, keys and drags on the player's cards (delegated to the hand and the
// duel's piles, so the regions only draw), the bar's buttons, and the page's settings.
import { canShare, copyText, shareLink, toast } from "./common.js";
import { fillHelp } from "./help.js";
import { t } from "./i18n.js";
import { illegalText } from "./reasons.js";
import { bindSettings, setting } from "./settings.js";
import { $, announce, app, openDialog } from "./table-dom.js";
import { renderControls } from "./table-controls.js";
import { showBidsHistory, showLastTrick, showScoreSheet } from "./table-dialogs.js";
import { focusCard, layoutHand, renderHand, renderPiles, tappableCards } from "./table-hand.js";
import { nextId, playCard, send, sendAction } from "./table-send.js";
import { S, exchangeCard, legalPlays, view } from "./table-state.js";
import { U, handMode } from "./table-ui.js";

// ----------------------------------------------------------------------------- cards

/** The card button an event is about, with whether it may be used now; null for anything else. */
function cardOf(event) {
  const el = event.target.closest("button.card");
  if (!el) return null;
  return { el, card: el.dataset.card, canUse: el.getAttribute("aria-disabled") === "false" };
}

/** A tap (or click, or key: `keyboard`) on one of the player's cards. */
function onCardTap(card, canUse, keyboard = false) {
  if (U.pending) return;
  const mode = handMode();
  if (!canUse) {
    // a card that may not be played: sent anyway, the engine's refusal says why (reasons.js)
    if (mode === "play" && legalPlays().playable.size) refuseCard(card);
    return;
  }
  if (mode === "raise" || mode === "discard") {
    toggleRaise(card);
    return;
  }
  if (mode === "play") {
    const { belote } = legalPlays();
    if (!keyboard && setting("confirmCard") && !U.raised.has(card)) {
      // misclick protection: the first tap raises the card, the second plays it
      U.raised = new Set([card]);
      renderHand();
      if (view().traits.hand_in_piles) renderPiles([]);
      renderControls();
      focusCard(card);
      return;
    }
    if (belote.has(card) && !U.raised.has(card)) {
      // the K or Q of a belote pair: raise it; the controls offer "Call" or a plain play
      U.raised = new Set([card]);
      renderHand();
      renderControls();
      focusCard(card);
      return;
    }
    playCard(card, false);
  }
}

/** Send a card the player may not play: the server refuses it with the engine's reason. */
function refuseCard(card) {
  U.refused = card;
  sendAction({ type: "play", card });
}

/** The server refused the card sent by refuseCard: say why, and shake the card. */
export function showRefusal(msg) {
  const card = U.refused;
  const v = view();
  const led = v && v.trick.length ? v.trick[0].card[1] : null;
  const text = illegalText(msg, { ledSuit: led, refused: card });
  toast(text);
  announce(text);
  const el = card && /** @type {HTMLElement | null} */ (document.querySelector(`#hand .card[data-card="${card}"], #piles-bottom .card[data-card="${card}"]`));
  if (el) {
    el.classList.remove("refused");
    void el.offsetWidth; // restart the animation
    el.classList.add("refused");
  }
}

function toggleRaise(card) {
  const mode = handMode();
  if (U.raised.has(card)) U.raised.delete(card);
  else {
    if (mode === "discard" && U.raised.size >= 2) {
      const first = U.raised.values().next().value;
      U.raised.delete(first);
    }
    if (mode === "play") U.raised = new Set();
    U.raised.add(card);
  }
  renderHand();
  renderControls();
  focusCard(card);
}

function onCardKey(event, card, canUse) {
  const cards = tappableCards();
  const i = cards.findIndex((c) => c.dataset.card === card);
  let next = null;
  if (event.key === "ArrowRight") next = cards[(i + 1) % cards.length];
  else if (event.key === "ArrowLeft") next = cards[(i - 1 + cards.length) % cards.length];
  else if (event.key === "Home") next = cards[0];
  else if (event.key === "End") next = cards[cards.length - 1];
  else if (event.key === "ArrowUp") {
    event.preventDefault();
    if (canUse && !U.raised.has(card)) toggleRaise(card);
    return;
  } else if (event.key === "ArrowDown") {
    event.preventDefault();
    if (U.raised.has(card)) toggleRaise(card);
    return;
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    const { belote } = legalPlays();
    if (handMode() === "play" && U.raised.has(card) && belote.has(card)) playCard(card, true);
    else onCardTap(card, canUse, true);
    return;
  }
  if (next) {
    event.preventDefault();
    for (const c of cards) c.tabIndex = -1;
    next.tabIndex = 0;
    next.focus();
  }
}

/** Drag the trump seven onto the deck (bela, two players). */
function onPointerDown(down, el, card) {
  if (down.button !== 0 || card !== exchangeCard()) return;
  const startX = down.clientX;
  const startY = down.clientY;
  let dragging = false;
  const move = (e) => {
    const dx = e.clientX - startX;
    const dy = e.clientY - startY;
    if (!dragging && Math.hypot(dx, dy) > 8) {
      dragging = true;
      el.classList.add("dragging");
    }
    if (dragging) el.style.transform = `translate(${dx}px, ${dy}px)`;
  };
  const up = (e) => {
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", up);
    if (!dragging) return;
    el.classList.remove("dragging");
    el.style.transform = "";
    const spot = $("deck-spot").getBoundingClientRect();
    const inside = e.clientX >= spot.left && e.clientX <= spot.right && e.clientY >= spot.top && e.clientY <= spot.bottom;
    // swallow the click that follows the drag
    el.addEventListener("click", (c) => c.stopImmediatePropagation(), { capture: true, once: true });
    if (inside) sendAction({ type: "exchange", card });
  };
  window.addEventListener("pointermove", move);
  window.addEventListener("pointerup", up);
}

function listenToCards(box) {
  box.addEventListener("click", (event) => {
    const hit = cardOf(event);
    // a click with detail 0 comes from the keyboard (Enter, Space, a shortcut key)
    if (hit) onCardTap(hit.card, hit.canUse, event.detail === 0);
  });
  box.addEventListener("contextmenu", (event) => {
    const hit = cardOf(event);
    if (!hit) return;
    event.preventDefault();
    if (hit.canUse) toggleRaise(hit.card);
  });
  box.addEventListener("keydown", (event) => {
    const hit = cardOf(event);
    if (hit) onCardKey(event, hit.card, hit.canUse);
  });
  box.addEventListener("pointerdown", (event) => {
    const hit = cardOf(event);
    if (hit && box.id === "hand") onPointerDown(event, hit.el, hit.card);
  });
}

// ----------------------------------------------------------------------------- hints

// The hint asked for (the version of the table it was asked at) and the one given: it stays
// highlighted through every redraw of that same decision, and is dropped once the table moves on.
let askedAt = null;
let given = null;

function hintTarget(action) {
  if (action.type === "play") {
    return document.querySelector(`#hand button.card[data-card="${action.card}"], #piles-bottom button.card[data-card="${action.card}"]`);
  }
  if (action.type === "bid") {
    const name = action.value !== undefined ? `bid-${action.value}-${action.contract}` : `bid-${action.contract}`;
    return document.querySelector(`#controls [data-action="${name}"]`);
  }
  return document.querySelector(`#controls [data-action="${action.type}"]`);
}

/** Mark the hint given for the decision on the table, after a redraw; the marked element. */
export function markHint() {
  document.querySelectorAll(".hinted").forEach((el) => el.classList.remove("hinted"));
  if (given && given.version !== S.version) given = null;
  if (!given) return null;
  /** @type {HTMLElement | null} */
  const target = hintTarget(given.action);
  if (target) target.classList.add("hinted");
  return target;
}

/** Highlight the suggested card or bid; the choice stays the player's. A hint that comes back
 * after the table has moved on (the player already chose) is for a decision that is gone. */
export function showHint(action) {
  if (!action || askedAt !== S.version) return;
  given = { version: S.version, action };
  markHint()?.focus();
  toast(t("hint.shown"));
}

// ----------------------------------------------------------------------------- the page

/** A phone: the bar's buttons are one menu (app.css). A choice made in it closes it, and so do
 * Escape and a tap anywhere else. */
function installMenu() {
  const menu = $("btn-menu");
  const actions = $("bar-actions");
  const setOpen = (open) => {
    app.classList.toggle("menu-open", open);
    menu.setAttribute("aria-expanded", String(open));
  };
  const isOpen = () => app.classList.contains("menu-open");
  menu.addEventListener("click", () => {
    setOpen(!isOpen());
    if (isOpen()) actions.querySelector("button:not([hidden]):not([disabled]), select, input")?.focus();
  });
  actions.addEventListener("click", (e) => {
    if (e.target.closest("button, a")) setOpen(false);
  });
  actions.addEventListener("change", () => setOpen(false));
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && isOpen()) {
      setOpen(false);
      menu.focus();
    }
  });
  document.addEventListener("pointerdown", (e) => {
    if (isOpen() && !(/** @type {Element} */ (e.target).closest("#bar-actions, #btn-menu"))) setOpen(false);
  });
}

/** Wire every control of the page once; `render(events)` redraws the whole table. */
export function installInput({ render }) {
  listenToCards($("hand"));
  listenToCards($("piles-bottom"));
  window.addEventListener("resize", () => layoutHand());

  installMenu();
  $("scoreboard").addEventListener("click", showScoreSheet);
  $("btn-last-trick").addEventListener("click", showLastTrick);
  $("btn-bids").addEventListener("click", showBidsHistory);
  $("dlg-match").addEventListener("cancel", () => {
    U.matchDismissed = true;
  });

  $("btn-invite").addEventListener("click", async () => {
    const url = new URL((S.room && S.room.url) || location.pathname, location.href).href;
    if (canShare()) await shareLink(url);
    else await copyText(url);
  });

  $("btn-hint").addEventListener("click", () => {
    askedAt = S.version;
    send({ type: "hint", id: nextId("h") });
  });

  // the rules of this game (help.js) and the player's settings (settings.js)
  $("btn-help").addEventListener("click", () => {
    const v = view();
    const room = S.room;
    if (!v && !room) return;
    fillHelp(v || { variant: room.variant, players: room.players, options: room.options || {}, contract: null });
    openDialog("dlg-help");
  });
  bindSettings($("dlg-settings"));
  $("btn-settings").addEventListener("click", () => openDialog("dlg-settings"));

  $("level-select").addEventListener("change", (e) => {
    send({ type: "set_level", level: e.target.value });
  });

  // local games: the next player says they hold the device
  $("pass-ready").addEventListener("click", () => {
    U.revealed = S.shown;
    render([]);
  });

  // four-colour deck, remembered in this browser
  const fourColour = $("four-colour");
  fourColour.checked = localStorage.getItem("atout.fourColour") === "1";
  document.body.classList.toggle("four-colour", fourColour.checked);
  fourColour.addEventListener("change", () => {
    localStorage.setItem("atout.fourColour", fourColour.checked ? "1" : "0");
    document.body.classList.toggle("four-colour", fourColour.checked);
  });
}
