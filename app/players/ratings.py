"""Skill ratings per variant family, with the openskill library (Weng-Lin, Plackett-Luce).

Each finished match of the ``friends`` and ``computer`` modes updates the ratings of the
browsers that played it (``local`` games are not rated: one person plays every seat). Teams are
rated as teams: a side's members share the result. Each bot level is a rated player whose
rating never moves (an anchor, one per family), so every human rating is measured against fixed
points and a player can read "you play like medium".

One scale for people and bots: what a player sees is ``display(rating)``, ``1500 + 25 * (mu -
25)``, the estimate of his skill (mu) on a friendlier scale: medium shows 1500 in every family,
easy and hard where their measured anchors put them. A newcomer starts level with easy
(``newcomer(family)``: easy's mu, with openskill's starting sigma of 25/3), so a beginner who
beats medium passes easy at once and one who loses to easy drops below it.

A match moves a rating by how much of a match it was (``match_share``): the leading side's
total against the target of a full match (the variant's default target), at most 1. A game to
1000 counts in full, one to 501 about half, a one-deal game about a sixth; a duel deal is a
whole game of its family and counts in full. ``rate(..., weight=share)`` counts the match's
evidence that many times.

The anchors of easy and hard are measured, not guessed: ``atout arena anchors --family F``
(``bench.anchors``, docs/players.md) plays the levels against each other in the family's
game, turns the margins into the probability of winning a whole match and finds the mu gap
for which openskill's own model predicts it. ``ANCHOR_FINGERPRINTS`` are the digests of the
levels' decisions the figures were measured with; a test fails when a level's play changes,
and the anchors are then measured again.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

FAMILIES = ("classic", "bulgarian", "bela", "duel")
FAMILY_OF = {
    "classic": "classic",
    "coinche": "classic",
    "bulgarian": "bulgarian",
    "bela": "bela",
    "duel": "duel",
}
RATED_MODES = ("friends", "computer")
MIN_RANKED_GAMES = 3  # rated matches before a player appears in a ranking

# The displayed rating: DISPLAY_MEDIUM at medium's mu, DISPLAY_SCALE points per point of mu.
DISPLAY_MEDIUM = 1500
DISPLAY_SCALE = 25
MEDIUM_MU = 25.0
NEWCOMER_SIGMA = 25 / 3  # openskill's starting uncertainty

_MODEL = PlackettLuce()


def family_of(variant: str) -> str:
    return FAMILY_OF[variant]


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def display(self) -> int:
        return display(self)


ANCHOR_SIGMA = 5 / 3
# The bots' fixed ratings per family, from `atout arena anchors --family F` (docs/players.md:
# the figures, their 95% intervals and the date). Medium is at MEDIUM_MU in every family; a
# newcomer starts at easy's mu (``newcomer``).
ANCHORS: dict[str, dict[str, Rating]] = {
    "classic": {
        "easy": Rating(22.2, ANCHOR_SIGMA),
        "medium": Rating(25.0, ANCHOR_SIGMA),
        "hard": Rating(26.82, ANCHOR_SIGMA),
    },
    "bulgarian": {
        "easy": Rating(21.36, ANCHOR_SIGMA),
        "medium": Rating(25.0, ANCHOR_SIGMA),
        "hard": Rating(27.08, ANCHOR_SIGMA),
    },
    "bela": {
        "easy": Rating(23.3, ANCHOR_SIGMA),
        "medium": Rating(25.0, ANCHOR_SIGMA),
        "hard": Rating(27.13, ANCHOR_SIGMA),
    },
    "duel": {
        "easy": Rating(22.33, ANCHOR_SIGMA),
        "medium": Rating(25.0, ANCHOR_SIGMA),
        "hard": Rating(27.84, ANCHOR_SIGMA),
    },
}
# The digests of the levels' decisions the anchors above were measured with
# (bench.anchors.fingerprint); tests/players/test_anchors.py compares them with the code's.
ANCHOR_FINGERPRINTS: dict[str, dict[str, str]] = {
    "classic": {
        "easy": "21:5f28825e415f2b8d",
        "medium": "21:3e27e45dba9b2b23",
        "hard": "21:9aab08c0e429903a",
    },
    "bulgarian": {
        "easy": "26:e7ea6163f3929636",
        "medium": "26:7b002fe31dd391a6",
        "hard": "26:62d74e2500db97dd",
    },
    "bela": {
        "easy": "20:0fe5d9f67063d00f",
        "medium": "20:24797fb92b97eec5",
        "hard": "20:2df3715eb9e056d3",
    },
    "duel": {
        "easy": "26:dd764abf7c5482e8",
        "medium": "26:02258bc2a05e31a4",
        "hard": "26:8445cc9d83de9a2d",
    },
}


def display(rating: Rating) -> int:
    """The number a player reads: ``1500 + 25 * (mu - 25)`` (medium shows 1500)."""
    return round(DISPLAY_MEDIUM + DISPLAY_SCALE * (rating.mu - MEDIUM_MU))


def newcomer(family: str) -> Rating:
    """A player's rating before his first rated match in ``family``: level with easy (its mu),
    with openskill's starting uncertainty."""
    return Rating(ANCHORS[family]["easy"].mu, NEWCOMER_SIGMA)


def match_share(scores: Sequence[int], full_target: int | None) -> float:
    """How much of a full match a finished match was, in [0, 1]: the leading side's total
    against ``full_target``, the target of a full match (the variant's default). None: each
    deal is a whole game (the duel), which counts in full."""
    if full_target is None:
        return 1.0
    if full_target <= 0:
        raise ValueError("a full match needs a positive target")
    return max(0.0, min(1.0, max(scores, default=0) / full_target))


def plays_like(rating: Rating, family: str) -> str:
    """The bot level whose anchor in ``family`` is nearest to the player's estimated skill
    (mu)."""
    anchors = ANCHORS[family]
    return min(anchors, key=lambda level: (abs(anchors[level].mu - rating.mu), level))


@dataclass(frozen=True)
class Member:
    """One rated participant: a browser identity (``key``) or a bot level (``bot``)."""

    key: Hashable
    rating: Rating
    bot: str | None = None  # a bot level: an anchor, never updated


def bot(level: str, family: str) -> Member:
    """The rated participant for a bot of ``level`` in a game of ``family``: its anchor."""
    return Member(("bot", level), ANCHORS[family][level], bot=level)


def rate(
    teams: Sequence[Sequence[Member]], ranks: Sequence[int], weight: float = 1.0
) -> dict[Hashable, Rating]:
    """New ratings of the human members after a game; ``ranks[i]`` is team ``i``'s place (0 =
    first, equal ranks = a tie). Bots keep their anchor: they are absent from the result.

    ``weight`` in [0, 1] (``match_share``): how much of a full match the game was. Each
    member's change of mu and of sigma squared is that share of the full match's (a tempered
    likelihood, to first order): 1 is the whole update, 0 none.

    A human listed in two teams cannot be rated (ValueError); listed twice in one team, he
    counts once.
    """
    if len(teams) < 2 or len(teams) != len(ranks):
        raise ValueError("a rated game needs at least two teams and one rank per team")
    if not 0.0 <= weight <= 1.0:
        raise ValueError("a match's weight is between 0 and 1")
    seen: dict[Hashable, int] = {}
    clean: list[list[Member]] = []
    for index, team in enumerate(teams):
        members: list[Member] = []
        for member in team:
            if member.bot is None:
                if seen.get(member.key, index) != index:
                    raise ValueError(f"{member.key!r} plays for two teams")
                if member.key in seen:
                    continue
                seen[member.key] = index
            members.append(member)
        if not members:
            raise ValueError("an empty team")
        clean.append(members)
    model_teams = [
        [_MODEL.rating(mu=m.rating.mu, sigma=m.rating.sigma) for m in team] for team in clean
    ]
    new = _MODEL.rate(model_teams, ranks=list(ranks))
    out: dict[Hashable, Rating] = {}
    for team, rated in zip(clean, new, strict=True):
        for member, r in zip(team, rated, strict=True):
            if member.bot is None:
                out[member.key] = _weighed(member.rating, float(r.mu), float(r.sigma), weight)
    return out


def _weighed(before: Rating, mu: float, sigma: float, weight: float) -> Rating:
    """``weight`` of the way from ``before`` to the full update (mu, sigma), in mu and in
    sigma squared."""
    if weight == 1.0:
        return Rating(mu, sigma)
    variance = before.sigma**2 + weight * (sigma**2 - before.sigma**2)
    return Rating(before.mu + weight * (mu - before.mu), math.sqrt(variance))
