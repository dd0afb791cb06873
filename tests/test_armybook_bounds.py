"""What the database can hold, the importer checks first: a name longer than its column,
a number past its integer column (or past any sensible game value), nesting no reader
should walk and text PostgreSQL cannot store are each a named problem (400 from the staff
API), never a server error or a stored value that a backup later refuses.

The schema's bounds are read against the model columns they land in, so the two cannot
drift apart."""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.apps import apps
from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations

from factions import models as catalogue
from factions.armybook import MAX_DEPTH, SCHEMA_PATH, ArmyBookError
from factions.services import armybook_import
from tests.conftest import aof_book, arena_book
from tests.mutations import set_at

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())

# Every column the importer fills from a book, and where in an armybook/1 document its
# value is ("[]": any item of a list).
COLUMNS: dict[tuple[type[models.Model], str], str] = {
    (catalogue.Faction, "slug"): "slug",
    (catalogue.Faction, "name"): "name",
    (catalogue.Faction, "version"): "version",
    (catalogue.Faction, "armyforge_id"): "armyforge_id",
    (catalogue.FactionRule, "name"): "rules[].name",
    (catalogue.Spell, "name"): "spells[].name",
    (catalogue.Spell, "cost"): "spells[].cost",
    (catalogue.Package, "uid"): "packages[].id",
    (catalogue.UpgradeSection, "uid"): "packages[].sections[].id",
    (catalogue.UpgradeSection, "label"): "packages[].sections[].label",
    (catalogue.UpgradeSection, "variant"): "packages[].sections[].variant",
    (catalogue.UpgradeSection, "affects_type"): "packages[].sections[].affects.type",
    (catalogue.UpgradeSection, "affects_value"): "packages[].sections[].affects.value",
    (catalogue.UpgradeSection, "select_type"): "packages[].sections[].select.type",
    (catalogue.UpgradeSection, "select_value"): "packages[].sections[].select.value",
    (catalogue.UpgradeSection, "select_per"): "packages[].sections[].select.per",
    (catalogue.UpgradeOption, "uid"): "packages[].sections[].options[].id",
    (catalogue.UpgradeOption, "label"): "packages[].sections[].options[].label",
    (catalogue.UpgradeOption, "cost"): "packages[].sections[].options[].cost",
    (catalogue.UpgradeOption, "command"): "packages[].sections[].options[].command",
    (catalogue.Gain, "kind"): "packages[].sections[].options[].gains[].kind",
    (catalogue.Gain, "name"): "packages[].sections[].options[].gains[].name",
    (catalogue.Unit, "uid"): "units[].id",
    (catalogue.Unit, "name"): "units[].name",
    (catalogue.Unit, "type"): "units[].type",
    (catalogue.Unit, "size"): "units[].size",
    (catalogue.Unit, "cost"): "units[].cost",
    (catalogue.Equipment, "name"): "units[].equipment[].name",
    (catalogue.Equipment, "count"): "units[].equipment[].count",
    (catalogue.Equipment, "range"): "units[].equipment[].range",
    (catalogue.Equipment, "attacks"): "units[].equipment[].attacks",  # a number is stored as its digits
    (catalogue.CompositionCard, "models_min"): "composition.models.min",
    (catalogue.CompositionCard, "models_max"): "composition.models.max",
    (catalogue.CompositionGroup, "label"): "composition.groups[].label",
    (catalogue.CompositionGroup, "min"): "composition.groups[].min",
    (catalogue.CompositionGroup, "max"): "composition.groups[].max",
}
# Bounded columns the importer fills itself: positions in the book's lists, the content
# stamp, and where the book came from (its source, and the slug it came with when it was
# kept under another: armybook/1's own slug, checked above).
FILLED_BY_THE_IMPORTER = {"order", "content_hash", "source", "import_slug"}
# Synced from the rulesets (factions/data), not from army books; and the records of books
# and their syncs, whose columns the importer and the sync fill (a version's name is the
# book's version, "+N" added within its column: see factions/versions.py).
RULESET_MODELS = {
    catalogue.Ruleset,
    catalogue.ForceOrgLimit,
    catalogue.CoreRule,
    catalogue.BookVersion,
    catalogue.ArmyForgeSync,
}


def bounded_columns() -> Iterator[tuple[type[models.Model], models.Field]]:
    """Every column of the book models with a length or an integer range."""
    for model in apps.get_app_config("factions").get_models():
        if model in RULESET_MODELS:
            continue
        for column in model._meta.concrete_fields:
            if column.primary_key or column.is_relation:
                continue
            if column.max_length is not None or isinstance(column, models.IntegerField):
                yield model, column


# -- reading the schema ---------------------------------------------------------------------------
def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        assert set(node) <= {"$ref", "$comment"}, f"keywords beside $ref are not read here: {node}"
        node = SCHEMA["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node


def _branches(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """`node` and every alternative shape it allows, references followed."""
    node = _resolve(node)
    alternatives = node.get("oneOf") or node.get("anyOf")
    if alternatives:
        for branch in alternatives:
            yield from _branches(branch)
        return
    yield node
    for part in node.get("allOf", []):
        yield from _branches(part.get("then", part))


def _children(node: dict[str, Any], key: str) -> list[dict[str, Any]]:
    if key == "[]":
        return [node["items"]] if "items" in node else []
    if key in node.get("properties", {}):
        return [node["properties"][key]]
    extra = node.get("additionalProperties")
    return [extra] if isinstance(extra, dict) else []


def schemas_at(path: str) -> list[dict[str, Any]]:
    """Every schema shape a value at `path` ("units[].equipment[].attacks") may take."""
    nodes = [SCHEMA]
    for key in re.findall(r"\[\]|[^.\[\]]+", path):
        nodes = [child for node in nodes for branch in _branches(node) for child in _children(branch, key)]
    leaves = [leaf for node in nodes for leaf in _branches(node)]
    assert leaves, f"the schema has no {path}"
    return leaves


def _values(leaf: dict[str, Any]) -> list[Any] | None:
    if "const" in leaf:
        return [leaf["const"]]
    return leaf.get("enum")


def _takes_text(leaf: dict[str, Any]) -> bool:
    values = _values(leaf)
    return any(isinstance(v, str) for v in values) if values is not None else leaf.get("type") == "string"


def _takes_numbers(leaf: dict[str, Any]) -> bool:
    values = _values(leaf)
    if values is not None:
        return any(isinstance(v, int | float) and not isinstance(v, bool) for v in values)
    return leaf.get("type") in ("integer", "number")


def _longest(leaf: dict[str, Any]) -> int | None:
    values = _values(leaf)
    return max(len(v) for v in values if isinstance(v, str)) if values is not None else leaf.get("maxLength")


def _range(leaf: dict[str, Any]) -> tuple[int | None, int | None]:
    values = _values(leaf)
    if values is not None:
        return min(values), max(values)
    return leaf.get("minimum"), leaf.get("maximum")


def _all_nodes(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            if key != "if":  # a condition picks a branch; it holds no value itself
                yield from _all_nodes(value, f"{where}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _all_nodes(value, f"{where}/{i}")


# -- the schema against the columns ---------------------------------------------------------------
def test_every_bounded_column_of_a_book_is_checked_against_the_schema():
    unmapped = [
        f"{model.__name__}.{column.name}"
        for model, column in bounded_columns()
        if (model, column.name) not in COLUMNS and column.name not in FILLED_BY_THE_IMPORTER
    ]
    assert unmapped == []


@pytest.mark.parametrize(
    ("model", "column_name", "path"),
    [(m, c, p) for (m, c), p in COLUMNS.items() if m._meta.get_field(c).max_length is not None],
    ids=lambda x: x.__name__ if isinstance(x, type) else x,
)
def test_text_in_the_schema_fits_its_column(model, column_name, path):
    most = model._meta.get_field(column_name).max_length
    for leaf in schemas_at(path):
        assert _takes_text(leaf) or _takes_numbers(leaf), f"{path}: {leaf}"
        if _takes_text(leaf):
            assert _longest(leaf) is not None and _longest(leaf) <= most, f"{path}: {leaf} for {most} characters"
        if _takes_numbers(leaf):  # stored as its digits
            low, high = _range(leaf)
            assert leaf.get("type") == "integer" and low is not None and high is not None, f"{path}: {leaf}"
            assert max(len(str(low)), len(str(high))) <= most, f"{path}: {leaf} for {most} characters"


@pytest.mark.parametrize(
    ("model", "column_name", "path"),
    [(m, c, p) for (m, c), p in COLUMNS.items() if isinstance(m._meta.get_field(c), models.IntegerField)],
    ids=lambda x: x.__name__ if isinstance(x, type) else x,
)
def test_whole_numbers_in_the_schema_fit_their_integer_column(model, column_name, path):
    # PostgreSQL's ranges (the narrowest Django supports); SQLite would take 64 bits.
    column_low, column_high = BaseDatabaseOperations.integer_field_ranges[
        model._meta.get_field(column_name).get_internal_type()
    ]
    for leaf in schemas_at(path):
        assert leaf.get("type") == "integer", f"{path}: {leaf}"
        low, high = _range(leaf)
        assert low is not None and column_low <= low, f"{path}: minimum {low}, the column from {column_low}"
        assert high is not None and high <= column_high, f"{path}: maximum {high}, the column up to {column_high}"


def test_every_text_and_number_in_the_schema_has_bounds():
    """Those held in JSON columns too: what a book brings in stays readable everywhere."""
    unbounded = []
    for where, node in _all_nodes(SCHEMA):
        kind = node.get("type")
        if kind == "string" and "maxLength" not in node:
            unbounded.append(f"{where}: a string without maxLength")
        if kind in ("integer", "number") and not ("minimum" in node and "maximum" in node):
            unbounded.append(f"{where}: a {kind} without minimum and maximum")
        if kind == "number":
            unbounded.append(f"{where}: a number that may have a fraction; no column holds one")
    assert unbounded == []


# -- bad books, through the service and the staff API --------------------------------------------
def _arena(mutate: Callable[[dict], None]) -> Callable[[], dict]:
    def make() -> dict:
        book = arena_book()
        mutate(book)
        return book

    return make


def _aof(mutate: Callable[[dict], None]) -> Callable[[], dict]:
    def make() -> dict:
        book = aof_book()
        mutate(book)
        return book

    return make


OVER_2_31 = 2**31
# (case id, a book over a bound, path of the first problem, words in its message)
OVER_BOUNDS = [
    ("version-over-40", _aof(set_at("version", "1.0.0-" + "a" * 35)), "version", "41 characters; the most is 40"),
    (
        "group-label-over-80",
        _arena(set_at("composition.groups[0].label", "L" * 81)),
        "composition.groups[0].label",
        "81 characters; the most is 80",
    ),
    (
        "attacks-10-to-the-25",
        _aof(set_at("units[1].equipment[0].attacks", 10**25)),
        "units[1].equipment[0].attacks",
        "greater than the maximum",
    ),
    (
        "attacks-1e25-float",
        _aof(set_at("units[1].equipment[0].attacks", 1e25)),
        "units[1].equipment[0].attacks",
        "1e+25 is greater than the maximum of 100",
    ),
    (
        "attacks-written-as-2.0",
        _aof(set_at("units[1].equipment[0].attacks", 2.0)),
        "units[1].equipment[0].attacks",
        "is not of type 'integer'",
    ),
    (
        "weapon-count-2-to-the-31",
        _aof(set_at("units[1].equipment[0].count", OVER_2_31)),
        "units[1].equipment[0].count",
        "greater than the maximum",
    ),
    (
        "range-2-to-the-31",
        _aof(set_at("units[1].equipment[1].range", OVER_2_31)),
        "units[1].equipment[1].range",
        "greater than the maximum",
    ),
    (
        "composition-max-2-to-the-31",
        _arena(set_at("composition.models.max", OVER_2_31)),
        "composition.models.max",
        "greater than the maximum",
    ),
    (
        "group-max-2-to-the-31",
        _arena(set_at("composition.groups[1].max", OVER_2_31)),
        "composition.groups[1].max",
        "greater than the maximum",
    ),
    (
        "lone-surrogate-in-a-name",
        _aof(set_at("units[0].name", "Warden \ud800 Captain")),
        "units[0].name",
        "lone surrogate",
    ),
]
CASES = [c[1:] for c in OVER_BOUNDS]
CASE_IDS = [c[0] for c in OVER_BOUNDS]


def row_counts() -> dict[str, int]:
    return {m.__name__: m.objects.count() for m in apps.get_app_config("factions").get_models()}


def deeply_nested(depth: int) -> bytes:
    """A book whose description is `depth` lists deep."""
    book = json.dumps(aof_book())
    return book.replace('"rules": [', '"description": ' + "[" * depth + "]" * depth + ', "rules": [', 1).encode()


def with_lone_surrogate() -> bytes:
    """A book file whose first unit's name has half a surrogate pair (ensure_ascii escapes it)."""
    book = aof_book()
    book["units"][0]["name"] = "Warden \ud800 Captain"
    return json.dumps(book).encode()


@pytest.mark.django_db
@pytest.mark.parametrize(("make_book", "path", "words"), CASES, ids=CASE_IDS)
def test_a_value_over_its_bound_is_a_named_problem_and_imports_nothing(make_book, path, words):
    before = row_counts()
    with pytest.raises(ArmyBookError) as caught:
        armybook_import(data=make_book())
    first = caught.value.problems[0]
    assert (first.path, words in first.message) == (path, True), caught.value.problems
    assert row_counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize("raw", [deeply_nested(10_000), deeply_nested(10_000).decode()], ids=["bytes", "str"])
def test_a_file_nested_10000_deep_is_a_named_problem(raw):
    before = row_counts()
    with pytest.raises(ArmyBookError) as caught:
        armybook_import(data=raw)
    assert [str(p) for p in caught.value.problems] == [
        f"not valid JSON: nested more than {MAX_DEPTH} levels deep (an army book needs about 12)"
    ]
    assert row_counts() == before


@pytest.mark.django_db
def test_a_document_nested_deeper_than_a_book_is_a_named_problem():
    # Deep enough for the limit, shallow enough for every JSON parser to read it.
    book = json.loads(deeply_nested(MAX_DEPTH + 1))
    with pytest.raises(ArmyBookError) as caught:
        armybook_import(data=book)
    assert [str(p) for p in caught.value.problems] == [
        f"description{'[0]' * (MAX_DEPTH - 1)}: nested more than {MAX_DEPTH} levels deep (an army book needs about 12)"
    ]


@pytest.mark.django_db
def test_a_lone_surrogate_in_a_file_is_a_named_problem():
    before = row_counts()
    with pytest.raises(ArmyBookError) as caught:
        armybook_import(data=with_lone_surrogate())
    assert [str(p) for p in caught.value.problems] == [
        "units[0].name: text with a lone surrogate (\\ud800), which is not a character and cannot be stored"
    ]
    assert row_counts() == before


@pytest.mark.django_db
def test_a_lone_surrogate_in_a_key_is_named_without_repeating_it(make_aof_book):
    book = make_aof_book()
    book["units"][0]["\udfff"] = 1
    with pytest.raises(ArmyBookError) as caught:
        armybook_import(data=book)
    assert [str(p) for p in caught.value.problems] == [
        "units[0]: a key with a lone surrogate (\\udfff), which is not a character and cannot be stored"
    ]


@pytest.mark.django_db
@pytest.mark.parametrize(("make_book", "path", "words"), CASES[:-1], ids=CASE_IDS[:-1])
def test_staff_import_answers_400_naming_the_path(staff_client, make_book, path, words):
    # orjson, which reads API bodies, refuses lone surrogates itself; files are read below.
    response = staff_client.post("/api/factions/import/", make_book(), format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert (body["errors"][0]["path"], words in body["errors"][0]["message"]) == (path, True), body
    assert not catalogue.Faction.objects.exists()


@pytest.mark.django_db
def test_staff_import_of_a_label_over_its_column_is_400(staff_client):
    book = arena_book()
    book["composition"]["groups"][0]["label"] = "L" * 81
    response = staff_client.post("/api/factions/import/", book, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "detail": "composition.groups[0].label: 81 characters; the most is 80",
        "errors": [{"path": "composition.groups[0].label", "message": "81 characters; the most is 80"}],
        "warnings": [],
    }


def _upload(raw: bytes) -> io.BytesIO:
    upload = io.BytesIO(raw)
    upload.name = "book.json"
    return upload


@pytest.mark.django_db
def test_staff_upload_nested_10000_deep_is_400(staff_client):
    response = staff_client.post("/api/factions/import/", {"file": _upload(deeply_nested(10_000))}, format="multipart")
    assert response.status_code == 400
    message = f"not valid JSON: nested more than {MAX_DEPTH} levels deep (an army book needs about 12)"
    assert response.json() == {"detail": message, "errors": [{"path": "", "message": message}], "warnings": []}
    assert not catalogue.Faction.objects.exists()


@pytest.mark.django_db
def test_staff_upload_with_a_lone_surrogate_is_400(staff_client):
    response = staff_client.post("/api/factions/import/", {"file": _upload(with_lone_surrogate())}, format="multipart")
    assert response.status_code == 400
    message = "text with a lone surrogate (\\ud800), which is not a character and cannot be stored"
    assert response.json() == {
        "detail": f"units[0].name: {message}",
        "errors": [{"path": "units[0].name", "message": message}],
        "warnings": [],
    }
    assert not catalogue.Faction.objects.exists()


@pytest.mark.django_db
def test_staff_body_nested_deeper_than_a_book_is_400(staff_client):
    response = staff_client.post(
        "/api/factions/import/", data=deeply_nested(MAX_DEPTH + 1), content_type="application/json"
    )
    assert response.status_code == 400
    assert "levels deep" in response.json()["detail"]
    assert not catalogue.Faction.objects.exists()


@pytest.mark.django_db
def test_books_at_the_bounds_import(make_aof_book):
    book = make_aof_book()
    book["version"] = "1.0.0-" + "a" * 34
    book["units"][1]["equipment"][0]["attacks"] = 100
    book["units"][1]["equipment"][0]["count"] = 1000
    book["units"][1]["equipment"][1]["range"] = 200
    book["units"][1]["name"] = "N" * 120
    armybook_import(data=book)
    stored = catalogue.Equipment.objects.get(unit__uid="wardens", order=0)
    assert (stored.attacks, stored.count, stored.unit.name) == ("100", 1000, "N" * 120)


# -- the converter's patterns are linear in the text they read ---------------------------------------
def _seconds(work, text: str) -> float:
    import time

    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        work(text)
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize(
    ("what", "hostile"),
    [
        ("weapon range", lambda n: "1" + " " * n + "x"),
        ("rule", lambda n: "a" + " " * n + "b(("),
        ("rule, spaces before its rating", lambda n: "Tough" + " " * n + "(3"),
        ("counted target", lambda n: "2" + " " * n + "y"),
    ],
)
def test_each_pattern_of_the_converter_takes_time_linear_in_a_hostile_text(what, hostile):
    """Doubling a long hostile text at most about doubles the time (a pattern that tries
    every split of a run of spaces would take four times as long, and seconds at 48k)."""
    from factions import armyforge
    from factions.armybook import parse_rule

    work = {
        "weapon range": armyforge.range_inches,
        "rule": parse_rule,
        "rule, spaces before its rating": parse_rule,
        "counted target": armyforge._target,
    }[what]
    small, large = _seconds(work, hostile(24_000)), _seconds(work, hostile(48_000))
    assert large < 0.05, (what, large)  # 48k characters in well under a tenth of a second
    assert large < 3 * small + 0.002, (what, small, large)
