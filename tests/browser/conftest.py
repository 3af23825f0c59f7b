"""Real-browser fixtures: Debian's Chromium driven by Playwright, against a real server.

``chromium`` is one browser per test module and ``server`` one server per module; each test
makes its own contexts (fresh cookies, so each context is a different player) and its own
tables. A test that needs a server of its own asks ``fresh_server``, or ``live_server`` for
other settings. Set ``ATOUT_SCREENSHOTS=1`` to (re)write the PNGs of docs/screenshots/ while
the tests run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


# Playwright's wait_for_function polls on every animation frame unless told otherwise, and a
# page polled that way draws sixty frames a second for as long as the wait lasts: about 7% of
# a core per waiting page, against 1% when polled every 20 ms (what every test waits with
# here). Mostly the driver's wait for the next turn while the computer players think.
POLL_MS = 20


def _poll_every_20_ms() -> None:
    from playwright.sync_api import Frame, Page

    for cls in (Page, Frame):
        plain = cls.wait_for_function
        if getattr(plain, "polled", False):
            continue

        def polled(self, expression, *, arg=None, timeout=None, polling=None, _plain=plain):  # type: ignore[no-untyped-def]
            return _plain(
                self,
                expression,
                arg=arg,
                timeout=timeout,
                polling=POLL_MS if polling is None else polling,
            )

        polled.polled = True  # type: ignore[attr-defined]
        cls.wait_for_function = polled  # type: ignore[method-assign]


# New headless Chromium gives each browser context a window, and each window loads the address
# bar's popup, a WebUI page (chrome://omnibox-popup.top-chrome), in a renderer process of its
# own: about 0.7 s of CPU per context, a fifth of what a one-deal game costs the browser, for a
# popup no test can see. Chromium reads only the last --disable-features switch, and Playwright
# passes one of its own, so the switch added here repeats Playwright's features: they are read
# from the command line the browser was started with (the first launch in a worker, then kept).
OMNIBOX_WEBUI = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")  # both: either alone leaves it
_launch_args: list[str] = []


def _disabled_features() -> list[set[str]]:
    """The ``--disable-features`` switches of the newest Chromium browser process started by
    this process, in their order on its command line."""
    newest: tuple[int, list[str]] | None = None
    parents: dict[int, int] = {}
    browsers: dict[int, tuple[int, list[str]]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        parents[int(entry)] = int(stat[1])
        if argv[0].endswith("/chromium") and not any(a.startswith("--type=") for a in argv):
            browsers[int(entry)] = (int(stat[19]), argv)
    for pid, (started, argv) in browsers.items():
        ancestor = pid
        while ancestor > 1 and ancestor != os.getpid():
            ancestor = parents.get(ancestor, 0)
        if ancestor == os.getpid() and (newest is None or started > newest[0]):
            newest = (started, argv)
    if newest is None:
        return []
    prefix = "--disable-features="
    return [
        set(filter(None, a[len(prefix) :].split(","))) for a in newest[1] if a.startswith(prefix)
    ]


def _launch(playwright):  # type: ignore[no-untyped-def]
    """Chromium with ARGS, and without the address bar's WebUI popup (see OMNIBOX_WEBUI)."""
    args = ARGS + _launch_args
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=args)
    given = _disabled_features()
    wanted = set(OMNIBOX_WEBUI).union(*given)
    if not given or given[-1] >= wanted:
        return browser  # as it is when its command line cannot be read
    browser.close()
    _launch_args[:] = ["--disable-features=" + ",".join(sorted(wanted))]
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS + _launch_args)


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    # Module scope, not session: sync Playwright keeps an asyncio loop running in this
    # thread while it is open, and the async tests of later modules need the thread free.
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: run `make test` (it installs it) or apt-get it")
    from playwright.sync_api import sync_playwright

    _poll_every_20_ms()
    with sync_playwright() as playwright:
        browser = _launch(playwright)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def module_server(module_live_server):  # type: ignore[no-untyped-def]
    """One server for the tests of a module: each test makes its own players (fresh browser
    contexts) and tables, so starting a server per test would only cost time."""
    return module_live_server()


@pytest.fixture
def server(module_server):  # type: ignore[no-untyped-def]
    """The module's server, running (a test before may have stopped or killed it)."""
    if not module_server.is_running():
        module_server.start()
    return module_server


@pytest.fixture
def fresh_server(live_server):  # type: ignore[no-untyped-def]
    """A server of this test's own: an empty database (what the test counts is its own) and
    the test's own deck seed."""
    return live_server()


def errors_of(page, *, console: bool = True, into: list[str] | None = None) -> list[str]:  # type: ignore[no-untyped-def]
    """The list the page's uncaught errors are appended to from now on, and its console errors
    too unless ``console=False``: ``into`` when given (one list for several pages), else a new
    one. A test ends with ``assert errors == []``."""
    errors: list[str] = [] if into is None else into
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    if console:
        page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))
    return errors


def in_language(chromium, server, language: str, **kwargs):  # type: ignore[no-untyped-def]
    """A new browser context that reads the site in ``language`` (its cookie, as the language
    menu sets it); ``kwargs`` go to ``new_context``."""
    context = chromium.new_context(**kwargs)
    context.add_cookies([{"name": "atout_lang", "value": language, "url": server.base_url}])
    return context


SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def screenshot(page, name: str) -> None:  # type: ignore[no-untyped-def]
    """Save docs/screenshots/<name>.png when ATOUT_SCREENSHOTS=1."""
    if os.environ.get("ATOUT_SCREENSHOTS") != "1":
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), animations="disabled")
