"""One Page Fantasy's one-hero limit is stated in "Preparing your Army" (rule 2 of that
list), not under "Heroes & Wizards": cite the section the rule is written in. Standalone
(no data files read), so it holds whatever the bundled ruleset data says later."""

from django.db import migrations
from django.db.models import F


def cite_preparing_your_army(apps, schema_editor):
    ForceOrgLimit = apps.get_model("factions", "ForceOrgLimit")
    Ruleset = apps.get_model("factions", "Ruleset")
    changed = ForceOrgLimit.objects.filter(
        ruleset__slug="opf", code="too_many_heroes", section="Heroes & Wizards"
    ).update(section="Preparing your Army")
    if changed:
        Ruleset.objects.filter(slug="opf").update(revision=F("revision") + 1)


def cite_heroes_and_wizards(apps, schema_editor):
    ForceOrgLimit = apps.get_model("factions", "ForceOrgLimit")
    ForceOrgLimit.objects.filter(ruleset__slug="opf", code="too_many_heroes", section="Preparing your Army").update(
        section="Heroes & Wizards"
    )


class Migration(migrations.Migration):
    dependencies = [("factions", "0005_real_army_books")]
    operations = [migrations.RunPython(cite_preparing_your_army, cite_heroes_and_wizards)]
