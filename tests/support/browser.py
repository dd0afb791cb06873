"""The browser tests' fixtures (a pytest plugin, tests/conftest.py): Playwright for Python
driving Debian's Chromium against the live test server. Without Chromium they skip, saying how to install it; with
ARMYBUILDER_REQUIRE_BROWSER=1 (set by .ci/run) a missing browser is a failure."""

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("ARMYBUILDER_CHROMIUM", "/usr/bin/chromium")
OUTPUT = Path(__file__).resolve().parents[1] / "output"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PHONE_WIDTH = 700  # narrower screens get the phone layout
# What a thumb taps: each at least 44 px high on a phone.
CONTROLS = (
    "button, .button, select, textarea, label.check, input[type=text], input[type=number], input[type=datetime-local]"
)


SIZES = [
    {"width": 320, "height": 640},
    {"width": 390, "height": 844},
    {"width": 1280, "height": 800},
]  # phone to desktop


def press(page, locator) -> None:
    """Tap on a phone, click on a desktop."""
    if page.viewport_size["width"] < PHONE_WIDTH:
        locator.scroll_into_view_if_needed()
        locator.tap()
    else:
        locator.click()


def open_adding(page) -> None:
    """Open the units to add where they are a panel of their own (a phone, with a script):
    from the totals bar, once; it stays open while the player adds."""
    from playwright.sync_api import expect

    page.wait_for_load_state("domcontentloaded")  # the builder's script (deferred) has run: the button is live
    opener = page.locator(".totals .open-adding")
    if opener.is_visible() and not page.locator("#units-panel").is_visible():
        opener.click()
        expect(page.locator("#units-panel")).to_be_visible()


def fits_the_screen(page, width: int) -> None:
    """Nothing scrolls sideways; on a phone every control shown is at least 44 px high."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page runs off the side"
    if width >= PHONE_WIDTH:
        return
    small = page.evaluate(
        """(controls) => Array.from(document.querySelector('main').querySelectorAll(controls))
            .filter(el => el.offsetParent !== null)
            .map(el => [el.id || el.textContent.trim().slice(0, 20), el.getBoundingClientRect().height])
            .filter(([name, height]) => height < 43.5)""",
        CONTROLS,
    )
    assert small == [], f"controls too small to tap: {small}"


@pytest.fixture(scope="session")
def chromium_browser():
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        message = f"Chromium not found at {CHROMIUM}: install it with `apt-get install -y chromium`"
        if os.environ.get("ARMYBUILDER_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    # Playwright's sync API keeps an event loop in this thread; Django's database calls from
    # the test thread are still synchronous and safe, so tell Django not to refuse them.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield browser
        browser.close()


@pytest.fixture
def books(transactional_db, live_server):
    """The bundled books, written back as they were first loaded on this worker."""
    from armybuilder.memo import clear_all
    from tests.support import baseline

    clear_all()
    baseline.bundled_books()
    yield
    requests_done(live_server.thread.httpd)


def requests_done(server, timeout: float = 10.0) -> None:
    """Wait (after the test's browsers are closed, before its tables are emptied) until the
    live server has answered every request it took: one still running would write into
    the next test's database (a list the browser asked for as the test ended). Its request
    threads are those running its `process_request_thread` (a thread's `_target`); the
    Army Forge stand-in's, which may be sleeping out a hang, are not waited for."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        running = [t for t in threading.enumerate() if getattr(getattr(t, "_target", None), "__self__", None) is server]
        if not running:
            return
        running[0].join(deadline - time.monotonic())


@pytest.fixture(params=[True, False], ids=["js", "no-js"])
def javascript(request):
    return request.param


@pytest.fixture
def page(chromium_browser, live_server, books, javascript, request):
    context = chromium_browser.new_context(java_script_enabled=javascript, viewport={"width": 1400, "height": 1000})
    context.set_default_timeout(15_000)
    page = context.new_page()
    page.base_url = live_server.url
    yield page
    OUTPUT.mkdir(exist_ok=True)
    name = request.node.name.replace("/", "_").replace("[", "-").replace("]", "")
    page.screenshot(path=str(OUTPUT / f"{name}.png"), full_page=True)
    context.close()


@pytest.fixture
def open_page(chromium_browser, live_server, books):
    """A new browser of its own for each call (its own cookies: one per person), at a
    screen size, with or without JavaScript; closed after the test."""
    contexts = []

    def open_(viewport, javascript=True):
        phone = viewport["width"] < 700
        context = chromium_browser.new_context(
            viewport=viewport, java_script_enabled=javascript, has_touch=phone, is_mobile=phone
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.base_url = live_server.url
        return page

    yield open_
    for context in contexts:
        context.close()
