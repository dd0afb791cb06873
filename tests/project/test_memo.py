"""This process's caches (armybuilder/memo.py): named, bounded, safe across threads, and
all emptied by one call."""

import gc
import random
import sys
import threading
import time

import pytest

from armybuilder import memo
from armybuilder.memo import Memo, clear_all, memoize, memos


def test_a_memo_keeps_at_most_its_size_dropping_the_least_recently_used():
    kept = Memo("test: letters", 3)
    for key in "abc":
        kept.set(key, key.upper())
    assert kept.get("a") == "A"  # a is now the most recently used
    kept.set("d", "D")
    assert len(kept) == 3
    assert "b" not in kept
    assert [kept.get(key) for key in "acd"] == ["A", "C", "D"]


def test_fetch_makes_a_missing_entry_once_and_keeps_it():
    kept = Memo("test: made", 10)
    made = []
    assert kept.fetch("x", lambda: made.append("x") or 1) == 1
    assert kept.fetch("x", lambda: made.append("x") or 2) == 1
    assert made == ["x"]


def test_a_weighed_memo_is_bounded_by_what_its_entries_weigh():
    kept = Memo("test: weighed", 10, weigh=len)
    for key in ("abcd", "efgh", "ij"):
        kept.set(key, key)
    assert kept.weight == 10 and len(kept) == 3
    kept.set("kl", "kl")  # the least recently used goes to make room
    assert "abcd" not in kept and kept.weight == 8
    assert kept.set("x" * 11, "x" * 11) == "x" * 11  # heavier than the bound: answered, not kept
    assert "x" * 11 not in kept and kept.weight == 8


def test_the_compiled_books_of_a_large_catalogue_all_stay():
    """Issue 36: 64 books were kept, a site held 93, and a validation whose book had been
    dropped took twice as long. Four times that catalogue, at 50 units a book, stays."""
    import dataclasses
    import json

    from django.conf import settings

    from armybuilder.engine import book_from_dict
    from factions import selectors
    from tests.support.engine_helpers import ruleset

    path = settings.BASE_DIR / "factions/data/books/aof/human-empire.json"
    book = book_from_dict(json.loads(path.read_text()))
    unit = next(iter(book.units.values()))
    big = dataclasses.replace(book, units={f"u{n}": unit for n in range(50)})
    spec = ruleset("aof")
    clear_all()
    try:
        for n in range(4 * 93):
            selectors.ENGINE_BOOKS.set((f"book {n}", "ruleset"), (big, spec))
        assert all((f"book {n}", "ruleset") in selectors.ENGINE_BOOKS for n in range(4 * 93))
    finally:
        clear_all()


def test_a_memo_holds_at_least_one_entry():
    with pytest.raises(ValueError, match="at least one"):
        Memo("test: nothing", 0)


def test_an_entry_with_a_lifetime_goes_when_it_is_over():
    kept = Memo("test: short-lived", 5, seconds=0.05)
    kept.set("state", "ok")
    assert kept.get("state") == "ok"
    time.sleep(0.1)
    assert kept.get("state") is None


def test_a_memoized_function_works_each_answer_out_once_and_keeps_a_bounded_number():
    calls = []

    @memoize("test: squares", 2)
    def square(n: int, *, plus: int = 0) -> int:
        calls.append(n)
        return n * n + plus

    assert [square(2), square(2), square(3), square(2, plus=1), square(2, plus=1)] == [4, 4, 9, 5, 5]
    assert calls == [2, 3, 2]
    assert len(square.memo) == 2
    assert square.__name__ == "square"


def test_a_memoized_function_keeps_only_the_answers_when_allows():
    calls = []

    @memoize("test: short texts", 10, when=lambda text: len(text) <= 3)
    def shout(text: str) -> str:
        calls.append(text)
        return text.upper()

    assert [shout("abc"), shout("abc"), shout("abcd"), shout("abcd")] == ["ABC", "ABC", "ABCD", "ABCD"]
    assert calls == ["abc", "abcd", "abcd"]
    assert len(shout.memo) == 1


def test_many_threads_reading_and_filling_one_memo_get_every_answer_right():
    """An LRU cache reorders its entries on every read: without the lock, threads switched
    often enough break its order (KeyError) or its bound."""
    old = sys.getswitchinterval()
    kept = Memo("test: shared", 50)
    squares = memoize("test: shared function", 50)(lambda n: n * n)
    failures: list[BaseException] = []

    def work(seed: int) -> None:
        numbers = random.Random(seed)
        try:
            for _ in range(3000):
                n = numbers.randrange(200)
                assert kept.fetch(n, lambda n=n: -n) == -n
                assert squares(n) == n * n
                assert len(kept) <= 50
        except BaseException as exc:  # noqa: BLE001 (reported by the test below)
            failures.append(exc)

    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(old)
    assert failures == []
    assert len(kept) == len(squares.memo) == 50


def test_clear_all_empties_every_memo_and_memos_lists_them_by_name():
    kept = Memo("test: one", 5)
    kept.set(1, 1)

    @memoize("test: two", 5)
    def double(n: int) -> int:
        return 2 * n

    double(4)
    names = [m.name for m in memos()]
    assert {"test: one", "test: two"} <= set(names)
    assert names == sorted(names)
    clear_all()
    assert len(kept) == len(double.memo) == 0


def test_a_memo_no_one_holds_is_no_longer_listed():
    kept = Memo("test: let go", 5)
    assert kept in memos()
    del kept
    gc.collect()
    assert "test: let go" not in [m.name for m in memos()]


def test_the_site_s_caches_are_memos():
    """The caches of the modules (and the ones kept on each compiled book) are listed,
    so clear_all reaches them."""
    from armybuilder.engine import book
    from armybuilder.exports import pdf_style
    from armybuilder.web import pages
    from factions import armybook, selectors

    listed = {id(m) for m in memo.memos()}
    for kept in (
        selectors.ENGINE_BOOKS,
        armybook.PASSED,
        pages.READY_PAGES,
        pdf_style.prepare.memo,
        book.same_name.memo,
    ):
        assert id(kept) in listed
