"""Every version of a book is kept, each with its source; a book never takes a version
from a book of another source; lists stay pinned to the version they were built on
(shared/spec/book-versions.md); moving one on keeps the options a version regrouped
under new ids. Real data: the official Army Forge books at 3.5.1, 3.5.2 and 3.5.3 in
../shared/armyforge/."""

import copy
import json

import pytest
from django.core.management import call_command

from armybuilder.armyforge.books.convert import armybook_from_armyforge
from armybuilder.armyforge.books.imports import book_import
from armybuilder.engine import book_from_dict
from armybuilder.engine.versions import carry_entries
from armybuilder.lists.models import ArmyList
from factions.models import BookVersion, Faction
from factions.selectors import ruleset_infos
from factions.services import BOOKS_DIR, bundled_books_load
from tests.conftest import SHARED, require_shared
from tests.support.concurrency import at_once

ARMYFORGE = SHARED / "armyforge"


def armyforge_book(name: str, version: str = "3.5.2") -> dict:
    folder = ARMYFORGE if version == "3.5.2" else ARMYFORGE / version
    return json.loads(require_shared(folder / name).read_text())


def import_armyforge(name: str, version: str = "3.5.2"):
    return book_import(data=armyforge_book(name, version), system=name.split("--")[0])


def versions_of(faction: Faction) -> list[str]:
    return list(faction.versions.order_by("imported_at", "id").values_list("version", flat=True))


pytestmark = pytest.mark.usefixtures("fresh_engine_cache")


# -- every version kept ------------------------------------------------------------------
@pytest.mark.django_db
def test_a_newer_army_forge_book_is_kept_as_a_new_version_beside_the_old_one():
    first = import_armyforge("aof--wood-elves.json", "3.5.1")
    second = import_armyforge("aof--wood-elves.json")
    assert (first.status, second.status) == ("new book", "new version")
    assert second.faction.pk == first.faction.pk and second.replaced_version == "3.5.1"
    faction = Faction.objects.get(pk=first.faction.pk)
    assert faction.version == "3.5.2" and versions_of(faction) == ["3.5.1", "3.5.2"]
    rows = {v.version: v for v in faction.versions.all()}
    uid = armyforge_book("aof--wood-elves.json")["uid"]
    assert {(v.source, v.armyforge_id) for v in rows.values()} == {("armyforge", uid)}
    older = rows["3.5.1"].document
    beetle = next(u for u in older["units"] if u["name"] == "Giant Beetle")
    assert (older["version"], beetle["cost"]) == ("3.5.1", 225)


@pytest.mark.django_db
def test_the_same_version_with_the_same_content_imports_as_unchanged_and_writes_nothing():
    import_armyforge("aof--ratmen.json")
    faction = Faction.objects.get(slug="ratmen")
    before = (faction.content_hash, list(BookVersion.objects.values_list("pk", "content_hash", "imported_at")))
    again = import_armyforge("aof--ratmen.json")
    assert (again.status, again.version, again.replaced_version) == ("unchanged", "3.5.2", None)
    faction.refresh_from_db()
    assert (faction.content_hash, list(BookVersion.objects.values_list("pk", "content_hash", "imported_at"))) == before
    assert "nothing changed" in again.describe()


@pytest.mark.django_db
def test_the_same_version_name_with_other_content_becomes_plus_two_then_plus_three(make_aof_book):
    book_import(data=make_aof_book())
    cheaper = make_aof_book()
    cheaper["units"][0]["cost"] = 65
    assert book_import(data=cheaper).version == "1.0.0+2"
    dearer = make_aof_book()
    dearer["units"][0]["cost"] = 75
    assert book_import(data=dearer).version == "1.0.0+3"
    # The +2 content again is held: unchanged, and the current version stays +3.
    repeat = book_import(data=copy.deepcopy(cheaper))
    assert (repeat.status, repeat.version) == ("unchanged", "1.0.0+2")
    faction = Faction.objects.get(slug="test-wardens")
    assert faction.version == "1.0.0+3"
    assert versions_of(faction) == ["1.0.0", "1.0.0+2", "1.0.0+3"]


@pytest.mark.django_db
def test_a_dry_run_import_keeps_no_version(make_aof_book):
    book_import(data=make_aof_book())
    newer = {**make_aof_book(), "version": "1.1.0"}
    result = book_import(data=newer, dry_run=True)
    assert (result.status, result.dry_run) == ("new version", True)
    assert result.describe().startswith("Would have made a new version 1.1.0")
    assert versions_of(Faction.objects.get(slug="test-wardens")) == ["1.0.0"]


# -- namesakes -----------------------------------------------------------------------------
def army_forge_human_empire() -> dict:
    """An Army Forge book named as the bundled Human Empire (the Wood Elves' content)."""
    book = armyforge_book("aof--wood-elves.json")
    book["name"] = "Human Empire"
    return book


@pytest.mark.django_db
def test_an_army_forge_namesake_is_kept_beside_the_bundled_book_and_both_keep_their_lists(user):
    bundled_books_load()
    bundled = Faction.objects.get(ruleset__slug="aof", slug="human-empire")
    body = json.loads((BOOKS_DIR.parent / "lists" / "aof" / "human-empire-750.json").read_text())
    assert body["faction"] == "human-empire"
    from armybuilder.lists import selectors, services
    from armybuilder.lists.format import parse_list_body

    data, _handle = parse_list_body(body)
    army_list = services.army_list_create(data=data, owner=user)
    points = selectors.army_list_load(army_list).validation.total_points
    assert points > 0

    result = book_import(data=army_forge_human_empire(), system="aof")
    assert (result.status, result.faction.slug) == ("new book", "human-empire-armyforge")
    warning = next(str(w) for w in result.warnings if w.path == "slug")
    assert "aof/human-empire" in warning and "aof/human-empire-armyforge" in warning
    assert "bundled" in warning and "Army Forge" in warning
    bundled.refresh_from_db()
    assert (bundled.source, bundled.name, bundled.pk) == ("bundled", "Human Empire", bundled.pk)
    assert selectors.army_list_load(ArmyList.objects.get(pk=army_list.pk)).validation.total_points == points

    # Its next version finds it again by its Army Forge id; bootstrap leaves it alone.
    newer = army_forge_human_empire()
    newer["versionString"] = "3.5.3"
    assert book_import(data=newer, system="aof").faction.slug == "human-empire-armyforge"
    call_command("bootstrap", verbosity=0)
    assert sorted(Faction.objects.filter(name="Human Empire").values_list("slug", "source", "version")) == [
        ("human-empire", "bundled", bundled.version),
        ("human-empire-armyforge", "armyforge", "3.5.3"),
    ]


@pytest.mark.django_db
def test_bootstrap_keeps_the_bundled_book_beside_an_upload_that_took_its_slug():
    upload = json.loads((BOOKS_DIR / "aof" / "orc-hordes.json").read_text())
    upload["name"] = "Orc Hordes (club edit)"
    book_import(data=upload)  # an upload: no Army Forge id
    bundled_books_load()
    rows = sorted(Faction.objects.filter(slug__startswith="orc-hordes").values_list("slug", "source", "name"))
    assert rows == [
        ("orc-hordes", "upload", "Orc Hordes (club edit)"),
        ("orc-hordes-bundled", "bundled", "Orc Hordes"),
    ]
    assert bundled_books_load() == []  # found again by the slug it came with


# -- lists pinned ------------------------------------------------------------------------------
def saved_list(client, faction: str, points: int, entries: list[dict]) -> dict:
    body = {"name": faction, "system": "aof", "faction": faction, "points_limit": points, "entries": entries}
    response = client.post("/api/lists/", body, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def beetle_list(client) -> dict:
    return saved_list(client, "wood-elves", 2000, [{"id": "e1", "unit": beetle_id()}])


def beetle_id() -> str:
    return next(u["id"] for u in armyforge_book("aof--wood-elves.json")["units"] if u["name"] == "Giant Beetle")


@pytest.mark.django_db
def test_a_list_keeps_the_prices_of_its_version_when_a_new_one_arrives(user_client):
    import_armyforge("aof--wood-elves.json", "3.5.1")
    made = beetle_list(user_client)
    assert (made["book_version"], made["book_latest"], made["book_changed"]) == ("3.5.1", "3.5.1", False)
    assert made["validation"]["total_points"] == 225

    import_armyforge("aof--wood-elves.json")
    again = user_client.get(f"/api/lists/{made['id']}/").json()
    assert (again["book_version"], again["book_latest"], again["book_changed"]) == ("3.5.1", "3.5.2", True)
    assert again["validation"]["total_points"] == 225
    listed = user_client.get("/api/lists/").json()["results"][0]
    assert (listed["book_version"], listed["book_latest"], listed["validation"]["total_points"]) == (
        "3.5.1",
        "3.5.2",
        225,
    )
    # An edit keeps the pin.
    body = {k: again[k] for k in ("name", "system", "faction", "points_limit", "entries")}
    body["version"] = again["version"]
    body["entries"] = [*body["entries"], {"id": "e2", "unit": beetle_id()}]
    edited = user_client.put(f"/api/lists/{made['id']}/", body, format="json").json()
    assert (edited["book_version"], edited["validation"]["total_points"]) == ("3.5.1", 450)
    shared = user_client.get(edited["share_url"].replace("/s/", "/api/shared/")).json()
    assert (shared["book_version"], shared["validation"]["total_points"]) == ("3.5.1", 450)
    exported = user_client.get(f"/api/lists/{made['id']}/export/json").json()
    assert exported["book_version"] == "3.5.1"


@pytest.mark.django_db
def test_validate_honours_book_version_and_refuses_one_not_held(api_client):
    import_armyforge("aof--wood-elves.json", "3.5.1")
    import_armyforge("aof--wood-elves.json")
    body = {
        "system": "aof",
        "faction": "wood-elves",
        "points_limit": 2000,
        "entries": [{"id": "e", "unit": beetle_id()}],
    }
    assert api_client.post("/api/validate/", body, format="json").json()["total_points"] == 230
    old = api_client.post("/api/validate/", {**body, "book_version": "3.5.1"}, format="json")
    assert old.json()["total_points"] == 225
    missing = api_client.post("/api/validate/", {**body, "book_version": "3.4.0"}, format="json")
    assert missing.status_code == 400
    assert list(missing.json()) == ["book_version"]
    assert "3.5.1, 3.5.2" in missing.json()["book_version"][0]


@pytest.mark.django_db
def test_a_list_file_names_its_version_and_is_pinned_to_it(user_client):
    import_armyforge("aof--wood-elves.json", "3.5.1")
    import_armyforge("aof--wood-elves.json")
    body = {
        "format": "armylist/1",
        "system": "aof",
        "faction": "wood-elves",
        "book_version": "3.5.1",
        "points_limit": 2000,
        "entries": [{"id": "e", "unit": beetle_id()}],
    }
    made = user_client.post("/api/lists/import/", body, format="json").json()
    assert (made["book_version"], made["validation"]["total_points"]) == ("3.5.1", 225)


# -- the versions over the API -------------------------------------------------------------------
@pytest.mark.django_db
def test_the_api_lists_a_books_versions_and_serves_each(api_client):
    import_armyforge("aof--wood-elves.json", "3.5.1")
    import_armyforge("aof--wood-elves.json")
    uid = armyforge_book("aof--wood-elves.json")["uid"]
    listed = api_client.get("/api/factions/", {"system": "aof"}).json()
    assert [{k: f[k] for k in ("slug", "version", "versions", "source", "armyforge_id")} for f in listed] == [
        {"slug": "wood-elves", "version": "3.5.2", "versions": 2, "source": "armyforge", "armyforge_id": uid}
    ]
    versions = api_client.get("/api/factions/aof/wood-elves/versions/").json()
    assert [(v["version"], v["current"], v["source"], v["units"]) for v in versions] == [
        ("3.5.2", True, "armyforge", 28),
        ("3.5.1", False, "armyforge", 28),
    ]
    older = api_client.get("/api/factions/aof/wood-elves/versions/3.5.1/").json()
    assert (older["format"], older["version"]) == ("armybook/1", "3.5.1")
    current = api_client.get("/api/factions/aof/wood-elves/versions/3.5.2/").json()
    assert current == api_client.get("/api/factions/aof/wood-elves/").json()
    assert api_client.get("/api/factions/aof/wood-elves/versions/9.9.9/").status_code == 404
    assert api_client.get("/api/factions/aof/nobody/versions/").status_code == 404


@pytest.mark.django_db
def test_changes_name_the_parameter_of_a_version_not_held(api_client):
    import_armyforge("aof--wood-elves.json", "3.5.1")
    import_armyforge("aof--wood-elves.json")
    url = "/api/factions/aof/wood-elves/changes/"
    assert list(api_client.get(url).json()) == ["from"]
    assert list(api_client.get(url, {"from": "1.0"}).json()) == ["from"]
    assert list(api_client.get(url, {"from": "3.5.1", "to": "4.0"}).json()) == ["to"]
    changes = api_client.get(url, {"from": "3.5.1"}).json()
    assert (changes["from"], changes["to"]) == ("3.5.1", "3.5.2")
    costs = {u["name"]: u["changes"]["cost"] for u in changes["units"]["changed"] if "cost" in u["changes"]}
    assert costs == {"Giant Beetle": [225, 230], "Forest Ancient": [750, 755]}


# -- moving a list on ------------------------------------------------------------------------------
BATTLE_MASTER, CHAMPION, DEATH_ROLLER, WEAPON_TEAMS = "bl380Vc", "IDU9HOb", "nlL4SRE", "wXtqtYK"


def battle_master_list(client) -> dict:
    """A Ratmen list on 3.5.1 whose Battle Master takes an Assassin, an option 3.5.2 has no more."""
    return saved_list(client, "ratmen", 1000, [{"id": "boss", "unit": BATTLE_MASTER, "options": {"31nsoKzC": 1}}])


@pytest.mark.django_db
def test_upgrade_dry_run_reports_dropped_options_and_changes_nothing(user_client):
    import_armyforge("aof--ratmen.json", "3.5.1")
    made = battle_master_list(user_client)
    import_armyforge("aof--ratmen.json")
    url = f"/api/lists/{made['id']}/upgrade/"
    dry = user_client.post(url, {"dry_run": True}, format="json")
    assert dry.status_code == 200, dry.content
    report = dry.json()["report"]
    before = made["validation"]["total_points"]
    assert (report["from"], report["to"], report["total_points"]) == ("3.5.1", "3.5.2", [before, before - 15])
    [entry] = report["entries"]
    assert (entry["id"], entry["unit"], entry["cost"], entry["removed"]) == (
        "boss",
        "Battle Master",
        [before, before - 15],
        False,
    )
    assert entry["dropped"] == [
        {
            "option": "31nsoKzC",
            "label": "Assassin (Takedown Strike)",
            "reason": "Ratmen 3.5.2 has no Assassin (Takedown Strike) any more",
        }
    ]
    assert entry["moved"] == []
    unchanged = user_client.get(f"/api/lists/{made['id']}/").json()
    assert (unchanged["version"], unchanged["book_version"], unchanged["entries"]) == (
        made["version"],
        "3.5.1",
        made["entries"],
    )

    moved = user_client.post(url, {"version": made["version"]}, format="json")
    assert moved.status_code == 200, moved.content
    assert moved.json()["report"] == report
    after = moved.json()["list"]
    assert (after["book_version"], after["book_changed"], after["version"]) == ("3.5.2", False, made["version"] + 1)
    assert after["entries"][0]["options"] == {}
    assert after["validation"]["total_points"] == before - 15

    # A stale version is a 409 and moves nothing; going back to 3.5.1 works the same way.
    stale = user_client.post(url, {"book_version": "3.5.1", "version": made["version"]}, format="json")
    assert (stale.status_code, stale.json()["version"]) == (409, after["version"])
    back = user_client.post(url, {"book_version": "3.5.1"}, format="json").json()
    assert (back["list"]["book_version"], back["report"]["from"], back["report"]["to"]) == ("3.5.1", "3.5.2", "3.5.1")


def move(client, made: dict, **body) -> dict:
    response = client.post(f"/api/lists/{made['id']}/upgrade/", body, format="json")
    assert response.status_code == 200, response.content
    return response.json()


@pytest.mark.django_db
def test_scout_master_which_3_5_2_gave_a_new_id_is_kept_at_its_price(user_client):
    import_armyforge("aof--ratmen.json", "3.5.1")
    made = saved_list(
        user_client, "ratmen", 1000, [{"id": "boss", "unit": BATTLE_MASTER, "options": {"cByHKhW62Q": 1}}]
    )
    import_armyforge("aof--ratmen.json")
    moved = move(user_client, made)
    [entry] = moved["report"]["entries"]
    assert (entry["cost"], entry["dropped"]) == ([60, 60], [])
    assert entry["moved"] == [
        {
            "option": "cByHKhW62Q",
            "to": "tYrIhbQKOm",
            "label": "Scout Master (Scout, Stealth, Strider)",
            "to_label": "Scout Master (Scout, Stealth, Strider)",
            "section": ["Upgrade with one", "Upgrade with one"],
            "cost": [15, 15],
            "picks": [1, 1],
        }
    ]
    assert moved["list"]["entries"][0]["options"] == {"tYrIhbQKOm": 1}
    assert moved["list"]["validation"]["total_points"] == 60


def ratmen_3_5_2_list(client, points: int = 2000, more: tuple[str, ...] = ()) -> dict:
    """A Ratmen 3.5.2 list of options 3.5.3 regrouped under new ids (the Pet Giant Rats moved
    from "Upgrade with" to another section; the Great Death Roller's Spotter Rat), and a
    Spotter Rat 3.5.3 took away from the Weapon Teams."""
    import_armyforge("aof--ratmen.json")
    entries = [
        {"id": "boss", "unit": BATTLE_MASTER, "options": {"fNwHbYSW": 1}},
        {"id": "champion", "unit": CHAMPION, "options": {"gXK-r3-Tei": 1}},
        {"id": "roller", "unit": DEATH_ROLLER, "options": {"oFtD5yoJ": 1}},
        {"id": "team", "unit": WEAPON_TEAMS, "options": {"KYZ4pSrM": 1}},
        *({"id": f"more-{i}", "unit": unit} for i, unit in enumerate(more)),
    ]
    made = saved_list(client, "ratmen", points, entries)
    import_armyforge("aof--ratmen.json", "3.5.3")
    return made


def pet_rat(old: str, new: str, section: str, cost: list[int]) -> dict:
    label = "Pet Giant Rat (Repel Ambushers)"
    return {
        "option": old,
        "to": new,
        "label": label,
        "to_label": label,
        "section": ["Upgrade with", section],
        "cost": cost,
        "picks": [1, 1],
    }


@pytest.mark.django_db
def test_ratmen_options_3_5_3_regrouped_are_kept_and_only_what_it_lacks_is_dropped(user_client):
    made = ratmen_3_5_2_list(user_client)
    moved = move(user_client, made)
    entries = {entry["id"]: entry for entry in moved["report"]["entries"]}
    assert entries["boss"]["moved"] == [pet_rat("fNwHbYSW", "LGVrWIluWC", "Upgrade with one", [10, 15])]
    assert entries["champion"]["moved"] == [pet_rat("gXK-r3-Tei", "GUIVHSIk", "Upgrade with", [10, 15])]
    assert [(m["option"], m["to"], m["cost"]) for m in entries["roller"]["moved"]] == [
        ("oFtD5yoJ", "tcODNdiG", [40, 35])
    ]
    assert [entry["dropped"] for entry in entries.values()] == [
        [],
        [],
        [],
        [
            {
                "option": "KYZ4pSrM",
                "label": "Spotter Rat (Defense Debuff)",
                "reason": "Weapon Teams can no longer take Spotter Rat (Defense Debuff) in 3.5.3",
            }
        ],
    ]
    assert entries["team"]["moved"] == []
    assert {entry["id"]: entry["options"] for entry in moved["list"]["entries"]} == {
        "boss": {"LGVrWIluWC": 1},
        "champion": {"GUIVHSIk": 1},
        "roller": {"tcODNdiG": 1},
        "team": {},
    }
    assert [entries[e]["cost"] for e in ("boss", "champion", "roller")] == [[55, 65], [35, 40], [175, 175]]


@pytest.mark.django_db
def test_a_regrouped_option_with_no_room_beside_one_kept_is_dropped_saying_why(user_client):
    """3.5.3 put the Battle Master's Pet Giant Rat into the "Upgrade with one" that holds
    its Scout Master: one pick, taken by the Scout Master, which keeps its id."""
    import_armyforge("aof--ratmen.json")
    options = {"tYrIhbQKOm": 1, "fNwHbYSW": 1}
    made = saved_list(user_client, "ratmen", 2000, [{"id": "boss", "unit": BATTLE_MASTER, "options": options}])
    import_armyforge("aof--ratmen.json", "3.5.3")
    moved = move(user_client, made)
    [entry] = moved["report"]["entries"]
    assert entry["moved"] == []
    assert entry["dropped"] == [
        {
            "option": "fNwHbYSW",
            "label": "Pet Giant Rat (Repel Ambushers)",
            "reason": 'Ratmen 3.5.3 moved it to "Upgrade with one", which has no room left for it: '
            '"Upgrade with one" allows at most 1 pick, but has 2',
        }
    ]
    assert moved["list"]["entries"][0]["options"] == {"tYrIhbQKOm": 1}
    assert moved["report"]["validation"]["valid"] is True


# God-Titan, Giant Blessed Beast, Blessed Platform, Militia, Giant Rats, Night Scouts
BIG_UNITS = ("SthvnvH", "lNrKPTx", "bIbOg6H", "L63ELXt", "etbxZuh", "6vA1AhE")


@pytest.mark.django_db
def test_the_report_says_the_moved_list_will_be_over_its_points_and_illegal_before_it_moves(user_client):
    """A legal 2,155 pts list on 3.5.2 is 2,350 pts on 3.5.3, and its God-Titan more than 35 %
    of the limit: the dry run says so, in the words the moved list's validation uses."""
    made = ratmen_3_5_2_list(user_client, points=2155, more=BIG_UNITS)
    assert (made["validation"]["total_points"], made["validation"]["valid"]) == (2155, True)
    dry = move(user_client, made, dry_run=True)["report"]
    validation = dry["validation"]
    assert dry["total_points"] == [2155, 2350]
    assert (validation["valid"], validation["total_points"], validation["points_limit"]) == (False, 2350, 2155)
    assert [(issue["code"], issue["entry"]) for issue in validation["issues"]] == [
        ("points_over_limit", None),
        ("unit_too_expensive", "more-0"),
    ]
    assert validation["issues"][0]["message"] == "2350 pts is 195 over the 2155 pts limit"
    # What the list's own validation says once it has moved.
    assert move(user_client, made)["list"]["validation"] == validation


def engine_book(name: str, version: str):
    system = name.split("--")[0]
    converted = armybook_from_armyforge(armyforge_book(name, version), rulesets=ruleset_infos(), system=system)
    return book_from_dict(converted.book)


# Each move between versions of the official books held: (option-for-unit pairs whose
# option id the new version does not offer the unit, of which kept under a new id).
REGROUPED = {
    ("aof--chivalrous-kingdoms.json", "3.5.1", "3.5.2"): (0, 0),
    ("aof--giant-tribes.json", "3.5.1", "3.5.2"): (0, 0),
    ("aof--ratmen.json", "3.5.1", "3.5.2"): (2, 1),  # Scout Master kept; the Assassin is gone
    ("aof--wood-elves.json", "3.5.1", "3.5.2"): (0, 0),
    ("aof-skirmish--dwarves.json", "3.5.1", "3.5.2"): (0, 0),
    ("aof-skirmish--trade-federations.json", "3.5.1", "3.5.2"): (0, 0),
    ("aof-skirmish--volcanic-dwarves.json", "3.5.1", "3.5.2"): (1, 1),  # Grudge Bearer
    ("aof--ratmen.json", "3.5.2", "3.5.3"): (8, 3),  # two Pet Giant Rats, a Spotter Rat
    ("aof--ratmen.json", "3.5.1", "3.5.3"): (10, 4),
}


@pytest.mark.django_db
def test_options_the_official_books_regrouped_under_new_ids_are_kept_on_a_move():
    """Every unit of each pair of versions held, with each option its old version offers it
    under an id the new one does not: before moves kept options, all of these were dropped."""
    counted = {}
    for name, old_version, new_version in REGROUPED:
        old, new = engine_book(name, old_version), engine_book(name, new_version)
        dropped = kept = 0
        for unit in old.units.values():
            if unit.id not in new.units:
                continue
            for option_id in unit.options.keys() - new.units[unit.id].options.keys():
                dropped += 1
                _entries, [report] = carry_entries([{"id": "e", "unit": unit.id, "options": {option_id: 1}}], old, new)
                kept += len(report.moved)
                assert len(report.moved) + len(report.dropped) == 1
        counted[(name, old_version, new_version)] = (dropped, kept)
    assert counted == REGROUPED


@pytest.mark.django_db
def test_a_wood_elves_grove_champion_keeps_its_beast_companion_on_3_5_2(user_client):
    import_armyforge("aof--wood-elves.json", "3.5.1")
    made = saved_list(user_client, "wood-elves", 2000, [{"id": "champ", "unit": "DDfHPmh", "options": {"az4NX": 1}}])
    import_armyforge("aof--wood-elves.json")
    moved = move(user_client, made)
    [entry] = moved["report"]["entries"]
    assert (entry["dropped"], entry["moved"], entry["cost"][0] == entry["cost"][1]) == ([], [], True)
    assert moved["list"]["entries"][0]["options"] == {"az4NX": 1}


@pytest.mark.django_db
def test_upgrade_removes_an_entry_whose_unit_is_gone_and_unjoins_its_hero(user_client, make_aof_book):
    book_import(data=make_aof_book())
    body = {
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1000,
        "entries": [
            {"id": "hero", "unit": "warden-captain", "joined_to": "troops"},
            {"id": "troops", "unit": "wardens", "options": {"TROOPS-2a": 1}},
        ],
    }
    made = user_client.post("/api/lists/", body, format="json").json()
    newer = make_aof_book()
    newer["version"] = "2.0.0"
    newer["units"], newer["packages"] = newer["units"][:1], newer["packages"][:1]
    book_import(data=newer)
    result = user_client.post(f"/api/lists/{made['id']}/upgrade/", {}, format="json").json()
    hero, troops = result["report"]["entries"]
    assert (troops["removed"], troops["cost"][1], troops["reason"]) == (
        True,
        0,
        "Test Wardens 2.0.0 has no Wardens any more",
    )
    assert hero["notes"] == ["no longer joined to Wardens, which is gone"]
    assert result["list"]["entries"] == [
        {"id": "hero", "unit": "warden-captain", "options": {}, "combined": False, "joined_to": None, "name": None}
    ]


@pytest.mark.django_db
def test_upgrade_refuses_a_version_not_held_and_unknown_fields(user_client, make_aof_book):
    book_import(data=make_aof_book())
    body = {"system": "aof", "faction": "test-wardens", "points_limit": 1000, "entries": []}
    made = user_client.post("/api/lists/", body, format="json").json()
    url = f"/api/lists/{made['id']}/upgrade/"
    missing = user_client.post(url, {"book_version": "7.0.0"}, format="json")
    assert (missing.status_code, list(missing.json())) == (400, ["book_version"])
    unknown = user_client.post(url, {"dry": True}, format="json")
    assert (unknown.status_code, unknown.json()) == (400, {"dry": ["Unknown field."]})
    null = user_client.post(url, {"book_version": None}, format="json")  # left out means "the current one"
    assert (null.status_code, null.json()) == (400, {"book_version": ["This field may not be null."]})


@pytest.mark.django_db
def test_someone_elses_list_cannot_be_moved(user_client, make_aof_book, staff_client):
    book_import(data=make_aof_book())
    body = {"system": "aof", "faction": "test-wardens", "points_limit": 1000, "entries": []}
    made = staff_client.post("/api/lists/", body, format="json").json()
    assert user_client.post(f"/api/lists/{made['id']}/upgrade/", {}, format="json").status_code == 404


@pytest.mark.django_db
def test_the_share_page_shows_the_version_a_list_keeps_when_a_newer_one_is_out(user_client, client):
    import_armyforge("aof--wood-elves.json", "3.5.1")
    made = beetle_list(user_client)
    import_armyforge("aof--wood-elves.json")
    page = client.get(made["share_url"].split("testserver", 1)[-1]).content.decode()
    assert "3.5.2 is out, this list keeps the costs of 3.5.1" in page
    assert "225 pts" in page


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_imports_of_the_same_new_book_at_once_make_one_book(make_aof_book):
    """Two staff imports (or a sync and an import) of a book new to the site, at the same
    moment: one makes it, the other finds it and is unchanged; neither fails."""

    from factions.services import sync_rulesets

    sync_rulesets()  # transactional tests may run after one that emptied the tables
    outcomes = at_once(4, lambda: book_import(data=make_aof_book()).status)
    assert sorted(outcomes) == ["new book", "unchanged", "unchanged", "unchanged"]
    assert versions_of(Faction.objects.get(slug="test-wardens")) == ["1.0.0"]


# -- the admin's edit of a book: a new version, with a compare-and-swap -----------------------
def edited_wardens(faction: Faction, cost: int, version: str) -> dict:
    from factions.selectors import faction_document

    document = copy.deepcopy(faction_document(faction=faction))
    document["units"][1]["cost"], document["version"] = cost, version
    return document


@pytest.mark.django_db
def test_an_edit_whose_version_was_replaced_between_its_check_and_its_write_changes_nothing(wardens, monkeypatch):
    """Another edit lands after this one read the current version and before it writes:
    the write finds the book moved on (UPDATE … WHERE the stamp is the one read), and
    refuses, keeping nothing. (Here the other edit runs inside this one's transaction,
    so the refusal rolls it back too; test_edits_of_the_same_version_at_once_keep_one
    races real ones on PostgreSQL.)"""
    from factions import services

    read = services.book_version_document

    def another_edit_meanwhile(**kwargs):
        monkeypatch.setattr(services, "book_version_document", read)
        theirs = edited_wardens(wardens, 120, "1.0.0+theirs")
        services.armybook_edit(faction=wardens, document=theirs, based_on=wardens.content_hash)
        return read(**kwargs)

    monkeypatch.setattr(services, "book_version_document", another_edit_meanwhile)
    with pytest.raises(services.BookChanged, match="its current version is now 1.0.0\\+theirs"):
        services.armybook_edit(
            faction=wardens, document=edited_wardens(wardens, 125, "1.0.0+mine"), based_on=wardens.content_hash
        )
    assert not BookVersion.objects.filter(version="1.0.0+mine").exists()
    assert Faction.objects.get(pk=wardens.pk).version != "1.0.0+mine"


@pytest.mark.django_db
def test_an_edit_may_not_move_a_book_to_another_ruleset_slug_or_army_forge_book(wardens):
    from factions.armybook import ArmyBookError
    from factions.services import armybook_edit

    document = {**edited_wardens(wardens, 125, "1.0.0+admin.1"), "slug": "other", "armyforge_id": "abc"}
    with pytest.raises(ArmyBookError) as refused:
        armybook_edit(faction=wardens, document=document, based_on=wardens.content_hash)
    assert [str(p) for p in refused.value.problems] == [
        "slug: must stay the book's own, 'test-wardens'",
        "armyforge_id: the book has none: leave it out",
    ]
    assert versions_of(wardens) == ["1.0.0"]


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_edits_of_the_same_version_at_once_keep_one(make_aof_book):
    """Four staff save an edit made from the same version at the same moment: one is kept,
    the others are refused and keep nothing."""
    from factions.services import BookChanged, armybook_edit, sync_rulesets

    sync_rulesets()  # transactional tests may run after one that emptied the tables
    book_import(data=make_aof_book())
    faction = Faction.objects.select_related("ruleset").get(slug="test-wardens")
    names = iter(f"1.0.0+admin.{n}" for n in range(1, 5))

    def edit() -> str:
        document = edited_wardens(faction, 120, next(names))
        try:
            return armybook_edit(faction=faction, document=document, based_on=faction.content_hash).status
        except BookChanged:
            return "refused"

    assert sorted(at_once(4, edit)) == ["new version", "refused", "refused", "refused"]
    assert len(versions_of(Faction.objects.get(slug="test-wardens"))) == 2
