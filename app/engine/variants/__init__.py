"""The variant registry: a variant's id is its module name and its key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import InvalidAction
from ..scoring import DealFacts, DealScore
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
    if not options:
        key: Any = (name, players, ())
    else:
        key = (name, players, tuple(sorted(options.items(), key=lambda kv: kv[0])))
    try:
        cached = _CACHE.get(key)
    except TypeError:  # an unhashable option value: validation will refuse it
        cached = None
        key = None
    if cached is None:
        cached = cls(players, options)
        if key is not None and len(_CACHE) < 512:
            _CACHE[key] = cached
    return cached


def stored_options(variant: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """A stored game's resolved options in the form this version accepts (``Rules.stored_options``;
    an unknown variant's are returned as they are, for ``get_rules`` to refuse)."""
    cls = VARIANTS.get(ALIASES.get(variant, variant))
    return cls.stored_options(options) if cls is not None else dict(options)


def score_deal(f: DealFacts) -> DealScore:
    """Score one played deal of ``f.variant`` (thrown-in deals are never scored: the reserve
    just waits); the bots score imagined deals this way."""
    cls = VARIANTS.get(f.variant)
    if cls is None:
        raise ValueError(f"unknown variant: {f.variant!r}")
    return cls.score_facts(f)


def match_winner(
    variant: str,
    totals: tuple[int, ...],
    deal: DealScore | None = None,
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
) -> int | None:
    """The side that wins a match of ``variant`` (with ``options``, the target among them)
    whose totals after the recorded deal ``deal`` are ``totals``, or None: another deal is
    played. ``Rules.match_end``, the one hook of a variant's match end."""
    return get_rules(variant, players, options).match_end(totals, deal)


# Rules are immutable, so equal requests share one instance.
_CACHE: dict[Any, Rules] = {}


__all__ = ["VARIANTS", "Rules", "get_rules", "match_winner", "score_deal", "stored_options"]
