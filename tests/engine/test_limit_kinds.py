"""The limit kinds have one registry, the engine's (armybuilder.engine.limit_kinds.KINDS):
each kind's check, parameters and words. Everything else that names the kinds reads it:
the ruleset/1 schema's enum (filled in at load), the admin's choices, the event forms,
and the model's column has no choices, so a new kind needs no migration."""

from io import StringIO

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from armybuilder.engine.limit_kinds import (
    ADDABLE_KINDS,
    KINDS,
    STORED_KINDS,
    LimitKind,
    Whole,
    describe_limit,
    limit_param_problems,
)
from factions.limits import LimitForm
from factions.models import ForceOrgLimit
from factions.ruleset_format import SCHEMA_PATH, ruleset_schema


def test_every_kind_has_its_check_and_words():
    for kind, spec in KINDS.items():
        assert callable(spec.check), kind
        assert spec.label, kind


def test_the_kinds_the_engine_makes_from_an_event_are_not_stored():
    assert set(KINDS) - set(STORED_KINDS) == {"event_ruleset", "event_points"}


def test_the_ruleset_schema_lists_the_registry_kinds_in_its_order():
    assert ruleset_schema()["$defs"]["limit"]["properties"]["kind"]["enum"] == list(STORED_KINDS)


def test_the_schema_file_names_no_kind():
    assert "per_points" not in SCHEMA_PATH.read_text()


def test_the_admin_choices_are_the_registry_kinds_with_their_labels():
    assert LimitForm.base_fields["kind"].choices == [(kind, KINDS[kind].label) for kind in STORED_KINDS]


def test_the_model_column_has_no_choices():
    assert not ForceOrgLimit._meta.get_field("kind").choices


@pytest.mark.django_db
def test_the_migrations_match_the_models():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()


def test_an_event_may_add_every_stored_kind_but_the_composition_card():
    assert ADDABLE_KINDS == tuple(kind for kind in STORED_KINDS if kind != "composition")


def test_a_new_kind_is_checked_and_described_from_its_entry(monkeypatch):
    spec = LimitKind("test", lambda ctx, limit: None, lambda p: f"At most {p['most']}", {"most": Whole(1)})
    monkeypatch.setitem(KINDS, "test_kind", spec)
    assert describe_limit("test_kind", {"most": 3}) == "At most 3"
    assert limit_param_problems("test_kind", {}) == ['"most" is required for a test_kind limit']
    assert limit_param_problems("test_kind", {"most": 0}) == [
        '"most" must be a whole number from 1 to 1,000,000, not 0'
    ]
    assert limit_param_problems("test_kind", {"most": 3, "least": 1}) == ["a test_kind limit has no parameter 'least'"]


@pytest.mark.parametrize(
    ("kind", "params", "problems"),
    [
        ("per_points", [], ['parameters must be an object, e.g. {"per": 500}']),
        ("nonsense", {}, ["unknown limit kind 'nonsense'"]),
        ("event_points", {"points": 500}, ["unknown limit kind 'event_points'"]),
        (
            "per_points",
            {"counts": "models"},
            [
                "\"counts\" must be heroes, units or types, not 'models'",
                '"per" is required for a per_points limit',
            ],
        ),
        (
            "max_count",
            {"counts": "types", "max": 2},
            ['"types" must list the unit types counted, e.g. ["monster", "chariot"]'],
        ),
        ("unit_share", {"percent": 120}, ['"percent" must be at most 100']),
        ("unit_share", {"percent": True}, ['"percent" must be a whole number from 1 to 1,000,000, not True']),
        ("formation", {"sizes": [0]}, ['"sizes" must list the legal unit sizes, e.g. [3, 5, 6, 10]']),
        ("command_group", {"max": 1, "scope": "model"}, ["\"scope\" must be unit or army, not 'model'"]),
        ("game_size", {}, ['a game_size limit needs "min" or "max"']),
        ("factions", {}, ['"allowed" must list the army book slugs allowed, e.g. ["orc-hordes"]']),
        (
            "banned",
            {"units": []},
            ['"units" and "options" must list the unit or option ids banned, e.g. {"units": ["giant"]}'],
        ),
        (
            "banned",
            {"units": ["giant"], "options": [""]},
            ['"units" and "options" must list the unit or option ids banned, e.g. {"units": ["giant"]}'],
        ),
        ("unit_cap", {"max": 1}, ['"unit" must be the id of the unit capped']),
        ("copies", {"base": 1, "per": 750}, []),
        ("banned", {"options": ["HERO-2a"]}, []),
    ],
)
def test_parameter_problems_name_the_parameter(kind, params, problems):
    assert limit_param_problems(kind, params) == problems


def test_a_row_of_a_kind_the_registry_has_not_is_refused_on_its_kind():
    row = ForceOrgLimit(code="x", kind="nonsense", params={}, section="Club rules")
    with pytest.raises(ValidationError) as refused:
        row.clean()
    assert list(refused.value.message_dict) == ["kind"]


def test_a_row_of_a_registry_kind_is_checked_on_its_parameters():
    row = ForceOrgLimit(code="x", kind="unit_share", params={"percent": 120}, section="Club rules")
    with pytest.raises(ValidationError) as refused:
        row.clean()
    assert refused.value.message_dict == {"params": ['"percent" must be at most 100']}


def test_the_units_a_list_may_have_come_from_the_rows_on_units():
    """The totals bar's "7/13 units" (issue 36): the least any row on units allows at the
    list's size; rows on heroes or types do not bound it; an optional row only when the
    list keeps the force organisation; None when nothing bounds it."""
    from armybuilder.engine.book import Limit
    from armybuilder.engine.limits import units_allowed

    def row(kind, optional=False, **params):
        return Limit(code="x", kind=kind, params=params, severity="error", section="", optional=optional)

    per_150 = row("per_points", counts="units", per=150)
    assert units_allowed([per_150], 2000) == 13
    assert units_allowed([per_150, row("per_points", counts="heroes", per=500)], 2000) == 13
    assert units_allowed([per_150, row("max_count", counts="units", max=8)], 2000) == 8
    assert units_allowed([row("per_points", counts="units", per=150, minimum=3)], 100) == 3
    assert units_allowed([row("per_points", counts="units", per=150, optional=True)], 2000, force_org=False) is None
    assert units_allowed([per_150], None) is None  # a warband has no points
    assert units_allowed([], 2000) is None
