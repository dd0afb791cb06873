"""Backups: everything a site holds, as plain JSON files in one folder. This module holds
the format: its files, the records each holds, and the checks of their values; writing.py
writes a backup, reading.py reads and checks one, restoring.py puts it back.

    DIR/manifest.json                  format and how many of each thing the backup holds
    DIR/rulesets.json                  rulesets with their limits and core rules (admin edits too)
    DIR/books/<system>/<slug>.json     every army book (armybook/1): its current version
    DIR/versions/<system>/<slug>.json  every version of the book, oldest first: version,
                                       source, Army Forge id, import time, units, content
                                       stamp, Army Forge's modifiedAt of the book when it
                                       was read ("" for none) and document (armybook/1;
                                       null for the current version, which the book's file
                                       holds)
    DIR/factions.json                  what a book's row holds besides the book: id, import
                                       time, import warnings, source and the slug it came with
    DIR/armyforge_syncs.json           what the last syncs from Army Forge did with each book
    DIR/armyforge_rules.json           every version of Army Forge's core rules of each ruleset,
                                       oldest first: ruleset, version, when it was read, its
                                       rules ([{"name", "text"}]) and their content stamp
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

`backup_export` (writing.py) writes it from one consistent snapshot; `backup_import`
(restoring.py) reads and checks it, then restores it, all or nothing, into a migrated
database that has no users and no lists yet (a new server), keeping every id. Sessions
are signed with SECRET_KEY: the new server needs the old key for its visitors and users
to stay signed in.

Backups in the first format (armybuilder-backup/1: books, users and lists only) still
restore as they did: users and lists numbered from 1 in the order of the backup. The
second format (/2) also kept revision counters of books and rulesets, which caches were
keyed by then; they are passed over (caches are keyed by content stamps now). It had no
event packs or submissions. Backups before the fourth (/4) kept one version of each book,
its current one, and no Army Forge syncs: each book comes back with that one version,
its source told as migration factions/0009 tells it (Army Forge for a book with an Army
Forge id, bundled for one the site ships, else an upload), and each event pack plays the
current versions of the books. Backups before the fifth (/5) kept no display names: their
users come back without one, shown as "Player N" as before. Backups before the sixth (/6)
kept no core rules from Army Forge (the next sync reads them) nor the modifiedAt of the
versions read from it (they come back as read before the site kept it: a sync does not
fetch them again for that).

Each versions file is checked whole, every problem in it named: its records' fields, and
each document, which must still be the one its content stamp was made from; the book's
current version must be among its versions (with no document: the book's file is it).
Lists pinned to an older version price as they did: its document comes back as it was.
The core rules from Army Forge are checked the same way: each version's fields, its rules
(bounded as the sync bounds them), and its stamp, which must be that of its rules.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime

from armybuilder.events import format as pack_format
from armybuilder.events.rules import RULE_FIELDS
from factions.catalogue import RULESET_FIELDS
from factions.models import BookSource

FORMAT = "armybuilder-backup/6"
FORMAT_5 = "armybuilder-backup/5"  # as /6, without Army Forge's core rules and the versions' modifiedAt
FORMAT_4 = "armybuilder-backup/4"  # as /5, without display names
FORMAT_3 = "armybuilder-backup/3"  # as /4, with one version of each book, no sources, syncs or packs' books
FORMAT_2 = "armybuilder-backup/2"  # as /3, with revision counters (passed over), without events
FORMAT_1 = "armybuilder-backup/1"
FORMATS = (FORMAT, FORMAT_5, FORMAT_4, FORMAT_3, FORMAT_2, FORMAT_1)
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
VERSION_FIELDS_5 = ("version", "source", "armyforge_id", "imported_at", "units", "content_hash", "document")
VERSION_FIELDS = (*VERSION_FIELDS_5, "armyforge_modified_at")
SYNC_FIELDS = ("system", "armyforge_id", "name", "version", "outcome", "detail", "synced_at")
ARMYFORGE_RULES_FIELDS = ("system", "version", "fetched_at", "rules", "content_hash")
SOURCES = tuple(BookSource.values)

# The keys each record of a file must have, to refuse a damaged backup before writing.
RECORD_KEYS = {
    "rulesets.json": ("slug", *RULESET_FIELDS, "limits", "core_rules"),
    "factions.json": (*FACTION_FIELDS, "source", "import_slug"),
    "armyforge_syncs.json": SYNC_FIELDS,
    "armyforge_rules.json": ARMYFORGE_RULES_FIELDS,
    "groups.json": ("name", "permissions"),
    "users.json": ("id", *USER_FIELDS, "display_name", "date_joined", "last_login", "groups", "permissions"),
    "tokens.json": ("key", "user", "created"),
    "sessions.json": ("session_key", "session_data", "expire_date"),
    "event_packs.json": ("id", "organiser", *PACK_FIELDS, "created", "updated"),
    "lists.json": ("id", "owner", *LIST_FIELDS, "created", "updated"),
    "submissions.json": SUBMISSION_FIELDS,
}
RECORD_KEYS_5 = {name: keys for name, keys in RECORD_KEYS.items() if name != "armyforge_rules.json"}
RECORD_KEYS_4 = {
    **RECORD_KEYS_5,
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


def version_fields(format: str) -> tuple[str, ...]:
    """The fields of each record of a versions file in a backup of `format` (/4 and later)."""
    return VERSION_FIELDS if format == FORMAT else VERSION_FIELDS_5


def is_text(value: Any, most: int, *, blank: bool = True) -> bool:
    return isinstance(value, str) and len(value) <= most and (blank or bool(value))


def is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def is_time(value: Any) -> bool:
    try:
        return isinstance(value, str) and parse_datetime(value) is not None
    except ValueError:
        return False


def read_time(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    parsed = parse_datetime(value) if isinstance(value, str) else None
    if parsed is None:
        raise BackupError(f"{where}: {value!r} is not a date and time")
    return parsed
