"""Create the five rulesets with their force-organisation limits and core special rules.

Standalone: the data is a frozen copy (0002_rulesets.json, next to this file) written
with the models as they are at this migration, so `migrate` from zero works whatever
factions/data/ and the models say later. Newer ruleset data reaches a database through
`manage.py sync_rulesets` (or a later migration of its own)."""

import json
from pathlib import Path

from django.db import migrations

DATA = Path(__file__).with_name("0002_rulesets.json")


def _known(model, values):
    """Only the values this historical model has columns for."""
    names = {field.name for field in model._meta.concrete_fields}
    return {key: value for key, value in values.items() if key in names}


def forwards(apps, schema_editor):
    Ruleset = apps.get_model("factions", "Ruleset")
    ForceOrgLimit = apps.get_model("factions", "ForceOrgLimit")
    CoreRule = apps.get_model("factions", "CoreRule")
    for data in json.loads(DATA.read_text(encoding="utf-8")):
        values = {key: value for key, value in data.items() if key not in ("slug", "limits", "core_rules")}
        ruleset, _ = Ruleset.objects.update_or_create(slug=data["slug"], defaults=_known(Ruleset, values))
        ForceOrgLimit.objects.filter(ruleset=ruleset).delete()
        ForceOrgLimit.objects.bulk_create(
            ForceOrgLimit(ruleset=ruleset, order=i, **_known(ForceOrgLimit, limit))
            for i, limit in enumerate(data["limits"])
        )
        CoreRule.objects.filter(ruleset=ruleset).delete()
        CoreRule.objects.bulk_create(CoreRule(ruleset=ruleset, **_known(CoreRule, rule)) for rule in data["core_rules"])


class Migration(migrations.Migration):
    dependencies = [("factions", "0001_initial")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
