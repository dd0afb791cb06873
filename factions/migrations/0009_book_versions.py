"""Every version of a book is kept (BookVersion), each with its source. A book already
here gets one version, the one its tables hold (its document stays empty until the next
write of the book stores it: `manage.py bootstrap` does); its source is Army Forge when
it has an Army Forge id, bundled when the site ships a book of its ruleset and slug, else
an upload. Its data step reads no code of the app (the bundled books are named by their
files); the document's column is the app's JSONDocument, text as written."""

from pathlib import Path

import django.db.models.deletion
from django.db import migrations, models

import factions.models

BOOKS_DIR = Path(__file__).resolve().parent.parent / "data" / "books"


def versions_of_books_held(apps, schema_editor):
    Faction = apps.get_model("factions", "Faction")
    BookVersion = apps.get_model("factions", "BookVersion")
    Unit = apps.get_model("factions", "Unit")
    bundled = {(path.parent.name, path.stem) for path in BOOKS_DIR.glob("*/*.json")}
    for faction in Faction.objects.select_related("ruleset"):
        if faction.armyforge_id:
            source = "armyforge"
        elif (faction.ruleset.slug, faction.slug) in bundled:
            source = "bundled"
        else:
            source = "upload"
        Faction.objects.filter(pk=faction.pk).update(source=source)
        BookVersion.objects.create(
            faction=faction,
            version=faction.version,
            source=source,
            armyforge_id=faction.armyforge_id,
            imported_at=faction.imported_at,
            units=Unit.objects.filter(faction=faction).count(),
            content_hash=faction.content_hash,
            document=None,
        )


class Migration(migrations.Migration):

    dependencies = [
        ('factions', '0008_ruleset_variants'),
    ]

    operations = [
        migrations.AddField(
            model_name='faction',
            name='import_slug',
            field=models.SlugField(blank=True, default='', help_text='The slug the book came with, when a book of another source held it and this one was given another; empty otherwise', max_length=80),
        ),
        migrations.AddField(
            model_name='faction',
            name='source',
            field=models.CharField(choices=[('bundled', 'bundled with the site'), ('armyforge', 'Army Forge'), ('upload', 'uploaded')], default='upload', max_length=10),
        ),
        migrations.AlterField(
            model_name='faction',
            name='version',
            field=models.CharField(help_text='The current version: the one imported last', max_length=48),
        ),
        migrations.CreateModel(
            name='ArmyForgeSync',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('system', models.SlugField(max_length=40)),
                ('armyforge_id', models.CharField(max_length=40, verbose_name='Army Forge book id')),
                ('name', models.CharField(blank=True, max_length=120)),
                ('version', models.CharField(blank=True, help_text='The version Army Forge offered', max_length=48)),
                ('outcome', models.CharField(help_text='new book, new version, unchanged or failed', max_length=20)),
                ('detail', models.TextField(blank=True)),
                ('synced_at', models.DateTimeField()),
            ],
            options={
                'verbose_name': 'Army Forge sync',
                'ordering': ['system', 'name'],
                'constraints': [models.UniqueConstraint(fields=('system', 'armyforge_id'), name='armyforge_sync_unique')],
            },
        ),
        migrations.CreateModel(
            name='BookVersion',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('version', models.CharField(help_text='The book\'s version, "+2" added for other content under a name held', max_length=48)),
                ('source', models.CharField(choices=[('bundled', 'bundled with the site'), ('armyforge', 'Army Forge'), ('upload', 'uploaded')], max_length=10)),
                ('armyforge_id', models.CharField(blank=True, default='', max_length=40, verbose_name='Army Forge book id')),
                ('imported_at', models.DateTimeField()),
                ('units', models.PositiveIntegerField(default=0)),
                ('content_hash', models.CharField(help_text='Stamp of the document (factions/stamps.py)', max_length=32)),
                ('document', factions.models.JSONDocument(blank=True, help_text='The version as armybook/1; empty only for the current version of a book imported before versions were kept, whose tables hold it', null=True)),
                ('faction', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='versions', to='factions.faction')),
            ],
            options={
                'ordering': ['-imported_at', '-id'],
                'constraints': [models.UniqueConstraint(fields=('faction', 'version'), name='book_version_unique')],
            },
        ),
        migrations.RunPython(versions_of_books_held, migrations.RunPython.noop),
    ]
