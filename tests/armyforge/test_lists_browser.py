"""An Army Forge list brought in by its share link, and taken back, in the browser. A
player built a Ratmen list in Army Forge on 3.5.1: a Battle Master with Scout Master
joined to Warriors combined, and Militia. The site holds Ratmen 3.5.2 only. On My lists
the player pastes the share link: the builder opens with the list, says that Scout Master
is not in 3.5.2 and that Army Forge's total differs (the Battle Master's two costs), and
offers the list as an Army Forge file. A link Army Forge does not know says so and
changes nothing. On a desktop and on a phone; the pages are photographed."""

import json
import re

import pytest
from playwright.sync_api import Page, expect

from armybuilder.armyforge.books.imports import book_import
from armybuilder.lists.models import ArmyList
from tests.conftest import SHARED, require_shared
from tests.support.armyforge_lists import armyforge_total, chosen_list, share_api
from tests.support.browser import OUTPUT, fits_the_screen

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SHARE_LINK = "https://army-forge.onepagerules.com/share?id=RatScouts01&name=Rat%20Scouts"


def ratmen(version: str) -> dict:
    folder = SHARED / "armyforge" / ("" if version == "3.5.2" else version)
    return json.loads(require_shared(folder / "aof--ratmen.json").read_text())


def scouts_from_army_forge() -> dict:
    """The share link's answer of a list built on Ratmen 3.5.1."""
    lst = chosen_list(
        ratmen("3.5.1"),
        [
            {"unit": "Battle Master", "options": ["cByHKhW62Q"], "join": 1, "name": "Skritch"},
            {"unit": "Warriors", "combined": True},
            {"unit": "Militia", "notes": "Hold the bridge"},
        ],
        name="Rat Scouts",
        points_limit=750,
    )
    assert armyforge_total(lst) == 60 + 2 * 70 + 50  # the Battle Master with Scout Master is 60 in 3.5.1
    return share_api(lst)


def open_my_lists(page: Page) -> None:
    page.goto(page.base_url + "/lists/")
    expect(page.get_by_label("Army Forge share link")).to_be_visible()


@pytest.mark.parametrize("screen", [DESKTOP, PHONE], ids=["1280", "390"])
def test_a_player_pastes_an_army_forge_share_link_and_gets_the_list_and_its_file(open_page, armyforge, screen):
    book_import(data=ratmen("3.5.2"), system="aof")
    armyforge.share("RatScouts01", scouts_from_army_forge())
    page = open_page(screen)
    open_my_lists(page)
    page.get_by_label("Army Forge share link").fill(SHARE_LINK)
    page.get_by_role("button", name="Import from Army Forge").click()

    expect(page).to_have_title(re.compile("Rat Scouts"))
    messages = page.locator(".messages")
    expect(messages).to_contain_text("Imported Rat Scouts.")
    expect(messages).to_contain_text(
        "Not in Ratmen 3.5.2: Battle Master's option \u201cScout Master (Scout, Stealth, Strider)\u201d."
    )
    expect(messages).to_contain_text("Army Forge put this list at 250 pts; with Ratmen 3.5.2 it comes to")
    expect(messages).to_contain_text("Skritch 60 \u2192")
    expect(messages).to_contain_text("The notes of 1 unit are kept in the list's notes.")
    assert armyforge.shares_read == ["RatScouts01"]  # only the id went to Army Forge
    fits_the_screen(page, screen["width"])
    page.screenshot(path=str(OUTPUT / f"armyforge-import-{screen['width']}.png"), full_page=True)

    army_list = ArmyList.objects.get()
    assert (army_list.name, army_list.book_version, army_list.points_limit) == ("Rat Scouts", "3.5.2", 750)
    with page.expect_download() as download:
        page.get_by_role("link", name="Army Forge file").click()
    saved = json.loads(open(download.value.path()).read())
    assert (saved["saveVersion"], saved["gameSystem"], saved["armyVersions"]) == (
        3,
        "aof",
        [{"version": "3.5.2", "armyId": "tOWt5fgqK2nfpoBN"}],
    )
    assert [unit["combined"] for unit in saved["list"]["units"]] == [False, True, True, False]


@pytest.mark.parametrize("screen", [DESKTOP, PHONE], ids=["1280", "390"])
def test_a_share_link_army_forge_does_not_know_says_so_and_makes_no_list(open_page, armyforge, screen):
    book_import(data=ratmen("3.5.2"), system="aof")
    page = open_page(screen)
    open_my_lists(page)
    page.get_by_label("Army Forge share link").fill("https://army-forge.onepagerules.com/share?id=Gone404")
    page.get_by_role("button", name="Import from Army Forge").click()
    expect(page.locator(".messages")).to_contain_text(
        "The share link could not be imported: Army Forge has no shared list \u201cGone404\u201d: check the share "
        "link (it answered 404)."
    )
    fits_the_screen(page, screen["width"])
    page.screenshot(path=str(OUTPUT / f"armyforge-import-unknown-{screen['width']}.png"), full_page=True)
    assert not ArmyList.objects.exists()
