"""The armylist/1 list format: the one place a list body is read and checked.

`parse_list_body` checks a body field by field (every problem, as plain data: the shape
DRF uses for field errors, so the API can pass it on as it is) and finds the army book
it names. Plain Python written for speed, because validation is on the hot path of the
builder; the API's serializers (armybuilder/api/lists.py) document the same shape for
OpenAPI, and a test keeps the two in step. Used by the API, the web pages and the list
import alike; nothing here knows about HTTP.
"""

from __future__ import annotations

from typing import Any

from armybuilder.bidi import DIRECTION_CONTROLS_RE, direction_problem
from armybuilder.events.models import PACK_KEY_LENGTH, EventPack
from factions.models import Ruleset
from factions.ruleset_format import MAX_POINTS
from factions.selectors import BookHandle, book_handle_find, book_versions_held


class ListFormatError(Exception):
    """A body that is not a well-formed armylist/1 list (or an import that cannot be
    carried over). `errors` holds every problem by field, e.g.
    {"entries": {"2": {"unit": ["This field is required."]}}}."""

    def __init__(self, errors: dict[str, Any]):
        self.errors = errors
        super().__init__(first_error(errors))


def first_error(value: Any) -> str:
    """The first problem of a field-errors tree, as one sentence (for a page's message)."""
    if isinstance(value, list) and value:
        return first_error(value[0])
    if isinstance(value, dict):
        return "; ".join(first_error(v) for v in value.values())
    return str(value)


MAX_ENTRIES = 500
MAX_PICKS = 1000
# Option ids an entry may name: eight times the most any unit of a real army book offers
# (25), so that no pathological entry (185,000 ids in 1.7 MB) is ever stored.
MAX_OPTIONS = 200
Errors = dict[str, Any]

REQUIRED = "This field is required."
UNKNOWN = "Unknown field."
NOT_A_STRING = "Not a valid string."
NOT_AN_INTEGER = "A valid integer is required."
NOT_A_BOOLEAN = "Must be a valid boolean."

LIST_FIELDS = {
    "format",
    "name",
    "system",
    "faction",
    "book_version",
    "points_limit",
    "force_org",
    "notes",
    "entries",
    "event",
}
ENTRY_FIELDS = {"id", "unit", "options", "combined", "joined_to", "name"}


# The texts a player writes, which others read (on a share page, an event's roster): the
# field -> how its problems name it.
WRITTEN = {"name": "The list name", "notes": "The list's notes"}
ENTRY_NAME = "The unit's own name"


def _string(value: Any, *, max_length: int, blank: bool = False, written: str = "") -> list[str]:
    """The problems of a text field; `written`, for text a player writes, names the field
    in the problem of a direction control (armybuilder.bidi)."""
    if not isinstance(value, str):
        return [NOT_A_STRING]
    if not blank and not value.strip():
        return ["This field may not be blank."]
    if len(value) > max_length:
        return [f"Ensure this field has no more than {max_length} characters."]
    if written and (problem := direction_problem(value, written)):
        return [problem]
    return []


def _integer(value: Any, *, low: int, high: int) -> list[str]:
    if isinstance(value, bool) or not isinstance(value, int):
        return [NOT_AN_INTEGER]
    if value < low:
        return [f"Ensure this value is greater than or equal to {low}."]
    if value > high:
        return [f"Ensure this value is less than or equal to {high}."]
    return []


def _check_boolean(errors: Errors, data: dict[str, Any], key: str) -> None:
    if key in data and not isinstance(data[key], bool):
        errors[key] = [NOT_A_BOOLEAN]


def _check_optional_string(
    errors: Errors, data: dict[str, Any], key: str, *, max_length: int, blank: bool = False, written: str = ""
) -> None:
    """A string field that may be left out or null."""
    value = data.get(key)
    if value is not None and (problems := _string(value, max_length=max_length, blank=blank, written=written)):
        errors[key] = problems


def _plain_entry(entry: Any) -> dict[str, Any] | None:
    """The common case, a well-formed entry, checked in one pass; None if anything
    looks off, and then _entry works out what exactly."""
    if type(entry) is not dict or not entry.keys() <= ENTRY_FIELDS:
        return None
    entry_id, unit = entry.get("id"), entry.get("unit")
    options = entry.get("options", {})
    combined, joined_to, name = entry.get("combined", False), entry.get("joined_to"), entry.get("name")
    if not (
        type(entry_id) is str
        and 0 < len(entry_id) <= 100
        and entry_id.strip()
        and type(unit) is str
        and 0 < len(unit) <= 100
        and unit.strip()
        and type(options) is dict
        and len(options) <= MAX_OPTIONS
        and type(combined) is bool
        and (joined_to is None or (type(joined_to) is str and 0 < len(joined_to) <= 100 and joined_to.strip()))
        and (name is None or (type(name) is str and len(name) <= 200 and not DIRECTION_CONTROLS_RE.search(name)))
    ):
        return None
    for key, picks in options.items():
        if not (0 < len(key) <= 100 and type(picks) is int and 0 <= picks <= MAX_PICKS):
            return None
    return {
        "id": entry_id,
        "unit": unit,
        "options": options,
        "combined": combined,
        "joined_to": joined_to,
        "name": name,
    }


def too_many_options(entry: dict[str, Any], count: int) -> str:
    """The problem of an entry with more option ids than MAX_OPTIONS, naming the entry."""
    entry_id = entry.get("id")
    named = f'Entry "{entry_id[:100]}"' if isinstance(entry_id, str) else "This entry"
    unit = entry.get("unit")
    if isinstance(unit, str):
        named += f" ({unit[:100]})"
    return f"{named} has {count:,} options; an entry may have at most {MAX_OPTIONS}, more than any unit offers."


def bounded_entries(entries: Any) -> Any:
    """A stored list's entries with no entry naming more than MAX_OPTIONS option ids: the
    first of them in sorted order are kept (the same on every database: PostgreSQL keeps
    no order of keys). Input has refused more since issue 37 and lists 0010 cut those
    stored before, so this changes nothing but a row written past both; read from such a
    row, a list still costs work and answers in what its units can take."""
    if type(entries) is not list or not any(map(_over_bound, entries)):
        return entries
    return [
        {**entry, "options": {key: entry["options"][key] for key in sorted(entry["options"])[:MAX_OPTIONS]}}
        if _over_bound(entry)
        else entry
        for entry in entries
    ]


def _over_bound(entry: Any) -> bool:
    return type(entry) is dict and type(entry.get("options")) is dict and len(entry["options"]) > MAX_OPTIONS


def check_entry(entry: Any, *, kept: bool = False) -> tuple[dict[str, Any] | None, Errors]:
    """(the entry with defaults filled in, {}) or (None, its field errors). `kept`: an
    entry the site already holds (a backup's), whose name may hold direction controls
    from before they were refused."""
    plain = _plain_entry(entry)
    if plain is not None:
        return plain, {}
    return _entry_in_detail(entry, kept=kept)


def _entry_in_detail(entry: Any, *, kept: bool = False) -> tuple[dict[str, Any] | None, Errors]:
    if not isinstance(entry, dict):
        return None, {"non_field_errors": [f'Expected an object but got type "{type(entry).__name__}".']}
    errors: Errors = {key: [UNKNOWN] for key in entry if key not in ENTRY_FIELDS}
    for key in ("id", "unit"):
        if key not in entry:
            errors[key] = [REQUIRED]
        elif problems := _string(entry[key], max_length=100):
            errors[key] = problems
    options = entry.get("options", {})
    if not isinstance(options, dict):
        errors["options"] = [f'Expected a dictionary of items but got type "{type(options).__name__}".']
    elif len(options) > MAX_OPTIONS:
        # Refused before its ids are looked at: checking them is work in their number.
        errors["options"] = [too_many_options(entry, len(options))]
    else:
        option_errors = {}
        for key, picks in options.items():
            if not key or len(key) > 100:
                option_errors[key[:100]] = [f'"{key[:100]}" is not an option id.']
            elif problems := _integer(picks, low=0, high=MAX_PICKS):
                option_errors[key] = problems
        if option_errors:
            errors["options"] = option_errors
    _check_boolean(errors, entry, "combined")
    _check_optional_string(errors, entry, "joined_to", max_length=100)
    _check_optional_string(errors, entry, "name", max_length=200, blank=True, written="" if kept else ENTRY_NAME)
    if errors:
        return None, errors
    return {
        "id": entry["id"],
        "unit": entry["unit"],
        "options": options,
        "combined": entry.get("combined", False),
        "joined_to": entry.get("joined_to"),
        "name": entry.get("name"),
    }, {}


def check_list_shape(data: Any, *, kept: bool = False) -> tuple[dict[str, Any] | None, Errors]:
    """(the list with defaults filled in, {}) or (None, field errors). `kept`: a list the
    site already holds (a backup's), whose name, notes and units' names may hold direction
    controls from before they were refused: they are shown isolated, not refused."""
    if not isinstance(data, dict):
        return None, {"non_field_errors": [f'Expected an object but got type "{type(data).__name__}".']}
    errors: Errors = {key: [UNKNOWN] for key in data if key not in LIST_FIELDS}
    if "format" in data and data["format"] != "armylist/1":
        errors["format"] = [f'"{data["format"]}" is not a valid choice.']
    for key, max_length in (("name", 200), ("notes", 5000)):
        written = "" if kept else WRITTEN[key]
        if key in data and (problems := _string(data[key], max_length=max_length, blank=True, written=written)):
            errors[key] = problems
    for key, max_length in (("system", 40), ("faction", 80)):
        if key not in data:
            errors[key] = [REQUIRED]
        elif problems := _string(data[key], max_length=max_length):
            errors[key] = problems
    if "points_limit" not in data:
        errors["points_limit"] = [REQUIRED]
    elif data["points_limit"] is not None and (problems := _integer(data["points_limit"], low=1, high=MAX_POINTS)):
        errors["points_limit"] = problems
    _check_boolean(errors, data, "force_org")
    _check_optional_string(errors, data, "event", max_length=PACK_KEY_LENGTH)
    _check_optional_string(errors, data, "book_version", max_length=48)

    entries: list[dict[str, Any]] = []
    raw_entries = data.get("entries")
    if raw_entries is None:
        errors["entries"] = [REQUIRED] if "entries" not in data else ["This field may not be null."]
    elif not isinstance(raw_entries, list):
        errors["entries"] = {
            "non_field_errors": [f'Expected a list of items but got type "{type(raw_entries).__name__}".']
        }
    elif len(raw_entries) > MAX_ENTRIES:
        errors["entries"] = {"non_field_errors": [f"Ensure this field has no more than {MAX_ENTRIES} elements."]}
    else:
        entry_errors: Errors = {}
        for i, raw in enumerate(raw_entries):
            entry, entry_problems = check_entry(raw, kept=kept)
            if entry_problems or entry is None:  # (no entry comes only with its problems)
                entry_errors[str(i)] = entry_problems
            else:
                entries.append(entry)
        if not entry_errors:
            entry_errors = _reference_errors(entries)
        if entry_errors:
            errors["entries"] = entry_errors
    if errors:
        return None, errors
    clean = {
        "format": "armylist/1",
        "name": data.get("name", ""),
        "system": data["system"],
        "faction": data["faction"],
        "points_limit": data["points_limit"],
        "force_org": data.get("force_org", True),
        "notes": data.get("notes", ""),
        "entries": entries,
    }
    if data.get("book_version") is not None:
        clean["book_version"] = data["book_version"]
    if data.get("event") is not None:
        clean["event"] = data["event"]
    return clean, {}


def _reference_errors(entries: list[dict[str, Any]]) -> Errors:
    errors: Errors = {}
    ids = {e["id"] for e in entries}
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        problems = {}
        if entry["id"] in seen:
            problems["id"] = [f'Entry id "{entry["id"]}" is used twice.']
        seen.add(entry["id"])
        if entry["joined_to"] is not None and entry["joined_to"] not in ids:
            problems["joined_to"] = [f'No entry with id "{entry["joined_to"]}".']
        if problems:
            errors[str(i)] = problems
    return errors


def parse_list_body(data: Any) -> tuple[dict[str, Any], BookHandle]:
    """The checked list and the handle of the book it names, at the version it names
    (`book_version`; the current one when it names none); raises ListFormatError with
    field errors. One query for a good list (two when it names an event)."""
    clean, errors = check_list_shape(data)
    if errors or clean is None:  # (no list comes only with its problems)
        raise ListFormatError(errors)
    version = clean.get("book_version")
    handle = book_handle_find(system=clean["system"], slug=clean["faction"], version=version)
    if handle is None:
        if Ruleset.objects.filter(slug=clean["system"]).exists():
            raise ListFormatError({"faction": [f'No faction "{clean["faction"]}" in {clean["system"]}.']})
        raise ListFormatError({"system": [f'Unknown system "{clean["system"]}".']})
    if version is not None and handle.version != version:
        held = ", ".join(book_versions_held(faction_id=handle.faction_id))
        raise ListFormatError(
            {
                "book_version": [
                    f'The army book "{clean["faction"]}" has no version "{version}" here: it holds {held}. '
                    "Leave book_version out to use the current version."
                ]
            }
        )
    if handle.uses_points and clean["points_limit"] is None:
        raise ListFormatError({"points_limit": ["A points limit is required for this ruleset."]})
    if not handle.uses_points and clean["points_limit"] is not None:
        raise ListFormatError({"points_limit": ["This ruleset has no points: send null."]})
    if "event" in clean and not EventPack.objects.filter(key=clean["event"]).exists():
        raise ListFormatError({"event": [f'No event pack "{clean["event"]}" (it may have been deleted).']})
    return clean, handle
