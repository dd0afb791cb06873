"""Abuse limits without a framework: how many requests of a kind one client may make in
any window of a length (settings.THROTTLE_RATES, e.g. "60/hour"; None turns one off). The
window slides: it is counted in `SLICES` slices, one atomic counter each in the cache
(Redis INCR, or the local cache's lock, so that requests arriving together are all
counted), and a request is allowed while the slices of the last window hold no more than
the limit. A burst at the end of one hour and another at the start of the next get no
more than the limit between them, as they did with one counter per fixed hour (twice the
limit); the window's edge is a slice wide, so at most a tenth more gets through in any
one window. The API's DRF throttles (armybuilder/api/throttles.py) and the web pages use
the same counting and the same client address; `clock` is the time they read (tests set
it)."""

from __future__ import annotations

import time

from django.conf import settings
from django.core.cache import cache as default_cache
from django.core.cache.backends.base import BaseCache
from django.http import HttpRequest

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
SLICES = 10  # a window is counted in this many slices


def clock() -> float:
    """The time limits are counted by (a function of its own: tests set it)."""
    return time.time()


def client_address(request: HttpRequest) -> str:
    """The client's address: with DJANGO_TRUSTED_PROXIES = N > 0, the address the
    outermost of our N proxies saw (the Nth from the right in X-Forwarded-For); with 0,
    the connection's own address, since a client can write X-Forwarded-For."""
    remote = request.META.get("REMOTE_ADDR", "")
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    proxies = settings.TRUSTED_PROXIES
    if proxies == 0 or not forwarded:
        return remote
    addresses = forwarded.split(",")
    return addresses[-min(proxies, len(addresses))].strip()


def parse_rate(rate: str) -> tuple[int, int]:
    """ "60/hour" -> (60, 3600)."""
    number, period = rate.split("/")
    return int(number), PERIODS[period[0]]


def count(
    key: str, *, limit: int, seconds: int, now: float | None = None, store: BaseCache | None = None
) -> tuple[bool, float]:
    """Count one request against `key` (in `store`, the default cache unless given):
    whether the last `seconds` hold at most `limit` with it, and the seconds until the
    oldest slice counted leaves the window (when a request may be allowed again)."""
    cache = default_cache if store is None else store
    now = clock() if now is None else now
    width = seconds / SLICES
    current = int(now // width)
    counter = f"{key}:{current}"
    cache.add(counter, 0, seconds + int(width) + 1)
    try:
        used = cache.incr(counter)
    except ValueError:  # expired between the two calls: this request starts it again
        cache.add(counter, 1, seconds + int(width) + 1)
        used = 1
    earlier = {current - back: f"{key}:{current - back}" for back in range(1, SLICES)}
    held = cache.get_many(list(earlier.values()))
    counts = {index: held.get(name, 0) for index, name in earlier.items()}
    total = used + sum(counts.values())
    oldest = min((index for index, n in counts.items() if n), default=current)
    return total <= limit, max(0.0, (oldest + SLICES) * width - now)


VISITORS_ONLY = {"visitor_lists"}  # scopes that signed-in users are not counted in


def counter_key(request: HttpRequest, scope: str) -> str | None:
    """The counter a request of `scope` counts against: one per client address (the same
    for the API's throttles and the pages); None when the scope does not count it (new
    lists of signed-in users, whom the API's user rate limits)."""
    user = getattr(request, "user", None)
    if scope in VISITORS_ONLY and user is not None and user.is_authenticated:
        return None
    return f"throttle_{scope}_{client_address(request)}"


def allow(request: HttpRequest, scope: str) -> bool:
    """One request of `scope` (a THROTTLE_RATES key) from this client: within its limit?"""
    return wait(request, scope) == 0


def wait(request: HttpRequest, scope: str) -> float:
    """One request of `scope` from this client: 0 within its limit, else the seconds
    until another may be allowed."""
    rate, key = settings.THROTTLE_RATES.get(scope), counter_key(request, scope)
    if rate is None or key is None:
        return 0.0
    limit, seconds = parse_rate(rate)
    allowed, until = count(key, limit=limit, seconds=seconds)
    return 0.0 if allowed else max(until, 1.0)


def allow_visitor_list(request: HttpRequest) -> bool:
    """A new list by a visitor (no account), per address."""
    return allow(request, "visitor_lists")
