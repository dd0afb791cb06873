"""Army Forge's meaning, not only its fields (issue 33): what the official books name is
explained (from the book, then Army Forge's core rules read with it, then our rulebook),
attacks are as Army Forge labels them, Unique is enforced, a unit has one type in every
version, and who has a rule (the unit or some of its models) is one answer everywhere.

Real books are read from ../shared/armyforge/ (third-party data, never copied here), and
Army Forge's core rules for Age of Fantasy from ../shared/armyforge/common-rules/."""

from __future__ import annotations

import copy
import io
import json
import re
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from armybuilder.armyforge.books.imports import book_import
from armybuilder.armyforge.books.units import unit_type_of
from armybuilder.engine import book_from_dict, list_from_dict, validate_list
from armybuilder.engine.meanings import ARMYFORGE, BOOK, NO_TEXT, NONE, RULESET, rule_meaning
from armybuilder.exports.text import list_text
from armybuilder.lists.selectors import army_list_load
from armybuilder.stamps import content_hash
from factions.changes import book_changes
from factions.models import ArmyForgeRules, BookVersion, Ruleset
from factions.selectors import engine_book_get
from tests.conftest import SHARED, require_shared
from tests.exports.test_pdf import card_texts, flat, make_list, pages, render
from tests.exports.test_pdf_play import column_pages

ARMYFORGE_DIR = SHARED / "armyforge"
CORE_RULES = ARMYFORGE_DIR / "common-rules" / "aof-4.json"

pytestmark = pytest.mark.usefixtures("fresh_engine_cache")


def armyforge(name: str) -> dict[str, Any]:
    return json.loads(require_shared(ARMYFORGE_DIR / name).read_text(encoding="utf-8"))


def core_texts() -> dict[str, str]:
    data = json.loads(require_shared(CORE_RULES).read_text(encoding="utf-8"))
    return {rule["name"]: rule["description"] for rule in data["rules"]}


def hold_core_rules(version: str = "2026-11-29", texts: dict[str, str] | None = None) -> ArmyForgeRules:
    """Army Forge's core rules for Age of Fantasy, as `sync_armyforge` keeps them."""
    rules = [{"name": name, "text": text} for name, text in (texts or core_texts()).items()]
    return ArmyForgeRules.objects.create(
        ruleset=Ruleset.objects.get(slug="aof"),
        version=version,
        fetched_at=timezone.now(),
        rules=rules,
        content_hash=content_hash(rules),
    )


def import_book(name: str, system: str | None = None, data: dict[str, Any] | None = None):
    system = system or name.rsplit("/", 1)[-1].split("--", 1)[0]
    return book_import(data=data or armyforge(name), system=system)


def army(user, faction: str, entries: list[dict], *, system: str = "aof", points: int = 2000):
    body = {"format": "armylist/1", "name": "Meaning", "system": system, "faction": faction}
    return make_list(user, {**body, "points_limit": points, "entries": entries})


# -- 1. attacks as Army Forge labels them ----------------------------------------------------------
def test_attacks_are_the_total_army_forge_labels_whatever_its_multiplier(db):
    ratmen = import_book("3.5.3/aof--ratmen.json").faction
    book, _ = engine_book_get(system="aof", slug=ratmen.slug)
    crew = [g for u in book.units.values() for _s, o in u.options.values() for g in o.gains if g.name == "Crew Attacks"]
    assert {g.weapons[0].attacks for g in crew} >= {9}  # "Crew Attacks (A9)", with attacksMultiplier 3
    dwarves = import_book("3.5.3/aof--sky-city-dwarves.json").faction
    book, _ = engine_book_get(system="aof", slug=dwarves.slug)
    bombs = sorted(w.attacks for u in book.units.values() for w in u.equipment if w.name == "Drop Bombs")
    assert {2, 3} <= set(bombs)  # "Drop Bombs (A2, …)" and "(A3, …)", with multipliers 2 and 3
    assert not [b for b in bombs if b > 3]


# -- 2. every rule named is explained: the book, then Army Forge's core rules, then ours -----------
def test_a_book_imported_with_army_forges_core_rules_carries_their_text_and_their_version(db):
    hold_core_rules()
    result = import_book("aof--chivalrous-kingdoms.json")
    assert not [w for w in result.warnings if "not described" in w.message]
    book, _ = engine_book_get(system="aof", slug=result.faction.slug)
    assert book.armyforge_rules == "2026-11-29"
    assert book.rules["Thrust"] == (False, core_texts()["Thrust"]) and "Thrust" in book.armyforge_core
    assert "Vale Formation" not in book.armyforge_core  # the book's own rule stays its own


def test_a_rules_meaning_is_the_books_then_army_forges_then_the_rulesets():
    def book(rules: list[dict]) -> Any:
        return book_from_dict(
            {"format": "armybook/1", "system": "aof", "slug": "b", "name": "B", "version": "1.0.0",
             "armyforge_rules": "2026-11-29", "rules": rules, "spells": [], "units": [], "packages": []}
        )  # fmt: skip

    ours = {"Fearless": (False, "Our summary.", "Age of Fantasy 3.2.0 — Special Rules")}
    source = "Age of Fantasy core rules (Army Forge, 2026-11-29)"
    own = book([{"name": "Fearless", "rated": False, "text": "The book's own."}])
    assert rule_meaning("Fearless", own, ours, armyforge_source=source).origin == BOOK
    theirs = book([{"name": "Fearless", "rated": False, "text": "Army Forge's.", "core": True}])
    meaning = rule_meaning("Fearless", theirs, ours, armyforge_source=source)
    assert (meaning.origin, meaning.text, meaning.source) == (ARMYFORGE, "Army Forge's.", source)
    unread = book([{"name": "Fearless", "rated": False, "text": "", "core": True}])
    assert rule_meaning("Fearless", unread, ours).origin == RULESET  # no text read: our rulebook's
    assert rule_meaning("Thrust", unread, ours) == rule_meaning("Thrust", None, {})
    assert rule_meaning("Thrust", unread, ours).origin == NONE
    legacy = book([{"name": "Bane", "rated": False, "text": "Bane: a rule from a newer rulebook than this site's; "
                    "its text is not in this book."}])  # fmt: skip
    assert rule_meaning("Bane", legacy, ours).origin == NONE  # a note an older import wrote is no text


@pytest.fixture
def knights(user):
    """Chivalrous Kingdoms 3.5.2 read with Army Forge's core rules: Vale Knights (Heavy
    Lances with Thrust), Errant Knights (Lances) and a High Champion."""
    hold_core_rules()
    faction = import_book("aof--chivalrous-kingdoms.json").faction
    return army(
        user,
        faction.slug,
        [{"id": "v", "unit": "gNg9Cq3"}, {"id": "e", "unit": "cRT9D42"}, {"id": "h", "unit": "BDOjGOW"}],
    )


def test_knights_with_lances_are_told_what_thrust_does_on_cards_and_in_the_reference(knights):
    thrust = core_texts()["Thrust"]
    printout = flat(" ".join(column_pages(render(knights, "cards.pdf", rules=1))))
    assert printout.count(f"Thrust {flat(thrust)[:60]}") == 1  # once, in the glossary after both knights' cards
    assert NO_TEXT[:30] not in printout
    reference = flat(" ".join(pages(render(knights, "reference.pdf"))[:-1]))
    group = "Age of Fantasy core rules (Army Forge, 2026-11-29)"
    assert group in reference
    under = reference[reference.index(group) :]
    assert f"Thrust {flat(thrust)[:60]}" in under
    assert "Army rules · Chivalrous Kingdoms 3.5.2" in reference  # its own rules in a section of their own
    assert NO_TEXT[:30] not in reference


def test_the_builder_and_the_share_page_explain_thrust_from_army_forges_core_rules(knights, client, user):
    client.force_login(user)
    thrust = core_texts()["Thrust"]
    builder = client.get(f"/lists/{knights.pk}/").content.decode()
    assert "Heavy Lance" in builder and thrust[:50] in builder.replace("&quot;", '"').replace("&#x27;", "'")
    shared = client.get(f"/s/{knights.share_key}/").content.decode().replace("&quot;", '"').replace("&#x27;", "'")
    assert thrust[:50] in shared and "Age of Fantasy core rules (Army Forge, 2026-11-29)" in shared


def test_a_rule_read_with_no_text_anywhere_says_so_once(user):
    faction = import_book("aof--chivalrous-kingdoms.json").faction  # no core rules of Army Forge's held
    knights = army(user, faction.slug, [{"id": "v", "unit": "gNg9Cq3"}])
    reference = flat(" ".join(pages(render(knights, "reference.pdf"))[:-1]))
    assert reference.count(NO_TEXT[:40]) == 1 and "Rules without a text" in reference


def test_a_version_keeps_the_core_rules_it_was_read_with_and_the_same_book_again_is_unchanged(db):
    hold_core_rules()
    first = import_book("aof--chivalrous-kingdoms.json")
    newer = {**core_texts(), "Thrust": "A newer wording of Thrust."}
    hold_core_rules("2026-12-24", newer)
    again = import_book("aof--chivalrous-kingdoms.json")
    assert (again.status, again.version) == ("unchanged", first.version)
    book, _ = engine_book_get(system="aof", slug=first.faction.slug)
    assert book.rules["Thrust"][1] == core_texts()["Thrust"] and book.armyforge_rules == "2026-11-29"
    changed = copy.deepcopy(armyforge("aof--chivalrous-kingdoms.json"))
    changed["units"][0]["cost"] += 5
    moved = import_book("aof--chivalrous-kingdoms.json", data=changed)
    assert moved.status == "new version"
    book, _ = engine_book_get(system="aof", slug=first.faction.slug)
    assert (book.armyforge_rules, book.rules["Thrust"][1]) == ("2026-12-24", "A newer wording of Thrust.")


# -- 3. Unique ---------------------------------------------------------------------------------------
def test_unique_is_enforced_once_per_army_with_the_books_words(user):
    faction = import_book("aof--wood-elves.json").faction
    book, ruleset = engine_book_get(system="aof", slug=faction.slug)
    assert book.per_army == {"Unique": 1}

    def issues(entries):
        body = {"format": "armylist/1", "system": "aof", "faction": faction.slug, "points_limit": 3000}
        return validate_list(book, ruleset, list_from_dict({**body, "entries": entries})).issues

    yrana = {"unit": "7T7GYqY"}
    assert [i.code for i in issues([{"id": "a", **yrana}])] == []
    found = [i for i in issues([{"id": f"y{n}", **yrana} for n in range(4)]) if i.code == "unique_unit"]
    assert [i.entry for i in found] == ["y1", "y2", "y3"]
    assert found[0].message == "Yrana is Unique: an army may take only one, and this list has 4"
    assert found[0].rule == "Wood Elves 3.5.2 army book — Unique"
    listed = army(user, faction.slug, [{"id": "a", **yrana}, {"id": "b", **yrana}], points=3000)
    assert "Legal list" not in flat(" ".join(pages(render(listed, "roster.pdf"))))


def test_unique_is_known_by_what_it_says_and_counts_a_combined_unit_once(db):
    data = copy.deepcopy(armyforge("aof--wood-elves.json"))
    for rule in data["specialRules"]:
        if rule["name"] == "Unique":
            rule["name"] = "One of a Kind"  # what it says, not what it is called
    for unit in data["units"]:
        for rule in unit["rules"]:
            if rule["name"] == "Unique":
                rule.update(name="One of a Kind", label="One of a Kind")
    war_dancers = next(u for u in data["units"] if u["name"] == "War Dancers")
    war_dancers["rules"].append({"id": "x", "name": "One of a Kind", "label": "One of a Kind"})
    faction = import_book("aof--wood-elves.json", data=data).faction
    book, ruleset = engine_book_get(system="aof", slug=faction.slug)
    assert book.per_army == {"One of a Kind": 1}
    body = {"format": "armylist/1", "system": "aof", "faction": faction.slug, "points_limit": 3000}
    entries = [{"id": "d", "unit": war_dancers["id"], "combined": True}, {"id": "y", "unit": "7T7GYqY"}]
    assert not [i for i in validate_list(book, ruleset, list_from_dict({**body, "entries": entries})).issues
                if i.code == "unique_unit"]  # fmt: skip


def test_a_rule_for_building_lists_that_is_not_enforced_is_a_warning_at_import(db):
    data = copy.deepcopy(armyforge("aof--wood-elves.json"))
    data["specialRules"].append(
        {"id": "z", "name": "Rare", "description": "This unit may only be taken twice in your army.", "coreType": 5}
    )
    warnings = [str(w) for w in import_book("aof--wood-elves.json", data=data).warnings]
    assert any('"Rare" reads like a rule for building lists' in w and "not checked" in w for w in warnings)


# -- 4. a unit's type from what it is, the same in every version -----------------------------------
@pytest.mark.parametrize(
    ("rules", "bases", "generic", "expected"),
    [
        (["Hero", "Tough(3)"], {"round": "25"}, "Elite Ratman Leader", "hero"),
        ([], {"round": "25", "square": "25"}, "Elite Foot Knights", "infantry"),  # "Knights" on foot
        (["Fast", "Impact(1)"], {"round": "60x35", "square": "50x25"}, "Elite Knights", "cavalry"),
        (["Fear(2)", "Tough(12)"], {"round": "120x92", "square": "100x60"}, "Great Rat Beast", "monster"),
        (["Fear(4)", "Strider", "Tough(24)"], {"round": "160x122"}, "Ancient Titan", "monster"),
        (["Fast", "Fear(1)", "Impact(3)", "Tough(6)"], {"square": "150x100"}, "Combat Wheel", "chariot"),
        (["Fast", "Flying", "Tough(6)"], {"square": "100x60"}, "Zeppelin", "monster"),
        (["Tough(3)", "Artillery"], {"round": "60"}, "Cannon", "artillery"),
        (["Tough(3)"], {"round": "60x35", "square": "50x25"}, "Weapon Teams", "infantry"),  # long base, no mount
    ],
)
def test_a_units_type_is_read_from_what_it_is(rules, bases, generic, expected):
    types = ("hero", "infantry", "cavalry", "monster", "chariot", "artillery")
    assert unit_type_of(hero="Hero" in rules, rules=rules, bases=bases, generic=generic, types=types) == expected
    regiments = ("hero", "infantry", "monster", "chariot", "artillery")  # no cavalry: such units are infantry
    found = unit_type_of(hero="Hero" in rules, rules=rules, bases=bases, generic=generic, types=regiments)
    assert found == (expected if expected != "cavalry" else "infantry")


def test_a_unit_has_one_type_in_every_version_and_no_report_shows_a_type_change(db):
    names = ["3.5.1/aof--ratmen.json", "aof--ratmen.json", "3.5.3/aof--ratmen.json"]
    faction = None
    for name in names:
        faction = import_book(name).faction
    documents = [
        BookVersion.objects.get(faction=faction, version=version).document for version in ("3.5.1", "3.5.2", "3.5.3")
    ]
    types = [{unit["id"]: unit["type"] for unit in document["units"]} for document in documents]
    for unit_id in types[0].keys() & types[1].keys() & types[2].keys():
        assert types[0][unit_id] == types[1][unit_id] == types[2][unit_id], unit_id
    for old, new in zip(documents, documents[1:], strict=False):
        assert not [u for u in book_changes(old, new)["units"]["changed"] if "type" in u["changes"]]
    by_name = {unit["name"]: unit["type"] for unit in documents[2]["units"]}
    assert (by_name["Giant Beast"], by_name["God-Titan"], by_name["Great Death Roller"]) == ("monster",) * 2 + (
        "chariot",
    )
    assert (by_name["Ratmen Artillery"], by_name["Warriors"], by_name["Battle Master"]) == (
        "artillery",
        "infantry",
        "hero",
    )


def test_regiments_limits_by_type_read_the_same_types(db):
    # Ratmen is enabled for Regiments too (game system 6): read for it, as a file that names no game system.
    data = {k: v for k, v in armyforge("aof--ratmen.json").items() if k not in ("gameSystemSlug", "gameSystemId")}
    faction = import_book("aof--ratmen.json", system="aof-regiments", data=data).faction
    book, ruleset = engine_book_get(system="aof-regiments", slug=faction.slug)
    big = [u.id for u in book.units.values() if u.type in ("monster", "chariot", "artillery")]
    assert {book.units[u].name for u in big} >= {"Giant Beast", "Great Death Roller", "Ratmen Artillery"}
    hero = next(u.id for u in book.units.values() if u.type == "hero")
    entries = [{"id": "h", "unit": hero}, *({"id": f"b{i}", "unit": unit} for i, unit in enumerate(big[:3]))]
    body = {"format": "armylist/1", "system": "aof-regiments", "faction": faction.slug, "points_limit": 500}
    issues = validate_list(book, ruleset, list_from_dict({**body, "entries": entries})).issues
    assert [i.message for i in issues if i.code == "too_many_big_units"]


# -- 5. one model or the unit, the same everywhere --------------------------------------------------
@pytest.fixture
def vows_book(db):
    """A knights unit of five with "Upgrade with: Questing Vows (Fearless)" (the unit as
    one) and "Upgrade one model with: Sergeant"."""
    book = {
        "format": "armybook/1", "system": "aof", "slug": "sworn", "name": "Sworn", "version": "1.0.0",
        "rules": [], "spells": [],
        "units": [{"id": "k", "name": "Sworn Knights", "type": "cavalry", "size": 5, "cost": 100,
                   "stats": {"quality": 4, "defense": 4}, "rules": ["Fast"],
                   "equipment": [{"name": "Lance", "count": 5, "attacks": 1, "rules": []}], "upgrades": ["P"]}],
        "packages": [{"id": "P", "sections": [
            {"id": "S1", "label": "Upgrade with", "variant": "upgrade", "options": [
                {"id": "vows", "label": "Questing Vows (Fearless)", "cost": 10,
                 "gains": [{"kind": "item", "name": "Questing Vows", "rules": ["Fearless"]}]}]},
            {"id": "S2", "label": "Upgrade one model with", "variant": "upgrade",
             "affects": {"type": "exactly", "value": 1}, "options": [
                {"id": "sgt", "label": "Sergeant", "cost": 5, "command": "sergeant",
                 "gains": [{"kind": "rule", "name": "Sergeant"}]}]}]}],
    }  # fmt: skip
    book_import(data=book)
    return book


def test_what_an_upgrade_gives_is_one_answer_on_every_page(vows_book, user, client):
    army_list = army(user, "sworn", [{"id": "k", "unit": "k", "options": {"vows": 1, "sgt": 1}}])
    state = army_list_load(army_list=army_list)
    loadout = state.validation.entries[0].loadout
    assert [str(r) for r in loadout.rules] == ["Fast", "Fearless"]  # the unit as one: every model
    assert [str(group) for group in loadout.some] == ["1 model: Sergeant"]
    text = list_text(name="", ruleset_title="t", faction_name="Sworn", validation=state.validation)
    assert "| Fast, Fearless | 1 model: Sergeant" in text
    cards = flat(" ".join(card_texts(render(army_list, "cards.pdf"))))
    assert re.search(r"Rules: Fast, Fearless", cards) and "1 model: Sergeant" in cards
    assert "(Questing Vows): Fearless" not in cards
    client.force_login(user)
    builder = client.get(f"/lists/{army_list.pk}/").content.decode()
    assert "1 model: Sergeant" in builder and "(Questing Vows): Fearless" not in builder
    shared = client.get(f"/s/{army_list.share_key}/").content.decode()
    assert "1 model: Sergeant" in shared and "(Questing Vows): Fearless" not in shared


def test_the_army_sheets_tough_is_the_units_only_where_every_model_has_it(user):
    faction = import_book("aof--ratmen.json").faction
    # Twenty Warriors (combined), one of them a Weapon Team with Tough(3).
    army_list = army(user, faction.slug, [{"id": "w", "unit": "BUbrjeh", "combined": True, "options": {"qflnR": 1}}])
    loadout = army_list_load(army_list=army_list).validation.entries[0].loadout
    assert loadout.rating("Tough") is None
    assert [str(group) for group in loadout.some] == ["1 model (Weapon Team): Tough(3)"]
    sheet = flat(" ".join(pages(render(army_list, "roster.pdf", sheet=1))))
    assert "1 Warriors · combined 5+ 5+ – 20 " in sheet  # Quality, Defense, no Tough, models
    cards = flat(" ".join(card_texts(render(army_list, "cards.pdf"))))
    assert "1 model (Weapon Team): Tough(3)" in cards


# -- 1 end to end: the sync reads the core rules, the books it brings in the same run use them -----
def test_books_synced_are_read_with_the_core_rules_read_first_in_the_same_sync(armyforge, user, client):
    call_command("sync_armyforge", "--system", "aof", stdout=io.StringIO())
    held = ArmyForgeRules.objects.get(ruleset__slug="aof")
    book, _ = engine_book_get(system="aof", slug="chivalrous-kingdoms")
    assert book.armyforge_rules == held.version
    assert book.rules["Thrust"] == (False, core_texts()["Thrust"].strip())
    knights = army(user, "chivalrous-kingdoms", [{"id": "v", "unit": "gNg9Cq3"}])
    reference = flat(" ".join(pages(render(knights, "reference.pdf"))[:-1]))
    assert f"Age of Fantasy core rules (Army Forge, {held.version})" in reference
    assert "Rules without a text" not in reference
    api = client.get("/api/systems/aof/armyforge-rules/").json()
    assert api["version"] == held.version and {"name": "Thrust", "text": book.rules["Thrust"][1]} in api["rules"]
