"""The admin works for every catalogue table: lists, search, filters, change pages."""

import json

import pytest
from django.apps import apps
from django.urls import reverse

from factions import models
from factions.models import Faction
from factions.services import armybook_import

MODELS = [m for m in apps.get_app_config("factions").get_models() if m.__name__ != "UnitPackage"]


@pytest.fixture
def admin_client_with_book(client, staff_user, make_aof_book, make_arena_book):
    armybook_import(data=make_aof_book())
    armybook_import(data=make_arena_book())
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
