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
    """Migration 0009 gives each book its one version (the one its tables held) and a
    source; 0012 then keeps that version's document, built from the tables, and stamps it."""
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

    from armybuilder.stamps import content_hash
    from factions.models import BookVersion, Faction

    rows = BookVersion.objects.order_by("faction__slug")
    assert [(v.faction.slug, v.version, v.source, v.document["name"], v.document["version"]) for v in rows] == [
        ("club-book", "0.3.0", "upload", "Club Book", "0.3.0"),
        ("human-empire", "1.1.0", "bundled", "Human Empire", "1.1.0"),
        ("wood-elves", "3.5.2", "armyforge", "Wood Elves", "3.5.2"),
    ]
    assert dict(Faction.objects.values_list("slug", "source")) == {
        "club-book": "upload",
        "human-empire": "bundled",
        "wood-elves": "armyforge",
    }
    kept = BookVersion.objects.get(faction__slug="human-empire")
    assert kept.content_hash == content_hash(kept.document) == Faction.objects.get(slug="human-empire").content_hash
    assert kept.content_hash != "a" * 32


# -- 0012: a book is stored once -------------------------------------------------------------------
def write_tables(apps, faction, book: dict) -> None:
    """`book` (armybook/1) written into the tables of a database of 0010, as the importer of
    that time wrote it (factions/services.py _write_book, before 0012)."""
    get = apps.get_model
    for i, r in enumerate(book["rules"]):
        get("factions", "FactionRule").objects.create(
            faction=faction,
            name=r["name"],
            rated=r["rated"],
            text=r["text"],
            core=r.get("core", False),
            per_army=r.get("per_army"),
            order=i,
        )
    for i, s in enumerate(book["spells"]):
        get("factions", "Spell").objects.create(
            faction=faction, name=s["name"], cost=s["cost"], text=s["text"], order=i
        )
    packages = {}
    for i, p in enumerate(book["packages"]):
        packages[p["id"]] = package = get("factions", "Package").objects.create(faction=faction, uid=p["id"], order=i)
        for j, section in enumerate(p["sections"]):
            affects, select = section.get("affects") or {}, section.get("select") or {}
            row = get("factions", "UpgradeSection").objects.create(
                package=package,
                uid=section["id"],
                label=section["label"],
                variant=section["variant"],
                targets=section.get("targets", []),
                optional=section.get("optional"),
                affects_type=affects.get("type", ""),
                affects_value=affects.get("value"),
                select_type=select.get("type", ""),
                select_value=select.get("value"),
                select_per=select.get("per", ""),
                order=j,
            )
            for k, option in enumerate(section["options"]):
                kept = get("factions", "UpgradeOption").objects.create(
                    section=row,
                    uid=option["id"],
                    label=option["label"],
                    cost=option["cost"],
                    costs=option.get("costs", {}),
                    command=option.get("command", ""),
                    order=k,
                )
                for n, gain in enumerate(option["gains"]):
                    detail = {key: value for key, value in gain.items() if key not in ("kind", "name")}
                    get("factions", "Gain").objects.create(
                        option=kept, kind=gain["kind"], name=gain["name"], detail=detail, order=n
                    )
    columns = ("name", "type", "size", "cost", "stats", "rules")
    for i, u in enumerate(book["units"]):
        unit = get("factions", "Unit").objects.create(
            faction=faction, uid=u["id"], items=u.get("items", []), order=i, **{c: u[c] for c in columns}
        )
        for j, w in enumerate(u["equipment"]):
            get("factions", "Equipment").objects.create(
                unit=unit,
                name=w["name"],
                count=w["count"],
                range=w.get("range"),
                attacks=str(w["attacks"]) if "attacks" in w else "",
                rules=w["rules"],
                extra={k: v for k, v in w.items() if k not in ("name", "count", "range", "attacks", "rules")},
                order=j,
            )
        for j, entry in enumerate(u["upgrades"]):
            uid, without = (entry["package"], entry["without"]) if isinstance(entry, dict) else (entry, [])
            get("factions", "UnitPackage").objects.create(unit=unit, package=packages[uid], without=without, order=j)
    card = book.get("composition")
    if card is not None:
        kept_card = get("factions", "CompositionCard").objects.create(
            faction=faction, models_min=card["models"]["min"], models_max=card["models"]["max"]
        )
        for i, g in enumerate(card["groups"]):
            get("factions", "CompositionGroup").objects.create(
                card=kept_card, label=g["label"], units=g["units"], min=g["min"], max=g["max"], order=i
            )


@pytest.mark.django_db(transaction=True)
def test_every_book_keeps_its_content_when_the_tables_go(make_aof_book, make_arena_book):
    """A database of 0010 holds the bundled books as the importer of that time left them
    (the tables and each current version's document, stamped alike), a book held only in
    the tables (imported before versions were kept), an Arena book whose document the
    admin's edits of its tables left behind (another stamp: the tables are the book), and
    an older version with no document. After 0012 every book's current version holds what
    the code of 0010 read as the book (its document, or the book its tables hold), stamped
    by its content; the older version with no document is gone, and the tables too."""
    import json

    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor
    from django.utils import timezone

    from armybuilder.stamps import content_hash
    from factions.armybook import kept_form
    from factions.services import bundled_book_paths, sync_rulesets

    sync_rulesets()  # a transactional test before this one may have emptied the tables
    at_0010 = [("factions", "0010_armyforge_core_rules")]
    executor = MigrationExecutor(connection)
    executor.migrate(at_0010)
    old = executor.loader.project_state(at_0010).apps
    Ruleset, Faction = old.get_model("factions", "Ruleset"), old.get_model("factions", "Faction")
    BookVersion = old.get_model("factions", "BookVersion")
    now = timezone.now()
    expected: dict[tuple[str, str], dict] = {}  # what the code of 0010 read as each book

    def held(book: dict, *, version: bool = True, source: str = "upload", stamp: str | None = None) -> object:
        ruleset = Ruleset.objects.get(slug=book["system"])
        document = kept_form(book, ruleset.stat_fields)
        faction = Faction.objects.create(
            ruleset=ruleset,
            slug=book["slug"],
            name=book["name"],
            version=book["version"],
            description=book.get("description"),
            armyforge_id=book.get("armyforge_id", ""),
            armyforge_rules=book.get("armyforge_rules", ""),
            source=source,
            content_hash=stamp or content_hash(document),
        )
        write_tables(old, faction, book)
        if version:
            BookVersion.objects.create(
                faction=faction,
                version=book["version"],
                source=source,
                imported_at=now,
                units=len(book["units"]),
                content_hash=content_hash(document),
                document=document,
            )
        expected[(book["system"], book["slug"])] = document
        return faction

    for path in bundled_book_paths():
        held(json.loads(path.read_text()), source="bundled")
    tables_only = make_aof_book(units=8)
    tables_only.update(slug="club-book", name="Club Book", version="0.3.0", description="Kept in the tables only.")
    tables_only["rules"].append({"name": "Stubborn", "rated": False, "text": "Ours.", "core": False})
    tables_only["units"][1]["items"] = []
    held(tables_only, version=False, stamp="c" * 32)
    edited = make_arena_book()
    pit = held(edited, stamp="e" * 32)  # the tables changed since the document was kept
    stale = {**expected[("aof-arena", "test-pit")], "units": []}
    BookVersion.objects.filter(faction=pit).update(document=stale, content_hash=content_hash(stale))
    BookVersion.objects.create(
        faction=pit, version="0.9.0", source="upload", imported_at=now, units=0, content_hash="0" * 32, document=None
    )
    older = {**expected[("aof-arena", "test-pit")], "version": "0.8.0"}
    BookVersion.objects.create(
        faction=pit,
        version="0.8.0",
        source="upload",
        imported_at=now,
        units=1,
        content_hash=content_hash(older),
        document=older,
    )

    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())

    from factions.models import BookVersion as Version
    from factions.models import Faction as Book

    units = options = 0
    for faction in Book.objects.select_related("ruleset"):
        current = Version.objects.get(faction=faction, version=faction.version)
        book = expected.pop((faction.ruleset.slug, faction.slug))
        assert current.document == book, faction.slug
        assert [list(u["stats"]) for u in current.document["units"]] == [list(u["stats"]) for u in book["units"]]
        assert faction.content_hash == current.content_hash == content_hash(book), faction.slug
        assert current.units == len(book["units"])
        units += len(book["units"])
        options += sum(len(s["options"]) for p in book["packages"] for s in p["sections"])
    assert expected == {}
    assert sorted(Version.objects.filter(faction__slug="test-pit").values_list("version", flat=True)) == [
        "0.8.0",
        "1.0.0",
    ]
    assert Version.objects.get(faction__slug="test-pit", version="0.8.0").document == older
    tables = set(connection.introspection.table_names())
    assert not {t for t in tables if t in ("factions_unit", "factions_upgradeoption", "factions_factionrule")}
    books = Book.objects.count()
    assert books == len(bundled_book_paths()) + 2 and units > 0 and options > 0
    print(f"\n0012 compared {books} books: {units} units, {options} options, each the same before and after")


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
