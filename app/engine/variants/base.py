"""What every variant shares, as overridable hooks (python-chess's variant style).

A variant module subclasses ``Rules`` and overrides only what differs: the options, the
dealing, the bidding, the exchange and the discard between the bidding and the first card,
the play flags and card points, what happens after a trick, the declarations'
comparison, the deal's scoring and the match's end, the view's extra fields and whether the
next deal is dealt at once.  The state machine (``game.py``) and the views (``views.py``) call
these hooks and never look at a variant's name.  A ``Rules`` instance is immutable: a variant
plus its resolved options and player count.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

from .. import declarations as decl
from ..actions import Action
from ..cards import PLAIN_POINTS, RK, RQ, SA_POINTS, TA_POINTS, TRUMP_POINTS, format_mask
from ..errors import IllegalAction, InvalidAction
from ..play import ALL_TRUMP, NO_TRUMP, PlayFlags
from ..scoring import FAILED, MADE, DealFacts, DealScore, ScoreWork, check_facts, top_at_target
from ..state import Contract, DealResult, Event, Phase, State, Trick

DENOM_TRUMP = {"C": 0, "D": 1, "H": 2, "S": 3, "NT": NO_TRUMP, "AT": ALL_TRUMP}
LADDER = ("C", "D", "H", "S", "NT", "AT")
SUIT_NAMES = "CDHS"

ONE_DEAL = "one_deal"

# Option name -> allowed JSON type, for validation messages.
_BOOL_OPTIONS = (
    "declarations",
    "auto_declare",
    "auto_belote",
    "undertrump_required",
    "allow_sa_ta",
    "eight_card_belot",
    "seven_exchange",
    "valat_can_end_without_bonus",
)


def packet_round(
    deck: tuple[int, ...], start: int, k: int, order: list[int], hands: list[int]
) -> int:
    """Give ``k`` consecutive cards to each seat of ``order``; return the next deck index."""
    for seat in order:
        for i in range(start, start + k):
            hands[seat] |= 1 << deck[i]
        start += k
    return start


def packet_seats(order: list[int], packets: tuple[int, ...]) -> tuple[int, ...]:
    """The seat receiving each card of the deck when every seat of ``order`` gets a packet of
    each size in turn (the dealing map of ``packet_round`` as a table, made once)."""
    return tuple(seat for k in packets for seat in order for _ in range(k))


def points_table(trump: int, scale: str = "french") -> tuple[int, ...]:
    """Card points per card for a contract (§0.3). ``scale`` "bulgarian" keeps STD tables."""
    table = []
    for card in range(32):
        rank, suit = card & 7, card >> 3
        if trump == NO_TRUMP:
            table.append(PLAIN_POINTS[rank] if scale == "bulgarian" else SA_POINTS[rank])
        elif trump == ALL_TRUMP:
            table.append(TRUMP_POINTS[rank] if scale == "bulgarian" else TA_POINTS[rank])
        else:
            table.append(TRUMP_POINTS[rank] if suit == trump else PLAIN_POINTS[rank])
    return tuple(table)


# _KINGS_QUEENS[suits]: the kings and queens of the suits of ``suits`` (bitmask 1 << suit).
_KINGS_QUEENS = tuple(
    sum(((1 << RK) | (1 << RQ)) << (8 * s) for s in range(4) if suits >> s & 1)
    for suits in range(16)
)
_POINTS = {t: points_table(t) for t in range(6)}


class ClaimLayout(NamedTuple):
    """What the claim check (claims.py, RULES.md §15) must know of a variant's layout, as a
    seat's view shows it. By default every unplayed card it cannot see lies in another hand."""

    blocked: bool = False  # the claimer holds cards he cannot lead (a duel face-down card)
    open_hands: tuple[int, ...] | None = None  # every seat's hand, when all lie face up
    later: frozenset[int] = frozenset()  # seats to whose hand hidden cards may still come


class Rules(ABC):
    variant: ClassVar[str] = ""
    player_counts: ClassVar[tuple[int, ...]] = (4,)
    defaults: ClassVar[dict[str, Any]] = {}
    fixed: ClassVar[dict[str, Any]] = {}  # options the variant fixes
    targets: ClassVar[tuple[Any, ...]] = ()
    overtake_plain: ClassVar[bool] = False
    # each deal is a whole game, scored, rated and awarded when it ends (the duel): no match
    deal_is_game: ClassVar[bool] = False
    partner_exception: ClassVar[bool] = True
    # The declarations' comparison of §1.3: "unified" (one side scores them all, its cards are
    # shown after trick 1) or "bulgarian" (``declaration_sides``; the bots read it too).
    comparison: ClassVar[str] = "unified"
    belote_restricted: ClassVar[bool] = False  # the Bulgarian rule of §4.6
    # Scoring: the numbers of sides the variant plays with, whether it has doubling, and
    # whether a side that won no trick loses its declarations (D-5).
    side_counts: ClassVar[tuple[int, ...]] = (2,)
    doubling: ClassVar[bool] = False
    trickless_lose_declarations: ClassVar[bool] = True
    # The table's layout, for a client that asks what a variant is like rather than its name
    # (``traits``): each seat's cards lie face up in table piles (the duel); each seat has a
    # talon it picks up after the bidding (bela); what the face-up card of the auction is when
    # there is one: a "turn_up" the taker takes (classic) or a "proposal" that lies on the rest
    # of the deck all deal long (bela for two, the duel).
    hand_in_piles: ClassVar[bool] = False
    has_talon: ClassVar[bool] = False
    upcard_kind: ClassVar[str | None] = None
    # Card points of no-trump and all-trump contracts (§0.3): "french" (the SA/TA tables) or
    # "standard" (plain and trump points); and whether no trumps count double (Bulgarian §4.3).
    points_scale: ClassVar[str] = "french"
    no_trumps_doubled: ClassVar[bool] = False

    def __init__(self, players: int | None = None, options: Mapping[str, Any] | None = None):
        players = self.player_counts[-1] if players is None else players
        if isinstance(players, bool) or players not in self.player_counts:
            counts = ", ".join(map(str, self.player_counts))
            raise InvalidAction(f"{self.variant} is played by {counts} players, not {players!r}")
        self.players = players
        self.options = self.resolve_options(dict(options or {}))
        self.sides = 2 if players != 3 else 3
        self.side_of = tuple(s % 2 if players == 4 else s for s in range(players))
        # Read by the state machine on every card: belote announced by the engine (else a
        # ``Play(card, belote=True)`` is offered), and declarations made by hand (§1.2, §14).
        self.auto_belote = bool(self.options.get("auto_belote", True))
        self.manual_declarations = bool(self.options.get("declarations")) and not self.options.get(
            "auto_declare", True
        )
        # A new deal's fields, which game._begin_deal sets in one dict update (State.deal_fields)
        self.deal_fields: dict[str, Any] = State.deal_fields(players)
        self._play_flags = PlayFlags(
            overtake_plain=self.overtake_plain,
            partner_exception=self.partner_exception and self.players == 4,
            must_undertrump=bool(self.options.get("undertrump_required", True)),
        )

    # ----- options -------------------------------------------------------------
    def default_options(self) -> dict[str, Any]:
        return dict(self.defaults) | dict(self.fixed)

    def resolve_options(self, given: dict[str, Any]) -> dict[str, Any]:
        options = self.default_options()
        for key, value in given.items():
            if key not in options:
                raise InvalidAction(f"unknown option for {self.variant}: {key}")
            if key in self.fixed and value != self.fixed[key]:
                raise InvalidAction(f"{self.variant} fixes {key} = {_json(self.fixed[key])}")
            if key in _BOOL_OPTIONS and not isinstance(value, bool):
                raise InvalidAction(f"option {key} must be true or false")
            if key == "target" and value not in self.targets:
                allowed = ", ".join(_json(t) for t in self.targets)
                raise InvalidAction(f"target must be one of {allowed}")
            options[key] = value
        return self.check_options(options)

    def check_options(self, options: dict[str, Any]) -> dict[str, Any]:
        return options

    @classmethod
    def stored_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """Resolved options as a stored game holds them, in the form this version accepts
        (a variant whose options changed meaning overrides it)."""
        return dict(options)

    def non_default_options(self) -> dict[str, Any]:
        base = self.default_options()
        return {k: v for k, v in self.options.items() if base.get(k) != v}

    @property
    def target(self) -> int | None:
        t = self.options.get("target")
        return None if t == ONE_DEAL else t

    # ----- traits ----------------------------------------------------------------
    @property
    def denominations(self) -> tuple[str, ...]:
        """The contracts this game can play: the four suits, or the ladder with NT and AT."""
        return LADDER[:4]

    def traits(self) -> dict[str, Any]:
        """What this variant is like, for the common view (views.py): a client asks these
        instead of comparing the variant's name (docs/protocol.md, "Traits"). A new dict
        each call; the same values all game long."""
        return {
            "player_counts": list(self.player_counts),
            "deal_is_game": self.deal_is_game,
            "hand_in_piles": self.hand_in_piles,
            "has_talon": self.has_talon,
            "upcard": self.upcard_kind,
            "scoring_sides": self.sides,
            "declarations": bool(self.options.get("declarations")),
            "denominations": list(self.denominations),
            "points_scale": self.points_scale,
            "no_trumps_doubled": self.no_trumps_doubled,
        }

    # ----- dealing -------------------------------------------------------------
    @property
    def total_tricks(self) -> int:
        return 8

    def eldest(self, dealer: int) -> int:
        return (dealer + 1) % self.players

    def order_from(self, seat: int) -> list[int]:
        return [(seat + i) % self.players for i in range(self.players)]

    @abstractmethod
    def deal(self, state: State) -> list[Event]:
        """Deal the initial cards from ``state.deck``; set hands, stock, upcard, to_act."""

    # ----- bidding -------------------------------------------------------------
    @abstractmethod
    def legal_bids(self, state: State) -> list[Action]:
        """The legal bidding actions of the seat to act."""

    @abstractmethod
    def apply_bid(self, state: State, seat: int, action: Action) -> list[Event]:
        """Apply a bidding action (already known to be the seat's turn) to ``state``."""

    def after_contract(self, state: State) -> list[Event]:
        """Deal what is left once the contract is fixed and enter the next phase."""
        state.phase = Phase.PLAY
        state.to_act = state.leader = self.eldest(state.dealer)
        return []

    # ----- play ----------------------------------------------------------------
    def flags(self, contract: Contract) -> PlayFlags:
        return self._play_flags  # the same for every contract here (immutable, made once)

    def points(self, contract: Contract) -> tuple[int, ...]:
        return _POINTS[contract.trump]

    def declarations_allowed(self, contract: Contract) -> bool:
        return bool(self.options.get("declarations")) and contract.trump != NO_TRUMP

    def belote_suits(self, contract: Contract) -> int:
        """Suits (bitmask 1 << suit) in which K+Q makes belote."""
        if contract.trump == NO_TRUMP:
            return 0
        if contract.trump == ALL_TRUMP:
            return 0b1111
        return 1 << contract.trump

    # ----- the exchange (in the card play) and the phase before the play -----------
    def exchange_actions(self, state: State, seat: int) -> list[Action]:
        """The exchange ``seat`` may make now, in ``Phase.PLAY`` (bela 2p); the engine asks
        only while ``state.exchange_seat`` is ``seat``."""
        return []

    def apply_exchange(self, state: State, seat: int, action: Action) -> list[Event]:
        raise IllegalAction(f"{action.type}: there is no exchange in {self.variant}")

    def discard_actions(self, state: State) -> list[Action]:
        """The legal actions of the seat to act in ``Phase.DISCARD`` (bela 3p)."""
        return []

    def apply_discard(self, state: State, seat: int, action: Action) -> list[Event]:
        raise IllegalAction(f"{action.type}: there is no discard in {self.variant}")

    def covered_cards(self, state: State) -> dict[int, tuple[int, int]]:
        """Cards lying face down under a face-up card (duel): the covering card -> (the
        seat, the face-down card it frees once the trick it is played to is complete)."""
        return {}

    # ----- after a trick -------------------------------------------------------
    def after_trick(self, state: State, trick: Trick) -> list[Event]:
        """What follows a completed ``trick`` (already added to ``state.tricks``, its winner to
        lead): after trick 1, the declarations are compared and the scoring side's shown."""
        if len(state.tricks) != 1 or not any(state.announced):  # all are made in trick 1
            return []
        state.decl_sides = self.declaration_sides(state)
        shown = self.shown_declarations(state)
        if not shown:
            return []
        return [Event("declarations_shown", {"side": state.decl_sides[0], "shown": shown})]

    def declaration_sides(self, state: State) -> tuple[int | None, int | None]:
        """(side scoring sequences, side scoring carrés): the unified comparison of §1.3
        gives both to one side."""
        assert state.contract is not None
        trump = state.contract.trump if state.contract.trump < 4 else None
        order = self.order_from(self.eldest(state.dealer))
        side = decl.best_unified(state.announced, self.side_of, trump, order)
        return side, side

    def shown_declarations(self, state: State) -> list[dict[str, Any]]:
        """The declared cards everyone sees once trick 1 is over (§1.2): those of the side
        scoring them (``state.decl_sides``, found at the end of trick 1)."""
        side = state.decl_sides[0]
        if side is None:
            return []
        announced = state.announced
        return [
            {"seat": s, "combos": [format_mask(c.mask) for c in announced[s]]}
            for s in range(self.players)
            if self.side_of[s] == side and announced[s]
        ]

    # ----- scoring and the match's end -----------------------------------------
    @classmethod
    def score_facts(cls, f: DealFacts) -> DealScore:
        """Score one played deal (``variants.score_deal`` reaches it by the variant's id)."""
        check_facts(f, cls.side_counts, cls.doubling)
        cls.check_deal_facts(f)
        return cls.score_work(
            ScoreWork(f, cls.deal_card_points(f), cls.trickless_lose_declarations)
        )

    @classmethod
    def check_deal_facts(cls, f: DealFacts) -> None:
        """The variant's own checks of the facts (raise ValueError); none by default."""
        return None

    @classmethod
    def deal_card_points(cls, f: DealFacts) -> list[int]:
        """Each side's card points, before the capot bonus."""
        return list(f.card_points)

    @classmethod
    @abstractmethod
    def score_work(cls, w: ScoreWork) -> DealScore:
        """The variant's scoring rule, from the figures of ``w``."""

    def record_deal(
        self, scores: tuple[int, ...], score: DealScore, taker_side: int
    ) -> tuple[tuple[int, ...], int | None]:
        """(match scores after the deal, the side that won the deal or None)."""
        new = tuple([a + b for a, b in zip(scores, score.recorded, strict=True)])
        if score.outcome == MADE:
            return new, taker_side
        if score.outcome == FAILED and self.sides == 2:
            return new, 1 - taker_side
        return new, None

    def match_end(self, scores: tuple[int, ...], score: DealScore | None) -> int | None:
        """The side that wins the match after a recorded deal ``score`` (``scores``, the match
        totals, include it), or None: another deal is played.

        The usual end: a side reaches the target at ``>=`` and there is a single highest
        total (``scoring.top_at_target``); a capot never delays it. A variant whose end
        differs overrides this one hook (a valat in bulgarian, no match in the duel).
        ``score`` None: the totals alone, as after a deal with no capot.
        """
        return top_at_target(scores, self.target)

    def next_deal_needs_consent(self, state: State) -> bool:
        """Whether the next deal, at ``Phase.DEAL_OVER``, waits for the players' consent
        instead of being dealt at once."""
        return False

    # ----- the view ------------------------------------------------------------
    def claim_layout(self, view: dict[str, Any], seat: int) -> ClaimLayout:
        """The layout the claim check of ``seat`` reads from its ``view`` (``ClaimLayout``)."""
        return ClaimLayout()

    def view_fields(self, state: State) -> dict[str, Any]:
        """The variant's own public fields of the common view (views.py), after the shared
        ones; the same keys all game long."""
        return {}

    def replay_fields(self, state: State) -> dict[str, Any]:
        """The cards a replay of a finished deal shows beyond the hands (app/players/frames.py):
        the duel's face-down piles, the bela talons and the bela-3p discard."""
        return {}

    # ----- shared bidding helpers ---------------------------------------------
    def set_contract(self, state: State, contract: Contract) -> list[Event]:
        state.contract = contract
        state.flags = self.flags(contract)
        state.table = self.points(contract)
        state.belote_cards = _KINGS_QUEENS[self.belote_suits(contract)]
        state.bid_count = len(state.actions) + 1  # the deal's actions so far, this bid included
        events = [Event("contract", {"contract": contract_json(contract)})]
        return events + self.after_contract(state)

    def throw_in(self, state: State) -> list[Event]:
        """All passed: no score; the deal passes on (§0.4, §8.25)."""
        state.phase = Phase.DEAL_OVER
        result = DealResult(
            number=len(state.results),
            dealer=state.dealer,
            thrown_in=True,
            totals_after=state.scores,
        )
        state.results = state.results + (result,)
        return [Event("deal_thrown_in", {"dealer": state.dealer})]


def contract_json(c: Contract) -> dict[str, Any]:
    out: dict[str, Any] = {"denom": c.denom, "taker": c.taker, "multiplier": c.multiplier}
    if c.value is not None:
        out["value"] = "capot" if c.value == 250 else c.value
    return out


def _json(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)
