"""The checks behind every catalogue change made in the admin.

An edit in the admin must leave the catalogue as `import_armybook` would have: the whole
book it touches (or, for a ruleset, its limits and every book of it) is read back from
the database as armybook/1, with the same export as `export_armybook`, and checked as the
importer checks an upload. A change that fails is refused with every problem found, and
the caller's transaction rolls it back; one that passes marks the book as changed the
way a re-import of a new version does (a new version string, and the stamp of its new
content), so that saved lists say their army book was updated and no cached copy of the
old content is found again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, cast

from django.db import transaction
from django.db.models import Model

from armybuilder.engine.limit_kinds import limit_param_problems
from factions import models
from factions.armybook import RulesetInfo, check_armybook
from factions.models import Faction, Ruleset
from factions.selectors import faction_book, faction_get_with_book, ruleset_infos
from factions.stamps import stamp_books, stamp_rulesets

Owner = Faction | Ruleset

# The foreign keys that lead from a catalogue row up to its book, nearest first.
PARENT_FIELDS = ("ruleset", "faction", "unit", "package", "section", "option", "card")

# JSON columns and the shape the export needs them in, per table of a book: (model, the
# lookup to the faction, the column naming the row, {column: type}).
_JSON_SHAPES: tuple[tuple[type[models.BookPart], str, str, dict[str, type[dict[Any, Any]] | type[list[Any]]]], ...] = (
    (models.Unit, "faction", "uid", {"stats": dict, "rules": list, "items": list}),
    (models.Equipment, "unit__faction", "name", {"rules": list, "extra": dict}),
    (models.UnitPackage, "unit__faction", "unit__uid", {"without": list}),
    (models.UpgradeSection, "package__faction", "uid", {"targets": list}),
    (models.UpgradeOption, "section__package__faction", "uid", {"costs": dict}),
    (models.Gain, "option__section__package__faction", "name", {"detail": dict}),
    (models.CompositionGroup, "card__faction", "label", {"units": list}),
)
# Keys with a column of their own: the same key in the JSON column would override it.
_OWN_COLUMNS = {
    (models.Equipment, "extra"): ("name", "count", "range", "attacks", "rules"),
    (models.Gain, "detail"): ("kind", "name"),
}
_RULESET_SHAPES = {
    "stat_fields": (str, 'a JSON list of names, e.g. ["quality", "defense"]'),
    "unit_types": (str, 'a JSON list of names, e.g. ["hero", "infantry"]'),
    "suggested_points": (int, "a JSON list of whole numbers, e.g. [750, 1500]"),
}
_ADMIN_MARK = re.compile(r"^(?P<base>.+[+.])admin\.(?P<count>\d+)$")
_VERSION_LENGTH = cast(int, Faction._meta.get_field("version").max_length)  # a CharField: it has one


class CatalogueRefused(Exception):
    """A change the checks refuse; `problems` names every reason, one sentence each."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__(problems[0] if problems else "refused")


def catalogue_owner(obj: Model) -> Owner:
    """The book (faction) or the ruleset a catalogue row belongs to."""
    if isinstance(obj, Ruleset | Faction):
        return obj
    if isinstance(obj, models.ForceOrgLimit | models.CoreRule):
        return obj.ruleset
    for name in PARENT_FIELDS[1:]:
        if hasattr(obj, f"{name}_id"):
            return catalogue_owner(getattr(obj, name))
    raise TypeError(f"{type(obj).__name__} is not part of the catalogue")


@transaction.atomic
def catalogue_change_check(*, objects: Iterable[Model], changed: bool = True, version_by_hand: bool = False) -> None:
    """Check the books and rulesets `objects` belong to, as they now stand in the
    database. Raises CatalogueRefused (the caller's transaction must roll back) with
    every problem found. When `changed`, the books are marked as a re-import of a new
    version would mark them: a new version (unless `version_by_hand`: the version
    itself was edited), the stamp of its content and the warnings of the check; a
    ruleset gets the stamp of its content. Objects deleted since are skipped."""
    factions, rulesets = _current_owners(objects)
    if changed and not version_by_hand:
        for faction in factions:
            faction.version = _version_after_edit(faction)
            Faction.objects.filter(pk=faction.pk).update(version=faction.version)
    problems, warnings = _owners_problems(factions, rulesets)
    if problems:
        raise CatalogueRefused(problems)
    if not changed:
        return
    for faction in factions:
        Faction.objects.filter(pk=faction.pk).update(import_warnings=[str(w) for w in warnings[faction.pk]])
    stamp_books(faction.pk for faction in factions)
    stamp_rulesets(ruleset.pk for ruleset in rulesets)


@transaction.atomic
def catalogue_delete(*, objects: Iterable[Model]) -> None:
    """Delete catalogue rows, then check what they belonged to as catalogue_change_check
    does. A package that units still take is not deleted (it would silently take their
    upgrades away): they must let go of it first."""
    objects = list(objects)
    problems = [problem for obj in objects for problem in _delete_problems(obj)]
    if problems:
        raise CatalogueRefused(problems)
    owners = [catalogue_owner(obj) for obj in objects]
    for obj in objects:
        obj.delete()
    catalogue_change_check(objects=owners)


def _delete_problems(obj: Model) -> list[str]:
    if not isinstance(obj, models.Package):
        return []
    users = sorted(set(models.UnitPackage.objects.filter(package=obj).values_list("unit__uid", flat=True)))
    if not users:
        return []
    return [
        f'package "{obj.uid}" is taken by {", ".join(users)}: take it off '
        f"{'that unit' if len(users) == 1 else 'those units'} first"
    ]


def _current_owners(objects: Iterable[Model]) -> tuple[list[Faction], list[Ruleset]]:
    """The distinct factions and rulesets the objects belong to, read afresh (a change
    may have renamed or moved them), leaving out any deleted since."""
    faction_ids: set[int] = set()
    ruleset_ids: set[int] = set()
    for obj in objects:
        owner = catalogue_owner(obj)
        (ruleset_ids if isinstance(owner, Ruleset) else faction_ids).add(owner.pk)
    factions = list(Faction.objects.select_related("ruleset").filter(pk__in=faction_ids).order_by("pk"))
    rulesets = list(Ruleset.objects.filter(pk__in=ruleset_ids).order_by("pk"))
    return factions, rulesets


def _version_after_edit(faction: Faction) -> str:
    """The version with an admin-edit mark: 1.2.0 -> 1.2.0+admin.1 -> 1.2.0+admin.2
    (1.2.0-beta -> 1.2.0-beta.admin.1). Build metadata leaves the version's precedence
    alone, so a bundled book of the same version does not undo the edit, and a newer one
    still replaces it."""
    version = faction.version
    marked = _ADMIN_MARK.match(version)
    if marked:
        new = f"{marked['base']}admin.{int(marked['count']) + 1}"
    else:
        new = f"{version}{'.' if re.search(r'[-+]', version) else '+'}admin.1"
    if len(new) > _VERSION_LENGTH:
        raise CatalogueRefused(
            [f'the version "{version}" of {faction.name} is too long to mark this change: shorten it first']
        )
    return new


def _owners_problems(factions: list[Faction], rulesets: list[Ruleset]) -> tuple[list[str], dict[int, list]]:
    """Every problem of the rulesets (their own and their books') and of the books, and
    the warnings of each book checked."""
    problems: list[str] = []
    for ruleset in rulesets:
        problems += _ruleset_problems(ruleset)
    warnings: dict[int, list] = {}
    if problems:
        return problems, warnings  # the books cannot be checked against a broken ruleset
    infos = ruleset_infos()
    books = {f.pk: f for f in factions}
    books.update((f.pk, f) for f in Faction.objects.select_related("ruleset").filter(ruleset__in=rulesets))
    for faction in sorted(books.values(), key=lambda f: f.pk):
        book_problems, warnings[faction.pk] = _book_problems(faction, infos)
        label = f"{faction.name} ({faction.ruleset.slug}/{faction.slug})"
        problems += [f"{label}: {problem}" for problem in book_problems]
    return problems, warnings


def _ruleset_problems(ruleset: Ruleset) -> list[str]:
    problems = [
        f"{ruleset.slug} {column} must be {shape}"
        for column, (kind, shape) in _RULESET_SHAPES.items()
        if not _list_of(getattr(ruleset, column), kind)
    ]
    for code, kind, params in ruleset.limits.values_list("code", "kind", "params"):
        problems += [f'{ruleset.slug} limit "{code}": {problem}' for problem in limit_param_problems(kind, params)]
    if ruleset.base is not None:  # None without a query when there is none
        problems += _variant_problems(ruleset, ruleset.base)
    return problems


def _variant_problems(variant: Ruleset, base: Ruleset) -> list[str]:
    """A variant plays its base's game: its stats, unit types and points (or none) are
    the base's, and the base is one of the rulebooks' rulesets."""
    if base.base_id is not None:
        return [f"{variant.slug} is a variant of {base.slug}, itself a variant: name one of the rulebooks' rulesets"]
    return [
        f"{variant.slug} {column} must be {base.slug}'s, {getattr(base, column)!r}: a variant plays its base's game"
        for column in ("uses_points", "stat_fields", "unit_types")
        if getattr(variant, column) != getattr(base, column)
    ]


def _list_of(value: Any, kind: type) -> bool:
    return isinstance(value, list) and all(isinstance(v, kind) and not isinstance(v, bool) for v in value)


def _book_problems(faction: Faction, infos: dict[str, RulesetInfo]) -> tuple[list[str], list]:
    """The import's errors (and warnings) of the faction's book as the database holds
    it; what the export cannot read is reported before it is tried."""
    problems = _shape_problems(faction) + _foreign_packages(faction)
    if problems:
        return problems, []
    book = faction_book(faction=faction_get_with_book(system=faction.ruleset.slug, slug=faction.slug))
    check = check_armybook(book, infos)
    return [str(p) for p in check.errors], check.warnings


def _shape_problems(faction: Faction) -> list[str]:
    problems = []
    for model, to_faction, label, columns in _JSON_SHAPES:
        rows = model._default_manager.filter(**{to_faction: faction}).values_list(label, *columns)
        name = model._meta.verbose_name
        for row in rows:
            for (column, kind), value in zip(columns.items(), row[1:], strict=True):
                if not isinstance(value, kind):
                    shape = "object" if kind is dict else "list"
                    problems.append(f'{name} "{row[0]}": {column} must be a JSON {shape}, not {_short(value)}')
                elif (model, column) in _OWN_COLUMNS and set(value) & set(_OWN_COLUMNS[model, column]):
                    keys = ", ".join(sorted(set(value) & set(_OWN_COLUMNS[model, column])))
                    problems.append(f'{name} "{row[0]}": {column} must not hold {keys} (they have fields of their own)')
    return problems


def _foreign_packages(faction: Faction) -> list[str]:
    """A unit can only take its own book's packages (the export names them by id)."""
    links = (
        models.UnitPackage.objects.filter(unit__faction=faction)
        .exclude(package__faction=faction)
        .values_list("unit__uid", "package__uid", "package__faction__name")
    )
    return [f'unit "{unit}" takes package "{package}" of another book ({book})' for unit, package, book in links]


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
