"""Redis gone is not an outage: a Redis started for the test is the site's cache; the
test stops it, and every cached page still answers (from the database, with a local
cache standing in), the throttles still count (per process), and /api/health/ says the
cache is down; started again, the shared cache is used again."""

import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest
from django.core.cache import caches
from django.test import Client
from rest_framework.test import APIClient

from armybuilder import cache as fail_soft
from armybuilder.lists.models import ArmyList
from tests.conftest import wardens_list

REDIS = shutil.which("redis-server") or "/usr/bin/redis-server"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A redis-server of the test's own, on a free port of loopback."""

    def __init__(self, folder: Path):
        self.port, self.folder, self.process = free_port(), folder, None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [REDIS, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.1):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
            self.process = None


@pytest.fixture
def redis_cache(settings, tmp_path):
    if not Path(REDIS).exists():
        pytest.fail("redis-server is needed (apt-get install -y redis-server)")
    server = RedisServer(tmp_path)
    server.start()
    settings.CACHES = {
        "default": {"BACKEND": "armybuilder.cache.FailSoftRedisCache", "LOCATION": f"redis://127.0.0.1:{server.port}/0"}
    }
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "anon": "5/min"}
    fail_soft.STATES.clear()
    caches["default"].clear()  # (the stand-in local cache is kept by name across tests)
    yield server
    server.stop()
    fail_soft.STATES.clear()


def pages(army_list: ArmyList) -> dict[str, str]:
    key = army_list.share_key
    return {
        "shared list (API)": f"/api/shared/{key}/",
        "share page": f"/s/{key}/",
        "cards PDF": f"/api/shared/{key}/export/cards.pdf",
        "text export": f"/api/shared/{key}/export/text",
        "systems": "/api/systems/",
    }


def test_with_redis_stopped_every_cached_page_answers_and_health_says_so(redis_cache, wardens, user):
    army_list = wardens_list(user, ["wardens"])
    client = Client()
    assert client.get("/api/health/").json() == {"status": "ok", "cache": "ok"}
    for name, path in pages(army_list).items():
        assert client.get(path).status_code == 200, name
    assert caches["default"].get_many(["x"]) == {}  # Redis answered: the shared cache is in use
    redis_cache.stop()
    fail_soft.STATES.clear()

    started = time.monotonic()
    for name, path in pages(army_list).items():
        response = client.get(path)
        assert response.status_code == 200, (name, response.status_code)
    token = APIClient().post("/api/auth/token/", {"username": user.username, "password": "not-a-real-pass-123"})
    assert token.status_code == 200, token.content
    assert time.monotonic() - started < 10  # no request waited on the dead Redis for long
    assert client.get("/api/health/").json() == {"status": "ok", "cache": "down"}

    redis_cache.start()
    caches["default"]._down_until = 0.0  # (rather than wait out the retry period)
    fail_soft.STATES.clear()
    assert client.get("/api/health/").json() == {"status": "ok", "cache": "ok"}


def test_with_redis_stopped_the_throttles_count_per_process(redis_cache, wardens):
    redis_cache.stop()
    api = APIClient()
    answers = [api.get("/api/systems/").status_code for _ in range(7)]
    assert answers == [200] * 5 + [429] * 2


def test_without_a_shared_cache_health_says_local(db):
    assert Client().get("/api/health/").json() == {"status": "ok", "cache": "local"}
