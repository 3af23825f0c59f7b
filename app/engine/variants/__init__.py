"""The variant registry: a variant's id is its module name and its key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidAction
from .base import Rules
from .bela import BelaRules
from .bulgarian import BulgarianRules
from .classic import ClassicRules
from .coinche import CoincheRules
from .duel import DuelRules

VARIANTS: dict[str, type[Rules]] = {
    "classic": ClassicRules,
    "coinche": CoincheRules,
    "bulgarian": BulgarianRules,
    "bela": BelaRules,
    "duel": DuelRules,
}
ALIASES = {"belote": "classic", "contree": "coinche", "belot": "bulgarian"}


def get_rules(
    variant: str, players: int | None = None, options: Mapping[str, Any] | None = None
) -> Rules:
    name = ALIASES.get(variant, variant) if isinstance(variant, str) else variant
    cls = VARIANTS.get(name) if isinstance(name, str) else None
    if cls is None:
        raise InvalidAction(f"unknown variant: {variant!r}; one of {', '.join(VARIANTS)}")
    return cls(players, options)


__all__ = ["VARIANTS", "Rules", "get_rules"]
