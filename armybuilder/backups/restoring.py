"""Restoring a backup (read and checked by reading.py) into a new, migrated database: all
or nothing, keeping every id; each record refused, by name, for what the site's own
forms and services would refuse."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar, cast

from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.sessions.models import Session
from django.core.management.color import no_style
from django.db import DatabaseError, connection, transaction
from django.db.models import Model

from armybuilder.accounts import services as accounts
from armybuilder.accounts.models import Profile
from armybuilder.backups.format import (
    LIST_FIELDS,
    PACK_FIELDS,
    PACK_JSON_FIELDS,
    SOURCES,
    SYNC_FIELDS,
    USER_FIELDS,
    BackupError,
    is_count,
    is_text,
    read_time,
)
from armybuilder.backups.reading import Backup, backup_counts, backup_read, version_records
from armybuilder.events import format as pack_format
from armybuilder.events.models import EventPack, Submission
from armybuilder.events.rules import BOOKS_RULES
from armybuilder.lists.format import check_list_shape, first_error
from armybuilder.lists.models import ARMYLIST_FIELDS, ArmyList
from factions.armybook import ArmyBookError, parse_json
from factions.models import ArmyForgeRules, ArmyForgeSync, BookSource, BookVersion, Faction, Ruleset
from factions.selectors import ruleset_record
from factions.services import KeptVersion, armybook_restore, bundled_book_paths, ruleset_write


def backup_import(*, folder: Path, dry_run: bool = False) -> dict[str, int]:
    """Restore the backup in `folder`; BackupError, with nothing changed, if it is not a
    whole backup or the database is not a new one. `dry_run` restores and rolls back."""
    backup = backup_read(folder)
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
            _restore_armyforge_rules(backup)
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
    return {name: count for name, count in backup_counts(backup).items() if name != "groups"}


def _restore_rulesets(backup: Backup) -> None:
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


def _restore_books(backup: Backup) -> bool:
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
            imported_at = read_time(row["imported_at"], f"factions.json, {key[0]}/{key[1]}")
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
            (not is_text(row["import_slug"], longest), f"its import_slug should be at most {longest} characters"),
        )
        return row["source"], row["import_slug"]
    if isinstance(book, dict) and book.get("armyforge_id"):
        return BookSource.ARMYFORGE, ""
    return (BookSource.BUNDLED if key in bundled else BookSource.UPLOAD), ""


def _kept_versions(backup: Backup, key: tuple[str, str], book: Any) -> list[KeptVersion]:
    """The book's versions as its versions file keeps them (none before /4: the book comes
    back with one, its current version). The book's current version must be one of them,
    with no document of its own (the book's file is its document)."""
    if backup.versions is None:
        return []
    name = backup.versions[key]
    records = version_records(backup.folder, name, key[0], backup.format)
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
            imported_at=_stored_time(record["imported_at"], f"{name}, version {record['version']}"),
            units=record["units"],
            content_hash=record["content_hash"],
            document=record["document"],
            armyforge_modified_at=record.get("armyforge_modified_at", ""),  # none before /6
        )
        for record in records
    ]


def _restore_syncs(backup: Backup) -> None:
    """What the syncs from Army Forge last did with each book, in place of what this
    database says of the same books."""
    keys = Counter((data["system"], data["armyforge_id"]) for data in backup.syncs)
    for (system, uid), times in keys.items():
        _refuse_if("armyforge_syncs.json", (times > 1, f'Army Forge book "{uid}" of {system} is there {times} times'))
    syncs = [
        ArmyForgeSync(
            **{field: data[field] for field in SYNC_FIELDS if field != "synced_at"},
            synced_at=_stored_time(
                data["synced_at"], f'armyforge_syncs.json, Army Forge book "{data["armyforge_id"]}"'
            ),
        )
        for data in backup.syncs
    ]
    for system, uid in keys:
        ArmyForgeSync.objects.filter(system=system, armyforge_id=uid).delete()
    ArmyForgeSync.objects.bulk_create(syncs)


def _restore_armyforge_rules(backup: Backup) -> None:
    """Every version of Army Forge's core rules the backup holds (checked when it was
    read), in place of the versions this database holds of the same rulesets, oldest first."""
    systems = dict.fromkeys(data["system"] for data in backup.armyforge_rules)
    rulesets = {ruleset.slug: ruleset for ruleset in Ruleset.objects.filter(slug__in=systems)}
    for system in systems:
        _refuse_if(
            "armyforge_rules.json", (system not in rulesets, f'this version of Armybuilder has no ruleset "{system}"')
        )
    ArmyForgeRules.objects.filter(ruleset__in=rulesets.values()).delete()
    ArmyForgeRules.objects.bulk_create(
        ArmyForgeRules(
            ruleset=rulesets[data["system"]],
            version=data["version"],
            fetched_at=_stored_time(data["fetched_at"], f'armyforge_rules.json, version "{data["version"]}"'),
            rules=data["rules"],
            content_hash=data["content_hash"],
        )
        for data in backup.armyforge_rules
    )


def _permissions(names: list[str], where: str) -> list[Permission]:
    found = []
    for name in names:
        app_label, _, codename = name.partition(".")
        permission = Permission.objects.filter(content_type__app_label=app_label, codename=codename).first()
        if permission is None:
            raise BackupError(f'{where}: this version of Armybuilder has no permission "{name}"')
        found.append(permission)
    return found


def _restore_accounts(backup: Backup) -> None:
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
            date_joined=_stored_time(data["date_joined"], f'users.json, user "{data["username"]}"'),
            last_login=read_time(data["last_login"], f'users.json, user "{data["username"]}"'),
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
        token.created = read_time(data["created"], f"tokens.json, the token of user {data['user']}")
    Token.objects.bulk_update(tokens, ["created"])

    Session.objects.filter(session_key__in=[data["session_key"] for data in backup.sessions]).delete()
    Session.objects.bulk_create(
        Session(
            session_key=data["session_key"],
            session_data=data["session_data"],
            expire_date=_stored_time(data["expire_date"], "sessions.json"),
        )
        for data in backup.sessions
    )


def _user_problems(data: dict[str, Any]) -> list[tuple[bool, str]]:
    """What the live paths would refuse in a user: the checks of the sign-up and admin
    forms' fields, as (wrong, why)."""
    checks = [(not is_count(data.get("id")) or data.get("id") == 0, "its id should be a whole number above 0")]
    for name in ("username", "password"):
        checks.append(
            (not is_text(data.get(name), 150 if name == "username" else 128, blank=False), f"its {name} should be text")
        )
    for name, most in (("first_name", 150), ("last_name", 150)):
        checks.append((not is_text(data.get(name), most), f"its {name} should be text of at most {most} characters"))
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


def _restore_packs(backup: Backup) -> None:
    """The event packs with their keys, ids and organisers; a pack naming a ruleset or a
    user the backup does not have, or with rules of the wrong shape, is refused by name."""
    user_ids = {data["id"] for data in backup.users}
    rulesets = {ruleset.slug: ruleset for ruleset in Ruleset.objects.all()}
    packs = []
    for data in backup.packs:
        where = f'event_packs.json, pack {data["id"]} ("{data["key"]}")'
        deadline = read_time(data["deadline"], where)
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
            where, (not is_count(data.get("version")) or data["version"] < 1, "its version should be a whole number")
        )
        assert deadline is not None  # (refused above)
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


def _stored_time(value: Any, where: str) -> datetime:
    """The time of a field that may not be null. A null in the backup is passed on as it
    is, and the database refuses it (the restore says so); hence the cast."""
    return cast(datetime, read_time(value, where))


# The rows that keep when they were made and last changed (`created`, `updated`).
Stamped = TypeVar("Stamped", EventPack, ArmyList)


def _put_back_times(model: type[Stamped], rows: list[Stamped], records: list[dict[str, Any]], what: str) -> None:
    """bulk_create stamps auto_now and auto_now_add fields with today; bulk_update leaves
    the backup's times as they are given."""
    for row, data in zip(rows, records, strict=True):
        row.created = _stored_time(data["created"], f"{what} {data['id']}")
        row.updated = _stored_time(data["updated"], f"{what} {data['id']}")
    model.objects.bulk_update(rows, ["created", "updated"])


def _restore_lists(backup: Backup) -> None:
    user_ids = {data["id"] for data in backup.users}
    pack_keys = {data["key"] for data in backup.packs}
    for data in backup.lists:
        if data["owner"] is not None and data["owner"] not in user_ids:
            raise BackupError(f"lists.json: list {data['id']} belongs to user {data['owner']}, not in users.json")
        where = f"lists.json, list {data['id']}"
        _clean, problems = check_list_shape({field: data[field] for field in ARMYLIST_FIELDS}, kept=True)
        _refuse_if(
            where,
            (bool(problems), f"it is not armylist/1 ({first_error(problems) if problems else ''})"),
            (not is_count(data.get("version")) or data["version"] < 1, "its version should be a whole number"),
            (not is_text(data.get("share_key"), 64, blank=False), "its share key should be text"),
            (not is_text(data.get("visitor"), 64), "its visitor should be text"),
            (not is_text(data.get("book_version"), 48), "its book version should be text"),
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


def _restore_submissions(backup: Backup) -> None:
    """The frozen copies, as they were submitted (their validations are worked out again
    when next shown); one naming a pack, a player or a list the backup does not have, or
    holding a list that is not armylist/1, is refused by name."""
    packs = dict(EventPack.objects.values_list("key", "id"))
    user_ids = {data["id"] for data in backup.users}
    list_ids = {data["id"] for data in backup.lists}
    submissions = []
    for data in backup.submissions:
        where = f"submissions.json, submission {data['id']}"
        clean, problems = check_list_shape(data["data"], kept=True)
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
                submitted_at=_stored_time(data["submitted_at"], where),
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
