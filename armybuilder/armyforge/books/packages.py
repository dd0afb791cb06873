"""The book's upgrade packages: their sections (what a section replaces or upgrades, how
many picks it allows, as the book's text means it) and options (their costs, per unit
where Army Forge says so, and what they give)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from typing import Any

from armybuilder.armyforge.books.reading import MAX_LABEL, MAX_NAME, Reading, as_list, cut, gain_type, uid, whole
from armybuilder.armyforge.books.rules import rule_text
from armybuilder.armyforge.books.weapons import item, weapon
from armybuilder.armyforge.ids import our_id
from armybuilder.engine.book import name_forms
from factions.armybook import gained_names

# A gained rule that makes an option a command-group upgrade (armybook/1 `command`).
COMMAND_RULES = {
    "Sergeant": "sergeant",
    "Musician": "musician",
    "Banner": "banner",
    "Battle Standard": "banner",
    "Musician / Battle Standard": "musician",
}
COUNT_TYPES = {"exactly": "exactly", "upto": "up to", "all": "all", "any": "any"}
_COUNT_PREFIX_RE = re.compile(r"(\d{1,18}) ?[x×] (.+)")  # "2x Hand Weapon", spaces already single


def section_index(packages: list[Any]) -> dict[str, tuple[str, str]]:
    """Each section's Army Forge uid and id -> (package uid, our section id)."""
    index: dict[str, tuple[str, str]] = {}
    for package in packages:
        if not isinstance(package, dict) or not isinstance(package.get("uid"), str):
            continue
        for section in as_list(package.get("sections")):
            section_id = uid(section) if isinstance(section, dict) else None
            if section_id is None:
                continue
            for key in ("uid", "id"):
                if isinstance(section.get(key), str):
                    index[section[key]] = (package["uid"], our_id(section_id))
    return index


def package(r: Reading, path: str, data: Any) -> dict[str, Any] | None:
    if not isinstance(data, dict):
        r.problem(path, "should be an object")
        return None
    r.fields(path, "package", data)
    package_uid = r.string(data, "uid", f"{path}.uid")
    if not package_uid:
        return None
    users = r.users.get(package_uid, [])
    sections = r.list_of(data, "sections", f"{path}.sections")
    converted = [s for i, section in enumerate(sections) if (s := _section(r, f"{path}.sections[{i}]", section, users))]
    return {"id": our_id(package_uid), "sections": converted}


def _uid_of(r: Reading, path: str, data: dict[str, Any], kind: str, what: str) -> str | None:
    """The uid of a section or an option (`kind`, `what`: "a section"), its fields read;
    None, and a problem, without one."""
    r.fields(path, kind, data)
    found = uid(data)
    if found is None:
        r.problem(f"{path}.uid", f"{what} needs its uid")
    return found


def _label(value: Any, default: str) -> str:
    """A label as shown: its spaces made single, cut to MAX_LABEL; `default` if none."""
    return cut(" ".join(value.split()), MAX_LABEL) if isinstance(value, str) and value.strip() else default


def _section(r: Reading, path: str, data: Any, users: list[tuple[str, frozenset[str]]]) -> dict[str, Any] | None:
    if not isinstance(data, dict):
        r.problem(path, "should be an object")
        return None
    section_id = _uid_of(r, path, data, "section", "a section")
    if section_id is None:
        return None
    our = our_id(section_id)
    label = _label(data.get("label"), "Upgrade")
    variant = data.get("variant")
    targets = [t for t in as_list(data.get("targets")) if isinstance(t, str) and t.strip()]
    if variant == "upgrade" and targets:
        variant = "attachment"  # "Upgrade all Longbows with one": attaches to what it names
    if variant not in ("replace", "upgrade", "attachment"):
        r.warn(
            f"{path}.variant",
            f'section "{label}" has variant {variant!r}, which is not read: the section is left out',
        )
        return None
    if variant == "replace" and not targets:
        r.warn(f"{path}.targets", f'section "{label}" replaces nothing it names: the section is left out')
        return None
    section_users = [unit for unit, without in users if our not in without]
    package_users = {unit for unit, _without in users}
    options = r.list_of(data, "options", f"{path}.options")
    converted = [
        o
        for i, option in enumerate(options)
        if (o := _option(r, f"{path}.options[{i}]", option, label, section_users, package_users))
    ]
    if not converted:
        r.warn(f"{path}.options", f'section "{label}" has no options: the section is left out')
        return None
    affects = _count(r, f"{path}.affects", data.get("affects"))
    select = _count(r, f"{path}.select", data.get("select"))
    out: dict[str, Any] = {"id": our, "label": label, "variant": variant}
    if targets:
        out["targets"] = [_target(t) for t in targets]
    out.update(limits(variant, affects, select, len(converted)))
    out["options"] = converted
    r.emitted_sections.add(our)
    return out


def _count(r: Reading, path: str, value: Any) -> dict[str, Any] | None:
    """Army Forge's affects/select: {"type": "exactly", "value": 1}, {"type": "all"},
    a bare number (exactly that many) or a bare type. Unreadable: absent, with a warning."""
    if value is None:
        return None
    if isinstance(value, int) and not isinstance(value, bool):
        value = {"type": "exactly", "value": value}
    elif isinstance(value, str):
        value = {"type": value}
    raw_type = value.get("type") if isinstance(value, dict) else None
    kind = COUNT_TYPES.get(re.sub(r"[\s_-]", "", raw_type).lower()) if isinstance(raw_type, str) else None
    if kind is None:
        r.warn(path, f"cannot read {value!r} as a count: read as absent")
        return None
    if kind in ("all", "any"):
        return {"type": kind}
    number = whole(value.get("value"))
    if number is None or number < 1:
        r.warn(f"{path}.value", f'"{raw_type}" with {value.get("value")!r}: read as 1')
        number = 1
    return {"type": kind, "value": number}


def _option(
    r: Reading, path: str, data: Any, label: str, users: list[str], package_users: set[str]
) -> dict[str, Any] | None:
    if not r.is_object(path, data, "an option"):
        return None
    option_id = _uid_of(r, path, data, "option", "an option")
    if option_id is None:
        return None
    text = _label(data.get("label"), option_id)
    cost, overrides = _option_costs(r, path, data, text, users, package_users)
    if cost is None:
        return None
    gains = [
        g
        for i, each in enumerate(r.list_of(data, "gains", f"{path}.gains"))
        if (g := _gain(r, f"{path}.gains[{i}]", each))
    ]
    out: dict[str, Any] = {"id": our_id(option_id), "label": text, "cost": cost}
    if overrides:
        out["costs"] = overrides
    command = next(
        (COMMAND_RULES[g["name"]] for g in gains if g["kind"] == "rule" and g["name"] in COMMAND_RULES), None
    )
    if command:
        out["command"] = command
    out["gains"] = gains
    return out


def _option_costs(
    r: Reading, path: str, data: dict[str, Any], label: str, users: list[str], package_users: set[str]
) -> tuple[int | None, dict[str, int]]:
    """The option's cost and per-unit overrides. Army Forge's per-unit `costs` are
    what it charges; the top-level `cost` only counts for a unit without one, so when
    every unit has its own it is stale (often negative) and the most common per-unit
    cost takes its place."""
    costs = _unit_costs(r, f"{path}.costs", data.get("costs"))
    taking = set(users)
    known = {unit: value for unit, value in costs.items() if unit in taking}
    for unit in costs:
        # A unit that switches this section off keeps its cost in Army Forge: no news.
        if unit not in package_users:
            r.warn(f"{path}.costs", f'"{label}" has a cost for unit "{unit}", which does not take it: ignored')
    top = whole(data.get("cost"))
    if data.get("cost") is not None and top is None:
        r.warn(f"{path}.cost", f'"{label}" has cost {data.get("cost")!r}, which is not a number: ignored')
    missing = [unit for unit in users if unit not in known]
    if known and (not missing or top is None):
        cost = Counter(known.values()).most_common(1)[0][0]
        if missing:
            r.warn(
                f"{path}.cost",
                f'"{label}" has no cost for {", ".join(missing)}: the most common cost, {cost}, is used',
            )
    elif top is not None:
        cost = top
    elif not users:
        cost = 0  # no unit takes it: nothing is ever charged
    else:
        r.problem(f"{path}.cost", f'option "{label}" has no cost')
        return None, {}
    return cost, {unit: value for unit, value in known.items() if value != cost}


def _unit_costs(r: Reading, path: str, costs: Any) -> dict[str, int]:
    """Army Forge's per-unit costs, [{"unitId": "x", "cost": 5}] (or {"x": 5})."""
    if costs is None:
        return {}
    pairs: list[tuple[Any, Any]] = []
    if isinstance(costs, dict):
        pairs = list(costs.items())
    elif isinstance(costs, list):
        for i, entry in enumerate(costs):
            if isinstance(entry, dict) and isinstance(entry.get("unitId"), str):
                r.fields(f"{path}[{i}]", "cost", entry)
                pairs.append((entry["unitId"], entry.get("cost")))
            else:
                r.warn(f"{path}[{i}]", 'not a per-unit cost {"unitId": …, "cost": …}: ignored')
    else:
        r.warn(path, "not a list of per-unit costs: ignored")
    out = {}
    for unit_id, value in pairs:
        number = whole(value)
        if number is None:
            r.warn(f"{path}.{unit_id}", f"not a cost: {value!r}, ignored")
        else:
            out[our_id(unit_id)] = number
    return out


def _gain(r: Reading, path: str, data: Any) -> dict[str, Any] | None:
    if not r.is_object(path, data, "a gain"):
        return None
    kind = gain_type(data)
    if kind == "ArmyBookWeapon":
        found = weapon(r, path, data, None)
        return {"kind": "weapon", **found} if found else None
    if kind == "ArmyBookRule":
        text = rule_text(r, path, data)
        return {"kind": "rule", "name": text} if text else None
    if kind == "ArmyBookItem":
        return item(r, path, data)
    r.warn(f"{path}.type", f'gain "{data.get("name")}" of type {kind!r} is not read: left out')
    return None


def limits(variant: str, affects: dict[str, Any] | None, select: dict[str, Any] | None, options: int) -> dict[str, Any]:
    """Army Forge's affects and select as armybook/1 says them, read as the book's text
    means them (nothing is compulsory in Army Forge, so "exactly" is optional):

    - "Replace X", "Replace 2x X" (no affects): one pick, replacing one X (or one pair).
    - "Replace any X", "Upgrade any model with": one pick per X carried, or per model;
      with "with one" / "with up to N", that many per X or per model.
    - "Upgrade up to three models with one": one per model, at most three models.
    - "Upgrade with:", "Upgrade with any:", "Upgrade one model with:", "Upgrade all
      models with:" (no count, or "any"): each option once.
    - "... with one:", "... with up to N:": that many picks in all."""
    out: dict[str, Any] = {}
    counted = affects is not None and affects["type"] in ("any", "up to")
    if variant == "replace" and affects is None:
        affects = {"type": "exactly", "value": 1}
    if variant == "attachment" and affects is None:
        affects = {"type": "all"}
    if affects is not None:
        out["affects"] = affects
    per = "item" if variant in ("replace", "attachment") else "model"
    if select is None or select["type"] == "any":
        if counted:
            if select is not None and options > 1:
                out["select"] = {"type": "up to", "value": options, "per": per}
        elif variant != "replace" and options > 1:
            out["select"] = {"type": "up to", "value": 1, "per": "option"}
        elif variant == "replace" and select is not None and options > 1:
            out["select"] = {"type": "up to", "value": 1, "per": "option"}
    else:
        out["select"] = {"type": select["type"], "value": select["value"]}
        if counted:
            out["select"]["per"] = per
        if select["type"] == "exactly":
            out["optional"] = True  # "with one" in Army Forge: one or none
    return out


def resolve_targets(book: dict[str, Any]) -> None:
    """Army Forge names what a section works on as its label says it ("Replace all Hand
    Weapons"); write each target as the name of the equipment or item it finds, singular
    or plural ("Hand Weapon"), so the builder's words match the unit's. A target that
    finds nothing is left as written, for the book checks to report."""
    gained = gained_names(book["packages"])
    gained_index = _first_by_form(gained)
    carried: dict[str, set[str]] = {}
    for unit in book["units"]:
        names = {w["name"] for w in unit["equipment"]} | {i["name"] for i in unit.get("items", [])}
        for entry in unit["upgrades"]:
            carried.setdefault(entry if isinstance(entry, str) else entry["package"], set()).update(names)
    for each in book["packages"]:
        sections = [section for section in each["sections"] if "targets" in section]
        known = carried.get(each["id"], set())
        indexes = (_first_by_form(known), gained_index) if sections else ()
        for section in sections:
            resolved = []
            for target in section["targets"]:
                name = target if isinstance(target, str) else target["name"]
                found = name if name in known or name in gained else _first_same(name, indexes)
                resolved.append(found if isinstance(target, str) else {**target, "name": found})
            section["targets"] = resolved


def _first_by_form(names: Iterable[str]) -> dict[str, str]:
    """Each form of `names` (engine.book.name_forms) -> the first name, in sorted order,
    that has it: what a name is the same as is then looked up, not searched for."""
    index: dict[str, str] = {}
    for name in sorted(names):
        for form in name_forms(name):
            index.setdefault(form, name)
    return index


def _first_same(name: str, indexes: Iterable[dict[str, str]]) -> str:
    """The first name, in sorted order, of those `indexes` were made of that is the same
    as `name` (engine.book.same_name: their forms meet); else `name`."""
    found = [index[form] for index in indexes for form in name_forms(name) if form in index]
    return min(found, default=name)


def _target(name: str) -> str | dict[str, Any]:
    """ "2x Hand Weapon" -> {"name": "Hand Weapon", "count": 2}; other names as written
    (the engine matches singular and plural either way)."""
    name = " ".join(name.split())
    match = _COUNT_PREFIX_RE.fullmatch(name)
    if match and int(match[1]) > 1:
        return {"name": cut(match[2], MAX_NAME), "count": min(int(match[1]), 100)}
    return cut(match[2] if match else name, MAX_NAME)
