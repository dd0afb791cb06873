"""Reads about event packs: who may see and change them and their submissions, and
each pack's rules in words."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from django.db.models import Q, QuerySet
from django.utils import timezone

from armybuilder.engine import Book, RulesetSpec
from armybuilder.events.models import EventPack, Submission
from armybuilder.events.rules import RuleLine, rule_lines
from armybuilder.missing import Missing
from factions.selectors import (
    book_handle_find,
    book_handles_get,
    engine_book_get,
    faction_list,
    ruleset_family,
    ruleset_get,
    ruleset_spec,
)


def event_pack_get(*, key: str) -> EventPack:
    """The event pack of this key, with its ruleset and organiser; Missing when there is none."""
    pack = event_pack_find(key=key)
    if pack is None:
        raise Missing("event pack")
    return pack


def event_pack_find(*, key: str) -> EventPack | None:
    """`event_pack_get`, for a key that may name no pack any more (a list's event, read
    with the list): None then."""
    return EventPack.objects.select_related("ruleset__base", "organiser__profile").filter(key=key).first()


def event_packs_of(keys: set[str]) -> dict[str, EventPack]:
    """{key: pack} of these keys, in one query (none for no keys)."""
    if not keys:
        return {}
    return {pack.key: pack for pack in EventPack.objects.select_related("ruleset__base").filter(key__in=keys)}


def packs_of(user: User | AnonymousUser) -> QuerySet[EventPack]:
    """The packs a user organises or has submitted to (every pack, for staff)."""
    packs = EventPack.objects.select_related("ruleset__base", "organiser__profile")
    if not user.is_authenticated:
        return packs.none()
    if user.is_staff:
        return packs.all()
    return packs.filter(Q(organiser=user) | Q(submissions__player=user)).distinct()


def can_manage(pack: EventPack, user: User | AnonymousUser) -> bool:
    """Whether `user` may change the pack and see every submission: its organiser, or staff."""
    return user.is_authenticated and (user.is_staff or pack.organiser_id == user.pk)


def event_pack_managed_get(*, key: str, user: User | AnonymousUser) -> EventPack:
    """The pack of this key, for its organiser and staff; Missing for anyone else too, as
    for a pack that is not there (nothing tells a stranger it is)."""
    pack = event_pack_get(key=key)
    if not can_manage(pack, user):
        raise Missing("event pack")
    return pack


def submissions_visible(pack: EventPack, user: User | AnonymousUser) -> QuerySet[Submission]:
    """The pack's submissions `user` may see: all for its organiser and staff, their own
    for a player, none for anyone else."""
    submissions = pack.submissions.select_related("player__profile")
    if can_manage(pack, user):
        return submissions.all()
    if user.is_authenticated:
        return submissions.filter(player=user)
    return submissions.none()


def submission_get(*, pack: EventPack, user: User | AnonymousUser, pk: int) -> Submission:
    """A submission to the pack that `user` may see (submissions_visible); Missing for any
    other, as for one that is not there."""
    submission = submissions_visible(pack, user).filter(pk=pk).first()
    if submission is None:
        raise Missing("submission")
    return submission


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
            catalogues[slug] = pack_catalogue(slug)
        books, ruleset = catalogues[slug]
        views.append(PackView(pack, ruleset, books, rule_lines(pack, ruleset, books)))
    return views


def pack_catalogue(system: str) -> tuple[dict[str, Book], RulesetSpec]:
    """The army books a list of `system` may use, by slug, and the engine's ruleset: from
    the cached books (a query for the handles; the ruleset's tables when it has none)."""
    keys = {(system, slug, "") for slug in faction_list(system=system).values_list("slug", flat=True)}
    books, ruleset = {}, None
    for handle in book_handles_get(books=keys).values():
        book, ruleset = engine_book_get(system=system, slug=handle.slug, handle=handle)
        books[book.slug] = book
    return books, ruleset or ruleset_spec(ruleset=ruleset_get(slug=system))


def entry_problem(army_list: Any, pack: EventPack) -> str | None:
    """Why the list cannot be entered for the pack: another game, or an army book the
    event's ruleset does not use (a variant's own book entered for its base's event).
    `army_list` is a saved list (lists.ArmyList, read for its system and faction: events
    do not import lists)."""
    if pack.ruleset.family != ruleset_family(army_list.system):
        return f"{pack.name} is played with {pack.ruleset.title}; this list is for another game."
    own = book_handle_find(system=army_list.system, slug=army_list.faction)
    used = book_handle_find(system=pack.ruleset.slug, slug=army_list.faction)
    if own is not None and (used is None or used.faction_id != own.faction_id):
        return f"This list's army book is not one of {pack.ruleset.title}: build it with one of the event's armies."
    return None
