"""Settings come from the environment, and bad values stop start-up loudly."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBE = (
    "import django; from django.conf import settings; django.setup(); "
    "db = settings.DATABASES['default']; "
    "print(settings.DEBUG, settings.ALLOWED_HOSTS, db['ENGINE'], db['NAME'])"
)


def start(probe: str = PROBE, **env: str) -> subprocess.CompletedProcess:
    ours = ("DATABASE_URL", "DEFAULT_FROM_EMAIL")
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "EMAIL_")) and k not in ours}
    clean["DJANGO_SETTINGS_MODULE"] = "armybuilder.settings"
    return subprocess.run(
        [sys.executable, "-c", probe],
        cwd=REPO,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_defaults_are_local_sqlite_with_debug():
    result = start()
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "True",
        "['localhost',",
        "'127.0.0.1',",
        "'[::1]']",
        "django.db.backends.sqlite3",
        str(REPO / "db.sqlite3"),
    ]


def test_production_values_are_read():
    result = start(
        DJANGO_DEBUG="false",
        DJANGO_SECRET_KEY="s" * 50,
        DJANGO_ALLOWED_HOSTS="armies.example.org,www.armies.example.org",
        DATABASE_URL="postgres://builder@db.internal:5432/armies",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "False",
        "['armies.example.org',",
        "'www.armies.example.org']",
        "django.db.backends.postgresql",
        "armies",
    ]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DJANGO_DEBUG": "maybe"}, 'Environment variable "DJANGO_DEBUG" invalid'),
        ({"DATABASE_URL": "oracle-ish://nowhere"}, 'Environment variable "DATABASE_URL" invalid'),
        ({"DJANGO_DEBUG": "false"}, "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is false"),
        ({"DJANGO_ALLOWED_HOSTS": "a.example,,b.example"}, "DJANGO_ALLOWED_HOSTS has an empty host name"),
        (
            {"DJANGO_ARMYFORGE_URL": "file:///srv/books"},
            "Environment variable \"DJANGO_ARMYFORGE_URL\" invalid: ['not an http:// or https:// address']",
        ),
        ({"DJANGO_ARMYFORGE_TIMEOUT": "0"}, 'Environment variable "DJANGO_ARMYFORGE_TIMEOUT" invalid'),
        ({"DJANGO_ARMYFORGE_MAX_BYTES": "5MB"}, 'Environment variable "DJANGO_ARMYFORGE_MAX_BYTES" invalid'),
    ],
)
def test_bad_values_stop_start_up_naming_the_variable(env, message):
    result = start(**env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


ARMYFORGE_PROBE = (
    "import django; from django.conf import settings; django.setup(); "
    "print(settings.ARMYFORGE_URL, settings.ARMYFORGE_TIMEOUT, settings.ARMYFORGE_MAX_BYTES)"
)


def test_army_forge_is_its_public_address_by_default_with_bounded_requests():
    result = start(ARMYFORGE_PROBE)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["https://army-forge.onepagerules.com", "15", str(5 * 1024 * 1024)]


def test_army_forge_settings_are_read():
    result = start(
        ARMYFORGE_PROBE,
        DJANGO_ARMYFORGE_URL="http://armyforge.internal:8080/",
        DJANGO_ARMYFORGE_TIMEOUT="2.5",
        DJANGO_ARMYFORGE_MAX_BYTES="1000000",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["http://armyforge.internal:8080", "2.5", "1000000"]


def test_an_empty_army_forge_address_is_taken_and_means_never_ask_army_forge():
    probe = "import django; from django.conf import settings; django.setup(); print(repr(settings.ARMYFORGE_URL))"
    result = start(probe, DJANGO_ARMYFORGE_URL="")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "''"


PROXY_PROBE = (
    "import django; from django.conf import settings; django.setup(); "
    "print(getattr(settings, 'SECURE_PROXY_SSL_HEADER', None))"
)
PRODUCTION = {"DJANGO_DEBUG": "false", "DJANGO_SECRET_KEY": "s" * 50}


@pytest.mark.parametrize(
    ("env", "trusted"),
    [
        ({}, "None"),
        ({"DJANGO_TRUSTED_PROXIES": "1"}, "('HTTP_X_FORWARDED_PROTO', 'https')"),
        ({"DJANGO_SECURE_PROXY_SSL_HEADER": "true"}, "('HTTP_X_FORWARDED_PROTO', 'https')"),
        ({"DJANGO_TRUSTED_PROXIES": "1", "DJANGO_SECURE_PROXY_SSL_HEADER": "false"}, "None"),
    ],
    ids=["no-proxy", "a-proxy", "said-so", "a-proxy-but-not-its-header"],
)
def test_x_forwarded_proto_is_trusted_only_when_a_proxy_is_declared(env, trusted):
    result = start(PROXY_PROBE, **PRODUCTION, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == trusted


EMAIL_PROBE = (
    "import django; from django.conf import settings; django.setup(); "
    "print(settings.EMAIL_BACKEND, repr(settings.EMAIL_HOST), settings.EMAIL_PORT, settings.EMAIL_USE_TLS, "
    "settings.DEFAULT_FROM_EMAIL)"
)
SMTP = {
    "EMAIL_HOST": "smtp.example.org",
    "EMAIL_PORT": "2525",
    "EMAIL_USE_TLS": "false",
    "DEFAULT_FROM_EMAIL": "a@b.org",
}


@pytest.mark.parametrize(
    ("env", "read"),
    [
        ({}, "django.core.mail.backends.console.EmailBackend '' 587 True armybuilder@localhost"),
        (SMTP, "django.core.mail.backends.smtp.EmailBackend 'smtp.example.org' 2525 False a@b.org"),
    ],
    ids=["printed-by-default", "smtp-when-a-host-is-set"],
)
def test_e_mail_goes_through_the_smtp_server_of_the_environment_or_is_printed(env, read):
    result = start(EMAIL_PROBE, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == read


def test_a_bad_e_mail_port_stops_start_up_naming_it():
    result = start(EMAIL_PROBE, EMAIL_PORT="many")
    assert result.returncode != 0 and "EMAIL_PORT" in result.stderr
