"""Army Forge interoperability: its army books and list files come in as ours.

The fixtures in tests/fixtures/armyforge/ are small, original books and lists written in
Army Forge's shape: one book per Age of Fantasy ruleset, each with every section variant,
and two list files. emberfolk-aof.armybook.json is the AoF book written by hand as
armybook/1, to check the conversion against and to build the same lists natively.
"""

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from armybuilder.armyforge.books.imports import armyforge_book_read, book_import
from armybuilder.armyforge.ids import our_id
from armybuilder.lists.models import ArmyList
from factions.armybook import ArmyBookError
from factions.models import Faction
from factions.selectors import engine_book_get, faction_document
from factions.services import armybook_import
from tests.support.mutations import DELETE, set_at

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "armyforge"
AOF_BOOK = "emberfolk-aof.json"
REGIMENTS_BOOK = "saltmarsh-regiments.json"
SKIRMISH_BOOK = "gloamwood-skirmish.json"
AOF_LIST = "emberfolk-aof-list.json"
REGIMENTS_LIST = "saltmarsh-regiments-list.json"
NATIVE_AOF_BOOK = "emberfolk-aof.armybook.json"


def load(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


def row_counts() -> dict[str, int]:
    models = [*apps.get_app_config("factions").get_models(), ArmyList]
    return {m.__name__: m.objects.count() for m in models}


pytestmark = pytest.mark.usefixtures("fresh_engine_cache")


@pytest.fixture
def emberfolk(db):
    return book_import(data=load(AOF_BOOK)).faction


@pytest.fixture
def saltmarsh(db):
    return book_import(data=load(REGIMENTS_BOOK), system="aof-regiments").faction


@pytest.fixture
def emberfolk_native(db):
    """The same AoF book written natively, under another slug and with no Army Forge id."""
    book = load(NATIVE_AOF_BOOK)
    book["slug"] = "emberfolk-native"
    del book["armyforge_id"]
    return book_import(data=book).faction


@pytest.fixture
def player(db, django_user_model) -> APIClient:
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_user("forge-player", password="a-long-pass-phrase-1"))
    return client


# -- army books --------------------------------------------------------------------------
def test_the_aof_book_converts_to_the_book_written_natively(db):
    assert armyforge_book_read(load(AOF_BOOK)).book == load(NATIVE_AOF_BOOK)


def test_the_catalogue_imports_armybook1_only_and_the_army_forge_door_reads_both(db):
    """factions knows no Army Forge: its import refuses the book, this package's door
    reads it first (and takes armybook/1 as it is)."""
    with pytest.raises(ArmyBookError) as refused:
        armybook_import(data=load(AOF_BOOK))
    assert "'upgradePackages'" in str(refused.value.problems[0])  # not a field of armybook/1
    assert not Faction.objects.filter(armyforge_id=load(AOF_BOOK)["uid"]).exists()
    assert book_import(data=load(AOF_BOOK)).faction.armyforge_id == load(AOF_BOOK)["uid"]


def test_what_the_reader_found_wrong_is_named_with_the_checks_own(db):
    book = load(AOF_BOOK)
    del book["units"][1]["quality"]
    read = armyforge_book_read(book)
    with pytest.raises(ArmyBookError) as refused:
        armybook_import(data=read.book, reader_errors=read.errors, reader_warnings=read.warnings)
    assert [str(p) for p in refused.value.problems][0] == "units[1].quality: is required"


@pytest.mark.parametrize(
    ("name", "system", "expected"),
    [
        (AOF_BOOK, None, ("aof", "emberfolk-marches", "3.5.2", 4, 4, 12)),
        (REGIMENTS_BOOK, "aof-regiments", ("aof-regiments", "saltmarsh-levy", "1.2.0", 5, 4, 8)),
        (SKIRMISH_BOOK, None, ("aof-skirmish", "gloamwood-stalkers", "2.0.1", 3, 3, 6)),
    ],
    ids=["aof", "aof-regiments", "aof-skirmish"],
)
def test_an_army_forge_book_imports_for_its_ruleset(db, name, system, expected):
    result = book_import(data=load(name), system=system)
    faction = result.faction
    assert (faction.ruleset.slug, faction.slug, faction.version, result.units, result.packages, result.options) == (
        expected
    )
    assert faction.armyforge_id == load(name)["uid"]


@pytest.mark.parametrize(
    ("name", "system"),
    [(AOF_BOOK, None), (REGIMENTS_BOOK, "aof-regiments"), (SKIRMISH_BOOK, None)],
    ids=["aof", "aof-regiments", "aof-skirmish"],
)
def test_units_costs_and_options_match_the_army_forge_book(db, name, system):
    data = load(name)
    faction = book_import(data=data, system=system).faction
    book, _ruleset = engine_book_get(system=faction.ruleset.slug, slug=faction.slug)

    assert [(u.id, u.name, u.size, u.cost, dict(u.stats)) for u in book.units.values()] == [
        (our_id(u["id"]), u["name"], u["size"], u["cost"], {"quality": u["quality"], "defense": u["defense"]})
        for u in data["units"]
    ]
    packages = {p["uid"]: p for p in data["upgradePackages"]}
    for af_unit in data["units"]:
        unit = book.units[our_id(af_unit["id"])]
        af_options = [
            option
            for uid in af_unit["upgrades"]
            for section in packages[uid]["sections"]
            for option in section["options"]
        ]
        assert list(unit.options) == [our_id(o["uid"]) for o in af_options]
        for af_option in af_options:
            per_unit = {c["unitId"]: c["cost"] for c in af_option.get("costs", [])}
            af_cost = per_unit.get(af_unit["id"], af_option.get("cost"))
            _section, option = unit.options[our_id(af_option["uid"])]
            assert option.cost_for(unit.id) == af_cost, (af_unit["name"], option.label)


def test_regiments_heroes_are_a_unit_type_and_names_map_to_the_rulesets_own(saltmarsh):
    book, _ruleset = engine_book_get(system="aof-regiments", slug="saltmarsh-levy")
    units = book.units
    assert [(u.name, u.type, [str(r) for r in u.rules]) for u in units.values()] == [
        ("Tide Captain", "hero", ["Tough(3)"]),
        ("Tide Sorcerer", "hero", ["Tough(3)", "Wizard(1)"]),
        ("Marsh Spears", "infantry", ["Phalanx", "Salt-Cured"]),
        ("Bog Crawler", "monster", ["Tough(6)", "Fear"]),
        ("Reed Bolt Thrower", "artillery", ["Tough(3)"]),
    ]
    banner = units["mS3"].options["rC1c"][1]
    assert (banner.command, [g.name for g in banner.gains]) == ("banner", ["Battle Standard"])
    assert [name for name in book.rules if name not in book.armyforge_core] == ["Salt-Cured"]  # its own


def test_skirmish_books_read_the_skirmish_spell_text_and_musician(db):
    book_import(data=load(SKIRMISH_BOOK))
    book, _ruleset = engine_book_get(system="aof-skirmish", slug="gloamwood-stalkers")
    assert book.spells == (
        ("Creeping Mist", 1, 'One friendly model within 12" counts as in cover this round.'),
        ("Thorn Volley", 2, 'One enemy unit within 18" takes 4 hits.'),
    )
    musician = book.units["sT2"].options["kC1b"][1]
    assert (musician.command, [g.name for g in musician.gains]) == ("musician", ["Musician / Battle Standard"])


def test_the_exported_book_carries_the_army_forge_id_and_imports_back_unchanged(emberfolk, staff_client):
    exported = staff_client.get("/api/factions/aof/emberfolk-marches/").json()
    assert exported == load(NATIVE_AOF_BOOK)
    before = row_counts()
    response = staff_client.post("/api/factions/import/", exported, format="json")
    assert response.status_code == 200, response.content
    assert {k: response.json()[k] for k in ("status", "version", "replaced_version")} == {
        "status": "unchanged",
        "version": "3.5.2",
        "replaced_version": None,
    }
    assert row_counts() == before
    assert staff_client.get("/api/factions/aof/emberfolk-marches/").json() == exported


def test_a_renamed_army_forge_book_replaces_the_faction_it_was_imported_as(emberfolk):
    book = load(AOF_BOOK)
    book["name"], book["versionString"] = "Emberfolk Holds", "3.6.0"
    result = book_import(data=book)
    assert (result.faction.pk, result.faction.slug, result.faction.name) == (
        emberfolk.pk,
        "emberfolk-marches",
        "Emberfolk Holds",
    )
    assert result.replaced_version == "3.5.2"
    assert Faction.objects.filter(armyforge_id=book["uid"]).count() == 1


def test_a_second_faction_may_not_claim_an_imported_army_forge_book(emberfolk):
    book = load(NATIVE_AOF_BOOK)
    book["slug"] = "emberfolk-copy"
    before = row_counts()
    with pytest.raises(ArmyBookError) as raised:
        book_import(data=book)
    assert [str(p) for p in raised.value.problems] == [
        'armyforge_id: Army Forge book "EmbrFlk0AoF3xQ7a" is already imported as aof/emberfolk-marches'
    ]
    assert row_counts() == before


def test_the_same_army_forge_book_may_be_imported_for_two_rulesets(db):
    book_import(data=load(REGIMENTS_BOOK), system="aof-regiments")
    book = load(REGIMENTS_BOOK)
    book["units"][3]["rules"][1]["rating"] = 1  # Fear takes a value in Age of Fantasy
    book_import(data=book, system="aof")
    assert sorted(Faction.objects.filter(armyforge_id="SaltMrshRgm6bK2p").values_list("ruleset__slug", "slug")) == [
        ("aof", "saltmarsh-levy"),
        ("aof-regiments", "saltmarsh-levy"),
    ]


def test_import_command_takes_the_ruleset_of_an_army_forge_book(db):
    out = io.StringIO()
    call_command("import_armybook", str(FIXTURES / REGIMENTS_BOOK), "--system", "aof-regiments", stdout=out)
    first = out.getvalue().splitlines()[0]
    assert first.endswith(
        "saltmarsh-regiments.json: imported, 0 warnings. "
        "Added Saltmarsh Levy (aof-regiments/saltmarsh-levy) 1.2.0: 5 units, 4 packages, 8 options"
    )


def test_import_command_asks_for_the_ruleset_of_a_book_enabled_for_several(db):
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 of 1 files not imported"):
        call_command("import_armybook", str(FIXTURES / REGIMENTS_BOOK), stdout=io.StringIO(), stderr=err)
    assert err.getvalue().splitlines()[1:] == [
        "  error: enabledGameSystems: the book is enabled for several rulesets (aof, aof-regiments): "
        "choose one (--system, or ?system=)"
    ]
    assert not Faction.objects.filter(armyforge_id="SaltMrshRgm6bK2p").exists()


def test_api_import_takes_the_ruleset_as_a_query_parameter(staff_client):
    body = load(REGIMENTS_BOOK)
    refused = staff_client.post("/api/factions/import/", body, format="json")
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["path"] == "enabledGameSystems"
    response = staff_client.post("/api/factions/import/?system=aof-regiments", body, format="json")
    assert response.status_code == 201, response.content
    assert {k: response.json()[k] for k in ("system", "slug", "version", "replaced_version")} == {
        "system": "aof-regiments",
        "slug": "saltmarsh-levy",
        "version": "1.2.0",
        "replaced_version": None,
    }


def test_an_armybook_for_another_ruleset_than_asked_is_refused(db):
    with pytest.raises(ArmyBookError, match='system: the book is for "aof", not "aof-regiments"'):
        book_import(data=load(NATIVE_AOF_BOOK), system="aof-regiments")


# (case, book, system asked for, mutation, path of the first problem, words in its message)
MALFORMED_BOOKS = [
    ("missing-quality", AOF_BOOK, None, set_at("units[1].quality", DELETE), "units[1].quality", "is required"),
    ("missing-units", AOF_BOOK, None, set_at("units", DELETE), "units", "is required"),
    ("missing-uid", AOF_BOOK, None, set_at("uid", DELETE), "uid", "is required"),
    (
        "not-an-aof-game-system",
        AOF_BOOK,
        None,
        set_at("gameSystemSlug", "grimdark-future"),
        "gameSystemSlug",
        'Army Forge game system "grimdark-future" is not one we build lists for',
    ),
    (
        "asked-for-another-ruleset",
        AOF_BOOK,
        "aof-skirmish",
        lambda book: None,
        "gameSystemSlug",
        'the book is for Army Forge game system "age-of-fantasy" (aof), not aof-skirmish',
    ),
    (
        "not-enabled-for-the-ruleset-asked",
        REGIMENTS_BOOK,
        "aof-skirmish",
        lambda book: None,
        "enabledGameSystems",
        "the book is not enabled for aof-skirmish (its Army Forge game systems: 4, 6)",
    ),
    (
        "no-game-system",
        AOF_BOOK,
        None,
        lambda book: [book.pop(k) for k in ("gameSystemSlug", "gameSystemId", "enabledGameSystems")],
        "enabledGameSystems",
        "the book names no Age of Fantasy game system",
    ),
    # Found by the armybook/1 checks after the conversion (paths in our shape, which
    # keeps Army Forge's order of units, packages, sections and options).
    (
        "unknown-package",
        AOF_BOOK,
        None,
        set_at("units[0].upgrades", ["pHero", "pNope"]),
        "units[0].upgrades[1]",
        'unknown package "pNope"',
    ),
    (
        "target-not-carried",
        AOF_BOOK,
        None,
        set_at("upgradePackages[2].sections[0].targets", ["Shields"]),
        "packages[2].sections[0].targets[0]",
        '"Shields" is not carried by any unit that takes package "pGuard"',
    ),
]


@pytest.mark.parametrize(
    ("name", "system", "mutate", "path", "words"),
    [case[1:] for case in MALFORMED_BOOKS],
    ids=[case[0] for case in MALFORMED_BOOKS],
)
def test_a_malformed_army_forge_book_is_refused_and_changes_nothing(emberfolk, name, system, mutate, path, words):
    book = load(name)
    mutate(book)
    before = row_counts()
    with pytest.raises(ArmyBookError) as raised:
        book_import(data=book, system=system)
    first = raised.value.problems[0]
    assert first.path == path
    assert words in first.message
    assert row_counts() == before


# What an official book may hold that we read with a warning rather than refuse: the book
# imports, and the warning names the path in the Army Forge document.
WARNED_BOOKS = [
    (
        "unknown-variant",
        set_at("upgradePackages[0].sections[1].variant", "upgradeRule"),
        "upgradePackages[0].sections[1].variant",
        "section \"Upgrade with one\" has variant 'upgradeRule', which is not read: the section is left out",
    ),
    (
        "unknown-gain-type",
        set_at("upgradePackages[0].sections[0].options[0].gains[0].type", "ArmyBookDefense"),
        "upgradePackages[0].sections[0].options[0].gains[0].type",
        "gain \"Ember Axe\" of type 'ArmyBookDefense' is not read: left out",
    ),
    (
        "unknown-count-type",
        set_at("upgradePackages[2].sections[1].select", {"type": "some", "value": 2}),
        "upgradePackages[2].sections[1].select",
        "cannot read {'type': 'some', 'value': 2} as a count: read as absent",
    ),
    (
        "label-not-as-read",
        set_at("units[3].weapons[0].label", "Molten Maw (A8, AP(2))"),
        "units[3].weapons[0].label",
        'Army Forge labels weapon "Molten Maw" "Molten Maw (A8, AP(2))"; it reads here as "Molten Maw (A4, AP(2))"',
    ),
    (
        "field-not-known",
        set_at("units[3].weapons[0].attacksBonus", 2),
        "units[3].weapons[0].attacksBonus",
        'Army Forge gives weapons a field "attacksBonus", which the importer does not know: it is left out',
    ),
    (
        "rule-not-described",
        set_at("units[1].rules[0].name", "Berserk"),
        "units[1].rules[0]",
        '"Berserk" is not described by this book: no core rules of Army Forge\'s are held for aof to explain it',
    ),
    (
        "section-without-options",
        set_at("upgradePackages[3].sections[0].options", []),
        "upgradePackages[3].sections[0].options",
        "has no options: the section is left out",
    ),
    (
        "switched-off-section-that-is-not-there",
        set_at("units[0].disabledSections", ["nope"]),
        "units[0].disabledSections[0]",
        "switches off upgrade section 'nope', which is not in any of its packages: ignored",
    ),
]


@pytest.mark.parametrize(("mutate", "path", "words"), [c[1:] for c in WARNED_BOOKS], ids=[c[0] for c in WARNED_BOOKS])
def test_what_cannot_be_read_is_imported_with_a_warning(db, mutate, path, words):
    book = load(AOF_BOOK)
    mutate(book)
    result = book_import(data=book)
    found = [w for w in result.warnings if w.path == path]
    assert found and words in found[0].message, [str(w) for w in result.warnings]
    assert any(words in w for w in Faction.objects.get(pk=result.faction.pk).import_warnings)


def test_every_problem_of_a_book_is_reported_at_once(db):
    book = load(AOF_BOOK)
    set_at("units[1].quality", DELETE)(book)  # found reading the Army Forge book
    set_at("units[0].upgrades", ["pHero", "pNope"])(book)  # found by the armybook/1 checks
    set_at("upgradePackages[2].sections[0].targets", ["Shields"])(book)
    with pytest.raises(ArmyBookError) as raised:
        book_import(data=book)
    assert [(p.path, p.message) for p in raised.value.problems] == [
        ("units[1].quality", "is required"),
        ("units[0].upgrades[1]", 'unknown package "pNope"'),
        (
            "packages[2].sections[0].targets[0]",
            '"Shields" is not carried by any unit that takes package "pGuard" nor gained from any option',
        ),
    ]
    assert [w.path for w in raised.value.warnings] == ["specialRules[1].description"]


def test_a_section_switched_off_for_a_unit_is_not_offered_to_it(db):
    book = load(AOF_BOOK)
    set_at("units[0].disabledSections", ["sHr3"])(book)
    faction = book_import(data=book).faction
    engine_book, _ruleset = engine_book_get(system="aof", slug=faction.slug)
    assert [s.id for s in engine_book.units["hEw01"].sections] == ["sHr1", "sHr2"]
    exported = next(u for u in faction_book_of(faction)["units"] if u["id"] == "hEw01")
    assert exported["upgrades"] == [{"package": "pHero", "without": ["sHr3"]}]


# -- list files ----------------------------------------------------------------------------
EXPECTED_ENTRIES = {
    AOF_LIST: [
        {
            "id": "s1Hero",
            "unit": "hEw01",
            "options": {"oHr2a": 1},
            "combined": False,
            "joined_to": "s2Guard",  # Army Forge names the second half of the combined unit
            "name": "Warden Brannoc",
        },
        {
            "id": "s2Guard",
            "unit": "af._cG9x",
            "options": {"oCmdSgt": 1, "oGd1a": 1, "oGd2a": 2},
            "combined": True,
            "joined_to": None,
            "name": None,
        },
        {
            "id": "s4Riders",
            "unit": "aR7k",
            "options": {"oCmdMus": 1},
            "combined": False,
            "joined_to": None,
            "name": None,
        },
        {"id": "s5Wyrm", "unit": "sW3m", "options": {"oWy1a": 1}, "combined": False, "joined_to": None, "name": None},
    ],
    REGIMENTS_LIST: [
        {"id": "rA", "unit": "tC1", "options": {"rH1a": 1}, "combined": False, "joined_to": "rB", "name": None},
        {
            "id": "rB",
            "unit": "mS3",
            "options": {"rC1a": 1, "rS1a": 1},
            "combined": True,
            "joined_to": None,
            "name": None,
        },
        {"id": "rD", "unit": "bC4", "options": {"rB1a": 1}, "combined": False, "joined_to": None, "name": None},
        {"id": "rE", "unit": "rB5", "options": {}, "combined": False, "joined_to": None, "name": "Old Reliable"},
    ],
}


@pytest.mark.parametrize(
    ("list_file", "system", "faction", "limit"),
    [(AOF_LIST, "aof", "emberfolk-marches", 1000), (REGIMENTS_LIST, "aof-regiments", "saltmarsh-levy", 750)],
    ids=["aof", "aof-regiments"],
)
def test_an_army_forge_list_file_imports_with_its_units_picks_and_points(
    emberfolk, saltmarsh, player, list_file, system, faction, limit
):
    data = load(list_file)
    response = player.post("/api/lists/import/", data, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert {k: body[k] for k in ("name", "system", "faction", "points_limit", "force_org", "notes")} == {
        "name": data["list"]["name"],
        "system": system,
        "faction": faction,
        "points_limit": limit,
        "force_org": True,
        "notes": "",
    }
    assert body["entries"] == EXPECTED_ENTRIES[list_file]
    validation = body["validation"]
    assert (validation["valid"], validation["total_points"], validation["issues"]) == (True, data["listPoints"], [])


def test_an_army_forge_list_file_uploads_as_a_file(emberfolk, player):
    upload = io.BytesIO((FIXTURES / AOF_LIST).read_bytes())
    upload.name = "forge-watch.json"
    response = player.post("/api/lists/import/", {"file": upload}, format="multipart")
    assert response.status_code == 201, response.content
    assert response.json()["entries"] == EXPECTED_ENTRIES[AOF_LIST]


def test_an_imported_list_marks_combined_and_joined_units_in_the_text_export(emberfolk, player):
    created = player.post("/api/lists/import/", load(AOF_LIST), format="json").json()
    text = player.get(f"/api/lists/{created['id']}/export/text").content.decode().splitlines()
    assert text[0] == "++ Forge Watch [Age of Fantasy 3.2.0, Emberfolk Marches] 785/1000 pts ++"
    assert text[1] == (
        "1x Warden Brannoc (Ember Warden) [1] Q4+ D4+ | 80 pts | Hero, Tough(3), Caster(1), Fast, Impact(1) "
        "| joined to Cinder Guard"
    )
    # The Sergeant is one model of the twenty: said so, as the card says it.
    assert text[4] == "1x Cinder Guard [20], combined Q4+ D5+ | 305 pts | Kindled | 1 model: Sergeant"
    assert text[-1] == "++ 4 units, 27 models | valid ++"


def _variants(entries: list[dict]) -> dict[str, tuple[int, list[dict]]]:
    """The imported list and some ways of breaking it: (points limit, entries)."""
    hero = entries[0]
    return {
        "as-imported": (1000, entries),
        "over-the-limit": (500, entries),
        "too-many-heroes": (1000, [*entries, {**hero, "id": "h2", "joined_to": None}, {**hero, "id": "h3"}]),
        "two-mounts": (1000, [{**hero, "options": {"oHr2a": 1, "oHr2b": 1}}, *entries[1:]]),
        "option-of-another-unit": (1000, [*entries[:2], {**entries[2], "options": {"oGd1a": 1}}, entries[3]]),
        "hero-joins-a-monster": (1000, [{**hero, "joined_to": "s5Wyrm"}, *entries[1:]]),
        "wyrm-combined": (1000, [*entries[:3], {**entries[3], "combined": True}]),
    }


def test_lists_on_an_army_forge_book_validate_like_on_the_native_book(emberfolk, emberfolk_native, client):
    entries = EXPECTED_ENTRIES[AOF_LIST]
    for case, (limit, variant) in _variants(entries).items():
        body = {"format": "armylist/1", "name": case, "system": "aof", "points_limit": limit, "entries": variant}
        on_forge = client.post("/api/validate/", {**body, "faction": "emberfolk-marches"}, "application/json")
        native = client.post("/api/validate/", {**body, "faction": "emberfolk-native"}, "application/json")
        assert on_forge.status_code == native.status_code == 200, case
        assert on_forge.json() == native.json(), case
        codes = [issue["code"] for issue in native.json()["issues"]]
        assert bool(codes) == (case != "as-imported"), (case, codes)


def test_a_list_whose_army_book_is_not_imported_says_which_book_to_import(emberfolk, player):
    response = player.post("/api/lists/import/", load(REGIMENTS_LIST), format="json")
    assert response.status_code == 400
    assert response.json() == {
        "armyId": [
            'The Army Forge army book "SaltMrshRgm6bK2p" ("Saltmarsh Levy") is not in the catalogue for '
            "aof-regiments: import it first (POST /api/factions/import/?system=aof-regiments, or "
            "manage.py import_armybook --system aof-regiments FILE)."
        ]
    }
    assert ArmyList.objects.count() == 0


# (case, mutation of the AoF list file, the 400's field errors)
MALFORMED_LISTS = [
    (
        "unknown-option",
        set_at("list.units[1].selectedUpgrades[0].optionId", "oNope"),
        {
            "list": {
                "units": {
                    "1": {
                        "selectedUpgrades": {
                            "0": {
                                "optionId": ['Cinder Guard has no upgrade option "oNope" in Emberfolk Marches 3.5.2.']
                            }
                        }
                    }
                }
            }
        },
    ),
    (
        "option-of-another-unit",
        set_at("list.units[3].selectedUpgrades[0].optionId", "oGd1a"),
        {
            "list": {
                "units": {
                    "3": {
                        "selectedUpgrades": {
                            "0": {"optionId": ['Ash Riders has no upgrade option "oGd1a" in Emberfolk Marches 3.5.2.']}
                        }
                    }
                }
            }
        },
    ),
    (
        "unknown-unit",
        set_at("list.units[4].id", "ghost"),
        {"list": {"units": {"4": {"id": ['No unit "ghost" in Emberfolk Marches.']}}}},
    ),
    (
        "missing-selection-id",
        set_at("list.units[0].selectionId", DELETE),
        {"list": {"units": {"0": {"selectionId": ["This field is required."]}}}},
    ),
    (
        "selection-id-twice",
        set_at("list.units[4].selectionId", "s4Riders"),
        {"list": {"units": {"4": {"selectionId": ['Selection id "s4Riders" is used twice.']}}}},
    ),
    (
        "joined-to-nothing",
        set_at("list.units[0].joinToUnit", "s9Gone"),
        {"list": {"units": {"0": {"joinToUnit": ['No unit with selection id "s9Gone" in the list.']}}}},
    ),
    (
        "halves-differ",
        set_at("list.units[2].selectedUpgrades", []),
        {
            "list": {
                "units": {
                    "1": {
                        "combined": [
                            'The two halves of combined Cinder Guard differ in "Replace all Spears" '
                            "(Halberds (A1, AP(1))); here a whole-unit upgrade is bought for both halves."
                        ]
                    }
                }
            }
        },
    ),
    (
        "wrong-game-system",
        set_at("gameSystem", "gf"),
        {
            "gameSystem": [
                'This is a list of Grimdark Future (Army Forge game system "gf"); the site builds lists of Age of '
                "Fantasy, Age of Fantasy: Skirmish and Age of Fantasy: Regiments (Army Forge's aof, aofs and aofr)."
            ]
        },
    ),
    (
        "other-save-version",
        set_at("saveVersion", 2),
        {"saveVersion": ["Army Forge files with saveVersion 3 can be imported, not 2."]},
    ),
    ("no-units", set_at("list.units", []), {"list": {"units": ["An Army Forge list needs its units."]}}),
    (
        "two-army-books",
        set_at("list.units[4].armyId", "OtherBook000001"),
        {
            "armyId": [
                'The list uses units of 2 Army Forge army books (Emberfolk Marches "EmbrFlk0AoF3xQ7a", '
                '"OtherBook000001"); a list here is of one army book: make one list per book, or keep one '
                "book's units in Army Forge and share that list."
            ]
        },
    ),
]


@pytest.mark.parametrize(
    ("mutate", "errors"), [case[1:] for case in MALFORMED_LISTS], ids=[case[0] for case in MALFORMED_LISTS]
)
def test_a_malformed_army_forge_list_file_is_refused_and_saves_nothing(emberfolk, player, mutate, errors):
    data = copy.deepcopy(load(AOF_LIST))
    mutate(data)
    before = row_counts()
    response = player.post("/api/lists/import/", data, format="json")
    assert response.status_code == 400
    assert response.json() == errors
    assert row_counts() == before


def test_a_list_file_with_no_points_limit_gets_the_rulesets_default(emberfolk, player):
    data = load(AOF_LIST)
    del data["list"]["pointsLimit"]
    body = player.post("/api/lists/import/", data, format="json").json()
    assert (body["points_limit"], body["notes"]) == (1500, "The Army Forge file had no points limit; set to 1500 pts.")


def faction_book_of(faction):
    return faction_document(faction=faction)


# -- the constructs of the official books, on our own small books --------------------------------
def converted(book: dict[str, Any], system: str | None = None):
    return armyforge_book_read(book, system=system)


def section_of(book: dict[str, Any], section_id: str) -> dict[str, Any]:
    return next(s for p in book["packages"] for s in p["sections"] if s["id"] == section_id)


def unit_of(book: dict[str, Any], unit_id: str) -> dict[str, Any]:
    return next(u for u in book["units"] if u["id"] == unit_id)


def test_a_rule_the_book_names_without_describing_is_a_core_rule_without_a_text_until_army_forges_are_held(db):
    book = load(AOF_BOOK)
    weapon_rules = book["units"][0]["weapons"][0]["specialRules"]
    weapon_rules += [{"type": "ArmyBookRule", "name": "Thrust"}, {"type": "ArmyBookRule", "name": "Bane"}]
    book["specialRules"].append({"name": "Bane", "hasRating": False, "description": "Our words: rerolls defense."})
    result = converted(book)
    rules = {r["name"]: r for r in result.book["rules"]}
    assert rules["Bane"] == {"name": "Bane", "rated": False, "text": "Our words: rerolls defense."}  # the book's own
    assert rules["Thrust"] == {"name": "Thrust", "rated": False, "text": "", "core": True}
    assert "armyforge_rules" not in result.book
    assert [str(w) for w in result.warnings if '"Thrust" is' in w.message] == [
        'units[0].weapons[0].specialRules[0]: "Thrust" is not described by this book: no core rules of Army '
        "Forge's are held for aof to explain it (sync_armyforge reads them); it is shown without a text until a "
        "book read with them"
    ]
    assert not [w for w in result.warnings if '"Bane"' in w.message]


def test_skirmish_counter_and_reliable_are_newer_rules_there_but_core_in_age_of_fantasy(db):
    book = load(SKIRMISH_BOOK)
    book["units"][1]["weapons"][0]["specialRules"] = [{"type": "ArmyBookRule", "name": "Counter"}]
    skirmish = converted(book)
    assert {r["name"] for r in skirmish.book["rules"]} >= {"Counter"}
    aof = copy.deepcopy(load(AOF_BOOK))
    aof["units"][1]["weapons"][0]["specialRules"] = [{"type": "ArmyBookRule", "name": "Counter"}]
    counter = [r for r in converted(aof).book["rules"] if r["name"] == "Counter"]
    assert all(r.get("core") for r in counter)  # core in Age of Fantasy 3.2.0: never the book's own


def test_a_rated_fear_overrides_the_unrated_core_fear_of_skirmish(db):
    book = load(SKIRMISH_BOOK)
    book["units"][2]["rules"] = [r if r["name"] != "Fear" else {**r, "rating": 2} for r in book["units"][2]["rules"]]
    book["specialRules"].append({"name": "Fear", "hasRating": True, "description": "Our words: rated fear."})
    result = book_import(data=book)
    rules = {r["name"]: (r["rated"], r["text"]) for r in faction_document(faction=result.faction)["rules"]}
    assert rules["Fear"] == (True, "Our words: rated fear.")
    assert (
        '"Fear" is a core rule of aof-skirmish; the core rules this book is written for use it with a value, '
        "which is used for this faction" in "\n".join(str(w) for w in result.warnings)
    )
    engine_book, _ruleset = engine_book_get(system="aof-skirmish", slug=result.faction.slug)
    assert "Fear(2)" in [str(r) for r in engine_book.units["tB3"].rules]


def test_switched_off_sections_are_left_out_and_unknown_ids_ignored_with_a_warning(db):
    book = load(AOF_BOOK)
    book["units"][1]["disabledSections"] = ["sGd2", "nothing-here"]
    result = converted(book)
    assert unit_of(result.book, "af._cG9x")["upgrades"] == ["cmdGrp", {"package": "pGuard", "without": ["sGd2"]}]
    assert [str(w) for w in result.warnings if "disabledSections" in w.path] == [
        "units[1].disabledSections[1]: Cinder Guard switches off upgrade section 'nothing-here', which is not in any "
        "of its packages: ignored"
    ]


def test_a_stale_top_level_cost_is_ignored_when_every_unit_has_its_own(db):
    book = load(AOF_BOOK)
    option = book["upgradePackages"][1]["sections"][0]["options"][0]  # Sergeant, costs for both units
    option["cost"] = -5
    converted_option = converted(book).book["packages"][1]["sections"][0]["options"][0]
    assert (converted_option["cost"], converted_option.get("costs")) == (5, None)


def test_targets_with_counts_and_counts_written_as_text(db):
    book = load(AOF_BOOK)
    hero = book["units"][0]
    hero["weapons"][0]["count"] = 2
    section = book["upgradePackages"][0]["sections"][0]
    section["targets"] = ["2x Hand Weapon"]
    section["options"][0]["gains"][0]["count"] = "02"
    result = converted(book)
    ours = section_of(result.book, "sHr1")
    assert ours["targets"] == [{"name": "Hand Weapon", "count": 2}]
    assert ours["options"][0]["gains"][0]["count"] == 2
    book_import(data=book)
    engine_book, ruleset = engine_book_get(system="aof", slug="emberfolk-marches")
    from armybuilder.engine import list_from_dict, validate_list

    army = list_from_dict(
        {
            "system": "aof",
            "faction": "emberfolk-marches",
            "points_limit": 1000,
            "entries": [{"id": "h", "unit": "hEw01", "options": {"oHr1a": 1}}],
        }
    )
    result = validate_list(engine_book, ruleset, army)
    assert result.valid and [(w.name, w.count) for w in result.entries[0].loadout.weapons] == [("Ember Axe", 2)]


def test_a_starting_mount_is_an_item_a_section_can_replace(db):
    book = load(AOF_BOOK)
    book["upgradePackages"].append(
        {
            "uid": "pRide",
            "sections": [
                {
                    "uid": "sRide",
                    "label": "Replace Ash Steed",
                    "variant": "replace",
                    "targets": ["Ash Steed"],
                    "options": [
                        {
                            "uid": "oRide",
                            "label": "Cinder Drake (Flying)",
                            "cost": 10,
                            "gains": [
                                {
                                    "type": "ArmyBookItem",
                                    "name": "Cinder Drake",
                                    "content": [{"type": "ArmyBookRule", "name": "Flying"}],
                                }
                            ],
                        }
                    ],
                }
            ],
        }
    )
    book["units"][2]["upgrades"].append("pRide")
    result = converted(book)
    assert unit_of(result.book, "aR7k")["items"] == [{"name": "Ash Steed", "rules": ["Fast", "Impact(1)"], "count": 5}]
    assert section_of(result.book, "sRide")["affects"] == {"type": "exactly", "value": 1}
    book_import(data=book)
    engine_book, ruleset = engine_book_get(system="aof", slug="emberfolk-marches")
    unit = engine_book.units["aR7k"]
    assert unit.items[0].name == "Ash Steed" and unit.sections[-1].targets[0].name == "Ash Steed"


def test_an_upgrade_section_with_targets_is_an_attachment(db):
    book = load(AOF_BOOK)
    book["upgradePackages"][2]["sections"].append(
        {
            "uid": "sGd3",
            "label": "Upgrade all Slings with one",
            "variant": "upgrade",
            "affects": {"type": "all"},
            "select": {"type": "exactly", "value": 1},
            "targets": ["Slings"],
            "options": [
                {
                    "uid": "oGd3a",
                    "label": "Hot Shot (AP(1))",
                    "cost": 10,
                    "gains": [
                        {
                            "type": "ArmyBookItem",
                            "name": "Hot Shot",
                            "content": [{"type": "ArmyBookRule", "name": "AP", "rating": 1}],
                        }
                    ],
                }
            ],
        }
    )
    ours = section_of(converted(book).book, "sGd3")
    assert {k: ours[k] for k in ("variant", "targets", "affects", "select", "optional")} == {
        "variant": "attachment",
        "targets": ["Sling"],
        "affects": {"type": "all"},
        "select": {"type": "exactly", "value": 1},
        "optional": True,
    }


def test_a_rated_rule_given_without_its_rating_imports_with_a_warning(db):
    book = load(AOF_BOOK)
    book["units"][3]["rules"].append({"name": "Impact", "type": "ArmyBookRule"})  # Impact takes a value
    result = book_import(data=book)
    assert "units[3].rules[" in "\n".join(str(w) for w in result.warnings)
    assert any('rule "Impact" takes a value, but "Impact" gives none' in w.message for w in result.warnings)


@pytest.mark.parametrize(
    ("label", "affects", "select", "options", "expected"),
    [
        ("Replace Hand Weapon", None, None, 2, {"affects": {"type": "exactly", "value": 1}}),
        ("Replace any Hand Weapon", {"type": "any"}, None, 2, {"affects": {"type": "any"}}),
        ("Upgrade with", None, None, 2, {"select": {"type": "up to", "value": 1, "per": "option"}}),
        ("Upgrade with any", None, {"type": "any"}, 2, {"select": {"type": "up to", "value": 1, "per": "option"}}),
        ("Upgrade with", None, None, 1, {}),
        (
            "Upgrade with one",
            None,
            {"type": "exactly", "value": 1},
            2,
            {"select": {"type": "exactly", "value": 1}, "optional": True},
        ),
        (
            "Upgrade up to three models with one",
            {"type": "up to", "value": 3},
            {"type": "exactly", "value": 1},
            3,
            {
                "affects": {"type": "up to", "value": 3},
                "select": {"type": "exactly", "value": 1, "per": "model"},
                "optional": True,
            },
        ),
        (
            "Upgrade one model with",
            {"type": "exactly", "value": 1},
            None,
            2,
            {"affects": {"type": "exactly", "value": 1}, "select": {"type": "up to", "value": 1, "per": "option"}},
        ),
        (
            "Upgrade all models with any",
            {"type": "all"},
            {"type": "any"},
            2,
            {"affects": {"type": "all"}, "select": {"type": "up to", "value": 1, "per": "option"}},
        ),
    ],
)
def test_sections_allow_what_their_words_say(label, affects, select, options, expected):
    from armybuilder.armyforge.books.packages import limits as _limits

    variant = "replace" if label.startswith("Replace") else "upgrade"
    assert _limits(variant, affects, select, options) == expected


def test_a_core_rule_with_a_value_that_is_not_a_number_is_shown_without_it(db):
    book = load(AOF_BOOK)
    book["units"][3]["rules"].append({"name": "Impact", "type": "ArmyBookRule", "rating": "X"})
    result = book_import(data=book)
    assert any(
        w.message == "\"Impact\" has the value 'X', which is not a number: shown without it" for w in result.warnings
    )
