"""Cached engine books are keyed by the content stamps of book and ruleset: a change by
import or admin edit is a new key, the same content written again is the same key."""

import pytest
from django.apps import apps
from django.urls import reverse

from armybuilder.armyforge.books.imports import book_import
from armybuilder.memo import clear_all
from armybuilder.stamps import content_hash
from factions.admin_checks import catalogue_change_check, catalogue_owner
from factions.models import Faction, ForceOrgLimit, Ruleset
from factions.selectors import engine_book_get, faction_document, ruleset_record
from factions.services import bundled_books_load, sync_rulesets
from tests.conftest import book_option, edit_book

URL = "/api/validate/"


# A harmless change to one row of each ruleset table: the books still pass their checks.
EDITS = {
    "ForceOrgLimit": ("section", "Force Organisation (club reading)"),
    "CoreRule": ("summary", "Said again in other words."),
}


def _first(items: list) -> dict:
    return items[0]


# A harmless change to each part of a book, as the admin edits its document: (book, change).
BOOK_EDITS = {
    "rule": ("test-wardens", lambda book: _first(book["rules"]).update(text="Said again in other words.")),
    "spell": ("test-wardens", lambda book: _first(book["spells"]).update(text="Said again in other words.")),
    "unit": ("test-wardens", lambda book: _first(book["units"]).update(name="Renamed Unit")),
    "weapon": ("test-wardens", lambda book: _first(_first(book["units"])["equipment"]).update(rules=["AP(1)"])),
    "package order": ("test-wardens", lambda book: book["packages"].reverse()),
    "section": ("test-wardens", lambda book: _first(_first(book["packages"])["sections"]).update(label="Renamed")),
    "option": ("test-wardens", lambda book: book_option(book, "TROOPS-1a").update(cost=99)),
    "composition": ("test-pit", lambda book: book["composition"]["groups"][0].update(max=5)),
}


def _stamps():
    return {
        "books": dict(Faction.objects.values_list("pk", "content_hash")),
        "rulesets": dict(Ruleset.objects.values_list("pk", "content_hash")),
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    "model",
    [m for m in apps.get_app_config("factions").get_models() if m.__name__ in EDITS],
    ids=lambda m: m.__name__,
)
def test_a_change_to_any_ruleset_row_gives_its_ruleset_a_new_content_stamp(wardens, make_arena_book, model):
    """What the admin does on every save of a ruleset (catalogue_change_check) stamps it
    from its content: the ruleset, and only it, gets a new stamp, the one its content
    hashes to."""
    book_import(data=make_arena_book())
    obj = model.objects.order_by("pk").first()
    field, value = EDITS[model.__name__]
    assert getattr(obj, field) != value, "the edit must change something"
    before = _stamps()
    setattr(obj, field, value)
    obj.save()

    catalogue_change_check(objects=[obj])

    after = _stamps()
    owner = catalogue_owner(obj)
    changed = {k: [pk for pk in after[k] if after[k][pk] != before[k][pk]] for k in after}
    assert changed == {"books": [], "rulesets": [owner.pk]}
    full = Ruleset.objects.prefetch_related("limits", "core_rules").get(pk=owner.pk)
    assert after["rulesets"][owner.pk] == content_hash(ruleset_record(ruleset=full))


@pytest.mark.django_db
@pytest.mark.parametrize("edit", BOOK_EDITS)
def test_a_change_to_any_part_of_a_book_gives_it_a_new_content_stamp(wardens, make_arena_book, edit):
    """A book edited as the admin edits it is a new version: the book, and only it, gets
    a new stamp, the one its new document hashes to."""
    book_import(data=make_arena_book())
    slug, change = BOOK_EDITS[edit]
    before = _stamps()
    system = Faction.objects.get(slug=slug).ruleset.slug

    owner = edit_book(slug, change, system=system)

    after = _stamps()
    changed = {k: [pk for pk in after[k] if after[k][pk] != before[k][pk]] for k in after}
    assert changed == {"books": [owner.pk], "rulesets": []}
    assert after["books"][owner.pk] == content_hash(faction_document(faction=owner))


@pytest.mark.django_db
def test_the_same_content_written_again_keeps_its_stamp_and_cached_book(wardens, make_aof_book):
    """Stamps come from content, not from counting writes: importing the same book again,
    or syncing unchanged rulesets, leaves every cached copy usable; a changed book gets a
    new stamp and a new compiled book."""
    sync_rulesets()  # the migration's rulesets carry a placeholder stamp until written
    before = _stamps()
    built = engine_book_get(system="aof", slug="test-wardens")
    book_import(data=make_aof_book())
    sync_rulesets()
    assert _stamps() == before
    assert engine_book_get(system="aof", slug="test-wardens") is built

    changed = make_aof_book()
    changed["units"][0]["cost"] += 5
    book_import(data=changed)
    assert _stamps()["books"] != before["books"]
    rebuilt, _ruleset = engine_book_get(system="aof", slug="test-wardens")
    assert rebuilt.units[changed["units"][0]["id"]].cost == changed["units"][0]["cost"]


@pytest.mark.django_db
def test_every_book_and_ruleset_has_a_stamp_of_its_own():
    bundled_books_load()
    stamps = _stamps()
    values = [*stamps["books"].values(), *stamps["rulesets"].values()]
    assert all(len(value) == 32 for value in values)
    assert len(set(values)) == len(values)


@pytest.mark.django_db
def test_an_admin_edit_of_a_limit_reaches_validation(client, staff_user, wardens):
    client.force_login(staff_user)
    listed = {
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1000,
        "entries": [{"id": f"h{i}", "unit": "warden-captain", "options": {"HERO-1a": 0}} for i in range(2)],
    }
    assert client.post(URL, listed, content_type="application/json").json()["valid"] is True

    limit = ForceOrgLimit.objects.get(ruleset__slug="aof", code="too_many_heroes")
    response = client.post(
        reverse("admin:factions_forceorglimit_change", args=[limit.pk]),
        {
            "ruleset": limit.ruleset_id,
            "code": limit.code,
            "kind": limit.kind,
            "params": '{"counts": "heroes", "per": 1000}',
            "severity": "error",
            "section": limit.section,
            "optional": "on",
            "order": limit.order,
        },
    )
    assert response.status_code == 302, response.content[:2000]

    result = client.post(URL, listed, content_type="application/json").json()
    assert [i["code"] for i in result["issues"]] == ["too_many_heroes"]


@pytest.mark.django_db
def test_the_book_is_built_once_then_served_from_the_cache(wardens, django_assert_max_num_queries):
    engine_book_get(system="aof", slug="test-wardens")
    with django_assert_max_num_queries(1):
        book, ruleset = engine_book_get(system="aof", slug="test-wardens")
    assert set(book.units) == {"warden-captain", "wardens", "wardens-0"}
    assert ruleset.slug == "aof"


@pytest.mark.django_db
def test_building_a_book_takes_the_same_queries_whatever_its_size(make_aof_book):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    small, big = make_aof_book(units=3), make_aof_book(units=40)
    big["slug"] = "big-wardens"
    book_import(data=small)
    book_import(data=big)
    counts = []
    for slug in ("test-wardens", "big-wardens"):
        clear_all()
        with CaptureQueriesContext(connection) as queries:
            book, _ruleset = engine_book_get(system="aof", slug=slug)
        counts.append(len(queries))
    assert len(book.units) == 40
    assert counts[0] == counts[1] <= 16


@pytest.mark.django_db
def test_another_app_server_builds_the_book_from_the_shared_cache(wardens, django_assert_max_num_queries):
    engine_book_get(system="aof", slug="test-wardens")  # built from the tables, kept in the shared cache
    clear_all()  # as if this were another process, with only the shared cache in common
    with django_assert_max_num_queries(1):  # the handle; no book tables read
        book, _ruleset = engine_book_get(system="aof", slug="test-wardens")
    assert set(book.units) == {"warden-captain", "wardens", "wardens-0"}
