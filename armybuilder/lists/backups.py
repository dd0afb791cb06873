"""Backups: everything a site holds, as plain JSON files in one folder.

    DIR/manifest.json                  format and how many of each thing the backup holds
    DIR/rulesets.json                  rulesets with their limits and core rules (admin edits too)
    DIR/books/<system>/<slug>.json     every army book (armybook/1): its current version
    DIR/versions/<system>/<slug>.json  every version of the book, oldest first: version,
                                       source, Army Forge id, import time, units, content
                                       stamp and document (armybook/1; null for the current
                                       version, which the book's file holds)
    DIR/factions.json                  what a book's row holds besides the book: id, import
                                       time, import warnings, source and the slug it came with
    DIR/armyforge_syncs.json           what the last syncs from Army Forge did with each book
    DIR/groups.json                    permission groups
    DIR/users.json                     accounts with their ids (password hashes, not passwords)
                                       and display names ("": none chosen)
    DIR/tokens.json                    API tokens
    DIR/sessions.json                  unexpired sessions: who is signed in, and the visitor id
                                       that ties a visitor to their lists
    DIR/event_packs.json               event packs: every field, with the key, id and organiser id
    DIR/lists.json                     every saved list (armylist/1 plus id, owner id, visitor,
                                       share key, version, book version, times; `event`, the
                                       key of the pack it is built for)
    DIR/submissions.json               lists submitted to event packs: the frozen copy
                                       (armylist/1), with ids, the pack's key, the player's id
                                       and the time it was submitted

`backup_export` writes it from one consistent snapshot; `backup_import` reads and checks
it, then restores it, all or nothing, into a migrated database that has no users and no
lists yet (a new server), keeping every id. Sessions are signed with SECRET_KEY: the new
server needs the old key for its visitors and users to stay signed in.

Backups in the first format (armybuilder-backup/1: books, users and lists only) still
restore as they did: users and lists numbered from 1 in the order of the backup. The
second format (/2) also kept revision counters of books and rulesets, which caches were
keyed by then; they are passed over (caches are keyed by content stamps now). It had no
event packs or submissions. Backups before the fourth (/4) kept one version of each book,
its current one, and no Army Forge syncs: each book comes back with that one version,
its source told as migration factions/0009 tells it (Army Forge for a book with an Army
Forge id, bundled for one the site ships, else an upload), and each event pack plays the
current versions of the books. Backups before the fifth (/5) kept no display names: their
users come back without one, shown as "Player N" as before.

Each versions file is checked whole, every problem in it named: its records' fields, and
each document, which must still be the one its content stamp was made from; the book's
current version must be among its versions (with no document: the book's file is it).
Lists pinned to an older version price as they did: its document comes back as it was.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.sessions.models import Session
from django.core.management.color import no_style
from django.db import DatabaseError, connection, transaction
from django.db.models import Model
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from armybuilder.events import format as pack_format
from armybuilder.events.models import EventPack, Submission
from armybuilder.events.rules import BOOKS_RULES, RULE_FIELDS
from armybuilder.lists import accounts
from armybuilder.lists.format import check_list_shape, first_error
from armybuilder.lists.models import ARMYLIST_FIELDS, ArmyList, Profile
from armybuilder.stamps import STAMP_LENGTH, content_hash
from factions.armybook import ArmyBookError, check_storable, parse_json
from factions.catalogue import RULESET_FIELDS
from factions.models import ArmyForgeSync, BookSource, BookVersion, Faction, Ruleset
from factions.selectors import faction_book, faction_get_with_book, ruleset_record
from factions.services import KeptVersion, armybook_restore, bundled_book_paths, ruleset_write

FORMAT = "armybuilder-backup/5"
FORMAT_4 = "armybuilder-backup/4"  # as /5, without display names
FORMAT_3 = "armybuilder-backup/3"  # as /4, with one version of each book, no sources, syncs or packs' books
FORMAT_2 = "armybuilder-backup/2"  # as /3, with revision counters (passed over), without events
FORMAT_1 = "armybuilder-backup/1"
FORMATS = (FORMAT, FORMAT_4, FORMAT_3, FORMAT_2, FORMAT_1)
USER_FIELDS = ("username", "email", "password", "first_name", "last_name", "is_staff", "is_superuser", "is_active")
LIST_FIELDS = (
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
PACK_FIELDS = ("key", *pack_format.PACK_FIELDS, "version")
PACK_JSON_FIELDS = {field: dict if field == "limit_changes" else list for field in RULE_FIELDS}
SUBMISSION_FIELDS = ("id", "pack", "player", "army_list", "data", "book_version", "submitted_at")
EVENT_FILES = ("event_packs.json", "submissions.json")
FACTION_FIELDS = ("system", "slug", "id", "imported_at", "import_warnings")
VERSION_FIELDS = ("version", "source", "armyforge_id", "imported_at", "units", "content_hash", "document")
SYNC_FIELDS = ("system", "armyforge_id", "name", "version", "outcome", "detail", "synced_at")
SOURCES = tuple(BookSource.values)

# The keys each record of a file must have, to refuse a damaged backup before writing.
RECORD_KEYS = {
    "rulesets.json": ("slug", *RULESET_FIELDS, "limits", "core_rules"),
    "factions.json": (*FACTION_FIELDS, "source", "import_slug"),
    "armyforge_syncs.json": SYNC_FIELDS,
    "groups.json": ("name", "permissions"),
    "users.json": ("id", *USER_FIELDS, "display_name", "date_joined", "last_login", "groups", "permissions"),
    "tokens.json": ("key", "user", "created"),
    "sessions.json": ("session_key", "session_data", "expire_date"),
    "event_packs.json": ("id", "organiser", *PACK_FIELDS, "created", "updated"),
    "lists.json": ("id", "owner", *LIST_FIELDS, "created", "updated"),
    "submissions.json": SUBMISSION_FIELDS,
}
RECORD_KEYS_4 = {
    **RECORD_KEYS,
    "users.json": tuple(key for key in RECORD_KEYS["users.json"] if key != "display_name"),
}
RECORD_KEYS_3 = {
    **{name: keys for name, keys in RECORD_KEYS_4.items() if name != "armyforge_syncs.json"},
    "factions.json": FACTION_FIELDS,
    "event_packs.json": tuple(key for key in RECORD_KEYS["event_packs.json"] if key != "books"),
}
RECORD_KEYS_2 = {name: keys for name, keys in RECORD_KEYS_3.items() if name not in EVENT_FILES}
RECORD_KEYS_1 = {
    "users.json": (*USER_FIELDS, "date_joined"),
    "lists.json": ("owner", *LIST_FIELDS, "created", "updated"),
}


class BackupError(Exception):
    pass


# -- export ------------------------------------------------------------------------------------


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
        full = faction_get_with_book(system=faction.ruleset.slug, slug=faction.slug)
        _write(folder / "books" / faction.ruleset.slug / f"{faction.slug}.json", faction_book(faction=full))
        kept = _versions_of(faction)
        _write(folder / "versions" / faction.ruleset.slug / f"{faction.slug}.json", kept)
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


def _versions_of(faction: Faction) -> list[dict[str, Any]]:
    """The book's versions as the backup keeps them, oldest first; the current version's
    document is the book's own file. (A book whose current version has no row, which
    the writers of books never leave, gets one: the backup always restores.)"""
    rows = list(BookVersion.objects.filter(faction=faction).order_by("imported_at", "id"))
    if all(row.version != faction.version for row in rows):
        rows.append(
            BookVersion(
                version=faction.version,
                source=faction.source,
                armyforge_id=faction.armyforge_id,
                imported_at=faction.imported_at,
                units=faction.units.count(),
                content_hash=faction.content_hash,
            )
        )
    return [
        {
            **{field: getattr(row, field) for field in VERSION_FIELDS},
            "imported_at": _when(row.imported_at),
            "document": None if row.version == faction.version else row.document,
        }
        for row in rows
    ]


# -- reading and checking a backup ---------------------------------------------------------------


@dataclass
class _Backup:
    folder: Path
    format: str
    rulesets: list[dict[str, Any]]
    books: list[Path]
    factions: list[dict[str, Any]] | None  # None: /1 kept no faction rows
    versions: dict[tuple[str, str], str] | None  # (system, slug) -> its versions file; None: before /4
    version_count: int
    syncs: list[dict[str, Any]]
    groups: list[dict[str, Any]]
    users: list[dict[str, Any]]
    tokens: list[dict[str, Any]]
    sessions: list[dict[str, Any]]
    packs: list[dict[str, Any]]
    lists: list[dict[str, Any]]
    submissions: list[dict[str, Any]]


def _load(folder: Path, name: str) -> Any:
    path = folder / name
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BackupError(f"{folder} is not a complete backup: {name} is missing") from None
    except OSError as exc:
        raise BackupError(f"{path} cannot be read: {exc.strerror}") from exc
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BackupError(f"{path} is corrupt: {exc}") from exc


def _records(folder: Path, name: str, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    data = _load(folder, name)
    if not isinstance(data, list):
        raise BackupError(f"{folder / name} is corrupt: it should hold a list of records")
    for number, item in enumerate(data, 1):
        if not isinstance(item, dict):
            raise BackupError(f"{folder / name} is corrupt: record {number} is not an object")
        missing = [key for key in keys if key not in item]
        if missing:
            raise BackupError(f"{folder / name} is corrupt: record {number} has no {', '.join(missing)}")
    return data


def _read_backup(folder: Path) -> _Backup:
    if not folder.is_dir():
        raise BackupError(f"{folder} is not a readable backup: no such folder")
    if not (folder / "manifest.json").is_file():
        raise BackupError(f"{folder} is not a readable backup: it has no manifest.json")
    manifest = _load(folder, "manifest.json")
    found = manifest.get("format") if isinstance(manifest, dict) else None
    if found not in FORMATS:
        raise BackupError(
            f'{folder} is not an Armybuilder backup this version reads (format "{found}"; '
            f"it reads {', '.join(FORMATS[:-1])} and {FORMATS[-1]})"
        )
    older = {FORMAT_1: RECORD_KEYS_1, FORMAT_2: RECORD_KEYS_2, FORMAT_3: RECORD_KEYS_3, FORMAT_4: RECORD_KEYS_4}
    keys = older.get(found, RECORD_KEYS)
    records = {name: _records(folder, name, keys[name]) for name in keys}
    books = sorted((folder / "books").glob("*/*.json"))
    versions = _version_files(folder) if found in (FORMAT, FORMAT_4) else None
    backup = _Backup(
        folder=folder,
        format=found,
        rulesets=records.get("rulesets.json", []),
        books=books,
        factions=records.get("factions.json"),
        versions=versions,
        # Before /4, each book comes back with one version: its current one.
        version_count=len(books) if versions is None else sum(map(len, _all_versions(folder, versions))),
        syncs=records.get("armyforge_syncs.json", []),
        groups=records.get("groups.json", []),
        users=records["users.json"],
        tokens=records.get("tokens.json", []),
        sessions=records.get("sessions.json", []),
        packs=records.get("event_packs.json", []),
        lists=records["lists.json"],
        submissions=records.get("submissions.json", []),
    )
    if found == FORMAT_1:
        backup = _from_format_1(backup)
    _check_counts(backup, manifest.get("counts"))
    return backup


def _version_files(folder: Path) -> dict[tuple[str, str], str]:
    """The versions file of each book, {(system, slug): its name in the backup}."""
    found = sorted((p.parent.name, p.stem) for p in (folder / "versions").glob("*/*.json"))
    return {(system, slug): f"versions/{system}/{slug}.json" for system, slug in found}


def _all_versions(folder: Path, files: dict[tuple[str, str], str]) -> Iterator[list[dict[str, Any]]]:
    """Each book's versions, checked, one book at a time (the documents are not kept)."""
    for (system, _slug), name in files.items():
        yield _version_records(folder, name, system)


def _version_records(folder: Path, name: str, system: str) -> list[dict[str, Any]]:
    """The versions in one book's versions file, every problem of each named at once
    (BackupError): its fields, and its document, which must still be the one its content
    stamp was made from (a document changed since the backup was made is refused)."""
    records = _records(folder, name, VERSION_FIELDS)
    problems = [
        f"version {number}: {problem}"
        for number, record in enumerate(records, 1)
        for problem in _version_problems(record, system)
    ]
    names = Counter(record["version"] for record in records if isinstance(record["version"], str))
    problems += [f'version "{version}" is there {times} times' for version, times in names.items() if times > 1]
    if problems:
        raise BackupError(f"{folder / name} is inconsistent: {'; '.join(problems)}")
    return records


def _version_problems(record: dict[str, Any], system: str) -> list[str]:
    """What is wrong with one record of a versions file (nothing: [])."""
    name, document, stamp = record["version"], record["document"], record["content_hash"]
    longest, uid = (BookVersion._meta.get_field(field).max_length or 0 for field in ("version", "armyforge_id"))
    checks = [
        (_text(name, longest, blank=False), f"its version should be a name of 1 to {longest} characters"),
        (record["source"] in SOURCES, f"its source should be one of {', '.join(SOURCES)}"),
        (_text(record["armyforge_id"], uid), f"its armyforge_id should be text of at most {uid} characters"),
        (_is_time(record["imported_at"]), "its imported_at should be a date and time"),
        (_count(record["units"]), "its units should be a whole number, 0 or more"),
        (_text(stamp, STAMP_LENGTH), f"its content_hash should be text of at most {STAMP_LENGTH} characters"),
    ]
    problems = [problem for holds, problem in checks if not holds]
    if document is None:
        return problems
    if not _book_document(document, system):
        return [*problems, f"its document should be an armybook/1 book of {system}, or null"]
    if unstorable := check_storable(document):
        return [*problems, f"its document cannot be kept: {unstorable[0]}"]
    if content_hash(document) != stamp:
        return [*problems, "its document is not the one its content_hash was made from (changed after the backup)"]
    if document["version"] != name:
        problems.append(f'its document is version "{document["version"]}"')
    if len(document["units"]) != record["units"]:
        problems.append(f"its units say {record['units']}, its document holds {len(document['units'])}")
    return problems


def _text(value: Any, most: int, *, blank: bool = True) -> bool:
    return isinstance(value, str) and len(value) <= most and (blank or bool(value))


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_time(value: Any) -> bool:
    try:
        return isinstance(value, str) and parse_datetime(value) is not None
    except ValueError:
        return False


def _book_document(document: Any, system: str) -> bool:
    """Whether `document` has the shape of an armybook/1 book of `system` (its stamp says the rest)."""
    return (
        isinstance(document, dict)
        and document.get("format") == "armybook/1"
        and document.get("system") == system
        and isinstance(document.get("version"), str)
        and isinstance(document.get("units"), list)
    )


def _from_format_1(backup: _Backup) -> _Backup:
    """A /1 backup in /3 shape: users and lists numbered from 1, owners by id."""
    ids = {user["username"]: number for number, user in enumerate(backup.users, 1)}
    users = [
        {**user, "id": ids[user["username"]], "last_login": None, "groups": [], "permissions": []}
        for user in backup.users
    ]
    lists = []
    for number, item in enumerate(backup.lists, 1):
        owner = item["owner"]
        if owner is not None and owner not in ids:
            raise BackupError(f'{backup.folder / "lists.json"}: list {number} belongs to "{owner}", not in users.json')
        lists.append({**item, "id": number, "owner": ids.get(owner)})
    return _Backup(**{**backup.__dict__, "users": users, "lists": lists})


def _held(backup: _Backup) -> dict[str, int]:
    """How many of each thing the backup holds, as its manifest counts them."""
    return {
        "rulesets": len(backup.rulesets),
        "books": len(backup.books),
        "book versions": backup.version_count,
        "Army Forge syncs": len(backup.syncs),
        "groups": len(backup.groups),
        "users": len(backup.users),
        "tokens": len(backup.tokens),
        "sessions": len(backup.sessions),
        "event packs": len(backup.packs),
        "lists": len(backup.lists),
        "submissions": len(backup.submissions),
    }


def _check_counts(backup: _Backup, counts: Any) -> None:
    """A backup missing files or records (a partial copy) is refused, saying what is short."""
    if not isinstance(counts, dict):
        raise BackupError(f"{backup.folder / 'manifest.json'} is corrupt: it has no counts")
    held = _held(backup)
    short = [f"{counts[k]} {k} but holds {n}" for k, n in held.items() if k in counts and counts[k] != n]
    if short:
        raise BackupError(f"{backup.folder} is incomplete: its manifest counts {'; '.join(short)}")
    files = {(p.parent.name, p.stem) for p in backup.books}
    if backup.factions is not None:
        rows = {(f["system"], f["slug"]) for f in backup.factions}
        if rows != files:
            odd = sorted(f"{system}/{slug}" for system, slug in rows ^ files)
            raise BackupError(f"{backup.folder}: books/ and factions.json do not match ({', '.join(odd)})")
    if backup.versions is not None and set(backup.versions) != files:
        odd = sorted(f"{system}/{slug}" for system, slug in set(backup.versions) ^ files)
        raise BackupError(f"{backup.folder}: books/ and versions/ do not match ({', '.join(odd)})")


# -- restore -----------------------------------------------------------------------------------


def _datetime(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    parsed = parse_datetime(value) if isinstance(value, str) else None
    if parsed is None:
        raise BackupError(f"{where}: {value!r} is not a date and time")
    return parsed


def backup_import(*, folder: Path, dry_run: bool = False) -> dict[str, int]:
    """Restore the backup in `folder`; BackupError, with nothing changed, if it is not a
    whole backup or the database is not a new one. `dry_run` restores and rolls back."""
    backup = _read_backup(folder)
    User = get_user_model()
    if ArmyList.objects.exists():
        raise BackupError("This database already has lists: restore into a new, migrated database.")
    if User.objects.exists():
        raise BackupError("This database already has users: restore into a new, migrated database.")
    try:
        with transaction.atomic():
            _restore_rulesets(backup)
            faction_ids_kept = _restore_books(backup)
            _restore_syncs(backup)
            _restore_accounts(backup)
            _restore_packs(backup)
            _restore_lists(backup)
            _restore_submissions(backup)
            if dry_run:
                transaction.set_rollback(True)
            else:
                # setval is not undone by a rollback: only once the rest has gone in.
                _reset_sequences(faction_ids_kept=faction_ids_kept)
    except DatabaseError as exc:
        raise BackupError(f"{folder} does not restore: the database refused it ({exc})") from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise BackupError(f"{folder} does not restore: a record is damaged ({exc!r})") from exc
    return {name: count for name, count in _held(backup).items() if name != "groups"}


def _restore_rulesets(backup: _Backup) -> None:
    """The five rulesets come from the migrations: put back what the admin changed in
    them; then the variants made from them."""
    for data in sorted(backup.rulesets, key=lambda record: record.get("base") is not None):
        found = Ruleset.objects.select_related("base").prefetch_related("limits", "core_rules")
        ruleset = found.filter(slug=data["slug"]).first()
        if ruleset is None and data.get("base") is None:
            raise BackupError(f'rulesets.json: this version of Armybuilder has no ruleset "{data["slug"]}"')
        record = {"base": None, **{key: value for key, value in data.items() if key != "revision"}}  # /2: a counter
        if ruleset is None or ruleset_record(ruleset=ruleset) != record:
            ruleset_write(data=record)


def _restore_books(backup: _Backup) -> bool:
    """Put back every book with its versions, its row's id (when the database has no
    books yet), import time, warnings, source and the slug it came with. Returns whether
    ids were kept."""
    keep_ids = backup.factions is not None and not Faction.objects.exists()
    rows = {(f["system"], f["slug"]): f for f in backup.factions or []}
    bundled = {(path.parent.name, path.stem) for path in bundled_book_paths()}
    for path in backup.books:
        key = (path.parent.name, path.stem)
        row = rows.get(key)
        try:
            book = parse_json(path.read_bytes())
            source, import_slug = _book_source(key, book, row, bundled)
            faction = armybook_restore(
                data=book,
                source=source,
                import_slug=import_slug,
                versions=_kept_versions(backup, key, book),
                faction_id=row["id"] if keep_ids and row is not None else None,
            )
        except ArmyBookError as exc:
            problems = "; ".join(str(p) for p in exc.problems)
            raise BackupError(f"{path} does not import: {problems}") from exc
        if (faction.ruleset.slug, faction.slug) != key:
            raise BackupError(f"{path} holds the book {faction.ruleset.slug}/{faction.slug}")
        if row is not None:
            imported_at = _datetime(row["imported_at"], f"factions.json, {key[0]}/{key[1]}")
            Faction.objects.filter(pk=faction.pk).update(
                imported_at=imported_at, import_warnings=row["import_warnings"]
            )
            if backup.versions is None:  # its one version was imported when the book was
                BookVersion.objects.filter(faction=faction).update(imported_at=imported_at)
    return keep_ids


def _book_source(
    key: tuple[str, str], book: Any, row: dict[str, Any] | None, bundled: set[tuple[str, str]]
) -> tuple[str, str]:
    """(source, the slug it came with) of a book: as factions.json says since /4; before,
    its source as migration factions/0009 tells it, and its own slug."""
    if row is not None and "source" in row:
        longest = Faction._meta.get_field("import_slug").max_length or 0
        _refuse_if(
            f"factions.json, {key[0]}/{key[1]}",
            (row["source"] not in SOURCES, f"its source should be one of {', '.join(SOURCES)}"),
            (not _text(row["import_slug"], longest), f"its import_slug should be at most {longest} characters"),
        )
        return row["source"], row["import_slug"]
    if isinstance(book, dict) and book.get("armyforge_id"):
        return BookSource.ARMYFORGE, ""
    return (BookSource.BUNDLED if key in bundled else BookSource.UPLOAD), ""


def _kept_versions(backup: _Backup, key: tuple[str, str], book: Any) -> list[KeptVersion]:
    """The book's versions as its versions file keeps them (none before /4: the book comes
    back with one, its current version). The book's current version must be one of them,
    with no document of its own (the book's file is its document)."""
    if backup.versions is None:
        return []
    name = backup.versions[key]
    records = _version_records(backup.folder, name, key[0])
    current = book.get("version") if isinstance(book, dict) else None
    if isinstance(current, str):  # (else the book does not import, which says why)
        held = [record for record in records if record["version"] == current]
        _refuse_if(
            str(backup.folder / name),
            (not held, f'the book\'s current version "{current}" (books/{key[0]}/{key[1]}.json) is not among them'),
            (
                bool(held) and held[0]["document"] is not None,
                f'its current version "{current}" has a document: the book\'s own file is its document',
            ),
        )
    return [
        KeptVersion(
            version=record["version"],
            source=record["source"],
            armyforge_id=record["armyforge_id"],
            imported_at=_datetime(record["imported_at"], f"{name}, version {record['version']}"),
            units=record["units"],
            content_hash=record["content_hash"],
            document=record["document"],
        )
        for record in records
    ]


def _restore_syncs(backup: _Backup) -> None:
    """What the syncs from Army Forge last did with each book, in place of what this
    database says of the same books."""
    keys = Counter((data["system"], data["armyforge_id"]) for data in backup.syncs)
    for (system, uid), times in keys.items():
        _refuse_if("armyforge_syncs.json", (times > 1, f'Army Forge book "{uid}" of {system} is there {times} times'))
    syncs = [
        ArmyForgeSync(
            **{field: data[field] for field in SYNC_FIELDS if field != "synced_at"},
            synced_at=_datetime(data["synced_at"], f'armyforge_syncs.json, Army Forge book "{data["armyforge_id"]}"'),
        )
        for data in backup.syncs
    ]
    for system, uid in keys:
        ArmyForgeSync.objects.filter(system=system, armyforge_id=uid).delete()
    ArmyForgeSync.objects.bulk_create(syncs)


def _permissions(names: list[str], where: str) -> list[Permission]:
    found = []
    for name in names:
        app_label, _, codename = name.partition(".")
        permission = Permission.objects.filter(content_type__app_label=app_label, codename=codename).first()
        if permission is None:
            raise BackupError(f'{where}: this version of Armybuilder has no permission "{name}"')
        found.append(permission)
    return found


def _restore_accounts(backup: _Backup) -> None:
    groups = {}
    for data in backup.groups:
        group = Group.objects.create(name=data["name"])
        group.permissions.set(_permissions(data["permissions"], f'groups.json, group "{data["name"]}"'))
        groups[group.name] = group
    for data in backup.users:
        _refuse_if(f"users.json, user {data.get('id')}", *_user_problems(data))
    User = get_user_model()
    users = User.objects.bulk_create(
        User(
            id=data["id"],
            **{f: data[f] for f in USER_FIELDS},
            date_joined=_datetime(data["date_joined"], f'users.json, user "{data["username"]}"'),
            last_login=_datetime(data["last_login"], f'users.json, user "{data["username"]}"'),
        )
        for data in backup.users
    )
    Profile.objects.bulk_create(
        Profile(user=user, display_name=accounts.display_name_clean(data["display_name"])[0])
        for user, data in zip(users, backup.users, strict=True)
        if data.get("display_name")  # none before /5
    )
    for user, data in zip(users, backup.users, strict=True):
        where = f'users.json, user "{data["username"]}"'
        unknown = [name for name in data["groups"] if name not in groups]
        if unknown:
            raise BackupError(f"{where}: groups {', '.join(unknown)} are not in groups.json")
        user.groups.set([groups[name] for name in data["groups"]])
        user.user_permissions.set(_permissions(data["permissions"], where))

    user_ids = {data["id"] for data in backup.users}
    for data in backup.tokens:
        if data["user"] not in user_ids:
            raise BackupError(f"tokens.json: a token belongs to user {data['user']}, who is not in users.json")
    Token = apps.get_model("authtoken", "Token")  # the API's tokens (DRF's app), by name
    tokens = Token.objects.bulk_create(Token(key=data["key"], user_id=data["user"]) for data in backup.tokens)
    # bulk_create stamps auto_now_add fields with today; bulk_update leaves them as given.
    for token, data in zip(tokens, backup.tokens, strict=True):
        token.created = _datetime(data["created"], f"tokens.json, the token of user {data['user']}")
    Token.objects.bulk_update(tokens, ["created"])

    Session.objects.filter(session_key__in=[data["session_key"] for data in backup.sessions]).delete()
    Session.objects.bulk_create(
        Session(
            session_key=data["session_key"],
            session_data=data["session_data"],
            expire_date=_datetime(data["expire_date"], "sessions.json"),
        )
        for data in backup.sessions
    )


def _user_problems(data: dict[str, Any]) -> list[tuple[bool, str]]:
    """What the live paths would refuse in a user: the checks of the sign-up and admin
    forms' fields, as (wrong, why)."""
    checks = [(not _count(data.get("id")) or data.get("id") == 0, "its id should be a whole number above 0")]
    for name in ("username", "password"):
        checks.append(
            (not _text(data.get(name), 150 if name == "username" else 128, blank=False), f"its {name} should be text")
        )
    for name, most in (("first_name", 150), ("last_name", 150)):
        checks.append((not _text(data.get(name), most), f"its {name} should be text of at most {most} characters"))
    # As the sign-up and account pages check them (none before /5: "").
    problems = accounts.account_problems(email=data.get("email"), display_name=data.get("display_name", ""))
    checks.extend((True, problem) for found in problems.values() for problem in found)
    for name in ("is_staff", "is_superuser", "is_active"):
        checks.append((not isinstance(data.get(name), bool), f"{name} should be true or false"))
    for name in ("groups", "permissions"):
        value = data.get(name)
        checks.append(
            (
                not isinstance(value, list) or not all(isinstance(v, str) for v in value),
                f"its {name} should be a list of names",
            )
        )
    return checks


def _restore_packs(backup: _Backup) -> None:
    """The event packs with their keys, ids and organisers; a pack naming a ruleset or a
    user the backup does not have, or with rules of the wrong shape, is refused by name."""
    user_ids = {data["id"] for data in backup.users}
    rulesets = {ruleset.slug: ruleset for ruleset in Ruleset.objects.all()}
    packs = []
    for data in backup.packs:
        where = f'event_packs.json, pack {data["id"]} ("{data["key"]}")'
        deadline = _datetime(data["deadline"], where)
        books = data.get("books", "current")  # before /4: the current versions
        _refuse_if(
            where,
            (data["organiser"] not in user_ids, f"its organiser, user {data['organiser']}, is not in users.json"),
            (data["ruleset"] not in rulesets, f'no ruleset "{data["ruleset"]}" in rulesets.json'),
            (deadline is None, "it has no deadline"),
            (not isinstance(books, str) or books not in BOOKS_RULES, 'its books should be "current" or "any"'),
            *(
                (not isinstance(data[name], kind), f"{name} should be {_KIND_WORDS[kind]}")
                for name, kind in PACK_JSON_FIELDS.items()
            ),
        )
        try:  # what a pack's form and PATCH would refuse
            pack_format.check_pack({field: data[field] for field in pack_format.PACK_FIELDS if field in data})
        except pack_format.EventError as exc:
            raise BackupError(f"{where}: {first_error(exc.errors)}") from None
        _refuse_if(
            where, (not _count(data.get("version")) or data["version"] < 1, "its version should be a whole number")
        )
        fields = {field: data[field] for field in PACK_FIELDS if field not in ("ruleset", "deadline", "books")}
        ruleset = rulesets[data["ruleset"]]
        packs.append(
            EventPack(
                id=data["id"], organiser_id=data["organiser"], ruleset=ruleset, deadline=deadline, books=books, **fields
            )
        )
    EventPack.objects.bulk_create(packs)
    _put_back_times(EventPack, packs, backup.packs, "event_packs.json, pack")


_KIND_WORDS = {dict: "an object", list: "a list"}


def _refuse_if(where: str, *checks: tuple[bool, str]) -> None:
    """Refuse the record at `where` with the first problem whose check holds."""
    for wrong, problem in checks:
        if wrong:
            raise BackupError(f"{where}: {problem}")


def _put_back_times(model: type[Model], rows: list[Model], records: list[dict[str, Any]], what: str) -> None:
    """bulk_create stamps auto_now and auto_now_add fields with today; bulk_update leaves
    the backup's times as they are given."""
    for row, data in zip(rows, records, strict=True):
        row.created = _datetime(data["created"], f"{what} {data['id']}")
        row.updated = _datetime(data["updated"], f"{what} {data['id']}")
    model.objects.bulk_update(rows, ["created", "updated"])


def _restore_lists(backup: _Backup) -> None:
    user_ids = {data["id"] for data in backup.users}
    pack_keys = {data["key"] for data in backup.packs}
    for data in backup.lists:
        if data["owner"] is not None and data["owner"] not in user_ids:
            raise BackupError(f"lists.json: list {data['id']} belongs to user {data['owner']}, not in users.json")
        where = f"lists.json, list {data['id']}"
        _clean, problems = check_list_shape({field: data[field] for field in ARMYLIST_FIELDS})
        _refuse_if(
            where,
            (bool(problems), f"it is not armylist/1 ({first_error(problems) if problems else ''})"),
            (not _count(data.get("version")) or data["version"] < 1, "its version should be a whole number"),
            (not _text(data.get("share_key"), 64, blank=False), "its share key should be text"),
            (not _text(data.get("visitor"), 64), "its visitor should be text"),
            (not _text(data.get("book_version"), 48), "its book version should be text"),
        )
        if data.get("event") is not None and data["event"] not in pack_keys:
            event = data["event"]
            raise BackupError(
                f'lists.json: list {data["id"]} is built for event pack "{event}", not in event_packs.json'
            )
    lists = ArmyList.objects.bulk_create(
        ArmyList(id=data["id"], owner_id=data["owner"], event_id=data.get("event"), **{f: data[f] for f in LIST_FIELDS})
        for data in backup.lists
    )
    _put_back_times(ArmyList, lists, backup.lists, "lists.json, list")


def _restore_submissions(backup: _Backup) -> None:
    """The frozen copies, as they were submitted (their validations are worked out again
    when next shown); one naming a pack, a player or a list the backup does not have, or
    holding a list that is not armylist/1, is refused by name."""
    packs = dict(EventPack.objects.values_list("key", "id"))
    user_ids = {data["id"] for data in backup.users}
    list_ids = {data["id"] for data in backup.lists}
    submissions = []
    for data in backup.submissions:
        where = f"submissions.json, submission {data['id']}"
        clean, problems = check_list_shape(data["data"])
        _refuse_if(
            where,
            (data["pack"] not in packs, f'its event pack "{data["pack"]}" is not in event_packs.json'),
            (data["player"] not in user_ids, f"its player, user {data['player']}, is not in users.json"),
            (
                data["army_list"] not in (None, *list_ids),
                f"it was copied from list {data['army_list']}, not in lists.json",
            ),
            (bool(problems), f"its list is not armylist/1 ({first_error(problems) if problems else ''})"),
        )
        submissions.append(
            Submission(
                id=data["id"],
                pack_id=packs[data["pack"]],
                player_id=data["player"],
                army_list_id=data["army_list"],
                data={**(clean or {}), "event": data["pack"]},  # checked, and entered for its pack
                book_version=data["book_version"],
                submitted_at=_datetime(data["submitted_at"], where),
            )
        )
    Submission.objects.bulk_create(submissions)


def _reset_sequences(*, faction_ids_kept: bool) -> None:
    """Rows restored with their ids leave PostgreSQL's id sequences behind: move them on,
    so that the next user or list gets a new id (SQLite needs nothing)."""
    models: list[type[Model]] = [get_user_model(), ArmyList, EventPack, Submission]
    if faction_ids_kept:
        models.append(Faction)
    statements = connection.ops.sequence_reset_sql(no_style(), models)
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)
