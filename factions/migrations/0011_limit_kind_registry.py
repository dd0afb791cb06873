"""A limit row's kind has no choices in the database's schema: the kinds are the
engine's registry (armybuilder/engine/limit_kinds.py), read by the admin's form and
checked by the model's clean, so a new kind needs no migration. Schema only: every
existing row keeps its kind."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('factions', '0010_armyforge_core_rules'),
    ]

    operations = [
        migrations.AlterField(
            model_name='forceorglimit',
            name='kind',
            field=models.CharField(max_length=20),
        ),
    ]
