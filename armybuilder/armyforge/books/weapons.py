"""Weapons and items: a weapon a unit starts with or a gain gives, and an item (a mount,
a relic), whose rules and weapons are its bearer's. Each is held against Army Forge's own
label of it."""

from __future__ import annotations

import re
from typing import Any

from armybuilder.armyforge.books.reading import COUNT_LABEL_RE, MAX_NAME, Reading, as_list, cut, gain_type, whole
from armybuilder.armyforge.books.rules import as_written, rule_text, rule_texts
from armybuilder.engine.labels import item_label, label_parts, weapon_label

_RANGE_RE = re.compile(r'(\d{1,18}) ?(?:"|”|in|inches)?')


def weapon(r: Reading, path: str, data: Any, default_count: int | None) -> dict[str, Any] | None:
    """A weapon a unit starts with (`default_count` = models) or that an option or
    item gives (`count` per model or item covered)."""
    name = r.name(path, data, "a weapon")
    if name is None:
        return None
    r.fields(path, "weapon", data)
    name = cut(" ".join(name.split()), MAX_NAME)
    attacks = data.get("attacks")
    if isinstance(attacks, str) and attacks.strip().isdigit():
        attacks = int(attacks)
    elif isinstance(attacks, str):
        attacks = attacks.strip().upper()
    if attacks is None or isinstance(attacks, bool) or attacks == "":
        r.warn(f"{path}.attacks", f'weapon "{name}" has no attacks value: 0 is used')
        attacks = 0
    elif isinstance(attacks, str) and not re.fullmatch(r"\d*D\d+([+-]\d+)?", attacks):
        r.warn(f"{path}.attacks", f'weapon "{name}" has attacks {attacks!r}, which is not a number: 0 is used')
        attacks = 0
    # `attacksMultiplier` says how Army Forge's editor made `attacks` (the attacks of
    # several crew or heads added up): `attacks` is already the total, as the weapon's
    # label says ("Crew Attacks (A9)" with a multiplier of 3). Nothing to multiply.
    count = whole(data.get("count"))
    if data.get("count") is not None and (count is None or count < 1):
        r.warn(f"{path}.count", f'weapon "{name}" has count {data.get("count")!r}: 1 is used')
        count = None
    out: dict[str, Any] = {"name": name}
    if default_count is not None:
        out["count"] = count or default_count
    elif count and count > 1:
        out["count"] = count
    range_ = whole(data.get("range"))
    if range_ is None and isinstance(data.get("range"), str):
        range_ = range_inches(data["range"])
    if range_ is not None and range_ > 0:
        out["range"] = range_
    elif data.get("range") not in (None, 0, "", "0") and range_ is None:
        r.warn(f"{path}.range", f'weapon "{name}" has range {data.get("range")!r}: read as melee')
    out["attacks"] = attacks
    out["rules"] = _in_label_order(rule_texts(r, f"{path}.specialRules", as_list(data.get("specialRules"))), data)
    label = weapon_label(name, range=out.get("range"), attacks=attacks, rules=as_written(r, out["rules"]))
    r.check_label(path, f'weapon "{name}"', data.get("label"), label)
    return out


def item(r: Reading, path: str, data: Any) -> dict[str, Any] | None:
    """An ArmyBookItem as an armybook/1 item gain: rules and weapons of its content."""
    name = r.name(path, data, "an item")
    if name is None:
        return None
    r.fields(path, "item", data)
    name = cut(" ".join(name.split()), MAX_NAME)
    rules: dict[str, None] = {}  # each once, in the order given
    equipment: list[dict[str, Any]] = []
    _item_content(r, path, name, as_list(data.get("content")), rules, equipment)
    weapons = [
        weapon_label(w["name"], range=w.get("range"), attacks=w["attacks"], rules=as_written(r, w["rules"]))
        for w in equipment
    ]
    label = item_label(name, weapons=weapons, rules=as_written(r, rules))
    r.check_label(path, f'item "{name}"', data.get("label"), label)
    gain: dict[str, Any] = {"kind": "item", "name": name, "rules": list(rules)}
    if equipment:
        gain["equipment"] = equipment
    count = whole(data.get("count"))
    if count is not None and count > 1:
        gain["count"] = count
    return gain


def _item_content(
    r: Reading, path: str, name: str, content: list[Any], rules: dict[str, None], equipment: list[dict[str, Any]]
) -> None:
    for i, part in enumerate(content):
        part_path = f"{path}.content[{i}]"
        kind = gain_type(part)
        if kind == "ArmyBookRule":
            text = rule_text(r, part_path, part)
            if text is not None:
                rules[text] = None
        elif kind == "ArmyBookWeapon":
            found = weapon(r, part_path, part, None)
            if found is not None:
                equipment.append(found)
        elif kind == "ArmyBookItem":  # an item inside an item: its contents are the outer item's
            _item_content(r, part_path, name, as_list(part.get("content")), rules, equipment)
        else:
            r.warn(f"{part_path}.type", f'item "{name}" holds a {kind!r}, which is not read: left out')


def range_inches(text: str) -> int | None:
    """A range written as text ("24", '24"', "24 in"), in inches; None if it is not one.
    Spaces made single first: a pattern that took any run of them would try every split
    of a long one."""
    inches = _RANGE_RE.fullmatch(" ".join(text.split()))
    return int(inches[1]) if inches else None


def _in_label_order(rules: list[str], data: dict[str, Any]) -> list[str]:
    """A weapon's rules in the order its Army Forge label gives them, which is the order
    Army Forge prints them in ("Heavy Halberd (A3, AP(1), Rending)" for a weapon whose
    rules are listed Rending, AP); as given when the label names other rules."""
    label = data.get("label")
    if not isinstance(label, str) or len(rules) < 2:
        return rules
    parts = label_parts(COUNT_LABEL_RE.sub("", " ".join(label.split()), count=1))[1]
    ordered = [part for part in parts if part in set(rules)]
    return ordered if sorted(ordered) == sorted(rules) else rules
