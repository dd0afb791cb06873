"""Issue 37, names: an uploaded army book whose texts hold Unicode direction controls is
refused, each text named by its path; a book read from Army Forge has them removed, with a
warning, so that a stray mark never stops a real book; a backup's book is read as kept."""

from __future__ import annotations

import json

import pytest

from armybuilder.armyforge.books.imports import book_import
from factions.armybook import ArmyBookError, check_armybook
from factions.models import Faction
from factions.selectors import faction_document, ruleset_infos
from tests.conftest import SHARED, require_shared

RLO = "\u202e"


@pytest.mark.django_db
def test_an_uploaded_book_with_an_override_in_a_unit_name_is_refused_naming_the_path(make_aof_book):
    book = make_aof_book()
    book["units"][1]["name"] = f"{RLO}Wardens"
    book["spells"][0]["name"] = "Sp\u2067ark"
    with pytest.raises(ArmyBookError) as refused:
        book_import(data=book)
    assert [str(p) for p in refused.value.problems] == [
        "spells[0].name: holds Unicode direction controls (U+2067): remove them",
        "units[1].name: holds Unicode direction controls (U+202E): remove them",
    ]
    assert not Faction.objects.exists()


@pytest.mark.django_db
def test_the_api_s_upload_answers_the_path(staff_client, make_aof_book):
    book = make_aof_book()
    book["name"] = f"Test {RLO}Wardens"
    response = staff_client.post("/api/factions/import/", book, format="json")
    assert response.status_code == 400
    assert "name: holds Unicode direction controls (U+202E): remove them" in json.dumps(response.json())
    assert not Faction.objects.exists()


@pytest.mark.django_db
def test_a_backup_s_book_kept_from_before_the_rule_is_read_as_it_was(make_aof_book):
    book = make_aof_book()
    book["units"][0]["name"] = f"{RLO}Captain"
    assert check_armybook(book, ruleset_infos()).errors
    assert check_armybook(book, ruleset_infos(), kept=True).errors == []


@pytest.mark.django_db
@pytest.mark.usefixtures("fresh_engine_cache")
def test_an_army_forge_book_with_an_override_imports_without_it_and_says_so():
    data = json.loads(require_shared(SHARED / "armyforge" / "aof--giant-tribes.json").read_text(encoding="utf-8"))
    unit_name = data["units"][0]["name"]
    data["units"][0]["name"] = f"{RLO}{unit_name}"
    data["name"] = f"{data['name']}\u2069"
    result = book_import(data=data, system="aof")
    document = faction_document(faction=result.faction)
    assert unit_name in [unit["name"] for unit in document["units"]]
    assert "\u2069" not in result.faction.name and RLO not in json.dumps(document, ensure_ascii=False)
    warned = [str(w) for w in result.warnings if "direction controls" in w.message]
    assert warned == [
        "name: Unicode direction controls (U+2069) removed",
        "units[0].name: Unicode direction controls (U+202E) removed",
    ]
