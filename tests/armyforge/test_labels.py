"""Every official Army Forge book reads here as Army Forge labels it (issue 33, point 2).

Army Forge's own labels are what a player checks a card against: each weapon's label
"Heavy Glaive (A12, AP(1))" (with "2x" when each model carries two), each unit rule's
"Tough(3)", each option's label and the labels of what it gives. For every book in
../shared/armyforge/ (3.5.1, 3.5.2 and 3.5.3; third-party data, read from there, never
copied here), imported as a player's site imports it, this holds each of them to what the
site shows: the book (armybook/1), the text export of a list of every unit, a list with
each option picked (its gains in the unit's loadout), the builder's upgrade choices, and
the cards' drawn text. A difference anywhere is named, with the book, the unit and both
readings.
"""

from __future__ import annotations

import json
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from armybuilder.armyforge.books.imports import book_import
from armybuilder.armyforge.ids import our_id
from armybuilder.engine import list_from_dict, validate_list
from armybuilder.engine.book import split_rule
from armybuilder.engine.choices import section_choices
from armybuilder.engine.labels import label_parts
from armybuilder.engine.rulesets import policy_for
from armybuilder.exports.text import list_text, weapon_text
from factions.selectors import engine_book_get
from tests.conftest import SHARED, require_shared
from tests.exports.test_pdf import card_texts, flat, make_list, render

ARMYFORGE = SHARED / "armyforge"
BOOKS = sorted(
    str(p.relative_to(ARMYFORGE)) for p in [*ARMYFORGE.glob("*--*.json"), *ARMYFORGE.glob("3.5.*/*--*.json")]
) or ["(no books in ../shared/armyforge)"]

pytestmark = pytest.mark.usefixtures("fresh_engine_cache")


@cache
def armyforge(name: str) -> dict[str, Any]:
    return json.loads(require_shared(ARMYFORGE / name).read_text(encoding="utf-8"))


def system_of(name: str) -> str:
    return Path(name).name.split("--", 1)[0]


def without_count(label: str) -> str:
    """ "2x Heavy Fist (A3)" -> "Heavy Fist (A3)": the count is said apart."""
    head, _x, rest = label.partition("x ")
    return rest if head.isdigit() and rest else label


def unordered(label: str) -> tuple[str, tuple[str, ...]]:
    """A label's name and its parts whatever their order (an item lists what it gives in
    the order it was entered, the site weapons first)."""
    name, parts = label_parts(" ".join(label.split()))
    return name, tuple(sorted(parts))


def as_named_here(text: str, system: str) -> str:
    """An Army Forge rule as this ruleset names it (Skirmish's Wizard is its Caster)."""
    for theirs, ours in policy_for(system).rule_aliases.items():
        if text == theirs or text.startswith(f"{theirs}("):
            return ours + text[len(theirs) :]
    return text


def unit_rule_labels(unit: dict[str, Any], system: str) -> list[str]:
    """The unit's rules as Army Forge labels them, then those of what it starts with (the
    site gives a unit the rules of its items, and names the items on a line of their own),
    with what this ruleset does with them: Hero is a unit type in Regiments, not a rule."""
    labels = [as_named_here(rule.get("label") or rule["name"], system) for rule in unit["rules"]]
    for item in unit["items"]:
        labels += [as_named_here(_label_of(part), system) for part in item["content"] if part["type"] == "ArmyBookRule"]
    labels = [label for label in labels if not (label == "Hero" and system == "aof-regiments")]
    return list(dict.fromkeys(labels))


def unit_weapon_texts(unit: dict[str, Any]) -> Counter[str]:
    """What the text export prints for the unit's weapons: "10x Spear (A1, Counter)", those
    of its starting items too."""
    texts: Counter[str] = Counter()
    carried = [  # its own, and those of what it starts with (a mount's, a crew's)
        *unit["weapons"],
        *(
            {
                **part,
                "count": (part.get("count") or 1) * (item.get("count") or 1),
                "label": part.get("label") or _label_of(part),
            }
            for item in unit["items"]
            for part in item["content"]
            if part["type"] == "ArmyBookWeapon"
        ),
    ]
    for weapon in carried:
        count = weapon.get("count") or 1
        texts[f"{count}x {without_count(weapon['label'])}" if count > 1 else without_count(weapon["label"])] += 1
    return texts


@pytest.fixture
def imported(db):
    """Import an Army Forge book from ../shared/armyforge as the site would; its engine book."""

    def load(name: str):
        result = book_import(data=require_shared(ARMYFORGE / name).read_bytes(), system=system_of(name))
        label_warnings = [str(w) for w in result.warnings if w.path.endswith(".label") or "field" in w.message]
        assert label_warnings == [], f"{name}: what was read differs from Army Forge's labels"
        book, ruleset = engine_book_get(system=system_of(name), slug=result.faction.slug)
        return result.faction, book, ruleset

    return load


def offered(data: dict[str, Any], unit: dict[str, Any]):
    """(section, option) of every option Army Forge offers `unit`."""
    packages = {p["uid"]: p for p in data["upgradePackages"]}
    off = {x for key in ("disabledSections", "disabledUpgradeSections") for x in unit.get(key) or []}
    for uid in dict.fromkeys(unit["upgrades"]):
        for section in packages[uid]["sections"]:
            if section.get("uid") not in off and section.get("id") not in off:
                yield from ((section, option) for option in section["options"])


@pytest.mark.parametrize("name", BOOKS)
def test_every_unit_reads_as_army_forge_labels_it(imported, name):
    """Name, size, cost, Quality, Defense, each rule with its rating and each weapon, as the
    text export of a list of every unit prints them."""
    data, system = armyforge(name), system_of(name)
    faction, book, ruleset = imported(name)
    entries = [{"id": f"e{i}", "unit": our_id(unit["id"])} for i, unit in enumerate(data["units"])]
    army = list_from_dict(
        {"format": "armylist/1", "system": system, "faction": faction.slug, "points_limit": 100000, "entries": entries}
    )
    validation = validate_list(book, ruleset, army)
    text = list_text(name="All", ruleset_title="t", faction_name=faction.name, validation=validation)
    blocks = [block.splitlines() for block in text.split("\n1x ")[1:]]  # a unit's line, then its weapons and items
    assert len(blocks) == len(data["units"])
    mismatches = []
    for i, unit in enumerate(data["units"]):
        result = validation.entries[i]
        head = "1x " + blocks[i][0]
        weapons = blocks[i][1].strip() if len(blocks[i]) > 1 and unit["weapons"] else ""
        rules = ", ".join(unit_rule_labels(unit, system))
        expected = f"1x {unit['name'].strip()} [{unit['size']}] Q{unit['quality']}+ D{unit['defense']}+ | "
        expected += f"{unit['cost']} pts" + (f" | {rules}" if rules else "")
        if head != expected:
            mismatches.append((unit["name"], head, expected))
        shown = Counter(weapon_text(w) for w in result.loadout.weapons)
        if shown != unit_weapon_texts(unit) or weapons != ", ".join(weapon_text(w) for w in result.loadout.weapons):
            mismatches.append((unit["name"], sorted(shown), sorted(unit_weapon_texts(unit))))
    assert mismatches == []


@pytest.mark.parametrize("name", BOOKS)
def test_every_option_reads_as_army_forge_labels_it_and_gives_what_its_label_says(imported, name):
    """Each option's label in the builder's choices is Army Forge's; picked alone, the
    weapons it gives are in the unit's loadout as their labels say, and so are the rules
    it gives (on the unit, on some models, or on the weapons it upgrades)."""
    data, system = armyforge(name), system_of(name)
    _faction, book, ruleset = imported(name)
    mismatches = []
    for af_unit in data["units"]:
        unit = book.units[our_id(af_unit["id"])]
        chosen = section_choices(unit, {}, copies=1)
        labels = {choice.option.id: choice.option.label for section in chosen for choice in section.options}
        for _section, option in offered(data, af_unit):
            option_id = our_id(option["uid"])
            if labels.get(option_id) != " ".join(option["label"].split()):
                mismatches.append((af_unit["name"], "label", labels.get(option_id), option["label"]))
            entry = {"id": "e", "unit": unit.id, "options": {option_id: 1}}
            army = list_from_dict(
                {"format": "armylist/1", "system": system, "faction": "x", "points_limit": 100000, "entries": [entry]}
            )
            loadout = validate_list(book, ruleset, army).entries[0].loadout
            weapons = {unordered(without_count(weapon_text(w))) for w in loadout.weapons}
            rules = {str(rule) for rule in loadout.every_rule}
            weapon_rules = {text for w in loadout.weapons for text in w.rules}
            for gain in option["gains"]:
                missing = _missing(gain, system, weapons, rules | weapon_rules, set(loadout.items))
                if missing:
                    mismatches.append((af_unit["name"], option["label"], missing))
    assert mismatches == []


def _missing(gain: dict[str, Any], system: str, weapons: set, rules: set[str], items: set[str]) -> list[str]:
    """What of a gain's label the unit does not show once the gain is picked."""
    kind = gain.get("type")
    if kind == "ArmyBookWeapon":
        label = without_count(gain["label"])
        return [] if unordered(label) in weapons else [label]
    if kind == "ArmyBookRule":
        label = as_named_here(gain.get("label") or gain["name"], system)
        name, rating = split_rule(label)
        # A rating adds to one the unit has (Tough(3) on a Tough(3) hero: Tough(6)), so at least it.
        stacked = (
            rating is not None
            and rating.isdigit()
            and any(
                split_rule(rule)[0] == name
                and (split_rule(rule)[1] or "").isdigit()
                and int(split_rule(rule)[1] or 0) >= int(rating)
                for rule in rules
            )
        )
        return [] if label in rules or stacked or (label == "Hero" and system == "aof-regiments") else [label]
    missing = []
    for part in gain.get("content") or []:
        missing += _missing(
            part if "label" in part else {**part, "label": _label_of(part)}, system, weapons, rules, items
        )
    if not any(
        item == gain["name"] or item.endswith(f"x {gain['name']}") or item.startswith(gain["name"]) for item in items
    ):
        if not gain.get("content"):
            missing.append(gain["name"])
    return missing


def _cell(part: str) -> str:
    """A part of a weapon's label as the card's table prints it."""
    if part[:1] == "A" and part[1:].isdigit():
        return part[1:]
    if part.startswith("AP(") and part.endswith(")"):
        return part[3:-1]
    return part


def _label_of(part: dict[str, Any]) -> str:
    """An item's part as Army Forge labels it where the part carries no label of its own."""
    if part.get("type") == "ArmyBookWeapon":
        from armybuilder.engine.labels import weapon_label

        rules = [
            f"{r['name']}({r['rating']})" if r.get("rating") not in (None, "") else r["name"]
            for r in part["specialRules"]
        ]
        return weapon_label(part["name"], range=part.get("range") or None, attacks=part["attacks"], rules=rules)
    rating = part.get("rating")
    return f"{part['name']}({rating})" if rating not in (None, "") else part["name"]


@pytest.mark.parametrize("name", BOOKS)
def test_every_card_prints_each_weapon_as_its_label_says(imported, user, name):
    """The cards of a list of every unit: each weapon's name, range, attacks and rules are
    on its unit's card as its Army Forge label gives them (read off the drawn PDF)."""
    data, system = armyforge(name), system_of(name)
    faction, _book, _ruleset = imported(name)
    entries = [{"id": f"e{i}", "unit": our_id(unit["id"])} for i, unit in enumerate(data["units"])]
    body = {"format": "armylist/1", "name": "All", "system": system, "faction": faction.slug}
    army_list = make_list(user, {**body, "points_limit": 100000, "entries": entries})
    cards = [flat(text) for text in card_texts(render(army_list, "cards.pdf", rules=1))]
    assert len(cards) == len(data["units"])
    mismatches = []
    for card, unit in zip(cards, data["units"], strict=True):
        for weapon in unit["weapons"]:
            name_, parts = label_parts(without_count(weapon["label"]))
            # A card's weapon row: the name, the range ("24\""), the attacks ("A2" is printed "2"),
            # AP in a column of its own ("AP(1)" is printed "1"), the other rules.
            row = [name_, *(_cell(part) for part in parts)]
            at = card.find(name_)
            found = at >= 0 and all(cell in card[at:] for cell in row)
            if not found:
                mismatches.append((unit["name"], weapon["label"], card[:300]))
    assert mismatches == []
