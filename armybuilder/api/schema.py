"""What the OpenAPI schema cannot discover from the views alone.

Every error answer of the API is JSON (armybuilder/errors.py, DRF's exceptions and the
middleware): `{"detail": "…"}`, or field errors for a body that was refused. The views
document the answers their own code gives (a 404 for a list that is not the caller's, a
409 for a stale version); `postprocess` adds those that come from the site around them,
read from each view's configuration so that they cannot drift from it, and lists the
rulesets and factions in the database as enums (the schema is generated per request).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import DatabaseError
from drf_spectacular.utils import OpenApiResponse
from rest_framework.permissions import AllowAny

from armybuilder.api.serializers import ErrorSerializer, FieldErrorsSerializer
from armybuilder.events.models import PACK_KEY_LENGTH
from armybuilder.lists.models import ArmyList
from factions.models import BookVersion, Faction, Ruleset


def error(description: str) -> OpenApiResponse:
    return OpenApiResponse(ErrorSerializer, description=description)


NOT_FOUND = error("Not found.")
FIELD_ERRORS = OpenApiResponse(FieldErrorsSerializer, description="The body was refused: the field errors.")

# Security of the lists endpoints: visitors without an account own lists through their
# session, so an anonymous request is as good as a signed-in one. OpenAPI security
# requirements as written in the schema: drf-spectacular takes them for `auth`, though its
# annotation names only the names of authentication classes.
SIGNED_IN_OR_VISITOR: Any = [{"cookieAuth": []}, {"tokenAuth": []}, {}]
# Asking for a token takes a username and password, no credentials: the empty requirement.
NO_CREDENTIALS: Any = [{}]

_RETRY_AFTER = {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait before trying again"}}


def _authenticates(view: Any) -> bool:
    """A bad token, or a session write without its CSRF token, is refused. DRF answers
    403 rather than 401 because session authentication comes first."""
    permissions = getattr(view, "permission_classes", [])
    return bool(getattr(view, "authentication_classes", [])) or any(p is not AllowAny for p in permissions)


# The answers a view may give because of what surrounds it (middleware, authentication,
# throttles, the database): status, description, and whether this view gives it.
SHARED_ANSWERS: list[tuple[str, str, Callable[[Any, dict], bool]]] = [
    (
        "400",
        "The request could not be read: a NUL character (which no field accepts) in the path, "
        "query or body, a malformed body, or too many fields or files.",
        lambda view, operation: True,
    ),
    (
        "403",
        "Refused: a token or session that is not valid, a visitor's session write without its "
        "CSRF token, or an action for staff only.",
        lambda view, operation: _authenticates(view),
    ),
    (
        "404",
        "Nothing at this address.",
        lambda view, operation: any(p["in"] == "path" for p in operation.get("parameters", [])),
    ),
    (
        "413",
        "The body is larger than the site accepts (2 MB); it was not read.",
        lambda view, operation: "requestBody" in operation,
    ),
    (
        "415",
        "The body's content type is not one this endpoint reads.",
        lambda view, operation: "requestBody" in operation,
    ),
    (
        "429",
        "Too many requests from this address or account (or too many failed log-ins): "
        "Retry-After says when to try again.",
        lambda view, operation: bool(getattr(view, "throttle_classes", [])),
    ),
    (
        "503",
        "The database is not answering (or a lock was held too long); nothing was lost. "
        "Retry-After says when to try again.",
        lambda view, operation: getattr(view, "uses_database", True),
    ),
]


def postprocess(result: dict[str, Any], generator, **kwargs) -> dict[str, Any]:
    """drf-spectacular's POSTPROCESSING_HOOKS entry: the shared error answers, the slug
    enums, what the armylist/1 body refuses beyond its serializer, and links."""
    error_ref = {"$ref": "#/components/schemas/Error"}  # (ErrorSerializer, used by the views)
    for path, _regex, method, callback in generator.endpoints:
        view = generator.create_view(callback, method)  # with its action's own permissions, parsers…
        path = generator.coerce_path(path, method, view)  # {pk} -> {id}
        operation = result["paths"].get(path, {}).get(method.lower())
        if operation is None:
            continue
        responses = operation["responses"]
        for status, description, applies in SHARED_ANSWERS:
            if status in responses or not applies(view, operation):
                continue
            responses[status] = {"content": {"application/json": {"schema": error_ref}}, "description": description}
        for status in ("429", "503"):
            if status in responses:
                responses[status]["headers"] = _RETRY_AFTER
        operation["responses"] = dict(sorted(responses.items()))
    _add_enums(result)
    _tighten_bodies(result)
    _add_links(result)
    return result


def catalogue_slugs() -> tuple[list[str], list[str], list[str]]:
    """The rulesets' slugs, the factions' slugs and the names of the book versions held,
    or empty lists when the database has no tables yet (`manage.py spectacular` on a new
    checkout)."""
    try:
        systems = list(Ruleset.objects.order_by("slug").values_list("slug", flat=True))
        factions = sorted(set(Faction.objects.values_list("slug", flat=True)))
        versions = sorted(set(BookVersion.objects.values_list("version", flat=True)))
    except DatabaseError:
        return [], [], []
    return systems, factions, versions


# The `key` path parameters: a list's share key and an event pack's key, each as long as its
# column (both made by secrets.token_urlsafe).
SHARE_KEY_PATTERN = f"^[A-Za-z0-9_-]{{1,{ArmyList._meta.get_field('share_key').max_length}}}$"
PACK_KEY_PATTERN = f"^[A-Za-z0-9_-]{{1,{PACK_KEY_LENGTH}}}$"


def _add_enums(result: dict[str, Any]) -> None:
    systems, factions, versions = catalogue_slugs()
    # A book version is named as `version` in a book's path, `from` and `to` when compared.
    enums = {"system": systems, "faction": factions, "book_version": versions}
    aliases = {"from": "book_version", "to": "book_version"}
    # An empty enum is not valid OpenAPI: with no rows, the fields stay plain strings.
    for path, operations in result["paths"].items():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                name = aliases.get(parameter["name"], parameter["name"])
                if path.startswith("/api/factions/{system}/"):
                    name = {"slug": "faction", "version": "book_version"}.get(name, name)
                values = enums.get(name)
                if values and parameter["in"] in ("path", "query"):
                    parameter["schema"]["enum"] = values
                if parameter["name"] == "key" and parameter["in"] == "path":
                    pack = path.startswith("/api/events/")
                    parameter["schema"]["pattern"] = PACK_KEY_PATTERN if pack else SHARE_KEY_PATTERN
    for component, fields in _ENUM_FIELDS.items():
        properties = result["components"]["schemas"].get(component, {}).get("properties", {})
        for name, values in enums.items():
            if values and fields.get(name, "") in properties:
                properties[fields[name]]["enum"] = values


# Body fields that name a ruleset, an army book or one of its versions: {component: {enum: field}}.
_ENUM_FIELDS = {
    "ArmyListRequest": {"system": "system", "faction": "faction", "book_version": "book_version"},
    "ArmyListUpdateRequest": {"system": "system", "faction": "faction", "book_version": "book_version"},
    "UpgradeRequest": {"book_version": "book_version"},
    "EventPackRequest": {"system": "ruleset"},
    "PatchedEventPackRequest": {"system": "ruleset"},
}


# Python's str.isspace() characters, written out for JSON Schema's regex dialect (whose
# \s is a slightly different set): an id made of them alone is "blank" and refused.
_NOT_BLANK = "[^\\t\\n\\v\\f\\r \\x1c-\\x1f\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]"


# Bodies whose checks refuse fields they do not know ("Unknown field."): armylist/1
# lists (check_list_shape), event packs (events.check_pack) and the ClosedSerializer bodies.
_CLOSED_BODIES = (
    "ArmyListRequest",
    "ArmyListUpdateRequest",
    "EntryRequest",
    "EventPackRequest",
    "PatchedEventPackRequest",
    "LimitRowRequest",
    "BanRequest",
    "CapRequest",
    "UpgradeRequest",
    "SubmitRequest",
    "EnterRequest",
    "VariantRequest",
)


def _tighten_bodies(result: dict[str, Any]) -> None:
    """What the checks of list and pack bodies refuse that the serializers do not say:
    fields they do not know, entry ids made only of whitespace, a ban naming both a unit
    and an option (or neither), and a limit change that changes nothing."""
    schemas = result["components"]["schemas"]
    for component in _CLOSED_BODIES:
        if component in schemas:
            schemas[component]["additionalProperties"] = False
    for name in ("id", "unit", "joined_to"):
        if name in schemas.get("EntryRequest", {}).get("properties", {}):
            schemas["EntryRequest"]["properties"][name]["pattern"] = _NOT_BLANK
    if "BanRequest" in schemas:
        schemas["BanRequest"]["oneOf"] = [{"required": ["unit"]}, {"required": ["option"]}]
    for component in ("EventPackRequest", "PatchedEventPackRequest"):
        changes = schemas.get(component, {}).get("properties", {}).get("limit_changes")
        if changes is not None:
            changes["additionalProperties"]["minProperties"] = 1


# Where what the API returns can be used next (OpenAPI links, which clients and
# Schemathesis' stateful tests follow): for each answer's component, {link: operation},
# the operations' path parameters (a field of the answer, or of the request's path), and
# the bodies some links send (fields of the answer).
_LINKS: dict[str, tuple[dict[str, str], dict[str, str], dict[str, tuple[str, ...]]]] = {
    "ArmyListOut": (
        {
            "GetList": "lists_retrieve",
            "UpdateList": "lists_update",
            "DeleteList": "lists_destroy",
            "CloneList": "lists_clone_create",
            "RotateShareKey": "lists_share_rotate_create",
            "ExportList": "lists_export_retrieve",
        },
        {"id": "id"},
        # The list as it is, sent back: its version is the one the change is based on.
        {"UpdateList": ("version", "name", "system", "faction", "points_limit", "force_org", "notes", "entries")},
    ),
    "EventPackOut": (
        {
            "GetEvent": "events_retrieve",
            "UpdateEvent": "events_partial_update",
            "DeleteEvent": "events_destroy",
            "ListSubmissions": "events_submissions_list",
            "Submit": "events_submissions_create",
        },
        {"key": "key"},
        {"UpdateEvent": ("name",)},
    ),
    "SubmissionOut": ({"GetSubmission": "events_submissions_retrieve"}, {"key": "$request.path.key", "id": "id"}, {}),
}


def _add_links(result: dict[str, Any]) -> None:
    for operations in result["paths"].values():
        for operation in operations.values():
            for response in operation["responses"].values():
                schema = response.get("content", {}).get("application/json", {}).get("schema", {})
                name = schema.get("$ref", "").rsplit("/", 1)[-1]
                paginated = name.startswith("Paginated") and name.endswith("List")
                links = _LINKS.get(name.removeprefix("Paginated").removesuffix("List") if paginated else name)
                if links is None:
                    continue
                item = "$response.body#/results/0" if paginated else "$response.body#"
                targets, parameters, bodies = links
                values = {k: v if v.startswith("$") else f"{item}/{v}" for k, v in parameters.items()}
                response["links"] = {
                    link: {"operationId": target, "parameters": values} for link, target in targets.items()
                }
                for link, fields in bodies.items():
                    response["links"][link]["requestBody"] = {field: f"{item}/{field}" for field in fields}
