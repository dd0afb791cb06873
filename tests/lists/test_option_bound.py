"""The option ids an entry may name are bounded at input (format.MAX_OPTIONS, issue 37):
a flood of them is refused naming the entry, before any of its ids is looked at. Lists
stored before the bound are cut by a migration, and read bounded."""

import importlib

import pytest
from django.apps import apps as django_apps
from django.contrib.auth import get_user_model
from django.utils import timezone

from armybuilder.events import services as event_services
from armybuilder.events.models import Submission
from armybuilder.lists.format import MAX_OPTIONS, check_entry, check_list_shape, first_error
from armybuilder.lists.models import ArmyList
from tests.conftest import wardens_list

lists_0010 = importlib.import_module("armybuilder.lists.migrations.0010_bounded_options")
events_0002 = importlib.import_module("armybuilder.events.migrations.0002_bounded_options")


def listed(*entries):
    return {
        "format": "armylist/1",
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1500,
        "entries": list(entries),
    }


def test_an_entry_of_185000_option_ids_is_refused_naming_the_entry():
    flood = {f"x{n}": 1 for n in range(185_000)}
    clean, errors = check_list_shape(
        listed({"id": "e1", "unit": "wardens"}, {"id": "e2", "unit": "guard", "options": flood})
    )
    assert clean is None
    assert errors == {
        "entries": {
            "1": {
                "options": [
                    'Entry "e2" (guard) has 185,000 options; an entry may have at most 200, more than any unit offers.'
                ]
            }
        }
    }
    assert first_error(errors).startswith('Entry "e2" (guard) has 185,000 options')


def test_the_bound_holds_for_a_flood_with_other_problems_and_a_long_id():
    entry = {"id": "e" * 300, "unit": "guard", "options": {f"x{n}": -1 for n in range(MAX_OPTIONS + 1)}}
    _entry, errors = check_entry(entry)
    assert errors["id"] == ["Ensure this field has no more than 100 characters."]
    assert errors["options"] == [
        f'Entry "{"e" * 100}" (guard) has 201 options; an entry may have at most 200, more than any unit offers.'
    ]  # one message, not one per bad count


def test_as_many_ids_as_the_bound_are_taken():
    options = {f"x{n}": 0 for n in range(MAX_OPTIONS)}
    clean, errors = check_list_shape(listed({"id": "e1", "unit": "wardens", "options": options}))
    assert errors == {} and clean is not None
    assert clean["entries"][0]["options"] == options


# -- lists stored before the bound --------------------------------------------------------
FLOOD = {"kept-by-its-name": 2, **{f"x{n:06}": 1 for n in range(20_000)}}


def _stored_past_the_checks(owner) -> ArmyList:
    """A list whose second entry holds FLOOD, written as a row stored before issue 37 is:
    past every input check."""
    army_list = wardens_list(owner, ["wardens", "wardens"])
    entries = army_list.entries
    entries[1] = {**entries[1], "options": FLOOD}
    ArmyList.objects.filter(pk=army_list.pk).update(entries=entries)
    return army_list


def _stored_entries(army_list: ArmyList) -> list:
    """The entries as the row holds them (values_list reads no model, so nothing bounds them)."""
    return ArmyList.objects.values_list("entries", flat=True).get(pk=army_list.pk)


@pytest.mark.django_db
def test_a_row_stored_past_the_checks_is_read_with_the_ids_input_takes(wardens):
    owner = get_user_model().objects.create_user("flooder")
    army_list = _stored_past_the_checks(owner)
    assert len(_stored_entries(army_list)[1]["options"]) == len(FLOOD)
    read = ArmyList.objects.get(pk=army_list.pk)
    first, second = read.entries
    assert first == army_list.entries[0]
    assert list(second["options"]) == sorted(FLOOD)[:MAX_OPTIONS]
    assert second["options"]["kept-by-its-name"] == 2
    assert {key: second[key] for key in second if key != "options"} == {
        key: army_list.entries[1][key] for key in army_list.entries[1] if key != "options"
    }
    # A list within the bound is read as it is stored, the very same entries.
    within = wardens_list(owner, ["wardens"])
    assert ArmyList.objects.get(pk=within.pk).entries == _stored_entries(within)


@pytest.mark.django_db
def test_the_migration_cuts_stored_lists_and_submitted_copies_and_leaves_the_rest(wardens):
    owner = get_user_model().objects.create_user("flooder")
    flooded, within = _stored_past_the_checks(owner), wardens_list(owner, ["wardens"])
    deadline = "2031-06-01T18:00:00+00:00"
    pack = event_services.pack_create(
        organiser=owner, data={"name": "Flood Cup", "ruleset": "aof", "points_limit": 355, "deadline": deadline}
    )
    copy = {**within.as_armylist(), "entries": _stored_entries(flooded), "event": pack.key}
    submission = Submission.objects.create(
        pack=pack, player=owner, data=copy, book_version=within.book_version, submitted_at=timezone.now()
    )
    within_before = _stored_entries(within)

    lists_0010.cut_flooded_lists(django_apps, None)
    events_0002.cut_flooded_submissions(django_apps, None)

    cut = _stored_entries(flooded)
    assert sorted(cut[1]["options"]) == sorted(FLOOD)[:MAX_OPTIONS]  # (PostgreSQL keeps no order of keys)
    assert cut[0] == flooded.entries[0]
    assert _stored_entries(within) == within_before
    data = Submission.objects.values_list("data", flat=True).get(pk=submission.pk)
    assert data["entries"][1]["options"] == cut[1]["options"]
    assert {key: data[key] for key in data if key != "entries"} == {key: copy[key] for key in copy if key != "entries"}
    # A second run finds nothing over the bound, and changes nothing.
    lists_0010.cut_flooded_lists(django_apps, None)
    assert _stored_entries(flooded) == cut
