"""A list as Army Forge's "Share as File" JSON (saveVersion 3), for lists of books that
came from Army Forge, so a player can open a list made here in Army Forge.

Army Forge ids are ours with the `af.` prefix taken off (ids.our_id adds it to ids that
do not start with a letter or digit). A combined entry becomes Army
Forge's two halves: the second a copy of the first joined to it, upgrades of the whole
unit on both, upgrades of some models shared out between them. The import
(reading.py) reads the file back to the same list.
"""

from __future__ import annotations

import hashlib
from typing import Any

from armybuilder.armyforge.ids import GAME_CODES, armyforge_id, release_of
from armybuilder.engine.book import Book
from armybuilder.lists.models import ArmyList

SAVE_VERSION = 3


def opens_in_armyforge(book: Book | None) -> bool:
    """Whether Army Forge could open a list of `book`: one of its books, of its games."""
    return book is not None and bool(book.armyforge_id) and book.system in GAME_CODES


def _short_id(*parts: str, length: int = 12) -> str:
    """A stable id in Army Forge's alphabet, made from `parts`."""
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    return "".join(alphabet[byte % len(alphabet)] for byte in digest[:length])


def armyforge_list_file(
    *,
    army_list: ArmyList,
    book: Book,
    book_id: str,
    game: str,
    total: int,
    models: int,
    activations: int,
) -> dict[str, Any]:
    """The list as an Army Forge "Share as File" document. `book` is the version the list
    is pinned to, `book_id` the Army Forge id of its book, `game` our ruleset of that
    book, `total`, `models` and `activations` the list's as validated (the units that act
    on their own: `Validation.activations`, the engine's answer to who joined whom)."""
    code = GAME_CODES[game]
    version = release_of(army_list.book_version)
    modified = army_list.updated.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    list_id = _short_id("list", army_list.share_key)
    entries = army_list.entries
    taken = {entry["id"] for entry in entries}
    units: list[dict[str, Any]] = []
    for entry in entries:
        units += _units(entry, book, book_id, taken)
    return {
        "id": list_id,
        "gameSystem": code,
        "armyId": book_id,
        "armyIds": [book_id],
        "armyFaction": book.name,
        "armyName": book.name,
        "modified": modified,
        "saveVersion": SAVE_VERSION,
        "favourite": False,
        "armyVersions": [{"version": version, "armyId": book_id}],
        "listPoints": total,
        "list": {
            "id": list_id,
            "key": _short_id("key", army_list.share_key, length=21),
            "name": army_list.name or book.name,
            "description": army_list.notes,
            "pointsLimit": army_list.points_limit,
            "campaignMode": False,
            "narrativeMode": False,
            "forceOrg": army_list.force_org,
            "gameSystem": code,
            "isCloud": False,
            "modified": modified,
            "cloudModified": None,
            "activationCount": activations,
            "modelCount": models,
            "units": units,
        },
    }


def _units(entry: dict[str, Any], book: Book, book_id: str, taken: set[str]) -> list[dict[str, Any]]:
    """Army Forge's unit (two halves for a combined entry) of one entry."""
    unit = book.units.get(entry["unit"])
    combined = bool(entry.get("combined"))
    first: list[tuple[str, str]] = []  # (section id, option id) per pick
    second: list[tuple[str, str]] = []
    for option_id, picks in (entry.get("options") or {}).items():
        found = unit.options.get(option_id) if unit is not None else None
        section = found[0].id if found else ""
        if not combined:
            first += [(section, option_id)] * picks
        elif found is not None and found[0].whole_unit:
            first += [(section, option_id)] * picks
            second += [(section, option_id)] * picks
        else:  # some models' upgrades: shared out between the halves, which add up again
            first += [(section, option_id)] * (picks - picks // 2)
            second += [(section, option_id)] * (picks // 2)

    def half(selection: str, picks: list[tuple[str, str]], join: str | None) -> dict[str, Any]:
        record: dict[str, Any] = {
            "id": armyforge_id(entry["unit"]),
            "armyId": book_id,
            "selectionId": selection,
            "selectedUpgrades": [
                {
                    "instanceId": _short_id("pick", selection, str(i), length=9),
                    "upgradeId": armyforge_id(section) if section else None,
                    "optionId": armyforge_id(option),
                }
                for i, (section, option) in enumerate(picks)
            ],
            "combined": combined,
            "joinToUnit": join,
            "xp": 0,
            "traits": [],
            "notes": None,
        }
        if entry.get("name"):
            record["customName"] = entry["name"]
        return record

    units = [half(entry["id"], first, entry.get("joined_to"))]
    if combined:
        second_id = f"{entry['id']}-2"
        while second_id in taken:
            second_id += "-2"
        taken.add(second_id)
        units.append(half(second_id, second, entry["id"]))
    return units
