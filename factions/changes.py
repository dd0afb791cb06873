"""What changed between two versions of an army book (shared/spec/book-versions.md, "Changes").

`book_changes(old, new)` compares two armybook/1 documents, plain dicts as a version
keeps them (`factions.armybook.kept_form`) or as the Army Forge converter makes them, and
says what a player moving a list from `old` to `new` needs to know: units, options,
the book's own rules, the core rules it names and spells added, removed or changed, and
only what differs of each.
Plain Python on plain data: no queries, linear in the size of the two books.

Things are matched by what lists refer to them by: units and options by `id`, rules and
spells by name, sections by `id`. The lists inside a change (a unit's rules, weapons,
starting items and packages, an option's gains) are compared as multisets by meaning, so
a reordering is no change and a changed profile is the old one removed and the new one
added, each named as a player reads it: `10x Spear (A1, Counter)`, `Giant Owl (Rending
Claws (A1, Rending), Fast, Flying)`.

Decisions the contract leaves open:
- An option's `cost` is its own price, which a unit without a price of its own pays.
  `costs` lists each unit with a price of its own, on either side, whose price changed,
  a side without one reading the option's `cost` on that side. A unit whose own price
  stayed is not listed, whatever `cost` did.
- An option names its section by label (`section`) and id (`section_id`). One that moved
  to another section has `section` and `section_id` as [old, new] in its changes.
- `sections.changed`: a section held by both books whose words or limits changed
  (`select` "up to 2" -> "up to 1"), which no option of it shows; limits in words, None
  where a side has none. Sections added or removed show through their options.
- A unit's package ref `{"package": "G1", "without": ["S3"]}` is one package taken; a
  changed `without` is the old form removed and the new one added.
- Only real price changes are price changes. A unit *takes* an option when the option is
  in a section of a package the unit takes (less the sections it does without). `costs`
  lists only units that take the option in both books; a unit of both books that takes
  it in `new` only is in the option's `"units": {"added": [{"id", "name", "cost"}]}`
  (its price there), one that took it in `old` only in `"units": {"removed": [...]}`
  (its price then), whether its package or section came or went or the option's
  `costs` gained or lost it. A unit new to the book, or gone from it, is listed under
  `units` alone.
- Packages have no label of their own: a package a unit takes (`upgrades`) and a
  section's `package` are named by the labels of their sections, as a player reads
  them ("Replace Hand Weapon, Upgrade with one"; for `{"package": "G1", "without":
  [...]}` only the sections the unit takes), and by their id only when they have none
  ("G1 (without S3)").
- A book's rules are of two kinds: its own, and the core rules of Army Forge it names
  (`"core": true`; `text` may be "" when none was read). A rule whose text is the note
  the Army Forge converter wrote for a rule it had no text for, in books imported
  before core rules were marked (engine/meanings.py `is_legacy_note`), is read as a
  core rule with no text. `rules` compares the book's own rules, `core_rules` the core
  rules it names, each by name: `{"added": [{"name", "text"}], "removed": [...],
  "changed": [{"name", "text": [old, new]}]}`, a core rule's text changed only when both
  sides have one (a text not read is no change). A rule that is the book's own on one
  side and core on the other is listed once, under `core_rules`: added, with the text
  the book gave it before as `book_text`, or removed, with the text the book now gives
  it as `book_text`; never as a rule changed to or from a placeholder.
- `armyforge_rules`: `{"from", "to"}`, the version of Army Forge's core rules each book
  was read with (None for a book read without).
- Beyond the contract: a unit's `items`, an option's `command`, a book rule's `rated`
  and a section's `package` when they changed; `section_id` beside every `section`;
  `costs` on an added or removed option that has some.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

from armybuilder.engine.meanings import is_legacy_note
from armybuilder.engine.rulesets import policy_or_default
from factions.armybook import package_ref

Book = Mapping[str, Any]
Diff = dict[str, Any]

# The parts of a unit other than its stats, in the order a change lists them.
UNIT_FIELDS = ("name", "type", "cost", "size")
STAT_MARKS = {"quality": "Q{}+", "defense": "D{}+"}
PROFILE_MARKS = {"accuracy": "ACC", "strength": "STR", "damage": "DAM"}
LISTS = ("added", "removed", "changed")
# What a section says besides its options: its words, and its limits (compared as read).
SECTION_WORDS = ("label", "variant")
SECTION_LIMITS = ("targets", "affects", "select", "optional")


def book_changes(old: Book, new: Book) -> Diff:
    """What changed from `old` to `new`, in the shape of book-versions.md ("Changes"):
    added and changed things in the new book's order, removed ones in the old book's."""
    labels = _Labels(hexes=policy_or_default(str(new.get("system"))).range_in_hexes)
    before, after = _Side(old), _Side(new)
    old_own, old_core = _rule_kinds(old)
    new_own, new_core = _rule_kinds(new)
    core_rules = _matched(
        old_core.values(),
        new_core.values(),
        key=lambda rule: rule["name"],
        summary=lambda rule: {"name": rule["name"], "text": rule["text"]},
        changed=_core_text_change,
        entry=lambda rule, changes: {"name": rule["name"], **changes},
    )
    for kind, own in (("added", old_own), ("removed", new_own)):
        for rule in core_rules[kind]:
            if rule["name"] in own:
                rule["book_text"] = own[rule["name"]]["text"]
    return {
        "from": old["version"],
        "to": new["version"],
        "armyforge_rules": {"from": old.get("armyforge_rules"), "to": new.get("armyforge_rules")},
        "units": _matched(
            old["units"],
            new["units"],
            key=lambda unit: unit["id"],
            summary=lambda unit: {"id": unit["id"], "name": unit["name"], "cost": unit["cost"]},
            changed=lambda was, now: _unit_changes(was, now, labels, before, after),
            entry=lambda unit, changes: {"id": unit["id"], "name": unit["name"], "changes": changes},
        ),
        "options": _matched(
            before.options(),
            after.options(),
            key=lambda placed: placed[0]["id"],
            summary=_option_summary,
            changed=lambda was, now: _option_changes(was, now, labels, before, after),
            entry=lambda placed, changes: {**_option_place(placed), "changes": changes},
        ),
        "rules": _matched(
            # A rule the book's own on one side and core on the other is under core_rules.
            [rule for name, rule in old_own.items() if name not in new_core],
            [rule for name, rule in new_own.items() if name not in old_core],
            key=lambda rule: rule["name"],
            summary=lambda rule: {"name": rule["name"], "text": rule["text"]},
            changed=lambda was, now: _pairs(was, now, ("text", "rated")),
            entry=lambda rule, changes: {"name": rule["name"], **changes},
        ),
        "core_rules": core_rules,
        "spells": _matched(
            old["spells"],
            new["spells"],
            key=lambda spell: spell["name"],
            summary=lambda spell: {"name": spell["name"], "cost": spell["cost"], "text": spell["text"]},
            changed=lambda was, now: _pairs(was, now, ("cost", "text")),
            entry=lambda spell, changes: {"name": spell["name"], **changes},
        ),
        "sections": {"changed": _section_changes(before, after, labels)},
    }


KINDS = ("units", "options", "rules", "core_rules", "spells")


def changes_summary(changes: Mapping[str, Any]) -> dict[str, Any]:
    """The counts a page headline needs ("Wood Elves 3.5.2: 2 units change cost"), from
    what `book_changes` gave."""
    units = changes["units"]
    costs = [unit["changes"]["cost"] for unit in units["changed"] if "cost" in unit["changes"]]
    counts: dict[str, Any] = {"from": changes["from"], "to": changes["to"]}
    if "armyforge_rules" in changes:
        counts["armyforge_rules"] = changes["armyforge_rules"]
    for kind in KINDS:
        found = changes.get(kind) or {}
        counts[kind] = {what: len(found.get(what, [])) for what in LISTS}
    counts["units"].update(
        cost_changed=len(costs),
        cost_up=sum(1 for before, after in costs if after > before),
        cost_down=sum(1 for before, after in costs if after < before),
    )
    takers = [option["changes"].get("units", {}) for option in changes["options"]["changed"]]
    counts["options"].update(
        units_added=sum(len(units.get("added", [])) for units in takers),
        units_removed=sum(len(units.get("removed", [])) for units in takers),
    )
    counts["sections"] = {"changed": len(changes.get("sections", {}).get("changed", []))}
    counts["unchanged"] = not any(counts[kind].get(what) for kind in (*KINDS, "sections") for what in LISTS)
    return counts


# -- matching things by their key --------------------------------------------------------
def _matched(
    old: Iterable[Any],
    new: Iterable[Any],
    *,
    key: Callable[[Any], str],
    summary: Callable[[Any], dict[str, Any]],
    changed: Callable[[Any, Any], Diff],
    entry: Callable[[Any, Diff], dict[str, Any]],
) -> dict[str, list[dict[str, Any]]]:
    """Added, removed and changed things of two lists matched by `key`: `summary` says an
    added or removed one, `changed` what differs of one in both (empty: nothing), `entry`
    a changed one given that."""
    before = {key(thing): thing for thing in old}
    after_keys = set()
    added, changes = [], []
    for thing in new:
        ident = key(thing)
        after_keys.add(ident)
        if ident not in before:
            added.append(summary(thing))
        elif before[ident] != thing and (diff := changed(before[ident], thing)):
            changes.append(entry(thing, diff))
    removed = [summary(thing) for ident, thing in before.items() if ident not in after_keys]
    return {"added": added, "removed": removed, "changed": changes}


def _pairs(old: Mapping[str, Any], new: Mapping[str, Any], keys: Iterable[str]) -> Diff:
    """{key: [old, new]} for each of `keys` whose value differs (absent: None)."""
    return {key: [old.get(key), new.get(key)] for key in keys if old.get(key) != new.get(key)}


def _multiset(
    old: list[Any],
    new: list[Any],
    key: Callable[[Any], Hashable],
    label: Callable[[Any], str],
    old_label: Callable[[Any], str] | None = None,
) -> Diff:
    """{"added": [...], "removed": [...]} labels of what one list holds more of than the
    other (each left out when empty): added in `new`'s order, removed in `old`'s; the
    removed ones by `old_label` when things are named by what their book says."""
    if old == new:  # the common case, and a fast one
        return {}
    old_keys, new_keys = [key(thing) for thing in old], [key(thing) for thing in new]
    out: Diff = {}
    for name, things, keys, other, named in (
        ("added", new, new_keys, old_keys, label),
        ("removed", old, old_keys, new_keys, old_label or label),
    ):
        left = Counter(other)
        found = []
        for thing, ident in zip(things, keys, strict=True):
            if left[ident] > 0:
                left[ident] -= 1
            else:
                found.append(named(thing))
        if found:
            out[name] = found
    return out


def _canon(value: Any) -> Hashable:
    """A value as a hashable whole that is equal for equal meaning: keys in any order, a
    `rules` list in any order, a weapon or item `count` of 1 as absent, `range` 0 (melee)
    as absent."""
    if isinstance(value, Mapping):
        parts = []
        for key, item in value.items():
            if (key == "count" and item == 1) or (key == "range" and not item):
                continue
            parts.append((key, tuple(sorted(item)) if key == "rules" else _canon(item)))
        return tuple(sorted(parts, key=lambda part: part[0]))
    if isinstance(value, list):
        return tuple(_canon(item) for item in value)
    scalar: Hashable = value  # text, a number, a flag or None
    return scalar


# -- the two books ------------------------------------------------------------------------
# An option with the id and label of the section holding it and the ids of the units that
# take it: a plain tuple, equal when all are, made for every option of both books (a
# class of its own costs four times as much).
Placed = tuple[Mapping[str, Any], str, str, frozenset[str]]


class _Side:
    """What one book says that a comparison looks up: its units by id, which units take
    each option, and what each package is called."""

    def __init__(self, book: Book):
        self.book = book
        self.units = {unit["id"]: unit for unit in book["units"]}
        self.packages = {package["id"]: package for package in book["packages"]}
        takers: dict[str, list[str]] = {}
        for unit in book["units"]:
            for ref in unit["upgrades"]:
                package, without = package_ref(ref)
                for section in self.packages.get(package, {}).get("sections", ()):
                    if section["id"] not in without:
                        for option in section["options"]:
                            takers.setdefault(option["id"], []).append(unit["id"])
        self.takers = {option: frozenset(units) for option, units in takers.items()}

    def options(self) -> list[Placed]:
        return [
            (option, section["id"], section["label"], self.takers.get(option["id"], frozenset()))
            for package in self.book["packages"]
            for section in package["sections"]
            for option in section["options"]
        ]

    def package_name(self, ref: Any) -> str:
        """A unit's package ref by the labels of the sections it takes of it ("Replace
        Hand Weapon, Upgrade with one"); its id when they have none."""
        package, without = package_ref(ref)
        sections = self.packages.get(package, {}).get("sections", ())
        names = [section["label"] for section in sections if section["id"] not in without and section["label"]]
        if names:
            return ", ".join(names)
        return f"{package} (without {', '.join(without)})" if without else package


# -- units -------------------------------------------------------------------------------
def _unit_changes(old: Mapping[str, Any], new: Mapping[str, Any], labels: _Labels, before: _Side, after: _Side) -> Diff:
    changes = _pairs(old, new, UNIT_FIELDS)
    stats_before, stats_after = old["stats"], new["stats"]
    for stat in [*stats_after, *(s for s in stats_before if s not in stats_after)]:
        if stats_before.get(stat) != stats_after.get(stat):
            changes[stat] = [stats_before.get(stat), stats_after.get(stat)]
    parts: tuple[tuple[str, list[Any], list[Any], Callable[[Any], Hashable], Callable[[Any], str]], ...] = (
        ("rules", old["rules"], new["rules"], str, str),
        ("equipment", old["equipment"], new["equipment"], _canon, labels.weapon),
        ("items", old.get("items", []), new.get("items", []), _canon, labels.item),
    )
    for name, was, now, key, label in parts:
        if diff := _multiset(was, now, key, label):
            changes[name] = diff
    if diff := _multiset(old["upgrades"], new["upgrades"], _package_key, after.package_name, before.package_name):
        changes["upgrades"] = diff
    return changes


def _package_key(entry: Any) -> Hashable:
    package, without = package_ref(entry)
    return package, frozenset(without)


# -- options and sections ----------------------------------------------------------------
def _option_place(placed: Placed) -> dict[str, Any]:
    option, section_id, section_label, _takers = placed
    return {"id": option["id"], "label": option["label"], "section": section_label, "section_id": section_id}


def _option_summary(placed: Placed) -> dict[str, Any]:
    option = placed[0]
    out = {**_option_place(placed), "cost": option["cost"]}
    if option.get("costs"):
        out["costs"] = dict(option["costs"])
    return out


def _option_changes(old: Placed, new: Placed, labels: _Labels, before: _Side, after: _Side) -> Diff:
    (was, old_section, old_label, old_takers), (now, new_section, new_label, new_takers) = old, new
    changes = _pairs(was, now, ("label", "cost"))
    if costs := _unit_costs(was, now, old_takers & new_takers):
        changes["costs"] = costs
    if old_takers != new_takers and (units := _takers_changed(was, now, old_takers, new_takers, before, after)):
        changes["units"] = units
    if gains := _multiset(was["gains"], now["gains"], _canon, labels.gain):
        changes["gains"] = gains
    changes.update(_pairs(was, now, ("command",)))
    if old_section != new_section:
        changes["section"] = [old_label, new_label]
        changes["section_id"] = [old_section, new_section]
    return changes


def _price(option: Mapping[str, Any], unit: str) -> int:
    """What `unit` pays for one pick of `option`: its own price, else the option's."""
    return int((option.get("costs") or {}).get(unit, option["cost"]))


def _unit_costs(old: Mapping[str, Any], new: Mapping[str, Any], takers: frozenset[str]) -> dict[str, list[int]]:
    """{unit id: [old, new]} for each unit of `takers` (those taking the option in both
    books) with its own price on either side whose price changed; a side without one is
    the option's `cost` there."""
    before, after = old.get("costs") or {}, new.get("costs") or {}
    units = [*after, *(unit for unit in before if unit not in after)]
    out = {}
    for unit in units:
        prices = [_price(old, unit), _price(new, unit)]
        if unit in takers and prices[0] != prices[1]:
            out[unit] = prices
    return out


def _takers_changed(
    old: Mapping[str, Any],
    new: Mapping[str, Any],
    old_takers: frozenset[str],
    new_takers: frozenset[str],
    before: _Side,
    after: _Side,
) -> dict[str, list[dict[str, Any]]]:
    """The units of both books that take the option in one book only: added in the new
    book's order, with their price there; removed in the old book's, with their price
    then. A unit added to the book or removed from it is listed as such, not here."""
    out: dict[str, list[dict[str, Any]]] = {}
    for kind, option, side, units in (
        ("added", new, after, (new_takers - old_takers) & before.units.keys()),
        ("removed", old, before, (old_takers - new_takers) & after.units.keys()),
    ):
        if units:
            out[kind] = [
                {"id": unit_id, "name": unit["name"], "cost": _price(option, unit_id)}
                for unit_id, unit in side.units.items()
                if unit_id in units
            ]
    return out


def _section_changes(old: _Side, new: _Side, labels: _Labels) -> list[dict[str, Any]]:
    """Sections held by both books whose own words or limits changed."""
    before = {
        section["id"]: (package["id"], section) for package in old.book["packages"] for section in package["sections"]
    }
    out = []
    for package in new.book["packages"]:
        for section in package["sections"]:
            if section["id"] not in before:
                continue
            was_in, was = before[section["id"]]
            if was_in == package["id"] and (
                was == section or all(was.get(k) == section.get(k) for k in (*SECTION_WORDS, *SECTION_LIMITS))
            ):
                continue
            changes = _pairs(was, section, SECTION_WORDS)
            for key in SECTION_LIMITS:
                then, now = labels.limit(key, was.get(key)), labels.limit(key, section.get(key))
                if then != now:
                    changes[key] = [then, now]
            if was_in != package["id"]:
                changes["package"] = [old.package_name(was_in), new.package_name(package["id"])]
            if changes:
                out.append({"id": section["id"], "label": section["label"], "changes": changes})
    return out


# -- rules -------------------------------------------------------------------------------
Rules = dict[str, Mapping[str, Any]]


def _rule_kinds(book: Book) -> tuple[Rules, Rules]:
    """The book's own rules and the core rules it names, each by name. A rule whose text
    is the converter's note for a rule it had no text for is a core rule with no text."""
    own: Rules = {}
    core: Rules = {}
    for rule in book["rules"]:
        name, text = rule["name"], rule.get("text", "")
        if is_legacy_note(name, text):
            core[name] = {"name": name, "text": ""}
        elif rule.get("core"):
            core[name] = {"name": name, "text": text}
        else:
            own[name] = rule
    return own, core


def _core_text_change(old: Mapping[str, Any], new: Mapping[str, Any]) -> Diff:
    """A core rule's text changed: only when both sides have one (a text not read is no change)."""
    if old["text"] and new["text"] and old["text"] != new["text"]:
        return {"text": [old["text"], new["text"]]}
    return {}


# -- readable labels ---------------------------------------------------------------------
class _Labels:
    """Weapons, items, gains and section limits as a player reads them. `hexes`: ranges
    are in hexes (Arena), not inches."""

    def __init__(self, *, hexes: bool):
        self.hexes = hexes

    def weapon(self, weapon: Mapping[str, Any]) -> str:
        """ "10x Bow (24", A1, AP(1))"."""
        parts = []
        if weapon.get("range"):
            parts.append(_hexes(weapon["range"]) if self.hexes else f'{weapon["range"]}"')
        if weapon.get("attacks") is not None:
            parts.append(f"A{weapon['attacks']}")
        parts.extend(f"{mark} {weapon[key]}" for key, mark in PROFILE_MARKS.items() if key in weapon)
        if weapon.get("weapon_type"):
            parts.append(weapon["weapon_type"])
        if weapon.get("critical"):
            parts.append(f"critical: {weapon['critical']}")
        parts.extend(weapon["rules"])
        return _counted_name(weapon, parts)

    def item(self, item: Mapping[str, Any]) -> str:
        """ "Giant Owl (Rending Claws (A1, Rending), Fast, Flying)", as Army Forge says it."""
        parts = [self.weapon(w) for w in item.get("equipment", [])]
        parts.extend(item["rules"])
        if item.get("mount"):
            parts.append("mount")
        return _counted_name(item, parts)

    def model(self, model: Mapping[str, Any]) -> str:
        stats = model.get("stats", {})
        parts = [STAT_MARKS[k].format(v) if k in STAT_MARKS else f"{k} {v}" for k, v in stats.items()]
        parts.extend(self.weapon(w) for w in model["equipment"])
        parts.extend(model["rules"])
        return _counted_name(model, parts)

    def gain(self, gain: Mapping[str, Any]) -> str:
        kind = gain["kind"]
        if kind == "weapon":
            return self.weapon(gain)
        if kind == "item":
            return self.item(gain)
        if kind == "model":
            return self.model(gain)
        return str(gain["name"])

    def limit(self, key: str, value: Any) -> Any:
        """A section's `targets` as names ("2x Hand Weapon"), `affects` and `select` as
        words ("up to 2 per model"), `optional` as it is; None when absent."""
        if value is None or key == "optional":
            return value
        if key == "targets":
            return [t if isinstance(t, str) else f"{t['count']}x {t['name']}" for t in value]
        words = value["type"] if "value" not in value else f"{value['type']} {value['value']}"
        return f"{words} per {value['per']}" if value.get("per") else words


def _counted_name(thing: Mapping[str, Any], parts: list[str]) -> str:
    count = thing.get("count", 1)
    name = f"{count}x {thing['name']}" if count > 1 else str(thing["name"])
    return f"{name} ({', '.join(parts)})" if parts else name


def _hexes(distance: int) -> str:
    return f"{distance} hex" if distance == 1 else f"{distance} hexes"
