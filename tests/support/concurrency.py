"""Several requests at the same moment, for the race tests (PostgreSQL: a connection a
thread)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.db import connections


def at_once(count: int, work: Callable[[], Any]) -> list[Any]:
    """`work` run by `count` threads released together; what each returned, or the repr
    of what it raised, in the order they finished. Each closes its connections after."""
    barrier, outcomes = threading.Barrier(count), []

    def run() -> None:
        try:
            barrier.wait()
            outcomes.append(work())
        except Exception as exc:  # noqa: BLE001 - the test names what went wrong
            outcomes.append(repr(exc))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes
