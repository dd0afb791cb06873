"""The army books' commands in the admin (armybuilder/armyforge/admin.py): "Import a book"
takes an armybook/1 file or an Army Forge army book and says what it did, warnings
included, or every problem of a refused file, which changes nothing; "Sync from Army
Forge" runs the sync against the stand-in and shows each book's outcome, or says why it
is off. Both are for staff who may add army books, by POST with a CSRF token."""

import json
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from factions import models
from factions.selectors import faction_document
from factions.services import BOOKS_DIR
from tests.armyforge.test_sync import BOOKS, WOOD_ELVES, catalogue
from tests.conftest import SHARED, require_shared

IMPORT = reverse("admin:factions_faction_import")
SYNC = reverse("admin:factions_faction_sync")
CHANGELIST = reverse("admin:factions_faction_changelist")
HUMAN_EMPIRE = BOOKS_DIR / "aof" / "human-empire.json"
ARMYFORGE = SHARED / "armyforge"


def upload(path: Path, content: bytes | None = None) -> SimpleUploadedFile:
    raw = path.read_bytes() if content is None else content
    return SimpleUploadedFile(path.name, raw, content_type="application/json")


def ratmen() -> dict:
    return json.loads(require_shared(ARMYFORGE / "aof--ratmen.json").read_text(encoding="utf-8"))


def shown(response) -> list[tuple[str, str]]:
    return [(m.level_tag, str(m)) for m in response.context["messages"]]


def staff(username: str, *permissions: str):
    """A staff user (not a superuser) holding `permissions` (codenames of factions' models)."""
    person = get_user_model().objects.create_user(username, password="not-a-real-pass-123", is_staff=True)
    person.user_permissions.set(Permission.objects.filter(content_type__app_label="factions", codename__in=permissions))
    return person


@pytest.fixture
def admin_client(client, staff_user, fresh_engine_cache):
    client.force_login(staff_user)
    return client


# -- the buttons ---------------------------------------------------------------------------
def test_the_army_books_list_offers_import_and_sync(admin_client):
    page = admin_client.get(CHANGELIST).content.decode()
    assert f'<a href="{IMPORT}">Import a book</a>' in page
    assert f'<a href="{SYNC}">Sync from Army Forge</a>' in page


def test_the_import_page_asks_for_a_file_and_the_ruleset_and_names_the_size_cap(admin_client, settings):
    settings.ARMYFORGE_MAX_BYTES = 1024 * 1024
    page = admin_client.get(IMPORT)
    assert page.status_code == 200
    text = page.content.decode()
    assert 'enctype="multipart/form-data"' in text and "csrfmiddlewaretoken" in text
    assert "armybook/1 JSON or an Army Forge army book (JSON), at most 1.0\xa0MB." in text
    assert [label for _, label in page.context["form"].fields["system"].choices][:2] == [
        "The one the book names",
        "Age of Fantasy 3.2.0",
    ]


# -- importing -----------------------------------------------------------------------------
def test_staff_import_a_bundled_book_and_land_on_its_page(admin_client):
    response = admin_client.post(IMPORT, {"file": upload(HUMAN_EMPIRE)}, follow=True)
    faction = models.Faction.objects.get(ruleset__slug="aof", slug="human-empire")
    assert response.redirect_chain == [(reverse("admin:factions_faction_change", args=[faction.pk]), 302)]
    assert faction.source == models.BookSource.UPLOAD and faction.versions.count() == 1
    book = faction_document(faction=faction)
    size = f"{len(book['units'])} units, {len(book['packages'])} packages, {_options(book)} options"
    added = f"Added Human Empire (aof/human-empire) {faction.version}: {size}; no warnings."
    assert shown(response) == [("success", added)]


def _options(book: dict) -> int:
    return sum(len(section["options"]) for package in book["packages"] for section in package["sections"])


def test_staff_import_an_official_army_forge_book_and_see_its_warnings(admin_client):
    path = require_shared(ARMYFORGE / "aof--ratmen.json")
    response = admin_client.post(IMPORT, {"file": upload(path)}, follow=True)
    faction = models.Faction.objects.get(armyforge_id=ratmen()["uid"])
    assert (faction.ruleset.slug, faction.slug, faction.version) == ("aof", "ratmen", "3.5.2")
    warnings = faction.import_warnings
    assert 0 < len(warnings) <= 30
    first = f"Added Ratmen (aof/ratmen) 3.5.2: {len(faction_document(faction=faction)['units'])} units"
    assert shown(response)[0][1].startswith(first)
    assert shown(response)[0][1].endswith(f"; {len(warnings)} warnings (this page lists them all).")
    assert shown(response)[1:] == [("warning", f"warning: {warning}") for warning in warnings]
    assert "Import warnings" in response.content.decode()


def test_the_same_book_again_changes_nothing_and_says_so(admin_client):
    admin_client.post(IMPORT, {"file": upload(HUMAN_EMPIRE)}, follow=True)
    before = catalogue()
    response = admin_client.post(IMPORT, {"file": upload(HUMAN_EMPIRE)}, follow=True)
    assert catalogue() == before
    assert shown(response) == [
        (
            "success",
            "Human Empire (aof/human-empire) 1.1.0 is held already with the same content: nothing "
            "changed; no warnings.",
        )
    ]


def test_an_army_forge_book_enabled_for_several_rulesets_is_imported_for_the_one_chosen(admin_client):
    book = {key: value for key, value in ratmen().items() if not key.startswith("gameSystem")}
    raw = json.dumps(book).encode()
    unchosen = admin_client.post(IMPORT, {"file": upload(Path("ratmen.json"), raw)})
    assert unchosen.status_code == 400
    assert (
        "error",
        "error: enabledGameSystems: the book is enabled for several rulesets (aof, aof-skirmish, "
        "aof-regiments): choose one (--system, or ?system=)",
    ) in shown(unchosen)
    assert not models.Faction.objects.filter(armyforge_id=book["uid"]).exists()

    chosen = admin_client.post(IMPORT, {"file": upload(Path("ratmen.json"), raw), "system": "aof-skirmish"})
    assert chosen.status_code == 302
    assert models.Faction.objects.get(armyforge_id=book["uid"]).ruleset.slug == "aof-skirmish"


def test_a_book_for_another_ruleset_than_the_one_chosen_is_refused(admin_client):
    response = admin_client.post(IMPORT, {"file": upload(HUMAN_EMPIRE), "system": "aof-regiments"})
    assert response.status_code == 400
    assert shown(response) == [
        ("error", "Not imported: nothing changed."),
        ("error", 'error: system: the book is for "aof", not "aof-regiments"'),
    ]
    assert not models.Faction.objects.filter(slug="human-empire").exists()


def test_a_file_that_is_not_json_is_refused_naming_why_and_nothing_is_saved(admin_client):
    before = catalogue()
    response = admin_client.post(IMPORT, {"file": upload(HUMAN_EMPIRE, b'{"format": "armybook/1", "units": [')})
    assert response.status_code == 400
    assert shown(response) == [
        ("error", "Not imported: nothing changed."),
        ("error", "error: not valid JSON: Expecting value: line 1 column 36 (char 35)"),
    ]
    assert catalogue() == before


def test_a_list_file_uploaded_as_a_book_is_refused_naming_every_problem(admin_client):
    before = catalogue()
    a_list = BOOKS_DIR.parent / "lists" / "aof" / "human-empire-750.json"
    response = admin_client.post(IMPORT, {"file": upload(a_list)})
    assert response.status_code == 400
    errors = [text for level, text in shown(response) if level == "error"]
    assert errors[0] == "Not imported: nothing changed."
    assert any(text.startswith("error: format: ") for text in errors[1:]), errors
    assert catalogue() == before


def test_a_book_file_over_the_cap_is_refused_unread(admin_client, settings):
    settings.ARMYFORGE_MAX_BYTES = 1000
    before = catalogue()
    response = admin_client.post(IMPORT, {"file": upload(HUMAN_EMPIRE)})
    assert response.status_code == 400
    size = HUMAN_EMPIRE.stat().st_size
    assert response.context["form"].errors == {
        "file": [
            f"The file is {size / 1024:.1f}\xa0KB: a book file may be 1000\xa0bytes at most. Nothing was imported."
        ]
    }
    assert catalogue() == before


def test_no_file_is_asked_for(admin_client):
    response = admin_client.post(IMPORT, {})
    assert response.status_code == 400
    assert response.context["form"].errors == {"file": ["This field is required."]}


# -- who may ---------------------------------------------------------------------------------
@pytest.mark.parametrize("address", [IMPORT, SYNC])
def test_someone_not_staff_is_sent_to_log_in_and_nothing_is_imported(client, user, address, db):
    client.force_login(user)
    before = catalogue()
    for response in (client.get(address), client.post(address, {"file": upload(HUMAN_EMPIRE)})):
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("admin:login"))
    assert catalogue() == before


@pytest.mark.parametrize("address", [IMPORT, SYNC])
def test_staff_who_may_not_add_books_are_refused_and_see_no_buttons(client, address, db, armyforge):
    client.force_login(staff("viewer", "view_faction", "change_faction"))
    before = catalogue()
    assert client.get(address).status_code == 403
    assert client.post(address, {"file": upload(HUMAN_EMPIRE)}).status_code == 403
    assert catalogue() == before and armyforge.requests == []
    page = client.get(CHANGELIST).content.decode()
    assert "Import a book" not in page and "Sync from Army Forge" not in page


def test_staff_who_may_add_books_may_import_one(client, db, fresh_engine_cache):
    client.force_login(staff("librarian", "view_faction", "add_faction"))
    assert client.post(IMPORT, {"file": upload(HUMAN_EMPIRE)}).status_code == 302
    assert models.Faction.objects.filter(slug="human-empire").exists()


@pytest.mark.parametrize("address", [IMPORT, SYNC])
def test_a_post_without_the_csrf_token_is_refused(staff_user, address, db, armyforge):
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff_user)
    assert client.post(address, {"file": upload(HUMAN_EMPIRE)}).status_code == 403
    assert not models.Faction.objects.filter(slug="human-empire").exists() and armyforge.requests == []


# -- syncing ---------------------------------------------------------------------------------
def sync_rows(response) -> list[tuple[str, ...]]:
    result = response.context["result"]
    rows = [(system, "(the index)", "failed", why) for system, why in result.failed_indexes]
    return rows + [(book.system, book.name, book.outcome, book.detail) for book in result.books]


def test_the_sync_page_says_where_it_reads_and_offers_a_ruleset_and_a_dry_run(admin_client, armyforge):
    page = admin_client.get(SYNC)
    assert page.status_code == 200
    assert f"official books at\n<code>{armyforge.url}</code>" in page.content.decode()
    assert list(page.context["form"].fields) == ["system", "dry_run"]
    assert armyforge.requests == []  # looking is not syncing


def test_the_sync_imports_new_books_and_new_versions_and_shows_what_failed(admin_client, armyforge):
    latest = armyforge.folder
    armyforge.serve(latest / "3.5.1")
    first = admin_client.post(SYNC, {"system": "aof-skirmish"})
    assert first.status_code == 200
    assert shown(first) == [
        ("success", f"Synced from {armyforge.url}: 3 new books, 0 new versions, 0 unchanged, 0 failed.")
    ]
    assert [row[1:3] for row in sync_rows(first)] == [
        (name, "new book") for key, (system, name, _) in BOOKS.items() if system == "aof-skirmish"
    ]

    armyforge.serve(latest)
    armyforge.fail(BOOKS["aof-skirmish--dwarves"][2], 404)
    second = admin_client.post(SYNC, {"system": "aof-skirmish"})
    outcomes = {name: outcome for _, name, outcome, _ in sync_rows(second)}
    assert outcomes == {"Dwarves": "failed", "Trade Federations": "new version", "Volcanic Dwarves": "new version"}
    failed = next(book for book in second.context["result"].books if book.outcome == "failed")
    assert shown(second) == [
        ("warning", f"Synced from {armyforge.url}: 0 new books, 2 new versions, 0 unchanged, 1 failed."),
        ("error", failed.line()),
    ]
    assert "Army Forge answered 404" in failed.line()
    table = second.content.decode()
    assert '<table id="sync-result">' in table and "was 3.5.1" in table


def test_an_index_that_fails_is_shown_and_a_dry_run_writes_nothing(admin_client, armyforge):
    armyforge.fail("age-of-fantasy-skirmish", 500)
    before = catalogue()
    response = admin_client.post(SYNC, {"dry_run": "on"})
    assert catalogue() == before
    rows = sync_rows(response)
    assert rows[0][:3] == ("aof-skirmish", "(the index)", "failed")
    assert {outcome for _, _, outcome, _ in rows[1:]} == {"new book"}
    assert shown(response)[0] == (
        "warning",
        f"Synced from {armyforge.url}: 4 new books, 0 new versions, 0 unchanged, 1 failed (dry run: nothing written).",
    )
    assert shown(response)[1][1].startswith("aof-skirmish  index: failed: Army Forge answered 500")


def test_a_ruleset_army_forge_has_no_books_for_is_refused_and_nothing_is_read(admin_client, armyforge):
    response = admin_client.post(SYNC, {"system": "opf"})
    assert response.status_code == 400
    assert response.context["form"].errors == {
        "system": ["Select a valid choice. That choice is not one of the available choices."]
    }
    assert armyforge.requests == [] and response.context["result"] is None


def test_with_no_army_forge_address_the_sync_page_explains_and_syncs_nothing(admin_client, settings):
    settings.ARMYFORGE_URL = ""
    before = catalogue()
    for response in (admin_client.get(SYNC), admin_client.post(SYNC, {})):
        page = response.content.decode()
        assert response.status_code == 200
        assert "Army Forge sync is off on this site: <code>DJANGO_ARMYFORGE_URL</code> is empty" in page
        assert "Sync now" not in page and response.context["result"] is None
    assert catalogue() == before


def test_a_sync_from_the_page_stops_in_time_and_the_next_press_goes_on(admin_client, armyforge, settings):
    """A book that does not answer holds the page no longer than its time allowed: the
    sync starts no book after it and says what it left; the next press reads the rest."""
    settings.ARMYFORGE_ADMIN_SYNC_SECONDS = 1.5
    first_book = BOOKS["aof--chivalrous-kingdoms"][2]
    armyforge.hang(first_book, 10)
    stopped = admin_client.post(SYNC, {})
    result = stopped.context["result"]
    assert [(book.name, book.outcome) for book in result.books] == [("Chivalrous Kingdoms", "failed")]
    assert "no answer" in result.books[0].detail
    assert (
        result.stopped
        == "stopped after 1.5 s with 3 books of aof, aof-skirmish, aof-regiments not read: sync again to go on"
    )
    assert shown(stopped)[0][1].endswith(f"; {result.stopped}.")
    assert armyforge.books_fetched == [first_book]
    armyforge.clear()
    settings.ARMYFORGE_ADMIN_SYNC_SECONDS = 60
    again = admin_client.post(SYNC, {})
    assert again.context["result"].stopped == ""
    assert again.context["result"].new_books == 7


def test_the_sync_page_shows_each_rulesets_core_rules_and_each_books_warnings(admin_client, armyforge):
    response = admin_client.post(SYNC, {"system": "aof"})

    assert response.status_code == 200
    day = models.ArmyForgeRules.objects.get(ruleset__slug="aof").version
    assert [(r.system, r.outcome, r.version, r.rules) for r, _ in response.context["core_rules"]] == [
        ("aof", "new version", day, 37)
    ]
    page = response.content.decode()
    assert '<table id="sync-core-rules">' in page and f"<td>{day}</td>" in page and "37 rules" in page
    # Read with the core rules, the books need few warnings: Wood Elves 3.5.2 has a section with no options.
    elves = models.Faction.objects.get(armyforge_id=BOOKS["aof--wood-elves"][2])
    shown_warnings = dict((book.name, warnings) for book, warnings in response.context["books"])
    assert shown_warnings["Wood Elves"] == elves.import_warnings and len(elves.import_warnings) == 1
    listed = "".join(f"<li>{escape(warning)}</li>" for warning in elves.import_warnings)
    assert f'<ul class="sync-notes">{listed}</ul>' in page


def test_the_sync_page_shows_at_most_twenty_warnings_of_a_book_and_how_many_more(admin_client, armyforge):
    book = ratmen()
    for unit in book["units"]:  # each a warning: a section switched off that is in none of its packages
        unit["disabledSections"] = ["no-such-section"]
    armyforge.answer(book["uid"], book)

    response = admin_client.post(SYNC, {"system": "aof"})

    warnings = models.Faction.objects.get(armyforge_id=book["uid"]).import_warnings
    assert len(warnings) == 23  # one for each of its units
    shown_warnings = dict((book.name, warnings) for book, warnings in response.context["books"])
    assert shown_warnings["Ratmen"] == [*warnings[:20], "... and 3 more warnings"]
    assert "<li>... and 3 more warnings</li>" in response.content.decode()


def test_core_rules_that_fail_are_an_error_on_the_sync_page_and_the_books_go_on(admin_client, armyforge):
    from tests.support.armyforge_standin import rules_key

    armyforge.fail(rules_key(4), 404)

    response = admin_client.post(SYNC, {"system": "aof"})

    failed = response.context["result"].core_rules[0]
    assert failed.line() == f"aof  core rules: failed: Army Forge answered 404 for {armyforge.url}/api/rules/common/4"
    assert shown(response) == [
        ("warning", f"Synced from {armyforge.url}: 4 new books, 0 new versions, 0 unchanged, 1 failed."),
        ("error", failed.line()),
    ]
    assert f"<td>Army Forge answered 404 for {armyforge.url}/api/rules/common/4" in response.content.decode()
    assert not models.ArmyForgeRules.objects.exists()


def test_core_rules_that_do_not_answer_in_the_time_allowed_stop_the_sync_before_the_books(
    admin_client, armyforge, settings
):
    from tests.support.armyforge_standin import rules_key

    settings.ARMYFORGE_ADMIN_SYNC_SECONDS = 1
    armyforge.hang(rules_key(4), 10)

    result = admin_client.post(SYNC, {}).context["result"]

    assert [(r.system, r.outcome) for r in result.core_rules] == [("aof", "failed")]
    assert result.core_rules[0].error.startswith("no answer from")
    assert result.stopped == (
        "stopped after 1 s with the books of aof, aof-skirmish, aof-regiments not read: sync again to go on"
    )
    assert (result.books, armyforge.indexes_read, armyforge.rules_read) == ((), [], [4])


def test_bad_text_in_a_book_fails_that_book_on_the_admin_page_and_the_others_are_read(admin_client, armyforge):
    book = armyforge.book("aof--wood-elves")
    book["units"][0]["rules"][0]["name"] = "Str\udc00ider"
    armyforge.answer(WOOD_ELVES, book)

    response = admin_client.post(SYNC, {"system": "aof"})

    assert response.status_code == 200
    result = response.context["result"]
    assert [(b.name, b.outcome) for b in result.books if b.outcome == "failed"] == [("Wood Elves", "failed")]
    assert "holds a NUL character or a lone surrogate at units[0].rules[0].name" in result.books[-1].error
    assert result.new_books == 3
    response.content.decode("utf-8")
