"""Schemathesis against our own OpenAPI schema, in-process through WSGI: every check, as an
ordinary user with an API token, with the settings of bench/schemathesis.toml.

Derandomized and short, for CI; bench/fuzz.sh is the long run with random seeds on
PostgreSQL behind gunicorn (README, "API fuzzing")."""

from pathlib import Path

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections, transaction
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.checks import CHECKS, load_all_checks
from schemathesis.config import SchemathesisConfig

from armybuilder.api.lists import parse_list_body
from armybuilder.armyforge.books.imports import book_import
from armybuilder.events import services as event_services
from armybuilder.lists.services import army_list_create
from armybuilder.memo import clear_all
from tests.conftest import aof_book

pytestmark = pytest.mark.fuzz

CONFIG = Path(__file__).resolve().parents[2] / "bench" / "schemathesis.toml"
load_all_checks()
ALL_CHECKS = CHECKS.get_all()
FUZZ_PACK = {"name": "Fuzz Open", "ruleset": "aof", "points_limit": 500, "deadline": "2999-12-31T18:00:00+00:00"}
# Submitting to a pack names a list in the body; one that is not the caller's is a 404, as
# someone else's list is everywhere (never a 403): the sequences would read it as the pack
# they just made gone missing. bench/schemathesis.toml says the same for the CLI runs.
BODY_404 = {"POST /api/events/{key}/submissions/"}


def checks_for(case) -> list:
    if case.operation.label in BODY_404:
        return [check for check in ALL_CHECKS if check.__name__ != "ensure_resource_availability"]
    return ALL_CHECKS


FUZZ = settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))


@pytest.fixture
def fuzzer(db):
    return get_user_model().objects.create_user("fuzzer", password="fuzz-password")


@pytest.fixture
def api_schema(fuzzer, monkeypatch, tmp_path):
    """The schema as the site serves it, over a database with a book, a list of the
    fuzzer's, someone else's shared list, and an event pack the fuzzer organises, which
    that someone has submitted their list to. The test's database connection is kept across requests: the WSGI handler
    would otherwise close it at each one (as Django's own test client prevents), which
    inside the test's transaction breaks the next query."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    clear_all()
    book_import(data=aof_book())
    data, _handle = parse_list_body(
        {"system": "aof", "faction": "test-wardens", "points_limit": 500, "entries": [{"id": "e1", "unit": "wardens"}]}
    )
    army_list_create(data=data, owner=fuzzer)  # (found through GET /api/lists/ and its links)
    sharer = get_user_model().objects.create_user("sharer")
    shared = army_list_create(data=data, owner=sharer)
    monkeypatch.setenv("FUZZ_SHARE_KEY", shared.share_key)
    pack = event_services.pack_create(organiser=fuzzer, data=FUZZ_PACK)
    event_services.submission_submit(pack=pack, player=sharer, army_list=shared)
    monkeypatch.setenv("FUZZ_EVENT_KEY", pack.key)
    monkeypatch.setenv("FUZZ_CACHE_DIR", str(tmp_path))
    config = SchemathesisConfig.from_path(CONFIG)
    yield schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application(), config=config)
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def token_header(user) -> dict[str, str]:
    """The user's token, made again when a test case has revoked it (DELETE /api/auth/token/)."""
    return {"Authorization": f"Token {Token.objects.get_or_create(user=user)[0].key}"}


schema = schemathesis.pytest.from_fixture("api_schema")


@pytest.fixture(autouse=True)
def node_id_for_schemathesis(request):
    """Schemathesis 4.32 names each operation's subtest through `node._nodeid`, which
    pytest 9 no longer has (it keeps `nodeid` alone)."""
    request.node._nodeid = request.node.nodeid


@schema.parametrize()
@FUZZ
def test_every_operation_passes_every_check(case, fuzzer):
    """Each case starts from the same database: a pack deleted by one case is still
    there for the next (whose answer would otherwise always be a 404)."""
    savepoint = transaction.savepoint()
    try:
        case.call_and_validate(headers=token_header(fuzzer), checks=ALL_CHECKS)
    finally:
        transaction.savepoint_rollback(savepoint)


def test_sequences_of_calls_pass_every_check(api_schema, fuzzer):
    """Lists made, read, changed, copied, shared and deleted in sequence (the schema's
    links): what was made can be found, and what was deleted cannot."""

    class Workflow(api_schema.as_state_machine()):
        # Each scenario starts from the same database, or Hypothesis, replaying one,
        # would see it take another path (a list deleted by an earlier scenario).
        def setup(self):
            self.savepoint = transaction.savepoint()

        def teardown(self):
            transaction.savepoint_rollback(self.savepoint)

        def get_call_kwargs(self, case):
            return {"headers": token_header(fuzzer)}

        def validate_response(self, response, case, additional_checks=None, **kwargs):
            # The token sent is named as the caller's own (not one made up from the schema),
            # so that the auth check tries the call without it.
            case.validate_response(
                response,
                checks=checks_for(case),
                headers=kwargs.get("headers"),
                transport_kwargs=kwargs,
                recorder=self.recorder,
            )

    Workflow.run(settings=settings(FUZZ, max_examples=50, stateful_step_count=10))
