"""Matchpoints and standings (docs/tournaments.md). Pure functions, no I/O.

A table's result on a board is its ``net``: the entrant's side's recorded score minus the
average of the other sides' (two sides: own minus theirs). On a board, each result gets 2
matchpoints for every other result it beats and 1 for every tie; its percentage is that over
the most it could get, ``2 (n - 1)`` for ``n`` results. A board with a single result scores
50%. An entrant's total is the average of its boards' percentages.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Matchpoints:
    points: int  # 2 per result beaten, 1 per tie
    top: int  # 2 (n - 1): the most a result could get on this board
    percent: float  # points / top, in percent (50 with nothing to compare)


def net_score(scores: Sequence[int], own: int) -> float:
    """The entrant's side's score minus the average of the other sides' scores."""
    others = [s for side, s in enumerate(scores) if side != own]
    return scores[own] - sum(others) / len(others)


def matchpoints(nets: Mapping[K, float]) -> dict[K, Matchpoints]:
    """Each table's matchpoints on one board, from every table's ``net`` on it."""
    values = list(nets.values())
    n = len(values)
    top = 2 * (n - 1)
    out: dict[K, Matchpoints] = {}
    for key, mine in nets.items():
        beaten = sum(1 for v in values if v < mine)
        tied = sum(1 for v in values if v == mine) - 1
        points = 2 * beaten + tied
        percent = 100.0 * points / top if top else 50.0
        out[key] = Matchpoints(points, top, round(percent, 2))
    return out


@dataclass(frozen=True)
class Standing:
    key: Hashable
    boards: int  # boards played
    points: int  # matchpoints, summed
    top: int  # the most they could have been
    percent: float  # the average of the boards' percentages
    rank: int  # 1 = first; equal percentages share a rank


def standings(
    per_board: Mapping[int, Mapping[K, Matchpoints]], keys: Sequence[K]
) -> list[Standing]:
    """The standings of ``keys`` (the entrants, not the datum table) over every board they
    played, best first: by percentage, then by boards played; equal percentages share a rank."""
    rows = []
    for key in keys:
        mps = [board[key] for board in per_board.values() if key in board]
        if not mps:
            continue
        percent = round(sum(m.percent for m in mps) / len(mps), 2)
        rows.append((key, len(mps), sum(m.points for m in mps), sum(m.top for m in mps), percent))
    rows.sort(key=lambda r: (-r[4], -r[1]))
    out: list[Standing] = []
    for i, (key, boards, points, top, percent) in enumerate(rows):
        rank = out[-1].rank if out and out[-1].percent == percent else i + 1
        out.append(Standing(key, boards, points, top, percent, rank))
    return out
