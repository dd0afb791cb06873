"""Reads about army lists: whose they are, and how they validate."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import connection
from django.db.models import QuerySet

from armybuilder.engine import Issue, Validation, list_from_dict, validate_list
from armybuilder.lists.models import ArmyList
from factions.models import Faction, Ruleset
from factions.selectors import BookHandle, book_handle_get, engine_book_get


def army_list_validate(*, data: dict[str, Any], handle: BookHandle | None = None) -> Validation:
    """Validate a well-formed armylist/1 document (see parse_list_body).

    No query when the caller has the book's handle and the book is cached, one without
    the handle, a fixed handful more when the book must be built; none per entry."""
    book, ruleset = engine_book_get(system=data["system"], slug=data["faction"], handle=handle)
    return validate_list(book, ruleset, list_from_dict(data))


def army_lists_of(*, user: AbstractBaseUser | None, visitor: str) -> QuerySet[ArmyList]:
    """The lists of a user, or of a visitor with no account."""
    if user is not None and user.is_authenticated:
        return ArmyList.objects.filter(owner=user)
    if visitor:
        return ArmyList.objects.filter(owner__isnull=True, visitor=visitor)
    return ArmyList.objects.none()


def army_list_get(*, pk: int, user: AbstractBaseUser | None, visitor: str) -> ArmyList:
    """The caller's list; ArmyList.DoesNotExist for anyone else's, so that nothing tells
    a stranger that the list exists."""
    return army_lists_of(user=user, visitor=visitor).get(pk=pk)


def army_list_by_share_key(*, key: str) -> ArmyList:
    return ArmyList.objects.get(share_key=key)


def army_list_state(army_list: ArmyList) -> tuple[Validation, str | None]:
    """How a saved list validates now, and the current version of its army book (None
    when the book is gone). Entries or options the book no longer has are issues."""
    handle = book_handle_get(system=army_list.system, slug=army_list.faction)
    if handle is None:
        return _missing_book(army_list), None
    validation = army_list_validate(data=army_list.as_armylist(), handle=handle)
    return validation, handle.version


def _missing_book(army_list: ArmyList) -> Validation:
    ruleset = Ruleset.objects.filter(slug=army_list.system).first()
    title = ruleset.title if ruleset else army_list.system
    issue = Issue(
        code="unknown_faction",
        severity="error",
        message=f'The army book "{army_list.faction}" is no longer in the catalogue of {title}',
        entry=None,
        rule=f"{title} — Preparing your Army",
    )
    return Validation(False, 0, army_list.points_limit, [], [issue])


def faction_name(*, system: str, slug: str) -> str:
    return Faction.objects.filter(ruleset__slug=system, slug=slug).values_list("name", flat=True).first() or slug


def shared_list_stamp(*, key: str) -> tuple[int, str, str] | None:
    """(list id, list name, a stamp that changes whenever what the share page shows
    changes: the list's version, its army book's version and revisions), in one query;
    None when no list has this share key. Lets the share page serve a rendered copy."""
    lists, factions, rulesets = ArmyList._meta.db_table, Faction._meta.db_table, Ruleset._meta.db_table
    sql = (
        f"SELECT l.id, l.name, l.version, f.id, f.version, f.revision, r.revision FROM {lists} l "
        f"LEFT JOIN {rulesets} r ON r.slug = l.system "
        f"LEFT JOIN {factions} f ON f.ruleset_id = r.id AND f.slug = l.faction "
        "WHERE l.share_key = %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [key])
        row = cursor.fetchone()
    if row is None:
        return None
    return row[0], row[1], "-".join(str(part) for part in row[2:])
