"""Entries stored before issue 37 with more option ids than input now takes (200, more
than any unit offers) keep the first 200 in sorted order, as lists.format.bounded_entries
keeps them on reading: a list flooded with ids cost seconds and megabytes on every page
that read it. The frozen copies submitted to events are cut the same way (events 0002).
The cap is written out here: a migration keeps the value it ran with, whatever
lists.format says later."""

from django.db import migrations

MAX_OPTIONS = 200


def bounded(entries):
    """`entries` with each entry's options cut to MAX_OPTIONS ids, or None if none is over."""
    if not isinstance(entries, list):
        return None
    over = [
        isinstance(entry, dict) and isinstance(entry.get("options"), dict) and len(entry["options"]) > MAX_OPTIONS
        for entry in entries
    ]
    if not any(over):
        return None
    return [
        {**entry, "options": {key: entry["options"][key] for key in sorted(entry["options"])[:MAX_OPTIONS]}}
        if cut
        else entry
        for entry, cut in zip(entries, over, strict=True)
    ]


def cut_flooded_lists(apps, schema_editor):
    ArmyList = apps.get_model("lists", "ArmyList")
    for pk, entries in ArmyList.objects.values_list("pk", "entries").iterator(chunk_size=200):
        cut = bounded(entries)
        if cut is not None:
            ArmyList.objects.filter(pk=pk).update(entries=cut)


class Migration(migrations.Migration):
    dependencies = [("lists", "0009_used_undo")]

    operations = [migrations.RunPython(cut_flooded_lists, migrations.RunPython.noop, elidable=True)]
