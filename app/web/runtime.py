"""Wiring of the live part of the server into the app (called from app/main.py).

``install(app)``: the identity cookie middleware, the JSON API and the WebSocket endpoint.
``start(app)`` (lifespan start, after the database is open): the group-commit writer, the bots'
executor (worker processes by default), the RoomManager (whose live counts ``/metrics`` reads),
the deal analyses (app/web/analysis.py), the event loop's stall watchdog and the garbage collection schedule (app/loop.py). Rooms are restored lazily: the first
request or connection naming a game replays its record from the database.
``stop(app)`` (lifespan end, before the database closes): every room finishes its command in
progress, then the writer flushes what is queued, then the executor stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any, cast

from fastapi import FastAPI
from sqlalchemy import select

from app import loop
from app.persistence.backup import BackupSchedule
from app.persistence.models import Identity
from app.persistence.notify import Notifier
from app.persistence.writer import CommitQueue
from app.players.analyses import Analyses
from app.players.awards import Awards, LevelCache
from app.players.identities import Identities
from app.rooms import RoomManager
from app.settings import Settings
from app.web import api, lobby, moderation, ops, push, ws
from app.web.identity import IdentityMiddleware

log = logging.getLogger("atout.web")


def install(app: FastAPI) -> None:
    settings: Settings = app.state.settings
    app.add_middleware(
        IdentityMiddleware, force_secure=settings.public_base_url.startswith("https://")
    )
    api.install(app)
    ops.install(app)  # /metrics, /api/stats
    app.include_router(lobby.router)  # /ws/lobby before /ws/{game_id}
    app.include_router(push.router)  # Web Push subscriptions (app/web/push.py)
    app.include_router(ws.router)


def _exit_with_parent(parent_pid: int) -> None:
    """In a bot worker: exit when the server process is gone (even after a SIGKILL)."""

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _bot_executor(settings: Settings) -> Executor:
    if settings.bot_workers > 0:
        # spawn: workers must not inherit the server's event loop, sockets or threads
        return ProcessPoolExecutor(
            max_workers=settings.bot_workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_exit_with_parent,
            initargs=(os.getpid(),),
        )
    return ThreadPoolExecutor(max_workers=2, thread_name_prefix="atout-bot")


async def start(app: FastAPI) -> None:
    settings: Settings = app.state.settings
    writer = CommitQueue(app.state.engine, group=settings.group_commit)
    await writer.start()
    executor = _bot_executor(settings)
    rooms = RoomManager(settings, app.state.sessionmaker, writer, executor)
    # the player side: XP and ratings when a match ends, level badges (app/players)
    rooms.services.levels = LevelCache(app.state.sessionmaker)
    rooms.services.awards = Awards(rooms.services.levels)
    await rooms.start()
    app.state.writer = writer
    app.state.bot_executor = executor
    app.state.rooms = rooms
    app.state.identities = Identities(app.state.sessionmaker, writer)
    # deal analyses (app/web/analysis.py) share the bots' pool, a short chunk at a time
    app.state.analyses = Analyses(settings, executor, app.state.sessionmaker, writer)
    app.state.lobby = lobby.make_lobby(app, rooms)  # public tables (app/rooms/lobby.py)
    app.state.notifier = None
    if rooms.use_leases:  # several processes: tell each other what changed (docs/scaling.md)
        app.state.notifier = await _start_notifier(app, rooms)
        app.state.lobby.notifier = app.state.notifier
    await app.state.lobby.start()
    app.state.push = push.make_push(app)  # the VAPID keys: made at the first start
    try:
        await app.state.push.start()
        rooms.services.push = app.state.push
    except Exception:  # a database not migrated yet: no notifications, the server runs
        log.warning("could not read the push keys", exc_info=True)
    if settings.test_hooks:  # tests only: a signal freezes the process inside a room write
        from app.persistence import freeze

        freeze.install()
    tracer = None
    if settings.stall_trace_ms > 0:
        tracer = loop.StallTracer(settings.stall_trace_ms / 1000)
        tracer.start()
    loop.TRACER[0] = tracer
    app.state.backups = BackupSchedule(settings)  # every ATOUT_BACKUP_HOURS
    app.state.backups.start()
    app.state.watchdog = asyncio.create_task(loop.watch_loop(tracer=tracer), name="atout-watchdog")
    if settings.gc_schedule:
        stop = asyncio.Event()
        task = asyncio.create_task(
            loop.collect_garbage(stop, settings.gc_full_seconds), name="atout-gc"
        )
        app.state.gc_schedule = (stop, task)


async def _start_notifier(app: FastAPI, rooms: RoomManager) -> Notifier | None:
    settings: Settings = app.state.settings
    identities: Identities = app.state.identities
    levels = cast(LevelCache, rooms.services.levels)
    notifier = Notifier(settings.database_url)

    async def renamed(ids: list[int]) -> None:
        async with app.state.sessionmaker() as session:
            rows = await session.execute(
                select(Identity.id, Identity.display_name).where(Identity.id.in_(ids))
            )
            names = {int(i): n for i, n in rows}
        for identity_id, name in names.items():
            identities.renamed(identity_id, name)
            if name is not None:
                await rooms.rename(identity_id, name)

    async def moved(ids: list[int]) -> None:
        for identity_id in ids:
            identities.forget(identity_id)
            for room in list(rooms.rooms.values()):
                for listener in list(room.listeners):
                    if listener.identity_id == identity_id:
                        listener.close(ws.CLOSE_POLICY, "this player moved to another browser")

    async def levels_changed(ids: list[int]) -> None:
        levels.drop(ids)
        await levels.ensure(ids)

    the_lobby = app.state.lobby

    def reset() -> None:  # notices may have been missed: forget what they would have fixed
        identities.clear()
        levels.clear()
        task = asyncio.create_task(the_lobby.resync())
        pending.add(task)
        task.add_done_callback(pending.discard)

    async def lobby_changed(ids: list[Any]) -> None:
        the_lobby.changed(ids, tell=False)

    async def online(values: list[Any]) -> None:
        the_lobby.online_received(values)

    async def handover(request: list[Any]) -> None:
        game_id, owner, epoch = request
        await rooms.hand_over(game_id, owner, epoch)

    notifier.on("handover", handover)
    notifier.on("renamed", renamed)
    notifier.on("moved", moved)
    notifier.on("levels", levels_changed)

    async def sanctions_changed(ids: list[int]) -> None:
        await moderation.sanctions_changed(app, ids)

    notifier.on("sanctions", sanctions_changed)

    async def game_closed(ids: list[Any]) -> None:
        await moderation.close_here(app, str(ids[0]))

    notifier.on("closed", game_closed)
    notifier.on("lobby", lobby_changed)
    notifier.on("online", online)
    pending: set[asyncio.Task[None]] = set()
    notifier.on_reset = reset
    await notifier.start()
    identities.notifier = notifier

    def publish_levels(ids: list[int]) -> None:
        task = asyncio.create_task(notifier.publish("levels", ids))
        pending.add(task)
        task.add_done_callback(pending.discard)

    levels.changed = publish_levels
    return notifier


async def stop(app: FastAPI) -> None:
    backups: BackupSchedule | None = getattr(app.state, "backups", None)
    if backups is not None:
        await backups.stop()
    the_lobby = getattr(app.state, "lobby", None)
    if the_lobby is not None:
        await the_lobby.stop()
    the_push = getattr(app.state, "push", None)
    if the_push is not None:
        await the_push.stop()
    notifier: Notifier | None = getattr(app.state, "notifier", None)
    if notifier is not None:
        await notifier.stop()
    watchdog: asyncio.Task[None] | None = getattr(app.state, "watchdog", None)
    if watchdog is not None:
        watchdog.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await watchdog
    tracer = loop.TRACER[0]
    if tracer is not None:
        tracer.stop()
        loop.TRACER[0] = None
    schedule = getattr(app.state, "gc_schedule", None)
    if schedule is not None:
        schedule[0].set()
        await schedule[1]
    analyses: Analyses | None = getattr(app.state, "analyses", None)
    if analyses is not None:
        await analyses.close()
    rooms: RoomManager | None = getattr(app.state, "rooms", None)
    if rooms is not None:
        await rooms.stop()
    writer: CommitQueue | None = getattr(app.state, "writer", None)
    if writer is not None:
        await writer.close()
        log.info("writes flushed", extra={"event": "writer_closed", **writer.stats.as_dict()})
    executor: Executor | None = getattr(app.state, "bot_executor", None)
    if executor is not None:
        # let a bot that is thinking finish (at most its budget); its answer is dropped
        await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)
