"""What this process keeps in memory: every cache of its own is a memo made here.

A `Memo` is a named least-recently-used cache (cachetools' LRUCache) of at most `size`
entries behind its own lock, so any thread may read and fill it. `memoize` puts a named,
bounded memo in front of a function of hashable arguments. Every memo there is, those of
the modules and those kept on each compiled book, is listed by `memos()` and emptied by
`clear_all()`, the one way to start afresh (the tests do, to act as another process
would). Nothing needs clearing to stay correct: keys are stamps of what an entry was built
from (armybuilder/stamps.py), so a change is a new key and an old entry is never found
again.

Across processes the site shares Django's cache (CACHE_URL, armybuilder/cache.py).
Plain Python, no Django: the rules engine keeps its caches through it too.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, Generic, ParamSpec, Protocol, TypeVar, cast

from cachetools import Cache, LRUCache, TTLCache

K = TypeVar("K")
V = TypeVar("V")
P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

_MISSING: Any = object()


class Kept:
    """What every memo has: a name saying what it holds, a bound, a size now, a way to
    empty it. Made, it is listed by `memos()` for as long as something holds it."""

    def __init__(self, name: str, size: int):
        if size < 1:
            raise ValueError(f"a memo holds at least one entry: {name!r} was given {size}")
        self.name, self.size = name, size
        with _REGISTRY_LOCK:
            _REGISTRY.add(self)

    def clear(self) -> None:
        raise NotImplementedError

    def __len__(self) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}: {len(self)} of {self.size}>"


class Memo(Kept, Generic[K, V]):
    """At most `size` entries, the least recently used dropped first; `name` says what
    it holds (several memos may share a name: one per compiled book, say). With
    `seconds`, an entry is also dropped that long after it was kept. With `weigh`, the
    bound is on the entries' weights added up (say, a book's units, for what it holds in
    memory) rather than on their number; an entry heavier than the whole bound is not kept."""

    def __init__(self, name: str, size: int, *, seconds: float | None = None, weigh: Callable[[V], int] | None = None):
        super().__init__(name, size)
        self._entries: Cache[K, V] = (
            LRUCache(maxsize=size, getsizeof=weigh)
            if seconds is None
            else TTLCache(maxsize=size, ttl=seconds, timer=time.monotonic, getsizeof=weigh)
        )
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._entries.get(key)

    def set(self, key: K, value: V) -> V:
        with self._lock:
            try:
                self._entries[key] = value
            except ValueError:  # heavier than the whole bound (`weigh`): used once, not kept
                pass
        return value

    @property
    def weight(self) -> int:
        """What the entries weigh together: their number, without `weigh`."""
        with self._lock:
            return int(self._entries.currsize)

    def fetch(self, key: K, make: Callable[[], V]) -> V:
        """The entry of `key`, made and kept when there is none. `make` runs outside the
        lock: two threads missing the same key at once may both make it (the last kept
        wins), but no thread waits on another's work."""
        with self._lock:
            found = self._entries.get(key, _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[no-any-return]
        return self.set(key, make())

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries


class FunctionMemo(Kept):
    """The memo in front of a function (`memoize`): functools' least-recently-used cache,
    written in C and safe across threads without a lock of ours. A lookup costs a sixth
    of one in a locked `Memo` (0.06 against 0.4 µs), and the PDFs look up shaped and
    measured text some 40,000 times to draw 100 cards."""

    def __init__(self, name: str, size: int, cached: Any):
        super().__init__(name, size)
        self._cached = cached

    def clear(self) -> None:
        self._cached.cache_clear()

    def __len__(self) -> int:
        return int(self._cached.cache_info().currsize)


class Memoized(Protocol[P, R_co]):
    """A function with a memo in front of it (`memoize`)."""

    memo: FunctionMemo

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...


def memoize(
    name: str, size: int, *, when: Callable[..., bool] | None = None
) -> Callable[[Callable[P, R]], Memoized[P, R]]:
    """A memo of at most `size` answers in front of a function of hashable arguments, each
    answer kept under the arguments it was given. With `when`, only calls for which
    `when(*args)` is true are kept (say, texts short enough); the others are worked out
    every time."""

    def decorate(function: Callable[P, R]) -> Memoized[P, R]:
        cached = lru_cache(maxsize=size)(function)
        lookup: Any = cached if when is None else _kept_when(when, function, cached)
        lookup.memo = FunctionMemo(name, size, cached)
        return cast(Memoized[P, R], lookup)

    return decorate


def _kept_when(when: Callable[..., bool], function: Callable[P, R], cached: Callable[..., R]) -> Callable[P, R]:
    @wraps(function)
    def lookup(*args: P.args, **kwargs: P.kwargs) -> R:
        return cached(*args, **kwargs) if when(*args) else function(*args, **kwargs)

    return lookup


# Every memo alive, weakly: one kept on a compiled book goes with the book.
_REGISTRY: weakref.WeakSet[Kept] = weakref.WeakSet()
_REGISTRY_LOCK = threading.Lock()


def memos() -> list[Kept]:
    """Every memo of this process, by name."""
    with _REGISTRY_LOCK:
        alive = list(_REGISTRY)
    return sorted(alive, key=lambda memo: memo.name)


def clear_all() -> None:
    """Empty every memo of this process: what it holds is made again when next asked for."""
    for memo in memos():
        memo.clear()
