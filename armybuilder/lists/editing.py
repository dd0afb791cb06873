"""Changes a player makes to a list in the builder, as pure functions on armylist/1
entries: each takes the entries and returns new ones. The web builder applies them and
saves the result with army_list_update, like any other client of the API would."""

from __future__ import annotations

import copy
from typing import Any

Entries = list[dict[str, Any]]


class EditError(ValueError):
    """The change makes no sense for this list (an entry that is not there, say)."""


def _find(entries: Entries, entry_id: str) -> int:
    for i, entry in enumerate(entries):
        if entry["id"] == entry_id:
            return i
    raise EditError(f'No entry "{entry_id}" in this list.')


def new_entry_id(entries: Entries) -> str:
    taken = {e["id"] for e in entries}
    n = len(entries) + 1
    while f"e{n}" in taken:
        n += 1
    return f"e{n}"


def blank_entry(entry_id: str, unit_id: str) -> dict[str, Any]:
    return {"id": entry_id, "unit": unit_id, "options": {}, "combined": False, "joined_to": None, "name": None}


def add_entry(entries: Entries, unit_id: str) -> tuple[Entries, str]:
    entry_id = new_entry_id(entries)
    return [*entries, blank_entry(entry_id, unit_id)], entry_id


def remove_entry(entries: Entries, entry_id: str) -> Entries:
    _find(entries, entry_id)
    kept = []
    for entry in entries:
        if entry["id"] == entry_id:
            continue
        if entry.get("joined_to") == entry_id:  # a hero left without its unit stays, unjoined
            entry = {**entry, "joined_to": None}
        kept.append(entry)
    return kept


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
    i = _find(entries, entry_id)
    if target_id is not None:
        _find(entries, target_id)
        if target_id == entry_id:
            raise EditError("A unit cannot join itself.")
    return [*entries[:i], {**entries[i], "joined_to": target_id}, *entries[i + 1 :]]
