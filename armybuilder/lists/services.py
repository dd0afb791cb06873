"""Writes to saved lists: used by the API and the web pages alike. Lists are saved even
when they break the rules (drafts); the validation travels with them."""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from armybuilder.lists.models import ARMYLIST_FIELDS, ArmyList, new_share_key
from factions.selectors import book_handle_get


def _fields(data: dict[str, Any]) -> dict[str, Any]:
    """A checked armylist/1 document's columns (its event pack by key, None for none)."""
    return {**{field: data[field] for field in ARMYLIST_FIELDS}, "event_id": data.get("event")}


class VersionConflict(Exception):
    """The list changed since the version the caller based its change on."""

    def __init__(self, current: int):
        self.current = current
        super().__init__(f"the list is at version {current}")


def new_visitor_id() -> str:
    return secrets.token_urlsafe(24)


def _book_version(system: str, faction: str) -> str:
    """The version of the book a list of `system` uses for `faction` ("" when none)."""
    handle = book_handle_get(system=system, slug=faction)
    return handle.version if handle else ""


def _owner_fields(owner: AbstractBaseUser | None, visitor: str) -> dict[str, Any]:
    if owner is not None and owner.is_authenticated:
        return {"owner": owner, "visitor": ""}
    if not visitor:
        raise ValueError("a list needs a user or a visitor id")
    return {"owner": None, "visitor": visitor}


@transaction.atomic
def army_list_create(*, data: dict[str, Any], owner: AbstractBaseUser | None, visitor: str = "") -> ArmyList:
    """Save a checked armylist/1 document (see api.lists.parse_list_body) as a new list."""
    return ArmyList.objects.create(
        **_owner_fields(owner, visitor),
        **_fields(data),
        book_version=_book_version(data["system"], data["faction"]),
    )


@transaction.atomic
def army_list_update(*, army_list: ArmyList, data: dict[str, Any], based_on: int) -> ArmyList:
    """Replace the list's contents. `based_on` is the version the change was made from;
    if the list has moved on since, nothing is written and VersionConflict is raised.

    One conditional UPDATE (compare-and-swap on the version), so two saves at the same
    moment cannot both win, on any database."""
    fields = _fields(data)
    written = ArmyList.objects.filter(pk=army_list.pk, version=based_on).update(
        **fields,
        book_version=_book_version(data["system"], data["faction"]),
        version=F("version") + 1,
        updated=timezone.now(),
    )
    if not written:
        current = ArmyList.objects.filter(pk=army_list.pk).values_list("version", flat=True).first()
        raise VersionConflict(current if current is not None else based_on)
    return ArmyList.objects.get(pk=army_list.pk)


@transaction.atomic
def army_list_clone(*, army_list: ArmyList, owner: AbstractBaseUser | None, visitor: str = "") -> ArmyList:
    """A copy in the caller's lists, with a new share key."""
    data = army_list.as_armylist()
    data["name"] = f"Copy of {army_list.name}"[:200] if army_list.name else "Copy"
    return ArmyList.objects.create(
        **_owner_fields(owner, visitor),
        **_fields(data),
        book_version=army_list.book_version,
    )


@transaction.atomic
def army_list_share_rotate(*, army_list: ArmyList) -> ArmyList:
    """A new share key: the old link stops working at once. ArmyList.DoesNotExist when
    the list was deleted meanwhile."""
    key, now = new_share_key(), timezone.now()
    if not ArmyList.objects.filter(pk=army_list.pk).update(share_key=key, updated=now):
        raise ArmyList.DoesNotExist(f"list {army_list.pk} was deleted")
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
