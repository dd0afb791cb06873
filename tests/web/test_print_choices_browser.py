"""The print choices in a browser, on a desktop and a phone, with and without JavaScript:
the reader picks paper, layout and options, presses a file's button, and the browser
downloads the file those choices make. The paper starts as the reader's region's (the
server's guess from Accept-Language; the script's from navigator.languages), and the
choice holds for the next page and after the builder redraws its workspace. The
screenshots go to tests/output; docs/screenshots has copies of those looked at."""

import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import OUTPUT, fits_the_screen
from tests.web.test_share_page_browser import human_empire_list

pytestmark = pytest.mark.browser

SCREENSHOTS = OUTPUT  # those in docs/screenshots are copies of them, looked at
VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture
def browse(chromium_browser, live_server, books):
    """A browser of its own for each call, at a screen size, with or without JavaScript,
    for a reader whose browser says `locale` (navigator.languages) and whose requests say
    `accept_language` (the same unless given)."""
    contexts = []

    def open_(size: str, *, javascript: bool = True, locale: str = "en-GB", accept_language: str | None = None):
        phone = size == "phone"
        context = chromium_browser.new_context(
            viewport=VIEWPORTS[size],
            java_script_enabled=javascript,
            has_touch=phone,
            is_mobile=phone,
            locale=locale,
            accept_downloads=True,
        )
        context.set_default_timeout(15_000)
        contexts.append(context)
        page = context.new_page()
        page.base_url = live_server.url
        if accept_language:  # the locale sets the header too: put another on the page's requests

            def other_language(route):
                route.continue_(headers={**route.request.headers, "accept-language": accept_language})

            page.route(re.compile(r".*/s/.*"), other_language)
        return page

    yield open_
    for context in contexts:
        context.close()


def download_address(page: Page, button: str) -> tuple[str, dict[str, str]]:
    """Press a file's button; the path and query of the file the browser downloads."""
    with page.expect_download() as info:
        page.locator("form.print-choices").get_by_role("button", name=button, exact=True).click()
    download = info.value
    address = urlsplit(download.url)
    assert download.suggested_filename.endswith(".pdf")
    return address.path, dict(parse_qsl(address.query))


def choices(page: Page) -> dict[str, object]:
    form = page.locator("form.print-choices")
    return {
        "paper": form.locator("input[name=paper]:checked").get_attribute("value"),
        "layout": form.locator("input[name=layout]:checked").get_attribute("value"),
        "combine": form.locator("input[name=combine]").is_checked(),
        "rules": form.locator("input[name=rules]").is_checked(),
    }


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_reader_picks_letter_poker_cards_combined_and_downloads_them(browse, size, javascript):
    army_list = human_empire_list()
    key = army_list.share_key
    page = browse(size, javascript=javascript)
    page.goto(f"{page.base_url}/s/{key}/")
    form = page.locator("form.print-choices")
    expect(form).to_be_visible()
    fits_the_screen(page, VIEWPORTS[size]["width"])
    assert choices(page) == {"paper": "a4", "layout": "sheet", "combine": False, "rules": False}

    form.get_by_label("Letter").check()
    form.get_by_label("Poker size").check()
    form.get_by_label("Combined: one card per same unit").check()
    path, query = download_address(page, "Unit cards")
    assert path == f"/api/shared/{key}/export/cards.pdf"
    assert query == {"paper": "letter", "layout": "poker", "combine": "1"}

    path, query = download_address(page, "Army sheet")
    assert path == f"/api/shared/{key}/export/roster.pdf"
    assert query["sheet"] == "1" and query["paper"] == "letter"

    form.get_by_label("With what each rule does").check()
    form.get_by_label("A4").check()
    path, query = download_address(page, "Unit cards")
    assert query == {"paper": "a4", "layout": "poker", "combine": "1", "rules": "1"}
    if javascript:
        form.scroll_into_view_if_needed()
        name = f"print-choices-{size}.png"
        SCREENSHOTS.mkdir(exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / name))


@pytest.mark.parametrize(
    ("locale", "accept_language", "javascript", "paper"),
    [
        ("en-US", None, False, "letter"),  # the server's guess, no script
        ("en-GB", None, False, "a4"),
        ("en-US", "en-GB,en;q=0.9", True, "letter"),  # the script reads navigator.languages
        ("en-US", "en-GB,en;q=0.9", False, "a4"),  # without it, the server's guess stands
        ("fr-CA", None, True, "letter"),
        ("de-DE", None, True, "a4"),
    ],
)
def test_the_paper_starts_as_the_readers_region(browse, locale, accept_language, javascript, paper):
    army_list = human_empire_list()
    page = browse("phone", javascript=javascript, locale=locale, accept_language=accept_language)
    page.goto(f"{page.base_url}/s/{army_list.share_key}/")
    expect(page.locator("form.print-choices input[name=paper]:checked")).to_have_value(paper)


def test_the_choice_holds_for_the_next_page_and_through_the_builders_changes(browse):
    army_list = human_empire_list()
    page = browse("desktop", locale="en-GB")
    page.goto(f"{page.base_url}/s/{army_list.share_key}/")
    form = page.locator("form.print-choices")
    form.get_by_label("Letter").check()
    form.get_by_label("With what each rule does").check()

    # A list of one's own, in the builder: the same choices.
    page.goto(page.base_url + "/new/aof/")
    page.check("input[name=faction][value=human-empire]")
    page.fill("#points", "2000")
    page.get_by_role("button", name="Create list").click()
    expect(page).to_have_url(re.compile(r"/lists/\d+/"))
    expect(page.locator("form.print-choices[data-print-restored]")).to_have_count(1)  # print.js has run
    picked = {"paper": "letter", "layout": "sheet", "combine": False, "rules": True}
    assert choices(page) == picked
    page.locator("form.print-choices").get_by_label("Poker size").check()
    picked["layout"] = "poker"

    # A change redraws the workspace, print form included: the choices come back.
    page.locator("button[aria-label^='Add Pike Levy (']").click()
    expect(page.locator("article.entry")).to_have_count(1)
    assert choices(page) == picked
    pk = re.search(r"/lists/(\d+)/", page.url).group(1)
    path, query = download_address(page, "Unit cards")
    assert path == f"/api/lists/{pk}/export/cards.pdf"
    assert query == {"paper": "letter", "layout": "poker", "rules": "1"}


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_the_builders_print_choices_fit_the_screen(browse, size):
    page = browse(size, javascript=False)
    page.goto(page.base_url + "/new/aof/")
    page.check("input[name=faction][value=human-empire]")
    page.fill("#points", "2000")
    page.get_by_role("button", name="Create list").click()
    expect(page).to_have_url(re.compile(r"/lists/\d+/"))
    form = page.locator("form.print-choices")
    expect(form).to_be_visible()
    fits_the_screen(page, VIEWPORTS[size]["width"])
    form.scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"builder-print-choices-{size}.png"))
