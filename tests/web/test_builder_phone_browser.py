"""The builder on a phone and with a keyboard or a screen reader (issue 26, points 3 and 7):
a new unit's upgrades come into view with the focus; the units to add fold away while a
unit's upgrades are open; the issue count leads to the issues; skip links; the upgrades a
Tab away from their button; each live change said in a polite sentence; and no screen
from 320 to 430 px wide scrolls sideways."""

import re

import pytest
from playwright.sync_api import Page, expect

from tests.support.browser import OUTPUT, fits_the_screen

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
    """Add a unit, opening the folded units first when they are folded."""
    count = page.locator("article.entry").count()
    if page.locator("#show-units").is_visible() and not page.locator("#show-units").is_checked():
        page.locator("#show-units").check()
    page.locator(f"button[aria-label^='Add {unit} (']").click()
    expect(page.locator("article.entry")).to_have_count(count + 1)


def shot(page: Page, name: str) -> None:
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"phone-{name}.png"))


def focused_id(page: Page) -> str:
    return page.evaluate("document.activeElement && document.activeElement.id")


@pytest.mark.parametrize("viewport", [PHONE, SMALL_PHONE], ids=["390", "320"])
def test_on_a_phone_a_new_unit_comes_into_view_with_its_upgrades_focused(open_page, viewport):
    page = open_page(viewport)
    start(page, "Pike Levy", "Pike Levy", "Pike Levy")
    page.locator("#show-units").check()
    page.locator("button[aria-label^='Add Longbowmen (']").click()
    editor = page.locator("#entry-e4 #editor")
    expect(editor).to_be_visible()
    expect(page.locator("#editor-title")).to_be_focused()
    expect(page.locator("#editor-title")).to_be_in_viewport()
    expect(page.locator("#entry-e4 #editor fieldset").first).to_be_in_viewport()
    expect(page.locator("#units-body")).to_be_hidden()  # folded again
    shot(page, f"after-add-{viewport['width']}")


def test_on_a_desktop_the_focus_stays_on_add(open_page):
    page = open_page(DESKTOP)
    start(page, "Pike Levy")
    page.locator("#add-pike-levy").focus()
    page.keyboard.press("Enter")
    expect(page.locator("article.entry")).to_have_count(2)
    expect(page.locator("#add-pike-levy")).to_be_focused()


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


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_on_a_phone_the_units_fold_away_while_upgrades_are_open(open_page, javascript):
    page = open_page(PHONE, javascript=javascript)
    start(page, "Pike Levy")  # the new unit's upgrades are open
    expect(page.locator("#add-pike-levy")).to_be_hidden()
    unfold = page.get_by_role("checkbox", name="Show the units to add")
    expect(unfold).to_be_visible()
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, f"folded-{'js' if javascript else 'no-js'}")
    unfold.check()
    expect(page.locator("#add-pike-levy")).to_be_visible()
    unfold.uncheck()
    expect(page.locator("#add-pike-levy")).to_be_hidden()
    page.locator("#upgrades-e1").click()  # Close upgrades
    expect(page.locator("#editor")).to_have_count(0)
    expect(page.locator("#add-pike-levy")).to_be_visible()
    expect(unfold).to_be_hidden()


def test_on_a_desktop_the_units_stay_beside_the_upgrades(open_page):
    page = open_page(DESKTOP)
    start(page, "Pike Levy")
    expect(page.locator("#editor")).to_be_visible()
    expect(page.locator("#add-pike-levy")).to_be_visible()
    expect(page.locator("#show-units")).to_be_hidden()


@pytest.mark.parametrize("viewport", [SMALL_PHONE, LARGE_PHONE], ids=["320", "430"])
@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_every_builder_screen_fits_a_phone(open_page, viewport, javascript):
    page = open_page(viewport, javascript=javascript)
    width = viewport["width"]
    start(page)
    fits_the_screen(page, width)  # empty
    add(page, "Pike Levy")
    fits_the_screen(page, width)  # upgrades open, units folded
    page.locator("#show-units").check()
    fits_the_screen(page, width)  # units unfolded
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
