"""Reads from the catalogue. Each selector runs a fixed number of queries, whatever the
size of the book."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Count, OuterRef, Q, QuerySet, Subquery

from armybuilder.cache import remembered, shared_key
from armybuilder.engine.book import Book, RulesetSpec, book_from_dict, ruleset_from_dict
from armybuilder.memo import Memo
from armybuilder.missing import Missing
from factions.armybook import RulesetInfo
from factions.catalogue import CORE_RULE_FIELDS, LIMIT_FIELDS, RULESET_FIELDS
from factions.models import ArmyForgeRules, BookVersion, CoreRule, Faction, Ruleset


def ruleset_infos() -> dict[str, RulesetInfo]:
    rules: dict[int, dict[str, bool]] = {}
    for ruleset_id, name, rated in CoreRule.objects.values_list("ruleset_id", "name", "rated"):
        rules.setdefault(ruleset_id, {})[name] = rated
    return {
        r.slug: RulesetInfo(
            slug=r.slug,
            stat_fields=tuple(r.stat_fields),
            unit_types=tuple(r.unit_types),
            core_rules=rules.get(r.id, {}),
            family=r.family,
        )
        for r in Ruleset.objects.select_related("base")
    }


def ruleset_list() -> QuerySet[Ruleset]:
    return Ruleset.objects.select_related("base")


# Only the newest set of stamps is ever asked for again.
RULESET_PAYLOADS: Memo[tuple, Any] = Memo("factions: the rulesets' API answer", 1)


def ruleset_list_payload(serialize) -> Any:
    """The rulesets as `serialize(queryset)` makes them, serialized once per set of
    ruleset content stamps: one small query per call after that."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, content_hash FROM {Ruleset._meta.db_table} ORDER BY id")
        stamp = tuple(cursor.fetchall())
    return RULESET_PAYLOADS.fetch(stamp, lambda: serialize(ruleset_list()))


def ruleset_document(*, ruleset: Ruleset) -> dict[str, Any]:
    """The ruleset as a ruleset/1 document (factions/ruleset_format.py): what a variant
    made from it starts with. Load with its base, limits and core rules."""
    record = ruleset_record(ruleset=ruleset)
    own = ("slug", "base", "name", "version", "default_points", "suggested_points", "max_points")
    return {
        "format": "ruleset/1",
        **{key: record[key] for key in own},
        **{k: record[k] for k in ("limits", "core_rules")},
    }


def armyforge_rules_find(*, system: str, version: str | None = None) -> ArmyForgeRules | None:
    """A version of Army Forge's core rules held for the ruleset `system` (a variant reads
    its base's): `version`, or without it the current one (read last); None when it holds
    no such version."""
    rows = ArmyForgeRules.objects.filter(ruleset__slug=ruleset_family(system))
    if version is not None:
        rows = rows.filter(version=version)
    return rows.order_by("-fetched_at", "-id").first()


def armyforge_rules_versions(*, system: str) -> list[str]:
    """The names of the versions of Army Forge's core rules held for the ruleset `system`
    (a variant: its base's), newest first: the current one first."""
    rows = ArmyForgeRules.objects.filter(ruleset__slug=ruleset_family(system)).order_by("-fetched_at", "-id")
    return list(rows.values_list("version", flat=True))


def core_rule_meanings(*, system: str) -> dict[str, tuple[bool, str, str]]:
    """A ruleset's core rules as the pages explain them (engine/meanings.py): {name: (rated,
    our summary of it, where to read it: "Age of Fantasy 3.2.0 — Special Rules")}."""
    rows = CoreRule.objects.filter(ruleset__slug=system).values_list(
        "name", "rated", "summary", "section", "ruleset__name", "ruleset__version"
    )
    return {
        name: (rated, summary, f"{f'{title} {version}'.strip()} — {section}")
        for name, rated, summary, section, title, version in rows
    }


# One lookup per resource: every view and service finds a ruleset or a book by slug
# through these; Missing when there is none, which each front end answers with its 404.
def ruleset_get(*, slug: str) -> Ruleset:
    """The ruleset `slug` with its base, limits and core rules; Missing if there is none."""
    try:
        return Ruleset.objects.select_related("base").prefetch_related("limits", "core_rules").get(slug=slug)
    except Ruleset.DoesNotExist:
        raise Missing("ruleset", f'no ruleset "{slug}"') from None


def ruleset_find(*, slug: str) -> Ruleset | None:
    """The ruleset `slug` with its base (no limits or core rules), or None."""
    return Ruleset.objects.select_related("base").filter(slug=slug).first()


def ruleset_family(slug: str) -> str:
    """The game the ruleset `slug` plays (`Ruleset.family`); the slug itself when the
    catalogue has no such ruleset."""
    row = ruleset_find(slug=slug)
    return row.family if row else slug


def faction_get(*, system: str, slug: str) -> Faction:
    """The army book `slug` of the ruleset `system` with its ruleset; Missing if there is
    none."""
    faction = Faction.objects.select_related("ruleset").filter(ruleset__slug=system, slug=slug).first()
    if faction is None:
        raise Missing("book", f'no faction "{slug}" in ruleset "{system}"')
    return faction


def ruleset_record(*, ruleset: Ruleset) -> dict[str, Any]:
    """Everything a ruleset says, as plain data: its fields, its limits in order and its
    core rules (load with prefetched limits and core rules). Backups keep it, and its
    content stamp is a hash of it."""
    return {
        "slug": ruleset.slug,
        **{field: getattr(ruleset, field) for field in RULESET_FIELDS},
        "base": ruleset.base.slug if ruleset.base is not None else None,  # no query when there is none
        "limits": [
            {**{field: getattr(limit, field) for field in LIMIT_FIELDS}, "order": limit.order}
            for limit in ruleset.limits.all()
        ],
        "core_rules": [
            {field: getattr(rule, field) for field in CORE_RULE_FIELDS} for rule in ruleset.core_rules.all()
        ],
    }


def faction_list(*, system: str | None = None) -> QuerySet[Faction]:
    """Every army book, or the books a list of `system` may use: its own and, for a
    variant, those of the ruleset it plays; each with the units of its current version
    and its versions counted."""
    current = BookVersion.objects.filter(faction=OuterRef("pk"), version=OuterRef("version"))
    factions = Faction.objects.select_related("ruleset").annotate(
        unit_count=Subquery(current.values("units")[:1]), version_count=Count("versions", distinct=True)
    )
    if system:
        factions = factions.filter(Q(ruleset__slug=system) | Q(ruleset__variants__slug=system))
    return factions.order_by("ruleset__order", "name")


def faction_by_armyforge_id(*, system: str, armyforge_id: str) -> Faction | None:
    """The faction of `system` imported from the Army Forge army book `armyforge_id`."""
    if not armyforge_id:
        return None
    return Faction.objects.filter(ruleset__slug=system, armyforge_id=armyforge_id).first()


def faction_document(*, faction: Faction) -> dict[str, Any]:
    """The book's current version as armybook/1: the document kept with it (one query)."""
    document = book_version_document(faction=faction, version=faction.version)
    if document is None:  # every writer of a book keeps its current version
        raise BookVersion.DoesNotExist(f"{faction} keeps no version {faction.version}")
    return document


# -- the rules engine's view of the catalogue ----------------------------------------
# Every book the site holds stays compiled: a book that has to be built again costs a
# validation twice its time. So the bound is on memory, not on the number of books: a
# compiled book holds some 2 KiB a unit (the bundled books, measured), and 20,000 units
# (some 40 MiB) are 400 books of 50 units, four times the catalogue of a busy site (93 books).
# What each book keeps besides (its loadouts and the builder's pieces, `Book.memo`) is
# bounded per book, in engine/book.py.
BOOK_UNITS_KEPT = 20_000


def _book_weight(compiled: tuple[Book, RulesetSpec]) -> int:
    return len(compiled[0].units) + 1  # a book of no units still takes room


ENGINE_BOOKS: Memo[tuple[str, str], tuple[Book, RulesetSpec]] = Memo(
    "factions: compiled engine books", BOOK_UNITS_KEPT, weigh=_book_weight
)


@dataclass(frozen=True, slots=True)
class BookHandle:
    """Enough to find a version of a faction's book in the cache: the content stamps of
    that version and of the ruleset a list of `system` is checked against
    (factions/stamps.py), which change when, and only when, what they say changes. For a
    variant, the book may be one of its base ruleset's.

    `version` is the version read: the one a list is pinned to, when the book holds it,
    else the current one (`version_id` None: it is found by the book's version name);
    each version's content is its BookVersion's document."""

    system: str
    slug: str
    faction_id: int
    version: str
    book_stamp: str
    ruleset_stamp: str
    uses_points: bool
    current_version: str = ""
    version_id: int | None = None

    @property
    def cache_key(self) -> tuple[str, str]:
        return (self.book_stamp, self.ruleset_stamp)

    @property
    def stamp(self) -> str:
        return f"{self.book_stamp}.{self.ruleset_stamp}"

    @property
    def is_current(self) -> bool:
        return self.version == self.current_version

    def pinned(self, version_id: int, version: str, book_stamp: str) -> BookHandle:
        """The handle of another version of the same book."""
        return BookHandle(
            self.system,
            self.slug,
            self.faction_id,
            version,
            book_stamp,
            self.ruleset_stamp,
            self.uses_points,
            self.current_version,
            version_id,
        )


def _handles(where: str, params: list[str], version: str = "") -> list[BookHandle]:
    """Book handles by raw SQL: validation runs on every change in the builder, so this
    skips the ORM's query building (measured at about half the cost of a 50-entry
    request). With `version`, a book that holds that version (not as its current one)
    answers with that version's handle."""
    faction, ruleset, versions = Faction._meta, Ruleset._meta, BookVersion._meta
    sql = (
        f"SELECT r.slug, f.slug, f.id, f.version, f.content_hash, r.content_hash, r.uses_points, "
        f"f.ruleset_id = r.id, v.id, v.content_hash FROM {faction.db_table} f JOIN {ruleset.db_table} r "
        f"ON (r.id = f.ruleset_id OR r.base_id = f.ruleset_id) "
        f"LEFT JOIN {versions.db_table} v ON v.faction_id = f.id AND v.version = %s AND v.version <> f.version "
        f"WHERE {where}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [version, *params])
        rows = cursor.fetchall()
    # A variant's own book of a slug wins over its base's of the same slug.
    rows.sort(key=lambda row: bool(row[7]))
    found = {(row[0], row[1]): row for row in rows}
    handles = []
    for row in found.values():
        handle = BookHandle(row[0], row[1], row[2], row[3], row[4], row[5], bool(row[6]), row[3])
        handles.append(handle.pinned(row[8], version, row[9]) if row[8] is not None else handle)
    return handles


def book_handle_find(*, system: str, slug: str, version: str | None = None) -> BookHandle | None:
    """The handle of the book of `slug` a list of `system` uses, in one small query: of
    `version` when the book holds it, else of its current version."""
    handles = _handles("r.slug = %s AND f.slug = %s", [system, slug], version or "")
    return handles[0] if handles else None


BookKey = tuple[str, str, str]  # (system, slug, version: "" for the current one)


def book_handles_get(*, books: set[BookKey]) -> dict[BookKey, BookHandle]:
    """The handles of several books, each of the version asked for when held, else of
    the current one: {(system, slug, version): handle}, in one query, and one more when
    some are asked for at a version other than their current one."""
    if not books:
        return {}
    systems = sorted({system for system, _slug, _version in books})
    current = {(h.system, h.slug): h for h in _handles(f"r.slug IN ({', '.join(['%s'] * len(systems))})", systems)}
    found = {key: current[key[:2]] for key in books if key[:2] in current}
    older = {key: handle for key, handle in found.items() if key[2] and key[2] != handle.current_version}
    if older:
        rows = BookVersion.objects.filter(
            faction_id__in={h.faction_id for h in older.values()}, version__in={key[2] for key in older}
        ).values_list("faction_id", "version", "id", "content_hash")
        held = {(faction_id, version): (pk, stamp) for faction_id, version, pk, stamp in rows}
        for key, handle in older.items():
            if (handle.faction_id, key[2]) in held:
                pk, stamp = held[(handle.faction_id, key[2])]
                found[key] = handle.pinned(pk, key[2], stamp)
    return found


def engine_book_get(
    *, system: str, slug: str, handle: BookHandle | None = None, version: str | None = None
) -> tuple[Book, RulesetSpec]:
    """The engine's book and ruleset for a faction (Missing if there is none).

    Three levels: this process's own copy (no query when the caller has the handle), then
    the shared cache (CACHE_URL: the book as plain armybook/1 data, so every app server
    builds it from there rather than from the database), then the database (the
    version's document and the ruleset: a fixed handful of queries). The key is the
    content stamps of the book and its ruleset (and, in the shared cache, the release
    stamp: what the data looks like is the code's), so a stale copy is never found."""
    if handle is None:
        handle = book_handle_find(system=system, slug=slug, version=version)
        if handle is None:
            raise Missing("book", f'no faction "{slug}" in ruleset "{system}"')
    return ENGINE_BOOKS.fetch(handle.cache_key, lambda: _engine_book_build(handle))


def _engine_book_build(handle: BookHandle) -> tuple[Book, RulesetSpec]:
    def read() -> tuple[dict[str, Any], dict[str, Any]]:
        return book_document(handle), ruleset_data(ruleset=ruleset_get(slug=handle.system))

    book, ruleset = remembered(shared_key("engine-book", handle.stamp), read, seconds=24 * 3600)
    return book_from_dict(book), ruleset_from_dict(ruleset)


def book_versions(*, faction: Faction) -> QuerySet[BookVersion]:
    """The book's versions, newest first (without their documents)."""
    return faction.versions.defer("document").order_by("-imported_at", "-id")


def book_version_document(*, faction: Faction, version: str) -> dict[str, Any] | None:
    """The armybook/1 document of a version the book holds, or None when it holds no such
    version."""
    return BookVersion.objects.filter(faction=faction, version=version).values_list("document", flat=True).first()


class VersionNotHeld(Exception):
    """A version the book does not hold; `field` names where it was asked for."""

    def __init__(self, field: str, faction: Faction, version: str):
        self.field, self.version = field, version
        held = ", ".join(book_versions_held(faction_id=faction.pk))
        super().__init__(f'{faction.name} has no version "{version}" here: it holds {held}.')


def book_changes_get(*, faction: Faction, old: str, new: str | None = None) -> dict[str, Any]:
    """What changed in the book from version `old` to `new` (default: the current one),
    as factions/changes.py says it. Kept in the shared cache under the two versions'
    content stamps and the release stamp of the code; VersionNotHeld names a version the
    book does not hold (`from` or `to`)."""
    new = new or faction.version
    stamps = dict(
        BookVersion.objects.filter(faction=faction, version__in=[old, new]).values_list("version", "content_hash")
    )
    for field, version in (("from", old), ("to", new)):
        if version not in stamps:
            raise VersionNotHeld(field, faction, version)

    def compare() -> dict[str, Any]:
        documents = [book_version_document(faction=faction, version=version) for version in (old, new)]
        if documents[0] is None or documents[1] is None:
            raise VersionNotHeld(
                "from" if documents[0] is None else "to", faction, old if documents[0] is None else new
            )
        from factions.changes import book_changes

        return book_changes(documents[0], documents[1])

    return remembered(shared_key("book-changes", stamps[old], stamps[new]), compare, seconds=24 * 3600)


def book_versions_held(*, faction_id: int) -> list[str]:
    """The names of the versions a book holds, oldest first."""
    rows = BookVersion.objects.filter(faction_id=faction_id).order_by("imported_at", "id")
    return list(rows.values_list("version", flat=True))


def book_document(handle: BookHandle) -> dict[str, Any]:
    """The armybook/1 document of the version a handle reads, as kept with the version
    (one query: a kept version's document is never changed)."""
    versions = BookVersion.objects.filter(faction_id=handle.faction_id, version=handle.version)
    document = versions.values_list("document", flat=True).first()
    if document is None:  # the book was deleted meanwhile
        raise Faction.DoesNotExist(f'no version "{handle.version}" of "{handle.slug}" in ruleset "{handle.system}"')
    return document


def ruleset_spec(*, ruleset: Ruleset) -> RulesetSpec:
    return ruleset_from_dict(ruleset_data(ruleset=ruleset))


def ruleset_data(*, ruleset: Ruleset) -> dict[str, Any]:
    """What the engine needs of a ruleset, as plain data (load with its base, and with
    prefetched limits and core rules)."""
    return {
        "slug": ruleset.slug,
        "family": ruleset.family,
        "name": ruleset.name,
        "version": ruleset.version,
        "uses_points": ruleset.uses_points,
        "max_points": ruleset.max_points,
        "limits": [
            {
                "code": limit.code,
                "kind": limit.kind,
                "params": limit.params,
                "severity": limit.severity,
                "section": limit.section,
                "optional": limit.optional,
            }
            for limit in ruleset.limits.all()
        ],
        "core_rules": {rule.name: rule.rated for rule in ruleset.core_rules.all()},
    }
