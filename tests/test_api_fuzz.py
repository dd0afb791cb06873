"""Schemathesis against our own OpenAPI schema: generated requests to every operation,
no server errors, and every response that the schema describes matches it."""

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import content_type_conformance, not_a_server_error, response_schema_conformance

from factions.selectors import engine_cache_clear
from factions.services import armybook_import
from tests.conftest import aof_book

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


@pytest.fixture
def catalogue(db):
    """A book to find, and the test's database connection kept across requests: the
    WSGI handler would otherwise close it at each request (as Django's own test client
    prevents), which inside the test's transaction breaks the next query."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    engine_cache_clear()
    armybook_import(data=aof_book())
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_every_operation_answers_within_its_schema(case, catalogue):
    response = case.call()
    case.validate_response(response, checks=CHECKS)
