"""The schema check remembers the documents that passed (by a digest of their exact
values), so a book imported again is not walked again; a document that failed, or one
that differs in any value, is always checked."""

import copy

from armybuilder.memo import Memo
from factions import armybook
from tests.conftest import aof_book


def counting(monkeypatch) -> list[object]:
    walked: list[object] = []
    walk = armybook._schema_problems

    def counted(data):
        walked.append(data)
        return walk(data)

    monkeypatch.setattr(armybook, "_schema_problems", counted)
    monkeypatch.setattr(armybook, "PASSED", Memo("test: passed", 256))
    return walked


def test_a_document_that_passed_is_not_walked_again(monkeypatch):
    walked = counting(monkeypatch)
    book = aof_book()
    assert armybook.check_schema(book) == []
    assert armybook.check_schema(copy.deepcopy(book)) == []
    assert len(walked) == 1


def test_a_document_that_failed_is_checked_every_time(monkeypatch):
    walked = counting(monkeypatch)
    book = aof_book()
    book["units"][0]["cost"] = "seventy"
    first = armybook.check_schema(book)
    assert first and armybook.check_schema(book) == first
    assert len(walked) == 2


def test_any_changed_value_is_checked_again_even_one_json_cannot_tell_from_a_string(monkeypatch):
    walked = counting(monkeypatch)
    book = aof_book()
    assert armybook.check_schema(book) == []
    for change in ("70", 70.5, True, None):
        changed = copy.deepcopy(book)
        changed["units"][0]["cost"] = change
        assert armybook.check_schema(changed) != [], change
    assert len(walked) == 5


def test_it_keeps_a_bounded_number_of_digests(monkeypatch):
    counting(monkeypatch)
    monkeypatch.setattr(armybook, "PASSED", Memo("test: passed", 3))
    for i in range(5):
        book = aof_book()
        book["name"] = f"Wardens {i}"
        assert armybook.check_schema(book) == []
    assert len(armybook.PASSED) == 3
