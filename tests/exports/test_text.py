"""The plain-text export (armybuilder/exports/text.py) says a combined unit as players
write it (issue 36, point 7): one unit of the summed size, "combined" after its size."""

from armybuilder.exports.text import list_text
from armybuilder.lists import selectors, services
from armybuilder.lists.format import parse_list_body


def text_of(user, entries: list[dict]) -> list[str]:
    body = {"name": "Border Patrol", "system": "aof", "faction": "test-wardens", "points_limit": 1500}
    data, _handle = parse_list_body({**body, "entries": entries})
    state = selectors.army_list_load(services.army_list_create(data=data, owner=user))
    text = list_text(
        name="Border Patrol",
        ruleset_title=state.ruleset.title,
        faction_name=state.faction_name,
        validation=state.validation,
    )
    return text.splitlines()


def test_a_combined_unit_is_one_unit_of_the_summed_size(wardens, user):
    lines = text_of(user, [{"id": "w", "unit": "wardens", "combined": True}])
    # Two units of ten, combined: one unit of twenty, not "2x Wardens [20]" (two of twenty?).
    assert lines[1] == "1x Wardens [20], combined Q4+ D5+ | 220 pts | Shieldbrothers"
    assert '    20x Spear (A1, Counter), 20x Sling (12", A1)' in lines
    assert lines[-1] == "++ 1 unit, 20 models | valid ++"
    assert not any(line.startswith("2x ") or line.endswith("| combined") for line in lines)


def test_a_unit_on_its_own_is_not_said_to_be_combined(wardens, user):
    lines = text_of(user, [{"id": "w", "unit": "wardens"}])
    assert lines[1] == "1x Wardens [10] Q4+ D5+ | 110 pts | Shieldbrothers"


def test_the_totals_say_one_unit_and_one_model_in_the_singular(wardens, user):
    lines = text_of(user, [{"id": "c", "unit": "warden-captain"}])
    assert lines[-1] == "++ 1 unit, 1 model | valid ++"
