"""The host's tools in Chromium: a player reports another from the table; the host signs in
with the token, finds the reported player from the report, mutes and then bans them, and the
player sees each consequence at once, in their language. The admin pages at phone and desktop
sizes, with no page error (the policy refuses inline script)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .conftest import errors_of, screenshot
from .test_chat import lines, open_chat, table, wait_lines, write

pytestmark = pytest.mark.browser

TOKEN = "a-long-admin-token-for-the-test"
SHOTS = (
    Path(os.environ.get("ATOUT_ADMIN_SHOTS", "")) if os.environ.get("ATOUT_ADMIN_SHOTS") else None
)


def shot(page: Any, name: str) -> None:
    screenshot(page, name)
    if SHOTS is not None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
def server(live_server):  # type: ignore[no-untyped-def]
    return live_server(env={"ATOUT_ADMIN_TOKEN": TOKEN, "ATOUT_BACKUP_HOURS": "0"})


def test_a_report_at_the_table_then_mute_and_ban_from_the_admin_page(server, chromium) -> None:
    host, guest, _url = table(chromium, server, guest_lang="fr")
    host_errors, guest_errors = errors_of(host), errors_of(guest, console=False)
    write(guest, "you are all idiots")
    open_chat(host)
    wait_lines(host, 1)
    # the host reports Bob and his line from the chat panel
    host.click("#chat-report summary")
    host.wait_for_selector("#report-form:not([hidden])")
    host.select_option("#report-who", label="Bob")
    host.select_option("#report-reason", "abuse")
    host.check("#report-lines input")
    host.fill("#report-text", "insults everyone")
    host.click("#report-send")
    host.wait_for_selector("#report-note[data-ok='1']")
    assert "host of this server will see" in host.locator("#report-note").inner_text()
    shot(host, "report-sent")

    # the host of the server signs in
    admin_ctx = chromium.new_context(viewport={"width": 1366, "height": 768})
    admin = admin_ctx.new_page()
    admin_errors = errors_of(admin, console=False)  # the wrong token is a 401 page
    admin.on("dialog", lambda dialog: dialog.accept())
    admin.goto(server.url("/admin"))
    admin.fill("#admin-token", "wrong")
    admin.click("button[type=submit]")
    admin.wait_for_selector("[data-error='login.wrong']")
    admin.fill("#admin-token", TOKEN)
    admin.click("button[type=submit]")
    admin.wait_for_selector(".admin-figures")
    shot(admin, "admin-overview")
    admin.click(".admin-nav a[href='/admin/reports']")
    report = admin.locator("[data-report]").first
    assert "you are all idiots" in report.inner_text()
    assert "insults everyone" in report.inner_text()
    shot(admin, "admin-reports")
    report.locator("[data-reported]").click()
    admin.wait_for_selector("[data-sanction=mute]")
    assert "Bob" in admin.locator("h1").inner_text()

    # mute: Bob's next line is refused, and he is told why, in French
    admin.click("[data-sanction=mute][data-on='0'] button")
    admin.wait_for_selector("[data-done='sanction.mute.on']")
    open_chat(guest)
    guest.fill("#chat-input", "still here")
    guest.press("#chat-input", "Enter")
    guest.wait_for_selector("#chat-note:not([hidden])")
    assert "muet" in guest.locator("#chat-note").inner_text()
    assert [text for _, text in lines(host)] == ["you are all idiots"]
    shot(admin, "admin-player")

    # ban: his table says so at once, and every page after it
    admin.click("[data-sanction=ban][data-on='0'] button")
    admin.wait_for_selector("[data-done='sanction.ban.on']")
    guest.wait_for_selector("#banner:not([hidden])")
    assert "banni" in guest.locator("#banner").inner_text()
    guest.goto(server.url("/"))
    assert "banni" in guest.locator("main").inner_text()

    # lifted: he is back
    admin.click("[data-sanction=ban][data-on='1'] button")
    admin.wait_for_selector("[data-done='sanction.ban.off']")
    guest.goto(server.url("/"))
    assert guest.locator("[data-banned]").count() == 0
    audit = admin.goto(server.url("/admin"))
    assert audit is not None and audit.status == 200
    actions = admin.locator("[data-action]").all_inner_texts()
    assert {"mute_on", "ban_on", "ban_off", "login"} <= set(actions)
    assert admin_errors == [] and host_errors == [] and guest_errors == []


def test_the_admin_pages_fit_a_phone(server, chromium) -> None:
    ctx = chromium.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = ctx.new_page()
    errors = errors_of(page)
    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(server.url("/admin"))
    shot(page, "admin-login-phone")
    page.fill("#admin-token", TOKEN)
    page.click("button[type=submit]")
    page.wait_for_selector(".admin-figures")
    for path, name in (
        ("/admin", "admin-overview-phone"),
        ("/admin/rooms", "admin-rooms-phone"),
        ("/admin/players", "admin-players-phone"),
        ("/admin/reports", "admin-reports-phone"),
        ("/admin/tournaments", "admin-tournaments-phone"),
        ("/admin/backups", "admin-backups-phone"),
        ("/admin/fairplay", "admin-fairplay-phone"),
    ):
        page.goto(server.url(path))
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= 390, (path, wide)
        shot(page, name)
    page.goto(server.url("/admin/backups"))
    page.click("form[action='/admin/backups'] button")
    page.wait_for_selector("[data-done='backup.taken']")
    assert page.locator("[data-backup]").count() == 1
    assert errors == []
