"""Cost-per-stat spread of the bundled army books, so that outliers stand out.

For every unit with no upgrades it works out a rough "value" from its profile (hits it
deals, wounds it takes to kill) and its points per value point, then compares each unit
with its peers across all factions of the ruleset: same unit type and role (caster,
shooter, fighter). Similar units should cost similar points whatever the faction, so a
unit far from its peers' median (below 0.6x or above 1.6x) is flagged: worth a second
look, not necessarily wrong (special rules and spells are not valued here).

Run: .venv/bin/python bench/costs.py [--all]   (--all lists every unit, not just outliers)
"""

import json
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from armybuilder.engine.book import Rule  # noqa: E402

BOOKS = sorted((REPO / "factions" / "data" / "books").glob("*/*.json"))
LOW, HIGH = 0.6, 1.6


def dice_mean(attacks) -> float:
    if isinstance(attacks, int):
        return float(attacks)
    text = str(attacks).upper()  # "D3+3", "2D6"
    count, _, rest = text.partition("D")
    sides, _, plus = rest.partition("+")
    return (int(count or 1) * (int(sides) + 1) / 2) + int(plus or 0)


def value(unit: dict) -> float:
    """Rough worth of a unit: how hard it hits and how long it lasts."""
    stats = unit["stats"]
    quality = stats.get("quality", 4)
    defense = stats.get("defense", quality)
    hit = (7 - quality) / 6  # chance to hit
    block = (defense - 1) / 6  # chance a hit gets through
    tough = (
        max((Rule.parse(r).rating or 1) for r in unit["rules"] if Rule.parse(r).name == "Tough")
        if any(Rule.parse(r).name == "Tough" for r in unit["rules"])
        else 1
    )
    damage = 0.0
    for weapon in unit["equipment"]:
        reach = 1 + (weapon.get("range") or 0) / 24  # a gun that can shoot is worth more
        ap = sum(Rule.parse(r).rating or 0 for r in weapon["rules"] if Rule.parse(r).name == "AP")
        damage += weapon.get("count", 1) * dice_mean(weapon.get("attacks", 1)) * hit * reach * (1 + 0.25 * ap)
    durability = unit["size"] * tough / max(block, 1 / 6)
    return max(damage, 0.5) * 2 + durability


def role(unit: dict) -> str:
    names = {Rule.parse(r).name for r in unit["rules"]}
    if names & {"Caster", "Wizard"}:
        return "caster"
    shooting = sum(w.get("count", 1) for w in unit["equipment"] if (w.get("range") or 0) >= 12)
    return "shooter" if shooting * 2 >= unit["size"] else "fighter"


def main() -> None:
    show_all = "--all" in sys.argv
    by_system: dict[str, list[tuple]] = {}
    for path in BOOKS:
        book = json.loads(path.read_text())
        if book["system"] == "aof-arena":
            continue  # warbands have no points
        for unit in book["units"]:
            by_system.setdefault(book["system"], []).append((book["slug"], unit, unit["cost"] / value(unit)))
    for system, rows in by_system.items():
        groups: dict[tuple[str, str], list[float]] = {}
        for _slug, unit, ratio in rows:
            groups.setdefault((unit["type"], role(unit)), []).append(ratio)
        medians = {key: statistics.median(ratios) for key, ratios in groups.items()}
        relative = [ratio / medians[(unit["type"], role(unit))] for _slug, unit, ratio in rows]
        print(f"\n== {system}: {len(rows)} units in {len(groups)} peer groups (type, role); ", end="")
        print(f"spread {min(relative):.2f}x .. {max(relative):.2f}x of the peer median")
        ordered = sorted(zip(rows, relative, strict=True), key=lambda x: (x[0][1]["type"], role(x[0][1]), x[1]))
        for (slug, unit, _ratio), rel in ordered:
            flag = " <- cheap next to its peers" if rel < LOW else " <- dear next to its peers" if rel > HIGH else ""
            if show_all or flag:
                peer = f"{unit['type']}/{role(unit)}"
                print(f"  {peer:<18} {slug + '/' + unit['id']:<40} {unit['cost']:>4} pts  {rel:>5.2f}x{flag}")
        outliers = sum(1 for rel in relative if rel < LOW or rel > HIGH)
        print(f"  {outliers} of {len(rows)} units outside {LOW}x..{HIGH}x of their peers' median")


if __name__ == "__main__":
    main()
