"""The checks behind a ruleset's change made in the admin, and the name of a version
the admin keeps.

A change to a ruleset (its fields, limits or core rules) must leave every book of it as
`import_armybook` would take it: each book's current version is checked as the importer
checks an upload. A change that fails is refused with every problem found, and the
caller's transaction rolls it back; one that passes stamps the ruleset anew, so that no
cached copy of its old content is found again. (A book itself is edited as its document,
each edit kept as a new version: factions/admin_documents.py.)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

from django.db import transaction
from django.db.models import Model

from armybuilder.engine.limit_kinds import limit_param_problems
from factions import models
from factions.armybook import Problem, RulesetInfo, check_armybook
from factions.models import Faction, Ruleset
from factions.selectors import faction_document, ruleset_infos
from factions.stamps import stamp_rulesets
from factions.versions import Version, VersionError

# The foreign keys that lead from a catalogue row up to its ruleset.
PARENT_FIELDS = ("ruleset",)

_RULESET_SHAPES = {
    "stat_fields": (str, 'a JSON list of names, e.g. ["quality", "defense"]'),
    "unit_types": (str, 'a JSON list of names, e.g. ["hero", "infantry"]'),
    "suggested_points": (int, "a JSON list of whole numbers, e.g. [750, 1500]"),
}
_VERSION_LENGTH = cast(int, Faction._meta.get_field("version").max_length)  # a CharField: it has one


class CatalogueRefused(Exception):
    """A change the checks refuse; `problems` names every reason, one sentence each."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__(problems[0] if problems else "refused")


def catalogue_owner(obj: Model) -> Ruleset:
    """The ruleset a catalogue row (a ruleset, a limit, a core rule) belongs to."""
    if isinstance(obj, Ruleset):
        return obj
    if isinstance(obj, models.ForceOrgLimit | models.CoreRule):
        return obj.ruleset
    raise TypeError(f"{type(obj).__name__} is not part of a ruleset")


@transaction.atomic
def catalogue_change_check(*, objects: Iterable[Model], changed: bool = True) -> None:
    """Check the rulesets `objects` belong to, as they now stand in the database, with
    every book of each. Raises CatalogueRefused (the caller's transaction must roll back)
    with every problem found. When `changed`, each ruleset gets the stamp of its content.
    Rulesets deleted since are skipped."""
    ids = {catalogue_owner(obj).pk for obj in objects}
    rulesets = list(Ruleset.objects.filter(pk__in=ids).order_by("pk"))
    problems = _owners_problems(rulesets)
    if problems:
        raise CatalogueRefused(problems)
    if changed:
        stamp_rulesets(ruleset.pk for ruleset in rulesets)


@transaction.atomic
def catalogue_delete(*, objects: Iterable[Model]) -> None:
    """Delete catalogue rows, then check what they belonged to as catalogue_change_check
    does."""
    objects = list(objects)
    owners = [catalogue_owner(obj) for obj in objects]
    for obj in objects:
        obj.delete()
    catalogue_change_check(objects=owners)


def _version_after_edit(faction: Faction) -> str:
    """The version with an admin-edit mark: 1.2.0 -> 1.2.0+admin.1 -> 1.2.0+admin.2
    (1.2.0-beta -> 1.2.0-beta.admin.1). Build metadata leaves the version's precedence
    alone, so a bundled book of the same version does not undo the edit, and a newer one
    still replaces it."""
    version = faction.version
    try:
        parsed = Version.parse(version)
        parts = parsed.build or parsed.pre  # where a mark goes: after the last of them
    except VersionError:
        parts = ()
    if parts[-2:-1] == ("admin",) and parts[-1].isdigit():
        new = f"{version.rsplit('.', 1)[0]}.{int(parts[-1]) + 1}"
    else:
        new = f"{version}{'.' if parts else '+'}admin.1"
    if len(new) > _VERSION_LENGTH:
        raise CatalogueRefused(
            [f'the version "{version}" of {faction.name} is too long to mark this change: shorten it first']
        )
    return new


def _owners_problems(rulesets: list[Ruleset]) -> list[str]:
    """Every problem of the rulesets, their own and, when they have none, their books'."""
    problems: list[str] = []
    for ruleset in rulesets:
        problems += _ruleset_problems(ruleset)
    if problems:
        return problems  # the books cannot be checked against a broken ruleset
    infos = ruleset_infos()
    for faction in Faction.objects.select_related("ruleset").filter(ruleset__in=rulesets).order_by("pk"):
        label = f"{faction.name} ({faction.ruleset.slug}/{faction.slug})"
        problems += [f"{label}: {problem}" for problem in _book_problems(faction, infos)]
    return problems


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


def _book_problems(faction: Faction, infos: dict[str, RulesetInfo]) -> list[Problem]:
    """The import's errors of the book's current version."""
    return check_armybook(faction_document(faction=faction), infos).errors
