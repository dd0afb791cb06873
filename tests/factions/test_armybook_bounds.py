"""What the database can hold, the importer checks first: a name longer than its column,
a number past its integer column (or past any sensible game value), nesting no reader
should walk and text PostgreSQL cannot store are each a named problem (400 from the staff
API), never a server error or a stored value that a backup later refuses.

The schema's bounds are read against the model columns they land in, so the two cannot
drift apart.

A book is also held to the caps of factions/caps.py (its file's size, its units,
packages, sections, options, rules, spells and texts) by every door it comes in by, each
refusal naming the cap; the schema states the same counts. Every regular expression in
the code, found by reading it, and every reader of imported text takes time linear in a
hostile text."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.db import models
from django.urls import reverse

from armybuilder.armyforge.books import convert, packages, reading, weapons
from armybuilder.armyforge.books.imports import book_import
from armybuilder.engine.book import Rule, split_rule
from armybuilder.exports import pdf_data
from armybuilder.web import event_forms
from factions import armybook, caps
from factions import models as catalogue
from factions.armybook import (
    MAX_DEPTH,
    SCHEMA_PATH,
    ArmyBookError,
    RulesetInfo,
    check_size,
    check_storable,
)
from factions.ruleset_format import SCHEMA_PATH as RULESET_SCHEMA_PATH
from tests.conftest import aof_book, arena_book
from tests.support.admin_forms import ChangeForm
from tests.support.mutations import grow_at, set_at

SCHEMA: dict[str, Any] = json.loads(SCHEMA_PATH.read_text())

# Every column the importer fills from a book, and where in an armybook/1 document its
# value is ("[]": any item of a list). The rest of a book is its version's document, one
# text column that holds any of it.
COLUMNS: dict[tuple[type[models.Model], str], str] = {
    (catalogue.Faction, "slug"): "slug",
    (catalogue.Faction, "name"): "name",
    (catalogue.Faction, "version"): "version",
    (catalogue.Faction, "armyforge_id"): "armyforge_id",
    (catalogue.Faction, "armyforge_rules"): "armyforge_rules",
}
# Bounded columns the importer fills itself: the content stamp, and where the book came
# from (its source, and the slug it came with when it was kept under another: armybook/1's
# own slug, checked above).
FILLED_BY_THE_IMPORTER = {"content_hash", "source", "import_slug"}
# Synced from the rulesets (factions/data), not from army books; and the records of books
# and their syncs, whose columns the importer and the sync fill (a version's name is the
# book's version, "+N" added within its column: see factions/versions.py; a version of
# Army Forge's core rules is named by a day, armybuilder/armyforge/rules.py).
RULESET_MODELS = {
    catalogue.Ruleset,
    catalogue.ForceOrgLimit,
    catalogue.CoreRule,
    catalogue.BookVersion,
    catalogue.ArmyForgeSync,
    catalogue.ArmyForgeRules,  # Army Forge's core rules, read by the sync (its own checks)
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
        book_import(data=make_book())
    first = caught.value.problems[0]
    assert (first.path, words in first.message) == (path, True), caught.value.problems
    assert row_counts() == before


@pytest.mark.django_db
@pytest.mark.parametrize("raw", [deeply_nested(10_000), deeply_nested(10_000).decode()], ids=["bytes", "str"])
def test_a_file_nested_10000_deep_is_a_named_problem(raw):
    before = row_counts()
    with pytest.raises(ArmyBookError) as caught:
        book_import(data=raw)
    assert [str(p) for p in caught.value.problems] == [
        f"not valid JSON: nested more than {MAX_DEPTH} levels deep (an army book needs about 12)"
    ]
    assert row_counts() == before


@pytest.mark.django_db
def test_a_document_nested_deeper_than_a_book_is_a_named_problem():
    # Deep enough for the limit, shallow enough for every JSON parser to read it.
    book = json.loads(deeply_nested(MAX_DEPTH + 1))
    with pytest.raises(ArmyBookError) as caught:
        book_import(data=book)
    assert [str(p) for p in caught.value.problems] == [
        f"description{'[0]' * (MAX_DEPTH - 1)}: nested more than {MAX_DEPTH} levels deep (an army book needs about 12)"
    ]


@pytest.mark.django_db
def test_a_lone_surrogate_in_a_file_is_a_named_problem():
    before = row_counts()
    with pytest.raises(ArmyBookError) as caught:
        book_import(data=with_lone_surrogate())
    assert [str(p) for p in caught.value.problems] == [
        "units[0].name: text with a lone surrogate (\\ud800), which is not a character and cannot be stored"
    ]
    assert row_counts() == before


@pytest.mark.django_db
def test_a_lone_surrogate_in_a_key_is_named_without_repeating_it(make_aof_book):
    book = make_aof_book()
    book["units"][0]["\udfff"] = 1
    with pytest.raises(ArmyBookError) as caught:
        book_import(data=book)
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


def refusal(path: str, message: str) -> dict[str, Any]:
    """The staff API's answer to a book refused for one problem."""
    return {
        "detail": f"{path}: {message}" if path else message,
        "errors": [{"path": path, "message": message}],
        "warnings": [],
    }


@pytest.mark.django_db
def test_staff_import_of_a_label_over_its_column_is_400(staff_client):
    book = arena_book()
    book["composition"]["groups"][0]["label"] = "L" * 81
    response = staff_client.post("/api/factions/import/", book, format="json")
    assert response.status_code == 400
    assert response.json() == refusal("composition.groups[0].label", "81 characters; the most is 80")


def _upload(raw: bytes) -> io.BytesIO:
    upload = io.BytesIO(raw)
    upload.name = "book.json"
    return upload


@pytest.mark.django_db
def test_staff_upload_nested_10000_deep_is_400(staff_client):
    response = staff_client.post("/api/factions/import/", {"file": _upload(deeply_nested(10_000))}, format="multipart")
    assert response.status_code == 400
    message = f"not valid JSON: nested more than {MAX_DEPTH} levels deep (an army book needs about 12)"
    assert response.json() == refusal("", message)
    assert not catalogue.Faction.objects.exists()


@pytest.mark.django_db
def test_staff_upload_with_a_lone_surrogate_is_400(staff_client):
    response = staff_client.post("/api/factions/import/", {"file": _upload(with_lone_surrogate())}, format="multipart")
    assert response.status_code == 400
    message = "text with a lone surrogate (\\ud800), which is not a character and cannot be stored"
    assert response.json() == refusal("units[0].name", message)
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
    book_import(data=book)
    stored = catalogue.BookVersion.objects.get(version=book["version"]).document["units"][1]
    assert (stored["equipment"][0]["attacks"], stored["equipment"][0]["count"], stored["name"]) == (
        100,
        1000,
        "N" * 120,
    )


# -- the caps of a book (factions/caps.py) -------------------------------------------------------
EMBERFOLK = Path(__file__).resolve().parents[1] / "fixtures" / "armyforge" / "emberfolk-aof.json"


def emberfolk() -> dict:
    """A small Army Forge book for Age of Fantasy."""
    return json.loads(EMBERFOLK.read_text())


# (a list in armybook/1, its cap, how a refusal says it)
CAPPED = [
    ("units", caps.MAX_UNITS, "a book may have at most 500 units"),
    ("packages", caps.MAX_PACKAGES, "a book may have at most 500 upgrade packages"),
    ("packages[0].sections", caps.MAX_SECTIONS, "a package may have at most 50 sections"),
    ("packages[0].sections[0].options", caps.MAX_OPTIONS, "a section may have at most 100 options"),
    ("rules", caps.MAX_RULES, "a book may have at most 500 special rules"),
    ("spells", caps.MAX_SPELLS, "a book may have at most 100 spells"),
    ("units[1].upgrades", caps.MAX_LISTED, "a unit may take at most 50 upgrade packages"),
]
CAPPED_IDS = [case[0] for case in CAPPED]
ARMY_FORGE_NAMES = {"packages": "upgradePackages", "rules": "specialRules"}  # of the lists armybook/1 names otherwise
FORMATS = {"armybook/1": aof_book, "Army Forge": emberfolk}


def oversized(form: str, case: tuple, extra: int = 1) -> tuple[dict, str]:
    """A book of `form` with the list of `case` its cap and `extra` long; that list's path."""
    path, cap, _ = case
    if form == "Army Forge":
        top, dot, rest = path.partition("[")
        path = ARMY_FORGE_NAMES.get(top, top) + dot + rest
    book = FORMATS[form]()
    grow_at(path, cap + extra)(book)
    return book, path


def file_of(tmp_path: Path, book: Any) -> Path:
    path = tmp_path / "book.json"
    path.write_text(json.dumps(book))
    return path


def import_command(*args: str) -> tuple[list[str], CommandError | None]:
    """Run `import_armybook` with `args`: its error output's lines and how it ended."""
    err = io.StringIO()
    try:
        call_command("import_armybook", *args, stdout=io.StringIO(), stderr=err)
    except CommandError as exc:
        return err.getvalue().splitlines(), exc
    return err.getvalue().splitlines(), None


@pytest.mark.parametrize("case", CAPPED, ids=CAPPED_IDS)
@pytest.mark.parametrize("form", FORMATS)
def test_a_book_at_each_cap_is_within_it_and_one_more_is_over(form, case):
    at_cap, _ = oversized(form, case, extra=0)
    over, path = oversized(form, case)
    names = ARMY_FORGE_NAMES if form == "Army Forge" else {}
    assert check_size(at_cap, **names) == []
    assert [str(p) for p in check_size(over, **names)] == [f"{path}: {case[2]}; this one has {case[1] + 1}"]


@pytest.mark.django_db
@pytest.mark.parametrize("case", CAPPED, ids=CAPPED_IDS)
@pytest.mark.parametrize("form", FORMATS)
def test_a_book_over_a_cap_is_refused_naming_it_and_imports_nothing(form, case):
    book, path = oversized(form, case)
    before = row_counts()
    with pytest.raises(ArmyBookError) as caught:
        book_import(data=json.dumps(book).encode())
    assert [str(p) for p in caught.value.problems] == [f"{path}: {case[2]}; this one has {case[1] + 1}"]
    assert row_counts() == before


@pytest.mark.django_db
def test_staff_import_of_a_book_over_the_units_cap_is_400_naming_it(staff_client):
    message = "a book may have at most 500 units; this one has 1,200"
    response = staff_client.post("/api/factions/import/", aof_book(units=1200), format="json")
    assert response.status_code == 400
    assert response.json() == refusal("units", message)
    assert not catalogue.Faction.objects.exists()


@pytest.mark.django_db
def test_staff_upload_of_an_army_forge_book_over_a_cap_is_400_naming_it(staff_client):
    book, path = oversized("Army Forge", CAPPED[1])
    response = staff_client.post("/api/factions/import/", {"file": _upload(json.dumps(book).encode())})
    assert response.status_code == 400
    message = "a book may have at most 500 upgrade packages; this one has 501"
    assert response.json()["errors"] == [{"path": "upgradePackages", "message": message}]
    assert not catalogue.Faction.objects.exists()


@pytest.mark.django_db
def test_staff_upload_over_the_file_cap_is_400_naming_it(staff_client, settings):
    settings.MAX_REQUEST_BODY = 2 * caps.MAX_BOOK_BYTES  # so that the book's cap is the one met
    raw = json.dumps(aof_book()).encode().ljust(caps.MAX_BOOK_BYTES + 1)  # whitespace after the JSON
    response = staff_client.post("/api/factions/import/", {"file": _upload(raw)})
    assert response.status_code == 400
    message = "an army book file may be at most 5,242,880 bytes (5 MB); this one is 5,242,881 bytes"
    assert response.json() == refusal("", message)
    assert not catalogue.Faction.objects.exists()


@pytest.mark.django_db
def test_staff_upload_over_the_request_cap_is_413_naming_it(staff_client, settings):
    raw = json.dumps(aof_book()).encode().ljust(settings.MAX_REQUEST_BODY + 1)
    response = staff_client.post("/api/factions/import/", {"file": _upload(raw)})
    assert response.status_code == 413
    assert "the most this site accepts is 2097152 bytes" in response.json()["detail"]
    assert not catalogue.Faction.objects.exists()


@pytest.mark.django_db
def test_the_command_refuses_a_file_over_the_cap_by_its_size_before_reading_it(tmp_path):
    path = tmp_path / "book.json"
    with path.open("wb") as file:
        file.truncate(64 * 1024 * 1024)  # sparse: only its size says how large it is
    before = row_counts()
    lines, failure = import_command(str(path))
    assert failure is not None
    assert lines == [
        f"{path}: not imported, 1 error",
        "  error: an army book file may be at most 5,242,880 bytes (5 MB); this one is 67,108,864 bytes",
    ]
    assert row_counts() == before


@pytest.mark.django_db
def test_the_command_reads_no_more_than_the_cap_from_a_pipe(tmp_path):
    """A pipe has no size to look at first: what it sends past the cap is not read."""
    path = tmp_path / "book.json"
    os.mkfifo(path)
    sent = []

    def send() -> None:
        try:
            with path.open("wb") as pipe:
                for _ in range(6):
                    sent.append(pipe.write(b" " * 1024 * 1024))
        except BrokenPipeError:
            pass  # the command stopped reading

    sender = threading.Thread(target=send)
    sender.start()
    lines, failure = import_command(str(path))
    sender.join(timeout=30)
    assert failure is not None
    assert lines[1] == "  error: an army book file may be at most 5,242,880 bytes (5 MB); this one is larger"
    assert len(sent) < 6


@pytest.mark.django_db
@pytest.mark.parametrize("form", FORMATS)
def test_the_command_refuses_a_book_over_a_cap_naming_it(tmp_path, form):
    book, path = oversized(form, CAPPED[0])
    before = row_counts()
    lines, failure = import_command(str(file_of(tmp_path, book)), "--system", "aof")
    assert failure is not None
    assert lines[1:] == ["  error: units: a book may have at most 500 units; this one has 501"]
    assert row_counts() == before


@pytest.mark.django_db
def test_the_sync_refuses_a_book_over_a_cap_and_keeps_what_it_held(armyforge):
    wood_elves = armyforge.book("aof--wood-elves")
    grow_at("units", caps.MAX_UNITS + 1)(wood_elves)
    armyforge.answer(wood_elves["uid"], wood_elves)
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("sync_armyforge", "--system", "aof", stdout=out)
    message = "refused by the checks: units: a book may have at most 500 units; this one has 501"
    assert f"aof  Wood Elves  3.5.2: failed: {message}" in out.getvalue().splitlines()
    assert not catalogue.Faction.objects.filter(armyforge_id=wood_elves["uid"]).exists()


@pytest.mark.django_db
def test_a_unit_added_in_the_admin_past_the_units_cap_is_refused(client, staff_user):
    book_import(data=aof_book(units=caps.MAX_UNITS))
    client.force_login(staff_user)
    url = reverse("admin:factions_faction_document", args=[catalogue.Faction.objects.get().pk])
    form = ChangeForm("faction_document_form")
    form.feed(client.get(url).content.decode())
    new_unit = {
        "id": "one-too-many",
        "name": "One Too Many",
        "type": "infantry",
        "size": 1,
        "cost": 10,
        "stats": {"quality": 4, "defense": 4},
        "rules": [],
        "equipment": [],
        "upgrades": [],
    }
    units = [*json.loads(form.data["units"][0]), new_unit]
    response = client.post(url, {**form.data, "units": [json.dumps(units)]})
    assert response.status_code == 200
    assert "units: a book may have at most 500 units; this one has 501" in response.content.decode()
    assert [len(v.document["units"]) for v in catalogue.BookVersion.objects.all()] == [caps.MAX_UNITS]


# A text over MAX_TEXT, in each format, where a shorter one would be checked or cut as usual.
LONG = "x" * (caps.MAX_TEXT + 1)
TOO_LONG = [
    ("a-unit-name", aof_book, set_at("units[0].name", LONG), "units[0].name: text with 20,001 characters"),
    ("a-key", aof_book, set_at(f"units[0].{LONG}", 1), "units[0]: a key with 20,001 characters"),
    (
        "an-army-forge-rule-text",
        emberfolk,
        set_at("specialRules[0].description", LONG),
        "specialRules[0].description: text with 20,001 characters",
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("make", "mutate", "words"), [c[1:] for c in TOO_LONG], ids=[c[0] for c in TOO_LONG])
def test_a_text_over_the_cap_is_refused_naming_it(make, mutate, words):
    book = make()
    mutate(book)
    before = row_counts()
    with pytest.raises(ArmyBookError) as caught:
        book_import(data=json.dumps(book).encode())
    assert [str(p) for p in caught.value.problems] == [f"{words}, more than the 20,000 any text may have"]
    assert row_counts() == before


def values_in(data: Any) -> int:
    """How many JSON values `data` is: itself and every value inside it."""
    inside = data.values() if isinstance(data, dict) else data if isinstance(data, list) else ()
    return 1 + sum(values_in(value) for value in inside)


def with_values(count: int) -> dict:
    """A book of `count` values in all, made up by a long list where its description goes."""
    book = aof_book()
    book["description"] = []
    book["description"] = [0] * (count - values_in(book))
    return book


def test_a_book_of_as_many_values_as_the_cap_is_within_it():
    assert check_storable(with_values(caps.MAX_VALUES)) == []


@pytest.mark.django_db
def test_a_book_of_more_values_than_the_cap_is_refused_naming_it(tmp_path):
    before = row_counts()
    lines, failure = import_command(str(file_of(tmp_path, with_values(123_456))))
    assert failure is not None
    most = "a document may hold at most 100,000 values (objects, lists, texts, numbers)"
    assert lines[1:] == [f"  error: {most}; this one holds 123,456"]
    assert row_counts() == before


def test_the_army_forge_download_cap_is_the_cap_of_a_book_file(settings):
    assert caps.MAX_BOOK_BYTES == 5 * 1024 * 1024 == settings.ARMYFORGE_MAX_BYTES


# -- the schema states the same caps ------------------------------------------------------------
# Lists whose cap is not MAX_LISTED, by where they are in a book.
SCHEMA_CAPS = {
    "units": caps.MAX_UNITS,
    "packages": caps.MAX_PACKAGES,
    "packages[].sections": caps.MAX_SECTIONS,
    "packages[].sections[].options": caps.MAX_OPTIONS,
    "rules": caps.MAX_RULES,
    "spells": caps.MAX_SPELLS,
    "composition.groups[].units": caps.MAX_UNITS,  # a group may name every unit
}


def test_every_list_in_the_schema_has_the_cap_of_factions_caps():
    capped = {id(leaf): cap for path, cap in SCHEMA_CAPS.items() for leaf in schemas_at(path)}
    wrong = [
        f"{where}: maxItems {node.get('maxItems')}, the cap is {capped.get(id(node), caps.MAX_LISTED)}"
        for where, node in _all_nodes(SCHEMA)
        if node.get("type") == "array" and node.get("maxItems") != capped.get(id(node), caps.MAX_LISTED)
    ]
    assert wrong == []
    assert len(capped) == len(SCHEMA_CAPS)


def test_an_options_costs_name_at_most_every_unit():
    (costs,) = schemas_at("packages[].sections[].options[].costs")
    assert costs["maxProperties"] == caps.MAX_UNITS


@pytest.mark.django_db
def test_a_list_over_its_cap_in_the_schema_is_named_without_repeating_it():
    book = aof_book()
    grow_at("units[1].equipment", caps.MAX_LISTED + 1)(book)
    with pytest.raises(ArmyBookError) as caught:
        book_import(data=book)
    assert [str(p) for p in caught.value.problems] == ["units[1].equipment: 51 entries; the most is 50"]


# -- every pattern applied to imported text is linear in it --------------------------------------
ROOT = Path(__file__).resolve().parents[2]
RE_CALLS = {"compile", "match", "search", "fullmatch", "sub", "findall", "finditer", "split"}
SAMPLE_NAME = "Caster"  # stands for what a pattern built with re.escape(name) looks for


@dataclass(frozen=True)
class Site:
    where: str  # "armybuilder/armyforge/books/units.py:132"
    function: str  # the function it is in ("" at module level)
    pattern: str | None  # None: built in a way this test cannot read
    methods: tuple[str, ...]  # how the code applies it


class _PatternFinder(ast.NodeVisitor):
    """Every call of the `re` module in a module, with the function it is in; the names
    compiled patterns are bound to, and how each name is applied."""

    def __init__(self) -> None:
        self.functions: list[str] = []
        self.calls: list[tuple[ast.Call, str]] = []
        self.bound: dict[int, str] = {}
        self.applied: dict[str, set[str]] = {}

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self.functions.append(node.name)
        self.generic_visit(node)
        self.functions.pop()

    def visit_Assign(self, node: ast.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self.bound[id(node.value)] = node.targets[0].id
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name) and node.attr in RE_CALLS - {"compile"}:
            self.applied.setdefault(node.value.id, set()).add(node.attr)
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        called = node.func
        if isinstance(called, ast.Attribute) and ast.unparse(called.value) == "re" and called.attr in RE_CALLS:
            self.calls.append((node, self.functions[-1] if self.functions else ""))
        self.generic_visit(node)


def _literal_pattern(node: ast.expr) -> str | None:
    """The pattern an argument writes: a string, or an f-string whose only fields are
    re.escape(…) (a name looked for as written, here SAMPLE_NAME)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if not isinstance(node, ast.JoinedStr):
        return None
    parts = []
    for part in node.values:
        if isinstance(part, ast.Constant):
            parts.append(part.value)
        elif isinstance(part.value, ast.Call) and ast.unparse(part.value.func) == "re.escape":
            parts.append(re.escape(SAMPLE_NAME))
        else:
            return None
    return "".join(parts)


def pattern_sites() -> list[Site]:
    """Every regular expression in the site's code (factions/, armybuilder/)."""
    sites = []
    for path in sorted([*(ROOT / "factions").rglob("*.py"), *(ROOT / "armybuilder").rglob("*.py")]):
        if "migrations" in path.parts:
            continue
        finder = _PatternFinder()
        finder.visit(ast.parse(path.read_text()))
        for call, function in finder.calls:
            kind = call.func.attr  # type: ignore[attr-defined]
            assert not any(k.arg == "flags" for k in call.keywords), f"{path}:{call.lineno}: flags are not tried here"
            if kind == "compile":
                assert len(call.args) == 1, f"{path}:{call.lineno}: flags are not tried here"
                # A compiled pattern not bound to a name is tried every way.
                methods = finder.applied.get(finder.bound.get(id(call), ""), {"search", "fullmatch", "finditer"})
            else:
                methods = {kind}
            where = f"{path.relative_to(ROOT)}:{call.lineno}"
            sites.append(Site(where, function, _literal_pattern(call.args[0]), tuple(sorted(methods))))
    return sites


def schema_patterns() -> list[Site]:
    """The patterns of the armybook/1 and ruleset/1 schemas (jsonschema searches with them)."""
    sites = []
    for path in (SCHEMA_PATH, RULESET_SCHEMA_PATH):
        for where, node in _all_nodes(json.loads(path.read_text())):
            if isinstance(node.get("pattern"), str):
                sites.append(Site(f"{path.name}{where}", "", node["pattern"], ("search",)))
    return sites


SITES = pattern_sites()
# Patterns built from data in a way the finder cannot read: how to build one as the code does.
BUILT = {
    ("armybuilder/exports/pdf_data.py", "_names_pattern"): lambda: pdf_data._names_pattern(
        ("Caster", "Cast", "Caster Shot", "Tough", "Fear")
    ),
    # The key's length is the column's (events.models.PACK_KEY_LENGTH).
    ("armybuilder/web/event_forms.py", ""): lambda: event_forms.PACK_KEY,
}
HOSTILE = {
    "spaces": lambda n: " " * n,
    "spaces between words": lambda n: "a" + " " * n + "b((",
    "spaces before a rating": lambda n: "Tough" + " " * n + "(3",
    "spaces after a number": lambda n: "1" + " " * n + "x",
    "mixed whitespace": lambda n: " \t\n\r" * (n // 4) + "x",
    "digits": lambda n: "1" * n + "x",
    "zeros": lambda n: "0" * n + "x",
    "open parentheses": lambda n: "(" * n,
    "an unclosed parenthesis": lambda n: "a(" + "b" * n,
    "parentheses, repeated": lambda n: "a(b)" * (n // 4),
    "nested parentheses": lambda n: "a(b(c" * (n // 5) + ")",
    "slug, nearly": lambda n: "a-" * (n // 2) + "-",
    "version, nearly": lambda n: "1." * (n // 2) + "+",
    "dice, nearly": lambda n: "1D" * (n // 2) + "+",
    "count, nearly": lambda n: "2x " * (n // 3),
    "admin mark, nearly": lambda n: "+admin." * (n // 7) + "x",
    "event link, nearly": lambda n: "/events/" * (n // 8),
    "a name, repeated": lambda n: f"{SAMPLE_NAME} " * (n // 7),
    "a name, nearly": lambda n: SAMPLE_NAME[:-1] * (n // 5),
    "letters": lambda n: "a" * n + "!",
}
N = 25_000  # and 4 N = 100,000 characters: five times the longest text a book may have


def _apply(pattern: re.Pattern[str], method: str) -> Callable[[str], object]:
    if method == "sub":
        return lambda text: pattern.sub("", text)
    if method == "finditer":
        return lambda text: list(pattern.finditer(text))
    return getattr(pattern, method)


def _seconds(work: Callable[[Any], object], given: Any, tries: int = 1) -> float:
    best = float("inf")
    for _ in range(tries):
        start = time.perf_counter()
        work(given)
        best = min(best, time.perf_counter() - start)
    return best


def assert_linear(work: Callable[[Any], object], hostile: Callable[[int], Any], n: int = N, most: float = 0.25) -> None:
    """`work` on a hostile input of size 4n takes less than `most` seconds (for a text of
    100,000 characters, well under a second), and about four times what it takes on n:
    work that tries every split of a run, or looks through all it has read for each
    new part, takes sixteen times (and, for a pattern, seconds). Each size keeps its
    fastest time over up to six turns of both, so a pause of a loaded machine during one
    turn is not read as the work's."""
    small_input, large_input = hostile(n), hostile(4 * n)
    small = _seconds(work, small_input)
    assert small < most, f"{small:.2f} s at {n:,}"
    large = _seconds(work, large_input)
    for _ in range(5):  # a pause of the machine, or the work: look again, in turns
        if large < 8 * small + 0.005:
            break
        small = min(small, _seconds(work, small_input))
        large = min(large, _seconds(work, large_input))
    assert large < most, f"{large:.2f} s at {4 * n:,}"
    assert large < 8 * small + 0.005, f"{small * 1000:.1f} ms at {n:,}, then {large * 1000:.1f} ms at {4 * n:,}"


def test_the_linearity_check_tells_quadratic_work_from_linear():
    """A pattern that reads to the end of a run from each of its starts fails the check,
    however many turns it is given; the same run read once passes."""
    spaces = lambda n: " " * n + "y"  # noqa: E731
    caught = []
    for _ in range(3):  # (a pause of a loaded machine while the small text is read can hide it once)
        try:
            assert_linear(re.compile(r"\s*x").search, spaces, n=2_000, most=5)
        except AssertionError as exc:
            caught.append(str(exc))
            break
    assert caught and re.match(r"[\d.]+ ms at 2,000, then [\d.]+ ms at 8,000\n", caught[0])
    assert_linear(re.compile(r"\s+y").search, spaces, n=2_000)


def test_every_pattern_in_the_code_is_one_these_tests_read():
    unread = {(s.where.rsplit(":", 1)[0], s.function) for s in SITES if s.pattern is None} - set(BUILT)
    assert unread == set(), "add how to build these to BUILT"


@pytest.mark.parametrize("site", SITES + schema_patterns(), ids=lambda s: s.where)
def test_each_pattern_takes_time_linear_in_hostile_texts(site):
    if site.pattern is None:
        pattern = BUILT[(site.where.rsplit(":", 1)[0], site.function)]()
    else:
        pattern = re.compile(site.pattern)
    slow = []
    for method in site.methods:
        for name, hostile in HOSTILE.items():
            try:
                assert_linear(_apply(pattern, method), hostile)
            except AssertionError as exc:
                slow.append(f"{method}, {name}: {exc}")
    assert slow == []


# Where the code prepares a text before its pattern (or reads it by hand): the whole function.
READERS = {
    "the converter's weapon range": (weapons.range_inches, lambda n: "1" + " " * n + "x"),
    "the converter's counted target": (packages._target, lambda n: "2" + " " * n + "y"),
    "the converter's whole number": (reading.whole, lambda n: "1" + " " * n + "x"),
    "the converter's long number": (reading.whole, lambda n: "9" * n),
    "the checks' rule": (split_rule, lambda n: "a" + " " * n + "b(("),
    "the checks' rule, spaces before its rating": (split_rule, lambda n: "Tough" + " " * n + "(3"),
    "the engine's rule": (Rule.parse, lambda n: "a" + " " * n + "b(("),
    "the engine's rule, spaces before its rating": (Rule.parse, lambda n: "Tough" + " " * n + "(3)"),
    "the engine's rule, nested parameters": (Rule.parse, lambda n: "a(" + "b(c)" * (n // 4) + "(("),
    "the engine's rule, a long number": (Rule.parse, lambda n: "Tough(" + "9" * n + ")"),
}


@pytest.mark.parametrize(("read", "hostile"), READERS.values(), ids=READERS)
def test_each_reader_of_imported_text_takes_time_linear_in_a_hostile_text(read, hostile):
    assert_linear(read, hostile)


def test_a_number_too_long_to_be_one_is_not_read_as_one():
    # Python reads no number of more than 4,300 digits: an error, were it tried.
    digits = "9" * 5000
    assert reading.whole(digits) is None
    assert weapons.range_inches(digits) is None
    assert packages._target(f"{digits}x Axe") == "9" * 119 + "…"  # a name, cut to its column
    assert Rule.parse(f"Spawn({digits})") == Rule("Spawn", digits)  # a text parameter


@pytest.mark.django_db
def test_a_rating_too_long_to_be_a_number_is_a_named_problem():
    book = emberfolk()
    book["units"][0]["rules"][1]["rating"] = "9" * 5000  # Tough
    with pytest.raises(ArmyBookError) as caught:
        book_import(data=book)
    assert [str(p) for p in caught.value.problems] == ["units[0].rules[1]: 5007 characters; the most is 120"]


def _army_forge_unit_with_rules(count: int) -> dict:
    book = emberfolk()
    book["units"][0]["rules"] = [{"name": f"Rule {i}"} for i in range(count)]
    return book


def test_the_converter_takes_time_linear_in_a_units_rules():
    """Each rule once: found in a table, not by reading the rules kept so far."""

    def read(book: dict) -> None:
        convert.armybook_from_armyforge(book, rulesets={"aof": RulesetInfo("aof", ("quality", "defense"), ())})

    assert_linear(read, _army_forge_unit_with_rules, n=2_000, most=2)


def _book_of_packages(n: int) -> dict:
    """n units, each taking 50 of n packages (each unit's own, and the 49 after it)."""
    book = aof_book(units=n)
    package = book["packages"][0]
    book["packages"] = [{**package, "id": f"P{i}", "sections": []} for i in range(n)]
    for i, unit in enumerate(book["units"]):
        unit["upgrades"] = [f"P{(i + k) % n}" for k in range(caps.MAX_LISTED)]
    return book


def test_the_catalogue_checks_take_time_linear_in_the_packages_units_take():
    """The units of each package are found once, not by looking at every unit for each
    (the schema's checks before them, linear too, would hide the difference)."""
    ruleset = RulesetInfo("aof", ("quality", "defense"), ("hero", "infantry"), {"Hero": False})

    def check(book: dict) -> None:
        list(armybook._BookChecker(book, ruleset).problems())

    assert_linear(check, _book_of_packages, n=caps.MAX_UNITS // 4, most=1)
