"""The option ids an entry may name are bounded at input (format.MAX_OPTIONS, issue 37):
a flood of them is refused naming the entry, before any of its ids is looked at."""

from armybuilder.lists.format import MAX_OPTIONS, check_entry, check_list_shape, first_error


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
