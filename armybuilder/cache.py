"""The cache processes share (Django's, CACHE_URL): what is kept in it, and a Redis that
is not a single point of failure.

`remembered(shared_key(kind, *parts), make, seconds=)` is how the site keeps a thing
there: under what it was built from and the release stamp of the code that built it
(armybuilder/stamps.py), so that a change to either is a new key and nothing is ever
invalidated by hand.

Everything the site keeps in its cache (compiled army books, rendered PDFs and share
pages, the throttles' counters) can be made again from the database. So when Redis
cannot be reached, the cache falls back to one of this process's own (the same as
running without CACHE_URL): pages are answered from the database, and the throttles
count per process instead of across all of them. After a failure Redis is left alone for
a few seconds, then tried again; short socket timeouts keep a Redis that does not answer
from holding requests up. `cache_state()` says which cache is in use, for /api/health/.
What one process keeps for itself alone is armybuilder/memo.py's.

`slot(name, count, seconds)` is a semaphore all processes share through it, for work
that must not fill every worker (share links read from Army Forge, large printouts): it
never waits, so a request that finds every slot taken is refused at once.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from django.core.cache import cache as shared_cache
from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from armybuilder.memo import Memo
from armybuilder.stamps import release

T = TypeVar("T")
log = logging.getLogger(__name__)
UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)
RETRY_AFTER = 5.0  # seconds Redis is left alone after a failure
SOCKET_TIMEOUT = 0.5  # seconds: connecting, and each command


def shared_key(kind: str, *parts: Any) -> str:
    """The shared cache's key of a thing of `kind` ("pdf", "engine-book"…) built from
    `parts` (stamps, ids, options: anything with a faithful repr) by this release of the
    code."""
    digest = hashlib.sha256(repr((release(), *parts)).encode()).hexdigest()
    return f"armybuilder:{kind}:{digest}"


@contextmanager
def slot(name: str, count: int, *, seconds: int) -> Iterator[bool]:
    """One of the `count` slots called `name`, held for the block (True), or False at once
    when every one is taken. The cache's add is atomic, so two processes never hold one
    slot; a slot is freed `seconds` after it was taken even when its worker died holding
    it, so make `seconds` longer than the work may take."""
    token = secrets.token_hex(8)
    for number in range(count):
        key = f"armybuilder:slot:{name}:{number}"
        if shared_cache.add(key, token, seconds):
            try:
                yield True
            finally:
                if shared_cache.get(key) == token:  # (not one another took after it expired)
                    shared_cache.delete(key)
            return
    yield False


def remembered(key: str, make: Callable[[], T], *, seconds: int) -> T:
    """What the shared cache holds under `key` (`shared_key`), else what `make()` gives,
    kept there for `seconds`."""
    value = shared_cache.get(key)
    if value is None:
        value = make()
        shared_cache.set(key, value, seconds)
    return value


class FailSoftRedisCache(RedisCache):
    """RedisCache that uses a local cache while Redis cannot be reached."""

    def __init__(self, server: str, params: dict[str, Any]):
        options = {"socket_connect_timeout": SOCKET_TIMEOUT, "socket_timeout": SOCKET_TIMEOUT}
        options.update(params.get("OPTIONS", {}))
        super().__init__(server, {**params, "OPTIONS": options})
        self._local = LocMemCache("armybuilder-fallback", {"OPTIONS": {"MAX_ENTRIES": 2000}})
        self._down_until = 0.0
        self._lock = threading.Lock()

    @property
    def down(self) -> bool:
        return time.monotonic() < self._down_until

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if not self.down:
            try:
                return getattr(super(), name)(*args, **kwargs)
            except UNREACHABLE as exc:
                with self._lock:
                    if not self.down:
                        log.warning("Redis cannot be reached (%s): a local cache for %g s", exc, RETRY_AFTER)
                    self._down_until = time.monotonic() + RETRY_AFTER
        return getattr(self._local, name)(*args, **kwargs)

    def ping(self) -> bool:
        """Whether Redis answers now (tried at most once per retry period when down)."""
        if self.down:
            return False
        try:
            return bool(self._cache.get_client(write=False).ping())
        except UNREACHABLE:
            self._down_until = time.monotonic() + RETRY_AFTER
            return False

    def clear(self) -> Any:
        self._local.clear()
        return self._call("clear")


# What Django's cache offers, each asked of Redis first and of the local cache while Redis
# cannot be reached.
FORWARDED = ("add", "get", "set", "touch", "delete", "get_many", "has_key", "incr", "set_many", "delete_many")


def _forwarded(name: str) -> Callable[..., Any]:
    def call(self: FailSoftRedisCache, *args: Any, **kwargs: Any) -> Any:
        return self._call(name, *args, **kwargs)

    call.__name__ = call.__qualname__ = name
    return call


for _name in FORWARDED:
    setattr(FailSoftRedisCache, _name, _forwarded(_name))


STATES: Memo[str, str] = Memo("cache: whether Redis answers", 1, seconds=1.0)


def cache_state() -> str:
    """ "ok" (the shared cache answers), "down" (Redis cannot be reached: a local cache
    stands in) or "local" (no shared cache configured). Redis is asked at most once a
    second per process."""
    cache = caches["default"]
    if not isinstance(cache, FailSoftRedisCache):
        return "local"
    return STATES.fetch("default", lambda: "ok" if cache.ping() else "down")
