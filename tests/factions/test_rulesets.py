"""The five rulesets and their force-organisation limits are data rows."""

import pytest

from armybuilder.engine.limit_kinds import describe_limit
from factions.models import ForceOrgLimit, Ruleset


@pytest.mark.django_db
def test_migrations_create_the_five_rulesets_with_their_stats():
    rulesets = {r.slug: r for r in Ruleset.objects.all()}
    assert list(rulesets) == ["aof", "aof-regiments", "aof-skirmish", "opf", "aof-arena"]
    assert rulesets["opf"].stat_fields == ["quality"]
    assert rulesets["aof-arena"].stat_fields == ["move", "rush", "evasion", "toughness", "stamina", "health"]
    assert rulesets["aof"].suggested_points == [750, 1500]
    assert rulesets["opf"].max_points == 750
    assert rulesets["aof-arena"].uses_points is False
    assert rulesets["aof"].title == "Age of Fantasy 3.2.0"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("slug", "codes"),
    [
        (
            "aof",
            {
                "too_many_heroes",
                "too_many_copies",
                "unit_too_expensive",
                "too_many_units",
                "duplicate_command_group",
            },
        ),
        ("aof-skirmish", {"duplicate_command_group"}),
        ("opf", {"too_many_heroes", "invalid_formation", "duplicate_command_group"}),
        ("aof-arena", {"composition"}),
    ],
)
def test_each_ruleset_has_its_limit_rows(slug, codes):
    assert set(ForceOrgLimit.objects.filter(ruleset__slug=slug).values_list("code", flat=True)) == codes


@pytest.mark.django_db
def test_only_aof_limits_follow_the_force_org_switch():
    optional = set(ForceOrgLimit.objects.filter(optional=True).values_list("ruleset__slug", "code"))
    assert optional == {
        ("aof", "too_many_heroes"),
        ("aof", "too_many_copies"),
        ("aof", "unit_too_expensive"),
        ("aof", "too_many_units"),
    }


@pytest.mark.parametrize(
    ("kind", "params", "words"),
    [
        (
            "per_points",
            {"counts": "heroes", "per": 500, "minimum": 1},
            "At most 1 hero per 500 pts (never fewer than 1)",
        ),
        ("max_count", {"counts": "heroes", "max": 1}, "At most 1 hero"),
        ("min_count", {"counts": "heroes", "min": 1}, "At least 1 hero"),
        (
            "formation",
            {"sizes": [3, 5, 6, 10]},
            "Units of more than one model must have 3, 5, 6 or 10 models",
        ),
        (
            "command_group",
            {"scope": "army", "max": 1},
            "At most 1 model in the whole army may take a command-group upgrade",
        ),
        ("game_size", {"max": 3000}, "Games above 3000 pts go beyond what the rules were written for"),
    ],
)
def test_limits_read_as_plain_words(kind, params, words):
    assert describe_limit(kind, params) == words
