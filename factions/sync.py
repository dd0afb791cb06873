"""Keeping the official army books current: new versions read from Army Forge.

For each ruleset Army Forge publishes official books for, the sync reads the index of
them and fetches only the books whose version the site does not hold yet, each imported
through the same checks as `import_armybook` (factions.services.armybook_import). A book
that fails leaves what the site held as it was; the other books go on. A sync that finds
nothing new writes nothing, not even its own records (ArmyForgeSync keeps what the last
sync that changed or failed something did with each book).
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

from factions.armybook import ArmyBookError
from factions.armyforge import ARMYFORGE_GAMES
from factions.armyforge import _version as stored_version
from factions.armyforge_client import ArmyForgeError, book_url, fetch_json, index_url
from factions.models import ArmyForgeSync, BookSource, BookVersion, Faction
from factions.services import armybook_import

# Our rulesets Army Forge publishes official books for: its game system slug and id.
GAMES = {ours: (game.slug, game.id) for ours, game in ARMYFORGE_GAMES.items()}
NEW_BOOK, NEW_VERSION, UNCHANGED, FAILED = "new book", "new version", "unchanged", "failed"
RECORDED = (NEW_BOOK, NEW_VERSION, FAILED)  # a sync that only finds what it holds writes nothing
MAX_FIELD = 40  # ArmyForgeSync.armyforge_id and .version

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
    warnings: int = 0
    error: str = ""  # why it failed
    dry_run: bool = False

    @property
    def detail(self) -> str:
        """The outcome's particulars, as the line shows them after the outcome."""
        if self.outcome == FAILED:
            return self.error
        parts = []
        if self.stored and self.stored != stored_version(self.version):
            parts.append(f"stored as {self.stored}")
        if self.previous is not None and self.outcome == NEW_VERSION:
            parts.append(f"was {self.previous}")
        if self.warnings:
            parts.append(f"{self.warnings} warning{'s' if self.warnings != 1 else ''}")
        if self.dry_run and self.outcome != UNCHANGED:
            parts.append("not written: dry run")
        return ", ".join(parts)

    def line(self) -> str:
        """`aof  Wood Elves  3.5.2: new version (was 3.5.1)`"""
        what = f"{FAILED}: {self.error}" if self.outcome == FAILED else self.outcome
        if self.outcome != FAILED and self.detail:
            what += f" ({self.detail})"
        return f"{self.system}  {self.name}  {self.version or '?'}: {what}"


@dataclass(frozen=True)
class SyncResult:
    books: tuple[BookSync, ...]
    failed_indexes: tuple[tuple[str, str], ...]  # (ruleset, why), for an index that could not be read
    dry_run: bool = False
    stopped: str = ""  # what was left unread when the time allowed ran out

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
        """Books that failed, and rulesets whose index did."""
        return self._count(FAILED) + len(self.failed_indexes)

    def failure_lines(self) -> list[str]:
        """A line for each index and each book that failed, saying why."""
        return [
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
    version is not held yet from the Army Forge at `source` (default: the setting
    ARMYFORGE_URL), reporting one line per book as it goes. ValueError, before anything
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
    for s, system in enumerate(systems):
        if clock.out():
            return _stopped(books, failed_indexes, dry_run, clock, f"{', '.join(systems[s:])} not read")
        try:
            index = _index(source, system, clock)
        except ArmyForgeError as exc:
            failed_indexes.append((system, str(exc)))
            report(_index_failed(system, str(exc)))
            continue
        held = _held(system)
        for i, entry in enumerate(index):
            if clock.out():
                left = f"{len(index) - i} books of {system}" + "".join(f", {rest}" for rest in systems[s + 1 :])
                return _stopped(books, failed_indexes, dry_run, clock, f"{left} not read")
            book = _book_sync(source, system, i, entry, held, dry_run, clock)
            books.append(book)
            report(book.line())
    return SyncResult(books=tuple(books), failed_indexes=tuple(failed_indexes), dry_run=dry_run)


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


def _stopped(
    books: list[BookSync], failed_indexes: list[tuple[str, str]], dry_run: bool, clock: _Clock, left: str
) -> SyncResult:
    why = f"stopped after {clock.seconds:g} s with {left}: sync again to go on"
    return SyncResult(books=tuple(books), failed_indexes=tuple(failed_indexes), dry_run=dry_run, stopped=why)


def _index_failed(system: str, why: str) -> str:
    return f"{system}  index: {FAILED}: {why}"


def _fetch(url: str, clock: _Clock) -> Any:
    # A bounded run tries each address once: a retry's wait would run past its time.
    retries = 2 if clock.deadline is None else 0
    return fetch_json(url, timeout=clock.timeout(), max_bytes=settings.ARMYFORGE_MAX_BYTES, retries=retries)


def _index(source: str, system: str, clock: _Clock) -> list[Any]:
    url = index_url(source, GAMES[system][0])
    index = _fetch(url, clock)
    if not isinstance(index, list):
        raise ArmyForgeError(f"the answer from {url} is not a list of army books")
    return index


def _held(system: str) -> dict[str, set[str]]:
    """Per Army Forge book uid, the versions of it `system` holds, by name without "+n"
    (a version held under "3.5.2+2" is held as 3.5.2). The faction's current version is
    one of them, recorded as a BookVersion or not."""
    held: dict[str, set[str]] = defaultdict(set)
    rows = [
        *BookVersion.objects.filter(faction__ruleset__slug=system)
        .exclude(faction__armyforge_id="")
        .values_list("faction__armyforge_id", "version"),
        *Faction.objects.filter(ruleset__slug=system).exclude(armyforge_id="").values_list("armyforge_id", "version"),
    ]
    for uid, version in rows:
        held[uid].add(_base(version))
    return held


def _base(version: str) -> str:
    return version.split("+", 1)[0]


def _book_sync(
    source: str, system: str, position: int, entry: Any, held: dict[str, set[str]], dry_run: bool, clock: _Clock
) -> BookSync:
    """Sync one entry of the index: nothing when its version is held, else fetch and
    import the book. What changed or failed something is recorded."""
    offered = _offered(system, position, entry, dry_run)
    if offered.outcome == FAILED or _base(stored_version(offered.version)) in held[offered.armyforge_id]:
        done = offered
    else:
        done = _book_update(source, offered, clock)
        if done.outcome in (NEW_BOOK, NEW_VERSION):  # an index naming a book twice fetches it once
            held[done.armyforge_id].add(_base(done.stored))
    if done.outcome == FAILED and done.armyforge_id and not dry_run:
        _record(done)
    return done


def _offered(system: str, position: int, entry: Any, dry_run: bool) -> BookSync:
    """The book an index entry offers, as held (UNCHANGED) until it is fetched; FAILED
    when the entry does not say which book and version it is."""
    fields = entry if isinstance(entry, dict) else {}
    uid, version, name = (fields.get(key) for key in ("uid", "versionString", "name"))
    book = BookSync(
        system=system,
        armyforge_id=uid if _is_short_text(uid) else "",
        name=_printable(name)[:120] or f"index entry {position}",
        version=version if _is_short_text(version) else "",
        outcome=UNCHANGED,
        dry_run=dry_run,
    )
    what = f"entry {position} of Army Forge's index"
    if not isinstance(entry, dict):
        return _failed(book, f"{what} is not an object")
    for key, value in (("uid", book.armyforge_id), ("versionString", book.version)):
        if not value:
            return _failed(book, f"{what} has no {key} (a text of 1 to {MAX_FIELD} characters)")
    return book


def _book_update(source: str, book: BookSync, clock: _Clock) -> BookSync:
    """Fetch and import a book whose version is not held; FAILED, with nothing written, when
    it cannot be read or the checks refuse it."""
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
    return isinstance(value, str) and 0 < len(value) <= MAX_FIELD and value == value.strip()


def _failed(book: BookSync, error: str) -> BookSync:
    return replace(book, outcome=FAILED, error=error)


def _imported(book: BookSync, data: dict[str, Any]) -> BookSync:
    """Import `data` as a version of `book` from Army Forge: what the import did with it."""
    result = armybook_import(data=data, system=book.system, source=BookSource.ARMYFORGE, dry_run=book.dry_run)
    return replace(
        book,
        outcome=result.status,
        stored=result.version,
        previous=result.replaced_version if result.status == NEW_VERSION else None,
        warnings=len(result.warnings),
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
