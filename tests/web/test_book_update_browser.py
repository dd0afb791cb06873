"""A list moved on to a newer version of its army book, in the browser: a player builds a
Ratmen list on the official Army Forge book 3.5.1 (a Battle Master with Scout Master and
an Assassin), 3.5.2 comes out, the builder says what it changes, the player reviews the
update (the Battle Master keeps Scout Master, which 3.5.2 gave a new id, and drops the
Assassin, which it has no more: 15 pts less; the list stays legal), updates, and sees
the new total. On a desktop and on a phone, with JavaScript and without; the pages are
photographed."""

import json

import pytest
from playwright.sync_api import Page, expect

from armybuilder.armyforge.books.imports import book_import
from tests.conftest import SHARED, require_shared
from tests.support.browser import OUTPUT, fits_the_screen, open_adding

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
MINUS = "\u2212"
# What a thumb taps on the review page: each at least 44 px high on a phone.


def import_ratmen(version: str) -> None:
    folder = SHARED / "armyforge" / ("" if version == "3.5.2" else version)
    book = json.loads(require_shared(folder / "aof--ratmen.json").read_text())
    book_import(data=book, system="aof")


def build_scouts(page: Page, javascript: bool) -> None:
    """A 1000-point Ratmen list of one Battle Master who takes Scout Master and an Assassin."""
    page.goto(page.base_url + "/new/aof/")
    page.check("input[name=faction][value=ratmen]")
    page.fill("#points", "1000")
    page.fill("#name", "Scouts")
    page.get_by_role("button", name="Create list").click()
    expect(page.locator("#points")).to_have_text("0/1000 pts")
    open_adding(page)
    page.locator("button[aria-label^='Add Battle Master (']").click()
    if page.locator("#units-panel .close-adding").is_visible():
        page.locator("#units-panel .close-adding").click()  # done adding: on to its upgrades
    editor = page.locator("#editor form")
    expect(editor).to_be_visible()
    editor.get_by_label("Scout Master (Scout, Stealth, Strider)").check()
    if javascript:
        expect(page.locator("#points")).to_have_text("60/1000 pts")
    editor.get_by_label("Assassin (Takedown Strike)").check()
    if not javascript:
        editor.get_by_role("button", name="Save upgrades").click()
    expect(page.locator("#points")).to_have_text("75/1000 pts")


@pytest.mark.parametrize(
    ("screen", "javascript"),
    [(DESKTOP, True), (PHONE, True), (DESKTOP, False)],
    ids=["1280-js", "390-js", "1280-no-js"],
)
def test_a_player_reviews_and_makes_the_update_to_ratmen_3_5_2(open_page, screen, javascript):
    import_ratmen("3.5.1")
    page = open_page(screen, javascript)
    name = f"{screen['width']}{'' if javascript else '-no-js'}"
    build_scouts(page, javascript)
    expect(page.locator("#book-notice")).to_have_count(0)

    import_ratmen("3.5.2")
    page.goto(page.url.split("?")[0])  # the list opened again later, at its top
    notice = page.locator("#book-notice")
    expect(notice.get_by_role("heading")).to_have_text(
        f"Ratmen 3.5.2 is out: your one unit changes cost, {MINUS}15 pts."
    )
    expect(notice).to_contain_text(
        "Updating drops an upgrade 3.5.2 no longer offers: Assassin (Takedown Strike) from Battle Master."
    )
    expect(page.locator("#points")).to_have_text("75/1000 pts")  # its 3.5.1 prices until it moves
    fits_the_screen(page, screen["width"])
    page.screenshot(path=str(OUTPUT / f"book-update-notice-{name}.png"))

    notice.get_by_role("link", name="Review the update").click()
    expect(page.get_by_role("heading", level=2)).to_have_text("Update “Scouts” to Ratmen 3.5.2")
    report = page.locator("#move-report")
    battle_master = report.locator("tbody tr").filter(has_text="Battle Master")
    expect(battle_master).to_contain_text(f"75 → 60 pts ({MINUS}15)")
    expect(battle_master).to_contain_text("Keeps Scout Master (Scout, Stealth, Strider): 15 → 15 pts a pick")
    expect(battle_master).to_contain_text("Drops Assassin (Takedown Strike)")
    expect(battle_master).to_contain_text("Ratmen 3.5.2 has no Assassin (Takedown Strike) any more")
    expect(report.locator("tfoot")).to_contain_text(f"75 → 60 pts ({MINUS}15)")
    expect(page.locator("#move-after")).to_have_text("After the move: 60 of 1,000 pts; no issues: the list is legal.")
    expect(page.get_by_label("Move this list to")).to_have_value("3.5.2")
    fits_the_screen(page, screen["width"])
    page.screenshot(path=str(OUTPUT / f"book-update-review-{name}.png"), full_page=True)

    page.get_by_role("button", name="Update to 3.5.2").click()
    expect(page.locator(".messages")).to_contain_text("Moved to Ratmen 3.5.2: the list is now 60 pts (was 75).")
    expect(page.locator("#points")).to_have_text("60/1000 pts")
    expect(page.locator("#book-notice")).to_have_count(0)
    expect(page.locator(".totals")).to_contain_text("Ratmen 3.5.2")
    page.screenshot(path=str(OUTPUT / f"book-update-done-{name}.png"))
