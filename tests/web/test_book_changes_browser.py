"""What changed in a book, in the browser: a player finds it from the rules page, reads the
costs before and after side by side, and compares the other way round; on a desktop and
on a phone, where nothing may run off the side of the screen."""

import pytest
from playwright.sync_api import Page, expect

from tests.factions.test_book_versions import armyforge_book
from tests.support.browser import OUTPUT, fits_the_screen

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def chivalrous_kingdoms(books):
    from armybuilder.armyforge.books.imports import book_import

    book_import(data=armyforge_book("aof--chivalrous-kingdoms.json", "3.5.1"), system="aof")
    book_import(data=armyforge_book("aof--chivalrous-kingdoms.json"), system="aof")


def row(page: Page, table: str, thing: str):
    return page.locator(f"h3:has-text('{table}') + table tr", has_text=thing).first


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["1280", "390"])
def test_a_player_reads_what_changed_from_the_rules_page(open_page, chivalrous_kingdoms, viewport):
    page = open_page(viewport)
    page.goto(f"{page.base_url}/rules/aof/")
    page.get_by_role("link", name="What changed in 3.5.2").click()
    expect(page.get_by_role("heading", level=2)).to_have_text("What changed in Chivalrous Kingdoms 3.5.2")
    expect(page.locator(".headline")).to_contain_text("2 units cost more, 1 less")
    grail = row(page, "Units", "Grail Knights")
    expect(grail.locator(".before")).to_have_text("135 pts")
    expect(grail.locator(".after")).to_have_text("125 pts (−10)")
    fits_the_screen(page, viewport["width"])
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"what-changed-{viewport['width']}.png"), full_page=True)

    page.get_by_label("From").select_option("3.5.2")
    page.get_by_label("to", exact=True).select_option("3.5.1")
    page.get_by_role("button", name="Compare").click()
    expect(page.get_by_role("heading", level=2)).to_have_text("What changed in Chivalrous Kingdoms 3.5.1")
    expect(row(page, "Units", "Grail Knights").locator(".after")).to_have_text("135 pts (+10)")
