"""The ladder auction shared by classic's free mode and bulgarian (§2.8, §4.2)."""

from __future__ import annotations

from ..actions import DOUBLE, PASS, REDOUBLE, Action, Bid, Double, Pass, Redouble
from ..errors import IllegalAction
from ..state import Auction, Contract, Event, State
from .base import DENOM_TRUMP, Rules


def _team(seat: int) -> int:
    return seat % 2


def ladder_actions(state: State, ladder: tuple[str, ...], doubles: bool) -> list[Action]:
    a = state.auction
    seat = state.to_act
    start = 0 if a.best_denom is None else ladder.index(a.best_denom) + 1
    out: list[Action] = [PASS, *(Bid(d) for d in ladder[start:])]
    if doubles and a.best_seat >= 0:
        if a.multiplier == 1 and _team(a.best_seat) != _team(seat):
            out.append(DOUBLE)
        elif a.multiplier == 2 and _team(a.best_seat) == _team(seat):
            out.append(REDOUBLE)
    return out


def apply_ladder(
    rules: Rules, state: State, seat: int, action: Action, ladder: tuple[str, ...], doubles: bool
) -> list[Event]:
    a = state.auction
    n = rules.players
    if isinstance(action, Pass):
        passes = a.passes + 1
        state.auction = Auction(
            a.best_seat, a.best_denom, None, a.multiplier, a.doubler, passes, a.turns + 1
        )
        events = [Event("bid", {"seat": seat, "bid": "pass"})]
        if a.best_seat < 0 and passes == n:
            return events + rules.throw_in(state)
        if a.best_seat >= 0 and passes == n - 1:
            assert a.best_denom is not None
            contract = Contract(
                a.best_denom, DENOM_TRUMP[a.best_denom], a.best_seat, None, a.multiplier, a.doubler
            )
            return events + rules.set_contract(state, contract)
        state.to_act = (seat + 1) % n
        return events
    if isinstance(action, Bid):
        if action.value is not None:
            raise IllegalAction("bid: ladder bids carry no value")
        if action.contract not in ladder:
            raise IllegalAction(f"bid: {action.contract} is not a contract here")
        if a.best_denom is not None and ladder.index(action.contract) <= ladder.index(a.best_denom):
            raise IllegalAction(f"bid: must bid higher than {a.best_denom}")
        state.auction = Auction(seat, action.contract, None, 1, -1, 0, a.turns + 1)
        state.to_act = (seat + 1) % n
        return [Event("bid", {"seat": seat, "bid": "bid", "contract": action.contract})]
    if isinstance(action, (Double, Redouble)) and doubles:
        word = "contra" if isinstance(action, Double) else "recontra"
        if a.best_seat < 0:
            raise IllegalAction(f"{word}: there is no bid to {word}")
        if isinstance(action, Double):
            if _team(a.best_seat) == _team(seat):
                raise IllegalAction("contra: only on the opponents' bid")
            if a.multiplier != 1:
                raise IllegalAction("contra: the bid is already doubled")
            mult = 2
        else:
            if _team(a.best_seat) != _team(seat):
                raise IllegalAction("recontra: only on your own team's contra'd bid")
            if a.multiplier != 2:
                raise IllegalAction("recontra: the bid has not been contra'd")
            mult = 4
        state.auction = Auction(a.best_seat, a.best_denom, None, mult, seat, 0, a.turns + 1)
        state.to_act = (seat + 1) % n
        return [Event("bid", {"seat": seat, "bid": action.type})]
    raise IllegalAction(f"{action.type}: not possible in this auction")
