"""Event packs and submissions move to the events app (events 0001 takes them up): here
they leave the lists app's state, and a list's event points at events.EventPack. Nothing
changes in the database: the tables, columns and constraints stay as they are."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("events", "0001_initial"),
        ("lists", "0006_army_list_form_key"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="armylist",
                    name="event",
                    field=models.ForeignKey(
                        blank=True,
                        db_column="event_key",
                        help_text="Built for this event",
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="lists",
                        to="events.eventpack",
                        to_field="key",
                    ),
                ),
                migrations.DeleteModel(name="Submission"),
                migrations.DeleteModel(name="EventPack"),
            ],
        ),
    ]
