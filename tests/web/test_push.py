"""Web Push through a real server: a fake push service on 127.0.0.1 receives the notifications,
the test decrypts them with the keys it subscribed with (http_ece, as a browser would) and
reads them: "your turn" to a hidden page, "your table is starting", "a friend took the seat"
(app/web/push.py). Never a card."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from app.web.errors import ApiError
from app.web.push import check_endpoint
from tests.web.conftest import start_server
from tests.web.wsclient import TIMEOUT, Browser, Socket

pytestmark = pytest.mark.db

CARD = r"\b(7|8|9|10|J|Q|K|A)[SHDC]\b"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class PushService:
    """A push service on 127.0.0.1: keeps every POST (path, headers, body), answers 201."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, str], bytes]] = []
        self.changed = threading.Condition()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with service.changed:
                    service.received.append((self.path, dict(self.headers.items()), body))
                    service.changed.notify_all()
                self.send_response(201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    async def wait(self, count: int, timeout: float = TIMEOUT) -> None:
        def enough() -> bool:
            with self.changed:
                return self.changed.wait_for(lambda: len(self.received) >= count, timeout)

        assert await asyncio.to_thread(enough), f"{len(self.received)} pushes, not {count}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


class Subscription:
    """What a browser's push manager makes: a P-256 key pair and an auth secret."""

    def __init__(self, service: PushService, name: str) -> None:
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)
        self.endpoint = f"http://127.0.0.1:{service.port}/push/{name}"
        self.path = f"/push/{name}"

    def json(self, lang: str = "en") -> dict[str, Any]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "keys": {"p256dh": b64(point), "auth": b64(self.auth)},
            "lang": lang,
        }

    def read(self, body: bytes) -> dict[str, Any]:
        plain = http_ece.decrypt(
            body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"
        )
        message: dict[str, Any] = json.loads(plain)
        return message


@pytest.fixture(scope="module")
def push_service():  # type: ignore[no-untyped-def]
    service = PushService()
    yield service
    service.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory):  # type: ignore[no-untyped-def]
    srv = start_server(
        tmp_path_factory.mktemp("push"),
        {
            "ATOUT_PUSH_INSECURE_ENDPOINTS": "1",
            "ATOUT_VAPID_CONTACT": "mailto:host@example.org",
            "ATOUT_WS_RATE": "100000",
        },
    )
    try:
        yield srv
    finally:
        srv.stop()


def pushes_to(service: PushService, sub: Subscription) -> list[dict[str, Any]]:
    return [sub.read(body) for path, _h, body in list(service.received) if path == sub.path]


async def subscribed(server: Any, service: PushService, name: str, lang: str = "en") -> Any:
    browser = await Browser.new(server)
    sub = Subscription(service, name)
    status, body = await browser.post("/api/push/subscribe", sub.json(lang))
    assert status == 200 and body == {"subscribed": True}, body
    return browser, sub


async def hide(sock: Socket, hidden: bool = True) -> None:
    await sock.send({"type": "settings", "auto_play": False, "hidden": hidden})


async def wait_for(service: PushService, sub: Subscription, kind: str) -> dict[str, Any]:
    for _ in range(50):
        found = [m for m in pushes_to(service, sub) if m["kind"] == kind]
        if found:
            return found[0]
        await service.wait(len(service.received) + 1)
    raise AssertionError(f"no {kind} push")


def check_message(message: dict[str, Any], game_id: str, server: Any) -> None:
    """A title, a line, the table's address and a tag: nothing else, never a card."""
    import re

    assert set(message) == {"kind", "title", "body", "url", "tag"}
    assert message["url"] == f"{server.base_url}/g/{game_id}"
    assert message["tag"] == f"{message['kind']}-{game_id}"
    assert not re.search(CARD, message["title"] + " " + message["body"])


async def test_the_key_is_made_once_and_kept(server, push_service) -> None:
    browser = await Browser.new(server)
    status, first = await browser.get("/api/push/key")
    assert status == 200
    point = unb64(first["public_key"])
    assert len(point) == 65 and point[0] == 4
    server.restart()
    status, again = await browser.get("/api/push/key")
    assert again == first  # kept in the database


async def test_your_turn_reaches_a_hidden_page_once_and_never_a_visible_one(
    server, push_service
) -> None:
    browser, sub = await subscribed(server, push_service, "turn")
    _status, key = await browser.get("/api/push/key")
    game_id = await browser.create(variant="classic", mode="computer", level="easy")
    sock = await browser.connect(game_id)
    await sock.until(lambda s: s.my_turn_seat() is not None)

    async def move() -> None:
        """One move of mine, then wait for my next turn (a deal's end agreed to on the way)."""
        version = sock.version
        await sock.act(sock.legal()[0])
        while True:
            await sock.until(
                lambda s, v=version: (
                    s.version > v
                    and (s.my_turn_seat() is not None or s.view["phase"] == "deal_over")
                )
            )
            if sock.my_turn_seat() is not None:
                return
            version = sock.version
            await sock.send({"type": "consent", "kind": "next_deal"})

    # visible: the turn comes back, no push
    await move()
    assert pushes_to(push_service, sub) == []
    # hidden: the turn coming back is pushed, once
    await hide(sock)
    await move()
    message = await wait_for(push_service, sub, "turn")
    check_message(message, game_id, server)
    assert message["title"] == "Your turn"
    assert message["body"] == "Classic belote: the table is waiting for you."
    hand = [str(c) for c in (sock.view or {}).get("hand", [])]
    assert hand and not any(card in json.dumps(message) for card in hand if len(card) > 1)
    await move()  # still hidden: no second push
    # shown, hidden again: the next turn is pushed again
    await hide(sock, False)
    await hide(sock, True)
    await move()
    await push_service.wait(2)
    turns = [m for m in pushes_to(push_service, sub) if m["kind"] == "turn"]
    assert len(turns) == 2
    # the VAPID signature names this server's key and the contact
    headers = {
        k.lower(): v
        for k, v in next(h for path, h, _b in push_service.received if path == sub.path).items()
    }
    auth = headers["authorization"]
    assert auth.startswith("vapid t=") and f"k={key['public_key']}" in auth
    token = auth.split("t=", 1)[1].split(",", 1)[0]
    claims = json.loads(unb64(token.split(".")[1]))
    assert claims["sub"] == "mailto:host@example.org"
    assert claims["aud"] == f"http://127.0.0.1:{push_service.port}"
    assert headers["content-encoding"] == "aes128gcm"
    await sock.close()


async def test_a_public_table_starting_and_a_friend_in_the_seat(server, push_service) -> None:
    # a public duel: the host waits on a hidden page; a stranger sits; the table starts
    host, host_sub = await subscribed(server, push_service, "public-host", lang="fr")
    game_id = await host.create(variant="duel", mode="friends", public=True)
    sock = await host.connect(game_id)
    await hide(sock)
    stranger = await Browser.new(server)
    status, _ = await stranger.post(f"/api/games/{game_id}/sit", {"seat": 1})
    assert status == 200
    message = await wait_for(push_service, host_sub, "starting")
    check_message(message, game_id, server)
    assert message["title"] == "Votre table commence"
    await sock.close()

    # a private friends table: the host is away; a friend opens the link and sits
    host2, host2_sub = await subscribed(server, push_service, "friends-host")
    private = await host2.create(variant="duel", mode="friends")
    friend = await Browser.new(server)
    await friend.post("/api/me/name", {"name": "Zoé"})
    status, _ = await friend.post(f"/api/games/{private}/join")
    assert status == 200
    message = await wait_for(push_service, host2_sub, "seat")
    check_message(message, private, server)
    assert message["title"] == "Zoé is at your table"
    assert message["body"] == "Zoé took the seat your invitation offered (Belote duel)."


async def test_turned_off_and_bad_subscriptions(server, push_service) -> None:
    browser, sub = await subscribed(server, push_service, "off")
    status, body = await browser.post("/api/push/status", {"endpoint": sub.endpoint})
    assert body == {"subscribed": True}
    other = await Browser.new(server)
    # another browser cannot turn this one's off
    await other.post("/api/push/unsubscribe", {"endpoint": sub.endpoint})
    status, body = await browser.post("/api/push/status", {"endpoint": sub.endpoint})
    assert body == {"subscribed": True}
    status, body = await browser.post("/api/push/unsubscribe", {"endpoint": sub.endpoint})
    assert status == 200 and body == {"subscribed": False}
    status, body = await browser.post("/api/push/status", {"endpoint": sub.endpoint})
    assert body == {"subscribed": False}
    # bad keys, a bad body: structured errors, nothing kept
    bad = sub.json()
    bad["keys"]["p256dh"] = b64(b"\x04" + b"x" * 63)
    status, body = await browser.post("/api/push/subscribe", bad)
    assert status == 400 and body["error"]["code"] == "bad_subscription"
    status, body = await browser.post("/api/push/subscribe", {"endpoint": sub.endpoint})
    assert status == 422
    status, body = await browser.post("/api/push/status", {"endpoint": sub.endpoint})
    assert body == {"subscribed": False}


async def test_a_player_keeps_notifications_in_ten_browsers_at_most(server, push_service) -> None:
    browser = await Browser.new(server)
    subs = [Subscription(push_service, f"many-{i}") for i in range(12)]
    for sub in subs:
        status, _ = await browser.post("/api/push/subscribe", sub.json())
        assert status == 200
    kept = []
    for sub in subs:
        _, body = await browser.post("/api/push/status", {"endpoint": sub.endpoint})
        kept.append(body["subscribed"])
    assert kept == [False, False] + [True] * 10  # the two oldest were dropped


def test_the_contact_push_services_are_given() -> None:
    """Push services take a mailto: or an https: contact only: without ATOUT_VAPID_CONTACT, an
    https server gives its address, any other a mailto: at its host; a bad setting stops the
    server at start rather than every push."""
    from pydantic import ValidationError

    from app.settings import Settings
    from app.web.push import PushService

    def contact(**values: str) -> str:
        settings = Settings(_env_file=None, **values)  # type: ignore[arg-type]
        return PushService(settings, None, None).contact

    assert contact(public_base_url="http://127.0.0.1:8741") == "mailto:atout@127.0.0.1"
    assert contact(public_base_url="https://belote.example.org") == "https://belote.example.org"
    assert contact(vapid_contact="mailto:me@example.org") == "mailto:me@example.org"
    with pytest.raises(ValidationError):
        Settings(_env_file=None, vapid_contact="me@example.org")  # type: ignore[call-arg]


def test_endpoints_are_https_on_public_addresses() -> None:
    check_endpoint("https://push.example.org/send/abc", insecure=False)
    for endpoint in (
        "http://push.example.org/send/abc",
        "https://127.0.0.1/x",
        "https://10.0.0.8/x",
        "https://[::1]/x",
        "https://localhost/x",
        "ftp://push.example.org/x",
    ):
        with pytest.raises(ApiError):
            check_endpoint(endpoint, insecure=False)
    check_endpoint("http://127.0.0.1:9/x", insecure=True)
