"""Profile, moved here from the lists app (lists/0008_accounts_move_out): the app's state
takes it over with its table as it was (lists_profile), and its content type row moves
with it, so that staff permissions on profiles and admin history still point at it."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def _relabel(apps, old: str, new: str) -> None:
    content_types = apps.get_model("contenttypes", "ContentType").objects
    if content_types.filter(app_label=new, model="profile").exists():
        return  # made by a post_migrate already: the old row, if any, is left to remove_stale_contenttypes
    content_types.filter(app_label=old, model="profile").update(app_label=new)


def profile_to_accounts(apps, schema_editor) -> None:
    _relabel(apps, "lists", "accounts")


def profile_to_lists(apps, schema_editor) -> None:
    _relabel(apps, "accounts", "lists")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("lists", "0008_accounts_move_out"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Profile",
                    fields=[
                        (
                            "user",
                            models.OneToOneField(
                                on_delete=django.db.models.deletion.CASCADE,
                                primary_key=True,
                                related_name="profile",
                                serialize=False,
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "display_name",
                            models.CharField(
                                blank=True, help_text="Shown to others instead of the username", max_length=40
                            ),
                        ),
                        ("version", models.PositiveIntegerField(default=1, help_text="Bumped on every save")),
                    ],
                    options={"db_table": "lists_profile"},
                ),
            ],
            database_operations=[],
        ),
        migrations.RunPython(profile_to_accounts, profile_to_lists),
    ]
