"""Shared set-up of the bench scripts: the repository on the path, a throw-away SQLite
database (unless DATABASE_URL is set), production-like settings, Django started."""

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def start_django(*, allowed_hosts: str = "testserver") -> Path:
    sys.path.insert(0, str(REPO))
    tmp = Path(tempfile.mkdtemp(prefix="armybuilder-bench-"))
    os.environ.setdefault("DATABASE_URL", f"sqlite:///{tmp}/bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "armybuilder.settings")
    os.environ.setdefault("DJANGO_DEBUG", "false")
    os.environ.setdefault("DJANGO_SECURE_SSL_REDIRECT", "false")
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-" + "x" * 40)
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", allowed_hosts)
    for scope in ("ANON", "USER"):  # measure the app, not the abuse limits
        os.environ.setdefault(f"DJANGO_THROTTLE_{scope}", "off")
    import django

    django.setup()
    return tmp


def median_ms(fn, repeat: int) -> float:
    """Median wall time of `fn()` over `repeat` calls, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000
