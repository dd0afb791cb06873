"""Who joined whom and the order a list's entries print in are worked out once, by the
validator (`validate.py _arrange`): every page and printout reads `EntryResult.joined`,
`joined_by`, `leader`, `place` and `Validation.in_print_order`."""

from tests.support.engine_helpers import book, hero, run, unit

BOOK = book("aof", [hero("captain"), hero("lord"), unit("warriors"), unit("archers")])


def printed(listed: list[dict]) -> list[str]:
    return [result.entry.id for result in run("aof", BOOK, 1500, listed).in_print_order]


def by_id(listed: list[dict]) -> dict:
    return {result.entry.id: result for result in run("aof", BOOK, 1500, listed).entries}


def test_a_hero_prints_right_after_the_unit_it_joined_even_one_listed_later():
    listed = [
        {"id": "h", "unit": "captain", "joined_to": "w"},
        {"id": "a", "unit": "archers"},
        {"id": "w", "unit": "warriors"},
    ]
    assert printed(listed) == ["a", "w", "h"]
    results = by_id(listed)
    assert (results["h"].joined, results["h"].leader) == ("w", "w")
    assert results["w"].joined_by == results["w"].heroes == ("h",)
    assert [results[i].place for i in ("h", "a", "w")] == [2, 0, 1]


def test_a_list_with_no_joins_prints_in_list_order():
    listed = [{"id": "w", "unit": "warriors"}, {"id": "c", "unit": "captain"}, {"id": "a", "unit": "archers"}]
    assert printed(listed) == ["w", "c", "a"]
    assert all(r.joined is None and r.leader is None and r.joined_by == () for r in by_id(listed).values())


def test_two_heroes_of_one_unit_print_after_it_in_list_order():
    listed = [
        {"id": "h2", "unit": "lord", "joined_to": "w"},
        {"id": "w", "unit": "warriors"},
        {"id": "h1", "unit": "captain", "joined_to": "w"},
    ]
    assert printed(listed) == ["w", "h2", "h1"]
    assert by_id(listed)["w"].heroes == ("h2", "h1")


def test_a_hero_joined_to_a_joined_hero_prints_after_it_on_its_own():
    listed = [
        {"id": "c", "unit": "captain", "joined_to": "l"},
        {"id": "w", "unit": "warriors"},
        {"id": "l", "unit": "lord", "joined_to": "w"},
    ]
    assert printed(listed) == ["w", "l", "c"]
    results = by_id(listed)
    assert (results["c"].joined, results["c"].leader) == ("l", None)  # on its own card, saying whom it joined
    assert results["l"].joined_by == ("c",) and results["l"].heroes == ()


def test_a_join_to_itself_or_to_no_entry_is_none():
    listed = [{"id": "c", "unit": "captain", "joined_to": "c"}, {"id": "l", "unit": "lord", "joined_to": "gone"}]
    assert printed(listed) == ["c", "l"]
    assert all(r.joined is None and r.leader is None for r in by_id(listed).values())


def test_entries_joined_in_a_loop_keep_list_order():
    listed = [
        {"id": "a", "unit": "archers"},
        {"id": "c", "unit": "captain", "joined_to": "l"},
        {"id": "l", "unit": "lord", "joined_to": "c"},
    ]
    assert printed(listed) == ["a", "c", "l"]


def test_activations_count_every_entry_but_those_that_joined_another():
    listed = [
        {"id": "h", "unit": "captain", "joined_to": "w"},
        {"id": "w", "unit": "warriors"},
        {"id": "s", "unit": "lord", "joined_to": "s"},
    ]
    assert run("aof", BOOK, 1500, listed).activations == 2
