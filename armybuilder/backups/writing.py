"""Writing a backup (the format: format.py): every file from one consistent snapshot of
the database, owner-only on disk, the manifest last."""

from __future__ import annotations

import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.sessions.models import Session
from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone

from armybuilder.accounts.models import Profile
from armybuilder.backups.format import (
    ARMYFORGE_RULES_FIELDS,
    FORMAT,
    PACK_FIELDS,
    SYNC_FIELDS,
    USER_FIELDS,
    VERSION_FIELDS,
    BackupError,
)
from armybuilder.events.models import EventPack, Submission
from armybuilder.lists.models import ArmyList
from factions.models import ArmyForgeRules, ArmyForgeSync, BookVersion, Faction, Ruleset
from factions.selectors import ruleset_record


def _write(path: Path, data: Any) -> None:
    """A backup holds password hashes, API tokens and sessions: its folders are the
    owner's alone (0700) and its files too (0600), whatever the umask."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    path.parent.chmod(0o700)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w", encoding="utf-8") as file:
        file.write(text)
    path.chmod(0o600)


def _when(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _permission_name(permission: Permission) -> str:
    return f"{permission.content_type.app_label}.{permission.codename}"


def backup_export(*, folder: Path) -> dict[str, int]:
    """Write the backup into `folder`, which must be new or empty (a file left from an
    older backup would be restored with this one)."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise BackupError(f"{folder} is not an empty folder: write each backup into a new one")
    # One snapshot, so that no list in the backup has an owner that is missing from it.
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        with transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            counts = _export(folder)
    else:
        with transaction.atomic():
            counts = _export(folder)
    for path in folder.rglob("*"):  # folders made on the way (versions/<ruleset>/) too
        if path.is_dir():
            path.chmod(0o700)
    return counts


def _export(folder: Path) -> dict[str, int]:
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder.chmod(0o700)
    rulesets = [
        ruleset_record(ruleset=r)
        for r in Ruleset.objects.order_by("slug").select_related("base").prefetch_related("limits", "core_rules")
    ]
    _write(folder / "rulesets.json", rulesets)

    factions, versions = [], 0
    for faction in Faction.objects.select_related("ruleset").order_by("ruleset__slug", "slug"):
        kept = list(BookVersion.objects.filter(faction=faction).order_by("imported_at", "id"))
        current = [row.document for row in kept if row.version == faction.version]
        if not current:  # every writer of a book keeps its current version
            raise BackupError(f"{faction} keeps no version {faction.version}, its current one")
        _write(folder / "books" / faction.ruleset.slug / f"{faction.slug}.json", current[0])
        _write(folder / "versions" / faction.ruleset.slug / f"{faction.slug}.json", _versions_of(faction, kept))
        versions += len(kept)
        factions.append(
            {
                "system": faction.ruleset.slug,
                "slug": faction.slug,
                "id": faction.pk,
                "imported_at": _when(faction.imported_at),
                "import_warnings": faction.import_warnings,
                "source": faction.source,
                "import_slug": faction.import_slug,
            }
        )
    _write(folder / "factions.json", factions)

    syncs = [
        {**{field: getattr(sync, field) for field in SYNC_FIELDS}, "synced_at": _when(sync.synced_at)}
        for sync in ArmyForgeSync.objects.order_by("system", "armyforge_id")
    ]
    _write(folder / "armyforge_syncs.json", syncs)

    armyforge_rules = [
        {
            **{field: getattr(rules, field) for field in ARMYFORGE_RULES_FIELDS if field != "system"},
            "system": rules.ruleset.slug,
            "fetched_at": _when(rules.fetched_at),
        }
        for rules in ArmyForgeRules.objects.select_related("ruleset").order_by("ruleset__slug", "fetched_at", "id")
    ]
    _write(folder / "armyforge_rules.json", armyforge_rules)

    groups = [
        {"name": g.name, "permissions": [_permission_name(p) for p in g.permissions.all()]}
        for g in Group.objects.prefetch_related("permissions__content_type").order_by("name")
    ]
    _write(folder / "groups.json", groups)

    User = get_user_model()
    users = [
        {
            "id": u.pk,
            **{f: getattr(u, f) for f in USER_FIELDS},
            "display_name": _chosen_name(u),
            "date_joined": _when(u.date_joined),
            "last_login": _when(u.last_login),
            "groups": sorted(g.name for g in u.groups.all()),
            "permissions": sorted(_permission_name(p) for p in u.user_permissions.all()),
        }
        for u in User.objects.select_related("profile")
        .prefetch_related("groups", "user_permissions__content_type")
        .order_by("pk")
    ]
    _write(folder / "users.json", users)

    Token = apps.get_model("authtoken", "Token")
    tokens = [{"key": t.key, "user": t.user_id, "created": _when(t.created)} for t in Token.objects.order_by("user_id")]
    _write(folder / "tokens.json", tokens)

    sessions = [
        {"session_key": s.session_key, "session_data": s.session_data, "expire_date": _when(s.expire_date)}
        for s in Session.objects.filter(expire_date__gt=timezone.now()).order_by("session_key")
    ]
    _write(folder / "sessions.json", sessions)

    packs = [
        {
            "id": pack.pk,
            "organiser": pack.organiser_id,
            **{field: getattr(pack, field) for field in PACK_FIELDS},
            "ruleset": pack.ruleset.slug,
            "deadline": _when(pack.deadline),
            "created": _when(pack.created),
            "updated": _when(pack.updated),
        }
        for pack in EventPack.objects.select_related("ruleset").order_by("pk")
    ]
    _write(folder / "event_packs.json", packs)

    lists = [
        {
            **army_list.as_armylist(),
            "id": army_list.pk,
            "owner": army_list.owner_id,
            "visitor": army_list.visitor,
            "share_key": army_list.share_key,
            "version": army_list.version,
            "book_version": army_list.book_version,
            "created": _when(army_list.created),
            "updated": _when(army_list.updated),
        }
        for army_list in ArmyList.objects.order_by("pk")
    ]
    _write(folder / "lists.json", lists)

    submissions = [
        {
            "id": submission.pk,
            "pack": submission.pack.key,
            "player": submission.player_id,
            "army_list": submission.army_list_id,
            "data": submission.data,
            "book_version": submission.book_version,
            "submitted_at": _when(submission.submitted_at),
        }
        for submission in Submission.objects.select_related("pack").order_by("pk")
    ]
    _write(folder / "submissions.json", submissions)

    counts = {
        "rulesets": len(rulesets),
        "books": len(factions),
        "book versions": versions,
        "Army Forge syncs": len(syncs),
        "Army Forge core rules versions": len(armyforge_rules),
        "groups": len(groups),
        "users": len(users),
        "tokens": len(tokens),
        "sessions": len(sessions),
        "event packs": len(packs),
        "lists": len(lists),
        "submissions": len(submissions),
    }
    # Written last: a backup cut short has no manifest and is refused as a whole.
    _write(folder / "manifest.json", {"format": FORMAT, "counts": counts})
    return counts


def _chosen_name(user: Model) -> str:
    """The display name the user chose ("" for none)."""
    try:
        return user.profile.display_name  # type: ignore[attr-defined]
    except Profile.DoesNotExist:
        return ""


def _versions_of(faction: Faction, rows: list[BookVersion]) -> list[dict[str, Any]]:
    """The book's versions as the backup keeps them, oldest first; the current version's
    document is the book's own file."""
    return [
        {
            **{field: getattr(row, field) for field in VERSION_FIELDS},
            "imported_at": _when(row.imported_at),
            "document": None if row.version == faction.version else row.document,
        }
        for row in rows
    ]
