"""The armybook/1 additions for real army books through the importer, the database, the
admin, the API and export: a book using all of them imports, answers with its warnings,
and survives import -> export -> import unchanged; what is still wrong is an error."""

import copy
import json

import pytest
from django.urls import reverse

from armybuilder.armyforge.books.imports import book_import
from factions.armybook import ArmyBookError
from factions.models import Faction
from factions.selectors import faction_document
from tests.conftest import book_option, part
from tests.support.mutations import set_at

SKIRMISH_BOOK = {
    "format": "armybook/1",
    "system": "aof-skirmish",
    "slug": "test-reavers",
    "name": "Test Reavers",
    "version": "1.0.0",
    "rules": [
        {"name": "Fear", "rated": True, "text": "Own words: enemies within X inches test morale at a penalty."},
        {"name": "Spawn", "rated": True, "text": "Own words: brings the named unit into play."},
        {"name": "Thrust", "rated": False, "text": "Thrust: a rule from a newer rulebook; its text is not here."},
    ],
    "spells": [],
    "units": [
        {
            "id": "reaver-chief",
            "name": "Reaver Chief",
            "type": "hero",
            "size": 1,
            "cost": 50,
            "stats": {"quality": 4, "defense": 4},
            "rules": ["Hero", "Tough(3)", "Fear(2)", "Spawn(Bone Rats [3])"],
            "equipment": [{"name": "Pistol", "count": 2, "range": 12, "attacks": 1, "rules": []}],
            "items": [
                {
                    "name": "Bone Steed",
                    "rules": ["Fast"],
                    "equipment": [{"name": "Hooves", "attacks": 2, "rules": []}],
                }
            ],
            "upgrades": ["CHIEF"],
        },
        {
            "id": "reavers",
            "name": "Reavers",
            "type": "infantry",
            "size": 5,
            "cost": 60,
            "stats": {"quality": 5, "defense": 5},
            "rules": [],
            "equipment": [{"name": "Hand Weapon", "count": 10, "attacks": 1, "rules": []}],
            "upgrades": [{"package": "CREW", "without": ["CREW-2"]}],
        },
    ],
    "packages": [
        {
            "id": "CHIEF",
            "sections": [
                {
                    "id": "CHIEF-1",
                    "label": "Upgrade any Pistol with one",
                    "variant": "attachment",
                    "targets": ["Pistols"],
                    "affects": {"type": "any"},
                    "select": {"type": "exactly", "value": 1, "per": "item"},
                    "optional": True,
                    "options": [
                        {
                            "id": "silver",
                            "label": "Silver Shot (Thrust)",
                            "cost": 5,
                            "gains": [{"kind": "item", "name": "Silver Shot", "rules": ["Thrust"]}],
                        }
                    ],
                },
                {
                    "id": "CHIEF-2",
                    "label": "Replace Bone Steed",
                    "variant": "replace",
                    "targets": ["Bone Steed"],
                    "affects": {"type": "exactly", "value": 1},
                    "options": [
                        {
                            "id": "on-foot",
                            "label": "On foot",
                            "cost": -10,
                            "gains": [{"kind": "rule", "name": "Fearless"}],
                        }
                    ],
                },
            ],
        },
        {
            "id": "CREW",
            "sections": [
                {
                    "id": "CREW-1",
                    "label": "Replace any 2x Hand Weapon",
                    "variant": "replace",
                    "targets": [{"name": "Hand Weapon", "count": 2}],
                    "affects": {"type": "any"},
                    "options": [
                        {
                            "id": "maul",
                            "label": "Maul",
                            "cost": 3,
                            "costs": {"reavers": -2},
                            "gains": [{"kind": "weapon", "name": "Maul", "count": 1, "attacks": 2, "rules": []}],
                        }
                    ],
                },
                {
                    "id": "CREW-2",
                    "label": "Upgrade with",
                    "variant": "upgrade",
                    "select": {"type": "up to", "value": 1, "per": "option"},
                    "options": [
                        {
                            "id": "drum",
                            "label": "Drum",
                            "cost": 5,
                            "gains": [{"kind": "item", "name": "Drum", "count": 2, "rules": ["Fearless"]}],
                        },
                        {
                            "id": "horn",
                            "label": "Horn",
                            "cost": 5,
                            "gains": [{"kind": "item", "name": "Horn", "rules": []}],
                        },
                    ],
                },
            ],
        },
    ],
}


def test_a_book_with_every_addition_imports_and_answers_with_its_warnings(db):
    result = book_import(data=copy.deepcopy(SKIRMISH_BOOK))
    assert [(w.path, w.message) for w in result.warnings] == [
        (
            "rules[0].name",
            '"Fear" is a core rule of aof-skirmish; this book defines it with a value and its definition is used '
            "for this faction",
        )
    ]
    faction = result.faction
    assert faction.import_warnings == [str(w) for w in result.warnings]
    document = faction_document(faction=faction)
    chief = part(document["units"], "id", "reaver-chief")
    assert chief["items"][0]["name"] == "Bone Steed"
    assert part(document["units"], "id", "reavers")["upgrades"][0]["without"] == ["CREW-2"]
    sections = [section for package in document["packages"] for section in package["sections"]]
    assert part(sections, "id", "CHIEF-1")["select"]["per"] == "item"
    assert book_option(document, "on-foot")["cost"] == -10


def test_a_book_with_every_addition_survives_import_export_import(db):
    book_import(data=copy.deepcopy(SKIRMISH_BOOK))
    exported = faction_document(faction=Faction.objects.get(ruleset__slug="aof-skirmish", slug="test-reavers"))
    assert exported == SKIRMISH_BOOK
    book_import(data=exported)
    again = faction_document(faction=Faction.objects.get(ruleset__slug="aof-skirmish", slug="test-reavers"))
    assert again == exported


def test_the_api_import_answers_with_the_warnings(staff_client):
    response = staff_client.post("/api/factions/import/", SKIRMISH_BOOK, format="json")
    assert response.status_code == 201, response.content
    assert response.json()["warnings"] == [
        {
            "path": "rules[0].name",
            "message": '"Fear" is a core rule of aof-skirmish; this book defines it with a value and its definition '
            "is used for this faction",
        }
    ]


def test_the_admin_shows_the_import_warnings(client, staff_user, db):
    faction = book_import(data=copy.deepcopy(SKIRMISH_BOOK)).faction
    client.force_login(staff_user)
    listing = client.get(reverse("admin:factions_faction_changelist")).content.decode()
    assert "import warnings" in listing.lower()
    page = client.get(reverse("admin:factions_faction_change", args=[faction.pk])).content.decode()
    assert "Import warnings" in page and "&quot;Fear&quot; is a core rule of aof-skirmish" in page


@pytest.mark.parametrize(
    ("path", "value", "error_path", "words"),
    [
        ("packages[1].sections[0].targets[0].count", 0, "packages[1].sections[0].targets[0]", ""),
        ("packages[0].sections[0].select.per", "unit", "packages[0].sections[0].select", ""),
        ("packages[0].sections[0].affects", {"type": "any", "per": "model"}, "packages[0].sections[0].affects", ""),
        ("units[1].upgrades[0]", {"package": "CREW"}, "units[1].upgrades[0]", ""),
        ("units[1].upgrades[0].package", "NOPE", "units[1].upgrades[0].package", 'unknown package "NOPE"'),
        ("units[0].items[0].rules", ["Gallop"], "units[0].items[0].rules[0]", 'unknown rule "Gallop"'),
        ("units[0].rules[3]", "Tough(lots)", "units[0].rules[3]", 'rule "Tough" takes a number'),
        ("units[0].rules[3]", "Fearless(2)", "units[0].rules[3]", 'rule "Fearless" takes no value'),
        (
            "packages[1].sections[1].select.per",
            "item",
            "packages[1].sections[1].select.per",
            "a limit per item needs a replace or attachment section",
        ),
    ],
)
def test_what_is_still_wrong_with_an_addition_is_an_error(db, path, value, error_path, words):
    book = copy.deepcopy(SKIRMISH_BOOK)
    set_at(path, value)(book)
    with pytest.raises(ArmyBookError) as raised:
        book_import(data=book)
    first = raised.value.problems[0]
    assert first.path == error_path and words in first.message, raised.value.problems
    assert not Faction.objects.exists()


def test_a_rated_rule_without_its_value_and_a_section_left_out_that_is_not_there_are_warnings(db):
    book = copy.deepcopy(SKIRMISH_BOOK)
    set_at("units[0].rules[1]", "Tough")(book)
    set_at("units[1].upgrades[0].without", ["CREW-9"])(book)
    warnings = [str(w) for w in book_import(data=book).warnings]
    assert warnings[1:] == [
        'units[0].rules[1]: rule "Tough" takes a value, but "Tough" gives none; it is shown as written',
        'units[1].upgrades[0].without[0]: package "CREW" has no section "CREW-9"; nothing is left out for it',
    ]


def test_every_problem_of_a_native_book_is_reported_at_once(db):
    book = copy.deepcopy(SKIRMISH_BOOK)
    set_at("units[1].cost", "sixty")(book)  # a schema problem
    set_at("units[0].upgrades", ["CHIEF", "NOPE"])(book)  # a catalogue problem in another unit
    set_at("packages[1].sections[0].options[0].gains[0].rules", ["Gallop"])(book)  # and in a package
    with pytest.raises(ArmyBookError) as raised:
        book_import(data=book)
    assert [p.path for p in raised.value.problems] == [
        "units[1].cost",
        "units[0].upgrades[1]",
        "packages[1].sections[0].options[0].gains[0].rules[0]",
    ]


def test_the_schema_file_is_valid_json_schema():
    from jsonschema import Draft202012Validator

    from factions.armybook import SCHEMA_PATH

    Draft202012Validator.check_schema(json.loads(SCHEMA_PATH.read_text()))
