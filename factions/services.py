"""Writes to the catalogue: importing army books and syncing the bundled rulesets."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, TypedDict

from django.db import IntegrityError, transaction
from django.utils import timezone

from armybuilder.stamps import content_hash
from factions.armybook import (
    ArmyBookError,
    Problem,
    check_armybook,
    check_file_size,
    check_storable,
    kept_form,
    parse_json,
)
from factions.caps import MAX_BOOK_BYTES
from factions.catalogue import (
    CORE_RULE_FIELDS,
    LIMIT_DEFAULTS,
    LIMIT_FIELDS,
    RULESET_FIELDS,
    columns,
    replace_rows,
    ruleset_data,
)
from factions.models import BookSource, BookVersion, CoreRule, Faction, ForceOrgLimit, Ruleset
from factions.ruleset_format import RulesetError, check_ruleset, variant_record
from factions.selectors import book_version_document, ruleset_document, ruleset_get, ruleset_infos
from factions.stamps import stamp_rulesets
from factions.versions import (
    Version,
    book_of_source,
    free_slug,
    held_version_name,
    next_version_name,
    same_content,
    versions_named,
)

DATA_DIR = Path(__file__).resolve().parent / "data"
BOOKS_DIR = DATA_DIR / "books"


class ImportStatus:
    """What an import did with a book."""

    NEW_BOOK = "new book"
    NEW_VERSION = "new version"
    UNCHANGED = "unchanged"


@dataclass(frozen=True)
class ImportResult:
    faction: Faction
    status: str  # an ImportStatus
    version: str  # the version the book holds it as ("3.5.2", or "3.5.2+2" for other content under a name held)
    replaced_version: str | None  # the current version before a new version, None for a new book
    units: int
    packages: int
    options: int
    dry_run: bool = False
    warnings: tuple[Problem, ...] = ()

    def describe(self) -> str:
        faction = self.faction
        book = f"{faction.name} ({faction.ruleset.slug}/{faction.slug})"
        size = f"{self.units} units, {self.packages} packages, {self.options} options"
        if self.status == ImportStatus.UNCHANGED:
            text = f"{book} {self.version} is held already with the same content: nothing changed"
        elif self.status == ImportStatus.NEW_VERSION:
            text = f"new version {self.version} of {book} (was {self.replaced_version}): {size}"
        else:
            text = f"added {book} {self.version}: {size}"
        if self.dry_run and self.status != ImportStatus.UNCHANGED:
            return "Would have " + ("made a " + text if self.status == ImportStatus.NEW_VERSION else text)
        return text[0].upper() + text[1:]


class ImportOptions(TypedDict, total=False):
    """What an import may be told besides its data and ruleset (armybook_import), for the
    doors that pass them on (the Army Forge reader's book_import)."""

    dry_run: bool
    source: str | None
    armyforge_modified_at: str


def armybook_import(
    *,
    data: Any,
    dry_run: bool = False,
    system: str | None = None,
    source: str | None = None,
    armyforge_modified_at: str = "",
    reader_errors: Sequence[Problem] = (),
    reader_warnings: Sequence[Problem] = (),
) -> ImportResult:
    """Check `data` (armybook/1: a dict, or its JSON) as an army book and keep it as a
    version of its book: a new book, a new version (the current one from now on), or
    nothing when that version is held with the same content (factions/versions.py says
    which book it belongs to). Raises ArmyBookError (and changes nothing) on a bad book,
    with every error and warning found; a book that imports answers with its warnings
    (also kept on the faction for the admin). `system`, when given, is the ruleset the
    book must be for; `source` is where it comes from (BookSource; by default Army Forge
    for a book with an Army Forge id, else an upload). `reader_errors` and
    `reader_warnings` are what reading the book from another format into armybook/1
    found (the Army Forge reader, armybuilder/armyforge/): errors refuse it, with the
    checks' own, so that one answer names them all; warnings are kept with the checks'."""
    book, warnings = _checked_book(data, system, reader_errors, reader_warnings)
    if source is None:
        source = BookSource.ARMYFORGE if book.get("armyforge_id") else BookSource.UPLOAD
    for attempt in (1, 2):
        try:
            with transaction.atomic():
                result = _import_version(book, source, [*warnings])
                if armyforge_modified_at:
                    held = BookVersion.objects.filter(faction=result.faction, version=result.version)
                    held.update(armyforge_modified_at=armyforge_modified_at)
                if dry_run:
                    transaction.set_rollback(True)
            break
        except IntegrityError:
            # Another import made the same new book (or version) a moment ago: this one
            # is then a version of it, or unchanged. A second clash is not a race.
            if attempt == 2:
                raise
    return ImportResult(**{**result.__dict__, "dry_run": dry_run})


def armybook_data(data: Any) -> Any:
    """A book as a door gives it (a dict, or JSON text or bytes) parsed and found fit to
    be read (its size, its nesting): ArmyBookError before anything walks it."""
    if isinstance(data, (bytes, str)):
        size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
        too_large = check_file_size(size)
        if too_large:
            raise ArmyBookError(too_large)
        data = parse_json(data)
    unstorable = check_storable(data)  # before anything walks it
    if unstorable:
        raise ArmyBookError(unstorable)
    return data


def _checked_book(
    data: Any,
    system: str | None,
    reader_errors: Sequence[Problem] = (),
    reader_warnings: Sequence[Problem] = (),
    *,
    kept: bool = False,
) -> tuple[dict[str, Any], list[Problem]]:
    """`data` as an armybook/1 document and its warnings; ArmyBookError with every error
    and warning of a bad book. `kept`: a book the site held (a backup's), see
    check_armybook."""
    book = armybook_data(data)
    if system is not None and isinstance(book, dict) and "system" in book and book["system"] != system:
        raise ArmyBookError([Problem("system", f'the book is for "{book["system"]}", not "{system}"')])
    check = check_armybook(book, ruleset_infos(), kept=kept)
    errors = [*reader_errors, *check.errors]
    warnings = [*reader_warnings, *check.warnings]
    if errors:
        raise ArmyBookError(errors, warnings)
    return book, warnings


@dataclass(frozen=True, slots=True)
class KeptVersion:
    """A version of a book as a backup keeps it: a BookVersion's fields."""

    version: str
    source: str  # a BookSource
    armyforge_id: str
    imported_at: datetime
    units: int
    content_hash: str
    document: dict[str, Any] | None  # armybook/1; None for the current version, which the backup's book file is
    armyforge_modified_at: str = ""  # Army Forge's modifiedAt of the book when this version was read


@transaction.atomic
def armybook_restore(
    *, data: Any, source: str, import_slug: str, versions: Sequence[KeptVersion], faction_id: int | None = None
) -> Faction:
    """Put a book back as a backup keeps it: `data`, its current version (armybook/1,
    checked as an import checks it: ArmyBookError); its source and the slug it came with;
    and every version in `versions` as it was, the current one (named by `data`'s
    version) with `data` for its document (no `versions`: the book holds one version, its
    current one). Nothing is matched by source or renamed as an import would do: the
    backup says which book this is. A book of the same ruleset and slug already here (the
    bundled books of a new server) keeps its row and takes the backup's content and
    versions instead of its own; a new one takes the id `faction_id` when given."""
    book, warnings = _checked_book(data, None, kept=True)
    ruleset = Ruleset.objects.get(slug=book["system"])
    faction = Faction.objects.select_for_update().filter(ruleset=ruleset, slug=book["slug"]).first()
    if faction is None:
        faction = Faction(pk=faction_id, ruleset=ruleset, slug=book["slug"])
    faction.source, faction.import_slug = source, import_slug
    document = _write_faction(faction, book, warnings)
    BookVersion.objects.filter(faction=faction).delete()
    kept = {version.version: version for version in versions}
    current = kept.get(faction.version)
    BookVersion.objects.bulk_create(
        [
            *(
                BookVersion(
                    faction=faction,
                    version=version.version,
                    source=version.source,
                    armyforge_id=version.armyforge_id,
                    imported_at=version.imported_at,
                    units=version.units,
                    content_hash=version.content_hash,
                    document=version.document,
                    armyforge_modified_at=version.armyforge_modified_at,
                )
                for version in versions
                if version is not current
            ),
            _version_row(
                faction,
                document,
                imported_at=current.imported_at if current else None,
                source=current.source if current else faction.source,
                armyforge_modified_at=current.armyforge_modified_at if current else "",
            ),
        ]
    )
    faction.refresh_from_db()
    return faction


class BookChanged(Exception):
    """An edit made from a version that is no longer the book's current one: someone kept
    a newer version meanwhile."""

    def __init__(self, faction: Faction):
        self.faction = faction
        super().__init__(
            f"{faction.name} was changed while you edited it: its current version is now {faction.version}. "
            "Nothing was saved; reload to edit the current version."
        )


@transaction.atomic
def armybook_edit(*, faction: Faction, document: Any, based_on: str) -> ImportResult:
    """Keep `document`, the book's current version as edited (armybook/1), as a new
    version of the book, the current one from now on (named by its `version`). It is
    checked whole as an import checks a book, and its ruleset, slug and Army Forge id must
    be the book's: ArmyBookError naming every problem, and nothing changed. `based_on` is
    the stamp of the current version the edit was made from: when the book's current
    version is another by now, BookChanged, and nothing changed (a compare-and-swap on the
    stamp). A document that says what the current version says keeps nothing
    (ImportStatus.UNCHANGED)."""
    book, warnings = _checked_book(document, None)
    ruleset = faction.ruleset
    own = {"system": ruleset.slug, "slug": faction.slug, "armyforge_id": faction.armyforge_id or None}
    problems = [
        Problem(key, f"must stay the book's own, {value!r}" if value else "the book has none: leave it out")
        for key, value in own.items()
        if book.get(key) != value
    ]
    fresh = Faction.objects.select_related("ruleset").get(pk=faction.pk)
    if fresh.content_hash != based_on:
        raise BookChanged(fresh)
    current = book_version_document(faction=fresh, version=fresh.version) or {}
    kept = kept_form(book, ruleset.stat_fields)
    if not problems and content_hash({**kept, "version": ""}) == content_hash({**current, "version": ""}):
        return ImportResult(fresh, ImportStatus.UNCHANGED, fresh.version, None, *_counts(kept))
    if BookVersion.objects.filter(faction=fresh, version=kept["version"]).exists():
        message = f'{fresh.name} holds a version "{kept["version"]}" already: name the new version otherwise'
        problems.append(Problem("version", message))
    if problems:
        raise ArmyBookError(problems, warnings)
    fields = _current_version_fields(kept, warnings)
    if not Faction.objects.filter(pk=fresh.pk, content_hash=based_on).update(**fields, imported_at=timezone.now()):
        raise BookChanged(Faction.objects.get(pk=fresh.pk))
    fresh.refresh_from_db()
    _version_row(fresh, kept).save()
    replaced, counts = current.get("version"), _counts(kept)
    return ImportResult(fresh, ImportStatus.NEW_VERSION, fresh.version, replaced, *counts, warnings=tuple(warnings))


def armybook_import_file(
    *, path: Path, dry_run: bool = False, system: str | None = None, source: str | None = None
) -> ImportResult:
    """Import the armybook/1 book in the file at `path` (armybook_import, book_file_read)."""
    return armybook_import(data=book_file_read(path=path), dry_run=dry_run, system=system, source=source)


def book_file_read(*, path: Path) -> bytes:
    """The bytes of the book file at `path`. A file over the cap of a book is refused by
    its size before it is read (ArmyBookError), and no more than the cap and a byte is
    ever read (a file growing meanwhile, a pipe, which has no size)."""
    try:
        with path.open("rb") as file:
            too_large = check_file_size(os.fstat(file.fileno()).st_size)
            if too_large:
                raise ArmyBookError(too_large)
            raw = file.read(MAX_BOOK_BYTES + 1)
    except OSError as exc:
        raise ArmyBookError([Problem("", f"cannot read {path}: {exc.strerror}")]) from exc
    if len(raw) > MAX_BOOK_BYTES:
        raise ArmyBookError(check_file_size(len(raw), whole=False))
    return raw


def bundled_book_paths() -> list[Path]:
    return sorted(BOOKS_DIR.glob("*/*.json"))


def bundled_books_load() -> list[ImportResult]:
    """Import every bundled book that is missing, or whose bundled file has a newer
    version than its book holds. Only the bundled books are looked at: a book of another
    source under the same slug is left as it is (the bundled one is kept beside it)."""
    results = []
    for path in bundled_book_paths():
        data = json.loads(path.read_text())
        ruleset = Ruleset.objects.filter(slug=data["system"]).first()
        held = book_of_source(ruleset, data, BookSource.BUNDLED) if ruleset else None
        if held is not None and held_version_name(held, data["version"]) is not None:
            continue
        if held is not None and Version.parse(held.version) >= Version.parse(data["version"]):
            continue
        results.append(armybook_import(data=data, source=BookSource.BUNDLED))
    return results


@transaction.atomic
def sync_rulesets() -> dict[str, int]:
    """Make the database's rulesets, limits and core rules match the bundled data
    (factions/data/). Limits and core rules are replaced wholesale; books are left alone."""
    counts = {"rulesets": 0, "limits": 0, "core_rules": 0}
    for data in ruleset_data():
        ruleset_write(data=data)
        counts["rulesets"] += 1
        counts["limits"] += len(data["limits"])
        counts["core_rules"] += len(data["core_rules"])
    return counts


@transaction.atomic
def ruleset_write(*, data: dict[str, Any]) -> Ruleset:
    """Write a ruleset record (its slug, fields, limits and core rules, as
    selectors.ruleset_record gives them or the bundled data holds them; a variant's with
    its `base`) over the ruleset of that slug, made when missing, and stamp it. A limit without an `order` takes
    its place in the list."""
    base = Ruleset.objects.get(slug=data["base"]) if data.get("base") else None
    ruleset, _ = Ruleset.objects.update_or_create(
        slug=data["slug"], defaults={**columns(data, RULESET_FIELDS), "base": base}
    )
    limits = [
        {**columns(limit, LIMIT_FIELDS, LIMIT_DEFAULTS), "order": limit.get("order", i)}
        for i, limit in enumerate(data["limits"])
    ]
    replace_rows(ForceOrgLimit, ruleset, limits)
    replace_rows(CoreRule, ruleset, [columns(rule, CORE_RULE_FIELDS) for rule in data["core_rules"]])
    ruleset.content_hash = stamp_rulesets([ruleset.pk])[ruleset.pk]
    return ruleset


@transaction.atomic
def ruleset_import(*, data: Any) -> Ruleset:
    """Check `data` as a ruleset/1 variant and write it, replacing the variant of that
    slug. Raises RulesetError, with every problem and nothing written, on a bad one."""
    if isinstance(data, (bytes, str)):
        try:
            data = parse_json(data)
        except ArmyBookError as exc:
            raise RulesetError(exc.problems) from None
    rulesets = list(Ruleset.objects.select_related("base").prefetch_related("core_rules"))
    bases = {r.slug: r for r in rulesets if r.base_id is None}
    problems = check_ruleset(data, bases, {r.slug for r in rulesets if r.base_id is not None})
    if problems:
        raise RulesetError(problems)
    base = bases[data["base"]]
    core_rules = [columns(rule.__dict__, CORE_RULE_FIELDS) for rule in base.core_rules.all()]
    return ruleset_write(data=variant_record(data, base, core_rules))


def ruleset_variant_create(*, source: Ruleset, slug: str, name: str) -> Ruleset:
    """A new variant with `source`'s name, points and limit rows (a variant of a variant
    plays the same base). RulesetError when the slug is taken or not a slug."""
    if Ruleset.objects.filter(slug=slug).exists():
        raise RulesetError([Problem("slug", f'"{slug}" is taken: choose another')])
    source = ruleset_get(slug=source.slug)
    document = {**ruleset_document(ruleset=source), "slug": slug, "name": name, "base": source.family}
    return ruleset_import(data=document)


def _import_version(book: dict[str, Any], source: str, warnings: list[Problem]) -> ImportResult:
    """`book` kept as a version of its book, made when new; the result carries `warnings`
    (the checks') and, for a new book kept beside a namesake, the warning saying so."""
    ruleset = Ruleset.objects.get(slug=book["system"])
    faction = book_of_source(ruleset, book, source)
    if faction is None:
        slug, namesake = free_slug(ruleset, book, source)
        # The slug's holder may be this very book, made by another import since it was
        # looked for: then this import is a version of it, not a namesake beside it.
        if namesake is not None:
            faction = book_of_source(ruleset, book, source)
    if faction is None:
        if namesake is not None:
            warnings.append(namesake)
        faction = Faction(
            ruleset=ruleset, slug=slug, source=source, import_slug=book["slug"] if slug != book["slug"] else ""
        )
        document = _write_faction(faction, {**book, "slug": slug}, warnings)
        _version_row(faction, document).save()
        return ImportResult(
            faction, ImportStatus.NEW_BOOK, faction.version, None, *_counts(document), warnings=tuple(warnings)
        )
    if faction.armyforge_id and faction.slug != book["slug"]:
        message = f'Army Forge book "{faction.armyforge_id}" is already imported as {ruleset.slug}/{faction.slug}'
        raise ArmyBookError([Problem("armyforge_id", message)])
    faction = Faction.objects.select_for_update().get(pk=faction.pk)
    replaced = faction.version
    document = kept_form({**book, "slug": faction.slug}, ruleset.stat_fields)
    held = list(versions_named(faction, book["version"]))
    for version in held:
        if same_content(document, version):
            counts = _counts(document)
            return ImportResult(
                faction, ImportStatus.UNCHANGED, version.version, None, *counts, warnings=tuple(warnings)
            )
    name = next_version_name(book["version"], [v.version for v in held])
    document = _write_faction(faction, {**document, "version": name}, warnings)
    _version_row(faction, document).save()
    counts = _counts(document)
    return ImportResult(faction, ImportStatus.NEW_VERSION, name, replaced, *counts, warnings=tuple(warnings))


def _counts(document: dict[str, Any]) -> tuple[int, int, int]:
    """(units, packages, options) of a book."""
    options = sum(len(section["options"]) for package in document["packages"] for section in package["sections"])
    return len(document["units"]), len(document["packages"]), options


def _write_faction(faction: Faction, book: dict[str, Any], warnings: list[Problem]) -> dict[str, Any]:
    """Make `book` (armybook/1, checked) the faction's current version on its row (made
    when new), and return the book as it is kept (factions.armybook.kept_form). The
    caller keeps the version (`_version_row`)."""
    document = kept_form(book, faction.ruleset.stat_fields)
    for field, value in _current_version_fields(document, warnings).items():
        setattr(faction, field, value)
    faction.save()
    return document


def _current_version_fields(document: dict[str, Any], warnings: list[Problem]) -> dict[str, Any]:
    """What a faction's row says of its current version `document` (as kept): its name,
    version, description, Army Forge fields, the check's warnings and its stamp."""
    return {
        "name": document["name"],
        "version": document["version"],
        "description": document.get("description"),
        "armyforge_id": document.get("armyforge_id", ""),
        "armyforge_rules": document.get("armyforge_rules", ""),
        "import_warnings": [str(w) for w in warnings],
        "content_hash": content_hash(document),
    }


def _version_row(
    faction: Faction,
    document: dict[str, Any],
    *,
    imported_at: datetime | None = None,
    source: str | None = None,
    armyforge_modified_at: str = "",
) -> BookVersion:
    """The faction's current version, `document` (as `_write_faction` kept it), as a new
    BookVersion row (unsaved)."""
    return BookVersion(
        faction=faction,
        version=faction.version,
        source=source or faction.source,
        armyforge_id=faction.armyforge_id,
        imported_at=imported_at or timezone.now(),
        units=len(document["units"]),
        content_hash=faction.content_hash,
        document=document,
        armyforge_modified_at=armyforge_modified_at,
    )
