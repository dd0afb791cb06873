"""Caches are keyed by a stamp of the content of a book or ruleset (factions/stamps.py)
instead of a revision counter. Rows already here get a random stamp, which no other
row here or in another database has, until the next write stamps their content.
Standalone: no code of the app is read."""

import uuid

from django.db import migrations, models


def placeholder_stamps(apps, schema_editor):
    for name in ("Ruleset", "Faction"):
        model = apps.get_model("factions", name)
        for pk in model.objects.values_list("pk", flat=True):
            model.objects.filter(pk=pk).update(content_hash=uuid.uuid4().hex)


class Migration(migrations.Migration):
    dependencies = [("factions", "0006_opf_hero_limit_section")]

    operations = [
        migrations.AddField(
            model_name="faction",
            name="content_hash",
            field=models.CharField(
                blank=True, editable=False, help_text="Stamp of the book's content (factions/stamps.py)", max_length=32
            ),
        ),
        migrations.AddField(
            model_name="ruleset",
            name="content_hash",
            field=models.CharField(
                blank=True,
                editable=False,
                help_text="Stamp of the ruleset's content (factions/stamps.py)",
                max_length=32,
            ),
        ),
        migrations.RunPython(placeholder_stamps, migrations.RunPython.noop),
        migrations.RemoveField(model_name="faction", name="revision"),
        migrations.RemoveField(model_name="ruleset", name="revision"),
    ]
