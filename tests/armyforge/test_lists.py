"""Army Forge lists in and out: both of Army Forge's list formats (a "Share as File"
download and a share link's answer, read as a document or fetched by the link) import as
the list that was built, pinned to a version of its book; what cannot be carried over
exactly comes with a warning; the export is a "Share as File" list that imports back as
the same list.

The lists are made from the official Army Forge books of ../shared/armyforge (3.5.2, and
3.5.1 in its own folder) by tests/support/armyforge_lists.py, which also works out Army Forge's
prices from the book alone; the real Grimdark Future examples of ../shared/armyforge/lists
show the formats and are the lists of another game this site refuses.
"""

from __future__ import annotations

import io
import json
import random
import socket
from collections import Counter
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rest_framework.test import APIClient

from armybuilder.armyforge.books.imports import book_import
from armybuilder.armyforge.ids import our_id
from armybuilder.lists.models import ArmyList
from tests.conftest import SHARED, require_shared
from tests.support import armyforge_lists as af

ARMYFORGE = SHARED / "armyforge"
EXAMPLES = ARMYFORGE / "lists"
BOOKS = (
    "aof--chivalrous-kingdoms",
    "aof--giant-tribes",
    "aof--ratmen",
    "aof--wood-elves",
    "aof-skirmish--dwarves",
    "aof-skirmish--trade-federations",
    "aof-skirmish--volcanic-dwarves",
)
WOOD_ELVES = "aof--wood-elves"
FORMATS = {"file": af.share_file, "link": af.share_api}
SEEDS = (1, 2, 3)


# -- books, lists and answers ----------------------------------------------------------------
@cache
def _book_text(name: str, version: str) -> str:
    folder = ARMYFORGE if version == "3.5.2" else ARMYFORGE / version
    return require_shared(folder / f"{name}.json").read_text(encoding="utf-8")


def book(name: str, version: str = "3.5.2") -> dict[str, Any]:
    """The Army Forge book `name` (`aof--wood-elves`) at `version`, a fresh copy."""
    return json.loads(_book_text(name, version))


def ruleset(name: str) -> str:
    return name.split("--", 1)[0]


def game(name: str) -> str:
    """Army Forge's code of the game the book's lists are for."""
    return af.GAME_CODES[ruleset(name)]


def import_book(name: str, version: str = "3.5.2") -> str:
    """Import the book at `version` into the catalogue; its faction's slug."""
    return book_import(data=book(name, version), system=ruleset(name)).faction.slug


def example(name: str) -> dict[str, Any]:
    return json.loads(require_shared(EXAMPLES / name).read_text(encoding="utf-8"))


def texts(value: Any) -> str:
    """Every string in an answer, one per line: to look for words in field errors
    without depending on the field they are under."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return "\n".join(texts(v) for v in value)
    return ""


def download(client: APIClient, url: str) -> tuple[int, bytes]:
    response = client.get(url)
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return response.status_code, content


def imported(response) -> dict[str, Any]:
    assert response.status_code == 201, response.content[:1000]
    return response.json()


def summary(body: dict[str, Any]) -> dict[str, Any]:
    """What an imported list is, less its ids, times and validation details."""
    keys = ("name", "system", "faction", "points_limit", "force_org", "entries", "book_version")
    return {**{key: body[key] for key in keys}, "total": body["validation"]["total_points"]}


def codes(body: dict[str, Any]) -> list[str]:
    return [warning["code"] for warning in body["warnings"]]


def warning(body: dict[str, Any], code: str) -> dict[str, Any]:
    found = [w for w in body["warnings"] if w["code"] == code]
    assert len(found) == 1, body["warnings"]
    return found[0]


def notes_codes(lst: af.ArmyForgeList) -> list[str]:
    """The warnings an import gives for what goes into the list's notes: campaign records
    (XP, traits), then units' notes."""
    campaign = any(u.xp or u.traits for u in lst.units)
    noted = any(u.notes for u in lst.units)
    return ["campaign_notes"] * campaign + ["unit_notes"] * noted


def repriced(name: str) -> tuple[list[str], list[tuple[str, str]]]:
    """Ids of the units whose cost differs at 3.5.1 and 3.5.2, and (unit id, option uid)
    of the options offered to a unit at a cost that differs."""
    old, new = book(name, "3.5.1"), book(name)
    units = [u["id"] for u in new["units"] if af.book_unit(old, u["id"])["cost"] != u["cost"]]
    options = []
    for unit in new["units"]:
        before = {o["uid"]: af.option_cost(unit, o) for _s, o in af.offered(old, af.book_unit(old, unit["id"]))}
        for _section, option in af.offered(new, unit):
            if option["uid"] in before and before[option["uid"]] != af.option_cost(unit, option):
                options.append((unit["id"], option["uid"]))
    return units, options


def repriced_selection(name: str) -> list[dict[str, Any]]:
    """A selection whose Army Forge price differs at 3.5.1 and 3.5.2: a unit repriced,
    a unit with a repriced option, and a unit priced the same with nothing picked."""
    units, options = repriced(name)
    assert units and options, "the two versions of the book differ in prices"
    unit, option = options[0]
    same = next(u["id"] for u in book(name)["units"] if u["id"] not in units and u["id"] != unit)
    return [{"unit": units[0]}, {"unit": unit, "options": [option]}, {"unit": same}]


def troop_and_hero(data: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str, list[str]]:
    """A unit that may be combined, a hero, an option of the unit's that covers some of
    its models or items, and (at most) one that covers the whole unit."""
    troop = next(
        u for u in data["units"] if af.may_combine(u) and any(not af.whole_unit(s) for s in af.sections_of(data, u))
    )
    hero = next(u for u in data["units"] if af.is_hero(u))
    some = next(o["uid"] for s, o in af.offered(data, troop) if not af.whole_unit(s))
    whole = [o["uid"] for s, o in af.offered(data, troop) if af.whole_unit(s)][:1]
    return troop, hero, some, whole


pytestmark = pytest.mark.usefixtures("fresh_engine_cache")


@pytest.fixture
def player(db, django_user_model) -> APIClient:
    client = APIClient()
    client.force_authenticate(django_user_model.objects.create_user("forge-lister", password="a-long-pass-phrase-1"))
    return client


@pytest.fixture
def wood_elves_3_5_1_and_3_5_2(db) -> str:
    """Wood Elves held at 3.5.1 and at 3.5.2, the current version."""
    import_book(WOOD_ELVES, "3.5.1")
    return import_book(WOOD_ELVES)


# -- the lists this file makes (checks of tests/support/armyforge_lists.py) ---------------------------
def lists_of_every_book(seeds=range(30)):
    for name in BOOKS:
        data = book(name)
        for seed in seeds:
            yield name, af.random_list(data, random.Random(seed), game=game(name), campaign=seed % 3 == 0)


def test_army_forges_total_is_the_sum_of_its_units_in_both_formats():
    for _name, lst in lists_of_every_book():
        costs = [af.unit_cost(lst, u) for u in lst.units]
        assert af.share_file(lst)["listPoints"] == af.share_api(lst)["listPoints"] == sum(costs)
        assert sum(af.entry_costs(lst).values()) == sum(costs)


def test_every_pick_is_an_option_of_a_section_the_unit_gets():
    for name, lst in lists_of_every_book():
        for list_unit in lst.units:
            unit = lst.unit_of(list_unit)
            off = set(unit.get("disabledSections") or []) | set(unit.get("disabledUpgradeSections") or [])
            packages = [p for p in lst.book["upgradePackages"] if p["uid"] in unit["upgrades"]]
            for section, option in list_unit.picks:
                assert any(section in p["sections"] for p in packages), (name, unit["name"], section["label"])
                assert section["uid"] not in off and section["id"] not in off
                assert option in section["options"]


def test_a_list_picks_no_more_of_a_section_than_it_allows():
    for name, lst in lists_of_every_book():
        for list_unit in lst.units:
            options = Counter((s["uid"], o["uid"]) for s, o in list_unit.picks)
            for section in {s["uid"]: s for s, _o in list_unit.picks}.values():
                distinct = [uid for (s, uid) in options if s == section["uid"]]
                select = section.get("select") or {}
                if select.get("type") == "exactly" or section["variant"] == "replace":
                    assert len(distinct) <= max(select.get("value", 1), 1), (name, section["label"])
                affects = (section.get("affects") or {}).get("type")
                if affects not in ("any", "up to"):
                    assert all(options[(section["uid"], uid)] == 1 for uid in distinct), (name, section["label"])


def test_over_the_seven_books_lists_pick_every_kind_of_section_and_combine_and_join():
    def kind(section):
        return (
            af.section_kind(section),
            (section.get("affects") or {}).get("type"),
            (section.get("select") or {}).get("type"),
        )

    in_books = {kind(s) for name in BOOKS for p in book(name)["upgradePackages"] for s in p["sections"]}
    picked, seen = set(), Counter()
    for _name, lst in lists_of_every_book():
        second_halves = {u.selection_id for u in lst.units if u.combined and u.join_to}
        picked |= {kind(s) for u in lst.units for s, _o in u.picks}
        seen["combined"] += any(u.combined for u in lst.units)
        seen["joined"] += any(u.join_to and not u.combined for u in lst.units)
        seen["joined to a second half"] += any(u.join_to in second_halves and not u.combined for u in lst.units)
        seen["picked twice"] += any(n > 1 for u in lst.units for n in Counter(o["uid"] for _s, o in u.picks).values())
        seen["custom name"] += any(u.custom_name for u in lst.units)
        seen["own name as custom name"] += any(u.custom_name == lst.unit_of(u)["name"] for u in lst.units)
        seen["notes"] += any(u.notes for u in lst.units)
        seen["campaign"] += any(u.xp or u.traits for u in lst.units)
    assert picked == in_books
    assert {"replace", "upgrade", "attachment"} <= {k[0] for k in picked}
    assert all(seen[what] > 0 for what in seen) and len(seen) == 8, seen


def test_skirmish_lists_neither_combine_nor_join():
    for name, lst in lists_of_every_book():
        if game(name) == "aofs":
            assert not any(u.combined or u.join_to for u in lst.units), name


def test_the_same_seed_makes_the_same_list():
    data = book(WOOD_ELVES)
    first = af.share_api(af.random_list(data, random.Random(7)))
    assert af.share_api(af.random_list(data, random.Random(7))) == first
    assert af.share_api(af.random_list(data, random.Random(8))) != first


def test_both_formats_have_the_shape_of_army_forges_examples():
    file_example, api_example = example("gf-share-as-file-example.json"), example("gf-share-api-example.json")
    for _name, lst in lists_of_every_book(seeds=range(3)):
        file, api = af.share_file(lst), af.share_api(lst)
        assert set(file) == set(file_example)
        assert set(file["list"]) == set(file_example["list"])
        for unit in file["list"]["units"]:
            assert set(unit) - {"customName"} == set(file_example["list"]["units"][0])
            assert all(set(u) == {"instanceId", "upgradeId", "optionId"} for u in unit["selectedUpgrades"])
        assert set(api) == set(api_example)
        always = set.intersection(*(set(u) for u in api_example["units"]))
        sometimes = set.union(*(set(u) for u in api_example["units"]))
        for unit in api["units"]:
            assert always <= set(unit) <= sometimes
            for upgrade in unit["selectedUpgrades"]:
                assert set(upgrade) == {"instanceId", "upgrade", "option"}
                assert upgrade["upgrade"]["type"] == "ArmyBookUpgradeSection"
                assert {"id", "uid", "label", "parentPackageUid", "variant"} <= set(upgrade["upgrade"])
                assert {"uid", "id", "label", "gains"} <= set(upgrade["option"])
        assert [u["selectionId"] for u in api["units"]] == [u["selectionId"] for u in file["list"]["units"]]
        assert file["armyVersions"] == [{"version": lst.book["versionString"], "armyId": lst.book["uid"]}]
        assert not any("version" in key.lower() for key in api)  # a share link names no book version


def test_a_chosen_list_has_the_units_picks_halves_and_join_asked_for():
    data = book(WOOD_ELVES)
    troop = next(u for u in data["units"] if af.may_combine(u))
    hero = next(u for u in data["units"] if af.is_hero(u))
    whole = next(o["uid"] for s, o in af.offered(data, troop) if af.whole_unit(s))
    lst = af.chosen_list(
        data,
        [
            {"unit": hero["name"], "join": 1, "name": "Aelwen", "id": "hero1"},
            {"unit": troop["id"], "options": [whole], "combined": True, "notes": "Front line."},
        ],
        points_limit=1000,
    )
    hero_unit, first, second = lst.units
    assert (hero_unit.selection_id, hero_unit.join_to, hero_unit.custom_name) == ("hero1", first.selection_id, "Aelwen")
    assert (first.combined, first.join_to, second.combined, second.join_to) == (True, None, True, first.selection_id)
    assert first.picks == second.picks and [o["uid"] for _s, o in first.picks] == [whole]
    assert af.expected_entries(lst)[1]["options"] == {our_id(whole): 1}
    assert lst.points_limit == 1000
    with pytest.raises(ValueError, match="is not offered option"):
        af.chosen_list(data, [{"unit": hero["id"], "options": [whole]}])


@pytest.mark.django_db
def test_our_engine_prices_the_built_entries_at_army_forges_prices(client):
    """The entries the import should make cost here what Army Forge charges for the list."""
    for name in BOOKS:
        slug = import_book(name)
        for seed in SEEDS:
            lst = af.random_list(book(name), random.Random(seed), game=game(name))
            body = {
                "format": "armylist/1",
                "name": lst.name,
                "system": ruleset(name),
                "faction": slug,
                "points_limit": lst.points_limit,
                "entries": af.expected_entries(lst),
            }
            response = client.post("/api/validate/", body, "application/json")
            assert response.status_code == 200, response.content[:500]
            result = response.json()
            assert {e["id"]: e["cost"] for e in result["entries"]} == af.entry_costs(lst), (name, seed)
            assert result["total_points"] == af.armyforge_total(lst)


def test_the_stand_in_answers_a_share_link_with_the_list_shared_and_a_404_otherwise(armyforge):
    import urllib.error
    import urllib.request

    lst = af.random_list(book(WOOD_ELVES), random.Random(1))
    armyforge.share("Xy12_ab", af.share_api(lst))
    with urllib.request.urlopen(f"{armyforge.url}/api/tts?id=Xy12_ab", timeout=2) as answer:
        assert json.loads(answer.read()) == af.share_api(lst)
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{armyforge.url}/api/tts?id=nobody", timeout=2)
    assert missing.value.code == 404
    armyforge.fail("Xy12_ab", 503)
    with pytest.raises(urllib.error.HTTPError) as failing:
        urllib.request.urlopen(f"{armyforge.url}/api/tts?id=Xy12_ab", timeout=2)
    assert failing.value.code == 503
    assert armyforge.shares_read == ["Xy12_ab", "nobody", "Xy12_ab"]


# -- import: the lists built come in as they were built -----------------------------------------
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", BOOKS)
def test_a_list_of_an_official_book_imports_as_built_at_army_forges_total(player, name, fmt):
    slug = import_book(name)
    for seed in SEEDS:
        lst = af.random_list(book(name), random.Random(seed), game=game(name))
        body = imported(player.post("/api/lists/import/", FORMATS[fmt](lst), format="json"))
        assert summary(body) == {
            "name": lst.name,
            "system": ruleset(name),
            "faction": slug,
            "points_limit": lst.points_limit,
            "force_org": True,
            "entries": af.expected_entries(lst),
            "book_version": "3.5.2",
            "total": af.armyforge_total(lst),
        }, (name, seed)
        assert (body["book_latest"], body["book_changed"]) == ("3.5.2", False)
        assert {e["id"]: e["cost"] for e in body["validation"]["entries"]} == af.entry_costs(lst)
        assert codes(body) == notes_codes(lst), (name, seed)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_list_of_either_format_uploads_as_a_file(player, fmt):
    import_book(WOOD_ELVES)
    lst = af.random_list(book(WOOD_ELVES), random.Random(4))
    upload = io.BytesIO(json.dumps(FORMATS[fmt](lst)).encode())
    upload.name = "wood-elves.json"
    body = imported(player.post("/api/lists/import/", {"file": upload}, format="multipart"))
    assert body["entries"] == af.expected_entries(lst)
    assert body["validation"]["total_points"] == af.armyforge_total(lst)


def test_a_combined_unit_is_one_entry_and_a_hero_joined_to_its_second_half_joins_the_first(player):
    import_book(WOOD_ELVES)
    data = book(WOOD_ELVES)
    troop, hero, some, whole = troop_and_hero(data)
    lst = af.chosen_list(
        data,
        [{"unit": hero["id"], "join": 1}, {"unit": troop["id"], "options": [some, *whole], "combined": True}],
    )
    hero_unit, first, second = lst.units
    hero_unit.join_to = second.selection_id  # as Army Forge may write it
    body = imported(player.post("/api/lists/import/", af.share_file(lst), format="json"))
    assert body["entries"] == [
        {
            "id": hero_unit.selection_id,
            "unit": our_id(hero["id"]),
            "options": {},
            "combined": False,
            "joined_to": first.selection_id,
            "name": None,
        },
        {
            "id": first.selection_id,
            "unit": our_id(troop["id"]),
            "options": {our_id(some): 2, **{our_id(uid): 1 for uid in whole}},
            "combined": True,
            "joined_to": None,
            "name": None,
        },
    ]
    assert body["validation"]["total_points"] == af.armyforge_total(lst)


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_points_limit_and_force_org_are_the_lists(player, fmt):
    import_book(WOOD_ELVES)
    lst = af.random_list(book(WOOD_ELVES), random.Random(9))
    lst.points_limit, lst.force_org = 3250, False
    body = imported(player.post("/api/lists/import/", FORMATS[fmt](lst), format="json"))
    assert (body["points_limit"], body["force_org"]) == (3250, False)
    status, content = download(player, f"/api/lists/{body['id']}/export/armyforge")
    assert status == 200, content[:500]
    exported = json.loads(content)["list"]
    assert (exported["pointsLimit"], exported["forceOrg"]) == (3250, False)


def test_a_custom_name_is_the_entry_name_unless_it_is_the_units_own(player):
    import_book(WOOD_ELVES)
    data = book(WOOD_ELVES)
    unit = data["units"][3]
    lst = af.chosen_list(data, [{"unit": unit["id"], "name": "Thornwatch"}, {"unit": unit["id"], "name": unit["name"]}])
    body = imported(player.post("/api/lists/import/", af.share_file(lst), format="json"))
    assert [e["name"] for e in body["entries"]] == ["Thornwatch", None]


def test_unit_notes_and_campaign_data_go_into_the_list_notes_with_a_warning(player):
    import_book(WOOD_ELVES)
    data = book(WOOD_ELVES)
    lst = af.chosen_list(
        data,
        [
            {"unit": data["units"][0]["id"], "name": "Aelwen", "notes": "Leads from the front.", "xp": 7},
            {"unit": data["units"][5]["id"], "traits": ["Steady Hands", "Keen Eye"]},
            {"unit": data["units"][6]["id"]},
        ],
    )
    for document in (af.share_file(lst), af.share_api(lst)):
        body = imported(player.post("/api/lists/import/", document, format="json"))
        notes = body["notes"]
        for words in ("Aelwen", "Leads from the front.", "7", data["units"][5]["name"], "Steady Hands", "Keen Eye"):
            assert words in notes, (words, notes)
        assert codes(body) == ["campaign_notes", "unit_notes"]
        assert body["entries"] == af.expected_entries(lst)


def test_a_list_with_no_notes_and_no_campaign_data_has_no_warnings_and_no_notes(player):
    import_book(WOOD_ELVES)
    data = book(WOOD_ELVES)
    lst = af.chosen_list(data, [{"unit": data["units"][0]["id"]}, {"unit": data["units"][5]["id"]}])
    body = imported(player.post("/api/lists/import/", af.share_file(lst), format="json"))
    assert (body["notes"], body["warnings"]) == ("", [])


# -- import: by share link --------------------------------------------------------------------
@pytest.mark.parametrize(
    "link",
    [
        "Ab3_x-9Qz",
        "https://army-forge.onepagerules.com/share?id=Ab3_x-9Qz&name=Forest%20Host",
        "https://example.org/lists/view?tab=units&id=Ab3_x-9Qz",
    ],
    ids=["bare-id", "share-link", "any-url-with-id"],
)
def test_a_share_link_is_fetched_from_army_forge_and_imported(player, armyforge, link):
    import_book(WOOD_ELVES)
    lst = af.random_list(book(WOOD_ELVES), random.Random(5))
    armyforge.share("Ab3_x-9Qz", af.share_api(lst))
    body = imported(player.post("/api/lists/import/", {"armyforge": link}, format="json"))
    assert armyforge.shares_read == ["Ab3_x-9Qz"]
    assert (body["entries"], body["points_limit"], body["book_version"]) == (
        af.expected_entries(lst),
        lst.points_limit,
        "3.5.2",
    )
    assert body["validation"]["total_points"] == af.armyforge_total(lst)


def _not_shared(standin, settings) -> None:
    del standin.shares["Qq1"]


def _unreachable(standin, settings) -> None:
    with socket.socket() as sock:  # a port nothing listens on once it is closed
        sock.bind(("127.0.0.1", 0))
        settings.ARMYFORGE_URL = f"http://127.0.0.1:{sock.getsockname()[1]}"


def _slow(standin, settings) -> None:
    settings.ARMYFORGE_TIMEOUT = 0.2
    standin.hang("Qq1", 5)


def _too_large(standin, settings) -> None:
    settings.ARMYFORGE_MAX_BYTES = 64 * 1024
    standin.oversized("Qq1", 100 * 1024)


def _not_json(standin, settings) -> None:
    standin.broken("Qq1")


def _off(standin, settings) -> None:
    settings.ARMYFORGE_URL = ""  # the site never asks Army Forge


# (case, what goes wrong, words the error says)
LINK_FAILURES = [
    ("unknown-id", _not_shared, "404"),
    ("unreachable", _unreachable, "Army Forge could not be reached."),
    ("slow", _slow, "Army Forge did not answer in time."),
    ("too-large", _too_large, "Army Forge's answer is larger than 64 KB."),
    ("not-json", _not_json, "Army Forge answered with something that is not JSON."),
    ("army-forge-off", _off, "This site does not read Army Forge: upload the list's file instead."),
]


@pytest.mark.parametrize(
    ("go_wrong", "words"), [case[1:] for case in LINK_FAILURES], ids=[case[0] for case in LINK_FAILURES]
)
def test_a_share_link_that_cannot_be_read_is_refused_saying_why_and_saves_nothing(
    player, armyforge, settings, go_wrong, words
):
    import_book(WOOD_ELVES)
    armyforge.share("Qq1", af.share_api(af.random_list(book(WOOD_ELVES), random.Random(6))))
    go_wrong(armyforge, settings)
    response = player.post(
        "/api/lists/import/", {"armyforge": "https://army-forge.onepagerules.com/share?id=Qq1"}, format="json"
    )
    assert response.status_code == 400, response.content[:500]
    assert set(response.json()) == {"armyforge"}
    assert words in texts(response.json()), response.json()
    assert "127.0.0.1" not in texts(response.json())  # neither Army Forge's address nor the socket's error
    assert ArmyList.objects.count() == 0


# -- refusals ---------------------------------------------------------------------------------
def test_a_list_of_another_game_is_refused_naming_it_and_the_games_built_here(player):
    response = player.post("/api/lists/import/", example("gf-share-as-file-example.json"), format="json")
    assert response.status_code == 400
    said = texts(response.json())
    assert "Grimdark Future" in said and "Age of Fantasy" in said, said
    assert ArmyList.objects.count() == 0


def test_a_share_link_to_a_list_of_another_game_is_refused_naming_it(player, armyforge):
    armyforge.share("gf1", example("gf-share-api-example.json"))
    response = player.post("/api/lists/import/", {"armyforge": "gf1"}, format="json")
    assert response.status_code == 400
    assert "Grimdark Future" in texts(response.json()), response.json()
    assert ArmyList.objects.count() == 0


def test_a_list_of_units_of_several_books_is_refused_naming_them(player):
    document = example("gf-share-api-example.json")
    document["gameSystem"] = "aof"  # the game aside, it mixes the units of four books
    response = player.post("/api/lists/import/", document, format="json")
    assert response.status_code == 400
    said = texts(response.json())
    for army_id in {unit["armyId"] for unit in document["units"]}:
        assert army_id in said, said
    assert "one" in said, said
    assert ArmyList.objects.count() == 0


@pytest.mark.parametrize(
    "document",
    [{"units": "none"}, {"name": "Not a list"}, [1, 2, 3]],
    ids=["units-not-a-list", "no-list-at-all", "a-json-array"],
)
def test_a_document_in_neither_format_is_refused_saying_which_formats_are_read(player, document):
    response = player.post("/api/lists/import/", document, format="json")
    assert response.status_code == 400
    said = texts(response.json())
    assert "armylist/1" in said and "Army Forge" in said, said
    assert ArmyList.objects.count() == 0


# -- pinning to a version of the book --------------------------------------------------------
def test_a_list_built_on_3_5_1_is_pinned_to_3_5_1_when_held(player, wood_elves_3_5_1_and_3_5_2):
    for seed in SEEDS:
        lst = af.random_list(book(WOOD_ELVES, "3.5.1"), random.Random(seed))
        body = imported(player.post("/api/lists/import/", af.share_file(lst), format="json"))
        assert (body["book_version"], body["book_latest"], body["book_changed"]) == ("3.5.1", "3.5.2", True)
        assert body["entries"] == af.expected_entries(lst)
        assert body["validation"]["total_points"] == af.armyforge_total(lst)
        assert "book_version_nearest" not in codes(body) and "points_differ" not in codes(body)


@pytest.mark.parametrize(("built_on", "nearest"), [("3.5.3", "3.5.2"), ("3.5.0", "3.5.1")])
def test_a_list_built_on_a_version_not_held_is_pinned_to_the_nearest_saying_so(
    player, wood_elves_3_5_1_and_3_5_2, built_on, nearest
):
    lst = af.random_list(book(WOOD_ELVES, nearest), random.Random(1))
    document = af.share_file(lst)
    document["armyVersions"] = [{"version": built_on, "armyId": lst.army_id}]
    body = imported(player.post("/api/lists/import/", document, format="json"))
    assert body["book_version"] == nearest
    message = warning(body, "book_version_nearest")["message"]
    assert built_on in message and nearest in message, message
    assert "points_differ" not in codes(body)


def test_with_only_3_5_2_held_a_3_5_1_share_file_is_pinned_to_3_5_2_and_its_points_compared(player):
    import_book(WOOD_ELVES)
    old = af.chosen_list(book(WOOD_ELVES, "3.5.1"), repriced_selection(WOOD_ELVES))
    new = af.chosen_list(book(WOOD_ELVES), repriced_selection(WOOD_ELVES))  # same ids
    body = imported(player.post("/api/lists/import/", af.share_file(old), format="json"))
    assert (body["book_version"], body["entries"]) == ("3.5.2", af.expected_entries(old))
    assert body["validation"]["total_points"] == af.armyforge_total(new) != af.armyforge_total(old)
    nearest = warning(body, "book_version_nearest")["message"]
    assert "3.5.1" in nearest and "3.5.2" in nearest, nearest
    differ = warning(body, "points_differ")
    assert (differ["armyforge_total"], differ["total"]) == (af.armyforge_total(old), af.armyforge_total(new))
    assert str(af.armyforge_total(old)) in differ["message"] and str(af.armyforge_total(new)) in differ["message"]
    ours = {e["id"]: e["cost"] for e in body["validation"]["entries"]}
    for entry in differ["entries"]:  # a file gives no price per unit: Army Forge's is unknown
        assert (entry["armyforge_cost"], entry["cost"]) == (None, ours[entry["id"]]), entry


def test_with_only_3_5_2_held_a_3_5_1_share_link_names_the_entries_whose_price_differs(player):
    import_book(WOOD_ELVES)
    old = af.chosen_list(book(WOOD_ELVES, "3.5.1"), repriced_selection(WOOD_ELVES))
    new = af.chosen_list(book(WOOD_ELVES), repriced_selection(WOOD_ELVES))
    body = imported(player.post("/api/lists/import/", af.share_api(old), format="json"))
    assert (body["book_version"], body["entries"]) == ("3.5.2", af.expected_entries(old))
    differ = warning(body, "points_differ")
    was, now = af.entry_costs(old), af.entry_costs(new)
    names = {u.selection_id: old.unit_of(u)["name"] for u in old.units}
    assert differ["entries"] == [
        {"id": entry_id, "name": names[entry_id], "armyforge_cost": was[entry_id], "cost": now[entry_id]}
        for entry_id in was
        if was[entry_id] != now[entry_id]
    ]
    assert len(differ["entries"]) == 2
    assert (differ["armyforge_total"], differ["total"]) == (af.armyforge_total(old), af.armyforge_total(new))


@pytest.mark.parametrize("built_on", ["3.5.1", "3.5.2"])
def test_a_share_link_is_pinned_to_the_newest_held_version_whose_prices_are_its_own(
    player, wood_elves_3_5_1_and_3_5_2, built_on
):
    lst = af.chosen_list(book(WOOD_ELVES, built_on), repriced_selection(WOOD_ELVES))
    body = imported(player.post("/api/lists/import/", af.share_api(lst), format="json"))
    assert body["book_version"] == built_on
    assert body["validation"]["total_points"] == af.armyforge_total(lst)
    assert "points_differ" not in codes(body) and "book_version_nearest" not in codes(body)


def test_a_share_link_priced_like_the_old_and_new_versions_alike_is_pinned_to_the_newest(
    player, wood_elves_3_5_1_and_3_5_2
):
    units, options = repriced(WOOD_ELVES)
    repriced_units = set(units) | {unit for unit, _option in options}
    same = [u["id"] for u in book(WOOD_ELVES)["units"] if u["id"] not in repriced_units][:3]
    lst = af.chosen_list(book(WOOD_ELVES, "3.5.1"), [{"unit": unit} for unit in same])
    body = imported(player.post("/api/lists/import/", af.share_api(lst), format="json"))
    assert body["book_version"] == "3.5.2"
    assert "points_differ" not in codes(body) and "book_version_nearest" not in codes(body)


def test_army_forges_total_differing_from_ours_is_a_warning_giving_both(player):
    import_book(WOOD_ELVES)
    lst = af.random_list(book(WOOD_ELVES), random.Random(2))
    document = af.share_file(lst)
    document["listPoints"] += 15
    body = imported(player.post("/api/lists/import/", document, format="json"))
    assert body["book_version"] == "3.5.2"
    differ = warning(body, "points_differ")
    total = af.armyforge_total(lst)
    assert (differ["armyforge_total"], differ["total"]) == (total + 15, total)
    assert str(total + 15) in differ["message"] and str(total) in differ["message"]


# -- export -----------------------------------------------------------------------------------
def chosen_for_export(data: dict[str, Any]) -> af.ArmyForgeList:
    """A Wood Elves list of every feature the export writes: a combined unit with a
    whole-unit upgrade and another, a hero joined to its second half, a custom name."""
    troop, hero, some, whole = troop_and_hero(data)
    lst = af.chosen_list(
        data,
        [
            {"unit": hero["id"], "join": 1, "name": "Aelwen"},
            {"unit": troop["id"], "options": [some, *whole], "combined": True},
            {"unit": data["units"][-1]["id"]},
        ],
        points_limit=2000,
        name="Forest Host",
    )
    hero_unit, _first, second, _other = lst.units
    hero_unit.join_to = second.selection_id
    return lst


def test_the_army_forge_export_is_a_share_file_of_the_list(player):
    import_book(WOOD_ELVES)
    data = book(WOOD_ELVES)
    lst = chosen_for_export(data)
    created = imported(player.post("/api/lists/import/", af.share_file(lst), format="json"))
    status, content = download(player, f"/api/lists/{created['id']}/export/armyforge")
    assert status == 200, content[:500]
    exported = json.loads(content)
    assert {key: exported[key] for key in ("gameSystem", "armyId", "armyIds", "saveVersion", "armyVersions")} == {
        "gameSystem": "aof",
        "armyId": data["uid"],
        "armyIds": [data["uid"]],
        "saveVersion": 3,
        "armyVersions": [{"version": "3.5.2", "armyId": data["uid"]}],
    }
    assert exported["listPoints"] == created["validation"]["total_points"] == af.armyforge_total(lst)
    assert (exported["list"]["name"], exported["list"]["pointsLimit"], exported["list"]["forceOrg"]) == (
        "Forest Host",
        2000,
        True,
    )
    units = exported["list"]["units"]
    hero_unit, first, _second, other = lst.units
    assert [u["id"] for u in units] == [u.unit_id for u in lst.units]
    assert [u["selectionId"] for u in units][:2] + [units[3]["selectionId"]] == [
        hero_unit.selection_id,
        first.selection_id,
        other.selection_id,
    ]
    assert [u["combined"] for u in units] == [False, True, True, False]
    assert [u["joinToUnit"] for u in units] == [first.selection_id, None, first.selection_id, None]
    assert units[0]["customName"] == "Aelwen" and units[0]["armyId"] == data["uid"]
    assert all({"selectionId", "selectedUpgrades", "combined", "joinToUnit", "notes"} <= set(u) for u in units)
    # Each pick is there as Army Forge writes it; the combined unit's over its two halves.
    by_option = {o["uid"]: s for s, o in af.offered(data, af.book_unit(data, first.unit_id))}
    for upgrade in [u for unit in units for u in unit["selectedUpgrades"]]:
        assert upgrade["upgradeId"] == by_option[upgrade["optionId"]]["uid"]
    halves = [Counter(u["optionId"] for u in unit["selectedUpgrades"]) for unit in units[1:3]]
    assert halves[0] + halves[1] == Counter(o["uid"] for half in lst.units[1:3] for _s, o in half.picks)
    whole = [o["uid"] for s, o in first.picks if af.whole_unit(s)]
    assert all(half[uid] == 1 for half in halves for uid in whole)


def test_the_shared_export_is_the_owners(player):
    import_book(WOOD_ELVES)
    created = imported(
        player.post("/api/lists/import/", af.share_file(chosen_for_export(book(WOOD_ELVES))), format="json")
    )
    key = created["share_url"].rstrip("/").rsplit("/", 1)[-1]
    own = download(player, f"/api/lists/{created['id']}/export/armyforge")
    shared = download(APIClient(), f"/api/shared/{key}/export/armyforge")
    assert shared[0] == own[0] == 200
    assert json.loads(shared[1]) == json.loads(own[1])


def test_a_book_version_made_here_is_exported_as_army_forges_version(player):
    import_book(WOOD_ELVES)
    changed = book(WOOD_ELVES)
    changed["units"][0]["cost"] += 5  # the same version name with other content: 3.5.2+2
    slug = book_import(data=changed, system="aof").faction.slug
    data = book(WOOD_ELVES)
    body = {
        "format": "armylist/1",
        "name": "Pinned",
        "system": "aof",
        "faction": slug,
        "book_version": "3.5.2+2",
        "points_limit": 1000,
        "entries": [{"id": "e1", "unit": our_id(data["units"][0]["id"])}],
    }
    created = player.post("/api/lists/", body, format="json")
    assert created.status_code == 201, created.content[:500]
    assert created.json()["book_version"] == "3.5.2+2"
    status, content = download(player, f"/api/lists/{created.json()['id']}/export/armyforge")
    assert status == 200, content[:500]
    assert json.loads(content)["armyVersions"] == [{"version": "3.5.2", "armyId": data["uid"]}]


def test_export_then_import_gives_the_same_list(player):
    """Random lists of the seven books, imported, exported and imported again."""
    slugs = {name: import_book(name) for name in BOOKS}

    @settings(
        max_examples=40,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(name=st.sampled_from(BOOKS), seed=st.integers(0, 2**32 - 1), fmt=st.sampled_from(sorted(FORMATS)))
    def check(name, seed, fmt):
        lst = af.random_list(book(name), random.Random(seed), game=game(name), campaign=seed % 2 == 0)
        first = imported(player.post("/api/lists/import/", FORMATS[fmt](lst), format="json"))
        assert (first["faction"], first["entries"]) == (slugs[name], af.expected_entries(lst))
        status, content = download(player, f"/api/lists/{first['id']}/export/armyforge")
        assert status == 200, content[:500]
        exported = json.loads(content)
        assert (exported["gameSystem"], exported["listPoints"]) == (game(name), first["validation"]["total_points"])
        second = imported(player.post("/api/lists/import/", exported, format="json"))
        assert summary(second) == summary(first)
        assert "points_differ" not in codes(second) and "book_version_nearest" not in codes(second)

    check()


# -- what a version held does not have ----------------------------------------------------------
RATMEN = "aof--ratmen"
SCOUT_MASTER = "cByHKhW62Q"  # Battle Master's "Scout Master (…)", offered in 3.5.1, gone in 3.5.2


def scouts(version: str = "3.5.1") -> af.ArmyForgeList:
    return af.chosen_list(book(RATMEN, version), [{"unit": "Battle Master", "options": [SCOUT_MASTER]}])


def test_an_option_of_a_version_not_held_is_kept_and_named_and_the_list_shows_it(player):
    import_book(RATMEN)  # 3.5.2 only
    body = imported(player.post("/api/lists/import/", af.share_file(scouts()), format="json"))
    assert body["book_version"] == "3.5.2"
    assert body["entries"][0]["options"] == {SCOUT_MASTER: 1}
    missing = warning(body, "not_in_version")
    assert missing["missing"] == [
        {"entry": body["entries"][0]["id"], "unit": "Battle Master", "option": SCOUT_MASTER, "label": ""}
    ]
    assert missing["message"].startswith(f"Not in Ratmen 3.5.2: Battle Master's option \u201c{SCOUT_MASTER}\u201d.")
    assert "built on 3.5.1, which the site does not hold" in missing["message"]
    unknown = [issue for issue in body["validation"]["issues"] if issue["code"] == "unknown_option"]
    assert [issue["entry"] for issue in unknown] == [body["entries"][0]["id"]]


def test_an_option_missing_from_the_version_the_file_names_is_refused_naming_it(player):
    import_book(RATMEN)
    document = af.share_file(scouts())
    document["armyVersions"][0]["version"] = "3.5.2"  # a file that says 3.5.2 but is not
    response = player.post("/api/lists/import/", document, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "list": {
            "units": {
                "0": {
                    "selectedUpgrades": {
                        "0": {"optionId": [f'Battle Master has no upgrade option "{SCOUT_MASTER}" in Ratmen 3.5.2.']}
                    }
                }
            }
        }
    }
    assert not ArmyList.objects.exists()


def test_a_list_of_a_book_not_from_army_forge_has_no_army_forge_file(player, client):
    from factions.services import bundled_books_load

    bundled_books_load()
    created = player.post(
        "/api/lists/",
        {"system": "aof", "faction": "human-empire", "points_limit": 1000, "entries": []},
        format="json",
    ).json()
    response = player.get(f"/api/lists/{created['id']}/export/armyforge")
    assert response.status_code == 404
    assert response.json() == {
        "detail": "No Army Forge file of this list: its army book Human Empire did not come from Army Forge, so "
        "Army Forge could not open it; the json export (armylist/1) carries it to another copy of this site."
    }
    client.force_login(ArmyList.objects.get().owner)
    for address in (f"/lists/{created['id']}/", ArmyList.objects.get().share_path):
        page = client.get(address).content.decode()
        assert "export/json" in page and "Army Forge file" not in page, address


def test_the_builder_and_the_share_page_link_the_army_forge_file(player, client):
    import_book(WOOD_ELVES)
    data = book(WOOD_ELVES)
    body = imported(
        player.post(
            "/api/lists/import/", af.share_file(af.chosen_list(data, [{"unit": data["units"][0]["id"]}])), format="json"
        )
    )
    army_list = ArmyList.objects.get()
    client.force_login(army_list.owner)
    builder = client.get(f"/lists/{body['id']}/").content.decode()
    assert f'<a href="/api/lists/{body["id"]}/export/armyforge" download>Army Forge file</a>' in builder
    shared = client.get(army_list.share_path).content.decode()
    assert f'href="/api/shared/{army_list.share_key}/export/armyforge"' in shared and "Army Forge file" in shared


def test_the_import_form_asks_for_a_file_or_a_link(db, client):
    response = client.post("/lists/import/", {}, follow=True)
    assert (
        "Choose a list file (armylist/1 JSON or an Army Forge list) or paste an Army Forge share link."
        in response.content.decode()
    )
    assert not ArmyList.objects.exists()
