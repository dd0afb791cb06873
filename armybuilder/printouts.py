"""What a printout shows, loaded from the database in one go before any drawing starts:
the layer between the file responses (downloads.py) and the renderers (exports/), which
only read the plain data these return.

`printout_get` runs every query a list's PDFs need (a fixed handful, whatever the size of
the list). An event's combined roster is an `EventPrintout` (`event_printout_get`): a
printout of each submission's frozen copy, in a fixed number of queries however many
there are.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils import timezone

from armybuilder.accounts.services import display_name
from armybuilder.events.models import EventPack, Submission
from armybuilder.events.rules import BOOKS_WORDS
from armybuilder.exports.pdf_data import (
    NAME_CHARS,
    CoreRuleRow,
    EventPrintout,
    Printout,
    SubmittedRoster,
    printout_of,
    shortened,
)
from armybuilder.lists import selectors
from armybuilder.lists import submissions as list_submissions
from armybuilder.lists.models import ArmyList
from factions.models import CoreRule
from factions.selectors import BookHandle, BookKey


def printout_get(*, army_list: ArmyList, share_url: str, handle: BookHandle | None) -> Printout:
    """Load the list's printout: its validation, the book's spells and rules and the
    ruleset's core rules. `handle` is the list's book handle (None: the book is gone)."""
    state = selectors.army_list_load(army_list, handle=handle)
    return printout_of(state, core_rules=core_rules_get(systems={army_list.system}), share_url=share_url)


def core_rules_get(*, systems: set[str]) -> dict[str, list[CoreRuleRow]]:
    """The core rules of these rulesets, {slug: [(name, rated, section, summary)]}, in one query."""
    rows = CoreRule.objects.filter(ruleset__slug__in=systems).values_list(
        "ruleset__slug", "name", "rated", "section", "summary"
    )
    found: dict[str, list[CoreRuleRow]] = {system: [] for system in systems}
    for system, name, rated, section, summary in rows:
        found[system].append((name, rated, section, summary))
    return found


def event_printout_get(
    *, pack: EventPack, submissions: Sequence[Submission], handles: dict[BookKey, BookHandle]
) -> EventPrintout:
    """Load the combined roster of an event: each submission's frozen copy checked
    against the pack's rules now (load the submissions with their players, and `handles`
    with list_submissions.submission_handles). One query for the core rules, and a fixed handful
    for each book not yet in the cache; none per submission."""
    states = [
        list_submissions.submission_state(
            submission=submission, handle=handles.get(list_submissions.book_of(submission)), pack=pack
        )
        for submission in submissions
    ]
    core = core_rules_get(systems={state.army_list.system for state in states})
    return EventPrintout(
        name=pack.name,
        ruleset_title=pack.ruleset.title,
        uses_points=pack.ruleset.uses_points,
        points_limit=pack.points_limit,
        deadline=timezone.localtime(pack.deadline),
        books_rule=BOOKS_WORDS[pack.books],
        submissions=tuple(
            SubmittedRoster(
                shortened(display_name(submission.player), NAME_CHARS),
                timezone.localtime(submission.submitted_at),
                printout_of(state, core_rules=core, share_url=""),  # a frozen copy: no share link
            )
            for submission, state in zip(submissions, states, strict=True)
        ),
    )
