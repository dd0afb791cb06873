"""Password guessing under load: 30 s of wrong passwords from spoofed X-Forwarded-For
addresses against the production set-up (gunicorn, PostgreSQL, Redis), on every log-in
path at once.

    .venv/bin/python bench/login_load.py            (DURATION=10 for a quick look)

Each guess comes with a new made-up X-Forwarded-For address; with
DJANGO_TRUSTED_PROXIES=0 (the default) the site must ignore it. Prints, per path, how
many guesses were made, how many the site judged (a wrong-password answer) before it
locked the door, and what the right password gets afterwards. Passes when:
- the site page and the admin lock after DJANGO_LOGIN_FAILURES judged guesses of an
  account (a few more may slip through while the first lock is being written), and the
  right password is then refused with "try again in N minutes";
- the token endpoint lets no more than its rate (20/min) through, then answers 429.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PORT = int(os.environ.get("PORT", "8766"))
DURATION = float(os.environ.get("DURATION", "30"))
THREADS = int(os.environ.get("THREADS", "4"))  # per path
DB = os.environ.get("LOAD_DB", "armybuilder_loginload")
BASE = f"http://127.0.0.1:{PORT}"
PASSWORD = "the-right-pass-phrase-1"
FAILURES = 5  # DJANGO_LOGIN_FAILURES, the default
SLACK = 2 * THREADS  # guesses already in flight when the lock is written
TOKEN_RATE = 20  # DJANGO_THROTTLE_AUTH, the default 20/min

ENV = {
    **os.environ,
    "DATABASE_URL": os.environ.get("DATABASE_URL", f"postgres://postgres@127.0.0.1:5432/{DB}"),
    "CACHE_URL": os.environ.get("CACHE_URL", "redis://127.0.0.1:6379/7"),
    "DJANGO_DEBUG": "false",
    "DJANGO_SECRET_KEY": "login-load-" + "x" * 40,
    "DJANGO_ALLOWED_HOSTS": "127.0.0.1",
    "DJANGO_SECURE_SSL_REDIRECT": "false",
    "DJANGO_TRUSTED_PROXIES": "0",
}


def spoofed() -> str:
    return ".".join(str(random.randint(1, 254)) for _ in range(4))


def manage(*args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=REPO, env=ENV, check=True, stdout=subprocess.DEVNULL)


def set_up() -> None:
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", f'DROP DATABASE IF EXISTS "{DB}"'], check=True)
    subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", f'CREATE DATABASE "{DB}"'], check=True)
    subprocess.run(["redis-cli", "-n", "7", "FLUSHDB"], check=True, stdout=subprocess.DEVNULL)
    manage("migrate", "-v0")
    manage("collectstatic", "--noinput", "-v0")
    code = (
        "from django.contrib.auth import get_user_model as g; U = g()\n"
        f"[U.objects.create_user(n, password='{PASSWORD}', is_staff=(n == 'admin-victim')) "
        "for n in ('site-victim', 'admin-victim', 'token-victim', 'bystander')]"
    )
    subprocess.run([sys.executable, "manage.py", "shell", "-c", code], cwd=REPO, env=ENV, check=True)


class Browser:
    """One client with its own cookies, as a guessing script would keep them (sent back
    over plain http although production marks them Secure)."""

    def __init__(self) -> None:
        self.cookies: dict[str, str] = {}
        self.opener = urllib.request.build_opener(NoRedirect)

    def _keep(self, headers) -> None:
        for value in headers.get_all("Set-Cookie") or []:
            name, _, rest = value.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]

    def request(self, path: str, data: dict | None = None, json_body: bool = False) -> tuple[int, str]:
        headers = {"X-Forwarded-For": spoofed(), "Referer": BASE + path}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if data is not None:
            if json_body:
                import json

                body, headers["Content-Type"] = json.dumps(data).encode(), "application/json"
            else:
                body = urllib.parse.urlencode(data).encode()
        request = urllib.request.Request(BASE + path, data=body, headers=headers)
        try:
            with self.opener.open(request, timeout=30) as response:
                self._keep(response.headers)
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            self._keep(error.headers)
            return error.code, error.read().decode()

    def log_in(self, path: str, username: str, password: str) -> tuple[int, str]:
        _status, page = self.request(path)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
        fields = {"username": username, "password": password, "next": "/"}
        if token:
            fields["csrfmiddlewaretoken"] = token.group(1)
        return self.request(path, fields)


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None  # a 302 after a log-in is the answer itself


def judged(status: int, page: str) -> str:
    if status == 429:
        return "locked"
    if status in (200, 400) and ("correct" in page.lower() or "unable to log in" in page.lower()):
        return "wrong password"
    if status == 302:
        return "LOGGED IN"
    return f"HTTP {status}"


def guess(path: str, username: str, stop: float, answers: Counter, lock: threading.Lock) -> None:
    browser = Browser()
    while time.monotonic() < stop:
        if path == "/api/auth/token/":
            status, page = browser.request(path, {"username": username, "password": "wrong"}, json_body=True)
        else:
            status, page = browser.log_in(path, username, "wrong-" + spoofed())
        with lock:
            answers[judged(status, page)] += 1


PATHS = {"/accounts/login/": "site-victim", "/admin/login/": "admin-victim", "/api/auth/token/": "token-victim"}


def attack(trusted_proxies: int) -> bool:
    """DURATION seconds of guesses on every path at once; True when the limits held."""
    env = {**ENV, "DJANGO_TRUSTED_PROXIES": str(trusted_proxies)}
    server = subprocess.Popen(
        [str(REPO / ".venv/bin/gunicorn"), "armybuilder.wsgi", "--workers", "2", "--bind", f"127.0.0.1:{PORT}"],
        cwd=REPO,
        env=env,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(BASE + "/api/health/", timeout=1)
                break
            except OSError:
                time.sleep(0.2)
        answers = {path: Counter() for path in PATHS}
        lock = threading.Lock()
        stop = time.monotonic() + DURATION
        threads = [
            threading.Thread(target=guess, args=(path, user, stop, answers[path], lock))
            for path, user in PATHS.items()
            for _ in range(THREADS)
        ]
        started = time.monotonic()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        took = time.monotonic() - started

        trusted = "trusted (each guess from a new address)" if trusted_proxies else "ignored (one address)"
        print(f"\nDJANGO_TRUSTED_PROXIES={trusted_proxies}: X-Forwarded-For {trusted}")
        print(f"{'path':<20} {'guesses':>8} {'judged':>7} {'refused':>8} {'other':>6}  right password afterwards")
        ok, judged_in_all = True, 0
        for path, user in PATHS.items():
            counts = answers[path]
            total = sum(counts.values())
            wrong, locked = counts["wrong password"], counts["locked"]
            judged_in_all += wrong
            other = total - wrong - locked
            browser = Browser()
            if path == "/api/auth/token/":
                status, page = browser.request(path, {"username": user, "password": PASSWORD}, json_body=True)
                ok &= wrong <= TOKEN_RATE
            else:
                status, page = browser.log_in(path, user, PASSWORD)
                ok &= "try again in" in page
            # Each account is locked (with trusted proxies, from a new address too).
            ok &= other == 0 and status == 429 and (trusted_proxies == 0 or wrong <= FAILURES + SLACK)
            after = f"{status} " + ("try again in …" if "try again in" in page else page[:40].replace("\n", " "))
            print(f"{path:<20} {total:>8} {wrong:>7} {locked:>8} {other:>6}  {after}")
        if trusted_proxies == 0:
            # One address made every guess: it is locked after DJANGO_LOGIN_FAILURES in all,
            # so another account from it is refused too.
            ok &= judged_in_all <= FAILURES + SLACK
            status, _page = Browser().log_in("/accounts/login/", "bystander", PASSWORD)
            print(f"another account from the same address: {status}")
            ok &= status == 429
        else:
            status, _page = Browser().log_in("/accounts/login/", "bystander", PASSWORD)
            print(f"another account, from a new address: {status} (its own password works)")
            ok &= status == 302
        print(f"{sum(sum(c.values()) for c in answers.values()) / took:.0f} guesses/s in all")
        return ok
    finally:
        server.terminate()
        server.wait()


def main() -> int:
    print(f"{DURATION:.0f} s of wrong passwords per run, {THREADS} clients per path, a new X-Forwarded-For each time")
    set_up()
    ok = attack(0)
    set_up()
    ok &= attack(1)
    print("\nlimits held" if ok else "\nLIMITS DID NOT HOLD")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
