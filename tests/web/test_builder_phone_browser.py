"""The builder on a phone and with a keyboard or a screen reader (issues 26 and 36): the
list first, the units to add a panel opened once that stays open while the player adds
(one tap an add, five adds five taps), a search over them, each new unit in view with a
line that says it was added; the totals bar counts units against the limit and never
covers what the page scrolls to; the issue count leads to the issues; skip links; the
upgrades a Tab away from their button; each live change said in a polite sentence; and
no screen from 320 to 430 px wide scrolls sideways."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import OUTPUT, fits_the_screen, open_adding

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 320, "height": 640}
LARGE_PHONE = {"width": 430, "height": 932}
DESKTOP = {"width": 1280, "height": 800}


def start(page: Page, *units: str, points: int = 2000) -> None:
    page.goto(page.base_url + "/new/aof/")
    page.check("input[name=faction][value=human-empire]")
    page.fill("#points", str(points))
    page.get_by_role("button", name="Create list").click()
    expect(page).to_have_url(re.compile(r"/lists/\d+/"))
    for unit in units:
        add(page, unit)


def add(page: Page, unit: str) -> None:
    """Add a unit, opening the units to add first where they are a panel of their own."""
    count = page.locator("article.entry").count()
    open_adding(page)
    page.locator(f"button[aria-label^='Add {unit} (']").click()
    expect(page.locator("article.entry")).to_have_count(count + 1)


def shot(page: Page, name: str) -> None:
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"phone-{name}.png"))


def focused_id(page: Page) -> str:
    return page.evaluate("document.activeElement && document.activeElement.id")


def taps(page: Page) -> list[str]:
    """Every tap the player makes, recorded by the page (touchstart on the document)."""
    return page.evaluate("window.__taps || []")


def count_taps(page: Page) -> None:
    page.evaluate(
        """window.__taps = [];
        document.addEventListener('touchstart', (e) => window.__taps.push(e.target.id || e.target.textContent.trim()),
                                  true);"""
    )


@pytest.mark.parametrize("viewport", [PHONE, SMALL_PHONE], ids=["390", "320"])
def test_on_a_phone_five_units_take_five_taps_once_the_panel_is_open(open_page, viewport):
    page = open_page(viewport)
    start(page)
    expect(page.locator("#list-panel")).to_be_in_viewport()  # the list first
    expect(page.locator("#units-panel")).to_be_hidden()
    page.locator(".totals .open-adding").tap()
    expect(page.locator("#units-panel")).to_be_visible()
    shot(page, f"panel-open-{viewport['width']}")
    count_taps(page)
    units = ["pike-levy", "longbowmen", "household-guard", "field-cannon", "marshal"]
    for number, unit in enumerate(units, start=1):
        page.locator(f"#add-{unit}").tap()
        expect(page.locator("article.entry")).to_have_count(number)
        entry = page.locator(f"#entry-e{number}")
        expect(entry).to_be_in_viewport()  # the new unit where the player looks, above the panel
        box, panel = entry.locator("header").bounding_box(), page.locator("#units-panel").bounding_box()
        assert box["y"] + box["height"] <= panel["y"] + 1, "the new unit is under the panel"
        expect(page.locator("#added")).to_contain_text("Added ")
        expect(page.locator("#units-panel")).to_be_visible()  # still open
    assert len(taps(page)) == 5, taps(page)
    expect(page.locator("#added")).to_have_text(re.compile(r"^Added Marshal · Upgrades · Undo$"))
    shot(page, f"after-five-adds-{viewport['width']}")
    fits_the_screen(page, viewport["width"])


@pytest.mark.parametrize("viewport", [PHONE, SMALL_PHONE, DESKTOP], ids=["390", "320", "1280"])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_a_unit_with_no_upgrades_opens_no_editor(open_page, viewport, javascript):
    page = open_page(viewport, javascript=javascript)
    page.goto(page.base_url + "/new/aof/")
    page.check("input[name=faction][value=orc-hordes]")
    page.get_by_role("button", name="Create list").click()
    expect(page).to_have_url(re.compile(r"/lists/\d+/"))
    open_adding(page)
    page.locator("#add-warlord").click()  # a hero with upgrades: they open
    expect(page.locator("#editor")).to_have_count(1)
    open_adding(page)
    page.locator("#add-rock-lobber").click()  # none
    expect(page.locator("article.entry")).to_have_count(2)
    expect(page.locator("#editor")).to_have_count(0)
    if javascript:
        expect(page.locator("#units-panel")).to_be_visible()  # still adding


@pytest.mark.parametrize("viewport", [PHONE, SMALL_PHONE, DESKTOP], ids=["390", "320", "1280"])
def test_the_search_finds_units_by_name_type_and_rule(open_page, viewport):
    page = open_page(viewport)
    start(page)
    open_adding(page)
    search = page.locator("#unit-search")
    search.fill("bow")
    expect(page.locator("#add-longbowmen")).to_be_visible()
    expect(page.locator("#add-pike-levy")).to_be_hidden()
    search.fill("artillery")  # a type: the group's name
    expect(page.locator("#add-field-cannon")).to_be_visible()
    expect(page.locator("#add-longbowmen")).to_be_hidden()
    search.fill("no such unit at all")
    expect(page.locator("#no-match")).to_be_visible()
    search.fill("")
    expect(page.locator("#add-pike-levy")).to_be_visible()
    search.fill("pike")
    page.locator("#add-pike-levy").click()
    expect(page.locator("article.entry")).to_have_count(1)
    expect(search).to_have_value("pike")  # the search is kept while the player adds
    expect(page.locator("#add-longbowmen")).to_be_hidden()


@pytest.mark.parametrize("viewport", [PHONE, SMALL_PHONE, DESKTOP], ids=["390", "320", "1280"])
def test_the_totals_bar_counts_units_and_never_covers_what_the_page_goes_to(open_page, viewport):
    page = open_page(viewport)
    start(page, *["Pike Levy"] * 6, points=1000)
    expect(page.locator("#units-count")).to_have_text("6/6 units")  # 1 unit per 150 pts
    expect(page.locator("#activations")).to_have_text("6 activations")
    add(page, "Marshal")
    expect(page.locator("#units-count")).to_have_text("7/6 units")
    expect(page.locator("#units-count")).to_have_class(re.compile("bad"))
    if page.locator("#units-panel .close-adding").is_visible():
        page.locator("#units-panel .close-adding").click()  # done adding: the panel closes
    page.locator("#upgrades-e1").click()
    expect(page.locator("#entry-e1 #editor")).to_be_visible()
    bar = page.locator(".totals").bounding_box()
    for target in ("#editor-title", "#editor :focus"):  # where the page went, and the focus
        box = page.locator(target).bounding_box()
        assert box["y"] >= bar["y"] + bar["height"] - 1, f"{target} is under the totals bar"
    page.goto(page.url.split("#")[0].split("?")[0] + "#entry-e4")
    bar = page.locator(".totals").bounding_box()
    assert page.locator("#entry-e4").bounding_box()["y"] >= bar["y"] + bar["height"] - 1


def test_without_javascript_a_new_unit_is_in_view_on_a_phone(open_page):
    page = open_page(PHONE, javascript=False)
    start(page, "Pike Levy", "Pike Levy", "Pike Levy")
    expect(page.locator("#entry-e3 header")).to_be_in_viewport()
    expect(page.locator("#entry-e3 #editor")).to_be_visible()


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_issue_count_leads_to_the_issues_panel(open_page, javascript):
    page = open_page(PHONE, javascript=javascript)
    start(page, "Pike Levy", points=100)  # more than the list's points
    link = page.locator(".totals").get_by_role("link", name=re.compile(r"✘ \d+ issues?"))
    expect(link).to_have_attribute("href", "#issues-panel")
    link.click()
    expect(page).to_have_url(re.compile(r"#issues-panel$"))
    expect(page.locator("#issues-panel")).to_be_in_viewport()
    expect(page.locator("#issues-panel")).to_be_focused()
    shot(page, f"issues-{'js' if javascript else 'no-js'}")


def test_on_a_phone_without_a_script_the_units_to_add_follow_the_list(open_page):
    page = open_page(PHONE, javascript=False)
    start(page, "Pike Levy")
    list_box = page.locator("#list-panel").bounding_box()
    units_box = page.locator("#units-panel").bounding_box()
    assert list_box["y"] < units_box["y"]
    expect(page.locator(".open-adding")).to_be_hidden()


def test_on_a_desktop_the_units_stay_beside_the_list(open_page):
    page = open_page(DESKTOP)
    start(page, "Pike Levy")
    expect(page.locator("#editor")).to_be_visible()
    expect(page.locator("#add-pike-levy")).to_be_visible()
    expect(page.locator(".open-adding")).to_be_hidden()
    list_box, units_box = page.locator("#list-panel").bounding_box(), page.locator("#units-panel").bounding_box()
    assert units_box["x"] + units_box["width"] <= list_box["x"]


@pytest.mark.parametrize("viewport", [SMALL_PHONE, LARGE_PHONE], ids=["320", "430"])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_every_builder_screen_fits_a_phone(open_page, viewport, javascript):
    page = open_page(viewport, javascript=javascript)
    width = viewport["width"]
    start(page)
    fits_the_screen(page, width)  # empty
    add(page, "Pike Levy")
    fits_the_screen(page, width)  # upgrades open, the units to add open too (with a script)
    if javascript:
        page.locator("#units-panel .close-adding").click()
        fits_the_screen(page, width)  # the panel closed
    page.locator("#upgrades-e1").click()
    expect(page.locator("#editor")).to_have_count(0)
    fits_the_screen(page, width)  # upgrades closed
    page.goto(page.url.split("?")[0] + "#issues-panel")
    fits_the_screen(page, width)
    page.goto(page.url.split("#")[0])
    page.keyboard.press("Tab")
    expect(page.get_by_role("link", name="Skip to the list")).to_be_focused()
    fits_the_screen(page, width)  # a skip link shown
    shot(page, f"fits-{width}-{'js' if javascript else 'no-js'}")


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_skip_links_lead_to_the_list_the_units_and_the_issues(open_page, viewport, javascript):
    page = open_page(viewport, javascript=javascript)
    start(page)
    for name, target in [("list", "list-panel"), ("units to add", "units-panel"), ("issues", "issues-panel")]:
        page.goto(page.url.split("#")[0])
        page.locator("body").focus()
        page.keyboard.press("Tab")
        link = page.get_by_role("link", name=f"Skip to the {name}")
        while not page.evaluate("document.activeElement.matches('.skip-links a:last-child')"):
            if page.evaluate("document.activeElement.textContent") == f"Skip to the {name}":
                break
            page.keyboard.press("Tab")
        expect(link).to_be_focused()
        box = link.bounding_box()
        assert box is not None and box["y"] >= 0 and box["width"] > 20, "the skip link is not in sight"
        page.keyboard.press("Enter")
        expect(page.locator(f"#{target}")).to_be_focused()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_the_upgrades_are_a_tab_or_two_from_their_button(open_page, viewport, javascript):
    page = open_page(viewport, javascript=javascript)
    start(page, "Pike Levy", "Pike Levy")
    page.locator("#upgrades-e1").click()
    expect(page.locator("#entry-e1 #editor")).to_be_visible()
    page.locator("#upgrades-e1").focus()
    presses = 0
    while not page.evaluate("!!document.activeElement.closest('#editor fieldset')"):
        assert presses < 3, f"more than 3 Tabs from Upgrades to the upgrades (at #{focused_id(page)})"
        page.keyboard.press("Tab")
        presses += 1


def test_opening_the_upgrades_moves_the_focus_into_them(open_page):
    page = open_page(PHONE)
    start(page, "Pike Levy", "Pike Levy")
    page.locator("#upgrades-e1").focus()
    page.keyboard.press("Enter")
    expect(page.locator("#entry-e1 #editor")).to_be_visible()
    assert page.evaluate("!!document.activeElement.closest('#editor')")


def test_each_live_change_is_said_in_a_polite_sentence(open_page):
    page = open_page(DESKTOP)
    start(page)
    expect(page.locator(".totals")).not_to_have_attribute("aria-live", re.compile("."))
    live = page.locator("[aria-live=polite]")
    expect(live).to_have_count(1)
    add(page, "Pike Levy")
    expect(live).to_have_text(re.compile(r"^Added Pike Levy\. \d+ of 2000 pts, legal\.$"))
    page.locator("#entry-e1 #editor input[type=checkbox], #entry-e1 #editor input[type=radio]").last.check()
    expect(live).not_to_have_text(re.compile("^Added"))
    expect(live).to_have_text(re.compile(r"^\d+ of 2000 pts, (legal|\d+ issues?)"))


def test_a_new_issue_is_said(open_page):
    page = open_page(DESKTOP)
    start(page, points=100)
    add(page, "Pike Levy")
    said = re.compile(r"^Added Pike Levy\. \d+ of 100 pts, \d+ issues?\. New issue: ")
    expect(page.locator("#announce")).to_have_text(said)
