"""Rulesets as data: variants, and the ruleset/1 JSON they travel as.

A variant ("Age of Fantasy (club rules)") has a name, a version, points defaults and
limit rows of its own, and plays its base ruleset's game: the engine checks its lists
with the base's module and the variant's own rows, its lists use the base's army books
(and any book imported for the variant itself), and its stats, unit types and special
rules are the base's. Staff make one from any ruleset (the admin's "Make a variant",
POST /api/systems/{system}/variants/), and export and import them as ruleset/1
(`manage.py export_ruleset` / `import_ruleset`, GET /api/systems/{system}/export,
POST /api/systems/import/). The document is `ruleset_document`; the schema is
factions/schema/ruleset-1.schema.json; `check_ruleset` names every problem at once.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from armybuilder.engine.limit_kinds import STORED_KINDS, limit_param_problems
from armybuilder.engine.rulesets import policy_or_default
from armybuilder.memo import memoize
from factions.armybook import Problem, check_storable, format_path

FORMAT = "ruleset/1"
SCHEMA_PATH = Path(__file__).resolve().parent / "schema" / "ruleset-1.schema.json"
# What a variant takes from its base, whatever a document says: the game it plays.
FROM_BASE = ("order", "uses_points", "stat_fields", "unit_types")
OWN_FIELDS = ("name", "version", "default_points", "suggested_points", "max_points")
# The largest points limit a list or an event may take where its ruleset names none.
MAX_POINTS = 1_000_000


class RulesetError(Exception):
    """A ruleset/1 document that cannot be imported; `problems` names every reason."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("; ".join(str(p) for p in problems))


def ruleset_schema() -> dict[str, Any]:
    """The ruleset/1 schema, its limits' `kind` one of the engine's registry of kinds
    (the file names none, so that a new kind is added in one place)."""
    schema = json.loads(SCHEMA_PATH.read_text())
    schema["$defs"]["limit"]["properties"]["kind"]["enum"] = list(STORED_KINDS)
    return schema


@memoize("factions: ruleset/1 schema", 1)
def _validator() -> Draft202012Validator:
    schema = ruleset_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def check_ruleset(data: Any, bases: Mapping[str, Any], variants: set[str]) -> list[Problem]:
    """Every problem of `data` as a variant: the schema's, then the catalogue's. `bases`
    are the rulesets a variant may play ({slug: Ruleset}, none of them a variant);
    `variants` the slugs of the variants there are (which an import may replace)."""
    problems = check_storable(data)
    if problems:
        return problems
    errors = sorted(_validator().iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    problems = [Problem(format_path(e.absolute_path), e.message) for e in errors]
    if problems:
        return problems
    slug, base = data["slug"], data["base"]
    if slug in bases:
        problems.append(Problem("slug", f'"{slug}" is a ruleset of the rulebooks; a variant needs a slug of its own'))
    if base is None:
        problems.append(Problem("base", f"name the ruleset the variant plays: one of {', '.join(sorted(bases))}"))
    elif base not in bases:
        which = "is itself a variant" if base in variants else "is no ruleset here"
        problems.append(Problem("base", f'"{base}" {which}; a variant plays one of {", ".join(sorted(bases))}'))
    played = bases.get(base)
    codes: set[str] = set()
    for i, limit in enumerate(data["limits"]):
        path = f"limits[{i}]"
        if limit["code"] in codes:
            problems.append(Problem(f"{path}.code", f'"{limit["code"]}" is the code of another limit too'))
        codes.add(limit["code"])
        problems += [Problem(f"{path}.params", p) for p in limit_param_problems(limit["kind"], limit["params"])]
        if (
            limit["kind"] == "composition"
            and played is not None
            and not policy_or_default(played.slug).composition_card
        ):
            problems.append(Problem(f"{path}.kind", "only Arena warbands have a composition card"))
    names: set[str] = set()
    for i, rule in enumerate(data.get("core_rules", ())):
        if rule["name"] in names:
            problems.append(Problem(f"core_rules[{i}].name", f'"{rule["name"]}" is summarised twice'))
        names.add(rule["name"])
    if played is not None and not played.uses_points:
        for key in ("default_points", "max_points"):
            if data.get(key) is not None:
                problems.append(Problem(key, f"{played.name} has no points: leave it out or null"))
    elif played is not None:
        problems += points_within_maximum(
            data.get("default_points", played.default_points),
            data.get("suggested_points", list(played.suggested_points)),
            data.get("max_points", played.max_points),
        )
    return problems


def points_within_maximum(default: Any, suggested: Any, most: Any) -> list[Problem]:
    """A ruleset's default and suggested points limits are legal limits of it: none above
    its largest (`most`; None: no largest)."""
    if not isinstance(most, int) or isinstance(most, bool):
        return []
    problems = []
    if isinstance(default, int) and not isinstance(default, bool) and default > most:
        problems.append(Problem("default_points", f"{default} pts is above the largest limit, {most} pts"))
    for i, points in enumerate(suggested if isinstance(suggested, list) else []):
        if isinstance(points, int) and not isinstance(points, bool) and points > most:
            problems.append(Problem(f"suggested_points[{i}]", f"{points} pts is above the largest limit, {most} pts"))
    return problems


def variant_record(data: dict[str, Any], base: Any, core_rules: list[dict[str, Any]]) -> dict[str, Any]:
    """A checked ruleset/1 document as the record services.ruleset_write writes: the
    variant's own fields and rows, the game's from its `base`, and `core_rules` (the
    base's) where the document has none."""
    return {
        "slug": data["slug"],
        "base": base.slug,
        **{field: getattr(base, field) for field in FROM_BASE},
        "name": data["name"],
        "version": data["version"],
        "default_points": data.get("default_points", base.default_points),
        "suggested_points": data.get("suggested_points", list(base.suggested_points)),
        "max_points": data.get("max_points", base.max_points),
        "limits": data["limits"],
        "core_rules": data.get("core_rules", core_rules),
    }
