"""An event pack's fields as plain data (a JSON body, or a page's or the admin's form):
the one place a pack body is read and checked.

`check_pack` names every problem by field (the shape DRF uses for field errors, so the
API passes it on as it is): the text fields and the deadline, the ruleset, and the
event's rules, each row checked against the ruleset's limits and army books. Checked by
hand rather than with a JSON Schema: most checks read the database (a ruleset's limits,
its books' units and upgrades), and the messages are the site's own, field by field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from django.utils import timezone
from django.utils.dateparse import parse_datetime

from armybuilder.bidi import direction_problem
from armybuilder.engine import Book
from armybuilder.engine.limit_kinds import ADDABLE_KINDS, limit_param_problems
from armybuilder.events.rules import BOOKS_RULES, RULE_FIELDS
from armybuilder.events.selectors import pack_catalogue
from factions.armybook import Problem, check_storable
from factions.models import Ruleset
from factions.ruleset_format import MAX_POINTS
from factions.selectors import ruleset_find

PACK_FIELDS = ("name", "description", "ruleset", "points_limit", "deadline", *RULE_FIELDS, "books")
MAX_RULES = 200  # rows of each kind of event rule
BOOKS_CHOICE = (
    'Either "current" (every list on its army book\'s current version) or "any" (players keep the version of their '
    "book they built the list on)."
)


class EventError(Exception):
    """A pack or a submission that cannot be made as asked; `errors` holds every problem
    by field, e.g. {"bans": {"0": {"unit": ['No unit "dragon" in Orc Hordes.']}}}."""

    def __init__(self, errors: dict[str, Any]):
        self.errors = errors
        super().__init__("; ".join(f"{field}: {problem}" for field, problem in errors.items()))


def check_pack(data: Any) -> dict[str, Any]:
    """A pack's fields from plain data (a JSON body or a form's), checked: every problem
    by field, as EventError. `ruleset` is a ruleset's slug, `deadline` an ISO 8601 time
    with its zone (or a datetime); the event's rules must name limits, army books, units
    and options the ruleset has; `books` is "current" (the default) or "any"."""
    if not isinstance(data, dict):
        raise EventError({"non_field_errors": [f'Expected an object but got type "{type(data).__name__}".']})
    if unstorable := check_storable(data):  # before anything walks it: too deep, NUL, lone surrogates
        raise EventError(_by_field(unstorable))
    errors: dict[str, Any] = {key: ["Unknown field."] for key in data if key not in PACK_FIELDS}
    clean: dict[str, Any] = {}
    for key, most, blank, what in (
        ("name", 120, False, "The event's name"),
        ("description", 2000, True, "The event's description"),
    ):
        value: Any = data.get(key, "" if blank else None)  # any JSON value; a string once it has no problems
        if problems := _text_problems(value, most, blank, what):
            errors[key] = problems
        else:
            clean[key] = value.strip()
    ruleset = _ruleset(data, errors)
    if ruleset is not None:
        clean["ruleset"] = ruleset
        clean["points_limit"] = _points(data.get("points_limit"), ruleset, errors)
    clean["deadline"] = _deadline(data.get("deadline"), errors)
    clean["books"] = _books(data.get("books", "current"), errors)
    if ruleset is not None and "ruleset" not in errors:
        clean.update(_rules(data, ruleset, errors))
    if errors:
        raise EventError(errors)
    return clean


def _by_field(problems: list[Problem]) -> dict[str, list[str]]:
    """Problems found anywhere in a body, under the field they are in."""
    errors: dict[str, list[str]] = {}
    for problem in problems:
        field = re.split(r"[.\[]", problem.path, maxsplit=1)[0] or "non_field_errors"
        errors.setdefault(field, []).append(f"{problem.path}: {problem.message}" if problem.path else problem.message)
    return errors


def _text_problems(value: Any, most: int, blank: bool, what: str) -> list[str]:
    """The problems of a text the organiser writes and players read (`what` names it)."""
    if value is None or (not blank and isinstance(value, str) and not value.strip()):
        return ["This field is required."]
    if not isinstance(value, str):
        return ["Not a valid string."]
    if len(value) > most:
        return [f"Ensure this field has no more than {most} characters."]
    if problem := direction_problem(value, what):
        return [problem]
    return []


def _ruleset(data: dict[str, Any], errors: dict[str, Any]) -> Ruleset | None:
    slug = data.get("ruleset")
    if slug is None:
        errors["ruleset"] = ["This field is required."]
        return None
    ruleset = ruleset_find(slug=slug) if isinstance(slug, str) else None
    if ruleset is None:
        errors["ruleset"] = [f'Unknown ruleset "{slug}".']
    return ruleset


def _points(value: Any, ruleset: Ruleset, errors: dict[str, Any]) -> int | None:
    if not ruleset.uses_points:
        if value is not None:
            errors["points_limit"] = [f"{ruleset.name} has no points: leave it empty."]
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        errors["points_limit"] = ["A whole number of points is required."]
    elif not 1 <= value <= (ruleset.max_points or MAX_POINTS):
        errors["points_limit"] = [f"Points must be between 1 and {ruleset.max_points or MAX_POINTS}."]
    return value


def _deadline(value: Any, errors: dict[str, Any]) -> datetime | None:
    if isinstance(value, str):
        try:
            value = parse_datetime(value)
        except ValueError:
            value = None
        if value is None:
            errors["deadline"] = ["A date and time is required, e.g. 2026-12-31T18:00:00+00:00."]
            return None
    if not isinstance(value, datetime):
        errors["deadline"] = ["A date and time is required, e.g. 2026-12-31T18:00:00+00:00."]
        return None
    if timezone.is_naive(value):
        errors["deadline"] = ["Give the time zone too, e.g. 2026-12-31T18:00:00+01:00."]
        return value
    try:
        # In UTC: PostgreSQL takes no offset beyond 15:59, and a time at the ends of the
        # calendar may have no UTC at all.
        return value.astimezone(UTC)
    except OverflowError:
        errors["deadline"] = ["A date and time between the years 1 and 9999 is required."]
        return None


def _books(value: Any, errors: dict[str, Any]) -> Any:
    """Which versions of their army books the event's lists may use."""
    if not isinstance(value, str) or value not in BOOKS_RULES:
        errors["books"] = [BOOKS_CHOICE]
    return value


def rule_checks(ruleset: Ruleset) -> dict[str, Any]:
    """{rule field: its check (value -> problems)} against the ruleset's limits and books."""
    limits = {limit.code: limit for limit in ruleset.limits.all()}
    books, _spec = pack_catalogue(ruleset.slug)
    return {
        "factions": lambda v: _faction_problems(v, books),
        "limit_changes": lambda v: _change_problems(v, limits),
        "limits_removed": lambda v: _removal_problems(v, limits),
        "limits_added": lambda v: _addition_problems(v, limits),
        "bans": lambda v: _ban_problems(v, books),
        "caps": lambda v: _cap_problems(v, books),
    }


def still_holding(value: Any, check) -> Any:
    """The entries of a stored rule field that pass `check` on their own."""
    if isinstance(value, dict):
        return {key: item for key, item in value.items() if not check({key: item})}
    return [item for item in value if not check([item])]


def _rules(data: dict[str, Any], ruleset: Ruleset, errors: dict[str, Any]) -> dict[str, Any]:
    """The event's rules, each row checked against the ruleset's limits and books."""
    clean: dict[str, Any] = {}
    for field, check in rule_checks(ruleset).items():
        value = data.get(field, {} if field == "limit_changes" else [])
        kind = dict if field == "limit_changes" else list
        if not isinstance(value, kind):
            errors[field] = [f"Expected {'an object' if kind is dict else 'a list'}."]
        elif len(value) > MAX_RULES:
            errors[field] = [f"Ensure this field has no more than {MAX_RULES} elements."]
        elif problems := check(value):
            errors[field] = problems
        else:
            clean[field] = value
    return clean


def _each(rows: list[Any], check) -> dict[str, Any]:
    problems = {}
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            problems[str(i)] = {"non_field_errors": ["Expected an object."]}
        elif found := check(row):
            problems[str(i)] = found
    return problems


def _faction_problems(slugs: list[Any], books: dict[str, Book]) -> list[str]:
    return [f'No army book "{slug}" for this ruleset.' for slug in slugs if not _named(slug, books)]


def _named(key: Any, found: Mapping[str, object]) -> bool:
    """Whether `key` (plain data: any JSON value) is a key of `found`."""
    return isinstance(key, str) and key in found


def _change_problems(changes: dict[str, Any], limits: dict[str, Any]) -> dict[str, Any]:
    problems: dict[str, Any] = {}
    for code, params in changes.items():
        limit = limits.get(code)
        if limit is None:
            problems[code] = [f'The ruleset has no limit "{code}".']
        elif not isinstance(params, dict) or not params:
            problems[code] = ['Give the parameters it changes, e.g. {"percent": 30}.']
        elif unknown := [key for key in params if key not in limit.params]:
            problems[code] = [f'"{limit.code}" has no parameter {", ".join(unknown)}.']
        elif found := limit_param_problems(limit.kind, {**limit.params, **params}):
            problems[code] = found
    return problems


def _removal_problems(codes: list[Any], limits: dict[str, Any]) -> list[str]:
    return [f'The ruleset has no limit "{code}".' for code in codes if not _named(code, limits)]


def _addition_problems(rows: list[Any], limits: dict[str, Any]) -> dict[str, Any]:
    codes = set(limits)

    def check(row: dict[str, Any]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        unknown = [key for key in row if key not in ("code", "kind", "params", "section", "severity")]
        if unknown:
            found["non_field_errors"] = [f"Unknown field: {', '.join(unknown)}."]
        code = row.get("code")
        if not isinstance(code, str) or not code or len(code) > 40:
            found["code"] = ["An issue code of 1 to 40 characters is required, e.g. one_dragon."]
        elif code in codes:
            found["code"] = [f'"{code}" is the code of another limit.']
        else:
            codes.add(code)
        if row.get("kind") not in ADDABLE_KINDS:
            found["kind"] = [f"One of {', '.join(ADDABLE_KINDS)}."]
        elif problems := limit_param_problems(row["kind"], row.get("params")):
            found["params"] = problems
        if not isinstance(row.get("section", ""), str) or len(row.get("section", "")) > 100:
            found["section"] = ["Where players read the rule, in at most 100 characters."]
        elif problem := direction_problem(row.get("section", ""), "Where players read the rule"):
            found["section"] = [problem]
        if row.get("severity", "error") not in ("error", "warning"):
            found["severity"] = ["error or warning."]
        return found

    return _each(rows, check)


def _unit_problems(row: dict[str, Any], books: dict[str, Book]) -> dict[str, Any]:
    if not _named(row.get("faction"), books):
        return {"faction": [f'No army book "{row.get("faction")}" for this ruleset.']}
    book = books[row["faction"]]
    if "unit" in row and not _named(row["unit"], book.units):
        return {"unit": [f'No unit "{row["unit"]}" in {book.name}.']}
    return {}


def _ban_problems(rows: list[Any], books: dict[str, Book]) -> dict[str, Any]:
    def check(row: dict[str, Any]) -> dict[str, Any]:
        if set(row) not in ({"faction", "unit"}, {"faction", "option"}):
            return {"non_field_errors": ["A ban names a faction and a unit, or a faction and an option."]}
        found = _unit_problems(row, books)
        if found or "option" not in row:
            return found
        book = books[row["faction"]]
        if not any(_named(row["option"], unit.options) for unit in book.units.values()):
            found = {"option": [f'No upgrade option "{row["option"]}" in {book.name}.']}
        return found

    return _each(rows, check)


def _cap_problems(rows: list[Any], books: dict[str, Book]) -> dict[str, Any]:
    def check(row: dict[str, Any]) -> dict[str, Any]:
        if set(row) != {"faction", "unit", "max"}:
            return {"non_field_errors": ["A cap names a faction, a unit and the most a list may field."]}
        found = _unit_problems(row, books)
        if isinstance(row["max"], bool) or not isinstance(row["max"], int) or not 0 <= row["max"] <= 100:
            found["max"] = ["A whole number from 0 to 100."]
        return found

    return _each(rows, check)
