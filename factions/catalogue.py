"""The five rulesets, their force-organisation limits and core special rules, kept in
factions/data/ (rulesets.json and core_rules/<slug>.json) and written to the database
by a data migration and by `manage.py sync_rulesets`.

Written against an app registry so that migrations can run it with historical models.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.db.models import F

DATA_DIR = Path(__file__).resolve().parent / "data"
RULESET_FIELDS = (
    "name",
    "version",
    "order",
    "uses_points",
    "default_points",
    "suggested_points",
    "max_points",
    "stat_fields",
    "unit_types",
)
LIMIT_FIELDS = ("code", "kind", "params", "severity", "section", "optional")
LIMIT_DEFAULTS = {"severity": "error", "optional": False}
CORE_RULE_FIELDS = ("name", "rated", "section", "summary")


def ruleset_data() -> list[dict[str, Any]]:
    rulesets = json.loads((DATA_DIR / "rulesets.json").read_text())
    for ruleset in rulesets:
        path = DATA_DIR / "core_rules" / f"{ruleset['slug']}.json"
        ruleset["core_rules"] = json.loads(path.read_text()) if path.exists() else []
    return rulesets


def sync_rulesets(apps: Any) -> dict[str, int]:
    """Make the database's rulesets, limits and core rules match the bundled data.

    Limits and core rules are replaced wholesale; factions are left alone."""
    Ruleset = apps.get_model("factions", "Ruleset")
    ForceOrgLimit = apps.get_model("factions", "ForceOrgLimit")
    CoreRule = apps.get_model("factions", "CoreRule")
    counts = {"rulesets": 0, "limits": 0, "core_rules": 0}
    for data in ruleset_data():
        ruleset, _ = Ruleset.objects.update_or_create(slug=data["slug"], defaults=_columns(data, RULESET_FIELDS))
        if hasattr(ruleset, "revision"):  # absent in the historical model of 0002
            Ruleset.objects.filter(pk=ruleset.pk).update(revision=F("revision") + 1)
        limits = [
            {**_columns(limit, LIMIT_FIELDS, LIMIT_DEFAULTS), "order": i} for i, limit in enumerate(data["limits"])
        ]
        _replace_rows(ForceOrgLimit, ruleset, limits)
        _replace_rows(CoreRule, ruleset, [_columns(rule, CORE_RULE_FIELDS) for rule in data["core_rules"]])
        counts["rulesets"] += 1
        counts["limits"] += len(data["limits"])
        counts["core_rules"] += len(data["core_rules"])
    return counts


def _columns(data: dict[str, Any], fields: tuple[str, ...], defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """The values of `fields` in `data`, a default standing in where the data leaves one out."""
    data = {**(defaults or {}), **data}
    return {name: data[name] for name in fields}


def _replace_rows(model: Any, ruleset: Any, rows: list[dict[str, Any]]) -> None:
    """Replace the ruleset's rows of `model` (its limits or core rules) with `rows`."""
    model.objects.filter(ruleset=ruleset).delete()
    model.objects.bulk_create(model(ruleset=ruleset, **row) for row in rows)
