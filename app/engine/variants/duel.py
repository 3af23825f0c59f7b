"""The open-card two-player duel (RULES.md §6): eight piles each, face up on face down."""

from __future__ import annotations

from typing import Any, ClassVar

from ..actions import PASS, Action, Bid, Pass
from ..cards import format_card, parse_card
from ..errors import IllegalAction
from ..play import PlayFlags
from ..scoring import FAILED, MADE, DealFacts, DealScore, ScoreWork
from ..state import Contract, Event, State, Trick
from .base import DENOM_TRUMP, SUIT_NAMES, ClaimLayout, Rules

MAKE = 82  # §6.4: the taker makes the deal with at least 82
FAILED_POINTS = 162  # what a failed taker gives the defender
SWEEP_POINTS = 252


class DuelRules(Rules):
    variant = "duel"
    player_counts = (2,)
    defaults: ClassVar[dict[str, Any]] = {}
    fixed: ClassVar[dict[str, Any]] = {"declarations": False}
    deal_is_game: ClassVar[bool] = True
    hand_in_piles = True
    upcard_kind = "proposal"
    targets = ()

    @property
    def total_tricks(self) -> int:
        return 16

    @property
    def target(self) -> int | None:
        return None

    def flags(self, contract: Contract) -> PlayFlags:
        return PlayFlags(overtake_plain=False, partner_exception=False, must_undertrump=False)

    def belote_suits(self, contract: Contract) -> int:
        return 0

    def deal(self, state: State) -> list[Event]:
        deck = state.deck
        non_dealer = self.eldest(state.dealer)
        hands = [0, 0]
        piles: list[tuple[int, ...]] = [(), ()]
        hands[non_dealer] = sum(1 << c for c in deck[16:24])
        hands[state.dealer] = sum(1 << c for c in deck[24:32])
        piles[non_dealer] = tuple(deck[0:8])
        piles[state.dealer] = tuple(deck[8:16])
        state.hands = tuple(hands)
        state.piles = tuple(piles)
        state.upcard = deck[31]
        return [Event("proposal", {"card": format_card(state.upcard)})]

    def legal_bids(self, state: State) -> list[Action]:
        up = SUIT_NAMES[state.upcard >> 3]
        if state.auction.stage < 2:
            return [PASS, Bid(up)]
        return [PASS, *(Bid(s) for s in SUIT_NAMES if s != up)]

    def apply_bid(self, state: State, seat: int, action: Action) -> list[Event]:
        a = state.auction
        up = SUIT_NAMES[state.upcard >> 3]
        if isinstance(action, Pass):
            state.auction = a.__class__(turns=a.turns + 1, stage=a.stage + 1)
            events = [Event("bid", {"seat": seat, "bid": "pass"})]
            if a.stage + 1 == 4:
                return events + self.throw_in(state)
            state.to_act = 1 - seat
            return events
        if not isinstance(action, Bid):
            raise IllegalAction(f"{action.type}: there is no doubling in duel")
        if action.value is not None or action.contract not in SUIT_NAMES:
            raise IllegalAction("bid: name a trump suit (C, D, H or S)")
        if a.stage < 2 and action.contract != up:
            raise IllegalAction(f"bid: in the first round only the proposal's suit {up}")
        if a.stage >= 2 and action.contract == up:
            raise IllegalAction(f"bid: in the second round name a suit other than {up}")
        events = [Event("bid", {"seat": seat, "bid": "bid", "contract": action.contract})]
        return events + self.set_contract(
            state, Contract(action.contract, DENOM_TRUMP[action.contract], seat)
        )

    # ----- after a trick: the cards it freed are turned face up (D-18) -------------
    def after_trick(self, state: State, trick: Trick) -> list[Event]:
        return _reveal_after_trick(state, trick) + super().after_trick(state, trick)

    def covered_cards(self, state: State) -> dict[int, tuple[int, int]]:
        return {
            pile_up_card(state, seat, i): (seat, down)
            for seat in range(2)
            for i, down in enumerate(state.piles[seat])
            if down >= 0
        }

    # ----- the view: each pile's face-up card, and whether a card lies face down --------
    def view_fields(self, state: State) -> dict[str, Any]:
        return {"piles": [_piles(state, s) for s in range(2)]}

    def claim_layout(self, view: dict[str, Any], seat: int) -> ClaimLayout:
        """Both hands lie face up; a face-down card joins its owner's hand once freed, so a
        claimer with one left cannot claim (RULES.md §15), and the other seat may still
        receive any card neither sees."""
        piles = view.get("piles") or [[], []]
        hands = tuple(
            sum(1 << parse_card(p["up"]) for p in piles[s] if p.get("up")) for s in range(2)
        )
        down = [any(p.get("down") for p in piles[s]) for s in range(2)]
        later = frozenset(s for s in range(2) if s != seat and down[s])
        return ClaimLayout(blocked=down[seat], open_hands=hands, later=later)

    # ----- scoring: each deal is a game of its own (§6.4, §14 Match end) ----------------
    @classmethod
    def check_deal_facts(cls, f: DealFacts) -> None:
        if any(f.decl_points) or any(f.belote_points):
            raise ValueError("duel has no declarations and no belote")

    @classmethod
    def score_work(cls, w: ScoreWork) -> DealScore:
        """Made iff the taker has at least 82; a failed taker gives the defender 162."""
        t = w.f.taker_side
        d = 1 - t
        tot = w.tot
        rec = [0, 0]
        if tot[t] >= MAKE:
            rec[t], rec[d] = tot[t], tot[d]  # a taker sweep is 252 / 0 here
            return w.result(MADE, rec, t, 0)
        rec[d] = SWEEP_POINTS if w.capot_side == d else FAILED_POINTS
        return w.result(FAILED, rec, d, 0)

    def record_deal(
        self, scores: tuple[int, ...], score: DealScore, taker_side: int
    ) -> tuple[tuple[int, ...], int | None]:
        """The scores are the tally of games won: the taker wins the game if the deal is
        made, else the defender."""
        winner = taker_side if score.outcome == MADE else 1 - taker_side
        tally = list(scores)
        tally[winner] += 1
        return tuple(tally), winner

    def match_end(self, scores: tuple[int, ...], score: DealScore | None) -> int | None:
        return None  # no match: each deal is a game, the next deal another one

    def replay_fields(self, state: State) -> dict[str, Any]:
        return {
            "down": [[format_card(c) for c in pile if c >= 0] for pile in (state.piles or ((), ()))]
        }

    def next_deal_needs_consent(self, state: State) -> bool:
        """A played deal was a whole game: the next one needs both players' consent (a
        thrown-in deal is dealt again at once)."""
        return bool(state.results) and not state.results[-1].thrown_in


def pile_up_card(state: State, seat: int, pile: int) -> int:
    """The card that lay face up on ``pile`` of ``seat`` at the deal."""
    base = 16 if seat != state.dealer else 24
    return state.deck[base + pile]


def _reveal_after_trick(state: State, trick: Trick) -> list[Event]:
    """Turn face up the cards freed by the trick, once it is complete (D-18)."""
    events: list[Event] = []
    piles = [list(p) for p in state.piles]
    hands = list(state.hands)
    for seat, card in trick.plays:
        for i in range(8):
            if piles[seat][i] >= 0 and pile_up_card(state, seat, i) == card:
                freed = piles[seat][i]
                piles[seat][i] = -1
                hands[seat] |= 1 << freed
                events.append(
                    Event("revealed", {"seat": seat, "pile": i, "card": format_card(freed)})
                )
    state.piles = tuple(tuple(p) for p in piles)
    state.hands = tuple(hands)
    return events


def _piles(state: State, seat: int) -> list[dict[str, Any]]:
    base_down = 0 if seat != state.dealer else 8
    hand = state.hands[seat]
    out = []
    for i in range(8):
        up = pile_up_card(state, seat, i)
        down = state.piles[seat][i] >= 0
        if (hand >> up) & 1:
            card: str | None = format_card(up)
        elif not down and (hand >> state.deck[base_down + i]) & 1:
            card = format_card(state.deck[base_down + i])
        else:
            card = None
        out.append({"up": card, "down": down})
    return out
