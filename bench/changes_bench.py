"""How long `factions.changes.book_changes` takes (the target: under 50 ms for the largest book).

For each official Army Forge book in ../shared/armyforge/ that is also held at 3.5.1
(../shared/armyforge/3.5.1/), the median time of comparing the two versions as the
converter reads them; then the same for a synthetic 300-unit book (the Wood Elves'
units and packages copied under new ids) against a next version in which a third of the
units and options change price, some units and options come and go, and profiles,
rules and section limits change. The summary's time is printed beside each.

Run: .venv/bin/python bench/changes_bench.py   (uses a throw-away SQLite database, for
the rulesets the converter reads)
"""

from __future__ import annotations

import copy
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchenv import REPO, median_ms, start_django  # noqa: E402

start_django()

from django.core.management import call_command  # noqa: E402

from armybuilder.armyforge.books.convert import armybook_from_armyforge  # noqa: E402
from factions.changes import book_changes, changes_summary  # noqa: E402
from factions.selectors import ruleset_infos  # noqa: E402

ARMYFORGE = REPO.parent / "shared" / "armyforge"
OLD = ARMYFORGE / "3.5.1"
TARGET_MS = 50.0
REPEAT = 50
SYNTHETIC_UNITS = 300

Book = dict[str, Any]


def convert(path: Path, rulesets: dict[str, Any]) -> Book:
    system = path.name.split("--", 1)[0]
    data = json.loads(path.read_text(encoding="utf-8"))
    return armybook_from_armyforge(data, rulesets=rulesets, system=system).book


def synthetic(book: Book, units: int) -> Book:
    """`book` grown to `units` units: whole copies of its units and packages, each copy's
    ids (units, packages, sections, options, per-unit costs) suffixed with its number."""
    out = {**copy.deepcopy(book), "units": [], "packages": []}
    copy_number = 0
    while len(out["units"]) < units:
        suffix = f".{copy_number}"

        def again(ident: str, suffix: str = suffix) -> str:
            return ident + suffix

        for unit in book["units"]:
            twin = copy.deepcopy(unit)
            twin["id"] = again(unit["id"])
            twin["name"] = f"{unit['name']} {copy_number}"
            twin["upgrades"] = [
                again(ref) if isinstance(ref, str) else {"package": again(ref["package"]), "without": ref["without"]}
                for ref in unit["upgrades"]
            ]
            for ref in twin["upgrades"]:
                if isinstance(ref, dict):
                    ref["without"] = [again(s) for s in ref["without"]]
            out["units"].append(twin)
        for package in book["packages"]:
            twin = copy.deepcopy(package)
            twin["id"] = again(package["id"])
            for section in twin["sections"]:
                section["id"] = again(section["id"])
                for option in section["options"]:
                    option["id"] = again(option["id"])
                    if "costs" in option:
                        option["costs"] = {again(u): c for u, c in option["costs"].items()}
            out["packages"].append(twin)
        copy_number += 1
    out["units"] = out["units"][:units]
    return out


def next_version(book: Book) -> Book:
    """`book` with changes of every kind spread through it."""
    new = copy.deepcopy(book)
    new["version"] = "9.9.9"
    for i, unit in enumerate(new["units"]):
        if i % 3 == 0:
            unit["cost"] += 5
        if i % 7 == 0:
            unit["stats"]["quality"] = max(2, unit["stats"]["quality"] - 1)
            unit["rules"] = [*unit["rules"][1:], "Furious"]
        if i % 11 == 0 and unit["equipment"]:
            unit["equipment"][0]["attacks"] = 9
    removed = new["units"][::25]
    new["units"] = [u for u in new["units"] if u not in removed]
    for unit in removed[:5]:
        new["units"].append({**unit, "id": unit["id"] + ".new", "name": unit["name"] + " (new)"})
    options = [o for p in new["packages"] for s in p["sections"] for o in s["options"]]
    for i, option in enumerate(options):
        if i % 3 == 0:
            option["cost"] += 5
        if i % 13 == 0:
            option["label"] += " (revised)"
            option["gains"] = [{"kind": "rule", "name": "Furious"}]
    for package in new["packages"][::4]:
        section = package["sections"][0]
        section["options"] = section["options"][1:] or section["options"]
        section["options"].append({"id": section["id"] + ".extra", "label": "Extra", "cost": 5, "gains": []})
        section["select"] = {"type": "up to", "value": 2}
    new["spells"] = new["spells"][1:]
    return new


def timings(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median, fastest) wall time of `fn()` over `repeat` calls, in milliseconds: on a
    busy machine the fastest says what the code costs, the median what a caller waits."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times), min(times)


def report(label: str, old: Book, new: Book) -> float:
    changes = book_changes(old, new)
    ms, fastest = timings(lambda: book_changes(old, new), REPEAT)
    summary_ms = median_ms(lambda: changes_summary(changes), REPEAT)
    counts = changes_summary(changes)
    units, options = counts["units"], counts["options"]
    options_held = sum(len(s["options"]) for p in new["packages"] for s in p["sections"])
    print(
        f"  {label:<52} {ms:6.2f} ms (fastest {fastest:6.2f}; summary {summary_ms:.3f})  {len(new['units']):>3} units, "
        f"{options_held:>4} options; units +{units['added']} -{units['removed']} ~{units['changed']}, "
        f"options +{options['added']} -{options['removed']} ~{options['changed']}"
    )
    return ms


def main() -> None:
    books = sorted(p for p in ARMYFORGE.glob("*--*.json") if (OLD / p.name).exists())
    if not books:
        sys.exit(f"no Army Forge books held at both versions in {ARMYFORGE} and {OLD}")
    call_command("migrate", verbosity=0, stdout=open(os.devnull, "w"))
    rulesets = ruleset_infos()
    print(f"book_changes, median of {REPEAT} (target: under {TARGET_MS:.0f} ms), and the summary's median:")
    worst = 0.0
    wood_elves: Book | None = None
    for path in books:
        old, new = convert(OLD / path.name, rulesets), convert(path, rulesets)
        worst = max(worst, report(f"{path.name} {old['version']} -> {new['version']}", old, new))
        if path.name == "aof--wood-elves.json":
            wood_elves = new
    if wood_elves is not None:
        big = synthetic(wood_elves, SYNTHETIC_UNITS)
        worst = max(worst, report(f"synthetic {SYNTHETIC_UNITS} units (Wood Elves copies)", big, next_version(big)))
        worst = max(worst, report(f"synthetic {SYNTHETIC_UNITS} units, no change", big, copy.deepcopy(big)))
    print(f"slowest: {worst:.2f} ms ({'within' if worst < TARGET_MS else 'OVER'} the {TARGET_MS:.0f} ms target)")


if __name__ == "__main__":
    main()
