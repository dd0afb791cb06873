"""Mistakes undone, in the browser: a Remove is undone from the message that confirms it,
with and without JavaScript; after a Remove the focus is on that Undo, so a second Enter
cannot remove another unit; the Join drop-down applies a choice, not each arrow key."""

import re

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Page, expect

from armybuilder.lists import services
from armybuilder.lists.format import parse_list_body
from armybuilder.lists.models import ArmyList
from tests.support.browser import OUTPUT, fits_the_screen

pytestmark = pytest.mark.browser

SCREENS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}
ENTRIES = [
    {"id": "e1", "unit": "household-guard"},
    {"id": "e2", "unit": "household-guard", "name": "Gate Watch", "combined": True},
    {"id": "e3", "unit": "marshal", "joined_to": "e2"},
    {"id": "e4", "unit": "pike-levy"},
]


@pytest.fixture(params=list(SCREENS))
def screen(request):
    return request.param


def builder(page: Page, entries: list[dict]) -> ArmyList:
    """A Human Empire list of these entries, open in the builder."""
    page.goto(page.base_url + "/new/aof/")
    page.check("input[name=faction][value=human-empire]")
    page.fill("#points", "2000")
    page.get_by_role("button", name="Create list").click()
    expect(page).to_have_url(re.compile(r"/lists/\d+/"))
    army_list = ArmyList.objects.get(pk=int(re.search(r"/lists/(\d+)/", page.url).group(1)))
    data, _handle = parse_list_body({**army_list.as_armylist(), "entries": entries})
    army_list = services.army_list_update(army_list=army_list, data=data, based_on=army_list.version)
    page.reload()
    return army_list


def saved(army_list: ArmyList) -> list[dict]:
    army_list.refresh_from_db()
    return army_list.entries


def at_version(page: Page, army_list: ArmyList, version: int) -> None:
    """Wait until the page shows the list at `version`."""
    expect(page.locator("[data-version]")).to_have_attribute("data-version", str(version))


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_remove_then_undo_from_the_message_puts_the_unit_back(open_page, screen, javascript):
    page = open_page(SCREENS[screen], javascript)
    army_list = builder(page, ENTRIES)
    before, version = saved(army_list), army_list.version
    page.locator("#remove-e2").click()
    message = page.locator(".messages li", has_text="Removed Gate Watch.")
    expect(message).to_be_visible()
    undo = message.get_by_role("button", name="Undo")
    # With a script the focus goes to the unit that followed (its Upgrades); a page loaded anew puts it on the Undo.
    expect(page.locator("#upgrades-e3") if javascript else undo).to_be_focused()
    assert [e["id"] for e in saved(army_list)] == ["e1", "e3", "e4"]
    fits_the_screen(page, SCREENS[screen]["width"])
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"undo-message-{screen}-{'js' if javascript else 'no-js'}.png"))
    if javascript:
        violations = Axe().run(page).response["violations"]
        assert [v["id"] for v in violations if v["impact"] in ("serious", "critical")] == []
    undo.click()
    at_version(page, army_list, version + 2)
    expect(page.locator(".messages li", has_text="Put back Gate Watch.")).to_be_visible()
    expect(page.locator("#entry-e2")).to_contain_text("with Marshal")
    assert saved(army_list) == before
    if javascript:
        expect(page.locator("#upgrades-e2")).to_be_focused()  # the unit put back


@pytest.mark.parametrize("javascript", [True, False], ids=["js", "no-js"])
def test_enter_pressed_twice_on_remove_does_not_remove_a_second_unit(open_page, screen, javascript):
    page = open_page(SCREENS[screen], javascript)
    army_list = builder(page, ENTRIES)
    page.locator("#remove-e1").focus()
    page.keyboard.press("Enter")
    at_version(page, army_list, army_list.version + 1)
    if javascript:  # the focus is on the next unit's Upgrades: a second Enter opens them
        page.keyboard.press("Enter")
        expect(page.locator("#entry-e2 #editor")).to_be_visible()
        assert [e["id"] for e in saved(army_list)] == ["e2", "e3", "e4"]
        return
    page.keyboard.press("Enter")  # on the Undo, which has the focus: the unit comes back
    at_version(page, army_list, army_list.version + 2)
    assert [e["id"] for e in saved(army_list)] == ["e1", "e2", "e3", "e4"]


def test_arrow_keys_on_the_join_drop_down_do_not_join_until_enter(open_page, screen):
    page = open_page(SCREENS[screen])
    army_list = builder(page, [{"id": "e1", "unit": "household-guard"}, {"id": "e2", "unit": "marshal"}])
    version = army_list.version
    menu = page.locator("#join-e2")
    menu.focus()
    page.keyboard.press("ArrowDown")
    expect(menu).to_have_value("e1")  # the choice moved on the page...
    page.wait_for_timeout(700)
    assert saved(army_list)[1]["joined_to"] is None and army_list.version == version  # ...and nowhere else
    page.keyboard.press("Enter")
    at_version(page, army_list, version + 1)
    assert saved(army_list)[1]["joined_to"] == "e1"
    expect(page.locator("#join-e2")).to_be_focused()


def test_a_keyboard_choice_on_the_join_drop_down_applies_when_the_focus_leaves(open_page):
    page = open_page(SCREENS["desktop"])
    army_list = builder(page, [{"id": "e1", "unit": "household-guard"}, {"id": "e2", "unit": "marshal"}])
    page.locator("#join-e2").focus()
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Tab")
    at_version(page, army_list, army_list.version + 1)
    assert saved(army_list)[1]["joined_to"] == "e1"


def test_a_pick_on_the_join_drop_down_applies_at_once(open_page, screen):
    page = open_page(SCREENS[screen])
    army_list = builder(page, [{"id": "e1", "unit": "household-guard"}, {"id": "e2", "unit": "marshal"}])
    page.locator("#join-e2").click()  # a pointer opens it; the pick below is made in its list
    page.locator("#join-e2").select_option("e1")
    at_version(page, army_list, army_list.version + 1)
    assert saved(army_list)[1]["joined_to"] == "e1"
