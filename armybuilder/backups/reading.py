"""Reading a backup and checking it whole before anything is written: every file of its
format (format.py) there, each record with its keys, each versions file's records and
documents, the versions of Army Forge's core rules, and the manifest's counts; a /1
backup is brought to the later shape."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from armybuilder.armyforge.ids import ARMYFORGE_GAMES
from armybuilder.armyforge.rules import rules_problems
from armybuilder.backups.format import (
    FORMAT,
    FORMAT_1,
    FORMAT_2,
    FORMAT_3,
    FORMAT_4,
    FORMAT_5,
    FORMATS,
    RECORD_KEYS,
    RECORD_KEYS_1,
    RECORD_KEYS_2,
    RECORD_KEYS_3,
    RECORD_KEYS_4,
    RECORD_KEYS_5,
    SOURCES,
    BackupError,
    is_count,
    is_text,
    is_time,
    version_fields,
)
from armybuilder.stamps import STAMP_LENGTH, content_hash
from factions.armybook import check_storable
from factions.models import ArmyForgeRules, BookVersion


@dataclass
class Backup:
    folder: Path
    format: str
    rulesets: list[dict[str, Any]]
    books: list[Path]
    factions: list[dict[str, Any]] | None  # None: /1 kept no faction rows
    versions: dict[tuple[str, str], str] | None  # (system, slug) -> its versions file; None: before /4
    version_count: int
    syncs: list[dict[str, Any]]
    armyforge_rules: list[dict[str, Any]]  # versions of Army Forge's core rules, checked; none before /6
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
    except RecursionError as exc:  # the parser recurses once per level of nesting
        raise BackupError(f"{path} is corrupt: it is nested deeper than any backup is") from exc


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
    _refuse_duplicates(folder / name, data, "id" if "id" in keys else None)
    return data


def _refuse_duplicates(path: Path, records: list[dict[str, Any]], key: str | None) -> None:
    """Two records of one file with the same id would restore as one and be counted as two:
    the backup is refused, naming both, before anything is written."""
    if key is None:
        return
    seen: dict[Any, int] = {}
    for number, record in enumerate(records, 1):
        value = record[key]
        marker = (type(value).__name__, value) if isinstance(value, (str, int)) else (type(value).__name__, repr(value))
        if marker in seen:
            raise BackupError(f"{path} is corrupt: records {seen[marker]} and {number} have the same {key} ({value!r})")
        seen[marker] = number


def backup_read(folder: Path) -> Backup:
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
    older = {
        FORMAT_1: RECORD_KEYS_1,
        FORMAT_2: RECORD_KEYS_2,
        FORMAT_3: RECORD_KEYS_3,
        FORMAT_4: RECORD_KEYS_4,
        FORMAT_5: RECORD_KEYS_5,
    }
    keys = older.get(found, RECORD_KEYS)
    records = {name: _records(folder, name, keys[name]) for name in keys}
    books = sorted((folder / "books").glob("*/*.json"))
    versions = _version_files(folder) if found in (FORMAT, FORMAT_5, FORMAT_4) else None
    backup = Backup(
        folder=folder,
        format=found,
        rulesets=records.get("rulesets.json", []),
        books=books,
        factions=records.get("factions.json"),
        versions=versions,
        # Before /4, each book comes back with one version: its current one.
        version_count=len(books) if versions is None else sum(map(len, _all_versions(folder, found, versions))),
        syncs=records.get("armyforge_syncs.json", []),
        armyforge_rules=_armyforge_rules(folder, records.get("armyforge_rules.json", [])),
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


def _all_versions(folder: Path, format: str, files: dict[tuple[str, str], str]) -> Iterator[list[dict[str, Any]]]:
    """Each book's versions, checked, one book at a time (the documents are not kept)."""
    for (system, _slug), name in files.items():
        yield version_records(folder, name, system, format)


def version_records(folder: Path, name: str, system: str, format: str) -> list[dict[str, Any]]:
    """The versions in one book's versions file of a backup of `format`, every problem
    of each named at once (BackupError): its fields, and its document, which must still
    be the one its content stamp was made from (a document changed since the backup was
    made is refused)."""
    records = _records(folder, name, version_fields(format))
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
    longest = BookVersion._meta.get_field("version").max_length or 0
    uid = BookVersion._meta.get_field("armyforge_id").max_length or 0
    modified = BookVersion._meta.get_field("armyforge_modified_at").max_length or 0
    checks = [
        (is_text(name, longest, blank=False), f"its version should be a name of 1 to {longest} characters"),
        (record["source"] in SOURCES, f"its source should be one of {', '.join(SOURCES)}"),
        (is_text(record["armyforge_id"], uid), f"its armyforge_id should be text of at most {uid} characters"),
        (is_time(record["imported_at"]), "its imported_at should be a date and time"),
        (is_count(record["units"]), "its units should be a whole number, 0 or more"),
        (is_text(stamp, STAMP_LENGTH), f"its content_hash should be text of at most {STAMP_LENGTH} characters"),
        (
            is_text(record.get("armyforge_modified_at", ""), modified),  # none before /6
            f"its armyforge_modified_at should be text of at most {modified} characters",
        ),
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


def _book_document(document: Any, system: str) -> bool:
    """Whether `document` has the shape of an armybook/1 book of `system` (its stamp says the rest)."""
    return (
        isinstance(document, dict)
        and document.get("format") == "armybook/1"
        and document.get("system") == system
        and isinstance(document.get("version"), str)
        and isinstance(document.get("units"), list)
    )


def _armyforge_rules(folder: Path, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The versions of Army Forge's core rules, every problem of each named at once
    (BackupError): its ruleset, name and time, its rules as the sync keeps them, and its
    stamp, which must be that of its rules (rules changed after the backup are refused)."""
    longest = ArmyForgeRules._meta.get_field("version").max_length or 0
    problems = []
    for number, record in enumerate(records, 1):
        checks = [
            (
                isinstance(record["system"], str) and record["system"] in ARMYFORGE_GAMES,
                f"its system should be one of {', '.join(ARMYFORGE_GAMES)}",
            ),
            (
                is_text(record["version"], longest, blank=False),
                f"its version should be a name of 1 to {longest} characters",
            ),
            (is_time(record["fetched_at"]), "its fetched_at should be a date and time"),
        ]
        found = [problem for holds, problem in checks if not holds] + rules_problems(record["rules"])
        if not found and record["content_hash"] != content_hash(record["rules"]):
            found.append("its rules are not the ones its content_hash was made from (changed after the backup)")
        problems += [f"version {number}: {problem}" for problem in found]
    names = Counter(
        (r["system"], r["version"]) for r in records if isinstance(r["version"], str) and isinstance(r["system"], str)
    )
    problems += [
        f'version "{version}" of {system} is there {n} times' for (system, version), n in names.items() if n > 1
    ]
    if problems:
        raise BackupError(f"{folder / 'armyforge_rules.json'} is inconsistent: {'; '.join(problems)}")
    return records


def _from_format_1(backup: Backup) -> Backup:
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
    return Backup(**{**backup.__dict__, "users": users, "lists": lists})


def backup_counts(backup: Backup) -> dict[str, int]:
    """How many of each thing the backup holds, as its manifest counts them."""
    return {
        "rulesets": len(backup.rulesets),
        "books": len(backup.books),
        "book versions": backup.version_count,
        "Army Forge syncs": len(backup.syncs),
        "Army Forge core rules versions": len(backup.armyforge_rules),
        "groups": len(backup.groups),
        "users": len(backup.users),
        "tokens": len(backup.tokens),
        "sessions": len(backup.sessions),
        "event packs": len(backup.packs),
        "lists": len(backup.lists),
        "submissions": len(backup.submissions),
    }


def _check_counts(backup: Backup, counts: Any) -> None:
    """A backup missing files or records (a partial copy) is refused, saying what is short."""
    if not isinstance(counts, dict):
        raise BackupError(f"{backup.folder / 'manifest.json'} is corrupt: it has no counts")
    held = backup_counts(backup)
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
