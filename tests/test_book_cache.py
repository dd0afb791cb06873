"""Cached engine books expire whenever the catalogue changes: import, admin edit."""

import pytest
from django.apps import apps
from django.urls import reverse

from factions.models import Faction, ForceOrgLimit, Ruleset, bump_revision_of
from factions.selectors import engine_book_get, engine_cache_clear
from factions.services import armybook_import

URL = "/api/validate/"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "model",
    [m for m in apps.get_app_config("factions").get_models() if m.__name__ not in ("Ruleset", "Faction")],
    ids=lambda m: m.__name__,
)
def test_a_change_to_any_catalogue_row_bumps_its_owners_revision(wardens, make_arena_book, model):
    armybook_import(data=make_arena_book())
    obj = model.objects.order_by("pk").first()
    owner_field = "ruleset" if model in (ForceOrgLimit, apps.get_model("factions", "CoreRule")) else None
    owner = Ruleset.objects.get(pk=obj.ruleset_id) if owner_field else None
    before = {f.pk: f.revision for f in Faction.objects.all()}
    ruleset_before = owner.revision if owner else None

    bump_revision_of(obj)

    if owner:
        owner.refresh_from_db()
        assert owner.revision == ruleset_before + 1
    else:
        after = {f.pk: f.revision for f in Faction.objects.all()}
        changed = [pk for pk in after if after[pk] != before[pk]]
        assert len(changed) == 1


@pytest.mark.django_db
def test_an_admin_edit_of_a_limit_reaches_validation(client, staff_user, wardens):
    client.force_login(staff_user)
    listed = {
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1000,
        "entries": [{"id": f"h{i}", "unit": "warden-captain", "options": {"HERO-1a": 0}} for i in range(2)],
    }
    assert client.post(URL, listed, content_type="application/json").json()["valid"] is True

    limit = ForceOrgLimit.objects.get(ruleset__slug="aof", code="too_many_heroes")
    response = client.post(
        reverse("admin:factions_forceorglimit_change", args=[limit.pk]),
        {
            "ruleset": limit.ruleset_id,
            "code": limit.code,
            "kind": limit.kind,
            "params": '{"counts": "heroes", "per": 1000}',
            "severity": "error",
            "section": limit.section,
            "optional": "on",
            "order": limit.order,
        },
    )
    assert response.status_code == 302, response.content[:2000]

    result = client.post(URL, listed, content_type="application/json").json()
    assert [i["code"] for i in result["issues"]] == ["too_many_heroes"]


@pytest.mark.django_db
def test_the_book_is_built_once_then_served_from_the_cache(wardens, django_assert_max_num_queries):
    engine_book_get(system="aof", slug="test-wardens")
    with django_assert_max_num_queries(1):
        book, ruleset = engine_book_get(system="aof", slug="test-wardens")
    assert set(book.units) == {"warden-captain", "wardens", "wardens-0"}
    assert ruleset.slug == "aof"


@pytest.mark.django_db
def test_building_a_book_takes_the_same_queries_whatever_its_size(make_aof_book):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    small, big = make_aof_book(units=3), make_aof_book(units=40)
    big["slug"] = "big-wardens"
    armybook_import(data=small)
    armybook_import(data=big)
    counts = []
    for slug in ("test-wardens", "big-wardens"):
        engine_cache_clear()
        with CaptureQueriesContext(connection) as queries:
            book, _ruleset = engine_book_get(system="aof", slug=slug)
        counts.append(len(queries))
    assert len(book.units) == 40
    assert counts[0] == counts[1] <= 16


@pytest.mark.django_db
def test_another_app_server_builds_the_book_from_the_shared_cache(wardens, django_assert_max_num_queries):
    engine_book_get(system="aof", slug="test-wardens")  # built from the tables, kept in the shared cache
    engine_cache_clear()  # as if this were another process, with only the shared cache in common
    with django_assert_max_num_queries(1):  # the handle; no book tables read
        book, _ruleset = engine_book_get(system="aof", slug="test-wardens")
    assert set(book.units) == {"warden-captain", "wardens", "wardens-0"}
