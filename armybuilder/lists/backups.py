"""Backups: everything a site holds, as plain files in one folder.

    DIR/manifest.json                  format, time, counts
    DIR/books/<system>/<slug>.json     every army book (armybook/1)
    DIR/users.json                     accounts (password hashes, not passwords)
    DIR/lists.json                     every saved list (armylist/1 plus owner, share key,
                                       version, book version, times)

`backup_export` writes it; `backup_import` restores it into a migrated database that
has no lists yet (a new server), in one transaction.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.dateparse import parse_datetime

from armybuilder.lists.models import ArmyList
from factions.models import Faction
from factions.selectors import faction_book, faction_get_with_book
from factions.services import armybook_import

FORMAT = "armybuilder-backup/1"
USER_FIELDS = ("username", "email", "password", "first_name", "last_name", "is_staff", "is_superuser", "is_active")


class BackupError(Exception):
    pass


def _write(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n", encoding="utf-8")


def backup_export(*, folder: Path) -> dict[str, int]:
    folder.mkdir(parents=True, exist_ok=True)
    books = 0
    for faction in Faction.objects.select_related("ruleset").order_by("ruleset__slug", "slug"):
        full = faction_get_with_book(system=faction.ruleset.slug, slug=faction.slug)
        _write(folder / "books" / faction.ruleset.slug / f"{faction.slug}.json", faction_book(faction=full))
        books += 1
    User = get_user_model()
    users = [
        {**{f: getattr(u, f) for f in USER_FIELDS}, "date_joined": u.date_joined.isoformat()}
        for u in User.objects.order_by("pk")
    ]
    _write(folder / "users.json", users)
    lists = []
    for army_list in ArmyList.objects.select_related("owner").order_by("pk"):
        lists.append(
            {
                **army_list.as_armylist(),
                "owner": army_list.owner.username if army_list.owner else None,
                "visitor": army_list.visitor,
                "share_key": army_list.share_key,
                "version": army_list.version,
                "book_version": army_list.book_version,
                "created": army_list.created.isoformat(),
                "updated": army_list.updated.isoformat(),
            }
        )
    _write(folder / "lists.json", lists)
    counts = {"books": books, "users": len(users), "lists": len(lists)}
    _write(folder / "manifest.json", {"format": FORMAT, "counts": counts})
    return counts


@transaction.atomic
def backup_import(*, folder: Path) -> dict[str, int]:
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        users = json.loads((folder / "users.json").read_text(encoding="utf-8"))
        lists = json.loads((folder / "lists.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BackupError(f"{folder} is not a readable backup: {exc}") from exc
    if manifest.get("format") != FORMAT:
        raise BackupError(f'{folder} is not an Armybuilder backup (format "{manifest.get("format")}")')
    if ArmyList.objects.exists():
        raise BackupError("This database already has lists: restore into a new, migrated database.")
    books = sorted((folder / "books").glob("*/*.json"))
    for path in books:
        armybook_import(data=path.read_bytes())
    User = get_user_model()
    by_name = {}
    for data in users:
        user, _created = User.objects.update_or_create(
            username=data["username"],
            defaults={
                **{f: data[f] for f in USER_FIELDS if f != "username"},
                "date_joined": parse_datetime(data["date_joined"]),
            },
        )
        by_name[user.username] = user
    fields = (
        "name",
        "system",
        "faction",
        "points_limit",
        "force_org",
        "notes",
        "entries",
        "visitor",
        "share_key",
        "version",
        "book_version",
    )
    created = ArmyList.objects.bulk_create(
        ArmyList(owner=by_name.get(item["owner"]) if item["owner"] else None, **{f: item[f] for f in fields})
        for item in lists
    )
    # auto_now/auto_now_add would stamp today: put the original times back.
    for army_list, item in zip(created, lists, strict=True):
        ArmyList.objects.filter(pk=army_list.pk).update(
            created=parse_datetime(item["created"]), updated=parse_datetime(item["updated"])
        )
    return {"books": len(books), "users": len(users), "lists": len(created)}
