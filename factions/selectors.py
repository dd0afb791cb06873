"""Reads from the catalogue. Each selector runs a fixed number of queries, whatever the
size of the book."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Prefetch, Q, QuerySet

from armybuilder.engine.book import Book, RulesetSpec, book_from_dict, ruleset_from_dict
from factions.armybook import RulesetInfo
from factions.catalogue import CORE_RULE_FIELDS, LIMIT_FIELDS, RULESET_FIELDS
from factions.models import (
    CompositionCard,
    CoreRule,
    Equipment,
    Faction,
    Gain,
    Package,
    Ruleset,
    Unit,
    UnitPackage,
    UpgradeOption,
    UpgradeSection,
)


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


_RULESET_PAYLOADS: dict[tuple, Any] = {}


def ruleset_list_payload(serialize) -> Any:
    """The rulesets as `serialize(queryset)` makes them, serialized once per set of
    ruleset content stamps: one small query per call after that."""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT id, content_hash FROM {Ruleset._meta.db_table} ORDER BY id")
        stamp = tuple(cursor.fetchall())
    payload = _RULESET_PAYLOADS.get(stamp)
    if payload is None:
        payload = serialize(ruleset_list())
        _RULESET_PAYLOADS.clear()  # only the newest is ever asked for again
        _RULESET_PAYLOADS[stamp] = payload
    return payload


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


def core_rule_summaries(*, system: str) -> dict[str, str]:
    """{core rule name: our summary of it} for a ruleset."""
    return dict(CoreRule.objects.filter(ruleset__slug=system).values_list("name", "summary"))


def ruleset_get(*, slug: str) -> Ruleset:
    return Ruleset.objects.select_related("base").prefetch_related("limits", "core_rules").get(slug=slug)


def ruleset_record(*, ruleset: Ruleset) -> dict[str, Any]:
    """Everything a ruleset says, as plain data: its fields, its limits in order and its
    core rules (load with prefetched limits and core rules). Backups keep it, and its
    content stamp is a hash of it."""
    return {
        "slug": ruleset.slug,
        **{field: getattr(ruleset, field) for field in RULESET_FIELDS},
        "base": ruleset.base.slug if ruleset.base_id else None,
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
    variant, those of the ruleset it plays."""
    factions = Faction.objects.select_related("ruleset").annotate(unit_count=Count("units"))
    if system:
        factions = factions.filter(Q(ruleset__slug=system) | Q(ruleset__variants__slug=system))
    return factions.order_by("ruleset__order", "name")


def faction_by_armyforge_id(*, system: str, armyforge_id: str) -> Faction | None:
    """The faction of `system` imported from the Army Forge army book `armyforge_id`."""
    if not armyforge_id:
        return None
    return Faction.objects.filter(ruleset__slug=system, armyforge_id=armyforge_id).first()


def faction_get_with_book(*, system: str, slug: str) -> Faction:
    """The faction with everything its book holds, prefetched (12 queries)."""
    return factions_with_book().get(ruleset__slug=system, slug=slug)


def factions_with_book() -> QuerySet[Faction]:
    """Factions with everything their books hold, prefetched: 12 queries for any number."""
    return Faction.objects.select_related("ruleset").prefetch_related(
        "rules",
        "spells",
        Prefetch(
            "units",
            queryset=Unit.objects.prefetch_related(
                Prefetch("equipment", queryset=Equipment.objects.order_by("order", "id")),
                Prefetch(
                    "unit_packages",
                    queryset=UnitPackage.objects.select_related("package").order_by("order", "id"),
                ),
            ),
        ),
        Prefetch(
            "packages",
            queryset=Package.objects.prefetch_related(
                Prefetch(
                    "sections",
                    queryset=UpgradeSection.objects.prefetch_related(
                        Prefetch(
                            "options",
                            queryset=UpgradeOption.objects.prefetch_related(
                                Prefetch("gains", queryset=Gain.objects.order_by("order", "id"))
                            ),
                        )
                    ),
                )
            ),
        ),
        Prefetch("composition", queryset=CompositionCard.objects.prefetch_related("groups")),
    )


def faction_book(*, faction: Faction) -> dict[str, Any]:
    """The faction as an armybook/1 document (use faction_get_with_book to load it)."""
    ruleset = faction.ruleset
    book: dict[str, Any] = {
        "format": "armybook/1",
        "system": ruleset.slug,
        "slug": faction.slug,
        "name": faction.name,
        "version": faction.version,
    }
    if faction.description is not None:
        book["description"] = faction.description
    if faction.armyforge_id:
        book["armyforge_id"] = faction.armyforge_id
    book["rules"] = [{"name": r.name, "rated": r.rated, "text": r.text} for r in faction.rules.all()]
    book["spells"] = [{"name": s.name, "cost": s.cost, "text": s.text} for s in faction.spells.all()]
    book["units"] = [_unit(u, ruleset.stat_fields) for u in faction.units.all()]
    book["packages"] = [
        {"id": p.uid, "sections": [_section(s) for s in p.sections.all()]} for p in faction.packages.all()
    ]
    card = _composition_or_none(faction)
    if card is not None:
        book["composition"] = {
            "models": {"min": card.models_min, "max": card.models_max},
            "groups": [{"label": g.label, "units": g.units, "min": g.min, "max": g.max} for g in card.groups.all()],
        }
    return book


def _composition_or_none(faction: Faction) -> CompositionCard | None:
    try:
        return faction.composition
    except CompositionCard.DoesNotExist:
        return None


def _attacks(value: str) -> int | str:
    return int(value) if value.isdigit() else value


def _unit(unit: Unit, stat_fields: list[str]) -> dict[str, Any]:
    stats = {k: unit.stats[k] for k in stat_fields if k in unit.stats}
    stats.update({k: v for k, v in unit.stats.items() if k not in stats})
    return {
        "id": unit.uid,
        "name": unit.name,
        "type": unit.type,
        "size": unit.size,
        "cost": unit.cost,
        "stats": stats,
        "rules": unit.rules,
        "equipment": [equipment_as_dict(e) for e in unit.equipment.all()],
        **({"items": unit.items} if unit.items else {}),
        "upgrades": [
            {"package": up.package.uid, "without": up.without} if up.without else up.package.uid
            for up in unit.unit_packages.all()
        ],
    }


def equipment_as_dict(equipment: Equipment) -> dict[str, Any]:
    weapon: dict[str, Any] = {"name": equipment.name, "count": equipment.count}
    if equipment.range is not None:
        weapon["range"] = equipment.range
    if equipment.attacks:
        weapon["attacks"] = _attacks(equipment.attacks)
    weapon.update(equipment.extra)
    weapon["rules"] = equipment.rules
    return weapon


def _section(section: UpgradeSection) -> dict[str, Any]:
    data: dict[str, Any] = {"id": section.uid, "label": section.label, "variant": section.variant}
    if section.targets:
        data["targets"] = section.targets
    for key, kind, value in (
        ("affects", section.affects_type, section.affects_value),
        ("select", section.select_type, section.select_value),
    ):
        if kind:
            data[key] = {"type": kind, "value": value} if kind in ("exactly", "up to") else {"type": kind}
    if section.select_per and "select" in data:
        data["select"]["per"] = section.select_per
    if section.optional is not None:
        data["optional"] = section.optional
    data["options"] = [_option(o) for o in section.options.all()]
    return data


def _option(option: UpgradeOption) -> dict[str, Any]:
    data: dict[str, Any] = {"id": option.uid, "label": option.label, "cost": option.cost}
    if option.costs:
        data["costs"] = option.costs
    if option.command:
        data["command"] = option.command
    data["gains"] = [{"kind": g.kind, "name": g.name, **g.detail} for g in option.gains.all()]
    return data


# -- the rules engine's view of the catalogue ----------------------------------------
_ENGINE_CACHE: OrderedDict[tuple, tuple[Book, RulesetSpec]] = OrderedDict()
_ENGINE_CACHE_SIZE = 64
_ENGINE_LOCK = threading.Lock()


@dataclass(frozen=True, slots=True)
class BookHandle:
    """Enough to find a faction's book in the cache: the content stamps of the book and
    of the ruleset a list of `system` is checked against (factions/stamps.py), which
    change when, and only when, what they say changes. For a variant, the book may be
    one of its base ruleset's."""

    system: str
    slug: str
    faction_id: int
    version: str
    book_stamp: str
    ruleset_stamp: str
    uses_points: bool

    @property
    def cache_key(self) -> tuple[str, str]:
        return (self.book_stamp, self.ruleset_stamp)

    @property
    def stamp(self) -> str:
        return f"{self.book_stamp}.{self.ruleset_stamp}"


def _handles(where: str, params: list[str]) -> list[BookHandle]:
    """Book handles by raw SQL: validation runs on every change in the builder, so this
    skips the ORM's query building (measured at about half the cost of a 50-entry
    request)."""
    faction, ruleset = Faction._meta, Ruleset._meta
    sql = (
        f"SELECT r.slug, f.slug, f.id, f.version, f.content_hash, r.content_hash, r.uses_points, "
        f"f.ruleset_id = r.id FROM {faction.db_table} f JOIN {ruleset.db_table} r "
        f"ON (r.id = f.ruleset_id OR r.base_id = f.ruleset_id) WHERE {where}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    # A variant's own book of a slug wins over its base's of the same slug.
    rows.sort(key=lambda row: bool(row[7]))
    found = {(row[0], row[1]): row for row in rows}
    return [BookHandle(row[0], row[1], row[2], row[3], row[4], row[5], bool(row[6])) for row in found.values()]


def book_handle_get(*, system: str, slug: str) -> BookHandle | None:
    """The handle of the book of `slug` a list of `system` uses, in one small query."""
    handles = _handles("r.slug = %s AND f.slug = %s", [system, slug])
    return handles[0] if handles else None


def book_handles_get(*, pairs: set[tuple[str, str]]) -> dict[tuple[str, str], BookHandle]:
    """The handles of several books, {(system, slug): handle}, in one query."""
    if not pairs:
        return {}
    systems = sorted({system for system, _slug in pairs})
    handles = _handles(f"r.slug IN ({', '.join(['%s'] * len(systems))})", systems)
    return {(h.system, h.slug): h for h in handles if (h.system, h.slug) in pairs}


def engine_book_get(*, system: str, slug: str, handle: BookHandle | None = None) -> tuple[Book, RulesetSpec]:
    """The engine's book and ruleset for a faction.

    Three levels: this process's own copy (no query when the caller has the handle), then
    the shared cache (CACHE_URL: the book as plain armybook/1 data, so every app server
    builds it from there rather than from the tables), then the database (a fixed
    handful of queries). The key is the content stamps of the book and its ruleset, so
    a stale copy is never found."""
    if handle is None:
        handle = book_handle_get(system=system, slug=slug)
        if handle is None:
            raise Faction.DoesNotExist(f'no faction "{slug}" in ruleset "{system}"')
    key = handle.cache_key
    with _ENGINE_LOCK:
        cached = _ENGINE_CACHE.get(key)
        if cached is not None:
            _ENGINE_CACHE.move_to_end(key)
            return cached
    shared_key = f"engine-book:{handle.stamp}"
    data = cache.get(shared_key)
    if data is None:
        full = factions_with_book().get(pk=handle.faction_id)
        ruleset = ruleset_get(slug=handle.system)
        data = (faction_book(faction=full), ruleset_data(ruleset=ruleset))
        cache.set(shared_key, data, timeout=24 * 3600)
    built = (book_from_dict(data[0]), ruleset_from_dict(data[1]))
    with _ENGINE_LOCK:
        _ENGINE_CACHE[key] = built
        while len(_ENGINE_CACHE) > _ENGINE_CACHE_SIZE:
            _ENGINE_CACHE.popitem(last=False)
    return built


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


def engine_cache_clear() -> None:
    """Forget this process's copies (the shared cache's keys are content stamps)."""
    with _ENGINE_LOCK:
        _ENGINE_CACHE.clear()
