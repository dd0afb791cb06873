"""The admin works for every catalogue table: lists, search, filters, change pages; and
a change made there is checked as an import is, on the whole book it touches."""

import json

import pytest
from django.apps import apps
from django.urls import reverse

from armybuilder.memo import clear_all
from factions import models
from factions.armyforge_rules import armyforge_rules_store
from factions.models import Faction
from factions.services import armybook_import
from tests.support.admin_forms import change_form, save

# Army Forge sync records are written by syncs only (tests/armyforge/test_sync.py shows their page).
MODELS = [m for m in apps.get_app_config("factions").get_models() if m.__name__ not in ("UnitPackage", "ArmyForgeSync")]


@pytest.fixture
def admin_client_with_book(client, staff_user, make_aof_book, make_arena_book):
    clear_all()
    armybook_import(data=make_aof_book())
    armybook_import(data=make_arena_book())
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
def test_units_filter_by_ruleset(admin_client_with_book):
    url = reverse("admin:factions_unit_changelist")
    arena_only = admin_client_with_book.get(
        url, {"faction__ruleset__id__exact": Faction.objects.get(slug="test-pit").ruleset_id}
    )
    assert b"Pit Boss" in arena_only.content
    assert b"Warden Captain" not in arena_only.content


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
def test_admin_needs_staff(client, user):
    client.force_login(user)
    response = client.get(reverse("admin:factions_unit_changelist"))
    assert response.status_code == 302


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


# -- changes are checked as an import is -------------------------------------------------
def validate_status(client) -> int:
    body = {
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1500,
        "entries": [{"id": "a", "unit": "wardens"}],
    }
    return client.post("/api/validate/", body, content_type="application/json").status_code


def book_state() -> tuple[str, int]:
    return tuple(Faction.objects.filter(slug="test-wardens").values_list("version", "content_hash").get())


def option(uid: str) -> models.UpgradeOption:
    return models.UpgradeOption.objects.get(uid=uid, section__package__faction__slug="test-wardens")


@pytest.mark.django_db
def test_the_change_form_as_submitted_unchanged_saves_and_leaves_the_book_alone(admin_client_with_book):
    before = book_state()
    url, data = change_form(admin_client_with_book, option("TROOPS-2a"))
    assert data["gains-TOTAL_FORMS"] == ["1"] and data["costs"] == ['{"wardens": 15}']
    assert save(admin_client_with_book, url, data).status_code == 302
    assert book_state() == before


@pytest.mark.django_db
def test_an_option_cost_the_book_check_refuses_is_not_saved(admin_client_with_book):
    before = book_state()
    url, data = change_form(admin_client_with_book, option("TROOPS-2a"))
    data["cost"] = ["5000000"]
    data["label"] = ["Long Halberds"]
    response = save(admin_client_with_book, url, data)
    assert response.status_code == 200  # the form again, with the checks' answer
    page = response.content.decode()
    assert "Not saved: the change fails the checks import_armybook runs." in page
    assert "Test Wardens (aof/test-wardens): packages[1].sections[1].options[0].cost: 5000000 is" in page
    halberds = option("TROOPS-2a")
    assert (halberds.cost, halberds.label) == (10, "Halberds")
    assert book_state() == before
    assert validate_status(admin_client_with_book) == 200


@pytest.mark.django_db
def test_a_gain_of_a_rule_the_book_does_not_know_is_not_saved(admin_client_with_book):
    url, data = change_form(admin_client_with_book, option("TROOPS-1a"))
    assert data["gains-0-name"] == ["Sergeant"]
    data["gains-0-name"] = ["Sergent"]
    data["cost"] = ["7"]
    response = save(admin_client_with_book, url, data)
    assert response.status_code == 200
    assert (
        "packages[1].sections[0].options[0].gains[0].name: unknown rule &quot;Sergent&quot;: "
        "not a core rule of aof and not in the book&#x27;s rules"
    ) in response.content.decode()
    assert list(option("TROOPS-1a").gains.values_list("name", flat=True)) == ["Sergeant"]
    assert option("TROOPS-1a").cost == 5
    assert validate_status(admin_client_with_book) == 200


@pytest.mark.django_db
def test_unit_stats_the_export_cannot_read_are_refused_and_validation_keeps_working(admin_client_with_book):
    unit = models.Unit.objects.get(uid="wardens", faction__slug="test-wardens")
    url, data = change_form(admin_client_with_book, unit)
    data["stats"] = ["[4, 5]"]
    response = save(admin_client_with_book, url, data)
    assert response.status_code == 200
    assert "unit &quot;wardens&quot;: stats must be a JSON object, not [4, 5]" in response.content.decode()
    unit.refresh_from_db()
    assert unit.stats == {"quality": 4, "defense": 5}
    assert validate_status(admin_client_with_book) == 200


@pytest.mark.django_db
def test_taking_a_package_off_a_unit_its_options_still_price_is_refused(admin_client_with_book):
    """An inline row deleted (the unit's TROOPS package) is checked like any change: the
    Halberds option still names a price for the Wardens."""
    unit = models.Unit.objects.get(uid="wardens", faction__slug="test-wardens")
    url, data = change_form(admin_client_with_book, unit)
    assert data["unit_packages-0-package"] == [str(models.Package.objects.get(uid="TROOPS").pk)]
    data["unit_packages-0-DELETE"] = ["on"]
    response = save(admin_client_with_book, url, data)
    assert response.status_code == 200
    assert (
        "packages[1].sections[1].options[0].costs.wardens: unit &quot;wardens&quot; does not take this package"
    ) in response.content.decode()
    assert list(unit.unit_packages.values_list("package__uid", flat=True)) == ["TROOPS"]


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
    unit = models.Unit.objects.get(uid="wardens", faction__slug="test-wardens")
    url, data = change_form(admin_client_with_book, unit)
    data["cost"] = ["125"]
    assert save(admin_client_with_book, url, data).status_code == 302

    # The edit is a new version of the book; the list keeps the version it was built on until moved on.
    again = admin_client_with_book.get(f"/api/lists/{saved['id']}/").json()
    assert (again["book_version"], again["book_latest"], again["book_changed"]) == ("1.0.0", "1.0.0+admin.1", True)
    assert again["validation"]["total_points"] == 110
    page = admin_client_with_book.get(reverse("builder", args=[saved["id"]]))
    assert "Test Wardens 1.0.0+admin.1 is out: your one unit changes cost, +15 pts." in page.content.decode()
    assert Faction.objects.get(slug="test-wardens").version == "1.0.0+admin.1"
    moved = admin_client_with_book.post(f"/api/lists/{saved['id']}/upgrade/", {}, content_type="application/json")
    assert moved.json()["list"]["validation"]["total_points"] == 125
    assert validate_status(admin_client_with_book) == 200


@pytest.mark.django_db
def test_deleting_a_package_units_take_is_refused(admin_client_with_book):
    package = models.Package.objects.get(uid="TROOPS", faction__slug="test-wardens")
    before = book_state()
    url = reverse("admin:factions_package_delete", args=[package.pk])
    response = admin_client_with_book.post(url, {"post": "yes"}, follow=True)
    assert response.status_code == 200
    shown = [str(m) for m in response.context["messages"]]
    assert shown == [
        "Not deleted: the change fails the checks import_armybook runs.",
        'package "TROOPS" is taken by wardens, wardens-0: take it off those units first',
    ]
    assert models.Package.objects.filter(pk=package.pk).exists()
    assert models.UnitPackage.objects.filter(package=package).count() == 2
    assert book_state() == before
    # The same through the "delete selected" action of the list.
    response = admin_client_with_book.post(
        reverse("admin:factions_package_changelist"),
        {"action": "delete_selected", "_selected_action": [package.pk], "post": "yes"},
        follow=True,
    )
    assert 'package "TROOPS" is taken by wardens, wardens-0: take it off those units first' in [
        str(m) for m in response.context["messages"]
    ]
    assert models.Package.objects.filter(pk=package.pk).exists()
    assert validate_status(admin_client_with_book) == 200


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


@pytest.mark.django_db
def test_moving_a_unit_to_another_book_checks_both_books(admin_client_with_book):
    unit = models.Unit.objects.get(uid="wardens", faction__slug="test-wardens")
    url, data = change_form(admin_client_with_book, unit)
    data["faction"] = [str(Faction.objects.get(slug="test-pit").pk)]
    response = save(admin_client_with_book, url, data)
    assert response.status_code == 200
    page = response.content.decode()
    # The book it left still prices it; the book it joined cannot give it TROOPS.
    assert "Test Wardens (aof/test-wardens): packages[1].sections[1].options[0].costs.wardens: unknown unit" in page
    assert "(aof-arena/test-pit): unit &quot;wardens&quot; takes package &quot;TROOPS&quot; of another book" in page
    unit.refresh_from_db()
    assert unit.faction.slug == "test-wardens"


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
