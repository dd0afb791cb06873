"""A librarian (staff who may add army books, not a superuser) brings books in by clicking
through the admin: logs in, imports the official Ratmen book from its file and reads its
warnings on the book's page, tries a broken file and is told why, then syncs the Skirmish
books from (a stand-in) Army Forge and reads what the sync did. Each page is photographed."""

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from playwright.sync_api import Page, expect

from factions.models import Faction
from tests.conftest import SHARED, require_shared
from tests.support.browser import OUTPUT

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PASSWORD = "a-long-test-pass-4821"


@pytest.fixture
def librarian(transactional_db):
    person = get_user_model().objects.create_user("librarian", password=PASSWORD, is_staff=True)
    person.user_permissions.set(Permission.objects.filter(codename__in=["view_faction", "add_faction"]))
    return person


def log_in(page: Page) -> None:
    page.goto(f"{page.base_url}/admin/factions/faction/")
    page.get_by_label("Username:").fill("librarian")
    page.get_by_label("Password:").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.locator("#content h1")).to_contain_text("Select faction")


def photograph(page: Page, name: str) -> None:
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / f"{name}.png"), full_page=True)


def test_a_librarian_imports_a_book_and_syncs_from_army_forge_by_clicking(open_page, librarian, armyforge, tmp_path):
    ratmen = require_shared(SHARED / "armyforge" / "aof--ratmen.json")
    page = open_page(DESKTOP)
    log_in(page)
    photograph(page, "admin-army-books")

    page.get_by_role("link", name="Import a book").click()
    page.get_by_label("Book file").set_input_files(ratmen)
    page.get_by_role("button", name="Import").click()
    messages = page.locator("ul.messagelist")
    expect(messages.locator("li.success")).to_contain_text("Added Ratmen (aof/ratmen) 3.5.2:")
    warnings = Faction.objects.get(slug="ratmen").import_warnings
    expect(messages.locator("li.warning")).to_have_count(len(warnings))
    expect(page).to_have_url(re.compile(r"/admin/factions/faction/\d+/change/$"))  # the book's page
    photograph(page, "admin-import-book")

    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "armybook/1", "units": [')
    page.get_by_role("link", name="Factions").first.click()
    page.get_by_role("link", name="Import a book").click()
    page.get_by_label("Book file").set_input_files(broken)
    page.get_by_role("button", name="Import").click()
    expect(messages.locator("li.error").first).to_have_text("Not imported: nothing changed.")
    expect(messages.locator("li.error").nth(1)).to_have_text(re.compile("^Error: not valid JSON: "))
    photograph(page, "admin-import-refused")

    page.get_by_role("link", name="Factions").first.click()
    page.get_by_role("link", name="Sync from Army Forge").click()
    page.get_by_label("Ruleset").select_option(label="Age of Fantasy: Skirmish")
    page.get_by_role("button", name="Sync now").click()
    expect(messages.locator("li.success")).to_have_text(
        f"Synced from {armyforge.url}: 3 new books, 0 new versions, 0 unchanged, 0 failed."
    )
    expect(page.locator("#sync-result tbody tr")).to_have_count(3)
    expect(page.locator("#sync-result")).to_contain_text("Volcanic Dwarves")
    photograph(page, "admin-sync")
    assert Faction.objects.filter(ruleset__slug="aof-skirmish").exclude(armyforge_id="").count() == 3
