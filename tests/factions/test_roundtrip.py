"""Every bundled army book survives import -> export -> import unchanged."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from armybuilder.armyforge.books.imports import book_import
from factions.models import Faction
from factions.selectors import faction_document
from factions.services import armybook_edit, bundled_book_paths, bundled_books_load

BUNDLED = bundled_book_paths()
SYSTEMS = ("aof", "aof-regiments", "aof-skirmish", "opf", "aof-arena")


def export(system: str, slug: str) -> dict:
    return faction_document(faction=Faction.objects.get(ruleset__slug=system, slug=slug))


def test_every_ruleset_has_a_bundled_book():
    assert {path.parent.name for path in BUNDLED} == set(SYSTEMS)


@pytest.mark.django_db
@pytest.mark.parametrize("path", BUNDLED, ids=[f"{p.parent.name}/{p.stem}" for p in BUNDLED])
def test_bundled_book_round_trips_to_identical_json(path):
    original = json.loads(path.read_text())
    assert path.stem == original["slug"] and path.parent.name == original["system"]

    book_import(data=original)
    exported = export(original["system"], original["slug"])
    assert exported == original

    book_import(data=exported)
    assert export(original["system"], original["slug"]) == original


@pytest.mark.django_db
def test_test_books_round_trip_too(make_aof_book, make_arena_book):
    for book in (make_aof_book(units=6), make_arena_book()):
        book_import(data=book)
        assert export(book["system"], book["slug"]) == book


@pytest.mark.django_db
def test_export_command_writes_the_book(tmp_path):
    path = BUNDLED[0]
    original = json.loads(path.read_text())
    book_import(data=original)
    out_file = tmp_path / "out.json"
    call_command("export_armybook", original["system"], original["slug"], output=str(out_file), stdout=StringIO())
    assert json.loads(out_file.read_text()) == original


@pytest.mark.django_db
def test_bootstrap_loads_every_bundled_book_once():
    out = StringIO()
    call_command("bootstrap", stdout=out)
    assert Faction.objects.count() == len(BUNDLED)
    assert f"{len(BUNDLED)} bundled army books imported" in out.getvalue()

    again = StringIO()
    call_command("bootstrap", stdout=again)
    assert "0 bundled army books imported" in again.getvalue()


@pytest.mark.django_db
def test_bundled_book_is_reloaded_only_when_the_file_is_newer():
    bundled_books_load()
    faction = Faction.objects.select_related("ruleset").order_by("pk").first()
    edited = {**faction_document(faction=faction), "name": "Edited in the admin", "version": f"{faction.version}+a.1"}
    armybook_edit(faction=faction, document=edited, based_on=faction.content_hash)
    assert bundled_books_load() == []
    assert Faction.objects.get(pk=faction.pk).name == "Edited in the admin"


@pytest.mark.django_db
def test_a_newer_bundled_file_becomes_a_new_version_of_its_book():
    path = BUNDLED[0]
    older = {**json.loads(path.read_text()), "version": "0.0.1", "name": "Older name"}
    first = book_import(data=older, source="bundled")
    assert bundled_books_load() != []
    faction = Faction.objects.get(pk=first.faction.pk)
    assert faction.name != "Older name" and faction.version == json.loads(path.read_text())["version"]
    assert sorted(faction.versions.values_list("version", flat=True)) == sorted(["0.0.1", faction.version])
