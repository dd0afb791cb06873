"""Profile moves to the accounts app (armybuilder/accounts/0001_initial): here it leaves
the lists app's state only; its table, lists_profile, stays as it is."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("lists", "0007_events_move_out"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="Profile")],
            database_operations=[],
        ),
    ]
