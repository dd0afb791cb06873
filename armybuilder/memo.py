"""What this process keeps in memory: every cache of its own is a `Memo`.

A `Memo` is a named least-recently-used cache (cachetools' LRUCache) of at most `size`
entries behind its own lock, so any thread may read and fill it; `memoize` puts one in
front of a function. Every memo there is, those of the modules and those kept on each
compiled book, is listed by `memos()` and emptied by `clear_all()`, the one way to start
afresh (the tests do, to act as another process would). Nothing needs clearing to stay
correct: keys are stamps of what an entry was built from (armybuilder/stamps.py), so a
change is a new key and an old entry is never found again.

Across processes the site shares Django's cache (CACHE_URL, armybuilder/cache.py).
Plain Python, no Django: the rules engine keeps its caches through it too.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable
from functools import wraps
from typing import Any, Generic, ParamSpec, Protocol, TypeVar

from cachetools import Cache, LRUCache, TTLCache

K = TypeVar("K")
V = TypeVar("V")
P = ParamSpec("P")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

_MISSING: Any = object()


class Memo(Generic[K, V]):
    """At most `size` entries, the least recently used dropped first; `name` says what
    it holds (several memos may share a name: one per compiled book, say). With
    `seconds`, an entry is also dropped that long after it was kept."""

    def __init__(self, name: str, size: int, *, seconds: float | None = None):
        if size < 1:
            raise ValueError(f"a memo holds at least one entry: {name!r} was given {size}")
        self.name, self.size = name, size
        self._entries: Cache[K, V] = (
            LRUCache(maxsize=size) if seconds is None else TTLCache(maxsize=size, ttl=seconds, timer=time.monotonic)
        )
        self._lock = threading.Lock()
        with _REGISTRY_LOCK:
            _REGISTRY.add(self)

    def get(self, key: K) -> V | None:
        with self._lock:
            return self._entries.get(key)

    def set(self, key: K, value: V) -> V:
        with self._lock:
            self._entries[key] = value
        return value

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

    def __repr__(self) -> str:
        return f"<Memo {self.name!r}: {len(self)} of {self.size}>"


class Memoized(Protocol[P, R_co]):
    """A function with a memo in front of it (`memoize`)."""

    memo: Memo[Any, Any]

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R_co: ...


def memoize(
    name: str, size: int, *, when: Callable[..., bool] | None = None
) -> Callable[[Callable[P, R]], Memoized[P, R]]:
    """A `Memo` in front of a function of hashable arguments: each answer is kept under
    the arguments it was given. With `when`, only calls for which `when(*args)` is true
    are kept (say, texts short enough); the others are worked out every time."""

    def decorate(function: Callable[P, R]) -> Memoized[P, R]:
        memo: Memo[Any, R] = Memo(name, size)
        entries, lock = memo._entries, memo._lock

        @wraps(function)
        def lookup(*args: P.args, **kwargs: P.kwargs) -> R:
            if when is not None and not when(*args):
                return function(*args, **kwargs)
            key = (args, tuple(sorted(kwargs.items()))) if kwargs else args
            with lock:
                found = entries.get(key, _MISSING)
            if found is not _MISSING:
                return found  # type: ignore[no-any-return]
            value = function(*args, **kwargs)
            with lock:
                entries[key] = value
            return value

        lookup.memo = memo  # type: ignore[attr-defined]
        return lookup  # type: ignore[return-value]

    return decorate


# Every memo alive, weakly: one kept on a compiled book goes with the book.
_REGISTRY: weakref.WeakSet[Memo[Any, Any]] = weakref.WeakSet()
_REGISTRY_LOCK = threading.Lock()


def memos() -> list[Memo[Any, Any]]:
    """Every memo of this process, by name."""
    with _REGISTRY_LOCK:
        alive = list(_REGISTRY)
    return sorted(alive, key=lambda memo: memo.name)


def clear_all() -> None:
    """Empty every memo of this process: what it holds is made again when next asked for."""
    for memo in memos():
        memo.clear()
