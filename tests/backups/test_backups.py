"""export_all -> a fresh database -> import_all gives back everything: rulesets and their
variants, books with their rows, users, API tokens, sessions, event packs, lists and
submissions, each with its id; bad backups change nothing and say what is wrong."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.core.management.color import no_style
from django.db import connection
from django.test import Client
from django.utils import timezone
from rest_framework.authtoken.models import Token

from armybuilder.accounts import services as accounts
from armybuilder.accounts.models import Profile
from armybuilder.armyforge.books.imports import book_import
from armybuilder.events import selectors as event_selectors
from armybuilder.events import services as event_services
from armybuilder.events.models import EventPack, Submission
from armybuilder.lists import services
from armybuilder.lists import submissions as list_submissions
from armybuilder.lists.format import parse_list_body
from armybuilder.lists.models import ArmyList
from armybuilder.lists.selectors import army_list_load
from armybuilder.memo import clear_all
from armybuilder.stamps import content_hash
from factions.admin_checks import catalogue_change_check
from factions.models import ArmyForgeRules, ArmyForgeSync, BookVersion, CoreRule, Faction, ForceOrgLimit, Ruleset
from factions.selectors import armyforge_rules_find, engine_book_get, faction_document
from factions.services import (
    bundled_book_paths,
    bundled_books_load,
    ruleset_variant_create,
    sync_rulesets,
)
from tests.conftest import SHARED, aof_book, edit_book, require_shared
from tests.support import baseline

LISTS = Path(__file__).resolve().parents[2] / "factions" / "data" / "lists"
ARMYFORGE = SHARED / "armyforge"
HUMAN_EMPIRE = json.loads((LISTS / "aof/human-empire-1500.json").read_text())
User = get_user_model()


def read_all(folder: Path) -> dict:
    return {str(p.relative_to(folder)): json.loads(p.read_text()) for p in sorted(folder.rglob("*.json"))}


def results(body):
    """The lists of GET /api/lists/, paginated or not."""
    return body["results"] if isinstance(body, dict) else body


def export(folder: Path) -> str:
    out = StringIO()
    call_command("export_all", str(folder), stdout=out)
    return out.getvalue()


def restore(folder: Path) -> str:
    out = StringIO()
    call_command("import_all", str(folder), stdout=out)
    return out.getvalue()


def fresh_database() -> None:
    """What a new server has after `migrate` (the same migrations made the rulesets of
    both): the rulesets, no variants, books, accounts, sessions, event packs, lists or
    submissions, and id sequences back at the start (PostgreSQL)."""
    Submission.objects.all().delete()
    ArmyList.objects.all().delete()
    EventPack.objects.all().delete()
    Token.objects.all().delete()
    Session.objects.all().delete()
    User.objects.all().delete()
    Group.objects.all().delete()
    Faction.objects.all().delete()
    ArmyForgeRules.objects.all().delete()
    Ruleset.objects.filter(base__isnull=False).delete()
    emptied = [User, Group, ArmyList, EventPack, Submission, *apps.get_app_config("factions").get_models()]
    emptied = [m for m in emptied if m not in (Ruleset, ForceOrgLimit, CoreRule)]
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), emptied):
            cursor.execute(sql)
    clear_all()


def database_state() -> dict:
    """Enough of the database to see that a refused restore changed nothing."""
    return {
        "users": list(User.objects.values_list("pk", "username", "email")),
        "profiles": list(Profile.objects.values_list("user_id", "display_name", "version")),
        "groups": Group.objects.count(),
        "tokens": Token.objects.count(),
        "sessions": Session.objects.count(),
        "lists": list(ArmyList.objects.values_list("pk", flat=True)),
        "event packs": list(EventPack.objects.values_list("pk", "key")),
        "submissions": list(Submission.objects.values_list("pk", flat=True)),
        "factions": list(Faction.objects.values_list("pk", "slug", "content_hash", "source", "import_slug")),
        "book versions": list(BookVersion.objects.values_list("faction__slug", "version", "content_hash")),
        "Army Forge syncs": list(ArmyForgeSync.objects.values_list("system", "armyforge_id", "outcome")),
        "Army Forge core rules": list(ArmyForgeRules.objects.values_list("ruleset__slug", "version", "content_hash")),
        "rulesets": list(Ruleset.objects.values_list("slug", "content_hash")),
        "limits": list(ForceOrgLimit.objects.values_list("pk", "params")),
    }


def post_list(client: Client, data: dict) -> dict:
    response = client.post("/api/lists/", data, content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()


@pytest.fixture
def books(db):
    clear_all()
    baseline.bundled_books()


@pytest.fixture
def backup(tmp_path, books):
    """A site with a user (display name, e-mail address, list, token, signed-in session), a
    user who chose no display name, and a visitor (list, session), backed up into
    tmp_path / "backup", then a fresh database."""
    keeper = accounts.user_create(
        username="keeper", email="k@example.org", password="a-long-pass-phrase-1", display_name="Keeper of Lists"
    )
    User.objects.create_user("nameless", password="a-long-pass-phrase-2")
    signed_in, visitor = Client(), Client()
    signed_in.force_login(keeper)
    mine = post_list(signed_in, HUMAN_EMPIRE)
    theirs = post_list(visitor, json.loads((LISTS / "opf/free-cities-750.json").read_text()))
    token = Token.objects.create(user=keeper)
    folder = tmp_path / "backup"
    export(folder)
    fresh_database()
    return {
        "folder": folder,
        "signed_in": signed_in,
        "visitor": visitor,
        "mine": mine,
        "theirs": theirs,
        "token": token,
    }


# -- everything comes back -----------------------------------------------------------------------


def test_a_restored_backup_exports_to_the_same_files(backup, tmp_path):
    restore(backup["folder"])
    second = tmp_path / "second"
    export(second)
    assert read_all(second) == read_all(backup["folder"])
    files = set(read_all(second))
    assert {"manifest.json", "rulesets.json", "factions.json", "users.json", "tokens.json", "sessions.json"} <= files
    assert read_all(second)["manifest.json"]["format"] == "armybuilder-backup/6"


def test_a_backup_of_the_second_format_still_restores(backup):
    """/2 backups also held revision counters of books and rulesets: they are passed over.
    They had no event packs or submissions."""
    folder = backup["folder"]
    manifest = json.loads((folder / "manifest.json").read_text())
    counts = {name: n for name, n in manifest["counts"].items() if name not in ("event packs", "submissions")}
    (folder / "manifest.json").write_text(json.dumps({"format": "armybuilder-backup/2", "counts": counts}))
    (folder / "event_packs.json").unlink()
    (folder / "submissions.json").unlink()
    for name in ("rulesets.json", "factions.json"):
        records = json.loads((folder / name).read_text())
        (folder / name).write_text(json.dumps([{**record, "revision": 7} for record in records]))
    restore(folder)
    assert ArmyList.objects.count() == 2
    assert Faction.objects.count() == len(bundled_book_paths())


def test_the_commands_say_what_they_wrote_and_restored(books, tmp_path):
    User.objects.create_user("keeper", password="a-long-pass-phrase-1")
    books_count = Faction.objects.count()
    wrote = export(tmp_path / "b")
    counts = (
        f"5 rulesets, {books_count} army books, {books_count} book versions, 0 Army Forge syncs, "
        "0 Army Forge core rules versions, 1 users, "
        "0 API tokens, 0 sessions, 0 event packs, 0 lists and 0 submissions"
    )
    assert wrote == f"Wrote {counts} to {tmp_path / 'b'}\n"
    fresh_database()
    restored = restore(tmp_path / "b")
    assert restored == wrote.replace("Wrote", "Restored").replace(" to ", " from ")


def test_a_restored_user_keeps_their_password_and_id(backup):
    before = backup["token"].user
    restore(backup["folder"])
    restored = User.objects.get(username="keeper")
    assert restored.pk == before.pk
    assert restored.check_password("a-long-pass-phrase-1")
    assert (restored.email, restored.date_joined) == (before.email, before.date_joined)


def test_a_restored_user_keeps_their_display_name_and_e_mail_address(backup):
    records = {user["username"]: user for user in read_all(backup["folder"])["users.json"]}
    assert (records["keeper"]["display_name"], records["keeper"]["email"]) == ("Keeper of Lists", "k@example.org")
    assert (records["nameless"]["display_name"], records["nameless"]["email"]) == ("", "")
    restore(backup["folder"])
    keeper, nameless = User.objects.get(username="keeper"), User.objects.get(username="nameless")
    assert accounts.account_get(user=keeper).display_name == "Keeper of Lists"
    assert accounts.display_name(nameless) == accounts.default_name(nameless.pk)
    assert not Profile.objects.filter(user=nameless).exists()


def test_a_backup_of_the_fourth_format_restores_its_users_without_display_names(backup):
    as_format_4(backup["folder"])
    restore(backup["folder"])
    keeper = User.objects.get(username="keeper")
    assert (keeper.email, accounts.display_name(keeper)) == ("k@example.org", accounts.default_name(keeper.pk))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"display_name": "Keeper\u202eevil"}, r"control or invisible characters \(U\+202E\)"),
        ({"display_name": "k" * 41}, r"41 characters long; it may have at most 40"),
        ({"display_name": "Player 123456"}, r"how the site names players who chose no name"),
        ({"display_name": 7}, r"The display name should be text"),
        ({"email": "keeper-at-home"}, r'"keeper-at-home" is not an e-mail address'),
    ],
    ids=["hidden-character", "too-long", "site-name", "not-text", "bad-email"],
)
def test_a_user_with_a_display_name_or_address_the_site_refuses_is_refused_by_name(backup, change, words):
    damage(backup["folder"], "users.json", lambda records: records[0].update(change))
    refused(backup["folder"], r"users\.json, user \d+: .*" + words)


def test_a_signed_in_user_is_still_signed_in_after_restore(backup):
    restore(backup["folder"])
    response = backup["signed_in"].get("/api/lists/")
    assert response.status_code == 200
    assert [item["id"] for item in results(response.json())] == [backup["mine"]["id"]]


def test_a_visitor_still_reaches_their_list_after_restore(backup):
    restore(backup["folder"])
    response = backup["visitor"].get("/api/lists/")
    assert response.status_code == 200
    assert [item["id"] for item in results(response.json())] == [backup["theirs"]["id"]]


def test_an_api_token_still_authenticates_after_restore(backup):
    restore(backup["folder"])
    response = Client().get("/api/lists/", HTTP_AUTHORIZATION=f"Token {backup['token'].key}")
    assert response.status_code == 200
    assert [item["id"] for item in results(response.json())] == [backup["mine"]["id"]]
    assert Token.objects.get().created == backup["token"].created


def test_a_restored_list_is_the_same_list(backup):
    restore(backup["folder"])
    after = backup["signed_in"].get(f"/api/lists/{backup['mine']['id']}/").json()
    assert after == backup["mine"]
    assert after["book_changed"] is False
    shared = ArmyList.objects.get(pk=backup["theirs"]["id"])
    assert Client().get(f"/api/shared/{shared.share_key}/").status_code == 200


def test_a_list_keeps_its_id_after_earlier_lists_were_deleted(books, tmp_path):
    client = Client()
    ids = [post_list(client, HUMAN_EMPIRE)["id"] for _ in range(7)]
    ArmyList.objects.filter(pk__in=ids[:6]).delete()
    export(tmp_path / "b")
    fresh_database()
    restore(tmp_path / "b")
    assert list(ArmyList.objects.values_list("pk", flat=True)) == [ids[6]]
    assert client.get(f"/api/lists/{ids[6]}/").status_code == 200


def test_the_next_user_and_list_after_restore_get_new_ids(backup):
    restore(backup["folder"])
    newcomer = User.objects.create_user("newcomer", password="a-long-pass-phrase-2")
    assert newcomer.pk > backup["token"].user_id
    client = Client()
    client.force_login(newcomer)
    new_list = post_list(client, HUMAN_EMPIRE)
    assert new_list["id"] > max(backup["mine"]["id"], backup["theirs"]["id"])


def test_a_book_keeps_its_row_id_content_stamp_and_import_warnings(books, tmp_path):
    """The same content restored has the same stamp: a cache shared with the old server
    still holds the right copies."""
    faction = Faction.objects.get(ruleset__slug="aof", slug="human-empire")
    Faction.objects.filter(pk=faction.pk).update(import_warnings=["units[0]: checked by hand"])
    fields = ("pk", "content_hash", "imported_at", "import_warnings", "version")
    before = Faction.objects.values(*fields).get(pk=faction.pk)
    export(tmp_path / "b")
    fresh_database()
    restore(tmp_path / "b")
    after = Faction.objects.values(*fields).get(slug="human-empire")
    assert after == before


def test_books_already_in_the_database_are_replaced_by_the_backup_s(books, tmp_path):
    """A new server that ran `bootstrap` before the restore: the books keep that server's
    rows, with the backup's content and warnings, stamped with the backup's content."""
    unit = faction_document(faction=Faction.objects.get(slug="human-empire"))["units"][0]
    edit_book("human-empire", lambda book: book["units"][0].update(cost=unit["cost"] + 5))  # as the admin saves it
    Faction.objects.filter(slug="human-empire").update(import_warnings=["checked by hand"])
    edited = Faction.objects.get(slug="human-empire").content_hash
    export(tmp_path / "b")
    fresh_database()
    bundled_books_load()
    bootstrapped = Faction.objects.get(slug="human-empire")
    restore(tmp_path / "b")
    after = Faction.objects.get(slug="human-empire")
    assert (after.pk, after.import_warnings) == (bootstrapped.pk, ["checked by hand"])
    assert after.content_hash == edited != bootstrapped.content_hash
    book, _ruleset = engine_book_get(system="aof", slug="human-empire")
    assert book.units[unit["id"]].cost == unit["cost"] + 5


def test_a_ruleset_changed_in_the_admin_comes_back_with_the_stamp_of_its_content(books, tmp_path):
    limit = ForceOrgLimit.objects.filter(ruleset__slug="aof", kind="copies").first()
    limit.params = {**limit.params, "base": 3}
    limit.save()
    catalogue_change_check(objects=[limit])  # as the admin saves it
    edited = Ruleset.objects.get(slug="aof").content_hash
    export(tmp_path / "b")
    fresh_database()
    sync_rulesets()  # the new server's migrations wrote the bundled rulesets
    migrated = Ruleset.objects.get(slug="aof").content_hash
    restore(tmp_path / "b")
    assert ForceOrgLimit.objects.get(ruleset__slug="aof", code=limit.code).params["base"] == 3
    assert Ruleset.objects.get(slug="aof").content_hash == edited != migrated


def test_groups_and_permissions_come_back(books, tmp_path):
    editors = Group.objects.create(name="editors")
    editors.permissions.add(Permission.objects.get(codename="change_faction"))
    staff = User.objects.create_user("staff", password="a-long-pass-phrase-3", is_staff=True)
    staff.groups.add(editors)
    staff.user_permissions.add(Permission.objects.get(codename="view_armylist"))
    export(tmp_path / "b")
    fresh_database()
    restore(tmp_path / "b")
    staff = User.objects.get(username="staff")
    assert staff.has_perm("factions.change_faction") and staff.has_perm("lists.view_armylist")


def test_a_dry_run_restores_nothing(backup):
    before = database_state()
    out = StringIO()
    call_command("import_all", "--dry-run", str(backup["folder"]), stdout=out)
    assert out.getvalue().startswith("Would restore 5 rulesets, ")
    assert database_state() == before


def test_a_format_1_backup_still_restores_as_it_did(db, tmp_path):
    """/1 held books, users by name and lists without ids: they get ids from 1."""
    folder = tmp_path / "old"
    book = aof_book()
    (folder / "books" / "aof").mkdir(parents=True)
    (folder / "books" / "aof" / "test-wardens.json").write_text(json.dumps(book))
    user = {
        "username": "veteran",
        "email": "",
        "password": "!",
        "first_name": "",
        "last_name": "",
        "is_staff": False,
        "is_superuser": False,
        "is_active": True,
        "date_joined": "2026-01-02T03:04:05+00:00",
    }
    (folder / "users.json").write_text(json.dumps([user]))
    army_list = {
        "format": "armylist/1",
        "name": "Old guard",
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1000,
        "force_org": True,
        "notes": "",
        "entries": [],
        "owner": "veteran",
        "visitor": "",
        "share_key": "old-share-key",
        "version": 4,
        "book_version": "1.0.0",
        "created": "2026-01-03T00:00:00+00:00",
        "updated": "2026-01-04T00:00:00+00:00",
    }
    (folder / "lists.json").write_text(json.dumps([army_list]))
    manifest = {"format": "armybuilder-backup/1", "counts": {"books": 1, "users": 1, "lists": 1}}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    restore(folder)
    restored = ArmyList.objects.select_related("owner").get()
    assert (restored.pk, restored.owner.pk, restored.owner.username) == (1, 1, "veteran")
    assert (restored.share_key, restored.version, restored.created.isoformat()) == (
        "old-share-key",
        4,
        "2026-01-03T00:00:00+00:00",
    )
    assert Faction.objects.filter(slug="test-wardens").exists()


# -- a variant, an event pack, lists built for it and submissions ---------------------------------


def club_list(owner, pack, units: list[str], *, name: str) -> ArmyList:
    body = {
        "name": name,
        "system": "aof-club",
        "faction": "club-wardens",
        "points_limit": pack.points_limit,
        "entries": [{"id": f"e{i}", "unit": unit} for i, unit in enumerate(units)],
        "event": pack.key,
    }
    data, _handle = parse_list_body(body)
    return services.army_list_create(data=data, owner=owner)


@pytest.fixture
def event_site(db, tmp_path):
    """A club's variant of Age of Fantasy with a book of its own, a league on it (its own
    rules), two players' lists built for it and submitted, one list edited since and one
    list built for no event; backed up into tmp_path / "event-backup", then a fresh database."""
    clear_all()
    variant = ruleset_variant_create(source=Ruleset.objects.get(slug="aof"), slug="aof-club", name="AoF Club Rules")
    book_import(data={**aof_book(), "system": variant.slug, "slug": "club-wardens", "name": "Club Wardens"})
    organiser = User.objects.create_user("league-organiser", password="a-long-pass-phrase-4")
    league = {
        "name": "Club League",
        "description": "Monthly games.",
        "ruleset": "aof-club",
        "points_limit": 600,
        "deadline": "2031-05-01T18:00:00+02:00",
        "limit_changes": {"unit_too_expensive": {"percent": 30}},
        "bans": [{"faction": "club-wardens", "unit": "warden-captain"}],
        "caps": [{"faction": "club-wardens", "unit": "wardens", "max": 2}],
        "books": "any",
    }
    pack = event_services.pack_create(organiser=organiser, data=league)
    players = [User.objects.create_user(name, password="a-long-pass-phrase-5") for name in ("ann", "bo")]
    lists = [
        club_list(players[0], pack, ["wardens"], name="Shield Wall"),
        club_list(players[1], pack, ["warden-captain", "wardens"], name="Captain's Guard"),
    ]
    for player, army_list in zip(players, lists, strict=True):
        event_services.submission_submit(pack=pack, player=player, army_list=army_list)
    data, _handle = parse_list_body({**lists[0].as_armylist(), "name": "Shield Wall (changed)"})
    services.army_list_update(army_list=lists[0], data=data, based_on=lists[0].version)
    club_list(players[0], pack, [], name="Spare")
    ArmyList.objects.create(
        owner=players[1], system="aof-club", faction="club-wardens", book_version="1.0.0", name="Free"
    )
    rows = list_submissions.submission_rows(pack, list(pack.submissions.order_by("pk")))
    before = {"rows": [(row.submission.pk, row.valid, row.issues) for row in rows], "pack": pack}
    folder = tmp_path / "event-backup"
    export(folder)
    fresh_database()
    return {"folder": folder, "before": before}


def test_a_site_with_a_variant_a_pack_and_submissions_restores_to_the_same_files(event_site, tmp_path):
    restore(event_site["folder"])
    second = tmp_path / "second"
    export(second)
    assert read_all(second) == read_all(event_site["folder"])
    counts = read_all(second)["manifest.json"]["counts"]
    assert (counts["event packs"], counts["lists"], counts["submissions"]) == (1, 4, 2)


def test_the_variant_and_the_book_naming_it_come_back(event_site):
    restore(event_site["folder"])
    variant = Ruleset.objects.select_related("base").get(slug="aof-club")
    assert (variant.base.slug, variant.name) == ("aof", "AoF Club Rules")
    assert Faction.objects.get(slug="club-wardens").ruleset == variant
    book, ruleset = engine_book_get(system="aof-club", slug="club-wardens")
    assert (book.name, ruleset.family) == ("Club Wardens", "aof")


def test_the_pack_its_lists_and_its_submissions_come_back_with_their_ids_and_keys(event_site):
    before = event_site["before"]["pack"]
    restore(event_site["folder"])
    pack = event_selectors.event_pack_get(key=before.key)
    assert (pack.pk, pack.organiser_id, pack.organiser.username) == (before.pk, before.organiser_id, "league-organiser")
    assert (pack.deadline, pack.points_limit, pack.bans, pack.caps, pack.books) == (
        before.deadline,
        600,
        [{"faction": "club-wardens", "unit": "warden-captain"}],
        [{"faction": "club-wardens", "unit": "wardens", "max": 2}],
        "any",
    )
    built = ArmyList.objects.filter(event=pack).order_by("pk")
    assert [army_list.name for army_list in built] == ["Shield Wall (changed)", "Captain's Guard", "Spare"]
    submissions = list(pack.submissions.select_related("player", "army_list").order_by("pk"))
    assert [(s.player.username, s.data["name"], s.army_list.name) for s in submissions] == [
        ("ann", "Shield Wall", "Shield Wall (changed)"),  # the frozen copy, not the list as edited since
        ("bo", "Captain's Guard", "Captain's Guard"),
    ]
    rows = list_submissions.submission_rows(pack, submissions)
    assert [(row.submission.pk, row.valid, row.issues) for row in rows] == event_site["before"]["rows"]
    assert [row.valid for row in rows] == [True, False]  # the captain is banned


def test_the_next_pack_and_submission_after_restore_get_new_ids(event_site):
    before = event_site["before"]["pack"]
    restore(event_site["folder"])
    kept = list(Submission.objects.values_list("pk", flat=True))
    data = {"name": "Next League", "ruleset": "aof-club", "points_limit": 600, "deadline": "2031-06-01T18:00:00+00:00"}
    pack = event_services.pack_create(organiser=before.organiser, data=data)
    army_list = club_list(before.organiser, pack, ["wardens"], name="Late Entry")
    submission = event_services.submission_submit(pack=pack, player=before.organiser, army_list=army_list)
    assert pack.pk > before.pk and submission.pk > max(kept)


def test_a_pack_of_a_backup_from_before_the_books_rule_plays_the_current_versions(event_site):
    as_format_3(event_site["folder"])
    restore(event_site["folder"])
    assert EventPack.objects.get().books == "current"


def test_a_pack_with_a_books_rule_of_its_own_is_refused_by_name(event_site):
    damage(event_site["folder"], "event_packs.json", lambda packs: packs[0].update(books="latest"))
    refused(event_site["folder"], r'event_packs\.json, pack \d+ \(.*\): its books should be "current" or "any"')


def damage(folder: Path, name: str, change) -> list:
    """Apply `change` to the records of one file of the backup; the records."""
    path = folder / name
    records = json.loads(path.read_text())
    change(records)
    path.write_text(json.dumps(records))
    return records


def test_a_pack_whose_organiser_is_missing_is_refused_by_name(event_site):
    packs = damage(event_site["folder"], "event_packs.json", lambda packs: packs[0].update(organiser=999999))
    where = rf'event_packs\.json, pack {packs[0]["id"]} \("{packs[0]["key"]}"\)'
    refused(event_site["folder"], rf"{where}: its organiser, user 999999, is not in users\.json")


def test_a_pack_with_rules_of_the_wrong_shape_is_refused_by_name(event_site):
    damage(event_site["folder"], "event_packs.json", lambda packs: packs[0].update(bans={"club-wardens": "captain"}))
    refused(event_site["folder"], r"event_packs\.json, pack \d+ \(.*\): bans should be a list")


def test_a_damaged_submission_is_refused_by_name(event_site):
    change = lambda submissions: submissions[1]["data"].update(entries="all of them")  # noqa: E731
    number = damage(event_site["folder"], "submissions.json", change)[1]["id"]
    refused(event_site["folder"], rf"submissions\.json, submission {number}: its list is not armylist/1")


def test_a_submission_to_a_pack_not_in_the_backup_is_refused(event_site):
    damage(event_site["folder"], "submissions.json", lambda submissions: submissions[0].update(pack="gone"))
    refused(event_site["folder"], r'submissions\.json, submission \d+: its event pack "gone" is not in')


def test_a_list_built_for_a_pack_not_in_the_backup_is_refused(event_site):
    damage(event_site["folder"], "lists.json", lambda lists: lists[0].update(event="gone"))
    refused(event_site["folder"], r'lists\.json: list \d+ is built for event pack "gone"')


def test_a_pack_record_missing_a_field_is_refused_by_file_and_record(event_site):
    damage(event_site["folder"], "event_packs.json", lambda packs: packs[0].pop("deadline"))
    refused(event_site["folder"], r"event_packs\.json is corrupt: record 1 has no deadline")


# -- every version of a book, its source, and the syncs from Army Forge ---------------------------


def wardens_at(version: str, cost: int) -> dict:
    """Test Wardens of `version`, its Wardens at `cost` pts."""
    book = aof_book()
    book["version"] = version
    book["units"][1]["cost"] = cost
    return book


def priced(army_list: ArmyList) -> tuple[str, int, list[int]]:
    """The version a list is pinned to, its total and each entry's cost, as the builder shows them."""
    validation = army_list_load(army_list).validation
    return army_list.book_version, validation.total_points, [entry.cost for entry in validation.entries]


def versions_held() -> list[tuple]:
    fields = (
        "faction__slug",
        "version",
        "source",
        "armyforge_id",
        "imported_at",
        "units",
        "content_hash",
        "document",
        "armyforge_modified_at",
    )
    return list(BookVersion.objects.order_by("faction__slug", "imported_at", "id").values_list(*fields))


CORE_RULES = {
    "first": [{"name": "Thrust", "text": "Gets +1 to hit when charging."}],
    "second": [{"name": "Thrust", "text": "Gets +1 to hit and AP(+1) when charging."}],
    "skirmish": [{"name": "Bane", "text": "Ignores Regeneration."}, {"name": "Counter", "text": "Strikes first."}],
}


def core_rules_held() -> list[tuple]:
    return list(
        ArmyForgeRules.objects.order_by("ruleset__slug", "fetched_at", "id").values_list(
            "ruleset__slug", "version", "fetched_at", "rules", "content_hash"
        )
    )


@pytest.fixture
def versioned_site(db, tmp_path):
    """Test Wardens 1.0.0 (Wardens at 110 pts) then 1.1.0 (at 120), a list pinned to each,
    the same book from Army Forge kept beside it under a free slug (read at Army Forge's
    modifiedAt), a sync record, and three versions of Army Forge's core rules (two of
    aof, one of aof-skirmish); backed up into tmp_path / "versions-backup", then a fresh
    database."""
    clear_all()
    book_import(data=wardens_at("1.0.0", 110))
    keeper = User.objects.create_user("keeper", password="a-long-pass-phrase-6")
    body = {
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 500,
        "entries": [{"id": "e1", "unit": "wardens"}],
    }
    old = services.army_list_create(data=parse_list_body({**body, "name": "Old"})[0], owner=keeper)
    book_import(data=wardens_at("1.1.0", 120))
    new = services.army_list_create(data=parse_list_body({**body, "name": "New"})[0], owner=keeper)
    book_import(
        data={**wardens_at("2.0.0", 130), "armyforge_id": "af-wardens"},
        armyforge_modified_at="2026-10-02T09:15:00.000Z",
    )
    for system, version, day, rules in (
        ("aof", "2026-09-01", 1, CORE_RULES["first"]),
        ("aof", "2026-09-01+2", 2, CORE_RULES["second"]),
        ("aof-skirmish", "2026-09-01", 3, CORE_RULES["skirmish"]),
    ):
        ArmyForgeRules.objects.create(
            ruleset=Ruleset.objects.get(slug=system),
            version=version,
            fetched_at=timezone.now().replace(year=2026, month=9, day=day),
            rules=rules,
            content_hash=content_hash(rules),
        )
    ArmyForgeSync.objects.create(
        system="aof",
        armyforge_id="af-wardens",
        name="Test Wardens",
        version="2.0.0",
        outcome="new book",
        detail="",
        synced_at=timezone.now(),
    )
    before = {
        "versions": versions_held(),
        "factions": list(Faction.objects.order_by("slug").values("pk", "slug", "source", "import_slug", "version")),
        "syncs": list(ArmyForgeSync.objects.values("system", "armyforge_id", "version", "outcome", "synced_at")),
        "prices": {army_list.name: priced(army_list) for army_list in (old, new)},
        "core rules": core_rules_held(),
    }
    folder = tmp_path / "versions-backup"
    export(folder)
    fresh_database()
    return {"folder": folder, "before": before}


def test_every_version_of_a_book_comes_back_and_a_list_keeps_the_prices_of_its_own(versioned_site):
    before = versioned_site["before"]
    assert before["prices"] == {"Old": ("1.0.0", 110, [110]), "New": ("1.1.0", 120, [120])}
    restore(versioned_site["folder"])
    cache.clear()  # no compiled book from before the restore answers for the restored one
    clear_all()
    assert versions_held() == before["versions"]
    assert [row[:2] for row in versions_held()] == [
        ("test-wardens", "1.0.0"),
        ("test-wardens", "1.1.0"),
        ("test-wardens-armyforge", "2.0.0"),
    ]
    assert list(Faction.objects.order_by("slug").values("pk", "slug", "source", "import_slug", "version")) == [
        *before["factions"]
    ]
    assert [(f["slug"], f["source"], f["import_slug"]) for f in before["factions"]] == [
        ("test-wardens", "upload", ""),
        ("test-wardens-armyforge", "armyforge", "test-wardens"),
    ]
    assert (
        list(ArmyForgeSync.objects.values("system", "armyforge_id", "version", "outcome", "synced_at"))
        == (before["syncs"])
    )
    assert {army_list.name: priced(army_list) for army_list in ArmyList.objects.all()} == before["prices"]


def test_army_forges_modified_at_comes_back_with_each_version_read_from_it(versioned_site):
    restore(versioned_site["folder"])
    modified = {(row[0], row[1]): row[8] for row in versions_held()}
    assert modified == {
        ("test-wardens", "1.0.0"): "",
        ("test-wardens", "1.1.0"): "",
        ("test-wardens-armyforge", "2.0.0"): "2026-10-02T09:15:00.000Z",
    }
    assert versions_held() == versioned_site["before"]["versions"]


def test_every_version_of_army_forges_core_rules_comes_back_and_the_last_read_is_current(versioned_site):
    before = versioned_site["before"]["core rules"]
    assert [row[:2] for row in before] == [
        ("aof", "2026-09-01"),
        ("aof", "2026-09-01+2"),
        ("aof-skirmish", "2026-09-01"),
    ]
    restore(versioned_site["folder"])
    assert core_rules_held() == before
    assert armyforge_rules_find(system="aof").rules == CORE_RULES["second"]
    assert armyforge_rules_find(system="aof", version="2026-09-01").rules == CORE_RULES["first"]
    assert armyforge_rules_find(system="aof-regiments") is None


def test_the_core_rules_of_a_backup_replace_those_a_new_server_read_before_the_restore(versioned_site):
    regiments = Ruleset.objects.get(slug="aof-regiments")
    aof = Ruleset.objects.get(slug="aof")
    for ruleset in (aof, regiments):  # the new server synced once before the restore
        ArmyForgeRules.objects.create(
            ruleset=ruleset,
            version="2026-09-01",
            fetched_at=timezone.now(),
            rules=CORE_RULES["skirmish"],
            content_hash=content_hash(CORE_RULES["skirmish"]),
        )
    restore(versioned_site["folder"])
    held = [row[:2] for row in core_rules_held()]
    assert held == [
        ("aof", "2026-09-01"),
        ("aof", "2026-09-01+2"),
        ("aof-regiments", "2026-09-01"),  # of a ruleset the backup holds none of: kept
        ("aof-skirmish", "2026-09-01"),
    ]
    assert armyforge_rules_find(system="aof").rules == CORE_RULES["second"]


def test_a_site_with_every_version_restores_to_the_same_files(versioned_site, tmp_path):
    restore(versioned_site["folder"])
    second = tmp_path / "second"
    export(second)
    assert read_all(second) == read_all(versioned_site["folder"])
    files = read_all(second)
    assert files["manifest.json"]["counts"]["book versions"] == 3
    assert files["manifest.json"]["counts"]["Army Forge syncs"] == 1
    assert files["manifest.json"]["counts"]["Army Forge core rules versions"] == 3
    assert [(r["system"], r["version"], r["rules"]) for r in files["armyforge_rules.json"]] == [
        ("aof", "2026-09-01", CORE_RULES["first"]),
        ("aof", "2026-09-01+2", CORE_RULES["second"]),
        ("aof-skirmish", "2026-09-01", CORE_RULES["skirmish"]),
    ]
    assert files["versions/aof/test-wardens-armyforge.json"][0]["armyforge_modified_at"] == "2026-10-02T09:15:00.000Z"
    kept = files["versions/aof/test-wardens.json"]
    assert [(v["version"], v["units"], v["document"] is None) for v in kept] == [
        ("1.0.0", 3, False),
        ("1.1.0", 3, True),
    ]
    assert kept[0]["document"]["units"][1]["cost"] == 110


def test_the_versions_of_a_book_come_back_in_place_of_those_a_new_server_holds(versioned_site):
    """A new server that imported the same book before the restore takes the backup's versions."""
    book_import(data=wardens_at("1.1.0", 150))
    kept = Faction.objects.get(slug="test-wardens").pk
    restore(versioned_site["folder"])
    held = [(row[0], row[1], row[6]) for row in versions_held()]
    assert held == [(row[0], row[1], row[6]) for row in versioned_site["before"]["versions"]]
    assert Faction.objects.get(slug="test-wardens").pk == kept


def test_a_book_whose_current_version_has_no_row_is_named_and_no_backup_is_written(wardens, tmp_path):
    """A book's content is its versions' documents: a book that lost its current one (which
    no writer leaves) cannot be backed up whole, and the backup says which it is rather
    than leave it out."""
    BookVersion.objects.filter(faction=wardens).delete()
    with pytest.raises(CommandError, match=r"^Test Wardens \(aof\) keeps no version 1.0.0, its current one$"):
        export(tmp_path / "b")
    assert not (tmp_path / "b" / "manifest.json").exists()


def as_format_5(folder: Path, *, format: str = "armybuilder-backup/5") -> None:
    """The backup as armybuilder-backup/5 wrote it: no core rules from Army Forge, and no
    modifiedAt of the versions read from it."""
    (folder / "armyforge_rules.json").unlink()
    for path in (folder / "versions").glob("*/*.json"):
        damage(folder, str(path.relative_to(folder)), lambda records: [r.pop("armyforge_modified_at") for r in records])
    manifest = json.loads((folder / "manifest.json").read_text())
    counts = {k: n for k, n in manifest["counts"].items() if k != "Army Forge core rules versions"}
    (folder / "manifest.json").write_text(json.dumps({"format": format, "counts": counts}))


def test_a_backup_of_the_fifth_format_restores_without_core_rules_and_with_versions_read_before_the_site_kept_it(
    versioned_site,
):
    as_format_5(versioned_site["folder"])
    assert "0 Army Forge core rules versions" in restore(versioned_site["folder"])
    assert not ArmyForgeRules.objects.exists()
    before = versioned_site["before"]["versions"]
    assert versions_held() == [(*row[:8], "") for row in before]


def as_format_4(folder: Path, *, format: str = "armybuilder-backup/4") -> None:
    """The backup as armybuilder-backup/4 wrote it: as /5, and no display names."""
    as_format_5(folder, format=format)
    damage(folder, "users.json", lambda records: [record.pop("display_name") for record in records])


def as_format_3(folder: Path) -> None:
    """The backup as armybuilder-backup/3 wrote it: one version of each book (its file),
    no sources, Army Forge syncs or books rule of the packs, nor display names."""
    import shutil

    as_format_4(folder, format="armybuilder-backup/3")
    shutil.rmtree(folder / "versions")
    (folder / "armyforge_syncs.json").unlink()
    drop = {"factions.json": ("source", "import_slug"), "event_packs.json": ("books",)}
    for name, keys in drop.items():
        damage(folder, name, lambda records, keys=keys: [record.pop(key) for record in records for key in keys])
    manifest = json.loads((folder / "manifest.json").read_text())
    counts = {k: n for k, n in manifest["counts"].items() if k not in ("book versions", "Army Forge syncs")}
    (folder / "manifest.json").write_text(json.dumps({"format": "armybuilder-backup/3", "counts": counts}))


def test_a_backup_of_the_third_format_restores_each_book_with_its_current_version(versioned_site):
    as_format_3(versioned_site["folder"])
    assert "Restored 5 rulesets, 2 army books, 2 book versions, 0 Army Forge syncs, " in restore(
        versioned_site["folder"]
    )
    rows = {(row[0], row[1]): row for row in versions_held()}
    assert sorted(rows) == [("test-wardens", "1.1.0"), ("test-wardens-armyforge", "2.0.0")]
    # Its source as migration factions/0009 tells it: Army Forge for a book with an Army Forge id.
    assert rows["test-wardens", "1.1.0"][2:4] == ("upload", "")
    assert rows["test-wardens-armyforge", "2.0.0"][2:4] == ("armyforge", "af-wardens")
    faction = Faction.objects.get(slug="test-wardens")
    assert rows["test-wardens", "1.1.0"][4] == faction.imported_at
    assert (faction.source, faction.content_hash) == ("upload", rows["test-wardens", "1.1.0"][6])
    # A list pinned to a version no longer held is read against the current one.
    assert priced(ArmyList.objects.get(name="Old")) == ("1.0.0", 120, [120])


def test_a_bundled_book_of_a_backup_of_the_third_format_is_bundled(backup):
    as_format_3(backup["folder"])
    restore(backup["folder"])
    assert set(Faction.objects.values_list("source", flat=True)) == {"bundled"}
    assert BookVersion.objects.count() == Faction.objects.count() == len(bundled_book_paths())


def drop_current(versions: list) -> None:
    versions.pop()


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda versions: versions[0]["document"]["units"][1].update(cost=90),
            r"version 1: its document is not the one its content_hash was made from",
        ),
        (lambda versions: versions[0].update(source="forge"), r"version 1: its source should be one of bundled, "),
        (lambda versions: versions[1].update(imported_at="yesterday"), r"version 2: its imported_at should be a date"),
        (lambda versions: versions[0].update(units=-1), r"version 1: its units should be a whole number"),
        (lambda versions: versions[0].update(units=9), r"version 1: its units say 9, its document holds 3"),
        (lambda versions: versions[0].update(document=[]), r"version 1: its document should be an armybook/1 book"),
        (lambda versions: versions.append(versions[0]), r'version "1\.0\.0" is there 2 times'),
        (lambda versions: versions[0].pop("content_hash"), r"is corrupt: record 1 has no content_hash"),
        (
            lambda versions: versions[0].update(armyforge_modified_at=["2026"]),
            r"version 1: its armyforge_modified_at should be text of at most 40 characters",
        ),
        (lambda versions: versions[0].pop("armyforge_modified_at"), r"record 1 has no armyforge_modified_at"),
        (
            lambda versions: versions[0].update(source="forge", units="3"),
            r"version 1: its source should be one of .*; version 1: its units should be",
        ),
    ],
)
def test_a_damaged_versions_file_is_refused_naming_what_is_wrong(versioned_site, change, words):
    folder = versioned_site["folder"]
    versions = damage(folder, "versions/aof/test-wardens.json", change)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["counts"]["book versions"] = len(versions) + 1  # (the Army Forge book's one)
    (folder / "manifest.json").write_text(json.dumps(manifest))
    refused(folder, r"versions/aof/test-wardens\.json .*" + words)


def test_a_book_whose_current_version_is_not_among_its_versions_is_refused(versioned_site):
    folder = versioned_site["folder"]
    damage(folder, "versions/aof/test-wardens.json", lambda versions: versions[1].update(version="1.2.0"))
    refused(
        folder, r'test-wardens\.json: the book\'s current version "1\.1\.0" \(books/aof/test-wardens\.json\) is not'
    )


def test_a_current_version_with_a_document_of_its_own_is_refused(versioned_site):
    """Even one that is what its stamp says: the book's own file is the current version."""

    def give_a_document(versions: list) -> None:
        document = {**versions[0]["document"], "version": "1.1.0"}
        versions[1].update(document=document, content_hash=content_hash(document))

    damage(versioned_site["folder"], "versions/aof/test-wardens.json", give_a_document)
    refused(versioned_site["folder"], r'test-wardens\.json: its current version "1\.1\.0" has a document')


def test_a_book_without_its_versions_file_is_refused(versioned_site):
    (versioned_site["folder"] / "versions" / "aof" / "test-wardens.json").unlink()
    refused(versioned_site["folder"], r"is incomplete: its manifest counts 3 book versions but holds 1")


def test_a_sync_record_twice_is_refused(versioned_site):
    damage(versioned_site["folder"], "armyforge_syncs.json", lambda syncs: syncs.append(syncs[0]))
    manifest = json.loads((versioned_site["folder"] / "manifest.json").read_text())
    manifest["counts"]["Army Forge syncs"] = 2
    (versioned_site["folder"] / "manifest.json").write_text(json.dumps(manifest))
    refused(versioned_site["folder"], r'armyforge_syncs\.json: Army Forge book "af-wardens" of aof is there 2 times')


def first_rules_text(text):
    """A change to a core rules file: the first version's first rule says `text`."""
    return lambda records: records[0]["rules"][0].update(text=text)


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (first_rules_text("Gets +2 to hit."), r"version 1: its rules are not the ones its content_hash was made from"),
        (lambda records: records[0].update(system="opf"), r"version 1: its system should be one of aof, aof-skirmish"),
        (lambda records: records[2].update(version=""), r"version 3: its version should be a name of 1 to 48"),
        (lambda records: records[1].update(fetched_at="soon"), r"version 2: its fetched_at should be a date and time"),
        (
            lambda records: records[0].update(rules={"Thrust": "…"}),
            r"version 1: its rules should be a list of 1 to 500",
        ),
        (first_rules_text("x" * 2001), r"version 1: rule 1: its text should be a text of 1 to 2000 characters"),
        (lambda records: records[1].update(version="2026-09-01"), r'version "2026-09-01" of aof is there 2 times'),
        (lambda records: records[0].pop("rules"), r"armyforge_rules\.json is corrupt: record 1 has no rules"),
        (
            lambda records: records[0].update(system="aof-club", fetched_at=None),
            r"version 1: its system should be .*; version 1: its fetched_at should be",
        ),
    ],
    ids=["changed", "system", "version", "fetched-at", "not-a-list", "too-long", "twice", "missing", "every-problem"],
)
def test_a_damaged_core_rules_file_is_refused_naming_what_is_wrong(versioned_site, change, words):
    damage(versioned_site["folder"], "armyforge_rules.json", change)
    refused(versioned_site["folder"], words)


# -- bad input changes nothing and says what is wrong ---------------------------------------------


def refused(folder: Path, match: str) -> None:
    before = database_state()
    with pytest.raises(CommandError, match=match):
        restore(folder)
    assert database_state() == before


def test_a_folder_that_is_not_a_backup_is_refused(db, tmp_path):
    refused(tmp_path, r"is not a readable backup: it has no manifest\.json")
    refused(tmp_path / "missing", r"is not a readable backup: no such folder")


def test_a_backup_of_an_unknown_format_is_refused(backup):
    (backup["folder"] / "manifest.json").write_text(json.dumps({"format": "armybuilder-backup/9", "counts": {}}))
    refused(
        backup["folder"],
        r'format "armybuilder-backup/9"; it reads armybuilder-backup/6, armybuilder-backup/5, armybuilder-backup/4, '
        r"armybuilder-backup/3, armybuilder-backup/2 and armybuilder-backup/1",
    )


def test_a_corrupt_file_is_refused_by_name(backup):
    path = backup["folder"] / "lists.json"
    path.write_text(path.read_text()[:-40])
    refused(backup["folder"], r"lists\.json is corrupt")


def test_a_record_with_a_missing_field_is_refused_by_name(backup):
    path = backup["folder"] / "sessions.json"
    sessions = json.loads(path.read_text())
    del sessions[1]["expire_date"]
    path.write_text(json.dumps(sessions))
    refused(backup["folder"], r"sessions\.json is corrupt: record 2 has no expire_date")


def test_a_backup_missing_a_book_file_is_refused(backup):
    (backup["folder"] / "books" / "opf" / "free-cities.json").unlink()
    refused(backup["folder"], r"is incomplete: its manifest counts \d+ books but holds \d+")


def test_a_book_that_does_not_import_is_refused_and_no_book_is_kept(backup):
    path = backup["folder"] / "books" / "opf" / "free-cities.json"
    book = json.loads(path.read_text())
    book["units"][0]["type"] = "dragon"
    path.write_text(json.dumps(book))
    refused(backup["folder"], r"free-cities\.json does not import: units\[0\]")
    assert not Faction.objects.exists()


def test_a_list_whose_owner_is_missing_is_refused(backup):
    path = backup["folder"] / "lists.json"
    lists = json.loads(path.read_text())
    lists[0]["owner"] = 999999
    path.write_text(json.dumps(lists))
    refused(backup["folder"], r"belongs to user 999999, not in users\.json")


def test_what_the_database_refuses_changes_nothing(backup):
    path = backup["folder"] / "lists.json"
    lists = json.loads(path.read_text())
    lists[1]["share_key"] = lists[0]["share_key"]
    path.write_text(json.dumps(lists))
    refused(backup["folder"], r"does not restore: the database refused it")


def test_a_database_that_has_lists_is_refused(backup, user):
    ArmyList.objects.create(owner=user, system="aof", faction="x", book_version="1")
    refused(backup["folder"], "This database already has lists")


def test_a_database_that_has_users_is_refused(backup, user):
    refused(backup["folder"], "This database already has users")


def test_export_refuses_a_folder_that_is_not_empty(db, tmp_path):
    (tmp_path / "old.json").write_text("{}")
    with pytest.raises(CommandError, match="is not an empty folder"):
        export(tmp_path)


# -- a book the importer accepted always exports and restores -----------------------------------

BUNDLED = bundled_book_paths()
ARMYFORGE_BOOKS = sorted(p.name for p in ARMYFORGE.glob("*--*.json")) or ["(no books in ../shared/armyforge)"]


def round_trip(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    export(first)
    fresh_database()
    restore(first)
    export(second)
    assert read_all(second) == read_all(first)


@pytest.mark.django_db
@pytest.mark.parametrize("path", BUNDLED, ids=[f"{p.parent.name}/{p.stem}" for p in BUNDLED])
def test_every_bundled_book_restores_as_it_was(path, tmp_path):
    clear_all()
    book_import(data=path.read_bytes())
    round_trip(tmp_path)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ARMYFORGE_BOOKS)
def test_every_army_forge_book_restores_as_it_was(name, tmp_path):
    clear_all()
    path = require_shared(ARMYFORGE / name)
    result = book_import(data=path.read_bytes(), system=name.split("--", 1)[0])
    assert result.faction.import_warnings == [str(w) for w in result.warnings]
    round_trip(tmp_path)


# -- a tampered backup is refused by record, as the live paths would refuse it -----------------------
@pytest.mark.parametrize(
    ("name", "change", "match"),
    [
        (
            "lists.json",
            lambda records: records[0].update(entries=[{"id": "e1", "unit": "wardens", "options": {"x": -1}}]),
            r"lists\.json, list \d+: it is not armylist/1 \(",
        ),
        (
            "lists.json",
            lambda records: records[0].update(points_limit="lots"),
            r"lists\.json, list \d+: it is not armylist/1 \(A valid integer is required\.\)",
        ),
        ("lists.json", lambda records: records[0].update(version="2"), r"lists\.json, list \d+: its version should be"),
        (
            "event_packs.json",
            lambda records: records[0].update(caps=[{"faction": "club-wardens", "unit": "wardens", "max": "one"}]),
            r"event_packs\.json, pack \d+ \(.*\): ",
        ),
        (
            "event_packs.json",
            lambda records: records[0].update(points_limit=-5),
            r"event_packs\.json, pack \d+ \(.*\): ",
        ),
        (
            "users.json",
            lambda records: records[0].update(is_superuser="yes"),
            r"users\.json, user \d+: is_superuser should be",
        ),
        (
            "users.json",
            lambda records: records[0].update(username=["x"]),
            r"users\.json, user \d+: its username should be",
        ),
    ],
    ids=["list-entries", "list-points", "list-version", "pack-caps", "pack-points", "user-superuser", "user-name"],
)
def test_a_tampered_record_is_refused_by_its_path_and_nothing_restored(event_site, name, change, match):
    damage(event_site["folder"], name, change)
    refused(event_site["folder"], match)


def test_a_backup_is_readable_by_its_owner_only(event_site):
    folder = event_site["folder"]
    assert folder.stat().st_mode & 0o777 == 0o700
    files = [path for path in folder.rglob("*") if path.is_file()]
    assert files and {path.stat().st_mode & 0o777 for path in files} == {0o600}
    assert {path.stat().st_mode & 0o777 for path in folder.rglob("*") if path.is_dir()} <= {0o700}


def test_a_book_is_backed_up_as_its_versions_documents_and_comes_back_the_same(wardens, tmp_path):
    """The backup carries each version's document as kept (the current one in the book's
    file), and the restore keeps them as they were: an edit made in the admin included."""
    edit_book("test-wardens", lambda book: book["units"][0].update(cost=book["units"][0]["cost"] + 5))
    kept = {v.version: (v.content_hash, v.document) for v in BookVersion.objects.filter(faction=wardens)}
    export(tmp_path / "b")
    current = json.loads((tmp_path / "b" / "books" / "aof" / "test-wardens.json").read_text())
    assert current == kept["1.0.0+admin.1"][1]
    versions = json.loads((tmp_path / "b" / "versions" / "aof" / "test-wardens.json").read_text())
    assert [(v["version"], v["document"]) for v in versions] == [("1.0.0", kept["1.0.0"][1]), ("1.0.0+admin.1", None)]
    fresh_database()
    restore(tmp_path / "b")
    restored = Faction.objects.get(slug="test-wardens")
    assert {v.version: (v.content_hash, v.document) for v in restored.versions.all()} == kept
    assert restored.content_hash == kept["1.0.0+admin.1"][0]


# -- tampered backups (issue 37) -----------------------------------------------------------------
def test_two_books_with_one_id_are_refused_naming_the_file_and_records(backup):
    rows = damage(backup["folder"], "factions.json", lambda rows: rows[1].update(id=rows[0]["id"]))
    refused(backup["folder"], rf"factions\.json is corrupt: records 1 and 2 have the same id \({rows[0]['id']}\)")


def test_two_lists_with_one_id_are_refused(backup):
    damage(backup["folder"], "lists.json", lambda lists: lists.append(dict(lists[0])))
    refused(backup["folder"], r"lists\.json is corrupt: records 1 and \d+ have the same id")


def test_a_file_nested_past_any_backup_is_refused_naming_it(backup):
    (backup["folder"] / "lists.json").write_text("[" * 100_000 + "]" * 100_000)
    refused(backup["folder"], r"lists\.json is corrupt: it is nested deeper than any backup is")
