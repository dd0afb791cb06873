"""The abuse limits count in a sliding window (armybuilder/ratelimit.py, issue 37): a burst
across the end of one window and the start of the next gets the limit, not twice it. The
tests set the clock instead of reading it."""

import pytest
from django.core.cache.backends.locmem import LocMemCache

from armybuilder import ratelimit

HOUR = 3600


@pytest.fixture
def store():
    store = LocMemCache("ratelimit-test", {})  # (local caches of one name share their data)
    store.clear()
    yield store
    store.clear()


def burst(store, at: float, times: int, limit: int = 10) -> list[bool]:
    return [ratelimit.count("k", limit=limit, seconds=HOUR, now=at, store=store)[0] for _ in range(times)]


def test_a_burst_across_the_hour_gets_the_limit_not_twice_it(store):
    assert burst(store, HOUR - 1, 10) == [True] * 10  # the end of one hour
    assert burst(store, HOUR + 1, 10) == [False] * 10  # the start of the next: the same window still
    assert burst(store, 2 * HOUR + 1, 10) == [True] * 10  # an hour after the first burst


def test_requests_spread_over_the_window_are_counted_together(store):
    allowed = [
        ratelimit.count("k", limit=10, seconds=HOUR, now=minute * 60, store=store)[0] for minute in range(0, 60, 5)
    ]
    assert allowed == [True] * 10 + [False] * 2  # twelve in one hour, five minutes apart


def test_a_refused_request_is_told_when_the_oldest_request_leaves_the_window(store):
    burst(store, 100, 10)
    allowed, wait = ratelimit.count("k", limit=10, seconds=HOUR, now=200, store=store)
    assert not allowed and 0 < wait <= HOUR
    assert ratelimit.count("k", limit=10, seconds=HOUR, now=200 + wait + 1, store=store)[0]


def test_the_pages_read_the_clock_the_tests_set(wardens, client, settings, monkeypatch):
    """Visitors' new lists at the end of an hour and at the start of the next."""
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "visitor_lists": "2/hour"}
    form = {"faction": "test-wardens", "points": "750"}
    monkeypatch.setattr(ratelimit, "clock", lambda: 10 * HOUR - 1)
    assert [client.post("/new/aof/", form).status_code for _ in range(2)] == [302, 302]
    monkeypatch.setattr(ratelimit, "clock", lambda: 10 * HOUR + 1)
    assert client.post("/new/aof/", form).status_code == 429
    monkeypatch.setattr(ratelimit, "clock", lambda: 11 * HOUR)
    assert client.post("/new/aof/", form).status_code == 302
