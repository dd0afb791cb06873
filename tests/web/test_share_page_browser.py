"""The share page in a browser, as an opponent opens it on a desktop and on a phone:
the weapon profiles and the joined hero are on screen, and nothing scrolls sideways."""

import pytest
from playwright.sync_api import expect

from armybuilder.lists.models import ArmyList
from tests.support.browser import OUTPUT

pytestmark = pytest.mark.browser

VIEWPORTS = {
    "desktop": {"width": 1400, "height": 1000},
    "phone": {"width": 390, "height": 844},
}


def human_empire_list() -> ArmyList:
    """A Marshal on a Warhorse joined to a combined Pike Levy with Halberds and a
    Sergeant, with Longbowmen, a Court Magister and a Field Cannon with a long name."""
    entries = [
        {"id": "e1", "unit": "marshal", "options": {"A1a": 1, "B1a": 1}, "joined_to": "e2"},
        {"id": "e2", "unit": "pike-levy", "options": {"D1a": 1, "E1a": 1}, "combined": True},
        {"id": "e3", "unit": "longbowmen", "options": {"F1a": 2}},
        {"id": "e4", "unit": "court-magister", "options": {}},
        {
            "id": "e5",
            "unit": "field-cannon",
            "options": {},
            "name": "Thunderer-of-the-Seventh-Bastion-Gate-That-Never-Misses",
        },
    ]
    return ArmyList.objects.create(
        visitor="someone",
        name="Border Patrol",
        system="aof",
        faction="human-empire",
        book_version="1.0.0",
        points_limit=1500,
        notes="Deploy the cannon on the hill: https://example.org/a-long-link-without-any-spaces-in-it-at-all",
        entries=[{"combined": False, "joined_to": None, "name": None, **entry} for entry in entries],
    )


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_an_opponent_reads_the_shared_list_without_scrolling_sideways(chromium_browser, live_server, books, size):
    army_list = human_empire_list()
    viewport = VIEWPORTS[size]
    # The phone without JavaScript: the page needs none.
    context = chromium_browser.new_context(viewport=viewport, java_script_enabled=size == "desktop")
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/s/{army_list.share_key}/")
        pike = page.locator("#entry-e2")
        halberds = pike.locator("tr", has_text="Halberd").first
        expect(halberds).to_be_visible()
        expect(halberds).to_contain_text("Melee")
        expect(halberds).to_contain_text("AP(1)")
        expect(page.locator("#entry-e3 tr", has_text="Arbalest")).to_contain_text('30"')
        marshal = pike.locator("#entry-e1")  # the hero, inside the unit it leads
        expect(marshal).to_be_visible()
        expect(marshal).to_contain_text("Joined to Pike Levy")
        expect(marshal.locator("tr", has_text="Great Blade")).to_be_visible()
        expect(page.locator(".glossary")).to_contain_text("Blast(X)")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"{width}px wide in a {viewport['width']}px window"
        OUTPUT.mkdir(exist_ok=True)
        page.screenshot(path=str(OUTPUT / f"share-{size}.png"), full_page=True)
    finally:
        context.close()


def test_an_arena_warband_reads_on_a_phone(chromium_browser, live_server, books):
    """Arena's own stat line and weapon profiles (hexes, accuracy, strength, damage and
    critical effect) fit a phone too."""
    units = ["runecarver", "ironguard-warrior", "hammerguard", "quarreller"]
    army_list = ArmyList.objects.create(
        visitor="someone",
        name="Ironguard",
        system="aof-arena",
        faction="dwarf-ironguard",
        book_version="1.0.0",
        entries=[
            {"id": f"e{n}", "unit": unit, "options": {}, "combined": False, "joined_to": None, "name": None}
            for n, unit in enumerate(units, 1)
        ],
    )
    context = chromium_browser.new_context(viewport=VIEWPORTS["phone"], java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(f"{live_server.url}/s/{army_list.share_key}/")
        runecarver = page.locator("#entry-e1")
        expect(runecarver).to_contain_text("Move 2 Rush 4 Eva 2 Tou 5 Sta 5 HP 8")
        blast = runecarver.locator("tr", has_text="Rune Blast")
        expect(blast).to_be_visible()
        expect(blast).to_contain_text("3 hexes")
        expect(blast).to_contain_text("critical the target loses 1 Stamina")
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= VIEWPORTS["phone"]["width"], f"{width}px wide in a 390px window"
        page.screenshot(path=str(OUTPUT / "share-arena-phone.png"), full_page=True)
    finally:
        context.close()
