"""Migrations stand alone: `migrate` from zero works whatever the ruleset data files and
the catalogue code say later (the ruleset migration carries its own frozen data)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

SCRIPT = """
import json
import django
django.setup()
from factions import catalogue

bundled = catalogue.ruleset_data

def grown():
    # The data files as a later change might leave them: a new field on every ruleset
    # and limit, which the catalogue code writes (and the models of 0002 do not have).
    data = bundled()
    for ruleset in data:
        ruleset["tagline"] = "a new field"
        for limit in ruleset["limits"]:
            limit["note"] = "a new field"
    return data

catalogue.ruleset_data = grown
catalogue.RULESET_FIELDS = (*catalogue.RULESET_FIELDS, "tagline")
from django.core.management import call_command
call_command("migrate", verbosity=0)
from factions.models import CoreRule, ForceOrgLimit, Ruleset
data = bundled()
print(json.dumps({
    "rulesets": [Ruleset.objects.count(), len(data)],
    "limits": [ForceOrgLimit.objects.count(), sum(len(r["limits"]) for r in data)],
    "core_rules": [CoreRule.objects.count(), sum(len(r["core_rules"]) for r in data)],
    "slugs": sorted(Ruleset.objects.values_list("slug", flat=True)),
}))
"""


def test_migrate_from_zero_works_after_the_ruleset_data_grows_a_field(tmp_path):
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path}/fresh.sqlite3",
        "DJANGO_SETTINGS_MODULE": "armybuilder.settings",
    }
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr[-3000:]
    counts = json.loads(result.stdout.strip().splitlines()[-1])
    assert counts["slugs"] == ["aof", "aof-arena", "aof-regiments", "aof-skirmish", "opf"]
    for what in ("rulesets", "limits", "core_rules"):
        made, bundled = counts[what]
        assert made == bundled, what


def test_the_frozen_ruleset_data_is_what_sync_rulesets_writes_today():
    """While the data files have not changed since, the migration and sync_rulesets agree
    (when they change, sync_rulesets brings them; refresh the frozen copy only with a new
    migration)."""
    from factions.catalogue import ruleset_data

    frozen = json.loads((REPO / "factions" / "migrations" / "0002_rulesets.json").read_text())
    assert [r["slug"] for r in frozen] == [r["slug"] for r in ruleset_data()]


@pytest.mark.django_db(transaction=True)
def test_books_held_before_versions_were_kept_get_one_version_each_with_their_source():
    """Migration 0009 gives each book its one version (the one its tables hold) and a
    source; bootstrap's backfill then keeps that version's document, which the migration
    could not write."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from factions.services import sync_rulesets

    sync_rulesets()  # a transactional test before this one may have emptied the tables
    before = [("factions", "0008_ruleset_variants"), ("lists", "0003_event_packs")]
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    ruleset = old.get_model("factions", "Ruleset").objects.get(slug="aof")
    factions = old.get_model("factions", "Faction").objects
    factions.create(ruleset=ruleset, slug="human-empire", name="Human Empire", version="1.1.0", content_hash="a" * 32)
    factions.create(ruleset=ruleset, slug="wood-elves", name="Wood Elves", version="3.5.2", armyforge_id="qtuy")
    factions.create(ruleset=ruleset, slug="club-book", name="Club Book", version="0.3.0", content_hash="c" * 32)

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    from factions.models import BookVersion, Faction
    from factions.services import book_versions_backfill

    rows = BookVersion.objects.order_by("faction__slug")
    assert [(v.faction.slug, v.version, v.source, v.document) for v in rows] == [
        ("club-book", "0.3.0", "upload", None),
        ("human-empire", "1.1.0", "bundled", None),
        ("wood-elves", "3.5.2", "armyforge", None),
    ]
    assert dict(Faction.objects.values_list("slug", "source")) == {
        "club-book": "upload",
        "human-empire": "bundled",
        "wood-elves": "armyforge",
    }
    assert BookVersion.objects.get(faction__slug="human-empire").content_hash == "a" * 32
    assert book_versions_backfill() == 3
    kept = BookVersion.objects.get(faction__slug="human-empire")
    assert (kept.document["name"], kept.document["version"]) == ("Human Empire", "1.1.0")
    assert kept.content_hash == Faction.objects.get(slug="human-empire").content_hash != "a" * 32
    assert book_versions_backfill() == 0


@pytest.mark.django_db(transaction=True)
def test_event_packs_and_submissions_held_before_the_events_app_keep_their_rows():
    """Lists 0007 and events 0001 move the models in the migration state only: a database
    at lists 0006 keeps its packs, submissions and the lists built for a pack, and the
    content types (with their permissions) move to the events app."""
    from datetime import UTC, datetime

    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.models import ContentType
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from factions.services import sync_rulesets

    sync_rulesets()  # a transactional test before this one may have emptied the tables
    before = ("lists", "0006_army_list_form_key")
    executor = MigrationExecutor(connection)
    executor.migrate([before, ("events", None)])
    old = executor.loader.project_state(before).apps
    # A database made before the events app has content types of lists only.
    content_types = old.get_model("contenttypes", "ContentType").objects
    content_types.filter(app_label="events").delete()
    pack_type, _made = content_types.get_or_create(app_label="lists", model="eventpack")
    permission = old.get_model("auth", "Permission").objects.create(
        content_type=pack_type, codename="judge_eventpack", name="Can judge event pack"
    )
    organiser = old.get_model("auth", "User").objects.create(username="organiser")
    ruleset = old.get_model("factions", "Ruleset").objects.get(slug="aof")
    when = datetime(2026, 12, 31, 18, tzinfo=UTC)
    pack = old.get_model("lists", "EventPack").objects.create(
        key="club-night-key", organiser=organiser, name="Club Night", ruleset=ruleset, points_limit=500, deadline=when
    )
    army_list = old.get_model("lists", "ArmyList").objects.create(
        owner=organiser, system="aof", faction="human-empire", book_version="1.0", points_limit=500, event=pack
    )
    old.get_model("lists", "Submission").objects.create(
        pack=pack, player=organiser, army_list=army_list, data={"name": "x"}, book_version="1.0", submitted_at=when
    )

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())
    ContentType.objects.clear_cache()

    from armybuilder.events.models import EventPack, Submission
    from armybuilder.lists.models import ArmyList

    moved = EventPack.objects.get(key="club-night-key")
    assert (moved.name, moved.organiser.username, moved.deadline) == ("Club Night", "organiser", when)
    assert ArmyList.objects.get(pk=army_list.pk).event == moved
    submission = Submission.objects.get()
    assert (submission.pack, submission.army_list_id, submission.data) == (moved, army_list.pk, {"name": "x"})
    assert ContentType.objects.get_for_model(EventPack).pk == pack_type.pk
    assert not ContentType.objects.filter(app_label="lists", model="eventpack").exists()
    assert Permission.objects.get(pk=permission.pk).content_type.app_label == "events"
