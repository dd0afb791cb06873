"""The admin works for every catalogue table: lists, search, filters, change pages; a
book is edited as its current version's document, part by part, checked as an import is
and kept as a new version; a ruleset's change is checked on every book of it."""

import json

import pytest
from django.apps import apps
from django.urls import reverse

from armybuilder.armyforge.books.imports import book_import
from armybuilder.armyforge.rules import armyforge_rules_store
from armybuilder.memo import clear_all
from factions import models
from factions.models import Faction
from factions.selectors import faction_document
from tests.conftest import book_option, edit_book, part
from tests.support.admin_forms import ChangeForm, change_form, save

# Army Forge sync records are written by syncs only (tests/armyforge/test_sync.py shows their page).
MODELS = [m for m in apps.get_app_config("factions").get_models() if m.__name__ != "ArmyForgeSync"]


@pytest.fixture
def admin_client_with_book(client, staff_user, make_aof_book, make_arena_book):
    clear_all()
    book_import(data=make_aof_book())
    book_import(data=make_arena_book())
    armyforge_rules_store(system="aof", rules=[{"name": "Warding", "text": "Blocks the first wound of each round."}])
    client.force_login(staff_user)
    return client


@pytest.mark.django_db
@pytest.mark.parametrize("model", MODELS, ids=[m.__name__ for m in MODELS])
def test_admin_changelist_and_change_page_open(admin_client_with_book, model):
    opts = model._meta
    changelist = reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist")
    assert admin_client_with_book.get(changelist).status_code == 200
    assert admin_client_with_book.get(changelist, {"q": "war"}).status_code == 200
    obj = model.objects.first()
    assert obj is not None
    change = reverse(f"admin:{opts.app_label}_{opts.model_name}_change", args=[obj.pk])
    assert admin_client_with_book.get(change).status_code == 200


@pytest.mark.django_db
def test_books_filter_by_ruleset(admin_client_with_book):
    url = reverse("admin:factions_faction_changelist")
    arena_only = admin_client_with_book.get(
        url, {"ruleset__id__exact": Faction.objects.get(slug="test-pit").ruleset_id}
    )
    assert b"Test Pit" in arena_only.content
    assert b"Test Wardens" not in arena_only.content


@pytest.mark.django_db
def test_admin_exports_a_book_as_armybook_json(admin_client_with_book, make_aof_book):
    faction = Faction.objects.get(slug="test-wardens")
    response = admin_client_with_book.post(
        reverse("admin:factions_faction_changelist"),
        {"action": "export_books", "_selected_action": [faction.pk]},
    )
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="aof-test-wardens.json"'
    assert json.loads(response.content) == make_aof_book()


@pytest.mark.django_db
def test_admin_needs_staff(client, user, wardens):
    client.force_login(user)
    for url in (
        reverse("admin:factions_faction_changelist"),
        reverse("admin:factions_faction_document", args=[Faction.objects.get().pk]),
    ):
        assert client.get(url).status_code == 302


@pytest.mark.django_db
def test_a_limit_saved_with_empty_parameters_is_refused_and_validation_keeps_working(admin_client_with_book):
    limit = models.ForceOrgLimit.objects.get(ruleset__slug="aof", code="unit_too_expensive")
    url = reverse("admin:factions_forceorglimit_change", args=[limit.pk])
    form = {
        "ruleset": limit.ruleset_id,
        "code": limit.code,
        "kind": limit.kind,
        "params": "{}",
        "severity": limit.severity,
        "section": limit.section,
        "optional": "on" if limit.optional else "",
        "order": limit.order,
    }
    response = admin_client_with_book.post(url, form)
    assert response.status_code == 200  # the form again, with the error
    assert "&quot;percent&quot; is required for a unit_share limit" in response.content.decode()
    limit.refresh_from_db()
    assert limit.params == {"percent": 35}
    body = {
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1500,
        "entries": [{"id": "a", "unit": "wardens"}],
    }
    assert admin_client_with_book.post("/api/validate/", body, content_type="application/json").status_code == 200
    form["params"] = '{"percent": 30}'
    assert admin_client_with_book.post(url, form).status_code == 302
    limit.refresh_from_db()
    assert limit.params == {"percent": 30}


# -- a book is edited as its document, checked as an import is ----------------------------
def validate_status(client) -> int:
    body = {
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1500,
        "entries": [{"id": "a", "unit": "wardens"}],
    }
    return client.post("/api/validate/", body, content_type="application/json").status_code


def book_state() -> tuple[str, str, int]:
    """The book's current version, its stamp and how many versions it keeps."""
    faction = Faction.objects.get(slug="test-wardens")
    return faction.version, faction.content_hash, faction.versions.count()


def document_form(client, slug: str = "test-wardens") -> tuple[str, dict[str, list[str]]]:
    """The book's edit page's URL and the form data a browser would send from it."""
    url = reverse("admin:factions_faction_document", args=[Faction.objects.get(slug=slug).pk])
    page = client.get(url)
    assert page.status_code == 200
    form = ChangeForm("faction_document_form")
    form.feed(page.content.decode())
    assert form.data, "no form on the page"
    return url, form.data


def edited(data: dict[str, list[str]], part_name: str, change) -> dict[str, list[str]]:
    """The form data with the JSON of one part changed in place by `change`."""
    value = json.loads(data[part_name][0])
    change(value)
    return {**data, part_name: [json.dumps(value, indent=2)]}


def page_text(response) -> str:
    """The page as its reader sees the words (the admin escapes quotes)."""
    return response.content.decode().replace("&quot;", '"').replace("&#x27;", "'")


def part_errors(response, name: str) -> str:
    """The errors shown on one part of the edit page."""
    page = response.content.decode()
    start = page.index(f'id="part-{name}"')
    return page[start : page.index("</div>", start)].replace("&quot;", '"').replace("&#x27;", "'")


@pytest.mark.django_db
def test_the_book_s_page_leads_to_its_edit_page_which_shows_each_part(admin_client_with_book):
    faction = Faction.objects.get(slug="test-wardens")
    page = admin_client_with_book.get(reverse("admin:factions_faction_change", args=[faction.pk])).content.decode()
    url = reverse("admin:factions_faction_document", args=[faction.pk])
    assert f'<a href="{url}" id="edit-document">Edit Test Wardens 1.0.0</a>, kept as a new version' in page
    _url, data = document_form(admin_client_with_book)
    document = faction_document(faction=faction)
    assert (data["version"], data["name"], data["based_on"]) == (
        ["1.0.0+admin.1"],
        ["Test Wardens"],
        [faction.content_hash],
    )
    for name in ("rules", "spells", "units", "packages"):
        assert json.loads(data[name][0]) == document[name]
    assert data["composition"] == [""]  # an AoF book has no composition card


@pytest.mark.django_db
def test_the_edit_page_submitted_unchanged_saves_nothing_and_says_so(admin_client_with_book):
    before = book_state()
    url, data = document_form(admin_client_with_book)
    response = admin_client_with_book.post(url, data, follow=True)
    assert [str(m) for m in response.context["messages"]] == ["Nothing changed: Test Wardens 1.0.0 is kept as it was."]
    assert book_state() == before


@pytest.mark.django_db
def test_an_option_cost_the_book_check_refuses_is_not_saved(admin_client_with_book):
    before = book_state()
    url, data = document_form(admin_client_with_book)
    data = edited(
        data,
        "packages",
        lambda packages: book_option({"packages": packages}, "TROOPS-2a").update(cost=5000000, label="Long Halberds"),
    )
    response = admin_client_with_book.post(url, data)
    assert response.status_code == 200  # the form again, with the checks' answer
    assert "Not saved: the book fails the checks an import runs (each is shown by its part)." in page_text(response)
    assert "packages[1].sections[1].options[0].cost: 5000000 is greater than the maximum of 100000" in part_errors(
        response, "packages"
    )
    assert '"Long Halberds"' in page_text(response)  # the form keeps what was typed
    halberds = book_option(faction_document(faction=Faction.objects.get(slug="test-wardens")), "TROOPS-2a")
    assert (halberds["cost"], halberds["label"]) == (10, "Halberds")
    assert book_state() == before
    assert validate_status(admin_client_with_book) == 200


@pytest.mark.django_db
def test_a_gain_of_a_rule_the_book_does_not_know_is_not_saved(admin_client_with_book):
    before = book_state()
    url, data = document_form(admin_client_with_book)

    def misspell(packages):
        option = book_option({"packages": packages}, "TROOPS-1a")
        assert option["gains"][0]["name"] == "Sergeant"
        option["gains"][0]["name"] = "Sergent"
        option["cost"] = 7

    response = admin_client_with_book.post(url, edited(data, "packages", misspell))
    assert response.status_code == 200
    assert (
        'packages[1].sections[0].options[0].gains[0].name: unknown rule "Sergent": '
        "not a core rule of aof and not in the book's rules"
    ) in part_errors(response, "packages")
    assert book_state() == before
    assert validate_status(admin_client_with_book) == 200


@pytest.mark.django_db
def test_unit_stats_of_the_wrong_shape_are_refused_on_the_units_part(admin_client_with_book):
    before = book_state()
    url, data = document_form(admin_client_with_book)
    response = admin_client_with_book.post(
        url, edited(data, "units", lambda units: part(units, "id", "wardens").update(stats=[4, 5]))
    )
    assert response.status_code == 200
    assert "units[1].stats: [4, 5] is not of type 'object'" in part_errors(response, "units")
    assert book_state() == before
    assert validate_status(admin_client_with_book) == 200


@pytest.mark.django_db
def test_a_part_that_is_not_json_is_named_and_nothing_is_saved(admin_client_with_book):
    before = book_state()
    url, data = document_form(admin_client_with_book)
    response = admin_client_with_book.post(url, {**data, "spells": ['[{"name": "Bolt",]'], "name": ["Renamed"]})
    assert response.status_code == 200
    assert (
        "Spells: not valid JSON: Expecting property name enclosed in double quotes: line 1 column 18 (char 17)"
        in part_errors(response, "spells")
    )
    response = admin_client_with_book.post(url, {**data, "units": ['{"id": "wardens"}']})
    assert "Units: must be a JSON list" in part_errors(response, "units")
    assert book_state() == before
    assert Faction.objects.get(slug="test-wardens").name == "Test Wardens"


@pytest.mark.django_db
def test_a_part_nested_without_end_or_holding_a_nul_is_named_and_nothing_is_saved(admin_client_with_book):
    """A part is read as an import reads a file: JSON nested deeper than the parser goes
    and a NUL (which no database text holds) are problems on that part, not errors."""
    before = book_state()
    url, data = document_form(admin_client_with_book)
    response = admin_client_with_book.post(url, {**data, "spells": ["[" * 100_000 + "]" * 100_000]})
    assert response.status_code == 200
    assert "Spells: not valid JSON: nested more than" in part_errors(response, "spells")
    response = admin_client_with_book.post(url, {**data, "spells": ['[{"name": "Bolt\\u0000"}]']})
    assert response.status_code == 200
    assert "Spells: not valid: the file contains a NUL character" in part_errors(response, "spells")
    assert book_state() == before


@pytest.mark.django_db
def test_taking_a_package_off_a_unit_its_options_still_price_is_refused(admin_client_with_book):
    """The Halberds option still names a price for the Wardens."""
    before = book_state()
    url, data = document_form(admin_client_with_book)
    response = admin_client_with_book.post(
        url, edited(data, "units", lambda units: part(units, "id", "wardens").update(upgrades=[]))
    )
    assert response.status_code == 200
    assert (
        'packages[1].sections[1].options[0].costs.wardens: unit "wardens" does not take this package'
    ) in part_errors(response, "packages")
    assert book_state() == before


@pytest.mark.django_db
def test_a_package_units_take_cannot_be_taken_out_of_the_book(admin_client_with_book):
    before = book_state()
    url, data = document_form(admin_client_with_book)
    response = admin_client_with_book.post(
        url, edited(data, "packages", lambda packages: packages.remove(part(packages, "id", "TROOPS")))
    )
    assert response.status_code == 200
    assert 'units[1].upgrades[0]: unknown package "TROOPS"' in part_errors(response, "units")
    assert 'units[2].upgrades[0]: unknown package "TROOPS"' in part_errors(response, "units")
    assert book_state() == before
    assert validate_status(admin_client_with_book) == 200


@pytest.mark.django_db
def test_a_version_name_held_already_or_not_a_version_is_named(admin_client_with_book):
    before = book_state()
    url, data = document_form(admin_client_with_book)
    data = edited(data, "units", lambda units: part(units, "id", "wardens").update(cost=125))
    response = admin_client_with_book.post(url, {**data, "version": ["1.0.0"]})
    assert 'version: Test Wardens holds a version "1.0.0" already' in part_errors(response, "version")
    response = admin_client_with_book.post(url, {**data, "version": ["next"]})
    assert "version: 'next' does not match" in part_errors(response, "version")
    assert book_state() == before


@pytest.mark.django_db
def test_a_unit_cost_changed_in_the_admin_is_a_new_version_saved_lists_are_told_of(admin_client_with_book):
    body = {
        "format": "armylist/1",
        "name": "Patrol",
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1500,
        "entries": [{"id": "e1", "unit": "wardens"}],
    }
    created = admin_client_with_book.post("/api/lists/", body, content_type="application/json")
    assert created.status_code == 201, created.content
    saved = created.json()
    assert (saved["book_changed"], saved["validation"]["total_points"]) == (False, 110)
    url, data = document_form(admin_client_with_book)
    data = edited(data, "units", lambda units: part(units, "id", "wardens").update(cost=125))
    response = admin_client_with_book.post(url, data, follow=True)
    assert response.redirect_chain[-1][0] == reverse(
        "admin:factions_faction_change", args=[Faction.objects.get(slug="test-wardens").pk]
    )
    assert [str(m) for m in response.context["messages"]] == [
        "Kept Test Wardens 1.0.0+admin.1 (was 1.0.0): the current version."
    ]

    # The edit is a new version of the book; the list keeps the version it was built on until moved on.
    again = admin_client_with_book.get(f"/api/lists/{saved['id']}/").json()
    assert (again["book_version"], again["book_latest"], again["book_changed"]) == ("1.0.0", "1.0.0+admin.1", True)
    assert again["validation"]["total_points"] == 110
    page = admin_client_with_book.get(reverse("builder", args=[saved["id"]]))
    assert "Test Wardens 1.0.0+admin.1 is out: your one unit changes cost, +15 pts." in page.content.decode()
    faction = Faction.objects.get(slug="test-wardens")
    assert faction.version == "1.0.0+admin.1"
    assert list(faction.versions.order_by("imported_at", "id").values_list("version", flat=True)) == [
        "1.0.0",
        "1.0.0+admin.1",
    ]
    old = faction.versions.get(version="1.0.0").document
    assert part(old["units"], "id", "wardens")["cost"] == 110  # a kept version is never changed
    moved = admin_client_with_book.post(f"/api/lists/{saved['id']}/upgrade/", {}, content_type="application/json")
    assert moved.json()["list"]["validation"]["total_points"] == 125
    assert validate_status(admin_client_with_book) == 200


@pytest.mark.django_db
def test_the_name_and_description_are_edited_too_and_a_second_edit_counts_on(admin_client_with_book):
    url, data = document_form(admin_client_with_book)
    response = admin_client_with_book.post(url, {**data, "name": ["Wardens of the Marches"], "description": ["New."]})
    assert response.status_code == 302
    faction = Faction.objects.get(slug="test-wardens")
    assert (faction.name, faction.description, faction.version) == ("Wardens of the Marches", "New.", "1.0.0+admin.1")
    url, data = document_form(admin_client_with_book)
    assert data["version"] == ["1.0.0+admin.2"]
    response = admin_client_with_book.post(url, {**data, "description": [""]})
    assert response.status_code == 302
    document = faction_document(faction=Faction.objects.get(slug="test-wardens"))
    assert (document["version"], "description" in document) == ("1.0.0+admin.2", False)


@pytest.mark.django_db
def test_an_edit_made_from_a_version_someone_replaced_meanwhile_is_refused(admin_client_with_book):
    """No lost update: the form was opened at 1.0.0; another editor kept 1.0.0+admin.1 since."""
    url, data = document_form(admin_client_with_book)
    edit_book("test-wardens", lambda book: part(book["units"], "id", "wardens").update(cost=120))
    meanwhile = book_state()
    data = edited(data, "units", lambda units: part(units, "id", "wardens").update(cost=125))
    response = admin_client_with_book.post(url, {**data, "version": ["1.0.0+admin.9"]})
    assert response.status_code == 200
    assert (
        "Test Wardens was changed while you edited it: its current version is now 1.0.0+admin.1. "
        "Nothing was saved; reload to edit the current version."
    ) in page_text(response)
    assert book_state() == meanwhile
    current = faction_document(faction=Faction.objects.get(slug="test-wardens"))
    assert part(current["units"], "id", "wardens")["cost"] == 120


@pytest.mark.django_db
def test_an_arena_book_s_composition_card_is_a_part_of_its_own(admin_client_with_book):
    url, data = document_form(admin_client_with_book, "test-pit")
    card = json.loads(data["composition"][0])
    card["models"]["max"] = card["models"]["min"] - 1
    response = admin_client_with_book.post(url, {**data, "composition": [json.dumps(card)]})
    assert "composition.models: min is greater than max" in part_errors(response, "composition")
    response = admin_client_with_book.post(url, {**data, "composition": [""]})
    assert "composition: an Arena book needs its warband composition card" in part_errors(response, "composition")
    assert Faction.objects.get(slug="test-pit").versions.count() == 1


@pytest.mark.django_db
def test_staff_who_may_not_change_books_cannot_edit_one(client, wardens):
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Permission

    viewer = get_user_model().objects.create_user("viewer", password="not-a-real-pass-123", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename="view_faction"))
    client.force_login(viewer)
    url = reverse("admin:factions_faction_document", args=[wardens.pk])
    assert client.get(url).status_code == 403
    assert client.get(reverse("admin:factions_faction_change", args=[wardens.pk])).status_code == 200


@pytest.mark.django_db
def test_adding_a_book_in_the_admin_leads_to_the_import(admin_client_with_book):
    response = admin_client_with_book.get(reverse("admin:factions_faction_add"))
    assert response.status_code == 302 and response["Location"] == reverse("admin:factions_faction_import")


@pytest.mark.django_db
def test_deleting_a_core_rule_a_book_uses_is_refused(admin_client_with_book):
    rule = models.CoreRule.objects.get(ruleset__slug="aof", name="Tough")
    response = admin_client_with_book.post(
        reverse("admin:factions_corerule_delete", args=[rule.pk]), {"post": "yes"}, follow=True
    )
    shown = [str(m) for m in response.context["messages"]]
    assert (
        'Test Wardens (aof/test-wardens): units[0].rules[1]: unknown rule "Tough": '
        "not a core rule of aof and not in the book's rules"
    ) in shown
    assert models.CoreRule.objects.filter(pk=rule.pk).exists()
    assert validate_status(admin_client_with_book) == 200


# -- ruleset variants and event packs ----------------------------------------------------
@pytest.mark.django_db
def test_make_a_variant_from_the_rulesets_list(admin_client_with_book):
    aof = models.Ruleset.objects.get(slug="aof")
    response = admin_client_with_book.post(
        reverse("admin:factions_ruleset_changelist"),
        {"action": "make_variants", "_selected_action": [aof.pk]},
        follow=True,
    )
    variant = models.Ruleset.objects.get(slug="aof-variant-1")
    assert (variant.base, variant.name) == (aof, "Age of Fantasy (variant)")
    assert "Made" in response.content.decode() and "rename it and change its limits" in response.content.decode()
    assert variant.limits.count() == aof.limits.count()


@pytest.mark.django_db
def test_a_variant_must_keep_its_base_s_stats(admin_client_with_book):
    from factions.services import ruleset_variant_create

    variant = ruleset_variant_create(source=models.Ruleset.objects.get(slug="aof"), slug="aof-club", name="Club")
    url, data = change_form(admin_client_with_book, variant)
    data["stat_fields"] = ['["quality"]']
    response = save(admin_client_with_book, url, data)
    assert response.status_code == 200
    assert "aof-club stat_fields must be aof&#x27;s" in response.content.decode()
    variant.refresh_from_db()
    assert variant.stat_fields == ["quality", "defense"]


@pytest.mark.django_db
def test_an_event_pack_saved_in_the_admin_is_checked_as_the_site_checks_one(admin_client_with_book, staff_user):
    from datetime import timedelta

    from django.utils import timezone

    from armybuilder.events.models import EventPack

    url = reverse("admin:events_eventpack_add")
    form = {
        "organiser": staff_user.pk,
        "name": "Club Night",
        "description": "",
        "ruleset": models.Ruleset.objects.get(slug="aof").pk,
        "points_limit": 1000,
        "deadline_0": (timezone.now() + timedelta(days=3)).strftime("%Y-%m-%d"),
        "deadline_1": "18:00:00",
        "factions": "[]",
        "limit_changes": '{"unit_too_expensive": {"percent": 0}}',
        "limits_removed": "[]",
        "limits_added": "[]",
        "bans": '[{"faction": "test-wardens", "unit": "dragon"}]',
        "caps": "[]",
        "books": "current",
    }
    response = admin_client_with_book.post(url, form)
    page = response.content.decode()
    assert response.status_code == 200
    assert "must be a whole number from 1 to 1,000,000" in page and "No unit &quot;dragon&quot; in Test Wardens" in page
    assert not EventPack.objects.exists()
    form.update(limit_changes='{"unit_too_expensive": {"percent": 30}}', bans="[]")
    assert admin_client_with_book.post(url, form).status_code == 302
    assert EventPack.objects.get().limit_changes == {"unit_too_expensive": {"percent": 30}}
