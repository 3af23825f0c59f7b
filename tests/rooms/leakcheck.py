"""An independent checker of RULES.md §13 for every message a client received.

It rebuilds the truth from the stored record (deck of every deal + every action, read from the
database), replays it with the engine's ``apply``/``start_deal`` to get the state after every
version, and computes, from the raw state fields (not from the engine's views), which cards each
seat has had the right to see so far in the current deal:

* its own hand (and, in duel, every face-up card of both layouts), at any time of the deal;
* the cards played, the turn-up / proposal card (and the bela seven that replaced it);
* its own discards (bela 3p taker);
* the declared cards once ``declarations_shown`` made them public;
* a claimer's remaining cards once his claim is made (RULES.md §15: the first action of the deal
  marked ``"by": "claim"`` is his lead; his hand then is shown to everyone).

Then every card named anywhere in a message — any string that is exactly a card, or a card
token inside free text such as an error message — must be in that set. Deal results (``results``
in views, ``deal_scored`` events) are records of finished deals: their cards must be the cards
announced in that deal. A view must belong to a seat the recipient holds, and only such a view
may carry ``legal`` moves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from app.engine import Phase, action_from_json, apply, new_match, start_deal
from app.engine.cards import cards_of, format_card, parse_card
from bench.views import merge_view

CARD = re.compile(r"^[789TJQKA][CDHS]$")
CARD_IN_TEXT = re.compile(r"(?<![A-Za-z0-9])[789TJQKA][CDHS](?![A-Za-z0-9])")
SKIP_KEYS = {"game_id", "url", "id", "name"}


def card_mask(names: list[str]) -> int:
    out = 0
    for n in names:
        out |= 1 << parse_card(n)
    return out


@dataclass
class Truth:
    """The state after each version of a game, rebuilt from its stored record."""

    states: dict[int, Any] = field(default_factory=dict)  # version -> State
    deal_of: dict[int, int] = field(default_factory=dict)  # version -> deal number
    shown: dict[int, int] = field(default_factory=dict)  # version -> declared cards made public
    announced: dict[int, int] = field(default_factory=dict)  # deal -> every announced card
    claimed: dict[int, int] = field(default_factory=dict)  # version -> a claimer's cards shown

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Truth:
        truth = cls()
        version = 0
        state = None
        shown = 0
        for number, deal in enumerate(record["deals"]):
            deck = [parse_card(c) for c in deal["deck"]]
            if state is None:
                state = new_match(
                    record["variant"],
                    record["players"],
                    record["options"],
                    first_dealer=deal["dealer"],
                    deck=deck,
                )
            else:
                assert state.phase is Phase.DEAL_OVER, "a deal follows an unfinished one"
                state, _ = start_deal(state, deck=deck)
                assert state.dealer == deal["dealer"]
            version += 1
            shown = claimed = 0
            truth.states[version], truth.deal_of[version], truth.shown[version] = state, number, 0
            for data in deal["actions"]:
                if data.get("by") == "claim" and not claimed:
                    claimed = state.hands[data["seat"]]  # shown with the claim, before its lead
                data = {k: v for k, v in data.items() if k != "by"}
                state, events = apply(state, action_from_json(dict(data)), data["seat"])
                for e in events:
                    if e.type == "declarations_shown":
                        for item in e.data["shown"]:
                            for combo in item["combos"]:
                                shown |= card_mask(combo)
                version += 1
                truth.states[version], truth.deal_of[version] = state, number
                truth.shown[version] = shown
                truth.claimed[version] = claimed
            announced = 0
            for combos in state.announced:
                for combo in combos:
                    announced |= combo.mask
            truth.announced[number] = announced
        return truth

    @property
    def last_version(self) -> int:
        return max(self.states) if self.states else 0

    def visible(self, version: int, seats: tuple[int, ...]) -> int:
        """Cards the holder of ``seats`` (() = spectator) may have seen by ``version``."""
        deal = self.deal_of[version]
        out = 0
        v = version
        while v in self.deal_of and self.deal_of[v] == deal:
            out |= self._seen_at(v, seats)
            v -= 1
        return out

    def _seen_at(self, version: int, seats: tuple[int, ...]) -> int:
        state = self.states[version]
        seen = self.shown[version] | self.claimed.get(version, 0)
        for _seat, card in state.trick:
            seen |= 1 << card
        for trick in state.tricks:
            for _seat, card in trick.plays:
                seen |= 1 << card
        if state.upcard >= 0:
            seen |= 1 << state.upcard
        if state.rules.variant == "duel":
            for hand in state.hands:  # face-up cards: public in duel
                seen |= hand
        for seat in seats:
            seen |= state.hands[seat]
            if state.discard and state.contract is not None and state.contract.taker == seat:
                seen |= state.discard
        return seen


class Leak(AssertionError):
    pass


def _cards_in(value: Any, key: str | None = None) -> list[str]:
    """Card names anywhere in ``value`` (exact strings, and tokens inside free text)."""
    out: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k in SKIP_KEYS:
                continue
            out += _cards_in(v, k)
    elif isinstance(value, list):
        for v in value:
            out += _cards_in(v, key)
    elif isinstance(value, str):
        if CARD.match(value):
            out.append(value)
        elif key in ("message",):
            out += CARD_IN_TEXT.findall(value)
    return out


def _split_results(message: Any) -> tuple[Any, list[dict[str, Any]]]:
    """(message without deal results, the deal results found) — results are checked apart."""
    results: list[dict[str, Any]] = []

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            out = {}
            for k, v in value.items():
                if k == "results" and isinstance(v, list):
                    results.extend(v)
                elif k == "result" and value.get("type") == "deal_scored":
                    results.append(v)
                else:
                    out[k] = strip(v)
            return out
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return strip(message), results


def check_messages(
    truth: Truth, log: list[dict[str, Any]], seats: tuple[int, ...], who: str = "client"
) -> int:
    """Check every message of one socket's ``log``; return how many cards were checked."""
    version = 0
    checked = 0
    held: dict[str, Any] = {}  # the views as the client holds them (updates carry changes)
    for index, message in enumerate(log):
        kind = message.get("type")
        if kind in ("state", "update"):
            version = message["version"]
        where = f"{who} message {index} ({kind}, version {version})"
        for key, view in _views_of(message):
            if view is None:
                continue
            view = held[key] = merge_view(held.get(key), view) if kind == "update" else view
            seat = view.get("seat")
            if seat is None:
                if "hand" in view or "legal" in view or "discard" in view:
                    raise Leak(f"{where}: a spectator view with a hand or legal moves")
            elif seat not in seats:
                raise Leak(f"{where}: the view of seat {seat}, held by someone else")
        body, results = _split_results(message)
        for result in results:
            cards = _cards_in(result)
            number = result.get("number")
            allowed = truth.announced.get(number, 0)
            for card in cards:
                checked += 1
                if not (allowed >> parse_card(card)) & 1:
                    raise Leak(f"{where}: deal result {number} names {card}, never announced")
        cards = _cards_in(body)
        if not cards:
            continue
        if version == 0:
            raise Leak(f"{where}: cards {cards} before any deal")
        allowed = truth.visible(version, seats)
        for card in cards:
            checked += 1
            if not (allowed >> parse_card(card)) & 1:
                hidden = " ".join(format_card(c) for c in cards_of(allowed))
                raise Leak(f"{where}: {card} is not visible to seats {seats} (visible: {hidden})")
    return checked


def _views_of(message: dict[str, Any]) -> list[tuple[str, Any]]:
    views = []
    if "view" in message:
        views.append(("view", message["view"]))
    views.extend((f"views.{seat}", v) for seat, v in (message.get("views") or {}).items())
    return views
