"""Reads about army lists: whose they are, and how they validate."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db import connection
from django.db.models import Case, IntegerField, Q, QuerySet, Value, When

from armybuilder.engine import Book, Issue, RulesetSpec, Validation, list_from_dict, validate_list
from armybuilder.engine.events import event_ruleset
from armybuilder.events.models import EventPack
from armybuilder.events.rules import event_rules, pack_stamp
from armybuilder.events.selectors import event_pack_find, event_packs_of
from armybuilder.lists.models import ArmyList
from armybuilder.missing import Missing
from armybuilder.stamps import release
from factions.models import BookVersion, Faction, Ruleset
from factions.selectors import (
    BookHandle,
    BookKey,
    book_handle_find,
    book_handles_get,
    book_versions,
    engine_book_get,
    ruleset_find,
)


def army_list_validate(
    *, data: dict[str, Any], handle: BookHandle | None = None, pack: EventPack | None = None
) -> Validation:
    """Validate a well-formed armylist/1 document (see parse_list_body) against the
    version of its book it is pinned to (`book_version`; the current one without); one
    entered for an event (`event`: its pack's key) against the event's rules, which may
    ask for the book's current version.

    No query when the caller has the book's handle (and the pack of an event's list) and
    the book is cached, one without the handle, a fixed handful more when the book must
    be built; none per entry."""
    if handle is None:
        handle = book_handle_find(system=data["system"], slug=data["faction"], version=data.get("book_version"))
        if handle is None:
            raise Missing("book", f'no faction "{data["faction"]}" in ruleset "{data["system"]}"')
    book, ruleset = engine_book_get(system=data["system"], slug=data["faction"], handle=handle)
    if data.get("event"):
        pack = pack or event_pack_find(key=data["event"])
        if pack is not None:
            ruleset = event_ruleset(ruleset, event_rules(pack), book.slug)
    validation = validate_list(book, ruleset, list_from_dict(data))
    if pack is not None and data.get("event") and pack.books == "current" and not handle.is_current:
        validation.issues.append(event_book_issue(pack, book.name, handle))
        validation.valid = False
    return validation


def event_book_issue(pack: EventPack, book_name: str, handle: BookHandle) -> Issue:
    """The event plays each book's current version, and the list is on another: the issue
    names both, and how to move the list on."""
    current, pinned = handle.current_version, handle.version
    message = (
        f"Event rule: {pack.name} plays the current {book_name} book, {current}; this list is built on {pinned}. "
        f'To move it on, open it in the builder: "Review the update" shows what changes, "Update to {current}" '
        "moves it; then submit it again."
    )
    return Issue("event_book_version", "error", message, None, f"{pack.name} — event rule")


def army_lists_of(*, user: User | AnonymousUser | None, visitor: str) -> QuerySet[ArmyList]:
    """The lists of a user, or of a visitor with no account."""
    if user is not None and user.is_authenticated:
        return ArmyList.objects.filter(owner=user)
    if visitor:
        return ArmyList.objects.filter(owner__isnull=True, visitor=visitor)
    return ArmyList.objects.none()


def army_list_get(*, pk: int, user: User | AnonymousUser | None, visitor: str) -> ArmyList:
    """The caller's list; Missing for anyone else's too, so that nothing tells a stranger
    that the list exists."""
    try:
        return army_lists_of(user=user, visitor=visitor).get(pk=pk)
    except ArmyList.DoesNotExist:
        raise Missing("list") from None


def army_list_by_share_key(*, key: str) -> ArmyList:
    """The list of this share key; Missing when there is none (a rotated key names none)."""
    try:
        return ArmyList.objects.get(share_key=key)
    except ArmyList.DoesNotExist:
        raise Missing("shared list") from None


@dataclass(frozen=True, slots=True)
class RulesetName:
    """What a page says of a list's ruleset when it has no compiled book to ask."""

    slug: str
    title: str
    uses_points: bool
    family: str


@dataclass(frozen=True, slots=True)
class ListState:
    """A saved list as every page, file and answer shows it: how it validates now, the
    army book and ruleset it is read against, and their names. `book` is None when the
    book is gone from the catalogue; `ruleset` is then only its names, and the faction
    is named by its slug."""

    army_list: ArmyList
    validation: Validation
    ruleset: RulesetSpec | RulesetName
    faction_name: str
    book: Book | None
    current_book_version: str | None  # None when the book is gone
    event: EventPack | None = None  # the event it is entered for, whose rules it was checked against

    @property
    def book_gone(self) -> bool:
        return self.book is None

    @property
    def book_changed(self) -> bool:
        """The book is there, at another version than the list was saved with."""
        return self.current_book_version is not None and self.current_book_version != self.army_list.book_version

    @property
    def models(self) -> int:
        return sum(result.models for result in self.validation.entries)


def army_list_load(army_list: ArmyList, *, handle: BookHandle | None = None) -> ListState:
    """The list's state now: entries or options the book no longer has are issues; a
    list entered for an event is checked against the event's rules. Two queries when the
    book is cached (one with `handle`, one more for an event); a fixed few otherwise."""
    handle = handle or book_handle_find(system=army_list.system, slug=army_list.faction, version=army_list.book_version)
    pack = event_pack_find(key=army_list.event_id) if army_list.event_id else None
    if handle is None:
        row = ruleset_find(slug=army_list.system)
        names = RulesetName(
            army_list.system,
            row.title if row else army_list.system,
            row.uses_points if row else army_list.points_limit is not None,
            row.family if row else army_list.system,
        )
        validation = _missing_book(army_list, {army_list.system: names.title})
        return ListState(army_list, validation, names, army_list.faction, None, None, pack)
    book, ruleset = engine_book_get(system=army_list.system, slug=army_list.faction, handle=handle)
    validation = army_list_validate(data=army_list.as_armylist(), handle=handle, pack=pack)
    return ListState(army_list, validation, ruleset, book.name, book, handle.current_version, pack)


@dataclass(frozen=True, slots=True)
class ListBook:
    """The army book a list is built on, with every version of it held: what the page
    that moves a list between versions offers. `system` is the book's own ruleset (a
    variant's list may use its base's books)."""

    name: str
    system: str
    slug: str
    pinned: str  # the version the list is pinned to
    current: str
    versions: list[BookVersion]  # newest first, without their documents

    @property
    def held(self) -> list[str]:
        """The versions' names, newest first."""
        return [row.version for row in self.versions]

    def is_newer(self, version: str) -> bool:
        """`version` came after the one the list is pinned to (or that one is no longer held)."""
        held = self.held
        return self.pinned not in held or (version in held and held.index(version) < held.index(self.pinned))


def army_list_book(*, army_list: ArmyList) -> ListBook | None:
    """The list's book and the versions it holds (None when the book is gone), in three
    small queries."""
    handle = book_handle_find(system=army_list.system, slug=army_list.faction)
    if handle is None:
        return None
    faction = Faction.objects.select_related("ruleset").get(pk=handle.faction_id)
    versions = list(book_versions(faction=faction))
    return ListBook(faction.name, faction.ruleset.slug, faction.slug, army_list.book_version, faction.version, versions)


def book_key(army_list: ArmyList) -> BookKey:
    """The book a list is read against: its ruleset, faction and pinned version."""
    return (army_list.system, army_list.faction, army_list.book_version)


@dataclass(frozen=True, slots=True)
class ListSummary:
    """What a listing shows of a list: its validation (as Validation.as_dict()) and the
    current version of its army book (None when the book is gone): the list is pinned to
    its own `book_version`."""

    validation: dict[str, Any]
    book_latest: str | None


def validation_stamp(version: int | str, handle: BookHandle | None, pack: EventPack | None) -> str:
    """What a stored validation was worked out from: the list's version, the content
    stamps of its book and ruleset, its event's rules and the release stamp of the code."""
    # The current version too: an event that plays the current books checks against it.
    book = f"{handle.stamp}.{handle.current_version}" if handle else "no-book"
    event = pack_stamp(pack) if pack is not None else "no-event"
    return f"{version}:{book}:{event}:{release()}"


def army_list_summaries(army_lists: Sequence[ArmyList]) -> list[ListSummary]:
    """The summaries of a page of lists in a fixed number of queries, however many lists:
    one for the books' handles, one for the event packs when a list is entered for one,
    and, when some validations were stale, one to store them (and one for the rulesets'
    titles when a book is gone).

    A list keeps its last validation with a stamp of what it was worked out from (its
    version, the content stamps of its book and ruleset, the release stamp); while the
    stamp matches, the stored one is shown. A stale one (the list was edited, or the
    book, the ruleset or the engine changed since) is worked out again from the cached
    book, and stored."""
    handles = book_handles_get(books={book_key(army_list) for army_list in army_lists})
    packs = event_packs_of({army_list.event_id for army_list in army_lists if army_list.event_id})
    summaries, stale = [], []
    titles: dict[str, str] | None = None
    for army_list in army_lists:
        handle = handles.get(book_key(army_list))
        pack = packs.get(army_list.event_id) if army_list.event_id else None
        stamp = validation_stamp(army_list.version, handle, pack)
        if army_list.validation is None or army_list.validation_stamp != stamp:
            if handle is None:
                if titles is None:
                    titles = {r.slug: r.title for r in Ruleset.objects.all()}
                validation = _missing_book(army_list, titles)
            else:
                validation = army_list_validate(data=army_list.as_armylist(), handle=handle, pack=pack)
            army_list.validation, army_list.validation_stamp = validation.as_dict(), stamp
            stale.append(army_list)
        summaries.append(ListSummary(army_list.validation, handle.current_version if handle else None))
    if stale:
        # No `updated` bump (bulk_update leaves auto_now alone): working out a
        # validation is not a change to the list. A save racing this one leaves a stamp
        # with an older version, which the next listing sees as stale.
        ArmyList.objects.bulk_update(stale, ["validation", "validation_stamp"])
    return summaries


def _missing_book(army_list: ArmyList, titles: dict[str, str] | None = None) -> Validation:
    if titles is None:
        titles = {r.slug: r.title for r in Ruleset.objects.filter(slug=army_list.system)}
    title = titles.get(army_list.system, army_list.system)
    issue = Issue(
        code="unknown_faction",
        severity="error",
        message=f'The army book "{army_list.faction}" is no longer in the catalogue of {title}',
        entry=None,
        rule=f"{title} — Preparing your Army",
    )
    return Validation(False, 0, army_list.points_limit, [], [issue])


def shared_list_stamp(*, key: str) -> tuple[int, str, str]:
    """(list id, list name, a stamp that changes whenever the data the share page shows
    changes: the list's version, the content stamps of its book and ruleset and its
    event's rules), in one query (two for a list entered for an event); Missing when no
    list has this share key. Lets the share page serve a rendered copy."""
    lists, factions, rulesets = ArmyList._meta.db_table, Faction._meta.db_table, Ruleset._meta.db_table
    versions = BookVersion._meta.db_table
    # The stamp of the version the list is pinned to: an older version's, or the book's own.
    sql = (
        f"SELECT l.id, l.name, l.version, COALESCE(v.content_hash, f.content_hash), f.version, r.content_hash, "
        "l.event_key "
        f"FROM {lists} l LEFT JOIN {rulesets} r ON r.slug = l.system "
        f"LEFT JOIN {factions} f ON (f.ruleset_id = r.id OR f.ruleset_id = r.base_id) AND f.slug = l.faction "
        f"LEFT JOIN {versions} v ON v.faction_id = f.id AND v.version = l.book_version "
        "AND v.version <> f.version AND v.document IS NOT NULL "
        "WHERE l.share_key = %s ORDER BY CASE WHEN f.ruleset_id = r.id THEN 0 ELSE 1 END"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [key])
        row = cursor.fetchone()
    if row is None:
        raise Missing("shared list")
    pack = event_pack_find(key=row[6]) if row[6] else None
    event = pack_stamp(pack) if pack is not None else "no-event"
    return row[0], row[1], ".".join(str(part) for part in (*row[2:6], event))


def lists_to_submit(*, pack: EventPack, user: User) -> QuerySet[ArmyList]:
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
