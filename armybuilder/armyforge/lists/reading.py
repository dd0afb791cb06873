"""Army Forge's two list formats, read into armylist/1.

Army Forge keeps a list in two shapes:

- **Share as File** (`saveVersion` 3), the file a player saves: each unit's picks as
  section and option ids, the versions of the books the list was built on
  (`armyVersions`) and Army Forge's total (`listPoints`).
- **Share link**: what `GET {ARMYFORGE_URL}/api/tts?id=…` answers for a share link:
  each unit with its cost and every picked upgrade and option in full, but no book
  version.

Both become one armylist/1 list of one army book, pinned to a version of that book the
site holds: the version the list was built on when it is held, else the nearest one held
(a warning names both); a share link, which names no version, to the newest held version
whose prices are the list's. Everything Army Forge knows that a list here does not hold
(unit notes, campaign XP and traits) goes into the list's notes, with a warning; where
Army Forge's total differs from ours, a warning gives both and the entries that differ.
Anything that cannot be carried over is a ListFormatError (field errors), and nothing is
saved.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeGuard

from armybuilder.armyforge.ids import GAME_TITLES, our_id, release_of, ruleset_of
from armybuilder.bidi import without_direction_controls
from armybuilder.engine.book import Book, Unit
from armybuilder.lists.format import MAX_ENTRIES, MAX_PICKS, ListFormatError, parse_list_body
from armybuilder.lists.selectors import army_list_validate
from factions.models import Faction, Ruleset
from factions.selectors import (
    BookHandle,
    book_handle_find,
    book_versions_held,
    engine_book_get,
    faction_by_armyforge_id,
)
from factions.versions import Version, VersionError

SAVE_VERSION = 3
REQUIRED = "This field is required."
MAX_UNITS = 2 * MAX_ENTRIES  # a combined unit is two units in Army Forge
MAX_NOTES = 5000
MAX_TRIED_VERSIONS = 12  # a list that names no version is priced against at most this many held versions
TRIAL_BUDGET = 3000  # … and against fewer for a long list: versions tried × units at most this (2 at least)

OUR_GAMES = "Age of Fantasy, Age of Fantasy: Skirmish and Age of Fantasy: Regiments (Army Forge's aof, aofs and aofr)"
FORMATS = (
    "armylist/1 (this site's list files and JSON exports), Army Forge's \u201cShare as File\u201d lists "
    "(saveVersion 3) and what an Army Forge share link answers (paste the link itself in the import)"
)


@dataclass
class Warning_:
    """Something the player should know about an import that went through."""

    code: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, **self.details}


@dataclass
class Imported:
    """A list carried over: the checked armylist/1 document, its book's handle at the
    version it is pinned to, and the warnings."""

    data: dict[str, Any]
    handle: BookHandle
    warnings: list[Warning_] = field(default_factory=list)


@dataclass
class _Pick:
    option: str  # Army Forge's option id
    label: str  # the option's label where the list gives it (share links), else ""
    cost: int = 0  # what Army Forge charged the unit for it (share links)


@dataclass
class _Unit:
    index: int
    id: str
    selection: str
    picks: list[_Pick]
    combined: bool
    join: str | None
    custom_name: str
    notes: str
    xp: int
    traits: list[str]
    cost: int | None  # Army Forge's cost of this unit with its upgrades (share links)
    name: str  # the unit's name where the list gives it (share links)


@dataclass
class _List:
    """An Army Forge list as read from either format, not yet checked against a book."""

    kind: str  # "file" or "link"
    system: str
    book_id: str
    book_name: str
    version: str | None  # the version of the book it was built on, when the list says
    total: int | None  # Army Forge's total
    name: str
    description: str
    points_limit: Any
    force_org: bool
    units: list[_Unit]
    units_path: tuple[str, ...]  # where the units are in the document, for errors


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

    def refuse(self) -> NoReturn:
        """Raise these errors now (at least one has just been added)."""
        raise ListFormatError(self.tree)


# -- which format ---------------------------------------------------------------------
ARMYLIST_KEYS = ("format", "system", "faction", "entries", "points_limit")


def document_kind(data: Any) -> str | None:
    """ "armylist", "file" (Share as File), "link" (a share link's answer), or None for a
    JSON object that is none of them. Anything not an object is left to the armylist/1
    checks to refuse."""
    if not isinstance(data, dict):
        return None
    if any(key in data for key in ARMYLIST_KEYS):
        return "armylist"
    if "saveVersion" in data or "list" in data:
        return "file"
    if isinstance(data.get("units"), list) and ("gameSystem" in data or "listPoints" in data):
        return "link"
    if "gameSystem" in data or "armyId" in data:
        return "file"
    return None


def not_a_list() -> ListFormatError:
    return ListFormatError({"non_field_errors": [f"This is not a list the site can read: it reads {FORMATS}."]})


# -- reading either format --------------------------------------------------------------
def read_armyforge_list(data: dict[str, Any], kind: str) -> _List:
    errors = _Errors()
    if kind == "file":
        army_list = _read_file_head(data, errors)
        units_path: tuple[str, ...] = ("list", "units")
        head = army_list
    else:
        army_list = data
        units_path = ("units",)
        head = data
    system = _game(data, head, errors)
    errors.raise_if_any()
    units = head.get("units")
    if not isinstance(units, list) or not units:
        errors.add(units_path, "An Army Forge list needs its units.")
        errors.refuse()
    elif len(units) > MAX_UNITS:
        errors.add(
            units_path, f"An Army Forge list of at most {MAX_UNITS} units can be imported; this one has {len(units)}."
        )
    errors.raise_if_any()
    book_id, book_name = _book(data, units, system, errors)
    errors.raise_if_any()
    read = [_unit(i, unit, kind, units_path, errors) for i, unit in enumerate(units)]
    errors.raise_if_any()
    seen: set[str] = set()
    for unit in read:
        if unit is not None and unit.selection in seen:
            errors.add((*units_path, unit.index, "selectionId"), f'Selection id "{unit.selection}" is used twice.')
        elif unit is not None:
            seen.add(unit.selection)
    errors.raise_if_any()
    units_read = [unit for unit in read if unit is not None]
    version = _version(data, book_id) if kind == "file" else None
    total = data.get("listPoints")
    if not _whole(total):
        total = sum(unit.cost or 0 for unit in units_read) if kind == "link" else None
    name = army_list.get("name") if isinstance(army_list.get("name"), str) else data.get("armyName")
    description = army_list.get("description")
    force_org = army_list.get("forceOrg")
    return _List(
        kind=kind,
        system=system or "",
        book_id=book_id,
        book_name=book_name,
        version=version,
        total=total,
        name=_shown(name)[:200] if isinstance(name, str) else "",
        description=_shown(description) if isinstance(description, str) else "",
        points_limit=army_list.get("pointsLimit"),
        force_org=force_org if isinstance(force_org, bool) else True,
        units=units_read,
        units_path=units_path,
    )


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 10_000_000


def _read_file_head(data: dict[str, Any], errors: _Errors) -> dict[str, Any]:
    if data.get("saveVersion") != SAVE_VERSION:
        found = data.get("saveVersion")
        errors.add(
            ("saveVersion",),
            REQUIRED
            if found is None
            else f"Army Forge files with saveVersion {SAVE_VERSION} can be imported, not {found!r}.",
        )
    army_list = data.get("list")
    if not isinstance(army_list, dict):
        errors.add(("list",), REQUIRED if army_list is None else "Expected an object with the list's units.")
        return {}
    return army_list


def _game(data: dict[str, Any], head: dict[str, Any], errors: _Errors) -> str | None:
    """Our ruleset of the list's game, or an error naming its game and ours."""
    code = data.get("gameSystem", head.get("gameSystem"))
    system = ruleset_of(code)
    if system is None:
        if code is None:
            errors.add(("gameSystem",), REQUIRED)
        else:
            shown = code if isinstance(code, (str, int)) and not isinstance(code, bool) else None
            game = GAME_TITLES.get(str(shown).strip().lower()) if shown is not None else None
            text = str(shown) if shown is not None else ""
            text = text if len(text) <= 40 else text[:39] + "\u2026"
            if game:
                what = f'a list of {game} (Army Forge game system "{text}")'
            else:
                what = f'a list of Army Forge game system "{text}"' if shown is not None else "a list of no game"
            errors.add(
                ("gameSystem",),
                f"This is {what}; the site builds lists of {OUR_GAMES}.",
            )
    return system


def _book(data: dict[str, Any], units: list[Any], system: str | None, errors: _Errors) -> tuple[str, str]:
    """The Army Forge book the list is built from, and its name; a list here is of one book."""
    ids = [data.get("armyId")]
    if isinstance(data.get("armyIds"), list):
        ids += data["armyIds"][:MAX_UNITS]
    ids += [unit.get("armyId") for unit in units if isinstance(unit, dict)]
    found = list(dict.fromkeys(i for i in ids if isinstance(i, str) and i))
    own_name = data.get("armyFaction") or data.get("armyName")
    if not found:
        errors.add(("armyId",), REQUIRED)
        return "", ""
    if len(found) > 1:
        names = ", ".join(_book_label(system, book_id, data) for book_id in found[:6])
        more = f" and {len(found) - 6} more" if len(found) > 6 else ""
        errors.add(
            ("armyId",),
            f"The list uses units of {len(found)} Army Forge army books ({names}{more}); a list here is of one "
            "army book: make one list per book, or keep one book's units in Army Forge and share that list.",
        )
        return "", ""
    return found[0], own_name if isinstance(own_name, str) else ""


def _book_label(system: str | None, book_id: str, data: dict[str, Any]) -> str:
    faction = faction_by_armyforge_id(system=system, armyforge_id=book_id) if system else None
    if faction is not None:
        return f'{faction.name} "{book_id}"'
    if book_id == data.get("armyId") and isinstance(data.get("armyFaction"), str):
        return f'{data["armyFaction"][:80]} "{book_id}"'
    return f'"{book_id[:40]}"'


def _version(data: dict[str, Any], book_id: str) -> str | None:
    """The version of the book the file says the list was built on."""
    versions = data.get("armyVersions")
    if not isinstance(versions, list):
        return None
    for row in versions[:50]:
        if isinstance(row, dict) and row.get("armyId") == book_id and isinstance(row.get("version"), str):
            version: str = row["version"].strip()
            if 0 < len(version) <= 40:
                return version
    return None


def _unit(index: int, unit: Any, kind: str, units_path: tuple[str, ...], errors: _Errors) -> _Unit | None:
    path: tuple[str | int, ...] = (*units_path, index)
    if not isinstance(unit, dict):
        errors.add(path, "Expected an object.")
        return None
    bad = False
    for key in ("id", "selectionId"):
        value = unit.get(key)
        if not isinstance(value, str) or not value or len(value) > 200:
            errors.add((*path, key), REQUIRED if value is None else "Not a valid string.")
            bad = True
    if unit.get("joinToUnit") is not None and not isinstance(unit["joinToUnit"], str):
        errors.add((*path, "joinToUnit"), "Expected the selection id of another unit, or null.")
        bad = True
    for key, expected, what in (
        ("combined", bool, "true or false"),
        ("customName", str, "a string"),
        ("notes", str, "a string"),
    ):
        if unit.get(key) is not None and not isinstance(unit[key], expected):
            errors.add((*path, key), f"Expected {what}.")
            bad = True
    selected = unit.get("selectedUpgrades", [])
    if selected is None:
        selected = []
    if not isinstance(selected, list):
        errors.add((*path, "selectedUpgrades"), "Expected a list of upgrades.")
        return None
    if len(selected) > MAX_PICKS:
        errors.add((*path, "selectedUpgrades"), f"At most {MAX_PICKS} upgrades a unit can be imported.")
        return None
    picks = []
    for j, upgrade in enumerate(selected):
        pick = _file_pick(upgrade) if kind == "file" else _link_pick(upgrade, unit["id"])
        if pick is None:
            errors.add((*path, "selectedUpgrades", j, "optionId" if kind == "file" else "option"), REQUIRED)
            bad = True
        else:
            picks.append(pick)
    if bad:
        return None
    xp = unit.get("xp")
    traits = unit.get("traits")
    if not isinstance(traits, list):
        traits = []
    # A share link gives the unit's own cost and each option's: the unit costs their sum.
    cost = unit.get("cost")
    cost = cost + sum(pick.cost for pick in picks) if _whole(cost) and kind == "link" else None
    name = unit.get("name")
    return _Unit(
        index=index,
        id=unit["id"],
        selection=unit["selectionId"],
        picks=picks,
        combined=bool(unit.get("combined")),
        join=unit.get("joinToUnit") or None,
        custom_name=_shown(unit.get("customName") or "")[:200],
        notes=_shown(unit.get("notes") or "")[:1000],
        xp=xp if _whole(xp) else 0,
        traits=[_shown(trait)[:80] for trait in traits[:20] if isinstance(trait, str) and _shown(trait)],
        cost=cost,
        name=_shown(name)[:200] if isinstance(name, str) else "",
    )


def _shown(text: str) -> str:
    """A text of the player's that the list keeps, trimmed and with no Unicode direction
    controls, which a list here refuses (armybuilder.bidi): taken out rather than
    refusing a real list for a stray mark."""
    return without_direction_controls(text).strip()


def _file_pick(upgrade: Any) -> _Pick | None:
    option = upgrade.get("optionId") if isinstance(upgrade, dict) else None
    if not isinstance(option, str) or not option or len(option) > 100:
        return None
    return _Pick(option, "")


def _link_pick(upgrade: Any, unit_id: Any) -> _Pick | None:
    option = upgrade.get("option") if isinstance(upgrade, dict) else None
    if not isinstance(option, dict):
        return None
    option_id = option.get("uid") or option.get("id")
    if not isinstance(option_id, str) or not option_id or len(option_id) > 100:
        return None
    label = option.get("label")
    return _Pick(option_id, label[:200] if isinstance(label, str) else "", _option_cost(option, unit_id))


def _option_cost(option: dict[str, Any], unit_id: Any) -> int:
    """What Army Forge charges the unit for an option: its cost for that unit when the
    option has one (`costs`), else its cost."""
    costs = option.get("costs")
    if isinstance(costs, list):
        for row in costs[:200]:
            if isinstance(row, dict) and row.get("unitId") == unit_id and _signed(row.get("cost")):
                cost: int = row["cost"]
                return cost
    return int(option["cost"]) if _signed(option.get("cost")) else 0


def _signed(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) <= 1_000_000


# -- carrying it over to a version of the book -----------------------------------------
@dataclass
class _Carried:
    entries: list[dict[str, Any]]
    missing: list[dict[str, str]]  # units and options the version has not
    errors: _Errors


def _carry(af: _List, book: Book, *, keep_missing: bool) -> _Carried:
    """The list's entries in `book`: one per Army Forge unit, except that the second half
    of a combined unit folds into the first. A unit or option the book has not is an
    error, or with `keep_missing` kept (the list then shows it as a problem) and named."""
    errors = _Errors()
    missing: list[dict[str, str]] = []
    by_selection = {unit.selection: unit for unit in af.units}
    halves = _combined_halves(af.units, by_selection)
    second_halves: dict[str, list[_Unit]] = {}
    for unit in af.units:
        if unit.selection in halves:
            second_halves.setdefault(halves[unit.selection], []).append(unit)
    picks = {unit.selection: _picks(af, unit, book, errors, missing, keep_missing) for unit in af.units}
    entries = []
    for unit in af.units:
        if unit.selection in halves:
            continue
        path: tuple[str | int, ...] = (*af.units_path, unit.index)
        unit_def = book.units.get(our_id(unit.id))
        entry: dict[str, Any] = {"id": unit.selection, "unit": our_id(unit.id), "options": picks[unit.selection]}
        if unit.combined:
            entry["combined"] = True
        partners = second_halves.get(unit.selection, [])
        for other in partners:
            entry["options"] = _merge_halves(path, entry["options"], picks[other.selection], unit_def, errors)
        if len(partners) > 1:
            errors.add((*path, "combined"), "A combined unit is two halves; this one has more.")
        if unit.join:
            target = halves.get(unit.join, unit.join)
            if target not in by_selection:
                errors.add((*path, "joinToUnit"), f'No unit with selection id "{unit.join}" in the list.')
            entry["joined_to"] = target
        if unit.custom_name and (unit_def is None or unit.custom_name != unit_def.name):
            entry["name"] = unit.custom_name
        entries.append(entry)
    return _Carried(entries, missing, errors)


def _combined_halves(units: list[_Unit], by_selection: dict[str, _Unit]) -> dict[str, str]:
    """selectionId of each second half of a combined unit -> the first half's."""
    halves = {}
    for unit in units:
        host = by_selection.get(unit.join) if unit.join else None
        if unit.combined and host is not None and host.combined and host.id == unit.id and not host.join:
            halves[unit.selection] = host.selection
    return halves


def _picks(
    af: _List, unit: _Unit, book: Book, errors: _Errors, missing: list[dict[str, str]], keep_missing: bool
) -> dict[str, int]:
    """Option id -> picks, counted from the unit's selected upgrades."""
    path: tuple[str | int, ...] = (*af.units_path, unit.index)
    unit_def = book.units.get(our_id(unit.id))
    if unit_def is None:
        name = f' ("{unit.name}")' if unit.name else ""
        if not keep_missing:
            errors.add((*path, "id"), f'No unit "{unit.id}"{name} in {book.name}.')
            return {}
        missing.append({"entry": unit.selection, "unit": unit.name or unit.id, "option": "", "label": ""})
        return dict(Counter(our_id(pick.option) for pick in unit.picks))
    counts: Counter[str] = Counter()
    for j, pick in enumerate(unit.picks):
        option_id = our_id(pick.option)
        if option_id not in unit_def.options:
            label = f" ({pick.label})" if pick.label else ""
            if not keep_missing:
                field_name = "optionId" if af.kind == "file" else "option"
                errors.add(
                    (*path, "selectedUpgrades", j, field_name),
                    f'{unit_def.name} has no upgrade option "{pick.option}"{label} in {book.name} {book.version}.',
                )
                continue
            if counts[option_id] == 0:
                missing.append(
                    {"entry": unit.selection, "unit": unit_def.name, "option": pick.option, "label": pick.label}
                )
        counts[option_id] += 1
    return dict(counts)


def _merge_halves(
    path: tuple[str | int, ...], first: dict[str, int], second: dict[str, int], unit: Unit | None, errors: _Errors
) -> dict[str, int]:
    """A combined entry's picks: upgrades of some models add up; an upgrade of the whole
    unit is bought for both halves at once here, so both halves must have it."""
    merged = dict(first)
    for option_id in dict.fromkeys([*first, *second]):
        section = unit.options[option_id][0] if unit is not None and option_id in unit.options else None
        if unit is not None and section is not None and section.whole_unit:
            if first.get(option_id, 0) != second.get(option_id, 0):
                errors.add(
                    (*path, "combined"),
                    f'The two halves of combined {unit.name} differ in "{section.label}" '
                    f"({unit.options[option_id][1].label}); here a whole-unit upgrade is bought for both halves.",
                )
        else:
            merged[option_id] = first.get(option_id, 0) + second.get(option_id, 0)
    return merged


# -- the version to pin to ---------------------------------------------------------------
@dataclass
class _Trial:
    handle: BookHandle
    book: Book
    carried: _Carried
    data: dict[str, Any] | None = None
    costs: dict[str, int] = field(default_factory=dict)
    total: int | None = None


def armylist_from_armyforge(data: dict[str, Any], kind: str) -> Imported:
    """An Army Forge list as an armylist/1 list pinned to a version of its book held
    here, with the warnings. Raises ListFormatError (field errors) when it cannot be
    carried over."""
    af = read_armyforge_list(data, kind)
    faction = faction_by_armyforge_id(system=af.system, armyforge_id=af.book_id)
    if faction is None:
        named = f' ("{af.book_name[:80]}")' if af.book_name else ""
        raise ListFormatError(
            {
                "armyId": [
                    f'The Army Forge army book "{af.book_id}"{named} is not in the catalogue for {af.system}: '
                    f"import it first (POST /api/factions/import/?system={af.system}, or "
                    f"manage.py import_armybook --system {af.system} FILE)."
                ]
            }
        )
    warnings: list[Warning_] = []
    points_limit, limit_note = _points_limit(af)
    held = list(reversed(book_versions_held(faction_id=faction.pk)))  # newest first
    trial_of = _trials(af, faction, points_limit)

    if af.version is not None and (same := [v for v in held if release_of(v) == af.version]):
        trial = _first_matching(af, same, trial_of, keep_missing=False)
    elif af.version is not None:
        nearest = _nearest(af.version, held) or faction.version
        trial = trial_of(nearest, keep_missing=True)
        warnings.append(
            Warning_(
                "book_version_nearest",
                f"The list was built on {faction.name} {af.version}, which the site does not hold; it is priced "
                f"with {faction.name} {trial.handle.version}, the nearest version held. "
                "Ask the site's operator to sync the books from Army Forge for the version the list was built on.",
                {"armyforge_version": af.version, "book_version": trial.handle.version},
            )
        )
    else:
        # A file that names no version must fit a version held; a share link is of Army
        # Forge's newest version, which the site may not hold yet: what is missing is kept.
        trial = _first_matching(af, held or [faction.version], trial_of, keep_missing=af.kind == "link")
        if trial.handle.version != faction.version and _prices_match(af, trial):
            warnings.append(
                Warning_(
                    "book_version_matched",
                    f"The list does not say which version of {faction.name} it was built on; its prices are "
                    f"those of {faction.name} {trial.handle.version}, so it is pinned to that version "
                    f"(the current one is {faction.version}).",
                    {"book_version": trial.handle.version},
                )
            )
    if limit_note:
        warnings.append(Warning_("points_limit_default", limit_note, {"points_limit": points_limit}))
    trial.carried.errors.raise_if_any()
    if trial.carried.missing:
        warnings.append(_missing_warning(af, faction, trial))
    assert trial.data is not None
    notes, kept = _notes(af, limit_note, trial.book)
    trial.data["notes"] = notes
    warnings += kept
    clean, handle = parse_list_body(trial.data)
    if af.total is not None and trial.total is not None and af.total != trial.total:
        warnings.append(_points_warning(af, faction, trial))
    return Imported(clean, handle, warnings)


def _points_limit(af: _List) -> tuple[int, str]:
    limit = af.points_limit
    if _whole(limit) and limit >= 1:
        return limit, ""
    default = Ruleset.objects.filter(slug=af.system).values_list("default_points", flat=True).first() or 0
    return default, f"The Army Forge file had no points limit; set to {default} pts."


def _trials(af: _List, faction: Faction, points_limit: int) -> Callable[..., _Trial]:
    """The list carried over to one version of its book and priced there."""

    def trial(version: str, *, keep_missing: bool) -> _Trial:
        handle = book_handle_find(system=af.system, slug=faction.slug, version=version)
        assert handle is not None  # the faction was just found
        book = engine_book_get(system=af.system, slug=faction.slug, handle=handle)[0]
        carried = _carry(af, book, keep_missing=keep_missing)
        result = _Trial(handle, book, carried)
        if not carried.errors:
            result.data = {
                "format": "armylist/1",
                "name": af.name,
                "system": af.system,
                "faction": faction.slug,
                "book_version": handle.version,
                "points_limit": points_limit if handle.uses_points else None,
                "force_org": af.force_org,
                "notes": "",
                "entries": carried.entries,
            }
            checked, _handle = parse_list_body(result.data)
            validation = army_list_validate(data=checked, handle=handle)
            result.costs = {row.entry.id: row.cost for row in validation.entries}
            result.total = validation.total_points
        return result

    return trial


def _prices_match(af: _List, trial: _Trial) -> bool:
    if trial.data is None or af.total is None or trial.total != af.total:
        return False
    if af.kind == "link":
        return all(trial.costs.get(entry) == cost for entry, cost in _armyforge_costs(af).items())
    return True


def _first_matching(af: _List, versions: list[str], trial_of: Callable[..., _Trial], *, keep_missing: bool) -> _Trial:
    """Of `versions` (newest first), the first whose prices are Army Forge's; else the
    current one if the list fits it, else the first it fits, else the first (whose errors
    say why). Each version tried prices the whole list, so a long list tries fewer."""
    tries = max(2, min(MAX_TRIED_VERSIONS, TRIAL_BUDGET // max(1, len(af.units))))
    tried = []
    for version in versions[:tries]:
        trial = trial_of(version, keep_missing=keep_missing)
        if _prices_match(af, trial):
            return trial
        tried.append(trial)
    fits = [trial for trial in tried if trial.data is not None]
    current = [trial for trial in fits if trial.handle.is_current]
    return (current or fits or tried)[0]


def _nearest(version: str, held: list[str]) -> str | None:
    """The held version nearest to `version`: the newest older one, else the oldest newer
    one (of versions imported under the same name, the last imported)."""
    try:
        wanted = Version.parse(version)
    except VersionError:
        return None
    versions = [(Version.parse(name), name) for name in held]  # newest first
    older = [pair for pair in versions if pair[0] < wanted]
    newer = [pair for pair in versions if pair[0] > wanted]
    # Of versions of one precedence ("3.5.2", "3.5.2+2"), the first: the last imported.
    if older:
        return max(older, key=lambda pair: pair[0])[1]
    return min(newer, key=lambda pair: pair[0])[1] if newer else None


def _armyforge_costs(af: _List) -> dict[str, int]:
    """Army Forge's cost of each entry (share links): a combined entry's is both halves'."""
    by_selection = {unit.selection: unit for unit in af.units}
    halves = _combined_halves(af.units, by_selection)
    costs: dict[str, int] = {}
    for unit in af.units:
        entry = halves.get(unit.selection, unit.selection)
        costs[entry] = costs.get(entry, 0) + (unit.cost or 0)
    return costs


def _points_warning(af: _List, faction: Faction, trial: _Trial) -> Warning_:
    assert af.total is not None and trial.total is not None
    names = {unit.selection: unit.custom_name or unit.name for unit in af.units}
    entries = {entry["id"]: entry for entry in trial.carried.entries}
    rows = []
    if af.kind == "link":
        for entry, theirs in _armyforge_costs(af).items():
            ours = trial.costs.get(entry, 0)
            if ours != theirs:
                unit = trial.book.units.get(entries[entry]["unit"])
                name = entries[entry].get("name") or (unit.name if unit else names.get(entry) or entry)
                rows.append({"id": entry, "name": name, "armyforge_cost": theirs, "cost": ours})
    shown = "; ".join(f"{row['name']} {row['armyforge_cost']} \u2192 {row['cost']} pts" for row in rows[:10])
    more = f" and {len(rows) - 10} more" if len(rows) > 10 else ""
    which = (
        f" The entries that differ (Army Forge \u2192 here): {shown}{more}."
        if rows
        else (" Army Forge's file gives only its total, not each unit's cost.")
    )
    return Warning_(
        "points_differ",
        f"Army Forge put this list at {af.total} pts; with {faction.name} {trial.handle.version} it comes to "
        f"{trial.total} pts.{which}",
        {"armyforge_total": af.total, "total": trial.total, "entries": rows},
    )


def _missing_warning(af: _List, faction: Faction, trial: _Trial) -> Warning_:
    missing = trial.carried.missing
    words = []
    for row in missing[:10]:
        if row["option"]:
            label = row["label"] or row["option"]
            words.append(f"{row['unit']}'s option \u201c{label}\u201d")
        else:
            words.append(f"the unit \u201c{row['unit']}\u201d")
    more = f" and {len(missing) - 10} more" if len(missing) > 10 else ""
    built = f"{af.version}, which the site does not hold" if af.version else "a version the site may not hold"
    return Warning_(
        "not_in_version",
        f"Not in {faction.name} {trial.handle.version}: {', '.join(words)}{more}. The list was built on {built}; "
        "they are kept in the list, which shows them as problems until it is moved to a version that has them.",
        {"book_version": trial.handle.version, "missing": missing},
    )


def _notes(af: _List, limit_note: str, book: Book) -> tuple[str, list[Warning_]]:
    """The list's notes: Army Forge's description, then each unit's notes and campaign
    records (XP, traits), which a list here has no place for."""
    warnings = []
    lines, campaign, noted = [], 0, 0
    for unit in af.units:
        parts = []
        if unit.notes:
            parts.append(unit.notes)
            noted += 1
        if unit.xp or unit.traits:
            campaign += 1
            if unit.xp:
                parts.append(f"XP {unit.xp}")
            if unit.traits:
                parts.append(f"traits: {', '.join(unit.traits)}")
        if parts:
            unit_def = book.units.get(our_id(unit.id))
            label = unit.custom_name or (unit_def.name if unit_def else unit.name or unit.id)
            lines.append(f"- {label}: {'; '.join(parts)}")
    text = "\n".join(part for part in (limit_note, af.description) if part)
    if lines:
        text = "\n\n".join(part for part in (text, "From Army Forge:\n" + "\n".join(lines)) if part)
    if campaign:
        warnings.append(
            Warning_(
                "campaign_notes",
                f"Army Forge's campaign records of {campaign} unit{'s' if campaign != 1 else ''} (XP and traits) are "
                "kept in the list's notes: lists here do not follow a campaign.",
                {"units": campaign},
            )
        )
    if noted:
        warnings.append(
            Warning_(
                "unit_notes",
                f"The notes of {noted} unit{'s' if noted != 1 else ''} are kept in the list's notes.",
                {"units": noted},
            )
        )
    if len(text) > MAX_NOTES:
        text = text[: MAX_NOTES - 1] + "\u2026"
        warnings.append(Warning_("notes_cut", f"The notes were cut to {MAX_NOTES} characters."))
    return text, warnings
