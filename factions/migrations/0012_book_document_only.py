"""A book is stored once: the armybook/1 document of each of its versions. The tables that
held the current version of each book a second time (rules, spells, units, packages,
sections, options, gains, weapons, the Arena composition card) go.

First every book's current version is made to hold what the book says, as the code before
this read it: the version's document when it has one stamped as the book is, else the
book built from the tables (a book imported before versions were kept, whose document was
never written, or one changed in the tables since), stamped anew. A version other than
the current one without a document held nothing a reader could use (lists pinned to it
read the current one) and goes. Then the tables are dropped.

The data step reads no code of the app: the book is built from the tables here as
factions.selectors.faction_book built it, and stamped as armybuilder.stamps.content_hash
stamps data (sha256 of the JSON with sorted keys, 32 hex digits).
"""

import hashlib

import orjson
from django.db import migrations, models
from django.utils import timezone

import factions.models


def _stamp(data):
    return hashlib.sha256(orjson.dumps(data, option=orjson.OPT_SORT_KEYS)).hexdigest()[:32]


def _ordered(rows):
    return sorted(rows, key=lambda row: (row.order, row.pk))


def _weapon(row):
    weapon = {"name": row.name, "count": row.count}
    if row.range is not None:
        weapon["range"] = row.range
    if row.attacks:
        weapon["attacks"] = int(row.attacks) if row.attacks.isdigit() else row.attacks
    weapon.update(row.extra)
    weapon["rules"] = row.rules
    return weapon


def _section(section, options):
    data = {"id": section.uid, "label": section.label, "variant": section.variant}
    if section.targets:
        data["targets"] = section.targets
    for key, kind, value in (
        ("affects", section.affects_type, section.affects_value),
        ("select", section.select_type, section.select_value),
    ):
        if kind:
            data[key] = {"type": kind, "value": value} if kind in ("exactly", "up to") else {"type": kind}
    if section.select_per and "select" in data:
        data["select"]["per"] = section.select_per
    if section.optional is not None:
        data["optional"] = section.optional
    data["options"] = options
    return data


def book_from_tables(apps, faction):
    """The faction's book as armybook/1, from its tables (factions.selectors.faction_book
    as it was)."""
    get = apps.get_model
    book = {
        "format": "armybook/1",
        "system": faction.ruleset.slug,
        "slug": faction.slug,
        "name": faction.name,
        "version": faction.version,
    }
    if faction.description is not None:
        book["description"] = faction.description
    if faction.armyforge_id:
        book["armyforge_id"] = faction.armyforge_id
    if faction.armyforge_rules:
        book["armyforge_rules"] = faction.armyforge_rules
    book["rules"] = [
        {
            "name": r.name,
            "rated": r.rated,
            "text": r.text,
            **({"core": True} if r.core else {}),
            **({"per_army": r.per_army} if r.per_army is not None else {}),
        }
        for r in _ordered(get("factions", "FactionRule").objects.filter(faction=faction))
    ]
    book["spells"] = [
        {"name": s.name, "cost": s.cost, "text": s.text}
        for s in _ordered(get("factions", "Spell").objects.filter(faction=faction))
    ]
    stat_fields = faction.ruleset.stat_fields
    units = []
    for unit in _ordered(get("factions", "Unit").objects.filter(faction=faction)):
        stats = {k: unit.stats[k] for k in stat_fields if k in unit.stats}
        stats.update({k: v for k, v in unit.stats.items() if k not in stats})
        links = _ordered(get("factions", "UnitPackage").objects.filter(unit=unit).select_related("package"))
        units.append(
            {
                "id": unit.uid,
                "name": unit.name,
                "type": unit.type,
                "size": unit.size,
                "cost": unit.cost,
                "stats": stats,
                "rules": unit.rules,
                "equipment": [_weapon(w) for w in _ordered(get("factions", "Equipment").objects.filter(unit=unit))],
                **({"items": unit.items} if unit.items else {}),
                "upgrades": [
                    {"package": link.package.uid, "without": link.without} if link.without else link.package.uid
                    for link in links
                ],
            }
        )
    book["units"] = units
    packages = []
    for package in _ordered(get("factions", "Package").objects.filter(faction=faction)):
        sections = []
        for section in _ordered(get("factions", "UpgradeSection").objects.filter(package=package)):
            options = []
            for option in _ordered(get("factions", "UpgradeOption").objects.filter(section=section)):
                data = {"id": option.uid, "label": option.label, "cost": option.cost}
                if option.costs:
                    data["costs"] = option.costs
                if option.command:
                    data["command"] = option.command
                gains = _ordered(get("factions", "Gain").objects.filter(option=option))
                data["gains"] = [{"kind": g.kind, "name": g.name, **g.detail} for g in gains]
                options.append(data)
            sections.append(_section(section, options))
        packages.append({"id": package.uid, "sections": sections})
    book["packages"] = packages
    card = get("factions", "CompositionCard").objects.filter(faction=faction).first()
    if card is not None:
        groups = _ordered(get("factions", "CompositionGroup").objects.filter(card=card))
        book["composition"] = {
            "models": {"min": card.models_min, "max": card.models_max},
            "groups": [{"label": g.label, "units": g.units, "min": g.min, "max": g.max} for g in groups],
        }
    return book


def documents_from_tables(apps, schema_editor):
    Faction = apps.get_model("factions", "Faction")
    BookVersion = apps.get_model("factions", "BookVersion")
    for faction in Faction.objects.select_related("ruleset").order_by("pk"):
        current = BookVersion.objects.filter(faction=faction, version=faction.version).first()
        if current is not None and current.document is not None and current.content_hash == faction.content_hash:
            continue  # kept as the tables hold it (stamps.stamp_books wrote both)
        document = book_from_tables(apps, faction)
        stamp = _stamp(document)
        Faction.objects.filter(pk=faction.pk).update(content_hash=stamp)
        if current is None:
            current = BookVersion(
                faction=faction,
                version=faction.version,
                source=faction.source,
                armyforge_id=faction.armyforge_id,
                imported_at=faction.imported_at or timezone.now(),
            )
        current.document, current.content_hash, current.units = document, stamp, len(document["units"])
        current.save()
    BookVersion.objects.filter(document__isnull=True).delete()
    if schema_editor.connection.vendor == "postgresql":
        # The versions written check their foreign key now, not at the commit: PostgreSQL
        # alters no table with checks pending (the document's column, below).
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):
    dependencies = [
        ("factions", "0011_limit_kind_registry"),
    ]

    operations = [
        migrations.RunPython(documents_from_tables, migrations.RunPython.noop),
        migrations.RemoveField(model_name="unit", name="packages"),  # through UnitPackage: no column
        migrations.AlterField(
            model_name="bookversion",
            name="document",
            field=factions.models.JSONDocument(help_text="The version as armybook/1: the book itself"),
        ),
        migrations.AlterField(
            model_name="faction",
            name="version",
            field=models.CharField(help_text="The current version: the one kept last", max_length=48),
        ),
        # Each table before those it refers to.
        migrations.DeleteModel(name="Gain"),
        migrations.DeleteModel(name="UpgradeOption"),
        migrations.DeleteModel(name="UpgradeSection"),
        migrations.DeleteModel(name="UnitPackage"),
        migrations.DeleteModel(name="Equipment"),
        migrations.DeleteModel(name="Unit"),
        migrations.DeleteModel(name="Package"),
        migrations.DeleteModel(name="Spell"),
        migrations.DeleteModel(name="FactionRule"),
        migrations.DeleteModel(name="CompositionGroup"),
        migrations.DeleteModel(name="CompositionCard"),
    ]
