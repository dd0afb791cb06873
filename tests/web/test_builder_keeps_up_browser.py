"""The builder keeps up with the player: quick clicks all count, the focus stays on the
control that was used, the upgrade editor opens next to its unit without a reload, and
on a phone the total stays on screen. Clicks are made as people make them: several in a
row without waiting for the page, with and without a slow network."""

import re
import time

import pytest
from playwright.sync_api import Page, expect

from armybuilder.lists.models import ArmyList
from tests.support.browser import open_adding

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}


@pytest.fixture(params=[0, 300], ids=["fast-network", "300ms-latency"])
def latency(request):
    return request.param


@pytest.fixture
def open_page(chromium_browser, live_server, books):
    contexts = []

    def open_(viewport=None, latency_ms=0):
        context = chromium_browser.new_context(viewport=viewport or {"width": 1400, "height": 1000})
        context.set_default_timeout(20_000)
        contexts.append(context)
        page = context.new_page()
        page.base_url = live_server.url
        if latency_ms:

            def slow(route):
                time.sleep(latency_ms / 1000)
                route.continue_()

            page.route(re.compile(r".*/lists/\d+/.*"), slow)
        return page

    yield open_
    for context in contexts:
        context.close()


def start(page: Page, *units: str) -> ArmyList:
    page.goto(page.base_url + "/new/aof/")
    page.check("input[name=faction][value=human-empire]")
    page.fill("#points", "2000")
    page.get_by_role("button", name="Create list").click()
    expect(page).to_have_url(re.compile(r"/lists/\d+/"))
    page.wait_for_load_state("load")  # the builder's script has taken over its forms
    for unit in units:
        count = page.locator("article.entry").count()
        open_adding(page)  # on a phone the units to add are a panel of their own
        page.locator(f"button[aria-label^='Add {unit} (']").click()
        expect(page.locator("article.entry")).to_have_count(count + 1)
    return ArmyList.objects.get(pk=int(re.search(r"/lists/(\d+)/", page.url).group(1)))


def open_upgrades(page: Page, entry_id: str) -> None:
    """Open a unit's upgrades (adding a unit opens its own already)."""
    unit = page.locator(f"#entry-{entry_id}")
    if not unit.locator("#editor").is_visible():
        unit.get_by_role("link", name="Upgrades", exact=True).click()
    expect(unit.locator("#editor")).to_be_visible()


def settled(page: Page, army_list: ArmyList, version: int) -> ArmyList:
    """Wait until the list has reached `version` and the page shows it."""
    expect(page.locator("[data-version]")).to_have_attribute("data-version", str(version))
    army_list.refresh_from_db()
    return army_list


def click_quickly(page: Page, selector: str, times: int, gap_ms: int = 30) -> None:
    for _ in range(times):
        page.locator(selector).click()
        page.wait_for_timeout(gap_ms)


def test_ten_quick_clicks_on_plus_give_ten_picks(open_page, latency):
    page = open_page(latency_ms=latency)
    army_list = start(page, "Militia Rabble")
    open_upgrades(page, "e1")
    version = army_list.version
    click_quickly(page, "#more-J1a", 10)
    army_list = settled(page, army_list, version + 10)
    assert army_list.entries[0]["options"] == {"J1a": 10}
    expect(page.locator("#o-J1a")).to_have_value("10")
    assert page.evaluate("document.activeElement.id") == "more-J1a"
    expect(page.locator(".messages")).to_have_count(0)  # no "changed elsewhere"


def test_ten_quick_clicks_on_add_give_ten_units(open_page, latency):
    page = open_page(latency_ms=latency)
    army_list = start(page)
    click_quickly(page, "#add-pike-levy", 10)
    army_list = settled(page, army_list, army_list.version + 10)
    assert [e["unit"] for e in army_list.entries] == ["pike-levy"] * 10
    expect(page.locator("article.entry")).to_have_count(10)
    expect(page.locator("#upgrades-e10")).to_be_focused()  # the last unit added
    expect(page.locator("#added")).to_have_text(re.compile(r"^Added Pike Levy · Upgrades · Undo$"))


def test_quick_clicks_on_different_upgrades_all_count(open_page):
    page = open_page(latency_ms=300)
    army_list = start(page, "Pike Levy")
    open_upgrades(page, "e1")
    version = army_list.version
    for label in ("Sergeant", "Musician", "Banner"):
        page.get_by_label(label).click()
        page.wait_for_timeout(30)
    army_list = settled(page, army_list, version + 3)
    assert army_list.entries[0]["options"] == {"D1a": 1, "D1b": 1, "D1c": 1}
    expect(page.locator("#pick-D1c")).to_be_checked()


@pytest.mark.parametrize(
    ("action", "control"),
    [
        ("duplicate", "#duplicate-e1"),
        ("move down", "#down-e1"),
        ("combine", "#combine-e1"),
    ],
)
def test_the_focus_stays_on_the_control_used(open_page, action, control):
    page = open_page()
    army_list = start(page, "Pike Levy", "Longbowmen", "Pike Levy")
    page.locator(control).focus()
    page.keyboard.press("Enter")
    settled(page, army_list, army_list.version + 1)
    assert page.evaluate("document.activeElement.id") == control[1:]


SIZES = [None, {"width": 390, "height": 844}, {"width": 320, "height": 640}]


@pytest.mark.parametrize("viewport", SIZES, ids=["1400", "390", "320"])
def test_after_a_remove_the_focus_is_on_the_next_unit_not_on_its_remove(open_page, viewport):
    page = open_page(viewport=viewport)
    army_list = start(page, "Pike Levy", "Longbowmen", "Pike Levy")
    version = army_list.version
    page.locator("#remove-e2").focus()
    page.keyboard.press("Enter")
    settled(page, army_list, version + 1)
    expect(page.locator("#upgrades-e3")).to_be_focused()  # the unit that followed: its Upgrades, not its Remove
    page.locator("#remove-e3").focus()
    page.keyboard.press("Enter")
    settled(page, army_list, version + 2)
    expect(page.locator("#upgrades-e1")).to_be_focused()  # the last removed: the one before it


@pytest.mark.parametrize("viewport", SIZES, ids=["1400", "390", "320"])
def test_after_an_add_the_focus_is_on_the_new_units_upgrades(open_page, viewport):
    page = open_page(viewport=viewport)
    army_list = start(page, "Pike Levy")
    open_adding(page)
    page.locator("#add-longbowmen").focus()
    page.keyboard.press("Enter")
    settled(page, army_list, army_list.version + 1)
    expect(page.locator("#upgrades-e2")).to_be_focused()
    expect(page.locator("#entry-e2")).to_be_in_viewport()
    expect(page.locator("#entry-e2 #editor")).to_be_visible()  # a unit with upgrades opens them
    for _ in range(3):  # its first upgrade a Tab or two away (it was 47)
        page.keyboard.press("Tab")
        if page.evaluate("!!document.activeElement.closest('#entry-e2 #editor fieldset')"):
            break
    assert page.evaluate("!!document.activeElement.closest('#entry-e2 #editor fieldset')")


def test_upgrades_open_next_to_their_unit_without_a_reload_or_a_jump(open_page):
    page = open_page()
    start(page, *["Pike Levy"] * 8, "Longbowmen")  # the last one added has its upgrades open
    unit = page.locator("#entry-e8")
    unit.scroll_into_view_if_needed()
    page.evaluate("window.__same_page = true")
    top_before = unit.bounding_box()["y"]
    unit.get_by_role("link", name="Upgrades", exact=True).click()
    editor = unit.locator("#editor")
    expect(editor).to_be_visible()
    assert page.evaluate("window.__same_page") is True  # no reload
    assert abs(unit.bounding_box()["y"] - top_before) < 5  # the unit did not move
    box = editor.bounding_box()
    assert 0 <= box["y"] < page.viewport_size["height"]  # the editor is on screen
    assert "entry=e8" in page.url
    expect(page.locator("#editor")).to_have_count(1)  # the last one's closed


def test_on_a_phone_the_total_stays_on_screen_with_the_editor_open(open_page):
    page = open_page(viewport=PHONE)
    start(page, *["Pike Levy"] * 6)
    unit = page.locator("#entry-e5")
    unit.get_by_role("link", name="Upgrades", exact=True).click()
    expect(unit.locator("#editor")).to_be_visible()
    unit.locator("#editor").scroll_into_view_if_needed()
    points = page.locator("#points").bounding_box()
    assert points is not None and 0 <= points["y"] < PHONE["height"]
    expect(page.locator("#status")).to_be_in_viewport()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path="tests/output/builder-phone-editor.png")


def test_no_sideways_scrolling_at_320_pixels(open_page):
    page = open_page(viewport={"width": 320, "height": 640})
    start(page, "Pike Levy")
    open_upgrades(page, "e1")
    assert page.evaluate("document.documentElement.scrollWidth") <= 320


def test_a_change_made_in_another_tab_is_a_conflict_said_plainly(open_page):
    page = open_page()
    army_list = start(page, "Pike Levy")
    other = page.context.new_page()  # the same visitor, in a second tab
    other.goto(page.url)
    other.locator("#add-longbowmen").click()
    expect(other.locator("article.entry")).to_have_count(2)
    page.locator("#add-sworn-knights").click()  # based on the version before the other tab's change
    expect(page.locator(".messages")).to_contain_text("This list was changed elsewhere")
    expect(page.locator(".messages")).to_contain_text("your last change was not applied")
    expect(page.locator("article.entry")).to_have_count(2)  # the list as it is now, with the other tab's unit
    army_list.refresh_from_db()
    assert [e["unit"] for e in army_list.entries] == ["pike-levy", "longbowmen"]
    page.locator("#add-sworn-knights").click()  # now based on the current version: it counts
    expect(page.locator("article.entry")).to_have_count(3)


@pytest.mark.parametrize("control", ["#pick-E1a", "#pick-D1a"], ids=["radio", "checkbox"])
def test_the_focus_stays_on_an_upgrade_choice(open_page, control):
    page = open_page()
    army_list = start(page, "Pike Levy")
    open_upgrades(page, "e1")
    page.locator(control).focus()
    page.keyboard.press("Space")
    settled(page, army_list, army_list.version + 1)
    assert page.evaluate("document.activeElement.id") == control[1:]
    expect(page.locator(control)).to_be_checked()


def test_the_focus_stays_on_minus(open_page):
    page = open_page()
    army_list = start(page, "Militia Rabble")
    open_upgrades(page, "e1")
    click_quickly(page, "#more-J1a", 2)
    settled(page, army_list, army_list.version + 2)
    page.locator("#less-J1a").focus()
    page.keyboard.press("Enter")
    army_list = settled(page, army_list, army_list.version + 1)
    assert army_list.entries[0]["options"] == {"J1a": 1}
    assert page.evaluate("document.activeElement.id") == "less-J1a"


def test_on_a_phone_every_control_is_big_enough_for_a_thumb(open_page):
    page = open_page(viewport=PHONE)
    start(page, "Pike Levy", "Marshal")
    open_upgrades(page, "e1")
    small = page.evaluate(
        """() => Array.from(document.querySelectorAll('#workspace button, #workspace .button, #workspace select,'
              + ' #workspace input[type=text], #workspace input[type=number], #workspace .editor label.option'))
            .filter(el => el.offsetParent !== null)
            .map(el => [el.id || el.textContent.trim().slice(0, 20), el.getBoundingClientRect().height])
            .filter(([name, height]) => height < 43.5)"""
    )
    assert small == []
    page.screenshot(path="tests/output/builder-phone-thumbs.png", full_page=False)
