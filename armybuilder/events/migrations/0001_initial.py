"""Event packs and submissions move here from the lists app. Their tables stay as they
are (lists_eventpack, lists_submission): the models are created in the migration state
only, and lists 0007 drops them from the lists app's state. The content types follow the
models, so permissions and admin log entries given for them keep working."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

import armybuilder.events.models

MODELS = ("eventpack", "submission")


def _relabel(apps, old: str, new: str) -> None:
    """The content type rows of the moved models, from app `old` to app `new` (left as they
    are where `new` has its own row already)."""
    content_types = apps.get_model("contenttypes", "ContentType").objects
    for model in MODELS:
        if not content_types.filter(app_label=new, model=model).exists():
            content_types.filter(app_label=old, model=model).update(app_label=new)


def content_types_to_events(apps, schema_editor) -> None:
    _relabel(apps, "lists", "events")


def content_types_to_lists(apps, schema_editor) -> None:
    _relabel(apps, "events", "lists")


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("factions", "0008_ruleset_variants"),
        ("lists", "0006_army_list_form_key"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="EventPack",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        (
                            "key",
                            models.CharField(
                                default=armybuilder.events.models.new_pack_key,
                                editable=False,
                                max_length=32,
                                unique=True,
                            ),
                        ),
                        ("name", models.CharField(max_length=120)),
                        ("description", models.TextField(blank=True, max_length=2000)),
                        (
                            "points_limit",
                            models.PositiveIntegerField(blank=True, help_text="Empty for Arena warbands", null=True),
                        ),
                        ("deadline", models.DateTimeField(help_text="Submissions close at this time")),
                        (
                            "factions",
                            models.JSONField(blank=True, default=list, help_text="Army book slugs allowed; empty: all"),
                        ),
                        (
                            "limit_changes",
                            models.JSONField(
                                blank=True,
                                default=dict,
                                help_text='Limit code -> the parameters it takes, e.g. {"unit_too_expensive": {"percent": 30}}',
                            ),
                        ),
                        (
                            "limits_removed",
                            models.JSONField(
                                blank=True, default=list, help_text="Codes of the ruleset's limits not used"
                            ),
                        ),
                        (
                            "limits_added",
                            models.JSONField(
                                blank=True,
                                default=list,
                                help_text="Limit rows of the event's own: {code, kind, params, section}",
                            ),
                        ),
                        (
                            "bans",
                            models.JSONField(
                                blank=True,
                                default=list,
                                help_text='[{"faction": …, "unit": …} or {"faction": …, "option": …}]',
                            ),
                        ),
                        (
                            "caps",
                            models.JSONField(
                                blank=True, default=list, help_text='[{"faction": …, "unit": …, "max": N}]'
                            ),
                        ),
                        (
                            "books",
                            models.CharField(
                                choices=[("current", "current"), ("any", "any")],
                                default="current",
                                help_text="current: each list must use its army book's current version; any: players keep theirs",
                                max_length=10,
                            ),
                        ),
                        ("version", models.PositiveIntegerField(default=1, help_text="Bumped on every save")),
                        ("created", models.DateTimeField(auto_now_add=True)),
                        ("updated", models.DateTimeField(auto_now=True)),
                        (
                            "organiser",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="event_packs",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "ruleset",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="event_packs",
                                to="factions.ruleset",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "event pack",
                        "ordering": ["-deadline", "-id"],
                        "db_table": "lists_eventpack",
                    },
                ),
                migrations.CreateModel(
                    name="Submission",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("data", models.JSONField(help_text="The list as submitted (armylist/1)")),
                        ("book_version", models.CharField(max_length=48)),
                        ("submitted_at", models.DateTimeField()),
                        ("validation", models.JSONField(blank=True, editable=False, null=True)),
                        ("validation_stamp", models.CharField(blank=True, editable=False, max_length=200)),
                        (
                            "army_list",
                            models.ForeignKey(
                                blank=True,
                                help_text="Copied from",
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="submissions",
                                to="lists.armylist",
                            ),
                        ),
                        (
                            "pack",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="submissions",
                                to="events.eventpack",
                            ),
                        ),
                        (
                            "player",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="submissions",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                    ],
                    options={
                        "ordering": ["submitted_at", "id"],
                        "db_table": "lists_submission",
                        "constraints": [
                            models.UniqueConstraint(fields=("pack", "player"), name="one_submission_per_player")
                        ],
                    },
                ),
            ],
        ),
        migrations.RunPython(content_types_to_events, content_types_to_lists),
    ]
