"""Event packs: a club's or a tournament's own rules, the lists built for them and the
lists players submit.

Anyone signed in may organise a pack. Anyone with its link reads its rules; only the
organiser (and staff) change it and see every submission; a player sees their own
submission; to anyone else the submissions are not there (the API and the pages answer
404, as for someone else's list). A submission is a frozen copy of the list: later edits
leave it alone, and the player may submit again until the deadline, after which the
pack takes no more. Everything here is plain Python and Django: the API and the pages
call it, and adapt `EventError` (field errors, as plain data) at their edges.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Case, F, IntegerField, Q, QuerySet, Value, When
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from armybuilder.accounts.services import display_name
from armybuilder.engine import Book, Issue, RulesetSpec, Validation
from armybuilder.lists.event_rules import BOOKS_RULES, RULE_FIELDS, RuleLine, rule_lines
from armybuilder.lists.format import MAX_POINTS
from armybuilder.lists.models import ArmyList, EventPack, Submission
from armybuilder.lists.selectors import (
    ListState,
    RulesetName,
    army_list_validate,
    event_pack_get,
    validation_stamp,
)
from armybuilder.lists.services import VersionConflict
from factions.armybook import Problem, check_storable
from factions.limits import limit_param_problems
from factions.models import ForceOrgLimit, Ruleset
from factions.selectors import (
    BookHandle,
    BookKey,
    book_handle_get,
    book_handles_get,
    engine_book_get,
    faction_list,
    ruleset_get,
    ruleset_spec,
)

PACK_FIELDS = ("name", "description", "ruleset", "points_limit", "deadline", *RULE_FIELDS, "books")
ADDABLE_KINDS = tuple(kind for kind in ForceOrgLimit.Kind.values if kind != "composition")
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


class SubmissionsClosed(Exception):
    """The pack's deadline has passed."""


# -- reading -----------------------------------------------------------------------------------
def pack_get(*, key: str) -> EventPack:
    """The pack of this key (EventPack.DoesNotExist when there is none)."""
    pack = event_pack_get(key=key)
    if pack is None:
        raise EventPack.DoesNotExist(f'no event pack "{key}"')
    return pack


def packs_of(user: AbstractBaseUser) -> QuerySet[EventPack]:
    """The packs a user organises or has submitted to (every pack, for staff)."""
    packs = EventPack.objects.select_related("ruleset__base", "organiser__profile")
    if not user.is_authenticated:
        return packs.none()
    if user.is_staff:
        return packs.all()
    return packs.filter(Q(organiser=user) | Q(submissions__player=user)).distinct()


def can_manage(pack: EventPack, user: AbstractBaseUser) -> bool:
    """Whether `user` may change the pack and see every submission: its organiser, or staff."""
    return user.is_authenticated and (user.is_staff or pack.organiser_id == user.pk)


def managed_pack_get(*, key: str, user: AbstractBaseUser) -> EventPack:
    """The pack of this key, for its organiser and staff; EventPack.DoesNotExist for
    anyone else too, as for a pack that is not there (nothing tells a stranger it is)."""
    pack = pack_get(key=key)
    if not can_manage(pack, user):
        raise EventPack.DoesNotExist(f'no event pack "{key}" that this user manages')
    return pack


def submissions_visible(pack: EventPack, user: AbstractBaseUser) -> QuerySet[Submission]:
    """The pack's submissions `user` may see: all for its organiser and staff, their own
    for a player, none for anyone else."""
    submissions = pack.submissions.select_related("player__profile")
    if can_manage(pack, user):
        return submissions.all()
    if user.is_authenticated:
        return submissions.filter(player=user)
    return submissions.none()


def is_open(pack: EventPack, now: datetime | None = None) -> bool:
    return (now or timezone.now()) < pack.deadline


@dataclass(frozen=True, slots=True)
class PackView:
    """What a pack's page shows of its rules: the engine's ruleset with the event's
    rows, the books a list may use (by slug) and every rule in words."""

    pack: EventPack
    ruleset: RulesetSpec
    books: dict[str, Book]
    rules: list[RuleLine]

    @property
    def armies(self) -> list[Book]:
        """The books the pack takes (all, when it names none), by name."""
        books = sorted(self.books.values(), key=lambda book: book.name)
        return [book for book in books if not self.pack.factions or book.slug in self.pack.factions]


def pack_view(pack: EventPack) -> PackView:
    """The pack's rules in words, from the cached engine books of its ruleset."""
    return pack_views([pack])[0]


def pack_views(packs: Sequence[EventPack]) -> list[PackView]:
    """pack_view of each pack, the catalogue of each ruleset read once (a listing)."""
    catalogues: dict[str, tuple[dict[str, Book], RulesetSpec]] = {}
    views = []
    for pack in packs:
        slug = pack.ruleset.slug
        if slug not in catalogues:
            catalogues[slug] = _catalogue(slug)
        books, ruleset = catalogues[slug]
        views.append(PackView(pack, ruleset, books, rule_lines(pack, ruleset, books)))
    return views


def _catalogue(system: str) -> tuple[dict[str, Book], RulesetSpec]:
    """The army books a list of `system` may use, by slug, and the engine's ruleset: from
    the cached books (a query for the handles; the ruleset's tables when it has none)."""
    keys = {(system, slug, "") for slug in faction_list(system=system).values_list("slug", flat=True)}
    books, ruleset = {}, None
    for handle in book_handles_get(books=keys).values():
        book, ruleset = engine_book_get(system=system, slug=handle.slug, handle=handle)
        books[book.slug] = book
    return books, ruleset or ruleset_spec(ruleset=ruleset_get(slug=system))


# -- organising ----------------------------------------------------------------------------------
def pack_create(*, organiser: AbstractBaseUser, data: dict[str, Any]) -> EventPack:
    """A new pack of `organiser` from plain data (see check_pack); EventError names
    every problem, and nothing is written."""
    clean = check_pack(data)
    return EventPack.objects.create(organiser=organiser, **clean)


@transaction.atomic
def pack_update(*, pack: EventPack, data: dict[str, Any], based_on: int | None = None) -> EventPack:
    """Change the fields of the pack `data` names. The rest stay as they are, but for
    rules that no longer apply (a limit its ruleset has dropped since, a unit gone from
    its book, or anything the ruleset `data` moves it to does not have): those are left
    out rather than refusing every change until they are mended.

    One compare-and-swap on the pack's version (`based_on`, else the version read): when
    another change came first, VersionConflict and nothing is written, so no change that
    was answered is lost under another."""
    if not isinstance(data, dict):
        check_pack(data)  # (names what is wrong with it)
    based_on = pack.version if based_on is None else based_on
    if based_on != pack.version:
        raise VersionConflict(pack.version)
    current = {field: getattr(pack, field) for field in PACK_FIELDS}
    current["ruleset"] = pack.ruleset.slug
    ruleset = Ruleset.objects.filter(slug=data.get("ruleset", current["ruleset"])).first()
    if ruleset is not None:
        checks = _rule_checks(ruleset)
        for field in set(RULE_FIELDS) - set(data):
            current[field] = _still_holding(current[field], checks[field])
    clean = check_pack({**current, **data})
    for field, value in clean.items():
        setattr(pack, field, value)
    columns = {field: getattr(pack, field) for field in clean}
    written = EventPack.objects.filter(pk=pack.pk, version=based_on).update(**columns, version=F("version") + 1)
    if not written:
        now = EventPack.objects.filter(pk=pack.pk).values_list("version", flat=True).first()
        raise VersionConflict(now if now is not None else pack.version)
    pack.version = based_on + 1  # the caller's copy is the pack as written
    return pack_get(key=pack.key)


@transaction.atomic
def pack_delete(*, pack: EventPack) -> None:
    pack.delete()


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
    for key, most, blank in (("name", 120, False), ("description", 2000, True)):
        value = data.get(key, "" if blank else None)
        if problems := _text_problems(value, most, blank):
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


def _text_problems(value: Any, most: int, blank: bool) -> list[str]:
    if value is None or (not blank and isinstance(value, str) and not value.strip()):
        return ["This field is required."]
    if not isinstance(value, str):
        return ["Not a valid string."]
    if len(value) > most:
        return [f"Ensure this field has no more than {most} characters."]
    return []


def _ruleset(data: dict[str, Any], errors: dict[str, Any]) -> Ruleset | None:
    slug = data.get("ruleset")
    if slug is None:
        errors["ruleset"] = ["This field is required."]
        return None
    ruleset = Ruleset.objects.select_related("base").filter(slug=slug).first() if isinstance(slug, str) else None
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


def _rule_checks(ruleset: Ruleset) -> dict[str, Any]:
    """{rule field: its check (value -> problems)} against the ruleset's limits and books."""
    limits = {limit.code: limit for limit in ruleset.limits.all()}
    books, _spec = _catalogue(ruleset.slug)
    return {
        "factions": lambda v: _faction_problems(v, books),
        "limit_changes": lambda v: _change_problems(v, limits),
        "limits_removed": lambda v: _removal_problems(v, limits),
        "limits_added": lambda v: _addition_problems(v, limits),
        "bans": lambda v: _ban_problems(v, books),
        "caps": lambda v: _cap_problems(v, books),
    }


def _still_holding(value: Any, check) -> Any:
    """The entries of a stored rule field that pass `check` on their own."""
    if isinstance(value, dict):
        return {key: item for key, item in value.items() if not check({key: item})}
    return [item for item in value if not check([item])]


def _rules(data: dict[str, Any], ruleset: Ruleset, errors: dict[str, Any]) -> dict[str, Any]:
    """The event's rules, each row checked against the ruleset's limits and books."""
    clean: dict[str, Any] = {}
    for field, check in _rule_checks(ruleset).items():
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


def _named(key: Any, found: dict[str, Any]) -> bool:
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


# -- building for an event and submitting ---------------------------------------------------------
@transaction.atomic
def army_list_enter(*, army_list: ArmyList, pack: EventPack | None, based_on: int | None = None) -> ArmyList:
    """Build the list for `pack` (None: for no event): it takes the event's ruleset when
    it plays the same game with the same army book, and the event's points; any other
    list is refused (EventError). One compare-and-swap on the list's version (`based_on`,
    else the version read): VersionConflict when it changed meanwhile, and nothing is
    written."""
    based_on = army_list.version if based_on is None else based_on
    if based_on != army_list.version:
        raise VersionConflict(army_list.version)
    changes: dict[str, Any] = {"event": pack}
    if pack is not None:
        if problem := _entry_problem(army_list, pack):
            raise EventError({"event": [problem]})
        changes.update(system=pack.ruleset.slug, points_limit=pack.points_limit)
    written = ArmyList.objects.filter(pk=army_list.pk, version=based_on).update(
        **changes, version=F("version") + 1, updated=timezone.now()
    )
    if not written:
        current = ArmyList.objects.filter(pk=army_list.pk).values_list("version", flat=True).first()
        raise VersionConflict(current if current is not None else army_list.version)
    for field, value in changes.items():  # the caller's copy is the list as written
        setattr(army_list, field, value)
    army_list.version = based_on + 1
    return ArmyList.objects.get(pk=army_list.pk)


def _entry_problem(army_list: ArmyList, pack: EventPack) -> str | None:
    """Why the list cannot be entered for the pack: another game, or an army book the
    event's ruleset does not use (a variant's own book entered for its base's event)."""
    ruleset = Ruleset.objects.select_related("base").filter(slug=army_list.system).first()
    if pack.ruleset.family != (ruleset.family if ruleset else army_list.system):
        return f"{pack.name} is played with {pack.ruleset.title}; this list is for another game."
    own = book_handle_get(system=army_list.system, slug=army_list.faction)
    used = book_handle_get(system=pack.ruleset.slug, slug=army_list.faction)
    if own is not None and (used is None or used.faction_id != own.faction_id):
        return f"This list's army book is not one of {pack.ruleset.title}: build it with one of the event's armies."
    return None


def lists_to_submit(*, pack: EventPack, user: AbstractBaseUser) -> QuerySet[ArmyList]:
    """The user's lists a pack may take: those of its game (its ruleset, the ruleset it
    is a variant of, or another variant of that), the ones built for the pack first."""
    family = pack.ruleset.family
    systems = Ruleset.objects.filter(Q(slug=family) | Q(base__slug=family)).values("slug")
    # A list for no event has no event key: a plain comparison would be NULL, which
    # databases sort differently; so 1 for built here, 0 for anything else.
    built_here = Case(When(event_id=pack.key, then=Value(1)), default=Value(0), output_field=IntegerField())
    return (
        ArmyList.objects.filter(owner=user, system__in=systems)
        .annotate(built_here=built_here)
        .order_by("-built_here", "-updated", "-id")
    )


@transaction.atomic
def submission_submit(
    *, pack: EventPack, player: AbstractBaseUser, army_list: ArmyList, now: datetime | None = None
) -> Submission:
    """Enter a frozen copy of `army_list` (the player's own) for the pack, replacing the
    player's earlier submission: the copy is checked with the event's ruleset and rules
    (its points as the player set them: a list of another size is told so), on the
    version of its army book the list is pinned to, which the submission records (an
    event that plays the current books tells a list on an older one to move on, and be
    submitted again). A list of another game is an EventError; SubmissionsClosed after
    the deadline."""
    now = now or timezone.now()
    if not is_open(pack, now):
        raise SubmissionsClosed(f"Submissions to {pack.name} closed at {pack.deadline:%Y-%m-%d %H:%M %Z}.")
    if problem := _entry_problem(army_list, pack):
        raise EventError({"list": [problem]})
    data = {**army_list.as_armylist(), "system": pack.ruleset.slug, "event": pack.key}
    submission, _made = Submission.objects.update_or_create(
        pack=pack,
        player=player,
        defaults={
            "army_list": army_list,
            "data": data,
            "book_version": army_list.book_version,
            "submitted_at": now,
            "validation": None,
            "validation_stamp": "",
        },
    )
    return submission


@dataclass(frozen=True, slots=True)
class SubmissionRow:
    """What the organiser's page shows of a submission: its army, the version of the army
    book the list is built on and the book's current version (None when the book is gone
    from the catalogue), and its validation against the pack's rules now."""

    submission: Submission
    faction_name: str
    validation: dict[str, Any]  # Validation.as_dict()
    book_latest: str | None = None

    @property
    def player_name(self) -> str:
        """The name the player is shown by (never their username)."""
        return display_name(self.submission.player)

    @property
    def valid(self) -> bool:
        return self.validation["valid"]

    @property
    def issues(self) -> list[dict[str, Any]]:
        return self.validation["issues"]

    @property
    def book_version(self) -> str:
        return self.submission.book_version

    @property
    def book_changed(self) -> bool:
        """A newer (or another) version of the book is the current one."""
        return self.book_latest is not None and self.book_latest != self.book_version


def book_of(submission: Submission) -> BookKey:
    """(system, faction, book version) of the submitted list: the key of its book's handle."""
    return submission.data["system"], submission.data["faction"], submission.book_version


def submission_handles(submissions: Sequence[Submission]) -> dict[BookKey, BookHandle]:
    """The handles of the books the submissions name, each at the version it was built
    on, {(system, slug, version): handle}, in one query (two when some are older ones)."""
    return book_handles_get(books={book_of(submission) for submission in submissions})


def submission_rows(pack: EventPack, submissions: Sequence[Submission]) -> list[SubmissionRow]:
    """Each submission with its validation against the pack's rules now, in a fixed
    number of queries however many there are: one for the books' handles and, when some
    stored validations are stale (the pack, a book or the engine changed), one to store
    them. A submission's validation is kept under a stamp of what it was worked out from."""
    handles = submission_handles(submissions)
    rows, stale = [], []
    for submission in submissions:
        handle = handles.get(book_of(submission))
        stamp = validation_stamp(submission.submitted_at.isoformat(), handle, pack)
        if submission.validation is None or submission.validation_stamp != stamp:
            validation = submission_validation(submission=submission, handle=handle, pack=pack).as_dict()
            submission.validation, submission.validation_stamp = validation, stamp
            stale.append(submission)
        name, latest = submission.data["faction"], None
        if handle is not None:
            name = engine_book_get(system=handle.system, slug=handle.slug, handle=handle)[0].name
            latest = handle.current_version
        rows.append(SubmissionRow(submission, name, submission.validation, latest))
    if stale:
        Submission.objects.bulk_update(stale, ["validation", "validation_stamp"])
    return rows


def submission_validation(*, submission: Submission, handle: BookHandle | None, pack: EventPack) -> Validation:
    """The frozen list checked against the pack's rules now; no query with the book's
    handle when the book is cached. A book gone from the catalogue is the one issue."""
    if handle is None:
        message = f'The army book "{submission.data["faction"]}" is no longer in the catalogue'
        issue = Issue(code="unknown_faction", severity="error", message=message, entry=None, rule=pack.name)
        return Validation(False, 0, submission.data["points_limit"], [], [issue])
    return army_list_validate(data=submission.data, handle=handle, pack=pack)


def frozen_list(submission: Submission) -> ArmyList:
    """The submitted copy as an unsaved list, for the code that reads and prints saved
    lists (never saved: the submission keeps it)."""
    data = submission.data
    return ArmyList(
        owner_id=submission.player_id,
        name=data["name"],
        system=data["system"],
        faction=data["faction"],
        book_version=submission.book_version,
        points_limit=data["points_limit"],
        force_org=data.get("force_org", True),
        notes=data.get("notes", ""),
        entries=data["entries"],
        event_id=data.get("event"),
    )


def submission_state(*, submission: Submission, handle: BookHandle | None, pack: EventPack) -> ListState:
    """The submission as the list's own pages and files read a saved list: its frozen copy
    checked against the pack's rules now, with the book and names it was read against.
    No query when the book is cached (a fixed handful to build it once)."""
    army_list = frozen_list(submission)
    validation = submission_validation(submission=submission, handle=handle, pack=pack)
    if handle is None:
        ruleset = pack.ruleset
        names = RulesetName(ruleset.slug, ruleset.title, ruleset.uses_points, ruleset.family)
        return ListState(army_list, validation, names, army_list.faction, None, None, pack)
    book, ruleset = engine_book_get(system=handle.system, slug=handle.slug, handle=handle)
    return ListState(army_list, validation, ruleset, book.name, book, handle.current_version, pack)
