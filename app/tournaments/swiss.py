"""The live duplicate Swiss for pairs, its pure core (docs/tournaments.md, "Live Swiss"):
pairing a round, a board's matchpoints, a match's victory points, absences, byes and the
standings. No I/O, no clock, no asyncio; the same input always gives the same output.

The runtime calls, for each round:

1. ``entrant_states(matches, entrants, withdrawn)`` then ``pair_round(states, round_no,
   seed)``: the round's tables (``Pairing``), ``HOUSE`` for a pair of house players;
   ``needs_datum(len(tables))`` says whether a datum table of house players also plays the
   round's boards (its results go in under ``DATUM_TABLE``);
2. for each board, ``score_board([TableResult(...), ...])``: each table's matchpoints and
   percentages, North-South and East-West;
3. for each table, ``score_match(pairing, round_no, [its BoardScore per board])``: both sides'
   ``MatchScore`` (matchpoints, percentage, victory points); ``bye_score`` for a late pair's
   missed round;
4. ``standings(all the MatchScores, entrants, withdrawn)``: the ranked rows.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

HOUSE: Final = 0
"""The entrant id of a pair of house players: the odd entrant's opponent. Real entrants' ids
are positive."""

DATUM_TABLE: Final = 0
"""The table number of the datum table (house players at every seat) in a board's results.
Real tables are numbered from 1. The datum's result counts in the comparison; it is not
ranked."""

BYE: Final = -1
"""The ``opponent`` of a ``MatchScore`` for a round missed by a late pair."""

DATUM_BELOW_TABLES: Final = 3
"""A datum table plays a round's boards when the round has fewer tables than this."""

ABSENT_PERCENT: Final = 40.0
"""An absent side's board (its seat played by the stand-in) scores this percentage for that
side ("average minus"), never the stand-in's own result."""

PRESENT_PERCENT: Final = 60.0
"""The other side of such a board scores at least this ("average plus"): this, or its own
result's percentage if that is higher."""

BYE_PERCENT: Final = ABSENT_PERCENT
"""A round missed by a late pair scores as a match at this percentage (every board average
minus): ``victory_points(BYE_PERCENT)`` VP."""

VP_MAX: Final = 20.0
"""The victory-point scale: a match is worth ``VP_MAX`` between its two sides."""

Direction = Literal["NS", "EW"]


class PairingError(ValueError):
    """Bad input to ``pair_round`` (a repeated entrant id, an id that is not positive)."""


@dataclass(frozen=True)
class EntrantState:
    """What pairing needs to know of one entrant before a round.

    ``opponents`` are the entrant ids met so far (``HOUSE`` if it met the house pair; ``BYE``
    and other negative ids are ignored); ``ns_rounds`` and ``ew_rounds`` count the rounds it
    played in each direction; a ``withdrawn`` entrant is not paired."""

    entrant: int
    vp: float
    mp: float
    opponents: frozenset[int]
    ns_rounds: int
    ew_rounds: int
    withdrawn: bool = False


@dataclass(frozen=True)
class Pairing:
    """One table of a round: the entrant playing North-South and the one playing East-West
    (``HOUSE`` for house players). Tables are numbered from 1, the top of the ranking first."""

    table: int
    ns: int
    ew: int


@dataclass(frozen=True)
class TableResult:
    """One table's result on one board.

    ``ns_net`` is North-South's recorded score minus East-West's (a deal thrown in: 0).
    ``ns_absent`` / ``ew_absent``: a seat of that side was played by the stand-in on this
    board (the runtime decides when), so the side scores ``ABSENT_PERCENT``."""

    table: int
    ns_net: float
    ns_absent: bool = False
    ew_absent: bool = False


@dataclass(frozen=True)
class BoardScore:
    """One table's score on one board, for both sides.

    ``top`` is ``2 (n - 1)`` for the board's ``n`` results (every table's, the datum's
    included); ``ns_mp + ew_mp == top`` unless the board was ``adjusted`` (a side absent)."""

    table: int
    top: int
    ns_mp: float
    ew_mp: float
    ns_percent: float
    ew_percent: float
    adjusted: bool = False


@dataclass(frozen=True)
class MatchScore:
    """One side of one match (a table of a round), or a late pair's bye (``opponent == BYE``).

    ``mp`` sums the boards' matchpoints, ``top`` their tops; ``percent`` is the average of the
    boards' percentages; ``vp`` is ``victory_points(percent)``."""

    entrant: int
    opponent: int
    round_no: int
    direction: Direction | None  # None for a bye
    mp: float
    top: int
    percent: float
    vp: float
    boards: int


@dataclass(frozen=True)
class Row:
    """One line of the standings. ``tiebreak`` is the sum of the victory points of the
    entrants met (house players and byes count 0); equal (vp, mp, tiebreak) share a rank."""

    rank: int
    entrant: int
    vp: float
    mp: float
    tiebreak: float
    rounds: int  # matches played, byes not counted
    byes: int
    withdrawn: bool


def pair_round(entrants: Sequence[EntrantState], round_no: int, seed: str) -> list[Pairing]:
    """The tables of round ``round_no``: Swiss by score with no rematch and the directions
    balanced, ``HOUSE`` as the odd entrant's opponent; withdrawn entrants are left out.

    The entrants are ranked by VP, then MP, then a draw seeded by ``seed`` and ``round_no``;
    the pairing is a maximum-weight perfect matching (networkx) that, in this order of
    priority, avoids rematches, avoids meeting the house pair twice, keeps every entrant's
    North-South and East-West rounds within 2 of each other, keeps pairs close to their
    neighbours in the ranking (score groups), and gives each pair the direction it played
    less. Raises ``PairingError`` on a repeated or non-positive entrant id."""
    raise NotImplementedError


def needs_datum(tables: int) -> bool:
    """Whether a round with ``tables`` tables also has a datum table of house players."""
    return tables < DATUM_BELOW_TABLES


def board_matchpoints(results: Mapping[int, float]) -> dict[int, float]:
    """North-South matchpoints on one board, per table, from each table's ``ns_net``:
    2 per result beaten, 1 per tie (``app.tournaments.scoring.matchpoints``). East-West's are
    ``2 (n - 1)`` minus North-South's."""
    raise NotImplementedError


def absent_score(ns_absent: bool, ew_absent: bool, ns_percent: float) -> tuple[float, float]:
    """The percentages (NS, EW) of a board where a side was absent: ``ABSENT_PERCENT`` for an
    absent side; the other side gets ``PRESENT_PERCENT`` or its own result's percentage if
    higher (``ns_percent`` is North-South's from the comparison, East-West's is 100 minus it).
    Both absent: ``ABSENT_PERCENT`` each."""
    raise NotImplementedError


def score_board(results: Iterable[TableResult]) -> dict[int, BoardScore]:
    """Every table's score on one board (the datum's, under ``DATUM_TABLE``, included), each
    direction compared across the field. Every result, an absent side's table's included,
    counts in the comparison; an absent side's table then scores ``absent_score``."""
    raise NotImplementedError


def victory_points(percent: float) -> float:
    """A match percentage on the 20-VP scale: ``10 + 0.4 (percent - 50)``, held within
    [0, 20], to 2 decimals (25% or less: 0; 50%: 10; 75% or more: 20)."""
    raise NotImplementedError


def match_vp(ns_percent: float, ew_percent: float) -> tuple[float, float]:
    """Both sides' victory points of a match from their match percentages."""
    return victory_points(ns_percent), victory_points(ew_percent)


def score_match(
    pairing: Pairing, round_no: int, boards: Sequence[BoardScore]
) -> tuple[MatchScore, MatchScore]:
    """Both sides' scores (NS first) of one table's match, from its score on every board of
    the round. A side that is ``HOUSE`` gets a score too; ``standings`` leaves it out."""
    raise NotImplementedError


def bye_vp() -> float:
    """The victory points of a round missed by a late pair: ``victory_points(BYE_PERCENT)``."""
    return victory_points(BYE_PERCENT)


def bye_score(entrant: int, round_no: int, tops: Sequence[int]) -> MatchScore:
    """A late pair's score for a round it missed: ``BYE_PERCENT`` of the round's boards
    (``tops``: each board's top in that round), ``bye_vp()`` VP, opponent ``BYE``."""
    raise NotImplementedError


def entrant_states(
    matches: Iterable[MatchScore], entrants: Iterable[int], withdrawn: Collection[int] = ()
) -> list[EntrantState]:
    """The pairing input before a round: each entrant's VP, MP, opponents and directions so
    far, from the ``MatchScore``s of the rounds played (byes included)."""
    raise NotImplementedError


def standings(
    matches: Iterable[MatchScore], entrants: Iterable[int] = (), withdrawn: Collection[int] = ()
) -> list[Row]:
    """The ranked standings: by VP, then total MP, then the tie-break (the sum of the VP of
    the entrants met), best first; equal on all three share a rank and are listed by entrant
    id. Every entrant of ``entrants`` or of a match is listed (``HOUSE`` never); a withdrawn
    entrant keeps its place and is flagged."""
    raise NotImplementedError
