"""List formats the list import reads: armylist/1 (taken as it is) and the "Army Forge
file" that Army Forge saves (`saveVersion` 3), converted to armylist/1.

An Army Forge list names its army book by Army Forge's id; the faction imported from that
book (factions.models.Faction.armyforge_id) must be in the catalogue, or the answer says
which book to import first. Unit and option ids are Army Forge's, which the book import
keeps. Anything that cannot be carried over is a 400 with field errors, and nothing is
saved.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import orjson

from armybuilder.engine.book import Book
from armybuilder.lists.format import ListFormatError, parse_list_body
from factions.armybook import json_has_nul
from factions.armyforge import our_id, ruleset_of
from factions.models import Ruleset
from factions.selectors import BookHandle, engine_book_get, faction_by_armyforge_id

SAVE_VERSION = 3
REQUIRED = "This field is required."


def is_armyforge_list(data: Any) -> bool:
    return isinstance(data, dict) and "format" not in data and ("saveVersion" in data or "list" in data)


def list_from_file(raw: bytes) -> tuple[dict[str, Any], BookHandle]:
    """An uploaded list file (armylist/1, or an Army Forge file) read and checked: the
    list and its book's handle, or ListFormatError naming what is wrong."""
    if json_has_nul(raw):
        raise ListFormatError({"file": ["The file contains a NUL character, which no field accepts."]})
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise ListFormatError({"file": [f"Not a JSON file: {exc}"]}) from None
    return parse_list_body(to_armylist(body))


def to_armylist(data: Any) -> Any:
    """The document as an armylist/1 list; anything not recognised is passed on for the
    armylist/1 checks to report."""
    if is_armyforge_list(data):
        return armylist_from_armyforge(data)
    return data


class _Errors:
    """Field errors in DRF's nested shape, collected from paths like ("list", "units", 2, "id")."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}

    def add(self, path: tuple[str | int, ...], message: str) -> None:
        node = self.tree
        for part in path[:-1]:
            child = node.setdefault(str(part), {})
            if isinstance(child, list):  # a field already holding messages: keep them together
                child.append(message)
                return
            node = child
        node.setdefault(str(path[-1]), []).append(message)

    def __bool__(self) -> bool:
        return bool(self.tree)

    def raise_if_any(self) -> None:
        if self.tree:
            raise ListFormatError(self.tree)


def armylist_from_armyforge(data: dict[str, Any]) -> dict[str, Any]:
    """An Army Forge file as an armylist/1 list. Raises ListFormatError (field errors)
    when it is not one we can carry over."""
    errors = _Errors()
    if data.get("saveVersion") != SAVE_VERSION:
        found = data.get("saveVersion")
        errors.add(
            ("saveVersion",),
            REQUIRED
            if found is None
            else f"Army Forge files with saveVersion {SAVE_VERSION} can be imported, not {found!r}.",
        )
    system = ruleset_of(data.get("gameSystem"))
    if system is None:
        errors.add(
            ("gameSystem",),
            REQUIRED
            if data.get("gameSystem") is None
            else f'Army Forge game system "{data["gameSystem"]}" is not one we build lists for '
            "(Age of Fantasy: aof, aofs or aofr).",
        )
    army_list = data.get("list")
    if not isinstance(army_list, dict):
        errors.add(("list",), REQUIRED if army_list is None else "Expected an object with the list's units.")
        army_list = {}
    units = army_list.get("units")
    if not isinstance(units, list) or not units:
        errors.add(("list", "units"), "An Army Forge list needs its units.")
        units = []
    errors.raise_if_any()

    book_id = _book_id(data, units, errors)
    errors.raise_if_any()
    faction = faction_by_armyforge_id(system=system, armyforge_id=book_id)
    if faction is None:
        name = data.get("armyName") or data.get("armyFaction")
        named = f' ("{name}")' if isinstance(name, str) and name else ""
        raise ListFormatError(
            {
                "armyId": [
                    f'The Army Forge army book "{book_id}"{named} is not in the catalogue for {system}: '
                    f"import it first (POST /api/factions/import/?system={system}, or "
                    f"manage.py import_armybook --system {system} FILE)."
                ]
            }
        )
    book, _ruleset = engine_book_get(system=system, slug=faction.slug)
    entries = _entries(units, book, errors)
    errors.raise_if_any()

    points_limit, notes = army_list.get("pointsLimit"), ""
    if isinstance(points_limit, bool) or not isinstance(points_limit, int) or points_limit < 1:
        default = Ruleset.objects.filter(slug=system).values_list("default_points", flat=True).first()
        points_limit = default
        notes = f"The Army Forge file had no points limit; set to {default} pts."
    name = army_list.get("name") if isinstance(army_list.get("name"), str) else data.get("armyName")
    return {
        "format": "armylist/1",
        "name": name if isinstance(name, str) else "",
        "system": system,
        "faction": faction.slug,
        "points_limit": points_limit,
        "force_org": True,
        "notes": notes,
        "entries": entries,
    }


def _book_id(data: dict[str, Any], units: list[Any], errors: _Errors) -> str:
    """The Army Forge book the list is built from; we import lists of one book."""
    ids = [data.get("armyId")] + [u.get("armyId") for u in units if isinstance(u, dict)]
    found = list(dict.fromkeys(i for i in ids if isinstance(i, str) and i))
    if not found:
        errors.add(("armyId",), REQUIRED)
        return ""
    if len(found) > 1:
        errors.add(
            ("armyId",),
            f"The list uses units of several Army Forge books ({', '.join(found)}); a list here has one faction.",
        )
    return found[0]


def _entries(units: list[Any], book: Book, errors: _Errors) -> list[dict[str, Any]]:
    """One entry per Army Forge unit, except that the second half of a combined unit (a
    copy of it with `joinToUnit` naming the first half) folds into the first."""
    by_selection: dict[str, int] = {}
    for i, unit in enumerate(units):
        path = ("list", "units", i)
        if not isinstance(unit, dict):
            errors.add(path, "Expected an object.")
            continue
        for key in ("id", "selectionId"):
            if not isinstance(unit.get(key), str) or not unit[key]:
                errors.add((*path, key), REQUIRED if unit.get(key) is None else "Not a valid string.")
        if unit.get("joinToUnit") is not None and not isinstance(unit["joinToUnit"], str):
            errors.add((*path, "joinToUnit"), "Expected the selection id of another unit, or null.")
        for key in ("combined", "customName"):
            expected, what = (bool, "true or false") if key == "combined" else (str, "a string")
            if unit.get(key) is not None and not isinstance(unit[key], expected):
                errors.add((*path, key), f"Expected {what}.")
        selection = unit.get("selectionId")
        if isinstance(selection, str) and selection:
            if selection in by_selection:
                errors.add((*path, "selectionId"), f'Selection id "{selection}" is used twice.')
            by_selection[selection] = i
    if errors:
        return []

    halves = _combined_halves(units, by_selection)
    picks = [_picks(i, unit, book, errors) for i, unit in enumerate(units)]
    entries = []
    for i, unit in enumerate(units):
        if unit["selectionId"] in halves:
            continue
        path = ("list", "units", i)
        entry: dict[str, Any] = {"id": unit["selectionId"], "unit": our_id(unit["id"]), "options": picks[i]}
        partner = [j for j, u in enumerate(units) if halves.get(u["selectionId"]) == unit["selectionId"]]
        if unit.get("combined"):
            entry["combined"] = True
        for j in partner:
            entry["options"] = _merge_halves(path, picks[i], picks[j], book.units.get(entry["unit"]), errors)
        if len(partner) > 1:
            errors.add((*path, "combined"), "A combined unit is two halves; this one has more.")
        target = unit.get("joinToUnit")
        if target:
            target = halves.get(target, target)
            if target not in by_selection:
                errors.add((*path, "joinToUnit"), f'No unit with selection id "{target}" in the list.')
            entry["joined_to"] = target
        custom = unit.get("customName")
        unit_def = book.units.get(entry["unit"])
        if isinstance(custom, str) and custom.strip() and (unit_def is None or custom.strip() != unit_def.name):
            entry["name"] = custom.strip()[:200]
        entries.append(entry)
    return entries


def _combined_halves(units: list[dict[str, Any]], by_selection: dict[str, int]) -> dict[str, str]:
    """selectionId of each second half of a combined unit -> the first half's."""
    halves = {}
    for unit in units:
        target = unit.get("joinToUnit")
        if not unit.get("combined") or target not in by_selection:
            continue
        host = units[by_selection[target]]
        if host.get("combined") and host.get("id") == unit.get("id") and not host.get("joinToUnit"):
            halves[unit["selectionId"]] = target
    return halves


def _picks(index: int, unit: dict[str, Any], book: Book, errors: _Errors) -> dict[str, int]:
    """Option id -> picks, counted from the unit's selected upgrades."""
    path = ("list", "units", index)
    unit_def = book.units.get(our_id(unit["id"]))
    if unit_def is None:
        errors.add((*path, "id"), f'No unit "{unit["id"]}" in {book.name}.')
        return {}
    selected = unit.get("selectedUpgrades", [])
    if not isinstance(selected, list):
        errors.add((*path, "selectedUpgrades"), "Expected a list of upgrades.")
        return {}
    counts: Counter[str] = Counter()
    for j, upgrade in enumerate(selected):
        option = upgrade.get("optionId") if isinstance(upgrade, dict) else None
        if not isinstance(option, str) or not option:
            errors.add((*path, "selectedUpgrades", j, "optionId"), REQUIRED)
        elif our_id(option) not in unit_def.options:
            errors.add(
                (*path, "selectedUpgrades", j, "optionId"),
                f'{unit_def.name} has no upgrade option "{option}" in {book.name} {book.version}.',
            )
        else:
            counts[our_id(option)] += 1
    return dict(counts)


def _merge_halves(
    path: tuple[str | int, ...], first: dict[str, int], second: dict[str, int], unit, errors: _Errors
) -> dict[str, int]:
    """A combined entry's picks: upgrades of some models add up; an upgrade of the whole
    unit is bought for both halves at once here, so both halves must have it."""
    merged = dict(first)
    for option_id in dict.fromkeys([*first, *second]):
        section = unit.options[option_id][0] if unit is not None and option_id in unit.options else None
        if section is not None and section.whole_unit:
            if first.get(option_id, 0) != second.get(option_id, 0):
                errors.add(
                    (*path, "combined"),
                    f'The two halves of combined {unit.name} differ in "{section.label}" '
                    f"({unit.options[option_id][1].label}); here a whole-unit upgrade is bought for both halves.",
                )
        else:
            merged[option_id] = first.get(option_id, 0) + second.get(option_id, 0)
    return merged
