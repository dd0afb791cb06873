"""The limit kinds have one registry on each side: the engine's checks
(armybuilder.engine.limits.CHECKS) and the catalogue's parameters and words
(factions.limits.KINDS). Everything else that names the kinds reads one of them, or,
like the ruleset/1 schema (a document of its own), is held to them here."""

import json

from armybuilder.engine.limits import CHECKS, EVENT_SETTING_KINDS
from factions.limits import ADDABLE_KINDS, KINDS
from factions.models import ForceOrgLimit
from factions.ruleset_format import SCHEMA_PATH


def test_the_catalogue_describes_every_kind_the_engine_checks_in_a_stored_row():
    assert set(KINDS) == set(CHECKS) - EVENT_SETTING_KINDS


def test_the_ruleset_schema_lists_the_registry_kinds_in_its_order():
    schema = json.loads(SCHEMA_PATH.read_text())
    assert schema["$defs"]["limit"]["properties"]["kind"]["enum"] == list(KINDS)


def test_the_model_choices_are_the_registry_kinds_with_their_labels():
    assert ForceOrgLimit.Kind.choices == [(kind, spec.label) for kind, spec in KINDS.items()]


def test_an_event_may_add_every_kind_but_the_composition_card():
    assert ADDABLE_KINDS == tuple(kind for kind in KINDS if kind != "composition")
