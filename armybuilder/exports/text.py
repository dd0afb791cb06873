"""Plain-text export in the shape players paste into chats:

++ Border Patrol [Age of Fantasy 3.2.0, Human Empire] 1495/1500 pts ++
1x Marshal [1] Q4+ D4+ | 90 pts | Hero, Tough(3) | joined to Pike Levy
    Knightly Blade (A3, AP(1))
1x Pike Levy [20], combined Q5+ D5+ | 200 pts
    20x Pike (A1, Counter)
++ 2 units, 21 models | valid ++

A combined unit is written as players write it: one unit of the summed size, "combined"
after its size (not "2x Pike Levy [20]", which reads as two units of twenty).
"""

from __future__ import annotations

from armybuilder.engine import Validation
from armybuilder.engine.labels import weapon_label
from armybuilder.engine.loadout import WeaponLine

STAT_FORMAT = {"quality": "Q{}+", "defense": "D{}+"}
ARENA_STATS = ("move", "rush", "evasion", "toughness", "stamina", "health")


def _stats(stats: dict[str, int]) -> str:
    if "move" in stats:
        return " ".join(f"{key[:3].title()} {stats[key]}" for key in ARENA_STATS if key in stats)
    return " ".join(STAT_FORMAT[key].format(value) for key, value in stats.items() if key in STAT_FORMAT)


def _count(number: int, noun: str) -> str:
    """ "1 unit", "2 units" """
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def weapon_text(weapon: WeaponLine, *, hexes: bool = False) -> str:
    """ "2x Bow (24", A1, AP(1))"; with `hexes` (Arena) the range is in hexes, and the
    weapon's accuracy, strength, damage and critical effects are said."""
    profile = []
    if hexes:
        profile.append(("adjacent" if weapon.range == 1 else f"{weapon.range} hexes") if weapon.range else "melee")
    if weapon.attacks is not None and hexes:
        profile.append(f"A{weapon.attacks}")
    for key in ("accuracy", "strength", "damage"):
        if key in weapon.profile and isinstance(weapon.profile[key], int):
            profile.append(f"{key[:3].upper()} {weapon.profile[key]}")
    critical = weapon.profile.get("critical")
    if critical:
        profile.append(f"critical: {critical}")
    count = f"{weapon.count}x " if weapon.count > 1 else ""
    return count + weapon_label(
        weapon.name,
        range=None if hexes else weapon.range,
        attacks=None if hexes else weapon.attacks,
        profile=profile,
        rules=weapon.rules,
    )


def list_text(
    *, name: str, ruleset_title: str, faction_name: str, validation: Validation, uses_points: bool = True
) -> str:
    """The list as text. A ruleset without points (Arena) says no points, and measures
    its ranges in hexes."""
    hexes = not uses_points
    limit = validation.points_limit
    points = f"{validation.total_points}/{limit} pts" if limit is not None else "warband"
    lines = [f"++ {name or 'Unnamed list'} [{ruleset_title}, {faction_name}] {points} ++"]
    labels = {e.entry.id: e.label for e in validation.entries}
    for result in validation.entries:
        entry = result.entry
        if result.unit is None:
            lines.append(f"1x {entry.unit} (not in the army book)" + (" | 0 pts" if uses_points else ""))
            continue
        loadout = result.loadout
        assert loadout is not None  # an entry whose unit is in the book has a loadout
        title = f"{result.label} ({result.unit.name})" if entry.name else result.unit.name
        size = f"[{loadout.models}], combined" if entry.combined else f"[{loadout.models}]"
        parts = [f"1x {title} {size} {_stats(dict(result.unit.stats))}".rstrip()]
        if uses_points:
            parts.append(f"{result.cost} pts")
        rules = ", ".join(str(rule) for rule in loadout.rules)
        if rules:
            parts.append(rules)
        parts.extend(str(group) for group in loadout.some)  # "1 model (Weapon Team): Tough(3)"
        if result.joined is not None:
            parts.append(f"joined to {labels[result.joined]}")
        lines.append(" | ".join(parts))
        if loadout.weapons:
            lines.append("    " + ", ".join(weapon_text(w, hexes=hexes) for w in loadout.weapons))
        if loadout.items:
            lines.append("    " + ", ".join(loadout.items))
    models = sum(e.models for e in validation.entries)
    errors = [i for i in validation.issues if i.severity == "error"]
    status = "valid" if validation.valid else f"NOT VALID, {len(errors)} {'error' if len(errors) == 1 else 'errors'}"
    lines.append(f"++ {_count(len(validation.entries), 'unit')}, {_count(models, 'model')} | {status} ++")
    for issue in validation.issues:
        lines.append(f"!! {issue.severity}: {issue.message} ({issue.rule})")
    return "\n".join(lines) + "\n"
