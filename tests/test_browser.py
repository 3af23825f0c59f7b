"""Real Chromium (/usr/bin/chromium, driven by Playwright) against a real server process."""

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")


@pytest.fixture
def browser():
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make test` (it installs it) or apt-get it")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            yield browser
        finally:
            browser.close()


def test_home_page_renders_in_chromium(live_server, browser) -> None:
    server = live_server()
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    response = page.goto(server.base_url + "/")
    assert response is not None and response.status == 200
    assert page.title() == "Atout"
    assert page.locator("h1").inner_text() == "Atout"
    # the stylesheet loaded and applied (the body is not the browser's default white)
    background = page.evaluate("getComputedStyle(document.body).backgroundImage")
    assert "gradient" in background
    assert errors == []
