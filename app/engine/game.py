"""The generic state machine: create a match, deal, list legal actions, apply one.

``apply(state, action)`` returns a new state and the events it caused; the old
state is never changed, so a refused action leaves everything as it was.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from . import declarations as decl
from .actions import (
    PLAYS,
    PLAYS_BELOTE,
    Action,
    Bid,
    Declare,
    Discard,
    Double,
    Exchange,
    Pass,
    Play,
    Redouble,
)
from .cards import RK, RQ, card_list, cards_of, format_card, format_mask
from .errors import IllegalAction, InvalidAction
from .play import BEATS, illegal_reason, legal_mask_top
from .scoring import DealFacts
from .state import (
    DealLog,
    DealResult,
    Event,
    LazyEvent,
    Phase,
    State,
    Trick,
    hand_event,
)
from .variants import get_rules
from .variants.base import Rules, contract_json

ACTION_TYPES = (Pass, Bid, Double, Redouble, Declare, Exchange, Discard, Play)
_PLAY = Phase.PLAY
_ENDS = (Phase.DEAL_OVER, Phase.MATCH_OVER)
CARD_NAMES = tuple(format_card(c) for c in range(32))
# Events are immutable, so the 4 x 32 possible "card_played" events are made once.
_CARD_PLAYED = tuple(
    tuple(Event("card_played", {"seat": seat, "card": CARD_NAMES[c]}) for c in range(32))
    for seat in range(4)
)
# The Play actions of each suit's byte of a hand mask: _BYTE_PLAYS[suit][byte] (one global
# per suit for the hot path of legal_actions).
_BYTE_PLAYS = tuple(
    tuple(tuple(PLAYS[8 * s + r] for r in range(8) if b >> r & 1) for b in range(256))
    for s in range(4)
)
_C_PLAYS, _D_PLAYS, _H_PLAYS, _S_PLAYS = _BYTE_PLAYS


def new_match(
    variant: str,
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
    rng: random.Random | None = None,
    *,
    seed: int | None = None,
    first_dealer: int | None = None,
    deck: list[int] | tuple[int, ...] | None = None,
) -> State:
    """Create a match and deal its first deal.

    Pass ``rng`` (``random.SystemRandom()`` for real games) or ``seed``.  ``first_dealer``
    and ``deck`` fix the first deal (tests, replays); otherwise ``rng`` chooses them.
    """
    rules = get_rules(variant, players, options)
    rng = rng if rng is not None else random.Random(seed)
    if first_dealer is None:
        first_dealer = rng.randrange(rules.players)
    elif not 0 <= first_dealer < rules.players:
        raise InvalidAction(f"first dealer must be a seat 0..{rules.players - 1}")
    # The state's dict is built in two updates (here, then _begin_deal's), each sized at
    # once: it stays compact (set one attribute at a time, it would have a table twice the
    # size, and every later state copies it: State.copy).
    state = object.__new__(State)
    state.__dict__ = State.match_fields(rules, first_dealer)
    _begin_deal(state, first_dealer, _deck(rng, deck))
    return state


def start_deal(
    state: State, rng: random.Random | None = None, deck: list[int] | tuple[int, ...] | None = None
) -> tuple[State, list[Event]]:
    """Deal the next deal (a chance node): only legal in ``Phase.DEAL_OVER``."""
    if state.phase is not Phase.DEAL_OVER:
        raise IllegalAction(f"cannot deal now: the phase is {state.phase.value}")
    new = state.copy()
    dealer = (state.dealer + 1) % state.rules.players
    events = _begin_deal(new, dealer, _deck(rng or random.Random(), deck))
    return new, events


def _deck(rng: random.Random, deck: list[int] | tuple[int, ...] | None) -> tuple[int, ...]:
    if deck is None:
        return _shuffled_deck(rng)
    if sorted(deck) != list(range(32)):
        raise InvalidAction("a deck must hold each of the 32 cards exactly once")
    return tuple(deck)


_tuple_new = tuple.__new__
_BIT_LENGTH = tuple(n.bit_length() for n in range(33))
_RANDBELOW = getattr(random.Random, "_randbelow_with_getrandbits", None)


def _shuffled_deck(rng: random.Random) -> tuple[int, ...]:
    """``rng.shuffle(list(range(32)))``: the same deck from the same random numbers.

    For ``random.Random`` and ``SystemRandom`` the standard shuffle (Fisher-Yates, each index
    drawn with ``getrandbits`` and rejection) is written out here, without its Python-level
    ``_randbelow`` call per card: half the time.  ``tests/engine/test_dealing.py`` checks
    that it gives the standard shuffle's decks; any other generator shuffles as it does.
    """
    cards = list(range(32))
    cls = type(rng)
    if cls.shuffle is not random.Random.shuffle or getattr(cls, "_randbelow", 0) is not _RANDBELOW:
        rng.shuffle(cards)
        return tuple(cards)
    getrandbits = rng.getrandbits
    for i in range(31, 0, -1):
        k = _BIT_LENGTH[i + 1]  # an index in 0..i: k random bits, drawn again if above i
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        cards[i], cards[j] = cards[j], cards[i]
    return tuple(cards)


def _begin_deal(state: State, dealer: int, deck: tuple[int, ...]) -> list[Event]:
    rules = state.rules
    n = rules.players
    # Every deal-level field at once from the rules' template (Rules.deal_fields), then the
    # few that depend on the dealer.
    state.__dict__.update(rules.deal_fields)
    state.dealer = dealer
    state.deck = deck
    state.to_act = state.leader = rules.eldest(dealer)
    events = [Event("deal_started", {"number": len(state.results), "dealer": dealer})]
    events += rules.deal(state)
    hands = state.hands
    for seat in range(n):
        events.append(hand_event(seat, hands[seat]))
    return events


def current_player(state: State) -> int | None:
    """The seat to act, or None at a chance node (between deals) or after the match."""
    if state.phase in (Phase.DEAL_OVER, Phase.MATCH_OVER):
        return None
    return state.to_act


def is_over(state: State) -> bool:
    return state.phase is Phase.MATCH_OVER


# ----------------------------------------------------------------------------- legal actions


def legal_actions(state: State) -> list[Action]:
    """Every legal action of the player to act (empty at a chance node or match end)."""
    phase = state.phase
    if phase is _PLAY:
        rules = state.rules
        # the usual case: no belote flag to offer, no declaration or exchange to choose
        if rules.auto_belote and (
            state.tricks or (not rules.manual_declarations and state.exchange_seat < 0)
        ):
            mask = legal_play_mask(state)
            return [
                *_C_PLAYS[mask & 255],
                *_D_PLAYS[(mask >> 8) & 255],
                *_H_PLAYS[(mask >> 16) & 255],
                *_S_PLAYS[mask >> 24],
            ]
        return _legal_plays(state)
    if phase is Phase.BIDDING:
        return state.rules.legal_bids(state)
    if phase is Phase.DISCARD:
        return state.rules.discard_actions(state)
    return []


def out_of_turn_actions(state: State, seat: int) -> list[Action]:
    """What ``seat``, not the seat to act, may do now: in bela for two, the holder of the
    trump seven may exchange it while the leader thinks, before anyone's first declare or
    play (RULES.md §5.4, §14). Empty for every other seat and moment."""
    if state.phase is not _PLAY or state.exchange_seat != seat or seat == state.to_act:
        return []
    return state.rules.exchange_actions(state, seat)


def seat_actions(state: State, seat: int) -> list[Action]:
    """Every legal action of ``seat`` now: those of the seat to act, or the ones another
    seat may take out of turn (``out_of_turn_actions``)."""
    if seat == current_player(state):
        return legal_actions(state)
    return out_of_turn_actions(state, seat)


def next_to_move(state: State) -> int | None:
    """The seat that moves next when every player acts as soon as he may (self-play: the
    arena, tests): a seat with an out-of-turn action (the bela-2p seven exchange) before the
    seat to act; None where ``current_player`` is None."""
    seat = state.exchange_seat
    if seat >= 0 and out_of_turn_actions(state, seat):
        return seat
    return current_player(state)


def _partner_master(state: State, seat: int) -> bool:
    """Four players: the seat's partner wins the trick so far."""
    if state.rules.players != 4 or not state.trick:
        return False
    return state.trick[state.best][0] == (seat + 2) % 4


def legal_play_mask(state: State) -> int:
    """The cards the seat to act may play (cached on the state, which never changes)."""
    cached = state._legal
    if cached is not None:
        return cached
    seat = state.to_act
    trick = state.trick
    hand = state.hands[seat]
    if not trick:  # the leader plays any card
        state._legal = hand
        return hand
    contract = state.contract
    assert contract is not None and state.flags is not None
    led = trick[0][1] >> 3
    winner, top = trick[state.best]
    # "partner is master" only matters to a player void in the led suit
    partner = state.rules.players == 4 and winner == (seat + 2) % 4
    mask = legal_mask_top(hand, led, top, contract.trump, partner, state.flags)
    state._legal = mask
    return mask


def _legal_plays(state: State) -> list[Action]:
    seat = state.to_act
    mask = legal_play_mask(state)
    out: list[Action] = []
    if state.exchange_seat == seat:  # bela 2p: the seven exchange, before his first card
        out += state.rules.exchange_actions(state, seat)
    if not state.tricks and _may_declare(state, seat):
        hand = state.hands[seat]
        for combos in decl.declarable_sets(hand):
            if combos:
                out.append(Declare(tuple(c.mask for c in combos)))
    if state.rules.options.get("auto_belote", True):
        out += [
            *_BYTE_PLAYS[0][mask & 255],
            *_BYTE_PLAYS[1][(mask >> 8) & 255],
            *_BYTE_PLAYS[2][(mask >> 16) & 255],
            *_BYTE_PLAYS[3][mask >> 24],
        ]
        return out
    belote_cards = state.belote_cards
    for card in card_list(mask):
        out.append(PLAYS[card])
        # the first card of a pair, or the second of a pair whose first was flagged (§14)
        if (belote_cards >> card) & 1 and (
            _belote_first(state, seat, card) or (state.belote_open[seat] >> (card >> 3)) & 1
        ):
            out.append(PLAYS_BELOTE[card])
    return out


def _may_declare(state: State, seat: int) -> bool:
    """A manual declaration is possible now (§1.2, §14)."""
    rules = state.rules
    assert state.contract is not None
    return (
        not state.tricks
        and not state.declared[seat]
        and rules.declarations_allowed(state.contract)
        and not rules.options.get("auto_declare", True)
    )


def _belote_first(state: State, seat: int, card: int) -> bool:
    """Playing ``card`` now would be the announced first card of a belote pair."""
    assert state.contract is not None
    rank, suit = card & 7, card >> 3
    if rank not in (RK, RQ) or not (state.rules.belote_suits(state.contract) >> suit) & 1:
        return False
    if (state.belote_open[seat] >> suit) & 1:
        return False
    other = card ^ (RK ^ RQ)  # K <-> Q of the same suit
    if not (state.hands[seat] >> other) & 1:
        return False
    if state.rules.belote_restricted and state.trick:
        led = state.trick[0][1] >> 3
        trump = state.contract.trump
        if suit != led and not (trump < 4 and suit == trump):
            return False
    return True


# ----------------------------------------------------------------------------- apply


def apply(state: State, action: Action, seat: int | None = None) -> tuple[State, list[Event]]:
    """Apply ``action`` by the player to act (or check it is ``seat``'s turn).

    Returns ``(new_state, events)``.  Raises ``InvalidAction`` for malformed input and
    ``IllegalAction`` (naming the rule) for an action the rules forbid; ``state`` is
    unchanged either way.
    """
    phase = state.phase
    actor = state.to_act
    if phase is _PLAY:
        if seat is not None and seat != actor:
            if type(action) is not Exchange:
                raise _not_your_turn(actor)
            new = state.copy()  # bela 2p: the seven's holder, out of turn before the play
            # (apply_exchange refuses it, naming why, to anyone else or after the first card)
            events = new.rules.apply_exchange(new, seat, action)
            new.actions = state.actions + ((seat, action),)
            return new, events
        allowed = state._legal  # usually cached by legal_actions
        if allowed is None:
            allowed = legal_play_mask(state)
        new = state.copy()
        card = action.card if type(action) is Play and not action.belote else -1
        if card >= 0 and (allowed >> card) & 1:  # the common case: a held, legal card
            if state.tricks or state.declared[actor]:
                events = _play_card(new, actor, card, False)
            else:  # the seat's first card, with its automatic declaration if any
                events = _first_card(new, actor, card)
        elif not isinstance(action, ACTION_TYPES):
            raise InvalidAction("not an action")
        else:
            events = _apply_play_phase(new, actor, action, allowed)
        new.actions = state.actions + ((actor, action),)
        if new.phase is not _PLAY:  # the deal just ended
            new.logs = state.logs + (DealLog(new.dealer, new.deck, new.actions),)
        return new, events
    if phase in _ENDS:
        reason = _NO_CARD_PLAY[phase] if isinstance(action, Play) else None
        if phase is Phase.MATCH_OVER:
            raise IllegalAction("the match is over", reason)
        raise IllegalAction("the deal is over: the next deal must be dealt first", reason)
    if seat is not None and seat != actor:
        raise _not_your_turn(actor)
    if not isinstance(action, ACTION_TYPES):
        raise InvalidAction("not an action")
    if phase is Phase.BIDDING:
        new = state.copy()
        if isinstance(action, (Play, Declare, Discard, Exchange)):
            reason = _NO_CARD_PLAY[phase] if isinstance(action, Play) else None
            raise IllegalAction(f"{action.type}: the bidding is not over", reason)
        events = new.rules.apply_bid(new, actor, action)
    else:  # DISCARD
        new = state.copy()
        events = new.rules.apply_discard(new, actor, action)
    new.actions = state.actions + ((actor, action),)
    if new.phase in _ENDS:  # the deal just ended
        new.logs = state.logs + (DealLog(new.dealer, new.deck, new.actions),)
    return new, events


def _apply_play_phase(state: State, seat: int, action: Action, allowed: int) -> list[Event]:
    if isinstance(action, Exchange):
        return state.rules.apply_exchange(state, seat, action)
    if isinstance(action, Declare):
        if not _may_declare(state, seat):
            raise IllegalAction(_why_no_declare(state, seat))
        try:
            combos = decl.parse_declaration(state.hands[seat], list(action.combos))
        except decl.DeclarationError as exc:
            raise IllegalAction(f"declare: {exc}") from None
        state.exchange_seat = -1  # the first declare or play closes the seven exchange (§14)
        state.declared = _set(state.declared, seat, True)
        state.announced = _set(state.announced, seat, combos)
        return _announce(state, seat, combos)
    if not isinstance(action, Play):
        raise IllegalAction(f"{action.type}: the bidding is over, play a card")
    card = action.card
    if not 0 <= card < 32:
        raise InvalidAction(f"not a card: {card!r}")
    if not (allowed >> card) & 1:
        raise IllegalAction(*_refused_card(state, seat, card))
    if not state.tricks and not state.declared[seat]:
        return _first_card(state, seat, card, action.belote)
    return _play_card(state, seat, card, action.belote)


def explain_illegal_card(state: State, seat: int, card: int) -> dict[str, Any] | None:
    """Why ``seat`` may not play ``card`` now, as data (the ``reason`` ``apply`` would give
    with its ``IllegalAction``), or None when the card is legal.  For a card a player tapped:
    the codes are listed in docs/engine.md, "Why a card is refused"."""
    if not 0 <= card < 32:
        raise InvalidAction(f"not a card: {card!r}")
    if not 0 <= seat < state.rules.players:
        raise InvalidAction(f"no seat {seat!r}")
    if state.phase is not _PLAY:
        return _NO_CARD_PLAY[state.phase]
    if seat != state.to_act:
        return _not_your_turn(state.to_act).reason
    if (legal_play_mask(state) >> card) & 1:
        return None
    return _refused_card(state, seat, card)[1]


_NO_CARD_PLAY = {phase: {"code": "no_card_play", "phase": phase.value} for phase in Phase}


def _not_your_turn(actor: int) -> IllegalAction:
    return IllegalAction(
        f"not your turn: seat {actor} is to act", {"code": "not_your_turn", "seat": actor}
    )


def _refused_card(state: State, seat: int, card: int) -> tuple[str, dict[str, Any]]:
    """The message and reason refusing ``card`` (not legal) to ``seat``, the seat to act."""
    hand = state.hands[seat]
    name = format_card(card)
    if not (hand >> card) & 1:
        if any(card in p for p in state.piles):  # a face-down card (duel)
            return f"{name} is face down and cannot be played", {"code": "face_down", "card": name}
        return f"not in hand: {name}", {"code": "not_in_hand", "card": name}
    contract = state.contract
    assert contract is not None
    return illegal_reason(
        hand,
        [c for _, c in state.trick],
        contract.trump,
        _partner_master(state, seat),
        state.rules.flags(contract),
        card,
    )


def _first_card(state: State, seat: int, card: int, flagged: bool = False) -> list[Event]:
    """The seat's first card of trick 1 (held and legal): first its automatic declaration,
    if the rules make one (§1.2), then the card."""
    state.exchange_seat = -1  # the first declare or play closes the seven exchange (§14)
    state.declared = _set(state.declared, seat, True)
    rules = state.rules
    assert state.contract is not None
    if rules.declarations_allowed(state.contract) and rules.options.get("auto_declare", True):
        combos = decl.auto_declaration(state.hands[seat])
        if combos:
            state.announced = _set(state.announced, seat, combos)
            events = _announce(state, seat, combos)
            if state.phase is Phase.MATCH_OVER:
                return events
            return events + _play_card(state, seat, card, flagged)
    return _play_card(state, seat, card, flagged)


def _play_card(state: State, seat: int, card: int, flagged: bool) -> list[Event]:
    """Play a held, legal ``card``: belote, the trick, and the trick's end."""
    if flagged or (state.belote_cards >> card) & 1:  # K or Q of a suit that makes belote
        events = _belote(state, seat, card, flagged)
        events.append(_CARD_PLAYED[seat][card])
    else:
        events = [_CARD_PLAYED[seat][card]]
    hands = [*state.hands]
    hands[seat] &= ~(1 << card)
    state.hands = tuple(hands)
    trick = state.trick
    played = len(trick)  # the trick's cards before this one
    if not played:
        state.best = 0
    elif BEATS[state.contract.trump][trick[state.best][1] * 32 + card]:  # type: ignore[union-attr]
        state.best = played
    state.trick = trick + ((seat, card),)
    n = state.rules.players
    if played + 1 < n:
        state.to_act = (seat + 1) % n
        return events
    events += _finish_trick(state)
    return events


def _why_no_declare(state: State, seat: int) -> str:
    rules = state.rules
    assert state.contract is not None
    if not rules.declarations_allowed(state.contract):
        return "declare: no declarations in this game or contract"
    if rules.options.get("auto_declare", True):
        return "declare: declarations are automatic"
    return "declare: only before your first card of the first trick"


def _announce(state: State, seat: int, combos: tuple[decl.Combo, ...]) -> list[Event]:
    events = [Event("declared", {"seat": seat, "combos": [decl.public_combo(c) for c in combos]})]
    if state.rules.options.get("eight_card_belot") and any(c.length == 8 for c in combos):
        side = state.rules.side_of[seat]
        state.winner = side
        state.phase = Phase.MATCH_OVER
        state.results = state.results + (
            DealResult(
                number=len(state.results),
                dealer=state.dealer,
                thrown_in=False,
                contract=state.contract,
                taker_side=state.rules.side_of[state.contract.taker] if state.contract else None,
                declarations=state.announced,
                totals_after=state.scores,
                winner_side=side,
            ),
        )
        data: dict[str, Any] = {"winner": side, "reason": "eight_card_belot"}
        if state.reserve:
            data["reserve_discarded"] = _discard_reserve(state)
        events.append(Event("match_over", data))
    return events


def _discard_reserve(state: State) -> int:
    """The match is over: a reserve still waiting is discarded (§14, D-8). Returns it."""
    discarded = state.reserve
    state.reserve_discarded = discarded
    state.reserve = 0
    return discarded


def _belote(state: State, seat: int, card: int, flagged: bool) -> list[Event]:
    contract = state.contract
    assert contract is not None
    suit = card >> 3
    auto = state.rules.options.get("auto_belote", True)
    if flagged and auto:
        reason = {"code": "belote_automatic", "card": format_card(card)}
        raise IllegalAction("belote: belote is announced automatically", reason)
    if (card & 7) in (RK, RQ) and (state.belote_open[seat] >> suit) & 1:
        # the second card of an announced pair: its flag is optional (§14)
        state.belote_open = _set(state.belote_open, seat, state.belote_open[seat] & ~(1 << suit))
        state.belote_seats = state.belote_seats + (seat,)
        return [Event("belote", {"seat": seat, "stage": "rebelote", "suit": "CDHS"[suit]})]
    first = _belote_first(state, seat, card)
    if flagged and not first:  # e.g. the second card of a pair whose first went unflagged
        name = format_card(card)
        reason = {"code": "no_belote", "card": name}
        raise IllegalAction(f"belote: {name} cannot make belote now", reason)
    if first and (auto or flagged):
        state.belote_open = _set(state.belote_open, seat, state.belote_open[seat] | (1 << suit))
        return [Event("belote", {"seat": seat, "stage": "belote", "suit": "CDHS"[suit]})]
    return []


def _finish_trick(state: State) -> list[Event]:
    rules = state.rules
    plays = state.trick
    winner = plays[state.best][0]
    table = state.table
    points = 0
    for _, c in plays:
        points += table[c]
    number = len(state.tricks) + 1
    last = number == rules.total_tricks
    if last:
        points += 10
    # Trick(leader, plays, winner, points) without the named tuple's Python-level __new__
    trick = _tuple_new(Trick, (state.leader, plays, winner, points))
    state.tricks = state.tricks + (trick,)
    seat_points = [*state.points]
    seat_points[winner] += points
    state.points = tuple(seat_points)
    won = [*state.tricks_won]
    won[winner] += 1
    state.tricks_won = tuple(won)
    state.trick = ()
    state.leader = state.to_act = winner
    events = [Event("trick_won", {"seat": winner, "points": points, "number": number})]
    events += rules.after_trick(state, trick)
    if last:
        events += _score(state)
    return events


def _score(state: State) -> list[Event]:
    rules = state.rules
    contract = state.contract
    assert contract is not None
    sides = rules.sides
    side_of = rules.side_of
    points, won = state.points, state.tricks_won
    card_points = [0] * sides
    tricks = [0] * sides
    for seat, side in enumerate(side_of):
        card_points[side] += points[seat]
        tricks[side] += won[seat]
    if state.discard:
        table = rules.points(contract)
        card_points[side_of[contract.taker]] += sum(table[c] for c in cards_of(state.discard))
    decl_points = [0] * sides
    announced = state.announced
    if any(announced):
        seq_side, carre_side = state.decl_sides  # found at the end of trick 1
        for seat, combos in enumerate(announced):
            side = side_of[seat]
            for combo in combos:
                if (carre_side if combo.kind == "carre" else seq_side) == side:
                    decl_points[side] += combo.points
    belote = [0] * sides
    for seat in state.belote_seats:
        belote[side_of[seat]] += 20
    taker_side = side_of[contract.taker]
    tricks_won = tuple(tricks)
    # DealFacts and DealResult take their fields by position here: named tuples built with
    # keywords cost twice as much (each field's name is on its line).
    facts = DealFacts(
        rules.variant,  # variant
        taker_side,  # taker_side
        contract.denom,  # denom
        contract.value,  # bid_value
        contract.multiplier,  # multiplier
        tuple(card_points),  # card_points
        tricks_won,  # tricks_won
        rules.total_tricks,  # total_tricks
        tuple(decl_points),  # decl_points
        tuple(belote),  # belote_points
        state.reserve,  # reserve
        rules.options.get("tie_rule", "fall"),  # tie_rule
    )
    score = rules.score_facts(facts)
    last_side = side_of[state.tricks[-1].winner]
    scores, game_winner = rules.record_deal(state.scores, score, taker_side)
    state.scores = scores
    state.reserve = score.reserve
    result = DealResult(
        len(state.results),  # number
        state.dealer,  # dealer
        False,  # thrown_in
        contract,  # contract
        taker_side,  # taker_side
        score,  # score
        tricks_won,  # tricks_won
        last_side,  # last_trick_side
        state.announced,  # declarations
        score.decl_points,  # decl_awarded
        state.belote_seats,  # belote_seats
        scores,  # totals_after
        game_winner,  # winner_side
    )
    state.results = state.results + (result,)
    events: list[Event] = [LazyEvent("deal_scored", lambda: {"result": result_json(result, rules)})]
    winner = rules.match_end(scores, score)
    if winner is not None:
        state.winner = winner
        state.phase = Phase.MATCH_OVER
        data: dict[str, Any] = {"winner": winner, "scores": list(scores)}
        if state.reserve:
            data["reserve_discarded"] = _discard_reserve(state)
        events.append(Event("match_over", data))
        return events
    state.phase = Phase.DEAL_OVER
    return events


def result_json(result: DealResult, rules: Rules) -> dict[str, Any]:
    """A deal's breakdown as JSON (used by events, views and the record CLI)."""
    out: dict[str, Any] = {
        "number": result.number,
        "dealer": result.dealer,
        "thrown_in": result.thrown_in,
        "totals_after": list(result.totals_after),
    }
    if result.thrown_in or result.score is None:
        if result.winner_side is not None:
            out["winner_side"] = result.winner_side
            out["eight_card_belot"] = True
        return out
    s = result.score
    assert result.contract is not None
    out.update(
        {
            "contract": contract_json(result.contract),
            "taker_side": result.taker_side,
            "outcome": s.outcome,
            "card_points": list(s.card_points),
            "tricks_won": list(result.tricks_won),
            "last_trick_side": result.last_trick_side,
            "capot_side": s.capot_side,
            "declarations": [
                [{**c.describe(), "cards": format_mask(c.mask)} for c in result.declarations[seat]]
                for seat in range(rules.players)
            ],
            "declaration_points": list(s.decl_points),
            "belote_points": list(s.belote_points),
            "belote_seats": list(result.belote_seats),
            "totals": list(s.totals),
            "recorded": list(s.recorded),
            "reserve_paid": s.reserve_paid,
            "reserve_paid_to": s.reserve_paid_to,
            "reserve": s.reserve,
            "rounding": _note_json(s.rounding),
            "winner_side": result.winner_side,
        }
    )
    return out


def _note_json(note: dict[str, Any] | None) -> dict[str, Any] | None:
    """A copy of a rounding note (its lists too): the result's own stays as it was."""
    if note is None:
        return None
    return {k: [*v] if isinstance(v, list) else v for k, v in note.items()}


def _set(tup: tuple[Any, ...], i: int, v: Any) -> tuple[Any, ...]:
    """``tup`` with item ``i`` replaced by ``v``."""
    new = [*tup]
    new[i] = v
    return tuple(new)
