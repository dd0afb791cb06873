"""Building books, rulesets and lists for engine tests, with no database.

Rulesets come from the same data rows the migrations load (factions/data/rulesets.json),
so the tests check the shipped limits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from armybuilder.engine import (
    ArmyList,
    Book,
    RulesetSpec,
    Validation,
    book_from_dict,
    list_from_dict,
    ruleset_from_dict,
    validate_list,
)

DATA = Path(__file__).resolve().parents[2] / "factions" / "data"
RULESET_DATA = {r["slug"]: r for r in json.loads((DATA / "rulesets.json").read_text())}
STATS = {
    "aof": {"quality": 4, "defense": 4},
    "aof-regiments": {"quality": 4, "defense": 4},
    "aof-skirmish": {"quality": 4, "defense": 4},
    "opf": {"quality": 4},
    "aof-arena": {"move": 3, "rush": 5, "evasion": 3, "toughness": 3, "stamina": 4, "health": 6},
}


def ruleset(slug: str, *, limits: list[dict] | None = None) -> RulesetSpec:
    data = dict(RULESET_DATA[slug])
    if limits is not None:
        data["limits"] = limits
    return ruleset_from_dict(data)


def weapon(name: str = "Hand Weapon", count: int = 1, attacks: int = 1, **extra: Any) -> dict:
    return {"name": name, "count": count, "attacks": attacks, "rules": extra.pop("rules", []), **extra}


def unit(
    uid: str,
    *,
    system: str = "aof",
    type: str = "infantry",
    size: int = 10,
    cost: int = 100,
    rules: list[str] | None = None,
    equipment: list[dict] | None = None,
    upgrades: list[str] | None = None,
    stats: dict | None = None,
) -> dict:
    if rules is None:
        rules = ["Hero", "Tough(3)"] if type == "hero" and system in ("aof", "aof-skirmish") else []
    return {
        "id": uid,
        "name": uid.replace("-", " ").title(),
        "type": type,
        "size": size,
        "cost": cost,
        "stats": stats or dict(STATS[system]),
        "rules": rules,
        "equipment": equipment if equipment is not None else [weapon(count=size)],
        "upgrades": upgrades or [],
    }


def hero(uid: str = "captain", **kw: Any) -> dict:
    kw.setdefault("size", 1)
    kw.setdefault("cost", 60)
    return unit(uid, type="hero", **kw)


def section(sid: str, variant: str, options: list[dict], **kw: Any) -> dict:
    return {"id": sid, "label": kw.pop("label", sid), "variant": variant, **kw, "options": options}


def option(oid: str, cost: int = 5, gains: list[dict] | None = None, **kw: Any) -> dict:
    return {"id": oid, "label": kw.pop("label", oid), "cost": cost, **kw, "gains": gains or []}


def book(system: str, units: list[dict], packages: list[dict] | None = None, **kw: Any) -> Book:
    return book_from_dict(
        {
            "format": "armybook/1",
            "system": system,
            "slug": "test",
            "name": "Test Army",
            "version": "1.0.0",
            "rules": kw.get("rules", []),
            "spells": [],
            "units": units,
            "packages": packages or [],
            **({"composition": kw["composition"]} if "composition" in kw else {}),
        }
    )


def army(system: str, points: int | None, entries: list[dict], **kw: Any) -> ArmyList:
    return list_from_dict({"system": system, "faction": "test", "points_limit": points, "entries": entries, **kw})


def entries(unit_id: str, n: int, start: int = 0, **kw: Any) -> list[dict]:
    return [{"id": f"{unit_id}-{i}", "unit": unit_id, **kw} for i in range(start, start + n)]


def run(system: str, the_book: Book, points: int | None, the_entries: list[dict], **kw: Any) -> Validation:
    limits = kw.pop("limits", None)
    return validate_list(the_book, ruleset(system, limits=limits), army(system, points, the_entries, **kw))


def codes(validation: Validation) -> list[str]:
    return [issue.code for issue in validation.issues]


def only(validation: Validation, code: str):
    found = [issue for issue in validation.issues if issue.code == code]
    assert len(found) == 1, validation.issues
    return found[0]


def ruleset_with_core_rules(slug: str) -> RulesetSpec:
    data = dict(RULESET_DATA[slug])
    core = json.loads((DATA / "core_rules" / f"{slug}.json").read_text())
    data["core_rules"] = {rule["name"]: rule["rated"] for rule in core}
    return ruleset_from_dict(data)
