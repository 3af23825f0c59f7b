"""Fair play, for the host only: ``atout fairplay``, a batch job over the stored games.

Seeing cards one should not see (a partner sharing a hand, a second browser watching one's own
table) shows statistically: such a player's cards are the best ones *given all the cards*
(double dummy) unusually often compared with how often they are the best ones *given only
their own view* (the information-set value the deal analysis computes, app/bots/analysis.py).
For each player, over their public-table and tournament deals (``--all``: every game), the job
counts their card decisions (with more than one legal card) and the share of them that were:

* ``dd``: among the best with all cards known (the analysis's ``real.best``);
* ``info``: among the best given their own view (``expected.best``, over drawn deals).

It writes a JSON report (default ``<ATOUT_BACKUP_DIR>/../fairplay.json``, e.g.
``data/fairplay.json``) that the admin page shows: each player's figures, the number of deals
and decisions behind them, and where the ``dd`` figure sits in the server's distribution (the
percentile among players with at least ``MIN_DECISIONS`` decisions). It never flags, mutes or
bans anyone; docs/self-hosting.md says what the figures can and cannot show.

A deal already analysed and stored (the replay's analysis) is reused; the others are analysed
here, in this process, with ``--worlds`` drawn deals per decision, and not stored.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from app.bots.analysis import ANALYSIS_VERSION, Options, analyse_record
from app.persistence import models
from app.persistence import repository as repo
from app.persistence.analysis import load_analysis
from app.persistence.db import create_engine_from_url
from app.persistence.models import Game, GameSeat, Identity

MIN_DECISIONS = 20


def report_path(backup_dir: str) -> Path:
    return Path(backup_dir).expanduser().resolve().parent / "fairplay.json"


def _candidates(session: Session, every: bool) -> list[str]:
    query = select(Game.id).order_by(Game.created_at)
    if not every:
        wanted = []
        if hasattr(Game, "public"):
            wanted.append(Game.public.is_(True))
        tables = getattr(models, "TournamentTable", None)
        if tables is not None:
            wanted.append(Game.id.in_(select(tables.game_id)))
        if not wanted:
            return []
        from sqlalchemy import or_

        query = query.where(or_(*wanted))
    return [str(g) for g in session.scalars(query)]


def _holders(session: Session, game_id: str) -> dict[int, int]:
    return {
        int(s.seat): int(s.identity_id)
        for s in session.scalars(select(GameSeat).where(GameSeat.game_id == game_id))
        if s.kind == "human" and s.identity_id is not None
    }


def tally(totals: dict[int, dict[str, Any]], holders: dict[int, int], deal: dict[str, Any]) -> None:
    """Add one analysed deal's card decisions to each seat holder's totals."""
    seen: set[int] = set()
    for decision in deal.get("decisions", []):
        if decision.get("kind") != "card":
            continue
        identity_id = holders.get(int(decision["seat"]))
        if identity_id is None:
            continue
        entry = totals.setdefault(identity_id, {"deals": 0, "decisions": 0, "dd": 0, "info": 0})
        if identity_id not in seen:
            entry["deals"] += 1
            seen.add(identity_id)
        entry["decisions"] += 1
        played = decision["played"]
        entry["dd"] += played in decision["real"]["best"]
        entry["info"] += played in decision["expected"]["best"]


def summarise(totals: dict[int, dict[str, Any]], names: dict[int, str | None]) -> dict[str, Any]:
    """Each player's shares (percent), and the server's distribution of them."""
    players = []
    for identity_id, t in totals.items():
        n = t["decisions"]
        players.append(
            {
                "identity_id": identity_id,
                "name": names.get(identity_id),
                "deals": t["deals"],
                "decisions": n,
                "dd": round(100 * t["dd"] / n, 1) if n else None,
                "info": round(100 * t["info"] / n, 1) if n else None,
            }
        )
    rated = sorted(p["dd"] for p in players if p["decisions"] >= MIN_DECISIONS)
    for p in players:
        if p["decisions"] >= MIN_DECISIONS and rated:
            below = sum(1 for v in rated if v <= p["dd"])
            p["percentile"] = round(100 * below / len(rated))
        else:
            p["percentile"] = None
    players.sort(key=lambda p: (-(p["dd"] or 0), -p["decisions"]))
    all_n = sum(t["decisions"] for t in totals.values())
    server = {
        "players": len(rated),
        "dd": round(100 * sum(t["dd"] for t in totals.values()) / all_n, 1) if all_n else None,
        "info": round(100 * sum(t["info"] for t in totals.values()) / all_n, 1) if all_n else None,
        "dd_quartiles": _quartiles(rated),
    }
    return {"players": players, "server": server}


def _quartiles(values: list[float]) -> list[float] | None:
    if not values:
        return None
    n = len(values)
    return [values[min(n - 1, int(q * n))] for q in (0.25, 0.5, 0.75)]


async def run(
    database_url: str, *, every: bool = False, worlds: int = 20, limit: int | None = None
) -> dict[str, Any]:
    engine = create_engine_from_url(database_url)
    totals: dict[int, dict[str, Any]] = {}
    deals_rated = 0
    try:
        async with engine.connect() as conn:
            session_games = await conn.run_sync(lambda c: _candidates(Session(c), every))
        for game_id in session_games[: limit or None]:
            from app.persistence.db import create_sessionmaker

            async with create_sessionmaker(engine)() as session:
                stored = await repo.load_game(session, game_id)
                if stored is None:
                    continue
                holders = await session.run_sync(partial(_holders, game_id=game_id))
                if not holders:
                    continue
                record = stored.record()
                cached: dict[int, Any] = {}
                for number in range(len(stored.deals)):
                    found = await session.run_sync(
                        partial(load_analysis, game_id=game_id, deal=number)
                    )
                    if found is not None and found[0] == ANALYSIS_VERSION:
                        cached[number] = found[1]
            if record is None:
                continue
            finished = _finished_deals(record)
            for number in finished:
                deal = cached.get(number)
                if deal is None:
                    report = await asyncio.to_thread(
                        analyse_record,
                        record,
                        [number],
                        sorted(holders),
                        Options(worlds=worlds, bid_worlds=1, seed=number),
                    )
                    deal = report["deals"][0]
                tally(totals, holders, deal)
                deals_rated += 1
        async with engine.connect() as conn:
            ids = list(totals)
            rows = await conn.execute(
                select(Identity.id, Identity.display_name).where(Identity.id.in_(ids))
            )
            names = {int(i): n for i, n in rows}
    finally:
        await engine.dispose()
    out = summarise(totals, names)
    out.update(
        {
            "at": datetime.now(UTC).isoformat(),
            "deals": deals_rated,
            "scope": "all" if every else "public+tournament",
            "worlds": worlds,
            "min_decisions": MIN_DECISIONS,
        }
    )
    return out


def _finished_deals(record: dict[str, Any]) -> list[int]:
    from app.bots.analysis import _replayed

    replayed, _ = _replayed(record)
    return [d.index for d in replayed if d.end is not None]


def load_report(path: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data


def cmd_fairplay(args: argparse.Namespace) -> int:
    from app.settings import get_settings

    settings = get_settings()
    out = Path(args.out) if args.out else report_path(settings.backup_dir)
    started = time.monotonic()
    report = asyncio.run(
        run(settings.database_url, every=args.all, worlds=args.worlds, limit=args.limit)
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    partial.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    partial.replace(out)
    print(
        f"fairplay: {report['deals']} deals, {len(report['players'])} players rated in "
        f"{time.monotonic() - started:.1f} s; report in {out}"
    )
    if args.json:
        json.dump(report, sys.stdout, indent=2, ensure_ascii=False)
        print()
    return 0


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fairplay",
        help="rate each player's card play against double dummy and their own view",
        description="For the host: each player's share of best cards with all cards known and "
        "with only their own view, over public and tournament deals; the admin page shows it.",
    )
    parser.add_argument("--all", action="store_true", help="every game, not only public ones")
    parser.add_argument("--worlds", type=int, default=20, help="deals drawn per decision (20)")
    parser.add_argument("--limit", type=int, help="at most this many games")
    parser.add_argument("--out", help="report file (default: beside ATOUT_BACKUP_DIR)")
    parser.add_argument("--json", action="store_true", help="also print the report")
    parser.set_defaults(func=cmd_fairplay)
