"""Production readiness: deploy checks, abuse limits, a database that goes away."""

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import OperationalError, connection
from rest_framework.test import APIClient

from armybuilder.armyforge.books.imports import book_import
from armybuilder.lists.models import ArmyList
from armybuilder.memo import clear_all
from factions.models import BookVersion, Faction

REPO = Path(__file__).resolve().parents[2]


def test_check_deploy_reports_nothing_with_production_settings():
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    env.update(
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY="k" * 20 + "-production-secret-key-for-the-test-42",
        DJANGO_ALLOWED_HOSTS="armies.example.org",
        DJANGO_SETTINGS_MODULE="armybuilder.settings",
    )
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout
    assert "WARNINGS" not in result.stdout + result.stderr


def body(n=1):
    return {
        "system": "aof",
        "faction": "test-wardens",
        "points_limit": 1500,
        "entries": [{"id": f"e{i}", "unit": "wardens"} for i in range(n)],
    }


# -- abuse limits ----------------------------------------------------------------------
def test_anonymous_api_use_is_throttled(wardens, settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "anon": "3/min"}
    client = APIClient()
    codes = [client.post("/api/validate/", body(), format="json").status_code for _ in range(4)]
    assert codes == [200, 200, 200, 429]
    assert "throttled" in client.get("/api/systems/").json()["detail"].lower()


def test_signed_in_api_use_is_throttled_per_user(wardens, settings, user):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "user": "2/min"}
    client = APIClient()
    client.force_authenticate(user)
    assert [client.get("/api/lists/").status_code for _ in range(3)] == [200, 200, 429]


def test_turning_the_anonymous_limit_off_turns_it_off(wardens, settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "anon": None, "user": "2/min"}
    client = APIClient()
    assert {client.post("/api/validate/", body(), format="json").status_code for _ in range(5)} == {200}


def test_token_requests_are_throttled(user, settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "auth": "2/min"}
    client = APIClient()
    wrong = {"username": user.username, "password": "guess"}
    assert [client.post("/api/auth/token/", wrong, format="json").status_code for _ in range(3)] == [400, 400, 429]


def test_sign_ups_are_throttled(db, client, settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "signup": "1/hour"}
    form = {"username": "first", "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9"}
    assert client.post("/accounts/signup/", form).status_code == 302
    from django.test import Client

    response = Client().post("/accounts/signup/", {**form, "username": "second"})
    assert response.status_code == 429 and b"Too many sign-ups" in response.content


def test_a_signed_in_browser_is_held_to_the_sign_up_limit_too(db, client, settings):
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "signup": "1/hour"}
    form = {"username": "first", "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9"}
    assert client.post("/accounts/signup/", form).status_code == 302  # now signed in
    response = client.post("/accounts/signup/", {**form, "username": "second"})
    assert response.status_code == 429


def test_visitors_make_only_so_many_lists(wardens, client, settings, user, monkeypatch):
    from armybuilder import ratelimit

    monkeypatch.setattr(ratelimit, "clock", lambda: 1_800_000_000.0)  # one moment: no window ends in the test
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "visitor_lists": "2/hour"}
    form = {"faction": "test-wardens", "points": "750"}
    assert [client.post("/new/aof/", form).status_code for _ in range(3)] == [302, 302, 429]
    api = APIClient()
    listed = {"system": "aof", "faction": "test-wardens", "points_limit": 750, "entries": []}
    assert api.post("/api/lists/", listed, format="json").status_code == 429  # the same address
    client.force_login(user)  # an account is held to the user rate instead
    assert {client.post("/new/aof/", form).status_code for _ in range(3)} == {302}


def test_an_oversized_body_is_413_and_read_no_further(wardens, settings):
    settings.MAX_REQUEST_BODY = 1000
    response = APIClient().post("/api/validate/", body(40), format="json")
    assert response.status_code == 413
    assert response.json()["detail"].startswith("The request body is ")
    assert response.json()["detail"].endswith("the most this site accepts is 1000 bytes.")


def test_an_oversized_army_book_upload_is_413_and_imports_nothing(staff_client, make_aof_book, settings):
    settings.MAX_REQUEST_BODY = 2000
    response = staff_client.post("/api/factions/import/", make_aof_book(units=30), format="json")
    assert response.status_code == 413
    assert not Faction.objects.exists()


def test_a_list_of_more_than_500_entries_is_400(wardens):
    response = APIClient().post("/api/validate/", body(501), format="json")
    assert response.status_code == 400
    assert response.json() == {"entries": {"non_field_errors": ["Ensure this field has no more than 500 elements."]}}
    assert APIClient().post("/api/validate/", body(500), format="json").status_code == 200


# -- the database going away -------------------------------------------------------------
def database_gone(execute, sql, params, many, context):
    raise OperationalError("server closed the connection unexpectedly")


def test_the_database_going_away_is_a_clean_503_and_the_next_request_works(wardens):
    client = APIClient()
    with connection.execute_wrapper(database_gone):
        response = client.post("/api/validate/", body(), format="json")
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "database is not answering" in response.json()["detail"]
    assert client.post("/api/validate/", body(), format="json").status_code == 200


def test_pages_get_a_503_page_too(wardens, client):
    with connection.execute_wrapper(database_gone):
        response = client.get("/lists/")
    assert response.status_code == 503
    assert b"Back in a moment" in response.content


def test_a_save_cut_off_half_way_leaves_nothing_half_saved(wardens, make_aof_book):
    """The database fails on the last statement of an import, which keeps the version
    (after the book's row was written): nothing of it stays."""
    book = make_aof_book(units=12)
    book["slug"] = "cut-off"
    written = []

    def fail_later(execute, sql, params, many, context):
        if sql.startswith("INSERT"):
            written.append(sql.split()[2].strip('"'))
        if sql.startswith("INSERT") and BookVersion._meta.db_table in sql:
            raise OperationalError("connection lost")
        return execute(sql, params, many, context)

    before = BookVersion.objects.count()
    with pytest.raises(OperationalError), connection.execute_wrapper(fail_later):
        book_import(data=book)
    assert written == [Faction._meta.db_table, BookVersion._meta.db_table]
    assert BookVersion.objects.count() == before
    assert not Faction.objects.filter(slug="cut-off").exists()


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_on_postgresql_a_killed_connection_is_a_503_then_recovers(make_aof_book):
    from django.db import connections

    from factions.services import sync_rulesets

    sync_rulesets()
    clear_all()
    book_import(data=make_aof_book())
    client = APIClient()
    assert client.post("/api/validate/", body(), format="json").status_code == 200
    pid = connection.connection.info.backend_pid
    killer = connections.create_connection("default")
    with killer.cursor() as cursor:
        cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    killer.close()
    clear_all()  # make the next request go to the database
    response = client.post("/api/validate/", body(), format="json")
    assert response.status_code == 503
    assert client.post("/api/validate/", body(), format="json").status_code == 200
    assert ArmyList.objects.count() == 0


@pytest.mark.parametrize(
    ("method", "path", "data", "content_type"),
    [
        ("get", "/api/factions/?system=a%00b", None, None),
        ("get", "/api/shared/ab%00cd/", None, None),
        (
            "post",
            "/api/validate/",
            '{"system": "aof\\u0000", "faction": "x", "points_limit": 5, "entries": []}',
            "application/json",
        ),
        ("post", "/new/aof/", "faction=test-wardens&points=750&name=a%00b", "application/x-www-form-urlencoded"),
        (
            "post",
            "/api/validate/",
            '{"system": "aof\\u0000", "faction": "x", "points_limit": 5, "entries": []}',
            "APPLICATION/JSON",
        ),
        (
            "post",
            "/new/aof/",
            '--XX\r\nContent-Disposition: form-data; name="faction"\r\n\r\ntest-wardens\r\n'
            '--XX\r\nContent-Disposition: form-data; name="points"\r\n\r\n750\r\n'
            '--XX\r\nContent-Disposition: form-data; name="name"\r\n\r\na\x00b\r\n--XX--\r\n',
            "multipart/form-data; boundary=XX",
        ),
    ],
    ids=["query", "path", "json", "form", "json-upper-case", "multipart-field"],
)
def test_nul_characters_are_a_400_not_a_database_error(wardens, client, method, path, data, content_type):
    kwargs = {"data": data, "content_type": content_type} if data is not None else {}
    response = getattr(client, method)(path, **kwargs)
    assert response.status_code == 400
    assert b"NUL character" in response.content
    assert not ArmyList.objects.exists()


def test_the_text_percent_00_in_json_is_just_text(wardens, client):
    listed = {"system": "aof", "faction": "test-wardens", "points_limit": 750, "entries": [], "name": "100%00 sure"}
    assert client.post("/api/validate/", listed, content_type="application/json").status_code == 200


def test_a_nul_in_an_uploaded_file_is_a_400(wardens, staff_client):
    import io

    for url in ("/api/lists/import/", "/api/factions/import/"):
        upload = io.BytesIO(b'{"name": "a\\u0000b"}')
        upload.name = "x.json"
        response = staff_client.post(url, {"file": upload}, format="multipart")
        assert response.status_code == 400 and "NUL character" in str(response.json())


@pytest.mark.parametrize(
    ("next_url", "lands"),
    [("/lists/", "/lists/"), ("https://evil.example/", "/"), ("//evil.example/x", "/"), ("", "/")],
)
def test_sign_up_returns_only_to_a_page_of_this_site(db, client, next_url, lands):
    form = {"username": "newcomer", "password1": "a-long-pass-phrase-9", "password2": "a-long-pass-phrase-9"}
    response = client.post(f"/accounts/signup/?next={next_url}", form)
    assert response.status_code == 302 and response["Location"] == lands


def test_a_token_can_be_revoked_and_ends_with_a_new_password(user):
    from rest_framework.authtoken.models import Token

    client = APIClient()
    credentials = {"username": user.username, "password": "not-a-real-pass-123"}
    token = client.post("/api/auth/token/", credentials, format="json").json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/lists/").status_code == 200
    assert client.delete("/api/auth/token/").status_code == 204
    assert client.get("/api/lists/").status_code in (401, 403)  # the token is no more
    assert APIClient().delete("/api/auth/token/").status_code == 401  # nobody to revoke for

    client = APIClient()
    token = client.post("/api/auth/token/", credentials, format="json").json()["token"]
    user.set_password("another-long-pass-phrase-2")
    user.save()
    assert not Token.objects.filter(key=token).exists()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert client.get("/api/lists/").status_code in (401, 403)


@pytest.mark.parametrize("path", ["/", "/new/aof/", "/lists/", "/rules/aof/", "/api/systems/"])
def test_every_page_has_a_content_security_policy_and_no_inline_script(wardens, client, path):
    import re

    response = client.get(path)
    assert response.status_code == 200
    policy = response["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
    scripts = re.findall(rb"<script([^>]*)>", response.content)
    assert all(b"src=" in attributes for attributes in scripts)
    assert b" style=" not in response.content and b" on" + b"click=" not in response.content


def test_api_errors_are_json_even_a_500_or_too_many_files(wardens, settings, monkeypatch):
    from django.test import Client

    from armybuilder.api import views

    settings.DEBUG = False
    client = Client(raise_request_exception=False)
    assert client.get("/api/no-such-thing/").json() == {"detail": "Not found."}
    files = {f"f{i}": io.BytesIO(b"{}") for i in range(200)}
    for name, handle in files.items():
        handle.name = f"{name}.json"
    too_many = client.post("/api/lists/import/", files)
    assert too_many.status_code == 400 and "detail" in too_many.json()

    def broken(self, request):
        raise RuntimeError("boom")

    monkeypatch.setattr(views.SystemViewSet, "list", broken)
    crashed = client.get("/api/systems/")
    assert crashed.status_code == 500 and crashed.json()["detail"].startswith("Something went wrong")


def _hammer(rate: str, location: str, calls: int) -> int:
    """One process of the concurrency test: `calls` requests from one address through
    the anonymous throttle, counted in Redis; how many passed."""
    import django
    from django.conf import settings as django_settings
    from django.core.cache.backends.redis import RedisCache
    from django.test import RequestFactory

    django.setup()
    from armybuilder.api.throttles import AnonThrottle

    django_settings.THROTTLE_RATES = {**django_settings.THROTTLE_RATES, "anon": rate}
    AnonThrottle.cache = RedisCache(location, {})
    request = RequestFactory().get("/api/systems/", REMOTE_ADDR="203.0.113.9")
    request.user = None
    return sum(1 for _ in range(calls) if AnonThrottle().allow_request(request, None))


def test_requests_arriving_together_are_all_counted():
    """Eight processes (as gunicorn workers are), 150 requests each, through a limit of
    600 counted in one Redis: exactly 600 pass. Counters that read, add and write back
    let more through. The limit is 600 a day: the windows are fixed, and a run across the
    end of a minute would rightly let more through (a day's end is a much smaller target)."""
    import multiprocessing

    import redis

    location = os.environ.get("ARMYBUILDER_TEST_REDIS", "redis://127.0.0.1:6379/15")
    try:
        redis.Redis.from_url(location).flushdb()
    except redis.exceptions.ConnectionError:
        message = f"Redis not answering at {location}: the concurrency test needs one"
        if os.environ.get("ARMYBUILDER_REQUIRE_SHARED") == "1":
            pytest.fail(message)
        pytest.skip(message)
    with multiprocessing.get_context("fork").Pool(8) as pool:
        passed = pool.starmap(_hammer, [("600/day", location, 150)] * 8)
    assert sum(passed) == 600


@pytest.mark.parametrize("proxies", [None, 1], ids=["as-configured", "one-trusted-proxy"])
def test_a_forged_forwarded_for_does_not_reset_a_limit(user, settings, proxies):
    """Token guesses with a new X-Forwarded-For each time: as configured (no trusted
    proxy) the header is ignored; behind one proxy, only the address it appended counts."""
    settings.THROTTLE_RATES = {**settings.THROTTLE_RATES, "auth": "3/min"}
    if proxies is not None:
        settings.TRUSTED_PROXIES = proxies
    client = APIClient()
    wrong = {"username": user.username, "password": "guess"}
    codes = [
        client.post(
            "/api/auth/token/", wrong, format="json", HTTP_X_FORWARDED_FOR=f"198.51.100.{i}, 203.0.113.7"
        ).status_code
        for i in range(6)
    ]
    assert codes == [400, 400, 400, 429, 429, 429]


@pytest.mark.parametrize(
    ("proxies", "forwarded", "address"),
    [
        (0, "198.51.100.1, 203.0.113.7", "192.0.2.1"),  # the header is the client's to write
        (1, "198.51.100.1, 203.0.113.7", "203.0.113.7"),  # what our one proxy saw
        (2, "198.51.100.1, 203.0.113.7", "198.51.100.1"),
        (3, "203.0.113.7", "203.0.113.7"),  # fewer hops than proxies: the first
        (1, None, "192.0.2.1"),
    ],
)
def test_the_client_address_counts_only_trusted_proxies(settings, proxies, forwarded, address):
    from django.test import RequestFactory

    from armybuilder.ratelimit import client_address

    settings.TRUSTED_PROXIES = proxies
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded else {}
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.1", **extra)
    assert client_address(request) == address


# -- password guessing ------------------------------------------------------------------------
LOGIN_PATHS = [("/accounts/login/", "username"), ("/admin/login/", "username")]


@pytest.mark.parametrize(("path", "field"), LOGIN_PATHS, ids=["site", "admin"])
def test_an_account_locks_for_the_address_guessing_at_it_but_not_for_its_owner(user, path, field, monkeypatch):
    from django.test import Client

    from armybuilder import security

    clock = [1_000_000.0]
    monkeypatch.setattr(security, "now", lambda: clock[0])
    user.is_staff = True
    user.save()
    guesser = Client()
    codes = [
        guesser.post(path, {field: user.username, "password": f"guess-{i}"}, REMOTE_ADDR="198.51.100.1").status_code
        for i in range(5)
    ]
    assert codes == [200, 200, 200, 200, 429]  # the form again four times, then locked
    right = {field: user.username, "password": "not-a-real-pass-123"}
    locked = guesser.post(path, right, REMOTE_ADDR="198.51.100.1")  # even the right password, from there
    assert locked.status_code == 429 and b"try again in 15 minutes" in locked.content
    clock[0] += 1  # the account's pace after five failures: one try a second
    owner = Client()
    assert owner.post(path, right, REMOTE_ADDR="198.51.100.2").status_code == 302  # its owner, elsewhere, gets in
    assert "_auth_user_id" in owner.session


def test_guesses_at_one_account_from_many_addresses_are_slowed_not_locked(user, monkeypatch):
    """After five failures each try waits 1 s, 2, 4, … at most a minute after the last
    failure; a try sooner is refused unread, even with the right password, and is not
    counted; once the wait is over the owner gets in."""
    from armybuilder import security

    clock = [1_000_000.0]
    monkeypatch.setattr(security, "now", lambda: clock[0])
    wrong = {"username": user.username, "password": "wrong"}
    right = {"username": user.username, "password": "not-a-real-pass-123"}

    def token(body: dict, n: int):
        return APIClient().post("/api/auth/token/", body, format="json", REMOTE_ADDR=f"203.0.113.{n}")

    for n in range(5):
        assert token(wrong, n).status_code == 400
    waits = []
    for n in range(5, 12):
        refused = token(right, n)  # too soon: refused unread, whatever the password
        assert refused.status_code == 429, refused.content
        waits.append(int(refused["Retry-After"]))
        assert refused.json()["detail"] == (
            f"Too many failed log-ins for this account: try again in {waits[-1]} second{'s' * (waits[-1] != 1)}."
        )
        clock[0] += waits[-1]
        assert token(wrong, n + 100).status_code == 400  # a guess once the wait is over: counted
    assert waits == [1, 2, 4, 8, 16, 32, 60]
    clock[0] += 60
    assert token(right, 250).status_code == 200  # never locked for the cool-off: the owner gets in


def test_the_api_token_locks_for_the_guessing_address_and_says_so_in_json(user):
    client = APIClient()
    for i in range(4):
        response = client.post("/api/auth/token/", {"username": user.username, "password": f"g{i}"}, format="json")
        assert response.status_code == 400
    client.post("/api/auth/token/", {"username": user.username, "password": "g5"}, format="json")
    right = {"username": user.username, "password": "not-a-real-pass-123"}
    locked = client.post("/api/auth/token/", right, format="json")
    assert locked.status_code == 429
    assert "try again in 15 minutes" in locked.json()["detail"]


def test_an_address_locks_whatever_account_it_tries_and_forging_its_address_does_not_help(user):
    from django.test import Client

    guesser = Client()
    for i in range(5):
        guesser.post(
            "/accounts/login/",
            {"username": f"nobody-{i}", "password": "guess"},
            REMOTE_ADDR="198.51.100.1",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{i}",
        )
    locked = guesser.post(
        "/accounts/login/",
        {"username": user.username, "password": "not-a-real-pass-123"},
        REMOTE_ADDR="198.51.100.1",
        HTTP_X_FORWARDED_FOR="203.0.113.200",
    )
    assert locked.status_code == 429


@pytest.mark.django_db(transaction=True)
@pytest.mark.postgres
def test_on_postgresql_a_request_blocked_by_a_lock_answers_503_within_seconds(user):
    """Someone holds the lists table locked: a request waits no longer than the lock
    timeout, answers 503 and frees its worker (it used to wait until gunicorn killed it)."""
    import time

    import psycopg
    from django.conf import settings as django_settings

    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == f"{django_settings.DB_STATEMENT_TIMEOUT // 1000}s"
        cursor.execute("SHOW lock_timeout")
        assert cursor.fetchone()[0] == f"{django_settings.DB_LOCK_TIMEOUT // 1000}s"
    params = connection.get_connection_params()
    params.pop("options", None)
    holder = psycopg.connect(**params)
    holder.execute(f"LOCK TABLE {ArmyList._meta.db_table} IN ACCESS EXCLUSIVE MODE")  # held until rollback
    try:
        client = APIClient()
        client.force_authenticate(user)
        started = time.monotonic()
        response = client.get("/api/lists/")
        waited = time.monotonic() - started
    finally:
        holder.rollback()
        holder.close()
    assert response.status_code == 503
    assert waited < django_settings.DB_LOCK_TIMEOUT / 1000 + 2
    assert client.get("/api/lists/").status_code == 200


def test_a_page_form_refused_at_the_door_gets_the_site_s_error_page(wardens, client, settings):
    """The early refusals (too large, a NUL character) answer a page with the site's
    header and a way on, not plain text, when a page's form sent them."""
    settings.MAX_REQUEST_BODY = 1000
    too_large = client.post("/new/aof/", {"name": "x" * 2000, "faction": "test-wardens", "points": "750"})
    assert too_large.status_code == 413 and too_large["Content-Type"].startswith("text/html")
    assert b"the most this site accepts is 1000 bytes" in too_large.content
    assert b'href="/new/aof/"' not in too_large.content and b"Start a list" in too_large.content
    with_nul = client.post("/new/aof/", {"name": "a\x00b", "faction": "test-wardens", "points": "750"})
    assert with_nul.status_code == 400 and b"Start a list" in with_nul.content
    assert not ArmyList.objects.exists()
