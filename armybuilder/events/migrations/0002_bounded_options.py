"""The frozen copies of lists submitted to events, with each entry's option ids cut to
the 200 input takes, as lists 0010 cuts the lists themselves."""

import importlib

from django.db import migrations

lists_0010 = importlib.import_module("armybuilder.lists.migrations.0010_bounded_options")


def cut_flooded_submissions(apps, schema_editor):
    Submission = apps.get_model("events", "Submission")
    for pk, data in Submission.objects.values_list("pk", "data").iterator(chunk_size=200):
        cut = lists_0010.bounded(data.get("entries")) if isinstance(data, dict) else None
        if cut is not None:
            Submission.objects.filter(pk=pk).update(data={**data, "entries": cut})


class Migration(migrations.Migration):
    dependencies = [("events", "0001_initial"), ("lists", "0010_bounded_options")]

    operations = [migrations.RunPython(cut_flooded_submissions, migrations.RunPython.noop, elidable=True)]
