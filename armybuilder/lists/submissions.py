"""A submitted list read as a saved list is read: the frozen copy a submission keeps,
validated against its event's rules now, for the organiser's page, the event's files and
the API. Here in lists (not in events) because it is the lists' validation and their
page state (selectors.py) that read it: lists may import events, never the other way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from armybuilder.accounts.services import display_name
from armybuilder.engine import Issue, Validation
from armybuilder.events.models import EventPack, Submission
from armybuilder.lists.models import ArmyList
from armybuilder.lists.selectors import ListState, RulesetName, army_list_validate, validation_stamp
from factions.selectors import BookHandle, BookKey, book_handles_get, engine_book_get


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
    def list_name(self) -> str:
        """The list's name as it was submitted ("" when it has none)."""
        return self.submission.data.get("name") or ""

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
        row = pack.ruleset
        names = RulesetName(row.slug, row.title, row.uses_points, row.family)
        return ListState(army_list, validation, names, army_list.faction, None, None, pack)
    book, ruleset = engine_book_get(system=handle.system, slug=handle.slug, handle=handle)
    return ListState(army_list, validation, ruleset, book.name, book, handle.current_version, pack)
