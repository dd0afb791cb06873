"""The five rulesets, their force-organisation limits and core special rules, kept in
factions/data/ (rulesets.json and core_rules/<slug>.json), written to the database by
`manage.py sync_rulesets` (services.sync_rulesets); the migration that first wrote them
carries a frozen copy of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def columns(data: dict[str, Any], fields: tuple[str, ...], defaults: dict[str, Any] | None = None) -> dict[str, Any]:
    """The values of `fields` in `data`, a default standing in where the data leaves one out."""
    data = {**(defaults or {}), **data}
    return {name: data[name] for name in fields}


def replace_rows(model: Any, ruleset: Any, rows: list[dict[str, Any]]) -> None:
    """Replace the ruleset's rows of `model` (its limits or core rules) with `rows`."""
    model.objects.filter(ruleset=ruleset).delete()
    model.objects.bulk_create(model(ruleset=ruleset, **row) for row in rows)
