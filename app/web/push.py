"""Web Push notifications: "your turn", "your table is starting", "a friend took the seat".

A browser turns notifications on (static/js/push.js: the switch in the table's settings and on
the profile page): it subscribes with the browser's push service using the server's VAPID
public key (``GET /api/push/key``) and gives the subscription to the server
(``POST /api/push/subscribe``); turning them off unsubscribes and forgets it
(``POST /api/push/unsubscribe``). The key pair is made at the first start and kept in the
database (``push_keys``), so that every process signs with it and subscriptions outlive
restarts. Sending is pywebpush's (encryption aes128gcm, VAPID signature), never our own.

The server sends (``PushService``, told by the room's publisher):

* **turn**: the turn came to a seat whose player's table pages are all hidden (the page says
  so in its ``settings`` message: ``hidden``); once until a page of it is shown again.
* **starting**: a public table the player sat at starts, and no page of his shows it.
* **seat**: a guest took a seat of a private friends table (the invite link's), and no page of
  the host shows it.

A notification holds a title, a line, the table's address and a tag; never a card. The words
are in the language the browser turned notifications on in.

Endpoints must be ``https://`` on a public address; ``settings.push_insecure_endpoints``
(tests only) allows a fake push service on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import ipaddress
import json
import logging
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from fastapi import APIRouter, Request
from py_vapid import Vapid02
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from app.engine import Phase
from app.persistence import push as store
from app.rooms.model import Mode, Status
from app.web.deps import SettingsDep
from app.web.errors import ApiError
from app.web.i18n import LANGUAGES, translate
from app.web.identity import IdentityDep

if TYPE_CHECKING:
    from app.rooms.room import Room

log = logging.getLogger("atout.push")

router = APIRouter()

TTL = {"turn": 120, "starting": 300, "seat": 3600}  # seconds a push service keeps one
MAX_SEEN = 20_000


# ---------------------------------------------------------------------------- keys


def new_key_pair() -> store.KeyPair:
    vapid = Vapid02()
    vapid.generate_keys()
    return store.KeyPair(vapid.private_pem().decode(), _public_key(vapid))


def _public_key(vapid: Vapid02) -> str:
    raw = vapid.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _b64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# ---------------------------------------------------------------------------- the service


def _hidden(listener: Any) -> bool:
    return bool(getattr(listener, "hidden", False))


class PushService:
    def __init__(self, settings: Any, sessionmaker: Any, writer: Any) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.writer = writer
        self.keys: store.KeyPair | None = None
        self._vapid: Vapid02 | None = None
        self._seen: dict[str, tuple[Any, ...]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.sent = 0  # pushes accepted by push services (tests, /metrics one day)

    async def start(self) -> None:
        """Read the key pair, or make it (the first start; another process may be first)."""
        async with self.sessionmaker() as session:
            keys = await store.read_key(session)
        if keys is None:
            await self.writer.submit(store.insert_key(new_key_pair()))
            async with self.sessionmaker() as session:
                keys = await store.read_key(session)
        assert keys is not None
        self.keys = keys
        self._vapid = Vapid02.from_pem(keys.private_pem.encode())

    async def stop(self) -> None:
        for task in list(self._tasks):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    @property
    def contact(self) -> str:
        """The VAPID ``sub``: ATOUT_VAPID_CONTACT; else the server's address when it is
        https; else a mailto: at its host (push services accept mailto: and https: only)."""
        if self.settings.vapid_contact:
            return str(self.settings.vapid_contact)
        base = str(self.settings.public_base_url or "")
        if base.startswith("https://"):
            return base
        host = urlsplit(base).hostname or "localhost"
        return f"mailto:atout@{host}"

    # ------------------------------------------------------------------ the room's hooks

    @staticmethod
    def _visible(room: Room, identity_id: int) -> bool:
        return any(
            listener.identity_id == identity_id and not _hidden(listener)
            for listener in room.listeners
        )

    def published(self, room: Room) -> None:
        """A new version: is it the turn of a player whose pages are all hidden?"""
        state = room.state
        if state is None or room.mode == Mode.LOCAL:
            return
        if state.phase not in (Phase.BIDDING, Phase.DISCARD, Phase.PLAY):
            return
        seat = room.seats[state.to_act]
        if seat.kind != "human" or seat.identity_id is None:
            return
        mine = [listener for listener in room.listeners if listener.identity_id == seat.identity_id]
        if not mine or not all(_hidden(listener) for listener in mine):
            return
        if any(getattr(listener, "turn_pushed", False) for listener in mine):
            return
        for listener in mine:
            listener.turn_pushed = True  # type: ignore[attr-defined]
        self.notify([seat.identity_id], "turn", room)

    def seen(self, room: Room) -> tuple[Any, ...] | None:
        """Remember the room's status and seats (a room created or loaded: what later changes
        are compared with); what was remembered before, if anything."""
        old = self._seen.get(room.game_id)
        if len(self._seen) > MAX_SEEN:
            self._seen.clear()
        self._seen[room.game_id] = (room.status, tuple((s.kind, s.identity_id) for s in room.seats))
        return old

    def room_changed(self, room: Room) -> None:
        """The room's seats or status may have changed: a public table starting, a guest in
        the seat of a friends table."""
        old = self.seen(room)
        seats = self._seen[room.game_id][1]
        if old is None:
            return
        old_status, old_seats = old
        if room.public and old_status == Status.WAITING and room.status == Status.PLAYING:
            humans = {s.identity_id for s in room.seats if s.kind == "human" and s.identity_id}
            away = [i for i in sorted(humans) if not self._visible(room, i)]
            if away:
                self.notify(away, "starting", room)
        if room.mode == Mode.FRIENDS and not room.public and len(old_seats) == len(seats):
            host = room.host_id
            for (_, before), s in zip(old_seats, room.seats, strict=True):
                if (
                    before is None
                    and s.kind == "human"
                    and s.identity_id is not None
                    and s.identity_id != host
                    and host is not None
                    and not self._visible(room, host)
                ):
                    self.notify([host], "seat", room, name=s.name)

    # ------------------------------------------------------------------ sending

    def notify(self, identity_ids: list[int], kind: str, room: Room, **params: Any) -> None:
        """Send a ``kind`` notification about ``room`` to every browser of these players that
        turned notifications on (in the background)."""
        if self._vapid is None:
            return
        about = {
            "game_id": room.game_id,
            "variant": room.variant,
            "url": room.services.url(room.game_id),
        }
        task = asyncio.create_task(
            self._send(identity_ids, kind, about, params), name=f"push-{kind}"
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def message(
        self, lang: str, kind: str, about: dict[str, Any], params: dict[str, Any]
    ) -> dict[str, Any]:
        """What one browser is sent: words, the table's address, a tag; never a card."""
        game = translate(lang, f"variant.{about['variant']}")
        name = params.get("name") or translate(lang, "push.a_friend")
        return {
            "kind": kind,
            "title": translate(lang, f"push.{kind}_title", game=game, name=name),
            "body": translate(lang, f"push.{kind}_body", game=game, name=name),
            "url": about["url"],
            "tag": f"{kind}-{about['game_id']}",
        }

    async def _send(
        self, identity_ids: list[int], kind: str, about: dict[str, Any], params: dict[str, Any]
    ) -> None:
        try:
            async with self.sessionmaker() as session:
                subscriptions = await store.subscriptions_of(session, identity_ids)
        except Exception:
            log.warning("could not read push subscriptions", exc_info=True)
            return
        await asyncio.gather(
            *(self._send_one(sub, kind, about, params) for sub in subscriptions),
            return_exceptions=True,
        )

    async def _send_one(
        self,
        sub: store.SubscriptionRow,
        kind: str,
        about: dict[str, Any],
        params: dict[str, Any],
    ) -> None:
        # imported on the first push: pywebpush brings aiohttp and requests, a quarter of a
        # second at every start of a server that may never send one
        from pywebpush import WebPushException, webpush_async

        data = json.dumps(self.message(sub.lang, kind, about, params), ensure_ascii=False)
        try:
            await webpush_async(
                {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}},
                data,
                vapid_private_key=self._vapid,
                vapid_claims={"sub": self.contact},
                timeout=10,
                ttl=TTL[kind],
            )
        except WebPushException as exc:
            status = getattr(exc, "status_code", None) or getattr(
                getattr(exc, "response", None), "status", None
            )
            if status in (404, 410):  # the browser unsubscribed: forget it
                await self.writer.submit(store.delete_subscription(sub.endpoint))
            log.info("push refused", extra={"event": "push_refused", "status": status})
            return
        except Exception as exc:
            log.info(
                "push failed: %s: %s",
                type(exc).__name__,
                str(exc)[:200],
                extra={"event": "push_failed"},
            )
            return
        self.sent += 1


def make_push(app: Any) -> PushService:
    return PushService(app.state.settings, app.state.sessionmaker, app.state.writer)


def push_of(request: Request) -> PushService:
    service: PushService | None = getattr(request.app.state, "push", None)
    if service is None or service.keys is None:
        raise ApiError(503, "busy", "notifications are starting")
    return service


# ---------------------------------------------------------------------------- HTTP


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Keys(_Body):
    p256dh: Annotated[StrictStr, Field(min_length=80, max_length=100)]
    auth: Annotated[StrictStr, Field(min_length=16, max_length=40)]


class SubscribeBody(_Body):
    endpoint: Annotated[StrictStr, Field(min_length=10, max_length=1000)]
    keys: Keys
    lang: StrictStr | None = None


class EndpointBody(_Body):
    endpoint: Annotated[StrictStr, Field(min_length=10, max_length=1000)]


def check_endpoint(endpoint: str, insecure: bool) -> None:
    """A push service's address: https on a public host (a subscription is the browser's
    word, and the server posts to it)."""
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    if insecure and parts.scheme in ("http", "https") and host:
        return
    if parts.scheme != "https" or not host or host == "localhost":
        raise ApiError(400, "bad_subscription", "a push endpoint is an https address")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return
    if not address.is_global:
        raise ApiError(400, "bad_subscription", "a push endpoint is on a public address")


def check_keys(keys: Keys) -> None:
    try:
        point, secret = _b64(keys.p256dh), _b64(keys.auth)
    except (ValueError, TypeError):
        raise ApiError(400, "bad_subscription", "the keys are base64url") from None
    if len(point) != 65 or point[0] != 4 or len(secret) != 16:
        raise ApiError(400, "bad_subscription", "p256dh is a P-256 point, auth 16 bytes")


@router.get("/api/push/key")
async def push_key(request: Request) -> dict[str, Any]:
    service = push_of(request)
    assert service.keys is not None
    return {"public_key": service.keys.public_key}


@router.post("/api/push/subscribe")
async def subscribe(
    body: SubscribeBody, identity: IdentityDep, request: Request, settings: SettingsDep
) -> dict[str, Any]:
    service = push_of(request)
    check_endpoint(body.endpoint, settings.push_insecure_endpoints)
    check_keys(body.keys)
    lang = body.lang if body.lang in LANGUAGES else "en"
    row = store.SubscriptionRow(identity.id, body.endpoint, body.keys.p256dh, body.keys.auth, lang)
    await service.writer.submit(store.save_subscription(row))
    return {"subscribed": True}


@router.post("/api/push/unsubscribe")
async def unsubscribe(
    body: EndpointBody, identity: IdentityDep, request: Request
) -> dict[str, Any]:
    service = push_of(request)
    await service.writer.submit(store.delete_subscription(body.endpoint, identity.id))
    return {"subscribed": False}


@router.post("/api/push/status")
async def status(body: EndpointBody, identity: IdentityDep, request: Request) -> dict[str, Any]:
    service = push_of(request)
    async with service.sessionmaker() as session:
        found = await store.has_subscription(session, identity.id, body.endpoint)
    return {"subscribed": found}
