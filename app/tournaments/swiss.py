"""The live duplicate Swiss for pairs, its pure core: pairing a round, a board's matchpoints,
a match's victory points, absences, byes and the standings (docs/tournaments.md, "Live
duplicate Swiss: pairing and scoring"). No I/O, no clock, no asyncio; the same input always
gives the same output.

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

import hashlib
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from app.tournaments.scoring import matchpoints


def _networkx() -> Any:
    """networkx, imported when a round is first paired: a tenth of a second at the start of
    every server, most of which never pair a Swiss round."""
    import networkx

    return networkx


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

VP_SLOPE: Final = 0.4
"""Victory points per match percentage point away from 50% (``victory_points``)."""

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
    """One line of the standings. ``tiebreak`` is the average of the victory points of the
    entrants met (house players and byes left out; 0 with none); equal (vp, mp, tiebreak)
    share a rank."""

    rank: int
    entrant: int
    vp: float
    mp: float
    tiebreak: float
    rounds: int  # matches played, byes not counted
    byes: int
    withdrawn: bool


def pair_round(
    entrants: Sequence[EntrantState], round_no: int, seed: str, rounds: int | None = None
) -> list[Pairing]:
    """The tables of round ``round_no``: Swiss by score with no rematch and the directions
    balanced, ``HOUSE`` as the odd entrant's opponent; withdrawn entrants are left out.

    The entrants are ranked by VP, then MP, then a draw seeded by ``seed`` and ``round_no``;
    the pairing is a maximum-weight perfect matching (networkx) that, in this order of
    priority, avoids rematches, avoids meeting the house pair twice, keeps every entrant's
    North-South and East-West rounds within 2 of each other, keeps pairs close to their
    neighbours in the ranking (score groups), and gives each pair the direction it played
    less. Unless this is the last round (``round_no == rounds``, the event's number of
    rounds, when given), it also makes sure the next round can be paired without a rematch
    when this round's best pairing would leave none (a small field late in an event; see
    ``LOOKAHEAD_PAIRS``). Raises ``PairingError`` on a repeated or non-positive entrant
    id."""
    seen: set[int] = set()
    for state in entrants:
        if state.entrant <= 0:
            raise PairingError(f"entrant ids are positive, not {state.entrant}")
        if state.entrant in seen:
            raise PairingError(f"entrant {state.entrant} is listed twice")
        seen.add(state.entrant)
    ranked = sorted(
        (state for state in entrants if not state.withdrawn),
        key=lambda state: (-state.vp, -state.mp, _draw(seed, round_no, state.entrant)),
    )
    if not ranked:
        return []
    players: list[EntrantState | None] = list(ranked)
    if len(players) % 2:
        players.append(None)  # the house pair, below the last entrant
    matched = _match(players)
    if rounds is None or round_no < rounds:
        matched = _look_ahead(players, matched)
    tables = sorted((min(i, j), max(i, j)) for i, j in matched)
    out = []
    for number, (i, j) in enumerate(tables, start=1):
        ns, ew = _directions(players[i], players[j], seed, round_no)
        out.append(Pairing(number, ns, ew))
    return out


SEARCH_WINDOW: Final = 8
"""``pair_round`` first looks for a pairing among tables of entrants at most this many places
apart in the ranking (and the house pair against anyone), without rematch, meeting the house
twice or a direction three rounds ahead; it widens the window (doubling it) until it finds one,
and on the whole field takes the best pairing even if it breaks one of these."""

DISTANCE_COST: Final = 2
"""A table of the n-th and (n+k)-th of the ranking costs ``DISTANCE_COST * k * k``."""

DIRECTION_COST: Final = 7
"""The cost of a table that puts one of its pairs two rounds ahead in one direction: more
than pairing 1-3 and 2-4 instead of 1-2 and 3-4 costs (12) when that spares two such tables,
less than pairing 1-4 and 2-3 costs (16). Odd, so that one never ties with a difference of
distances (which are even)."""


def _draw(seed: str, round_no: int, key: object) -> bytes:
    """A seeded draw: the order of entrants equal on VP and MP, and the direction coin."""
    return hashlib.sha256(f"{seed}\x1f{round_no}\x1f{key}".encode()).digest()


def _imbalance(state: EntrantState | None) -> int:
    return 0 if state is None else state.ns_rounds - state.ew_rounds


def _met(a: EntrantState | None, b: EntrantState | None) -> bool:
    """Whether two real entrants met before (either one's record says so)."""
    if a is None or b is None:
        return False
    return b.entrant in a.opponents or a.entrant in b.opponents


def _house_again(a: EntrantState | None, b: EntrantState | None) -> bool:
    """Whether this table is an entrant meeting the house pair a second time."""
    if a is None and b is not None:
        return HOUSE in b.opponents
    if b is None and a is not None:
        return HOUSE in a.opponents
    return False


def _ahead(a: EntrantState | None, b: EntrantState | None) -> int:
    """How many rounds ahead in one direction this table leaves the pair that has to take
    the direction it played more (0 when each can take the one it needs)."""
    if a is None or b is None:
        return 0  # the house pair takes whatever the entrant needs
    da, db = _imbalance(a), _imbalance(b)
    if da == 0 or db == 0 or (da > 0) != (db > 0):
        return 0
    return min(abs(da), abs(db)) + 1


def _match(players: Sequence[EntrantState | None]) -> set[tuple[int, int]]:
    """The optimal perfect matching of ``players`` (by rank; ``None`` is the house pair),
    as pairs of ranks. Costs, each tier worth more than every lower tier together: rematch,
    house twice, directions beyond 2, then the ranking distance and the directions two rounds
    ahead (``DISTANCE_COST``, ``DIRECTION_COST``)."""
    nx = _networkx()
    m = len(players)
    half = m // 2
    house = m - 1 if players[-1] is None else None

    def cost(i: int, j: int) -> tuple[int, int, int, int]:
        a, b = players[i], players[j]
        ahead = _ahead(a, b)
        low = DISTANCE_COST * (j - i) ** 2 + (DIRECTION_COST if ahead == 2 else 0)
        return int(_met(a, b)), int(_house_again(a, b)), max(ahead - 2, 0), low

    limit = DISTANCE_COST * m * m + DIRECTION_COST + 1  # more than any table's ``low``
    window = SEARCH_WINDOW
    while window < m - 1:
        # a window of the ranking, and only tables that break no rule: every weight is the
        # same large number minus the table's ranking cost
        graph = nx.Graph()
        graph.add_nodes_from(range(m))
        for i in range(m):
            for j in range(i + 1, min(m, i + window + 1)):
                rematch, again, over, low = cost(i, j)
                if not (rematch or again or over):
                    graph.add_edge(i, j, weight=limit - low)
            if house is not None and i < house - window:
                rematch, again, over, low = cost(i, house)
                if not again:
                    graph.add_edge(i, house, weight=limit - low)
        found = nx.max_weight_matching(graph, maxcardinality=True)
        if len(found) == half:
            return {(min(i, j), max(i, j)) for i, j in found}
        window *= 2
    # the whole field, every table allowed: each tier weighs more than all the lower tiers
    # of a whole matching together
    costs = {(i, j): cost(i, j) for i in range(m) for j in range(i + 1, m)}
    top_low = max(c[3] for c in costs.values())
    w_dir = half * top_low + 1
    top_dir = top_low + w_dir * max(c[2] for c in costs.values())
    w_house = half * top_dir + 1
    w_rematch = half * (top_dir + w_house) + 1
    base = top_dir + w_house + w_rematch + 1
    graph = nx.Graph()
    graph.add_nodes_from(range(m))
    for (i, j), (rematch, again, over, low) in costs.items():
        weight = base - (rematch * w_rematch + again * w_house + over * w_dir + low)
        graph.add_edge(i, j, weight=weight)
    found = nx.max_weight_matching(graph, maxcardinality=True)
    return {(min(i, j), max(i, j)) for i, j in found}


LOOKAHEAD_PAIRS: Final = 24
"""A field of at most this many (the house pair counted) whose best pairing would leave the
next round no pairing without a rematch (say 6 pairs, whose third round leaves two triangles
of pairs who have not met) takes the best pairing that does leave one. Larger fields meet that
only after about half as many rounds as pairs, and keep their best pairing."""

LOOKAHEAD_CANDIDATES: Final = 20000
"""The look-ahead lists at most this many pairings that break no rule..."""

LOOKAHEAD_CHECKS: Final = 1000
"""...and tries at most this many of them, the cheapest first, before it keeps the best
pairing (a bound on its time: each try is a matching of the next round)."""


def _rules_kept(players: Sequence[EntrantState | None]) -> dict[int, list[int]]:
    """The tables that break no hard rule (no rematch, no house pair twice), as each rank's
    possible opponents' ranks, in rank order."""
    m = len(players)
    kept: dict[int, list[int]] = {i: [] for i in range(m)}
    for i in range(m):
        for j in range(i + 1, m):
            a, b = players[i], players[j]
            if not (_met(a, b) or _house_again(a, b)):
                kept[i].append(j)
                kept[j].append(i)
    return kept


def _perfect_matchings(
    kept: Mapping[int, Sequence[int]], limit: int
) -> list[list[tuple[int, int]]]:
    """Up to ``limit`` perfect matchings of the graph ``kept`` (rank -> ranks), in a fixed
    order."""
    out: list[list[tuple[int, int]]] = []
    chosen: list[tuple[int, int]] = []
    free = set(kept)

    def walk() -> None:
        if len(out) >= limit:
            return
        if not free:
            out.append(list(chosen))
            return
        i = min(free)
        free.discard(i)
        for j in kept[i]:
            if j in free:
                free.discard(j)
                chosen.append((i, j))
                walk()
                chosen.pop()
                free.add(j)
        free.add(i)

    walk()
    return out


def _has_perfect_matching(kept: Mapping[int, Sequence[int]]) -> bool:
    m = len(kept)
    if m == 0:
        return True
    if min(len(others) for others in kept.values()) >= m / 2:
        return True  # Dirac: a Hamiltonian cycle, so a perfect matching (m is even)
    nx = _networkx()
    graph = nx.Graph()
    graph.add_nodes_from(kept)
    graph.add_edges_from((i, j) for i, others in kept.items() for j in others if i < j)
    return len(nx.max_weight_matching(graph, maxcardinality=True)) * 2 == m


def _without(
    kept: Mapping[int, Sequence[int]], tables: Iterable[tuple[int, int]]
) -> dict[int, list[int]]:
    used = {frozenset(t) for t in tables}
    return {i: [j for j in others if frozenset((i, j)) not in used] for i, others in kept.items()}


def _look_ahead(
    players: Sequence[EntrantState | None], matched: set[tuple[int, int]]
) -> set[tuple[int, int]]:
    """``matched``, or the cheapest pairing that breaks no hard rule and leaves the next round
    a pairing without a rematch when ``matched`` does not (``LOOKAHEAD_PAIRS``)."""
    if len(players) > LOOKAHEAD_PAIRS:
        return matched
    kept = _rules_kept(players)
    if any(j not in kept[i] for i, j in matched):
        return matched  # this round already breaks a rule: nothing to keep for the next
    if _has_perfect_matching(_without(kept, matched)):
        return matched

    def cost(tables: Sequence[tuple[int, int]]) -> tuple[int, int]:
        over = low = 0
        for i, j in tables:
            ahead = _ahead(players[i], players[j])
            over += max(ahead - 2, 0)
            low += DISTANCE_COST * (j - i) ** 2 + (DIRECTION_COST if ahead == 2 else 0)
        return over, low

    candidates = _perfect_matchings(kept, LOOKAHEAD_CANDIDATES)
    for tables in sorted(candidates, key=lambda t: (cost(t), t))[:LOOKAHEAD_CHECKS]:
        if _has_perfect_matching(_without(kept, tables)):
            return set(tables)
    return matched


def _directions(
    a: EntrantState | None, b: EntrantState | None, seed: str, round_no: int
) -> tuple[int, int]:
    """(NS, EW) of a table: North-South to the pair that played it less (fewer NS than EW
    rounds); equal, a seeded coin. ``None`` is the house pair."""
    ida = HOUSE if a is None else a.entrant
    idb = HOUSE if b is None else b.entrant
    da, db = _imbalance(a), _imbalance(b)
    if a is None:
        da = -db  # the house pair takes whatever the entrant does not need
    if b is None:
        db = -da
    if da != db:
        return (ida, idb) if da < db else (idb, ida)
    low, high = min(ida, idb), max(ida, idb)
    coin = _draw(seed, round_no, f"direction:{low}:{high}")[0] & 1
    return (low, high) if coin else (high, low)


def needs_datum(tables: int) -> bool:
    """Whether a round with ``tables`` tables also has a datum table of house players."""
    return tables < DATUM_BELOW_TABLES


def board_matchpoints(results: Mapping[int, float]) -> dict[int, float]:
    """North-South matchpoints on one board, per table, from each table's ``ns_net``:
    2 per result beaten, 1 per tie (``app.tournaments.scoring.matchpoints``). East-West's are
    ``2 (n - 1)`` minus North-South's."""
    return {table: float(mp.points) for table, mp in matchpoints(results).items()}


def absent_score(ns_absent: bool, ew_absent: bool, ns_percent: float) -> tuple[float, float]:
    """The percentages (NS, EW) of a board where a side was absent: ``ABSENT_PERCENT`` for an
    absent side; the other side gets ``PRESENT_PERCENT`` or its own result's percentage if
    higher (``ns_percent`` is North-South's from the comparison, East-West's is 100 minus it).
    Both absent: ``ABSENT_PERCENT`` each."""
    if ns_absent and ew_absent:
        return ABSENT_PERCENT, ABSENT_PERCENT
    if ns_absent:
        return ABSENT_PERCENT, max(PRESENT_PERCENT, round(100.0 - ns_percent, 2))
    if ew_absent:
        return max(PRESENT_PERCENT, round(ns_percent, 2)), ABSENT_PERCENT
    return round(ns_percent, 2), round(100.0 - ns_percent, 2)


def score_board(results: Iterable[TableResult]) -> dict[int, BoardScore]:
    """Every table's score on one board (the datum's, under ``DATUM_TABLE``, included), each
    direction compared across the field. Every result, an absent side's table's included,
    counts in the comparison; an absent side's table then scores ``absent_score``.
    Raises ``ValueError`` if a table is listed twice."""
    rows = list(results)
    nets: dict[int, float] = {}
    for row in rows:
        if row.table in nets:
            raise ValueError(f"table {row.table} is listed twice")
        nets[row.table] = row.ns_net
    compared = matchpoints(nets)
    out: dict[int, BoardScore] = {}
    for row in sorted(rows, key=lambda r: r.table):
        mp = compared[row.table]
        ns_percent = 100.0 * mp.points / mp.top if mp.top else 50.0
        if row.ns_absent or row.ew_absent:
            ns, ew = absent_score(row.ns_absent, row.ew_absent, ns_percent)
            out[row.table] = BoardScore(
                row.table, mp.top, _mp(ns, mp.top), _mp(ew, mp.top), ns, ew, adjusted=True
            )
        else:
            out[row.table] = BoardScore(
                row.table,
                mp.top,
                float(mp.points),
                float(mp.top - mp.points),
                round(ns_percent, 2),
                round(100.0 - ns_percent, 2),
            )
    return out


def _mp(percent: float, top: int) -> float:
    """The matchpoints worth ``percent`` of ``top``, to 2 decimals."""
    return round(percent * top / 100.0, 2)


def victory_points(percent: float) -> float:
    """A match percentage on the 20-VP scale: ``10 + 0.4 (percent - 50)``, held within
    [0, 20], to 2 decimals (25% or less: 0; 50%: 10; 75% or more: 20)."""
    half = VP_MAX / 2
    return round(min(VP_MAX, max(0.0, half + VP_SLOPE * (percent - 50.0))), 2)


def match_vp(ns_percent: float, ew_percent: float) -> tuple[float, float]:
    """Both sides' victory points of a match from their match percentages."""
    return victory_points(ns_percent), victory_points(ew_percent)


def score_match(
    pairing: Pairing, round_no: int, boards: Sequence[BoardScore]
) -> tuple[MatchScore, MatchScore]:
    """Both sides' scores (NS first) of one table's match, from its score on every board of
    the round. A side that is ``HOUSE`` gets a score too; ``standings`` leaves it out.
    Raises ``ValueError`` with no board, or a board of another table."""
    if not boards:
        raise ValueError(f"table {pairing.table} has no board")
    if any(board.table != pairing.table for board in boards):
        raise ValueError(f"a board of another table than {pairing.table}")
    count = len(boards)
    top = sum(board.top for board in boards)
    ns_percent = round(sum(board.ns_percent for board in boards) / count, 2)
    ew_percent = round(sum(board.ew_percent for board in boards) / count, 2)
    ns_vp, ew_vp = match_vp(ns_percent, ew_percent)
    ns_mp = round(sum(board.ns_mp for board in boards), 2)
    ew_mp = round(sum(board.ew_mp for board in boards), 2)
    return (
        MatchScore(pairing.ns, pairing.ew, round_no, "NS", ns_mp, top, ns_percent, ns_vp, count),
        MatchScore(pairing.ew, pairing.ns, round_no, "EW", ew_mp, top, ew_percent, ew_vp, count),
    )


def bye_vp() -> float:
    """The victory points of a round missed by a late pair: ``victory_points(BYE_PERCENT)``."""
    return victory_points(BYE_PERCENT)


def bye_score(entrant: int, round_no: int, tops: Sequence[int]) -> MatchScore:
    """A late pair's score for a round it missed: ``BYE_PERCENT`` of the round's boards
    (``tops``: each board's top in that round), ``bye_vp()`` VP, opponent ``BYE``."""
    top = sum(tops)
    return MatchScore(
        entrant, BYE, round_no, None, _mp(BYE_PERCENT, top), top, BYE_PERCENT, bye_vp(), len(tops)
    )


def entrant_states(
    matches: Iterable[MatchScore], entrants: Iterable[int], withdrawn: Collection[int] = ()
) -> list[EntrantState]:
    """The pairing input before a round: the VP, MP, opponents and directions so far of each
    of ``entrants`` (those who may be paired; a pair of ``withdrawn`` among them is flagged),
    from the ``MatchScore``s of the rounds played (byes included). Only ``entrants`` are
    listed, sorted by id: a pair that has match scores but is not among them (not joined yet,
    left) is not; ``HOUSE`` never is."""
    played: dict[int, list[MatchScore]] = {entrant: [] for entrant in entrants}
    for match in matches:
        if match.entrant in played:
            played[match.entrant].append(match)
    played.pop(HOUSE, None)
    out = []
    for entrant in sorted(played):
        mine = played[entrant]
        out.append(
            EntrantState(
                entrant,
                round(sum(m.vp for m in mine), 2),
                round(sum(m.mp for m in mine), 2),
                frozenset(m.opponent for m in mine if m.opponent != BYE),
                sum(1 for m in mine if m.direction == "NS"),
                sum(1 for m in mine if m.direction == "EW"),
                entrant in withdrawn,
            )
        )
    return out


def standings(
    matches: Iterable[MatchScore], entrants: Iterable[int] = (), withdrawn: Collection[int] = ()
) -> list[Row]:
    """The ranked standings: by VP, then total MP, then the tie-break (the average VP of
    the entrants met, house players and byes left out), best first; equal on all three share
    a rank and are listed by entrant id. Every entrant of ``entrants`` or of a match is listed (``HOUSE`` never); a withdrawn
    entrant keeps its place and is flagged."""
    played: dict[int, list[MatchScore]] = {entrant: [] for entrant in entrants}
    for match in matches:
        played.setdefault(match.entrant, []).append(match)
    played.pop(HOUSE, None)
    vp = {entrant: round(sum(m.vp for m in mine), 2) for entrant, mine in played.items()}
    rows = []
    for entrant, mine in played.items():
        met = [vp.get(m.opponent, 0.0) for m in mine if m.opponent not in (HOUSE, BYE)]
        tiebreak = round(sum(met) / len(met), 2) if met else 0.0
        byes = sum(1 for m in mine if m.opponent == BYE)
        mp = round(sum(m.mp for m in mine), 2)
        rows.append((entrant, vp[entrant], mp, tiebreak, len(mine) - byes, byes))
    rows.sort(key=lambda r: (-r[1], -r[2], -r[3], r[0]))
    out: list[Row] = []
    for i, (entrant, points, mp, tiebreak, rounds, byes) in enumerate(rows):
        rank = i + 1
        if out and (out[-1].vp, out[-1].mp, out[-1].tiebreak) == (points, mp, tiebreak):
            rank = out[-1].rank
        out.append(Row(rank, entrant, points, mp, tiebreak, rounds, byes, entrant in withdrawn))
    return out
