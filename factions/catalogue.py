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
        ruleset, _ = Ruleset.objects.update_or_create(slug=data["slug"], defaults={k: data[k] for k in RULESET_FIELDS})
        if hasattr(ruleset, "revision"):  # absent in the historical model of 0002
            Ruleset.objects.filter(pk=ruleset.pk).update(revision=F("revision") + 1)
        ForceOrgLimit.objects.filter(ruleset=ruleset).delete()
        ForceOrgLimit.objects.bulk_create(
            ForceOrgLimit(
                ruleset=ruleset,
                code=limit["code"],
                kind=limit["kind"],
                params=limit["params"],
                severity=limit.get("severity", "error"),
                section=limit["section"],
                optional=limit.get("optional", False),
                order=i,
            )
            for i, limit in enumerate(data["limits"])
        )
        CoreRule.objects.filter(ruleset=ruleset).delete()
        CoreRule.objects.bulk_create(
            CoreRule(
                ruleset=ruleset,
                name=rule["name"],
                rated=rule["rated"],
                section=rule["section"],
                summary=rule["summary"],
            )
            for rule in data["core_rules"]
        )
        counts["rulesets"] += 1
        counts["limits"] += len(data["limits"])
        counts["core_rules"] += len(data["core_rules"])
    return counts
