"""Rulesets as data: a variant has its own name, points and limit rows, plays its base's
game with the base's army books, and travels as ruleset/1 (factions/ruleset_format.py)."""

import copy
import json

import pytest
from django.core.management import call_command

from armybuilder.armyforge.books.imports import book_import
from armybuilder.engine.rulesets import has_force_org_choice
from factions.models import Faction, ForceOrgLimit, Ruleset
from factions.ruleset_format import RulesetError
from factions.selectors import book_handle_find, ruleset_document, ruleset_get
from factions.services import ruleset_import, ruleset_variant_create

VALIDATE = "/api/validate/"


def wardens_list(system: str, points: int, units: list[str]) -> dict:
    entries = [{"id": f"e{i}", "unit": unit} for i, unit in enumerate(units)]
    return {"system": system, "faction": "test-wardens", "points_limit": points, "entries": entries}


def issues(api_client, body: dict) -> list[dict]:
    response = api_client.post(VALIDATE, body, format="json")
    assert response.status_code == 200, response.content
    return response.json()["issues"]


@pytest.fixture
def club(db):
    return ruleset_variant_create(source=Ruleset.objects.get(slug="aof"), slug="aof-club", name="AoF Club Rules")


def test_a_variant_starts_as_a_copy_of_its_source_and_plays_its_base(club):
    aof = ruleset_get(slug="aof")
    made = ruleset_get(slug="aof-club")
    assert (made.base, made.family, made.title) == (aof, "aof", "AoF Club Rules 3.2.0")
    assert (made.stat_fields, made.unit_types, made.uses_points) == (aof.stat_fields, aof.unit_types, True)
    rows = ("code", "kind", "params", "severity", "section", "optional")
    assert list(made.limits.values_list(*rows)) == list(aof.limits.values_list(*rows))
    assert set(made.core_rules.values_list("name", flat=True)) == set(aof.core_rules.values_list("name", flat=True))
    assert made.content_hash and made.content_hash != aof.content_hash


def test_a_changed_limit_of_a_variant_applies_to_its_lists_only(api_client, wardens, club):
    ForceOrgLimit.objects.filter(ruleset=club, code="unit_too_expensive").update(params={"percent": 30})
    ruleset_import(data={**ruleset_document(ruleset=ruleset_get(slug="aof-club"))})  # restamped as any write is
    body = wardens_list("aof-club", 355, ["wardens"])  # 110 of 355 pts: 31%
    found = [i for i in issues(api_client, body) if i["code"] == "unit_too_expensive"]
    assert [i["rule"] for i in found] == ["AoF Club Rules 3.2.0 — Force Organisation"]
    assert "30% of 355 pts" in found[0]["message"]
    assert not [i for i in issues(api_client, {**body, "system": "aof"}) if i["code"] == "unit_too_expensive"]


def test_a_variant_with_an_added_limit_row_validates_with_no_engine_change(api_client, wardens, club):
    document = ruleset_document(ruleset=ruleset_get(slug="aof-club"))
    one_hero = {
        "code": "one_hero_only",
        "kind": "max_count",
        "params": {"counts": "heroes", "max": 1},
        "section": "Club rules, page 1",
    }
    ruleset_import(data={**document, "limits": [*document["limits"], one_hero]})
    body = wardens_list("aof-club", 2000, ["warden-captain", "warden-captain"])
    found = [i for i in issues(api_client, body) if i["code"] == "one_hero_only"]
    assert found == [
        {
            "code": "one_hero_only",
            "severity": "error",
            "entry": None,
            "message": "2 heroes, but an army may have at most 1",
            "rule": "AoF Club Rules 3.2.0 — Club rules, page 1",
        }
    ]
    assert "one_hero_only" not in [i["code"] for i in issues(api_client, {**body, "system": "aof"})]


def test_a_book_can_name_the_variant_and_its_lists_find_it_before_the_base_s(api_client, wardens, club):
    from tests.conftest import aof_book

    own = aof_book()
    own["system"], own["name"] = "aof-club", "Club Wardens"
    book_import(data=own)
    assert api_client.post(VALIDATE, wardens_list("aof-club", 1000, []), format="json").status_code == 200
    assert (
        book_handle_find(system="aof-club", slug="test-wardens").faction_id
        == Faction.objects.get(name="Club Wardens").pk
    )
    assert book_handle_find(system="aof", slug="test-wardens").faction_id == wardens.pk
    listed = {(f["system"], f["name"]) for f in api_client.get("/api/factions/?system=aof-club").json()}
    assert listed == {("aof", "Test Wardens"), ("aof-club", "Club Wardens")}


def test_export_then_import_is_the_same_variant(tmp_path, club):
    out = tmp_path / "club.json"
    call_command("export_ruleset", "aof-club", "-o", str(out))
    exported = json.loads(out.read_text())
    assert exported["format"] == "ruleset/1" and exported["base"] == "aof"
    exported["slug"], exported["name"] = "aof-club-two", "AoF Club Rules II"
    out.write_text(json.dumps(exported))
    call_command("import_ruleset", str(out))
    again = ruleset_document(ruleset=ruleset_get(slug="aof-club-two"))
    assert again == exported


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        (lambda d: d.update(base="aof-club"), "base", '"aof-club" is itself a variant'),
        (lambda d: d.update(base="warhammer"), "base", '"warhammer" is no ruleset here'),
        (lambda d: d.update(slug="aof"), "slug", "is a ruleset of the rulebooks"),
        (lambda d: d.update(slug="Not A Slug"), "slug", "does not match"),
        (lambda d: d["limits"][2].update(params={"percent": 0}), "limits[2].params", '"percent" must be'),
        (lambda d: d["limits"][1].update(code="too_many_heroes"), "limits[1].code", "code of another limit"),
        (
            lambda d: d["limits"].append({"code": "x", "kind": "dice", "params": {}, "section": "S"}),
            "limits[5].kind",
            "",
        ),
        (lambda d: d["limits"][0].update(kind="composition", params={}), "limits[0].kind", "only Arena"),
        (lambda d: d.pop("limits"), "", "'limits' is a required property"),
        (
            lambda d: d.update(default_points=3000, max_points=2000),
            "default_points",
            "3000 pts is above the largest limit, 2000 pts",
        ),
        (
            lambda d: d.update(suggested_points=[500, 2500], max_points=2000),
            "suggested_points[1]",
            "2500 pts is above the largest limit, 2000 pts",
        ),
    ],
)
def test_a_bad_variant_names_what_is_wrong_and_changes_nothing(club, change, path, words):
    document = copy.deepcopy(ruleset_document(ruleset=ruleset_get(slug="aof-club")))
    document["slug"] = "aof-new"
    change(document)
    before = list(Ruleset.objects.values_list("slug", "content_hash"))
    with pytest.raises(RulesetError) as caught:
        ruleset_import(data=document)
    assert [p.path for p in caught.value.problems][:1] == [path], caught.value.problems
    assert words in str(caught.value.problems[0].message)
    assert list(Ruleset.objects.values_list("slug", "content_hash")) == before


def test_an_arena_variant_keeps_arena_s_no_points(db):
    variant = ruleset_variant_create(source=Ruleset.objects.get(slug="aof-arena"), slug="arena-league", name="League")
    assert (variant.uses_points, variant.default_points, variant.family) == (False, None, "aof-arena")
    with pytest.raises(RulesetError) as caught:
        ruleset_import(data={**ruleset_document(ruleset=ruleset_get(slug="arena-league")), "default_points": 500})
    assert caught.value.problems[0].path == "default_points"


def test_a_taken_slug_is_refused(club):
    with pytest.raises(RulesetError) as caught:
        ruleset_variant_create(source=Ruleset.objects.get(slug="aof"), slug="aof-club", name="Again")
    assert caught.value.problems[0].message == '"aof-club" is taken: choose another'


def test_a_variant_s_list_goes_through_every_page_and_file(client, user, wardens, club):
    """Start page, new list, builder, rules page, share page, the PDFs and the text: a list
    of the variant is built with the base's army book and printed as the base's game."""
    client.force_login(user)
    assert "A variant of Age of Fantasy 3.2.0" in client.get("/").content.decode()
    assert "A variant of" in client.get("/rules/aof-club/").content.decode()
    response = client.post("/new/aof-club/", {"faction": "test-wardens", "points": 355, "name": "Club list"})
    assert response.status_code == 302, response.content.decode()[:2000]
    builder = response["Location"]
    page = client.get(builder).content.decode()
    assert "AoF Club Rules 3.2.0" in page and "Test Wardens" in page
    client.post(builder + "act/", {"action": "add", "unit": "wardens", "version": 1})
    from armybuilder.lists.models import ArmyList

    army_list = ArmyList.objects.get(name="Club list")
    assert (army_list.system, [e["unit"] for e in army_list.entries]) == ("aof-club", ["wardens"])
    assert client.get("/rules/aof-club/").status_code == 200
    assert client.get(f"/s/{army_list.share_key}/").status_code == 200
    for kind in ("cards.pdf", "roster.pdf", "reference.pdf", "text", "json"):
        response = client.get(f"/api/lists/{army_list.pk}/export/{kind}")
        assert response.status_code == 200, (kind, response.content[:300])
    assert client.get("/rules/aof-club/reference.pdf").status_code == 200


def test_the_readme_s_example_variant_imports(db):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme[readme.index("## Rulesets as data") :]
    example = json.loads(section[section.index("```json") + 7 : section.index("```", section.index("```json") + 7)])
    variant = ruleset_import(data=example)
    assert (variant.slug, variant.base.slug, variant.limits.count()) == ("aof-club", "aof", 3)


def test_the_admin_keeps_default_and_suggested_points_within_the_largest(club):
    from django.core.exceptions import ValidationError

    ruleset = ruleset_get(slug="aof-club")
    ruleset.max_points, ruleset.default_points, ruleset.suggested_points = 1000, 1500, [750, 1250]
    with pytest.raises(ValidationError) as caught:
        ruleset.full_clean()
    assert caught.value.message_dict == {
        "default_points": ["1500 pts is above the largest limit, 1000 pts"],
        "suggested_points": ["1250 pts is above the largest limit, 1000 pts"],
    }


@pytest.mark.parametrize("system", ["aof", "aof-club"])
def test_a_variant_of_age_of_fantasy_offers_its_force_organisation_choice(client, wardens, club, system):
    """A club variant plays its base's game, force organisation choice and all: the
    builder shows the box and saves what it says."""
    from armybuilder.lists.models import ArmyList

    response = client.post(f"/new/{system}/", {"faction": "test-wardens", "points": 750, "name": "Club list"})
    assert response.status_code == 302, response.content.decode()[:2000]
    army_list = ArmyList.objects.get(name="Club list")
    assert army_list.force_org and 'name="force_org"' in client.get(response["Location"]).content.decode()
    fields = {"action": "settings", "version": army_list.version, "points_limit": 750, "force_org": ""}
    client.post(f"/lists/{army_list.pk}/act/", fields)
    army_list.refresh_from_db()
    assert not army_list.force_org


@pytest.mark.parametrize(
    ("family", "choice"),
    [
        ("aof", True),
        ("aof-regiments", False),
        ("aof-skirmish", False),
        ("opf", False),
        ("aof-arena", False),
        ("x", False),
    ],
)
def test_only_age_of_fantasy_s_game_has_a_force_organisation_choice(family, choice):
    assert has_force_org_choice(family) is choice
