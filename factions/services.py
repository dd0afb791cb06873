"""Writes to the catalogue: importing army books and syncing the bundled rulesets."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from django.db import IntegrityError, transaction

from factions.armybook import (
    ArmyBookError,
    Problem,
    check_armybook,
    check_file_size,
    check_storable,
    package_ref,
    parse_json,
)
from factions.book_formats import to_armybook
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
from factions.models import (
    BookSource,
    BookVersion,
    CompositionCard,
    CompositionGroup,
    CoreRule,
    Equipment,
    Faction,
    FactionRule,
    ForceOrgLimit,
    Gain,
    Package,
    Ruleset,
    Spell,
    Unit,
    UnitPackage,
    UpgradeOption,
    UpgradeSection,
)
from factions.ruleset_format import RulesetError, check_ruleset, variant_record
from factions.selectors import faction_book, factions_with_book, ruleset_document, ruleset_get, ruleset_infos
from factions.stamps import stamp_books, stamp_rulesets
from factions.versions import (
    book_of_source,
    free_slug,
    held_version_name,
    next_version_name,
    same_content,
    version_key,
    versions_named,
)

DATA_DIR = Path(__file__).resolve().parent / "data"
BOOKS_DIR = DATA_DIR / "books"

UNIT_COLUMNS = ("name", "type", "size", "cost", "stats", "rules", "items")
# Weapon keys stored in their own columns; the rest of a profile goes to Equipment.extra.
_EQUIPMENT_COLUMNS = ("name", "count", "range", "attacks", "rules")


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


def armybook_import(
    *,
    data: Any,
    dry_run: bool = False,
    system: str | None = None,
    source: str | None = None,
    armyforge_modified_at: str = "",
) -> ImportResult:
    """Check `data` as an army book and keep it as a version of its book: a new book, a
    new version (the current one from now on), or nothing when that version is held with
    the same content (factions/versions.py says which book it belongs to). Raises
    ArmyBookError (and changes nothing) on a bad book, with every error and warning
    found; a book that imports answers with its warnings (also kept on the faction for
    the admin). `system` forces the ruleset for formats that may leave it open (see
    book_formats); `source` is where it comes from (BookSource; by default Army Forge
    for a book with an Army Forge id, else an upload)."""
    book, warnings = _checked_book(data, system)
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


def _checked_book(data: Any, system: str | None) -> tuple[dict[str, Any], list[Problem]]:
    """`data` as an armybook/1 document (converted from the format it is in) and its
    warnings; ArmyBookError with every error and warning of a bad book."""
    if isinstance(data, (bytes, str)):
        size = len(data.encode("utf-8", "surrogatepass")) if isinstance(data, str) else len(data)
        too_large = check_file_size(size)
        if too_large:
            raise ArmyBookError(too_large)
        data = parse_json(data)
    unstorable = check_storable(data)  # before anything walks it
    if unstorable:
        raise ArmyBookError(unstorable)
    converted = to_armybook(data, system=system)
    check = check_armybook(converted.book, ruleset_infos())
    errors = [*converted.errors, *check.errors]
    warnings = [*converted.warnings, *check.warnings]
    if errors:
        raise ArmyBookError(errors, warnings)
    return converted.book, warnings


@dataclass(frozen=True, slots=True)
class KeptVersion:
    """A version of a book as a backup keeps it: a BookVersion's fields."""

    version: str
    source: str  # a BookSource
    armyforge_id: str
    imported_at: datetime
    units: int
    content_hash: str
    document: dict[str, Any] | None  # armybook/1; None for the current version, which the book's tables hold
    armyforge_modified_at: str = ""  # Army Forge's modifiedAt of the book when this version was read


@transaction.atomic
def armybook_restore(
    *, data: Any, source: str, import_slug: str, versions: Sequence[KeptVersion], faction_id: int | None = None
) -> Faction:
    """Put a book back as a backup keeps it: `data`, its current version (armybook/1,
    checked as an import checks it: ArmyBookError), in its tables; its source and the
    slug it came with; and every version in `versions` as it was, the current one (named
    by `data`'s version) with its document and stamp as the tables now hold it (no
    `versions`: the book holds one version, its current one). Nothing is matched by
    source or renamed as an import would do: the backup says which book this is. A book
    of the same ruleset and slug already here (the bundled books of a new server) keeps
    its row and takes the backup's content and versions instead of its own; a new one
    takes the id `faction_id` when given."""
    book, warnings = _checked_book(data, None)
    ruleset = Ruleset.objects.get(slug=book["system"])
    faction = Faction.objects.select_for_update().filter(ruleset=ruleset, slug=book["slug"]).first()
    if faction is None:
        faction = Faction(pk=faction_id, ruleset=ruleset, slug=book["slug"])
    faction.source, faction.import_slug = source, import_slug
    _write_book(faction, book, warnings)
    BookVersion.objects.filter(faction=faction).delete()
    BookVersion.objects.bulk_create(
        BookVersion(
            faction=faction,
            version=kept.version,
            source=kept.source,
            armyforge_id=kept.armyforge_id,
            imported_at=kept.imported_at,
            units=kept.units,
            content_hash=kept.content_hash,
            document=kept.document,
            armyforge_modified_at=kept.armyforge_modified_at,
        )
        for kept in versions
    )
    stamp_books([faction.pk])
    faction.refresh_from_db()
    return faction


def armybook_import_file(
    *, path: Path, dry_run: bool = False, system: str | None = None, source: str | None = None
) -> ImportResult:
    """Import the book in the file at `path` (armybook_import). A file over the cap of
    a book is refused by its size before it is read, and no more than the cap and a
    byte is ever read (a file growing meanwhile, a pipe, which has no size)."""
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
    return armybook_import(data=raw, dry_run=dry_run, system=system, source=source)


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
        if held is not None and version_key(held.version) >= version_key(data["version"]):
            continue
        results.append(armybook_import(data=data, source=BookSource.BUNDLED))
    return results


@transaction.atomic
def book_versions_backfill() -> int:
    """Keep the document of every current version that has none (books imported before
    versions were kept: migration 0009 could not write them), so that a later change in
    the admin leaves the version lists are pinned to whole. Writes nothing else of the
    books; how many it kept."""
    held = BookVersion.objects.filter(document__isnull=True).values_list("faction_id", "version")
    factions = [pk for pk, version in held if Faction.objects.filter(pk=pk, version=version).exists()]
    stamp_books(factions)
    return len(factions)


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


class _Unchanged(Exception):
    """Rolls back a version that turned out to be held already."""

    def __init__(self, version: str):
        self.version = version


def _import_version(book: dict[str, Any], source: str, warnings: list[Problem]) -> ImportResult:
    """`book` written as a version of its book (`warnings`, the checks', gain any the
    writing finds); the result carries them all."""
    ruleset = Ruleset.objects.get(slug=book["system"])
    faction = book_of_source(ruleset, book, source)
    if faction is None:
        slug, namesake = free_slug(ruleset, book, source)
        if namesake is not None:
            warnings.append(namesake)
        faction = Faction(
            ruleset=ruleset, slug=slug, source=source, import_slug=book["slug"] if slug != book["slug"] else ""
        )
        counts = _write_book(faction, book, warnings)
        stamp_books([faction.pk])
        return ImportResult(faction, ImportStatus.NEW_BOOK, faction.version, None, *counts, warnings=tuple(warnings))
    if faction.armyforge_id and faction.slug != book["slug"]:
        message = f'Army Forge book "{faction.armyforge_id}" is already imported as {ruleset.slug}/{faction.slug}'
        raise ArmyBookError([Problem("armyforge_id", message)])
    faction = Faction.objects.select_for_update().get(pk=faction.pk)
    replaced = faction.version
    current = BookVersion.objects.filter(faction=faction, version=faction.version).first()
    if current is None or current.document is None:
        stamp_books([faction.pk])  # a book from before versions were kept: keep what its tables hold first
    held = list(versions_named(faction, book["version"]))
    try:
        with transaction.atomic():
            counts = _write_book(faction, book, warnings)
            document = faction_book(faction=factions_with_book().get(pk=faction.pk))
            for version in held:
                if same_content(document, version):
                    raise _Unchanged(version.version)
    except _Unchanged as unchanged:
        faction.refresh_from_db()
        counts = _counts(faction)
        return ImportResult(faction, ImportStatus.UNCHANGED, unchanged.version, None, *counts, warnings=tuple(warnings))
    name = next_version_name(book["version"], [v.version for v in held])
    if name != faction.version:
        Faction.objects.filter(pk=faction.pk).update(version=name)
        faction.version = name
    stamp_books([faction.pk])
    return ImportResult(faction, ImportStatus.NEW_VERSION, name, replaced, *counts, warnings=tuple(warnings))


def _counts(faction: Faction) -> tuple[int, int, int]:
    return (
        faction.units.count(),
        faction.packages.count(),
        UpgradeOption.objects.filter(section__package__faction=faction).count(),
    )


def _write_book(faction: Faction, book: dict[str, Any], warnings: list[Problem]) -> tuple[int, int, int]:
    """Write `book` into the faction's tables (made when new), replacing what they held;
    (units, packages, options) written."""
    if faction.pk is not None:
        faction.units.all().delete()
        faction.packages.all().delete()
        faction.rules.all().delete()
        faction.spells.all().delete()
        CompositionCard.objects.filter(faction=faction).delete()
    faction.name = book["name"]
    faction.version = book["version"]
    faction.description = book.get("description")
    faction.armyforge_id = book.get("armyforge_id", "")
    faction.armyforge_rules = book.get("armyforge_rules", "")
    faction.import_warnings = [str(w) for w in warnings]
    faction.save()

    FactionRule.objects.bulk_create(
        FactionRule(
            faction=faction,
            name=r["name"],
            rated=r["rated"],
            text=r["text"],
            core=r.get("core", False),
            per_army=r.get("per_army"),
            order=i,
        )
        for i, r in enumerate(book["rules"])
    )
    Spell.objects.bulk_create(
        Spell(faction=faction, name=s["name"], cost=s["cost"], text=s["text"], order=i)
        for i, s in enumerate(book["spells"])
    )

    packages = Package.objects.bulk_create(
        Package(faction=faction, uid=p["id"], order=i) for i, p in enumerate(book["packages"])
    )
    package_by_uid = {p.uid: p for p in packages}
    section_rows, section_data = [], []
    for package, data in zip(packages, book["packages"], strict=True):
        for i, section in enumerate(data["sections"]):
            affects, select = section.get("affects") or {}, section.get("select") or {}
            section_rows.append(
                UpgradeSection(
                    package=package,
                    uid=section["id"],
                    **columns(section, ("label", "variant", "targets", "optional"), {"targets": [], "optional": None}),
                    affects_type=affects.get("type", ""),
                    affects_value=affects.get("value"),
                    select_type=select.get("type", ""),
                    select_value=select.get("value"),
                    select_per=select.get("per", ""),
                    order=i,
                )
            )
            section_data.append(section)
    sections = UpgradeSection.objects.bulk_create(section_rows)
    option_rows, option_data = [], []
    for section, data in zip(sections, section_data, strict=True):
        for i, option in enumerate(data["options"]):
            option_rows.append(
                UpgradeOption(
                    section=section,
                    uid=option["id"],
                    **columns(option, ("label", "cost", "costs", "command"), {"costs": {}, "command": ""}),
                    order=i,
                )
            )
            option_data.append(option)
    options = UpgradeOption.objects.bulk_create(option_rows)
    Gain.objects.bulk_create(
        Gain(
            option=option,
            kind=gain["kind"],
            name=gain["name"],
            detail={k: v for k, v in gain.items() if k not in ("kind", "name")},
            order=i,
        )
        for option, data in zip(options, option_data, strict=True)
        for i, gain in enumerate(data["gains"])
    )

    units = Unit.objects.bulk_create(
        Unit(faction=faction, uid=u["id"], **columns(u, UNIT_COLUMNS, {"items": []}), order=i)
        for i, u in enumerate(book["units"])
    )
    Equipment.objects.bulk_create(
        Equipment(
            unit=unit,
            name=w["name"],
            count=w["count"],
            range=w.get("range"),
            attacks=str(w["attacks"]) if "attacks" in w else "",
            rules=w["rules"],
            extra={k: v for k, v in w.items() if k not in _EQUIPMENT_COLUMNS},
            order=i,
        )
        for unit, data in zip(units, book["units"], strict=True)
        for i, w in enumerate(data["equipment"])
    )
    UnitPackage.objects.bulk_create(
        UnitPackage(unit=unit, package=package_by_uid[uid], without=without, order=i)
        for unit, data in zip(units, book["units"], strict=True)
        for i, (uid, without) in enumerate(package_ref(entry) for entry in data["upgrades"])
    )

    card = book.get("composition")
    if card is not None:
        composition = CompositionCard.objects.create(
            faction=faction, models_min=card["models"]["min"], models_max=card["models"]["max"]
        )
        CompositionGroup.objects.bulk_create(
            CompositionGroup(card=composition, label=g["label"], units=g["units"], min=g["min"], max=g["max"], order=i)
            for i, g in enumerate(card["groups"])
        )
    return len(units), len(packages), len(options)
