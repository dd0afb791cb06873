"""Schemathesis against our own OpenAPI schema: generated requests to every operation,
no server errors, and every response that the schema describes matches it."""

import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, settings
from schemathesis.checks import content_type_conformance, not_a_server_error, response_schema_conformance

from factions.selectors import engine_cache_clear
from factions.services import armybook_import
from tests.conftest import aof_book

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]


@pytest.fixture
def catalogue(db):
    engine_cache_clear()
    armybook_import(data=aof_book())


@schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_operation_answers_within_its_schema(case, catalogue):
    response = case.call()
    case.validate_response(response, checks=CHECKS)
