"""Changes a player makes to a list in the builder, as pure functions on armylist/1
entries: each takes the entries (or, for the settings, the list) and returns new ones. The web builder applies them and
saves the result with army_list_update, like any other client of the API would."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

Entries = list[dict[str, Any]]
POINTS_LIMIT = "The points limit must be a whole number above 0."


class EditError(ValueError):
    """The change makes no sense for this list (an entry that is not there, say)."""


def _find(entries: Entries, entry_id: str) -> int:
    for i, entry in enumerate(entries):
        if entry["id"] == entry_id:
            return i
    raise EditError(f'No entry "{entry_id}" in this list.')


def new_entry_id(entries: Entries) -> str:
    return _free_id({e["id"] for e in entries})


def _free_id(taken: set[str]) -> str:
    n = len(taken) + 1
    while f"e{n}" in taken:
        n += 1
    return f"e{n}"


def blank_entry(entry_id: str, unit_id: str) -> dict[str, Any]:
    return {"id": entry_id, "unit": unit_id, "options": {}, "combined": False, "joined_to": None, "name": None}


def add_entry(entries: Entries, unit_id: str) -> tuple[Entries, str]:
    entry_id = new_entry_id(entries)
    return [*entries, blank_entry(entry_id, unit_id)], entry_id


@dataclass(frozen=True)
class Removal:
    """What a removal took out, enough to put it back: each entry removed with its place
    in the list (in order), and the heroes it left in the list unjoined (hero id: the id
    of the unit they had joined)."""

    removed: tuple[tuple[int, dict[str, Any]], ...]
    unjoined: dict[str, str] = field(default_factory=dict)


def remove_entries(entries: Entries, entry_ids: list[str]) -> tuple[Entries, Removal]:
    """The list without these entries (a hero left without its unit stays, unjoined), and
    what was taken out."""
    for entry_id in entry_ids:
        _find(entries, entry_id)
    gone = set(entry_ids)
    kept, removed, unjoined = [], [], {}
    for i, entry in enumerate(entries):
        if entry["id"] in gone:
            removed.append((i, entry))
            continue
        if entry.get("joined_to") in gone:
            unjoined[entry["id"]] = entry["joined_to"]
            entry = {**entry, "joined_to": None}
        kept.append(entry)
    return kept, Removal(tuple(removed), unjoined)


def remove_entry(entries: Entries, entry_id: str) -> tuple[Entries, Removal]:
    return remove_entries(entries, [entry_id])


def restore_entries(entries: Entries, removal: Removal) -> Entries:
    """The list with what a removal took out put back, as it was if nothing has changed
    since: each entry at its place (or the end, if the list is shorter now), under its id
    (a fresh one if another entry has taken it), joined again where the unit it joined, or
    the hero that joined it, is still there and has not been joined by another since."""
    taken = {e["id"] for e in entries}
    ids = {entry["id"]: entry["id"] for _, entry in removal.removed if entry["id"] not in taken}
    taken |= set(ids)
    for _, entry in removal.removed:
        if entry["id"] not in ids:
            ids[entry["id"]] = fresh = _free_id(taken)
            taken.add(fresh)
    restored = [dict(entry) for entry in entries]
    for i, entry in removal.removed:
        restored.insert(min(i, len(restored)), {**entry, "id": ids[entry["id"]], "joined_to": None})
    wanted = {ids[entry["id"]]: entry["joined_to"] for _, entry in removal.removed if entry["joined_to"]}
    wanted |= removal.unjoined
    by_id = {entry["id"]: entry for entry in restored}
    for hero_id, unit_id in wanted.items():
        hero, unit_id = by_id.get(hero_id), ids.get(unit_id, unit_id)
        if hero is None or hero["joined_to"] is not None or unit_id not in by_id or unit_id == hero_id:
            continue
        if not any(entry["joined_to"] == unit_id for entry in restored):
            hero["joined_to"] = unit_id
    return restored


def duplicate_entry(entries: Entries, entry_id: str) -> tuple[Entries, str]:
    i = _find(entries, entry_id)
    copy_id = new_entry_id(entries)
    twin = {**copy.deepcopy(entries[i]), "id": copy_id, "joined_to": None}
    return [*entries[: i + 1], twin, *entries[i + 1 :]], copy_id


def rename_entry(entries: Entries, entry_id: str, name: str) -> Entries:
    i = _find(entries, entry_id)
    name = name.strip()[:200]
    return [*entries[:i], {**entries[i], "name": name or None}, *entries[i + 1 :]]


def move_entry(entries: Entries, entry_id: str, step: int) -> Entries:
    i = _find(entries, entry_id)
    j = max(0, min(len(entries) - 1, i + step))
    moved = list(entries)
    moved.insert(j, moved.pop(i))
    return moved


def set_options(entries: Entries, entry_id: str, options: dict[str, int]) -> Entries:
    i = _find(entries, entry_id)
    picks = {option: n for option, n in options.items() if n > 0}
    return [*entries[:i], {**entries[i], "options": picks}, *entries[i + 1 :]]


def set_combined(entries: Entries, entry_id: str, combined: bool) -> Entries:
    i = _find(entries, entry_id)
    return [*entries[:i], {**entries[i], "combined": combined}, *entries[i + 1 :]]


def set_joined(entries: Entries, entry_id: str, target_id: str | None) -> Entries:
    """The entry joined to `target_id` (None: on its own again). A hero that joins a unit
    moves to sit right after it, so that the list reads as the table does."""
    i = _find(entries, entry_id)
    joined = {**entries[i], "joined_to": target_id}
    if target_id is None:
        return [*entries[:i], joined, *entries[i + 1 :]]
    if target_id == entry_id:
        raise EditError("A unit cannot join itself.")
    rest = [*entries[:i], *entries[i + 1 :]]
    t = _find(rest, target_id)
    return [*rest[: t + 1], joined, *rest[t + 1 :]]


def bump_option(options: dict[str, int], bump: tuple[str, int] | None) -> dict[str, int]:
    """The picks with one option taken a step up or down (never below 0)."""
    if bump is None:
        return options
    option_id, step = bump
    return {**options, option_id: max(0, options.get(option_id, 0) + step)}


def change_options(
    entries: Entries, entry_id: str, picks: dict[str, int], bump: tuple[str, int] | None = None
) -> Entries:
    """Only what the player just touched, applied to the picks the entry has now: the
    page's script sends each change as it happens, so quick clicks add up even before
    the page has shown the previous one."""
    current = next((entry for entry in entries if entry["id"] == entry_id), None)
    if current is None:
        raise EditError("That unit is no longer in the list.")
    return set_options(entries, entry_id, bump_option({**current.get("options", {}), **picks}, bump))


def change_settings(
    data: dict[str, Any],
    *,
    name: str | None,
    notes: str | None,
    points_limit: int | None,
    force_org: bool,
    force_org_choice: bool,
) -> dict[str, Any]:
    """The list's own settings; a name or notes of None is left as it is. The points
    limit only changes on a list that has one, and force organisation only where the
    ruleset's game lets players choose it (`force_org_choice`: Age of Fantasy and its
    variants; the other rulesets have no such choice)."""
    changed = dict(data)
    if name is not None:
        changed["name"] = name.strip()[:200]
    if notes is not None:
        changed["notes"] = notes[:5000]
    if data["points_limit"] is not None:
        if points_limit is None or points_limit < 1:
            raise EditError(POINTS_LIMIT)
        changed["points_limit"] = points_limit
    if force_org_choice:
        changed["force_org"] = force_org
    return changed
