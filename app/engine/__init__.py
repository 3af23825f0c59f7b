"""Atout's rules engine: pure, deterministic, no I/O (RULES.md).

Typical use::

    from app.engine import new_match, legal_actions, apply, seat_view
    state = new_match("classic", seed=1)
    state, events = apply(state, legal_actions(state)[0])
"""

from .actions import (
    Action,
    Bid,
    Declare,
    Discard,
    Double,
    Exchange,
    Pass,
    Play,
    Redouble,
    action_from_json,
    action_to_json,
)
from .errors import IllegalAction, InvalidAction
from .game import (
    apply,
    current_player,
    explain_illegal_card,
    is_over,
    legal_actions,
    new_match,
    next_to_move,
    out_of_turn_actions,
    result_json,
    seat_actions,
    start_deal,
)
from .state import Contract, DealResult, Event, Phase, State
from .variants import VARIANTS, get_rules, stored_options
from .views import seat_view, spectator_view

__all__ = [
    "VARIANTS",
    "Action",
    "Bid",
    "Contract",
    "DealResult",
    "Declare",
    "Discard",
    "Double",
    "Event",
    "Exchange",
    "IllegalAction",
    "InvalidAction",
    "Pass",
    "Phase",
    "Play",
    "Redouble",
    "State",
    "action_from_json",
    "action_to_json",
    "apply",
    "current_player",
    "explain_illegal_card",
    "get_rules",
    "is_over",
    "legal_actions",
    "new_match",
    "next_to_move",
    "out_of_turn_actions",
    "result_json",
    "seat_actions",
    "seat_view",
    "spectator_view",
    "stored_options",
    "start_deal",
]
