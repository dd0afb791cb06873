"""One reader of rule names, `Name` or `Name(X)` (armybuilder.engine.book.split_rule):
the importer's checks and the engine read a rule as the same name and parameter."""

import pytest

from armybuilder.engine.book import Rule, split_rule

CASES = [
    ("Tough(6)", ("Tough", "6"), Rule("Tough", 6)),
    ("Impact(3)", ("Impact", "3"), Rule("Impact", 3)),
    ("Tough(+3)", ("Tough", "+3"), Rule("Tough", 3, adds=True)),
    ("Fear", ("Fear", None), Rule("Fear")),
    (" Caster (2) ", ("Caster", "2"), Rule("Caster", 2)),
    ("Spawn(Beetle Swarms [3])", ("Spawn", "Beetle Swarms [3]"), Rule("Spawn", "Beetle Swarms [3]")),
    # A parameter's own brackets are written [ ]: with ( ) the text is no rule string
    # of armybook/1, and both read it as a name no rule has.
    ("Spawn(Imps (3))", ("Spawn(Imps (3))", None), Rule("Spawn(Imps (3))")),
    ("Spell(Name(2))", ("Spell(Name(2))", None), Rule("Spell(Name(2))")),
    ("Spell(Name(2)", ("Spell(Name(2)", None), Rule("Spell(Name(2)")),
    ("Tough(3))", ("Tough(3))", None), Rule("Tough(3))")),
    ("Fear()", ("Fear()", None), Rule("Fear()")),
    ("Tough(3", ("Tough(3", None), Rule("Tough(3")),
    ("(3)", ("(3)", None), Rule("(3)")),
    ("Tough(3) extra", ("Tough(3) extra", None), Rule("Tough(3) extra")),
]


@pytest.mark.parametrize(("text", "split", "rule"), CASES, ids=[c[0] for c in CASES])
def test_the_checks_and_the_engine_read_a_rule_alike(text, split, rule):
    assert split_rule(text) == split
    assert Rule.parse(text) == rule
