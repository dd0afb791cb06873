"""Create the five rulesets with their force-organisation limits and core special rules
from factions/data/. A later change to that data ships as a new migration that calls
sync_rulesets again (or run `manage.py sync_rulesets`)."""

from django.db import migrations

from factions.catalogue import sync_rulesets


def forwards(apps, schema_editor):
    sync_rulesets(apps)


class Migration(migrations.Migration):
    dependencies = [("factions", "0001_initial")]
    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
