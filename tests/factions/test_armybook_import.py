"""Importing army books: good books land whole, bad books name the problem and change nothing."""

import json
from collections.abc import Callable
from io import StringIO

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command

from armybuilder.armyforge.books.imports import book_import
from factions.armybook import ArmyBookError
from factions.models import Faction
from factions.selectors import faction_document
from tests.conftest import book_option, part
from tests.support.mutations import DELETE, set_at

ARENA_STATS = {"move": 3, "rush": 5, "evasion": 3, "toughness": 3, "stamina": 4, "health": 6}


def row_counts() -> dict[str, int]:
    return {m.__name__: m.objects.count() for m in apps.get_app_config("factions").get_models()}


def _arena(mutate: Callable) -> Callable:
    def wrapped(book):
        book.clear()
        from tests.conftest import arena_book

        book.update(arena_book())
        mutate(book)

    return wrapped


def _both(*mutations: Callable) -> Callable:
    def mutate(book):
        for m in mutations:
            m(book)

    return mutate


# (case id, mutation of a valid AoF book, path of the first problem, words in its message)
MALFORMED = [
    ("wrong-format", set_at("format", "armybook/2"), "format", "armybook/1"),
    ("unknown-system", set_at("system", "warhammer"), "system", "unknown system"),
    ("missing-name", set_at("name", DELETE), "", "'name' is a required property"),
    ("missing-unit-cost", set_at("units[1].cost", DELETE), "units[1]", "'cost' is a required property"),
    ("extra-top-level-key", set_at("colour", "red"), "", "'colour' was unexpected"),
    ("extra-unit-key", set_at("units[1].points", 5), "units[1]", "'points' was unexpected"),
    ("cost-wrong-type", set_at("units[0].cost", "seventy"), "units[0].cost", "is not of type 'integer'"),
    ("size-zero", set_at("units[1].size", 0), "units[1].size", "less than the minimum"),
    ("negative-unit-cost", set_at("units[0].cost", -5), "units[0].cost", "less than the minimum of 0"),
    (
        "option-cost-wrong-type",
        set_at("packages[0].sections[0].options[0].cost", "5"),
        "packages[0].sections[0].options[0].cost",
        "is not of type 'integer'",
    ),
    ("bad-version", set_at("version", "one"), "version", "does not match"),
    ("bad-rule-string", set_at("units[1].rules", ["AP((1)"]), "units[1].rules[0]", "does not match"),
    ("core-rule-with-text", set_at("units[1].rules", ["AP(one)"]), "units[1].rules[0]", "takes a number"),
    ("bad-attacks", set_at("units[1].equipment[0].attacks", "lots"), "units[1].equipment[0].attacks", "lots"),
    (
        "unknown-package",
        set_at("units[1].upgrades", ["TROOPS", "Z"]),
        "units[1].upgrades[1]",
        'unknown package "Z"',
    ),
    (
        "unknown-rule",
        set_at("units[1].rules", ["Shield Wall"]),
        "units[1].rules[0]",
        'unknown rule "Shield Wall"',
    ),
    (
        "unrated-rule-with-value",
        set_at("units[1].rules", ["Fearless(2)"]),
        "units[1].rules[0]",
        "takes no value",
    ),
    (
        "unknown-rule-in-gain",
        set_at("packages[1].sections[0].options[0].gains[0].name", "Drummer"),
        "packages[1].sections[0].options[0].gains[0].name",
        'unknown rule "Drummer"',
    ),
    (
        "duplicate-option-id",
        set_at("packages[1].sections[0].options[1].id", "TROOPS-1a"),
        "packages[1].sections[0].options[1].id",
        'duplicate option id "TROOPS-1a"',
    ),
    (
        "duplicate-unit-id",
        set_at("units[1].id", "warden-captain"),
        "units[1].id",
        'duplicate unit id "warden-captain"',
    ),
    (
        "duplicate-section-id",
        set_at("packages[1].sections[1].id", "HERO-1"),
        "packages[1].sections[1].id",
        'duplicate section id "HERO-1"',
    ),
    (
        "replace-without-targets",
        set_at("packages[0].sections[0].targets", DELETE),
        "packages[0].sections[0].targets",
        "a replace section needs targets",
    ),
    (
        "replace-target-not-carried",
        set_at("packages[0].sections[0].targets", ["Longbow"]),
        "packages[0].sections[0].targets[0]",
        '"Longbow" is not carried',
    ),
    (
        "targets-on-upgrade-section",
        set_at("packages[0].sections[1].targets", ["Hand Weapon"]),
        "packages[0].sections[1].targets",
        "an upgrade section has no targets",
    ),
    (
        "arena-stats-on-aof-book",
        set_at("units[0].stats", ARENA_STATS),
        "units[0].stats",
        "aof units have the stats quality, defense",
    ),
    ("missing-stat", set_at("units[1].stats", {"quality": 4}), "units[1].stats", "missing defense"),
    ("stat-out-of-range", set_at("units[1].stats.quality", 7), "units[1].stats.quality", "maximum of 6"),
    (
        "unit-type-not-in-ruleset",
        set_at("units[1].type", "ordnance"),
        "units[1].type",
        '"ordnance" is not used in aof',
    ),
    (
        "hero-without-hero-rule",
        set_at("units[0].rules", ["Tough(3)"]),
        "units[0].rules",
        "must carry the Hero rule",
    ),
    (
        "cost-override-for-unknown-unit",
        set_at("packages[1].sections[1].options[0].costs", {"ghosts": 5}),
        "packages[1].sections[1].options[0].costs.ghosts",
        'unknown unit "ghosts"',
    ),
    (
        "cost-override-for-unit-without-package",
        set_at("packages[1].sections[1].options[0].costs", {"warden-captain": 5}),
        "packages[1].sections[1].options[0].costs.warden-captain",
        "does not take this package",
    ),
    (
        "composition-on-aof-book",
        set_at(
            "composition",
            {
                "models": {"min": 1, "max": 2},
                "groups": [{"label": "A", "units": ["wardens"], "min": 0, "max": 1}],
            },
        ),
        "composition",
        "only Arena books",
    ),
    (
        "opf-field-on-aof-weapon",
        set_at("units[1].equipment[0].weapon_type", "spear"),
        "units[1].equipment[0].weapon_type",
        "not a weapon field in aof",
    ),
    (
        "model-gain-outside-models-section",
        set_at(
            "packages[0].sections[1].options[0].gains",
            [{"kind": "model", "name": "Squire", "equipment": [], "rules": []}],
        ),
        "packages[0].sections[1].options[0].gains[0].kind",
        'only a "models" section can gain a model',
    ),
    (
        "arena-book-without-composition",
        _arena(set_at("composition", DELETE)),
        "composition",
        "needs its warband composition card",
    ),
    (
        "arena-composition-unknown-unit",
        _arena(set_at("composition.groups[1].units", ["ghoul"])),
        "composition.groups[1].units[0]",
        'unknown unit "ghoul"',
    ),
    (
        "arena-weapon-with-attacks",
        _arena(set_at("units[1].equipment[0].attacks", 2)),
        "units[1].equipment[0].attacks",
        "no attacks",
    ),
    ("arena-model-with-points", _arena(set_at("units[1].cost", 15)), "units[1].cost", "no points cost"),
    (
        "aof-stats-on-arena-book",
        _arena(set_at("units[1].stats", {"quality": 4, "defense": 4})),
        "units[1].stats",
        "aof-arena units have the stats move",
    ),
    (
        "arena-group-min-above-max",
        _arena(_both(set_at("composition.groups[1].min", 5), set_at("composition.groups[1].max", 2))),
        "composition.groups[1]",
        "min 5 is greater than max 2",
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("mutate", "path", "words"), [c[1:] for c in MALFORMED], ids=[c[0] for c in MALFORMED])
def test_malformed_book_names_the_path_and_changes_nothing(make_aof_book, mutate, path, words):
    book_import(data=make_aof_book())  # an existing book must survive a bad re-import
    book = make_aof_book()
    mutate(book)
    before = row_counts()

    with pytest.raises(ArmyBookError) as caught:
        book_import(data=book)

    first = caught.value.problems[0]
    assert first.path == path, caught.value.problems
    assert words in first.message
    assert row_counts() == before


def test_there_are_at_least_twenty_malformed_cases():
    assert len(MALFORMED) >= 20


@pytest.mark.django_db
@pytest.mark.parametrize("raw", [b'{"format": "armybook/1", ', b"\xff\xfe", b"[1, 2", b""])
def test_bad_json_is_reported_and_changes_nothing(raw):
    before = row_counts()
    with pytest.raises(ArmyBookError) as caught:
        book_import(data=raw)
    assert caught.value.problems[0].path == ""
    assert "not valid JSON" in caught.value.problems[0].message
    assert row_counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize("document", [[], 42, None, True])
def test_a_document_that_is_not_an_object_is_refused(document):
    with pytest.raises(ArmyBookError) as caught:
        book_import(data=document)
    assert "is not of type 'object'" in caught.value.problems[0].message


@pytest.mark.django_db
def test_every_problem_is_reported_not_just_the_first(make_aof_book):
    book = make_aof_book()
    book["units"][1]["upgrades"] = ["TROOPS", "NOPE"]
    book["units"][2]["rules"] = ["Made Up"]
    with pytest.raises(ArmyBookError) as caught:
        book_import(data=book)
    paths = [p.path for p in caught.value.problems]
    assert paths == ["units[1].upgrades[1]", "units[2].rules[0]"]
    assert "and 1 more problems" in str(caught.value)


@pytest.mark.django_db
def test_a_good_book_is_stored_whole(make_aof_book):
    result = book_import(data=make_aof_book())

    faction = Faction.objects.get(ruleset__slug="aof", slug="test-wardens")
    assert result.faction == faction and result.replaced_version is None
    document = faction_document(faction=faction)
    assert [unit["id"] for unit in document["units"]] == ["warden-captain", "wardens", "wardens-0"]
    assert sum(len(unit["equipment"]) for unit in document["units"]) == 1 + 2 + 2
    halberds = book_option(document, "TROOPS-2a")
    assert (halberds["cost"], halberds["costs"]) == (10, {"wardens": 15})
    assert part(document["units"], "id", "wardens")["upgrades"] == ["TROOPS"]
    assert document == make_aof_book()


@pytest.mark.django_db
def test_reimporting_the_same_slug_replaces_the_book(make_aof_book):
    first = book_import(data=make_aof_book(units=5))
    book = make_aof_book(units=2)
    book["version"] = "1.1.0"
    book["units"][1]["cost"] = 95

    second = book_import(data=book)

    assert second.faction.pk == first.faction.pk
    assert second.replaced_version == "1.0.0"
    assert Faction.objects.filter(slug="test-wardens").count() == 1
    assert [(unit["id"], unit["cost"]) for unit in faction_document(faction=second.faction)["units"]] == [
        ("warden-captain", 70),
        ("wardens", 95),
    ]
    assert Faction.objects.get(pk=first.faction.pk).version == "1.1.0"


@pytest.mark.django_db
def test_same_slug_in_another_ruleset_is_another_faction(make_aof_book, make_arena_book):
    book_import(data=make_aof_book())
    book = make_arena_book()
    book["slug"] = "test-wardens"
    book_import(data=book)
    assert Faction.objects.filter(slug="test-wardens").count() == 2


@pytest.mark.django_db
def test_dry_run_writes_nothing(make_aof_book):
    before = row_counts()
    result = book_import(data=make_aof_book(), dry_run=True)
    assert result.units == 3
    assert row_counts() == before


@pytest.mark.django_db
def test_import_command_reports_what_it_did(tmp_path, make_aof_book):
    path = tmp_path / "wardens.json"
    path.write_text(json.dumps(make_aof_book()))
    out = StringIO()
    call_command("import_armybook", str(path), stdout=out)
    assert "Added Test Wardens (aof/test-wardens) 1.0.0: 3 units, 2 packages, 5 options" in out.getvalue()


@pytest.mark.django_db
def test_import_command_names_every_problem_and_fails(tmp_path, make_aof_book):
    book = make_aof_book()
    book["units"][1]["upgrades"] = ["Z"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(book))
    err = StringIO()
    with pytest.raises(CommandError, match="1 of 1 files not imported"):
        call_command("import_armybook", str(path), stderr=err)
    assert 'units[1].upgrades[0]: unknown package "Z"' in err.getvalue()
    assert not Faction.objects.filter(slug="test-wardens").exists()


@pytest.mark.django_db
def test_import_command_reports_a_missing_file(tmp_path):
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_armybook", str(tmp_path / "nope.json"), stderr=err)
    assert "cannot read" in err.getvalue()


@pytest.mark.django_db
def test_a_field_the_schema_takes_is_kept_and_given_back_with_nothing_else_changed(make_aof_book, monkeypatch, client):
    """A book is kept as its document: a new option field needs the schema to take it (and
    the engine or a page to read it), not a column, a writer or an export of its own."""
    from factions import armybook

    schema = json.loads(armybook.SCHEMA_PATH.read_text())
    schema["$defs"]["option"]["properties"]["note"] = {"type": "string", "maxLength": 200}
    monkeypatch.setattr(armybook, "_validator", lambda: armybook._BookValidator(schema))
    book = make_aof_book()
    book_option(book, "TROOPS-2a")["note"] = "Only with the banner."
    book_import(data=book)
    faction = Faction.objects.get(slug="test-wardens")
    assert book_option(faction_document(faction=faction), "TROOPS-2a")["note"] == "Only with the banner."
    answer = client.get("/api/factions/aof/test-wardens/").json()
    assert book_option(answer, "TROOPS-2a")["note"] == "Only with the banner."


@pytest.mark.django_db
def test_a_book_is_kept_saying_nothing_one_way_and_its_stats_in_the_ruleset_s_order(make_aof_book):
    """Two ways of saying the same (`core: false` or none, `items: []` or none, stats in
    any order) are kept as one, so the same book imported either way is one version."""
    book = make_aof_book()
    book["rules"][0]["core"] = False
    book["units"][1]["items"] = []
    book["units"][1]["stats"] = {"defense": 5, "quality": 4}
    first = book_import(data=book)
    kept = faction_document(faction=first.faction)
    assert "core" not in kept["rules"][0] and "items" not in kept["units"][1]
    assert list(kept["units"][1]["stats"]) == ["quality", "defense"]
    assert kept == make_aof_book()
    assert book_import(data=make_aof_book()).status == "unchanged"
