"""Writes to saved lists: used by the API and the web pages alike. Lists are saved even
when they break the rules (drafts); the validation travels with them."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone

from armybuilder.bidi import without_direction_controls
from armybuilder.conflicts import VersionConflict
from armybuilder.engine import Validation
from armybuilder.engine.versions import Carried, carry_entries
from armybuilder.events.format import EventError
from armybuilder.events.models import EventPack
from armybuilder.events.selectors import entry_problem
from armybuilder.lists.format import ListFormatError
from armybuilder.lists.models import ARMYLIST_FIELDS, ArmyList, new_share_key
from armybuilder.lists.selectors import army_list_validate
from armybuilder.missing import Missing
from factions.selectors import book_handle_find, book_versions_held, engine_book_get


def _fields(data: dict[str, Any]) -> dict[str, Any]:
    """A checked armylist/1 document's columns (its event pack by key, None for none)."""
    return {**{field: data[field] for field in ARMYLIST_FIELDS}, "event_id": data.get("event")}


def new_visitor_id() -> str:
    return secrets.token_urlsafe(24)


def _book_version(data: dict[str, Any], army_list: ArmyList | None = None) -> str:
    """The version of its book a list is pinned to: the one the document names (parse_list_body
    has checked the book holds it); else, for a list of the same book, the one it was
    pinned to; else the book's current version ("" when there is no such book)."""
    if data.get("book_version"):
        return data["book_version"]
    if army_list is not None and (army_list.system, army_list.faction) == (data["system"], data["faction"]):
        return army_list.book_version
    handle = book_handle_find(system=data["system"], slug=data["faction"])
    return handle.version if handle else ""


def _owner_fields(owner: AbstractBaseUser | None, visitor: str) -> dict[str, Any]:
    if owner is not None and owner.is_authenticated:
        return {"owner": owner, "visitor": ""}
    if not visitor:
        raise ValueError("a list needs a user or a visitor id")
    return {"owner": None, "visitor": visitor}


class FormUsedElsewhere(Exception):
    """A page form's one-off key already made a list for someone else."""


@transaction.atomic
def army_list_create(
    *, data: dict[str, Any], owner: AbstractBaseUser | None, visitor: str = "", form_key: str = ""
) -> ArmyList:
    """Save a checked armylist/1 document (see api.lists.parse_list_body) as a new list,
    pinned to the version of its book the document names, else the current one.

    `form_key` is the one-off key of the page form that sent it: the first send makes
    the list and the same form sent again answers that list rather than a second one
    (the key is unique in the table, so two sends at the same moment cannot both make
    one). Without a key (the API, an old page), a new list each time."""
    fields = {**_owner_fields(owner, visitor), **_fields(data), "book_version": _book_version(data)}
    if not form_key:
        return ArmyList.objects.create(**fields)
    try:
        with transaction.atomic():
            return ArmyList.objects.create(**fields, form_key=form_key)
    except IntegrityError:
        made = ArmyList.objects.filter(form_key=form_key, **_owner_fields(owner, visitor)).first()
        if made is None:
            raise FormUsedElsewhere(form_key) from None
        return made


@transaction.atomic
def army_list_update(*, army_list: ArmyList, data: dict[str, Any], based_on: int) -> ArmyList:
    """Replace the list's contents. `based_on` is the version the change was made from;
    if the list has moved on since, nothing is written and VersionConflict is raised. The
    list stays pinned to its book's version unless the document names another.

    One conditional UPDATE (compare-and-swap on the version), so two saves at the same
    moment cannot both win, on any database."""
    fields = _fields(data)
    written = ArmyList.objects.filter(pk=army_list.pk, version=based_on).update(
        **fields,
        book_version=_book_version(data, army_list),
        version=F("version") + 1,
        updated=timezone.now(),
    )
    if not written:
        current = ArmyList.objects.filter(pk=army_list.pk).values_list("version", flat=True).first()
        raise VersionConflict(current if current is not None else based_on)
    return ArmyList.objects.get(pk=army_list.pk)


@dataclass(frozen=True, slots=True)
class Upgrade:
    """A list moved to another version of its book (or, on a dry run, as it would be),
    and the report of what changed for it (shared/spec/book-versions.md)."""

    army_list: ArmyList
    report: dict[str, Any]


@transaction.atomic
def army_list_upgrade(
    *, army_list: ArmyList, book_version: str | None = None, dry_run: bool = False, based_on: int | None = None
) -> Upgrade:
    """Move the list to `book_version` of its book (default: the current one; an older one
    held works the same way): entries whose unit that version has no more are removed,
    options it offers the unit under another id are moved to it (engine/versions.py),
    options it no longer offers are dropped, each named in the report with the reason,
    with every entry's cost before and after and the validation of the moved list (for an
    event's list, by the event's rules), so that a move which leaves the list over its
    points or illegal says so before it is made. `dry_run` reports and changes nothing.

    One compare-and-swap on the list's version (`based_on`, else the version read):
    VersionConflict when the list changed meanwhile. ListFormatError for a version the
    book does not hold, or a book gone from the catalogue."""
    if based_on is not None and based_on != army_list.version:
        raise VersionConflict(army_list.version)
    system, slug = army_list.system, army_list.faction
    old = book_handle_find(system=system, slug=slug, version=army_list.book_version)
    if old is None:
        raise ListFormatError({"faction": [f'The army book "{slug}" is no longer in the catalogue of {system}.']})
    target = book_version or old.current_version
    new = book_handle_find(system=system, slug=slug, version=target)
    if new is None or new.version != target:
        held = ", ".join(book_versions_held(faction_id=old.faction_id))
        raise ListFormatError({"book_version": [f'The army book has no version "{target}" here: it holds {held}.']})
    data = {key: value for key, value in army_list.as_armylist().items() if key != "event"}
    old_book = engine_book_get(system=system, slug=slug, handle=old)[0]
    new_book = engine_book_get(system=system, slug=slug, handle=new)[0]
    entries, carried = carry_entries(data["entries"], old_book, new_book)
    before = army_list_validate(data=data, handle=old)
    moved = {**data, "entries": entries, "book_version": new.version}
    if army_list.event_id:
        moved["event"] = army_list.event_id
    after = army_list_validate(data=moved, handle=new)
    report = _upgrade_report(army_list.book_version, new.version, before, after, carried)
    if not dry_run:
        written = ArmyList.objects.filter(pk=army_list.pk, version=based_on or army_list.version).update(
            entries=entries, book_version=new.version, version=F("version") + 1, updated=timezone.now()
        )
        if not written:
            current = ArmyList.objects.filter(pk=army_list.pk).values_list("version", flat=True).first()
            raise VersionConflict(current if current is not None else army_list.version)
        army_list = ArmyList.objects.get(pk=army_list.pk)
    return Upgrade(army_list, report)


def _upgrade_report(
    old: str, new: str, before: Validation, after: Validation, carried: list[Carried]
) -> dict[str, Any]:
    old_costs = {result.entry.id: result.cost for result in before.entries}
    new_costs = {result.entry.id: result.cost for result in after.entries}
    entries = []
    for entry in carried:
        row: dict[str, Any] = {
            "id": entry.id,
            "unit": entry.unit,
            "cost": [old_costs.get(entry.id, 0), new_costs.get(entry.id, 0)],
            "dropped": [dropped.as_dict() for dropped in entry.dropped],
            "moved": [moved.as_dict() for moved in entry.moved],
            "removed": entry.removed,
        }
        if entry.reason:
            row["reason"] = entry.reason
        if entry.notes:
            row["notes"] = entry.notes
        entries.append(row)
    return {
        "from": old,
        "to": new,
        "total_points": [before.total_points, after.total_points],
        "entries": entries,
        "validation": after.as_dict(),
    }


@transaction.atomic
def army_list_clone(*, army_list: ArmyList, owner: AbstractBaseUser | None, visitor: str = "") -> ArmyList:
    """A copy in the caller's lists, with a new share key, and never the event it is
    entered for: a share link must not hand out the event's key (a copy is the copier's
    to enter wherever they like). A list kept from before names refused direction controls
    is copied without them: the copy is written now, and keeps to the rule."""
    data = army_list.as_armylist(with_event=False)
    name = without_direction_controls(army_list.name)
    data["name"] = f"Copy of {name}"[:200] if name else "Copy"
    data["notes"] = without_direction_controls(data["notes"])
    data["entries"] = [
        {**entry, "name": without_direction_controls(entry["name"]) or None} if entry.get("name") else entry
        for entry in data["entries"]
    ]
    return ArmyList.objects.create(
        **_owner_fields(owner, visitor),
        **_fields(data),
        book_version=army_list.book_version,
    )


@transaction.atomic
def army_list_share_rotate(*, army_list: ArmyList) -> ArmyList:
    """A new share key: the old link stops working at once. Missing when the list was
    deleted meanwhile."""
    key, now = new_share_key(), timezone.now()
    if not ArmyList.objects.filter(pk=army_list.pk).update(share_key=key, updated=now):
        raise Missing("list")
    army_list.share_key, army_list.updated = key, now
    return army_list


@transaction.atomic
def army_list_delete(*, army_list: ArmyList) -> None:
    army_list.delete()


@transaction.atomic
def army_lists_claim(*, visitor: str, user: AbstractBaseUser) -> int:
    """Give a visitor's lists to the user who just signed up or logged in."""
    if not visitor:
        return 0
    return ArmyList.objects.filter(owner__isnull=True, visitor=visitor).update(owner=user, visitor="")


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
        if problem := entry_problem(army_list, pack):
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
