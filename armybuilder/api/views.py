"""Catalogue API: rulesets and army books (read-only for anyone; import, and ruleset
variants, for staff)."""

from collections.abc import Callable
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import permissions, status, viewsets
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.parsers import BaseParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from armybuilder.api import serializers as s
from armybuilder.api.exceptions import SignInRequired
from armybuilder.api.fastjson import ORJSONParser
from armybuilder.api.lists import ArmyListSerializer, parse_list_body
from armybuilder.api.schema import FIELD_ERRORS, NO_CREDENTIALS, NOT_FOUND, error
from armybuilder.api.throttles import AuthThrottle
from armybuilder.armyforge.books.imports import book_import
from armybuilder.armyforge.ids import ARMYFORGE_GAMES
from armybuilder.cache import cache_state
from armybuilder.downloads import json_download
from armybuilder.lists.selectors import army_list_validate
from armybuilder.security import locked_out, login_succeeded, login_username
from factions.armybook import ArmyBookError, Problem
from factions.models import Ruleset
from factions.ruleset_format import RulesetError
from factions.selectors import (
    VersionNotHeld,
    armyforge_rules_find,
    armyforge_rules_versions,
    book_changes_get,
    book_version_document,
    book_versions,
    faction_document,
    faction_get,
    faction_list,
    ruleset_document,
    ruleset_get,
    ruleset_list_payload,
)
from factions.services import ImportStatus, ruleset_import, ruleset_variant_create

STAFF = [permissions.IsAdminUser]


def staff_import(*parsers: type[BaseParser]) -> Callable[[Callable[..., Response]], Any]:
    """The `import/` command of a collection (rulesets, books): POST, staff only, read by
    `parsers`."""
    return action(
        detail=False,
        methods=["post"],
        url_path="import/",
        url_name="import",
        permission_classes=STAFF,
        parser_classes=list(parsers),
    )


class SystemViewSet(viewsets.ViewSet):
    """The rulesets: the five and their variants."""

    lookup_field = "system"
    lookup_value_converter = "slug"

    @extend_schema(responses=s.RulesetSerializer(many=True))
    def list(self, request: Request) -> Response:
        return Response(ruleset_list_payload(lambda rulesets: s.RulesetSerializer(rulesets, many=True).data))

    @extend_schema(responses={200: s.RulesetDetailSerializer, 404: NOT_FOUND})
    def retrieve(self, request: Request, system: str) -> Response:
        return Response(s.RulesetDetailSerializer(ruleset_get(slug=system)).data)

    @extend_schema(
        responses={
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="The ruleset/1 file"),
            404: NOT_FOUND,
        },
        description="The ruleset as a ruleset/1 file, to download: one of the rulebooks' as the start of a "
        "variant (set its slug, name and base), or a variant to move to another site (POST /api/systems/import/).",
    )
    @action(detail=True, url_path="export")
    def export(self, request: Request, system: str) -> HttpResponse:
        ruleset = ruleset_get(slug=system)
        return json_download(ruleset_document(ruleset=ruleset), f"{ruleset.slug}.ruleset.json")

    @extend_schema(
        parameters=[OpenApiParameter("version", str, description="A version held (default: the current one)")],
        responses={200: s.ArmyForgeRulesSerializer, 404: NOT_FOUND},
        description="Army Forge's core rules for the ruleset's game (a variant's: its base's), as the sync from "
        "Army Forge last read them, or the version asked for: the rules official books name without describing "
        "them. 404 before the first sync, for a ruleset Army Forge has none for, or a version not held (naming "
        "those held).",
    )
    @action(detail=True, url_path="armyforge-rules/")
    def armyforge_rules(self, request: Request, system: str) -> Response:
        ruleset = ruleset_get(slug=system)
        if ruleset.family not in ARMYFORGE_GAMES:
            raise NotFound(
                f'Army Forge publishes no core rules for "{system}": only for {", ".join(ARMYFORGE_GAMES)} '
                "and their variants"
            )
        version = request.query_params.get("version") or None
        versions = armyforge_rules_versions(system=ruleset.family)
        if not versions:
            raise NotFound(
                f'Army Forge\'s core rules for "{ruleset.family}" have not been read yet: the first sync from Army '
                "Forge reads them (manage.py sync_armyforge)"
            )
        rules = armyforge_rules_find(system=ruleset.family, version=version)
        if rules is None:
            raise NotFound(
                f'no version "{version}" of Army Forge\'s core rules for "{ruleset.family}": the versions held are '
                f"{', '.join(versions)}"
            )
        return Response(s.ArmyForgeRulesSerializer(rules, context={"versions": versions}).data)

    @extend_schema(
        request={"application/json": OpenApiTypes.OBJECT},
        responses={
            201: s.RulesetDetailSerializer,
            400: OpenApiResponse(
                s.ImportErrorSerializer, description="A bad document, every problem named: nothing was changed."
            ),
            403: error("Staff only."),
        },
    )
    @staff_import(ORJSONParser)
    def import_(self, request: Request) -> Response:
        """Import a ruleset/1 variant (JSON body), replacing the variant of that slug. Staff only."""
        try:
            ruleset = ruleset_import(data=request.data)
        except RulesetError as exc:
            return Response(s.ImportErrorSerializer(exc).data, status=status.HTTP_400_BAD_REQUEST)
        return _variant_made(ruleset)

    @extend_schema(
        request={"application/json": s.VariantSerializer},
        responses={201: s.RulesetDetailSerializer, 400: FIELD_ERRORS, 403: error("Staff only."), 404: NOT_FOUND},
    )
    @action(
        detail=True, methods=["post"], url_path="variants/", permission_classes=STAFF, parser_classes=[ORJSONParser]
    )
    def variants(self, request: Request, system: str) -> Response:
        """Make a variant of a ruleset: a copy of its points and limit rows under a slug and
        name of its own, playing its game (a variant's variant plays the same base). Staff only."""
        source = ruleset_get(slug=system)
        body = s.VariantSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            variant = ruleset_variant_create(source=source, **body.validated_data)
        except RulesetError as exc:
            fields: dict[str, list[str]] = {}
            for problem in exc.problems:
                field = problem.path if problem.path in ("slug", "name") else "non_field_errors"
                fields.setdefault(field, []).append(problem.message)
            raise ValidationError(fields) from None
        return _variant_made(variant)


def _variant_made(ruleset: Ruleset) -> Response:
    return Response(s.RulesetDetailSerializer(ruleset_get(slug=ruleset.slug)).data, status=status.HTTP_201_CREATED)


class FactionViewSet(viewsets.ViewSet):
    """Army books. A book is addressed by its ruleset and slug: /api/factions/aof/human-empire/."""

    @extend_schema(
        parameters=[OpenApiParameter("system", str, description="Only this ruleset's factions")],
        responses={200: s.FactionSerializer(many=True), 400: FIELD_ERRORS},
    )
    def list(self, request: Request) -> Response:
        system = request.query_params.get("system")
        if system is not None and not Ruleset.objects.filter(slug=system).exists():
            raise ValidationError({"system": [f'unknown system "{system}"']})
        return Response(s.FactionSerializer(faction_list(system=system), many=True).data)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "system",
                str,
                description="Ruleset to import for; needed for an Army Forge book enabled for several rulesets",
            )
        ],
        request={"application/json": OpenApiTypes.OBJECT, "multipart/form-data": s.FileUploadSerializer},
        responses={
            200: OpenApiResponse(
                s.ImportResultSerializer,
                description="That version is held already with the same content: nothing changed.",
            ),
            201: OpenApiResponse(s.ImportResultSerializer, description="A new book, or a new version of one."),
            400: OpenApiResponse(s.ImportErrorSerializer, description="A bad book: nothing was changed."),
            403: error("Staff only."),
        },
    )
    @staff_import(ORJSONParser, MultiPartParser)
    def import_(self, request: Request) -> Response:
        """Import an armybook/1 document or an Army Forge army book (JSON body, or a
        multipart `file`) as a version of its book: a new book, a new version (current from
        now on; the versions before it are kept), or nothing when that version is held with
        the same content. Staff only."""
        try:
            result = book_import(data=_uploaded_book(request), system=request.query_params.get("system") or None)
        except ArmyBookError as exc:
            return Response(s.ImportErrorSerializer(exc).data, status=status.HTTP_400_BAD_REQUEST)
        code = status.HTTP_200_OK if result.status == ImportStatus.UNCHANGED else status.HTTP_201_CREATED
        return Response(s.ImportResultSerializer(result).data, status=code)


def _uploaded_book(request: Request):
    """The book sent: the bytes of an uploaded `file` (the import reads them, its size
    first), or the JSON body."""
    upload = request.FILES.get("file")
    if upload is not None:
        return upload.read()
    if request.content_type.startswith("multipart/"):
        raise ArmyBookError([Problem("file", "no file uploaded")])
    return request.data


class BookViewSet(viewsets.ViewSet):
    """An army book, addressed by its ruleset and slug: /api/factions/aof/human-empire/."""

    lookup_field = "slug"
    lookup_value_converter = "slug"

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, 404: NOT_FOUND},
        description="The whole army book in armybook/1 form.",
    )
    def retrieve(self, request: Request, system: str, slug: str) -> Response:
        return Response(faction_document(faction=faction_get(system=system, slug=slug)))

    @extend_schema(responses={200: s.BookVersionSerializer(many=True), 404: NOT_FOUND})
    @action(detail=True, url_path="versions/")
    def versions(self, request: Request, system: str, slug: str) -> Response:
        """Every version of the book held here, newest first."""
        faction = faction_get(system=system, slug=slug)
        rows = book_versions(faction=faction)
        return Response(s.BookVersionSerializer(rows, many=True, context={"current": faction.version}).data)

    @extend_schema(
        responses={200: OpenApiTypes.OBJECT, 404: NOT_FOUND},
        description="That version of the book in armybook/1 form; 404 when the book does not hold it.",
    )
    @action(detail=True, url_path="versions/<str:version>/")
    def version(self, request: Request, system: str, slug: str, version: str) -> Response:
        document = book_version_document(faction=faction_get(system=system, slug=slug), version=version)
        if document is None:
            raise NotFound(f'no version "{version}" of "{slug}" in ruleset "{system}"')
        return Response(document)

    @extend_schema(
        parameters=[
            OpenApiParameter("from", str, required=True, description="The version to compare from"),
            OpenApiParameter("to", str, description="The version to compare to (default: the current one)"),
        ],
        responses={200: OpenApiTypes.OBJECT, 400: FIELD_ERRORS, 404: NOT_FOUND},
        description="What changed from one version of the book to another: units, options, the book's own rules, "
        "the core rules it names (`core_rules`) and spells added, removed and changed (only what differs); an "
        "option a unit newly takes or no longer takes is listed under the option's `units` (`added`, `removed`), "
        "never as a price change. 400 naming the parameter for a version not held.",
    )
    @action(detail=True, url_path="changes/")
    def changes(self, request: Request, system: str, slug: str) -> Response:
        faction = faction_get(system=system, slug=slug)
        old, new = request.query_params.get("from"), request.query_params.get("to") or None
        if not old:
            raise ValidationError({"from": ["This parameter is required: a version the book holds."]})
        try:
            return Response(book_changes_get(faction=faction, old=old, new=new))
        except VersionNotHeld as exc:
            raise ValidationError({exc.field: [str(exc)]}) from None


class ValidateView(APIView):
    """Validate an armylist/1 list without saving it. Anyone may call it."""

    authentication_classes: list = []
    parser_classes = [ORJSONParser]

    @extend_schema(
        request={"application/json": ArmyListSerializer},
        responses={200: s.ValidationSerializer, 400: FIELD_ERRORS},
        description="200 with the validation of a well-formed list (legal or not); "
        "400 with field errors when the body is not a well-formed armylist/1 list.",
    )
    def post(self, request: Request) -> Response:
        # The serializer documents the body; parse_list_body checks it without the cost
        # of building a nested serializer on every keystroke of the builder.
        data, handle = parse_list_body(request.data)
        return Response(s.ValidationSerializer(army_list_validate(data=data, handle=handle)).data)


class TokenView(ObtainAuthToken):
    """Username and password in, token out (and a device cookie: armybuilder/security.py);
    throttled per client against password guessing. DELETE revokes the caller's token (sent
    as `Authorization: Token …`, or the signed-in user's); a new password revokes it too."""

    throttle_classes = [AuthThrottle]
    throttle_scope = "auth"

    @extend_schema(
        auth=NO_CREDENTIALS,
        responses={
            200: s.TokenSerializer,
            400: OpenApiResponse(s.FieldErrorsSerializer, description="Wrong or missing username or password."),
            429: error("Too many token requests, or too many failed log-ins: Retry-After says when to try again."),
        },
    )
    # The stub says a view's post gives a Response; DRF sends any HttpResponse on as it is,
    # and a locked-out log-in's answer is the site's own (security.locked_out).
    def post(self, request: Request, *args, **kwargs) -> HttpResponse:  # type: ignore[override]
        try:
            response = super().post(request, *args, **kwargs)
        except ValidationError:
            # django-axes marks the request when the account or the address is locked out.
            if getattr(request, "axes_locked_out", False) or getattr(request._request, "axes_locked_out", False):
                return locked_out(request._request)
            raise
        # (a token is given only for the username sent, so that is the account)
        login_succeeded(request._request, login_username(request) or "")
        return response

    @extend_schema(request=None, responses={204: None, 401: error("Not signed in: no token to revoke.")})
    def delete(self, request: Request) -> Response:
        from rest_framework.authtoken.models import Token

        user = request.user
        if not (user and user.is_authenticated):
            raise SignInRequired("Authentication credentials were not provided.")
        Token.objects.filter(user=user).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)


class HealthView(APIView):
    """A trivial endpoint: for load balancers, and the yardstick of the benchmarks. The
    site answers with or without Redis; `cache` says which cache it is using."""

    authentication_classes: list = []
    throttle_classes: list = []  # a load balancer polls it all day
    uses_database = False  # (so its schema has no 503)

    @extend_schema(responses={200: s.HealthSerializer})
    def get(self, request: Request) -> Response:
        return Response(s.HealthSerializer(cache_state()).data)
