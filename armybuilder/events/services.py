"""Writes about event packs: organising one, and submitting a list to it.

Anyone signed in may organise a pack. Anyone with its link reads its rules; only the
organiser (and staff) change it and see every submission; a player sees their own
submission; to anyone else the submissions are not there (the API and the pages answer
404, as for someone else's list). A submission is a frozen copy of the list: later edits
leave it alone, and the player may submit again until the deadline, after which the
pack takes no more. Everything here is plain Python and Django: the API and the pages
call it, and adapt `EventError` (field errors, as plain data) at their edges.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from armybuilder.bidi import direction_problem
from armybuilder.conflicts import VersionConflict
from armybuilder.events.format import PACK_FIELDS, EventError, check_pack, rule_checks, still_holding
from armybuilder.events.models import EventPack, Submission
from armybuilder.events.rules import RULE_FIELDS
from armybuilder.events.selectors import entry_problem, event_pack_get, is_open
from factions.models import Ruleset


class SubmissionsClosed(Exception):
    """The pack's deadline has passed."""


def pack_create(*, organiser: User, data: Any) -> EventPack:
    """A new pack of `organiser` from plain data of any shape (see check_pack, which
    takes an object only); EventError names every problem, and nothing is written."""
    clean = check_pack(data)
    return EventPack.objects.create(organiser=organiser, **clean)


@transaction.atomic
def pack_update(*, pack: EventPack, data: Any, based_on: int | None = None) -> EventPack:
    """Change the fields of the pack that `data` names (plain data, as for pack_create).
    The rest stay as they are, but for rules that no longer apply (a limit its ruleset
    has dropped since, a unit gone from its book, or anything the ruleset `data` moves
    it to does not have): those are left out rather than refusing every change until
    they are mended.

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
        checks = rule_checks(ruleset)
        for field in set(RULE_FIELDS) - set(data):
            current[field] = still_holding(current[field], checks[field])
    clean = check_pack({**current, **data})
    for field, value in clean.items():
        setattr(pack, field, value)
    columns = {field: getattr(pack, field) for field in clean}
    written = EventPack.objects.filter(pk=pack.pk, version=based_on).update(**columns, version=F("version") + 1)
    if not written:
        now = EventPack.objects.filter(pk=pack.pk).values_list("version", flat=True).first()
        raise VersionConflict(now if now is not None else pack.version)
    pack.version = based_on + 1  # the caller's copy is the pack as written
    return event_pack_get(key=pack.key)


@transaction.atomic
def pack_delete(*, pack: EventPack) -> None:
    pack.delete()


@transaction.atomic
def submission_submit(*, pack: EventPack, player: User, army_list: Any, now: datetime | None = None) -> Submission:
    """Enter a frozen copy of `army_list` (the player's own lists.ArmyList) for the pack, replacing the
    player's earlier submission: the copy is checked with the event's ruleset and rules
    (its points as the player set them: a list of another size is told so), on the
    version of its army book the list is pinned to, which the submission records (an
    event that plays the current books tells a list on an older one to move on, and be
    submitted again). A list of another game is an EventError; SubmissionsClosed after
    the deadline."""
    now = now or timezone.now()
    if not is_open(pack, now):
        raise SubmissionsClosed(f"Submissions to {pack.name} closed at {pack.deadline:%Y-%m-%d %H:%M %Z}.")
    if problem := entry_problem(army_list, pack):
        raise EventError({"list": [problem]})
    data = {**army_list.as_armylist(), "system": pack.ruleset.slug, "event": pack.key}
    if problem := _written_problem(data):
        raise EventError({"list": [problem]})
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


def _written_problem(data: dict[str, Any]) -> str | None:
    """What the event's organiser and players would read turned around: a list kept from
    before names refused direction controls, with one in its name or a unit's own name
    (the list must be renamed before it is entered)."""
    if problem := direction_problem(data.get("name") or "", "The list name"):
        return problem
    for entry in data.get("entries", []):
        if problem := direction_problem(entry.get("name") or "", "A unit's own name in the list"):
            return problem
    return None
