"""No lockout by a stranger (issue 37, point 3): a log-in that gets in leaves its browser a
signed device cookie; with it the owner is spared the pace that strangers' guesses set for
her account, and the lockouts of an address she may share with them, while each cookie is
held to its own few failures (armybuilder/security.py, after OWASP's device cookies)."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core import signing
from rest_framework.test import APIClient

from armybuilder import security

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "not-a-real-pass-123"
PATHS = {"site": "/accounts/login/", "admin": "/admin/login/", "api": "/api/auth/token/"}
WAYS = list(PATHS)
# What each way answers a log-in that got in, and one that failed (the form again, or 400).
GOT_IN = {"site": 302, "admin": 302, "api": 200}
FAILED = {"site": 200, "admin": 200, "api": 400}
SALT = "armybuilder.security.device-cookie"


@pytest.fixture
def clock(monkeypatch):
    """The time the account's pace is counted by, set by the test rather than read."""
    now = [1_000_000.0]
    monkeypatch.setattr(security, "now", lambda: now[0])
    return now


@pytest.fixture
def owner(user):
    user.is_staff = True  # (so that the admin's log-in lets her in too)
    user.save()
    return user


def log_in(client: APIClient, way: str, username: str, password: str, address: str):
    body = {"username": username, "password": password}
    if way == "api":
        return client.post(PATHS[way], body, format="json", REMOTE_ADDR=address)
    return client.post(PATHS[way], body, REMOTE_ADDR=address)


def signed_in_browser(way: str, username: str, address: str = "127.0.0.2") -> APIClient:
    """A browser that has signed in once, and so holds a device cookie."""
    browser = APIClient()
    assert log_in(browser, way, username, PASSWORD, address).status_code == GOT_IN[way]
    assert browser.cookies["device"].value
    return browser


def strangers_keep_the_account_waiting(way: str, username: str, clock: list[float]) -> None:
    """Twelve wrong guesses, each from a new address and as soon as the account's pace lets
    it: the account then waits a minute after each failure."""
    for n in range(12):
        clock[0] += security.backoff_wait(username)
        assert log_in(APIClient(), way, username, "guess", f"127.0.0.{100 + n}").status_code == FAILED[way]


def the_account_waits(way: str, username: str, address: str = "127.0.0.250") -> int:
    """A new browser with the right password: refused for the account's wait, in seconds."""
    refused = log_in(APIClient(), way, username, PASSWORD, address)
    assert refused.status_code == 429
    assert b"Too many failed log-ins for this account" in refused.content
    return int(refused["Retry-After"])


@pytest.mark.parametrize("way", WAYS)
def test_a_log_in_that_gets_in_leaves_a_signed_http_only_lax_cookie_for_a_year(owner, way, settings):
    settings.DEVICE_COOKIE_SECURE = True
    browser = APIClient()
    assert log_in(browser, way, owner.username, "guess", "127.0.0.2").status_code == FAILED[way]
    assert "device" not in browser.cookies  # a failure earns nothing
    response = log_in(browser, way, owner.username, PASSWORD, "127.0.0.2")
    cookie = response.cookies["device"]
    flags = (cookie["httponly"], cookie["secure"], cookie["samesite"], cookie["max-age"])
    assert flags == (True, True, "Lax", 365 * 24 * 3600)
    held = signing.loads(cookie.value, salt=SALT)
    assert held["user"] == owner.username and len(held["nonce"]) == 32


@pytest.mark.parametrize(("debug", "secure"), [("false", "True"), ("true", "False")])
def test_the_cookie_is_sent_only_over_https_as_the_session_s_is(debug, secure):
    """In production (DEBUG off) it is Secure, as the session cookie; not while debugging."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(DJANGO_DEBUG=debug, DJANGO_SECRET_KEY="k" * 50, DJANGO_SETTINGS_MODULE="armybuilder.settings")
    read = "from django.conf import settings as s; print(s.DEVICE_COOKIE_SECURE, s.SESSION_COOKIE_SECURE)"
    shown = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup(); {read}"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.stdout.split() == [secure, secure], shown.stderr


@pytest.mark.parametrize("way", WAYS)
def test_the_owner_with_her_device_cookie_gets_in_at_once_while_strangers_keep_her_account_waiting(owner, way, clock):
    browser = signed_in_browser(way, owner.username)
    strangers_keep_the_account_waiting(way, owner.username, clock)
    assert the_account_waits(way, owner.username) == 60  # a new browser, even hers, waits
    assert log_in(browser, way, owner.username, PASSWORD, "127.0.0.2").status_code == GOT_IN[way]
    # Her getting in does not let the strangers off: the account still waits for them.
    assert the_account_waits(way, owner.username) == 60


@pytest.mark.parametrize("way", ["site", "api"])
def test_the_owner_s_mistakes_on_her_device_do_not_slow_her_account_for_others(owner, way, clock):
    browser = signed_in_browser(way, owner.username)
    for _ in range(4):
        assert log_in(browser, way, owner.username, "typo", "127.0.0.2").status_code == FAILED[way]
    # Had her four failures been counted for the account, this fifth would make it wait.
    assert log_in(APIClient(), way, owner.username, "guess", "127.0.0.3").status_code == FAILED[way]
    assert log_in(APIClient(), way, owner.username, PASSWORD, "127.0.0.4").status_code == GOT_IN[way]
    assert log_in(browser, way, owner.username, PASSWORD, "127.0.0.2").status_code == GOT_IN[way]


@pytest.mark.parametrize("way", ["site", "api"])
def test_a_device_cookie_with_too_many_failures_is_locked_and_trusted_no_more(owner, way, clock):
    guessing = signed_in_browser(way, owner.username)  # (as one stolen would be)
    other = signed_in_browser(way, owner.username, "127.0.0.3")
    strangers_keep_the_account_waiting(way, owner.username, clock)
    for _ in range(5):  # answered at once, never with the account's wait
        assert log_in(guessing, way, owner.username, "guess", "127.0.0.2").status_code == FAILED[way]
    refused = log_in(guessing, way, owner.username, PASSWORD, "127.0.0.2")
    assert refused.status_code == 429 and b"for this account" in refused.content
    # The lock is that cookie's: her other browser is trusted still.
    assert log_in(other, way, owner.username, PASSWORD, "127.0.0.3").status_code == GOT_IN[way]


def cookie_for(username: str) -> str:
    return security.device_cookie_value(username)


def another_account_s_cookie_renamed(owner) -> str:
    """A cookie signed for another account, its payload changed to name the owner."""
    _payload, rest = cookie_for("someone-else").split(":", 1)
    return signing.b64_encode(f'{{"user":"{owner.username}","nonce":"{"0" * 32}"}}'.encode()).decode() + ":" + rest


FOREIGN_COOKIES = {
    "another account's": lambda owner: cookie_for("someone-else"),
    "another account's, renamed": another_account_s_cookie_renamed,
    "signed with another key": lambda owner: signing.dumps(
        {"user": owner.username, "nonce": "0" * 32}, key="not-this-site-s-secret", salt=SALT
    ),
    "signed without the salt": lambda owner: signing.dumps({"user": owner.username, "nonce": "0" * 32}),
    "not signed": lambda owner: f'{{"user":"{owner.username}","nonce":"{"0" * 32}"}}',
}


@pytest.mark.parametrize("way", ["site", "api"])
@pytest.mark.parametrize("made", list(FOREIGN_COOKIES))
def test_a_cookie_we_did_not_give_this_account_earns_no_trust(owner, way, made, clock):
    strangers_keep_the_account_waiting(way, owner.username, clock)
    browser = APIClient()
    browser.cookies["device"] = FOREIGN_COOKIES[made](owner)
    refused = log_in(browser, way, owner.username, PASSWORD, "127.0.0.2")
    assert refused.status_code == 429 and refused["Retry-After"] == "60"


def test_a_cookie_older_than_a_year_earns_no_trust(owner, clock, monkeypatch):
    real_time = time.time()
    with monkeypatch.context() as back_then:
        back_then.setattr(signing.time, "time", lambda: real_time - 366 * 24 * 3600)
        old = cookie_for(owner.username)
    strangers_keep_the_account_waiting("site", owner.username, clock)
    browser = APIClient()
    browser.cookies["device"] = old
    assert log_in(browser, "site", owner.username, PASSWORD, "127.0.0.2").status_code == 429


@pytest.mark.parametrize("way", ["site", "api"])
def test_the_owner_with_her_cookie_gets_in_from_an_address_a_stranger_has_locked(owner, way, clock):
    """A stranger sharing her address (the same office, a phone network's shared address)
    locks it for her account and for every account; her browser gets in all the same."""
    browser = signed_in_browser(way, owner.username)
    stranger = APIClient()
    guesses = [owner.username] * 3 + ["nobody-1", "nobody-2"]
    codes = [log_in(stranger, way, username, "guess", "127.0.0.2").status_code for username in guesses]
    assert codes == [FAILED[way]] * 4 + [429]
    locked = log_in(APIClient(), way, owner.username, PASSWORD, "127.0.0.2")  # a new browser there
    assert locked.status_code == 429 and b"from this address" in locked.content
    assert log_in(browser, way, owner.username, PASSWORD, "127.0.0.2").status_code == GOT_IN[way]


def test_signing_up_leaves_the_new_account_s_device_cookie(db):
    password = "a-long-pass-phrase-1"
    form = {"username": "Newcomer", "password1": password, "password2": password}
    response = APIClient().post("/accounts/signup/", form, REMOTE_ADDR="127.0.0.2")
    assert response.status_code == 302
    held = signing.loads(response.cookies["device"].value, salt=SALT)
    assert held["user"] == "newcomer"  # (in lower case, as the account's pace counts it)
