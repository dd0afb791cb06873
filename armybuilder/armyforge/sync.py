"""Keeping the official army books current: new versions read from Army Forge.

For each ruleset Army Forge publishes official books for, the sync first reads Army
Forge's core rules of it (the rules its books name without describing them), kept as a
new version when they changed (rules.py); then the index of its books,
and fetches only the books whose version the site does not hold yet, or holds as Army
Forge published it before (a book re-published under the same version has another
`modifiedAt` in the index). Each is imported through the same checks as `import_armybook`
(books/imports.py book_import). A book that fails, or core rules that cannot be read,
leave what the site held as it was; the rest goes on. A sync that finds nothing new
writes nothing, not even its own records (ArmyForgeSync keeps what the last sync that
changed or failed something did with each book).
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, TypeGuard

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from armybuilder.armyforge.books.imports import book_import
from armybuilder.armyforge.client import (
    BAD_TEXT,
    ArmyForgeError,
    bad_text,
    book_url,
    common_rules_url,
    fetch_json,
    index_url,
)
from armybuilder.armyforge.ids import ARMYFORGE_GAMES, release_of, version_name
from armybuilder.armyforge.rules import CoreRulesError, armyforge_rules_store, core_rules_read
from factions.armybook import ArmyBookError
from factions.models import ArmyForgeSync, BookSource, BookVersion, Faction, Ruleset
from factions.versions import Version, VersionError

# Our rulesets Army Forge publishes official books for: its game system slug and id.
GAMES = {ours: (game.slug, game.id) for ours, game in ARMYFORGE_GAMES.items()}
NEW_BOOK, NEW_VERSION, UNCHANGED, FAILED = "new book", "new version", "unchanged", "failed"
RECORDED = (NEW_BOOK, NEW_VERSION, FAILED)  # a sync that only finds what it holds writes nothing
MAX_FIELD = 40  # ArmyForgeSync.armyforge_id and .version, BookVersion.armyforge_modified_at
INDENT = "    "  # before a line about the line above (a warning of a book, a core rule skipped)

Report = Callable[[str], None]


@dataclass(frozen=True)
class BookSync:
    """What one sync did with one book of Army Forge's index."""

    system: str
    armyforge_id: str  # empty for an index entry without one
    name: str
    version: str  # the version Army Forge offered (its versionString)
    outcome: str  # NEW_BOOK, NEW_VERSION, UNCHANGED or FAILED
    stored: str = ""  # the version name stored ("3.5.2+2" for other content under a name held)
    previous: str | None = None  # the book's version before, for a new version
    warnings: tuple[str, ...] = ()  # the import's, each "path: message"
    error: str = ""  # why it failed
    dry_run: bool = False
    modified_at: str = ""  # the index's modifiedAt of the book ("" when it gives none)
    republished: bool = False  # fetched because Army Forge re-published a version held
    again: bool = False  # named again by the index after it was read in this sync

    @property
    def detail(self) -> str:
        """The outcome's particulars, as the line shows them after the outcome."""
        if self.outcome == FAILED:
            return self.error
        parts = []
        if self.again:
            parts.append("read once already in this sync")
        if self.stored and self.stored != version_name(self.version):
            parts.append(f"stored as {self.stored}")
        if self.previous is not None and self.outcome == NEW_VERSION:
            parts.append(f"was {self.previous}")
        if self.republished:
            same = self.outcome == UNCHANGED
            parts.append(f"re-published by Army Forge {'with the same content' if same else 'under the same version'}")
        if self.warnings:
            parts.append(f"{len(self.warnings)} warning{'s' if len(self.warnings) != 1 else ''}")
        if self.dry_run and self.outcome != UNCHANGED:
            parts.append("not written: dry run")
        return ", ".join(parts)

    def line(self) -> str:
        """`aof  Wood Elves  3.5.2: new version (was 3.5.1)`"""
        what = f"{FAILED}: {self.error}" if self.outcome == FAILED else self.outcome
        if self.outcome != FAILED and self.detail:
            what += f" ({self.detail})"
        return f"{self.system}  {self.name}  {self.version or '?'}: {what}"

    def lines(self) -> list[str]:
        """Its line, then each warning of the import, indented under it."""
        return [self.line(), *(f"{INDENT}{warning}" for warning in self.warnings)]


@dataclass(frozen=True)
class RulesSync:
    """What one sync did with a ruleset's core rules from Army Forge."""

    system: str
    outcome: str  # NEW_VERSION, UNCHANGED or FAILED
    version: str = ""  # the version current after it (or that would be, in a dry run)
    rules: int = 0  # how many rules that version holds
    skipped: tuple[str, ...] = ()  # an entry of Army Forge's answer that was not read, and why
    error: str = ""  # why it failed
    dry_run: bool = False

    @property
    def detail(self) -> str:
        if self.outcome == FAILED:
            return self.error
        if self.outcome == UNCHANGED:
            return self.version
        parts = [f"{self.rules} rule{'s' if self.rules != 1 else ''}"]
        if self.skipped:
            parts.append(f"{len(self.skipped)} skipped")
        if self.dry_run:
            parts.append("not written: dry run")
        return ", ".join(parts)

    def line(self) -> str:
        """`aof  core rules: new version 2026-11-29 (37 rules)`, `… unchanged (2026-11-29)`"""
        if self.outcome == FAILED:
            what = f"{FAILED}: {self.error}"
        elif self.outcome == UNCHANGED:
            what = f"{UNCHANGED} ({self.version})"
        else:
            what = f"{NEW_VERSION} {self.version} ({self.detail})"
        return f"{self.system}  core rules: {what}"

    def lines(self) -> list[str]:
        """Its line, then each entry skipped, indented under it."""
        return [self.line(), *(f"{INDENT}{skipped}" for skipped in self.skipped)]


@dataclass(frozen=True)
class SyncResult:
    books: tuple[BookSync, ...]
    failed_indexes: tuple[tuple[str, str], ...]  # (ruleset, why), for an index that could not be read
    dry_run: bool = False
    stopped: str = ""  # what was left unread when the time allowed ran out
    core_rules: tuple[RulesSync, ...] = ()  # each ruleset's core rules, read before its books

    def _count(self, outcome: str) -> int:
        return sum(book.outcome == outcome for book in self.books)

    @property
    def new_books(self) -> int:
        return self._count(NEW_BOOK)

    @property
    def new_versions(self) -> int:
        return self._count(NEW_VERSION)

    @property
    def unchanged(self) -> int:
        return self._count(UNCHANGED)

    @property
    def failed(self) -> int:
        """Books that failed, and rulesets whose index or core rules did."""
        return self._count(FAILED) + len(self.failed_indexes) + sum(r.outcome == FAILED for r in self.core_rules)

    def failure_lines(self) -> list[str]:
        """A line for the core rules, each index and each book that failed, saying why."""
        return [
            *(r.line() for r in self.core_rules if r.outcome == FAILED),
            *(_index_failed(*failed) for failed in self.failed_indexes),
            *(b.line() for b in self.books if b.outcome == FAILED),
        ]

    def summary(self) -> str:
        text = f"{self.new_books} new books, {self.new_versions} new versions, {self.unchanged} unchanged, "
        text += f"{self.failed} failed"
        text += " (dry run: nothing written)" if self.dry_run else ""
        return text + (f"; {self.stopped}" if self.stopped else "")


def armyforge_sync(
    *,
    systems: Iterable[str] | None = None,
    source: str | None = None,
    dry_run: bool = False,
    report: Report = lambda line: None,
    seconds: float | None = None,
) -> SyncResult:
    """Import the official books of `systems` (default: every ruleset in GAMES) whose
    version is not held yet, or was re-published since it was read, from the Army Forge
    at `source` (default: the setting ARMYFORGE_URL), each ruleset's core rules first;
    reporting one line for the core rules and one per book as it goes, each followed by
    its notes (a rule skipped, a book's warnings), indented. ValueError, before anything
    is read, for a ruleset Army Forge has no books for, no source (the setting empty) or
    a source that is no http(s) address; everything after that is reported and counted,
    never raised.

    `seconds` bounds the whole run (a page's request): no book is started after it, no
    download waits past it, and the result says what was left, to be read by running
    it again (the books already imported are then skipped)."""
    systems = list(dict.fromkeys(systems or GAMES))
    unknown = [slug for slug in systems if slug not in GAMES]
    if unknown:
        raise ValueError(
            f'Army Forge publishes no books for "{unknown[0]}": the rulesets it does are {", ".join(GAMES)}'
        )
    source = (source or settings.ARMYFORGE_URL).rstrip("/")
    if not source:
        raise ValueError("no Army Forge address: DJANGO_ARMYFORGE_URL is empty (the site never asks Army Forge)")
    if not source.startswith(("http://", "https://")):
        raise ValueError(f'the source "{source}" is not an http:// or https:// address')
    clock = _Clock(seconds)
    books: list[BookSync] = []
    failed_indexes: list[tuple[str, str]] = []
    core_rules: list[RulesSync] = []

    def result(left: str = "") -> SyncResult:
        """What was done so far; `left`: what the time allowed left unread."""
        stopped = f"stopped after {clock.seconds:g} s with {left} not read: sync again to go on" if left else ""
        return SyncResult(
            books=tuple(books),
            failed_indexes=tuple(failed_indexes),
            dry_run=dry_run,
            stopped=stopped,
            core_rules=tuple(core_rules),
        )

    for s, system in enumerate(systems):
        rest = "".join(f", {later}" for later in systems[s + 1 :])
        if clock.out():
            return result(f"{system}{rest}")
        rules = _rules_sync(source, system, dry_run, clock)
        core_rules.append(rules)
        for line in rules.lines():
            report(line)
        if clock.out():
            return result(f"the books of {system}{rest}")
        try:
            index = _index(source, system, clock)
        except ArmyForgeError as exc:
            failed_indexes.append((system, str(exc)))
            report(_index_failed(system, str(exc)))
            continue
        held = _held(system)
        fetched: set[str] = set()
        for i, entry in enumerate(index):
            if clock.out():
                return result(f"{len(index) - i} books of {system}{rest}")
            book = _book_sync(source, system, i, entry, held, fetched, dry_run, clock)
            books.append(book)
            for line in book.lines():
                report(line)
    return result()


class _Clock:
    """The time a run may take (None: no bound), and how long a download may wait."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.deadline = None if seconds is None else time.monotonic() + seconds

    def out(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def timeout(self) -> float:
        if self.deadline is None:
            return settings.ARMYFORGE_TIMEOUT
        return max(0.1, min(settings.ARMYFORGE_TIMEOUT, self.deadline - time.monotonic()))


def _index_failed(system: str, why: str) -> str:
    return f"{system}  index: {FAILED}: {why}"


def _fetch(url: str, clock: _Clock, *, clean_text: bool = True) -> Any:
    # The client keeps the time allowed for all its tries together: no retry runs past it.
    return fetch_json(
        url, timeout=clock.timeout(), max_bytes=settings.ARMYFORGE_MAX_BYTES, retries=2, clean_text=clean_text
    )


def _rules_sync(source: str, system: str, dry_run: bool, clock: _Clock) -> RulesSync:
    """Read the ruleset's core rules from Army Forge and keep them when they changed;
    FAILED, with nothing written, when they cannot be read."""
    url = common_rules_url(source, GAMES[system][1])
    try:
        read = core_rules_read(_fetch(url, clock))
        stored = armyforge_rules_store(system=system, rules=read.rules, dry_run=dry_run)
    except ArmyForgeError as exc:
        return RulesSync(system, FAILED, error=str(exc), dry_run=dry_run)
    except CoreRulesError as exc:
        return RulesSync(system, FAILED, error=f"the answer from {url} is not read: {exc}", dry_run=dry_run)
    except Ruleset.DoesNotExist:
        return RulesSync(system, FAILED, error=f'this site has no ruleset "{system}"', dry_run=dry_run)
    skipped = read.skipped if stored.outcome == NEW_VERSION else ()
    return RulesSync(system, stored.outcome, stored.version, stored.rules, skipped, dry_run=dry_run)


def _index(source: str, system: str, clock: _Clock) -> list[Any]:
    url = index_url(source, GAMES[system][0])
    # Bad text in one entry fails that book alone (_offered), not the whole index.
    index = _fetch(url, clock, clean_text=False)
    if not isinstance(index, list):
        raise ArmyForgeError(f"the answer from {url} is not a list of army books")
    return index


# Per Army Forge book uid, per version name without "+n", the modifiedAt of each version
# read from Army Forge under that name ("" for one read before the site kept it).
Held = dict[str, dict[str, list[str]]]


def _held(system: str) -> Held:
    """The versions of Army Forge's books `system` holds, by uid and name without "+n" (a
    version held under "3.5.2+2" is held as 3.5.2), with Army Forge's modifiedAt of each
    read from it: its name, or a repeat of it ("3.5.2+2"); a version made by an edit in
    the admin ("3.5.2+admin.1") is held, but says nothing of when Army Forge was read.
    The faction's current version is one of them, recorded as a BookVersion or not."""
    versions = (
        BookVersion.objects.filter(faction__ruleset__slug=system)
        .exclude(faction__armyforge_id="")
        .values_list("faction__armyforge_id", "version", "armyforge_modified_at")
    )
    rows = {(uid, version): modified for uid, version, modified in versions}
    for uid, version in (
        Faction.objects.filter(ruleset__slug=system).exclude(armyforge_id="").values_list("armyforge_id", "version")
    ):
        rows.setdefault((uid, version), "")
    held: Held = defaultdict(lambda: defaultdict(list))
    for (uid, version), modified in rows.items():
        read = held[uid][release_of(version)]
        if _repeat(version) is not None:
            read.append(modified)
    return held


def _wanted(book: BookSync, held: Held) -> bool:
    """Whether to fetch the book an index entry offers: its version is not held, or every
    version held under that name was read when Army Forge's modifiedAt was another (a
    version read before the site kept it counts as read at the index's)."""
    read_at = held[book.armyforge_id].get(release_of(version_name(book.version)))
    if read_at is None:
        return True
    if not book.modified_at or not read_at:  # (only edits in the admin: as read before)
        return False
    return all(modified and modified != book.modified_at for modified in read_at)


def _repeat(version: str) -> int | None:
    """Which reading of its book's own version a version held is (1, 2 for "+2"), None
    for one marked otherwise (an edit in the admin, "+admin.1")."""
    try:
        return Version.parse(version).repeat
    except VersionError:  # a name no import gives: held, not read from Army Forge
        return None if "+" in version else 1


def _book_sync(
    source: str,
    system: str,
    position: int,
    entry: Any,
    held: Held,
    fetched: set[str],
    dry_run: bool,
    clock: _Clock,
) -> BookSync:
    """Sync one entry of the index: nothing when its version is held as Army Forge
    publishes it now, else fetch and import the book (each book once a sync: `fetched`
    holds the uids read). What changed or failed something is recorded."""
    offered = _offered(system, position, entry, dry_run)
    if offered.outcome == FAILED or not _wanted(offered, held):
        done = offered
    elif offered.armyforge_id in fetched:
        done = replace(offered, again=True)
    else:
        fetched.add(offered.armyforge_id)
        republished = release_of(version_name(offered.version)) in held[offered.armyforge_id]
        done = _book_update(source, replace(offered, republished=republished), clock)
    if done.outcome == FAILED and done.armyforge_id and not dry_run:
        _record(done)
    return done


def _offered(system: str, position: int, entry: Any, dry_run: bool) -> BookSync:
    """The book an index entry offers, as held (UNCHANGED) until it is fetched; FAILED
    when the entry does not say which book and version it is."""
    fields = entry if isinstance(entry, dict) else {}
    uid, version, name, modified = (fields.get(key) for key in ("uid", "versionString", "name", "modifiedAt"))
    book = BookSync(
        system=system,
        armyforge_id=uid if _is_short_text(uid) else "",
        name=_printable(name)[:120] or f"index entry {position}",
        version=version if _is_short_text(version) else "",
        outcome=UNCHANGED,
        dry_run=dry_run,
        # A modifiedAt that is not a short text is as none: the book is fetched by its version alone.
        modified_at=modified if _is_short_text(modified) and modified.isprintable() else "",
    )
    what = f"entry {position} of Army Forge's index"
    if not isinstance(entry, dict):
        return _failed(book, f"{what} is not an object")
    where = bad_text(entry)
    if where is not None:
        return _failed(book, f"{what} holds {BAD_TEXT} at {where}")
    for key, value in (("uid", book.armyforge_id), ("versionString", book.version)):
        if not value:
            return _failed(book, f"{what} has no {key} (a text of 1 to {MAX_FIELD} characters)")
    return book


def _book_update(source: str, book: BookSync, clock: _Clock) -> BookSync:
    """Fetch and import a book whose version is not held (or was re-published); FAILED,
    with nothing written, when it cannot be read or the checks refuse it."""
    url = book_url(source, book.armyforge_id, GAMES[book.system][1])
    try:
        data = _fetch(url, clock)
        if not isinstance(data, dict) or data.get("uid") != book.armyforge_id:
            raise ArmyForgeError(f"the answer from {url} is not the army book {book.armyforge_id}")
        with transaction.atomic():  # the book and its record, or neither
            done = _imported(book, data)
            if done.outcome in RECORDED and not book.dry_run:
                _record(done)
        return done
    except ArmyForgeError as exc:
        return _failed(book, str(exc))
    except ArmyBookError as exc:
        return _failed(book, f"refused by the checks: {exc}")


def _printable(value: Any) -> str:
    """Army Forge's text as one line for a terminal: no control characters."""
    return " ".join("".join(c if c.isprintable() else " " for c in value).split()) if isinstance(value, str) else ""


def _is_short_text(value: Any) -> TypeGuard[str]:
    """A text to keep and show as it is: short, trimmed, no NUL nor lone surrogate."""
    return isinstance(value, str) and 0 < len(value) <= MAX_FIELD and value == value.strip() and bad_text(value) is None


def _failed(book: BookSync, error: str) -> BookSync:
    return replace(book, outcome=FAILED, error=error)


def _imported(book: BookSync, data: dict[str, Any]) -> BookSync:
    """Import `data` as a version of `book` from Army Forge: what the import did with it.
    The version it is kept as (or found to be) records the index's modifiedAt, when the
    book answered is the version the index offered."""
    modified_at = book.modified_at if data.get("versionString") == book.version else ""
    result = book_import(
        data=data,
        system=book.system,
        source=BookSource.ARMYFORGE,
        dry_run=book.dry_run,
        armyforge_modified_at=modified_at,
    )
    return replace(
        book,
        outcome=result.status,
        stored=result.version,
        previous=result.replaced_version if result.status == NEW_VERSION else None,
        warnings=tuple(str(warning) for warning in result.warnings),
    )


def _record(book: BookSync) -> None:
    ArmyForgeSync.objects.update_or_create(
        system=book.system,
        armyforge_id=book.armyforge_id,
        defaults={
            "name": book.name,
            "version": book.version,
            "outcome": book.outcome,
            "detail": book.detail,
            "synced_at": timezone.now(),
        },
    )
