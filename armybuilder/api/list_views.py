"""The lists API (shared/spec/api.md): the caller's own lists, share links and exports.

Someone else's list is a 404 on every endpoint, never a 403, so that nothing tells a
stranger a list exists (lists/visitors.py own_list: Missing, as for a list that is not
there). Visitors with no account own lists through their session.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, PolymorphicProxySerializer, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.authentication import SessionAuthentication
from rest_framework.decorators import action
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import SAFE_METHODS, AllowAny, BasePermission
from rest_framework.request import Request
from rest_framework.response import Response

from armybuilder import ratelimit
from armybuilder.api.fastjson import ORJSONParser
from armybuilder.api.lists import ArmyListSerializer, EntrySerializer, parse_list_body
from armybuilder.api.schema import FIELD_ERRORS, SIGNED_IN_OR_VISITOR, error
from armybuilder.api.serializers import ClosedSerializer, ConflictSerializer, FileUploadSerializer, ValidationSerializer
from armybuilder.api.throttles import VisitorListThrottle
from armybuilder.armyforge.lists.imports import importer, list_from_armyforge_link, list_from_file, list_import
from armybuilder.armyforge.lists.writing import armyforge_list_file, opens_in_armyforge
from armybuilder.conflicts import VersionConflict
from armybuilder.downloads import file_stem, json_download, list_pdf_response, text_download
from armybuilder.events.models import PACK_KEY_LENGTH
from armybuilder.events.selectors import event_pack_find
from armybuilder.exports import pdf
from armybuilder.exports.text import list_text
from armybuilder.lists import selectors, services
from armybuilder.lists.models import ArmyList
from armybuilder.lists.visitors import list_owner, own_list, own_lists

TEXT_KINDS = ("json", "text", "armyforge")
NOT_YOURS = error(
    "No such list among the caller's: someone else's list is a 404 too, so nothing tells a stranger it exists."
)
NOT_SHARED = error("No list has this share key (a rotated key stops working).")
LIST_CONFLICT = OpenApiResponse(ConflictSerializer, description="The list changed since `version`: nothing written.")


@dataclass(frozen=True, slots=True)
class ShownList:
    """A saved list and what its answer shows beside it: its validation (as POST
    /api/validate/ answers it) and the current version of its book (None: the book is gone)."""

    army_list: ArmyList
    validation: dict[str, Any]
    book_latest: str | None


def shown_list(army_list: ArmyList) -> ShownList:
    """One list, validated now."""
    state = selectors.army_list_load(army_list)
    return ShownList(army_list, state.validation.as_dict(), state.current_book_version)


def shown_lists(army_lists: list[ArmyList]) -> list[ShownList]:
    """A page of lists with their stored validations (a fixed number of queries)."""
    summaries = selectors.army_list_summaries(army_lists)
    return [
        ShownList(army_list, summary.validation, summary.book_latest)
        for army_list, summary in zip(army_lists, summaries, strict=True)
    ]


class ArmyListOutSerializer(serializers.Serializer):
    """A saved list as the API returns it: its armylist/1 fields at the top level, then
    what is known of it."""

    # Made from a ShownList (`request` in the context, for its share link) in one step, not
    # field by field: a listing shows 50 lists a page, each with its validation;
    # tests/api/test_shapes.py keeps it to these fields.

    shared = False  # SharedListOutSerializer: a list read by its share key

    id = serializers.IntegerField()
    version = serializers.IntegerField()
    format = serializers.CharField()
    name = serializers.CharField()
    system = serializers.CharField()
    faction = serializers.CharField()
    points_limit = serializers.IntegerField(allow_null=True)
    force_org = serializers.BooleanField()
    notes = serializers.CharField()
    entries = EntrySerializer(many=True)
    event = serializers.CharField(
        required=False, help_text="The key of the event pack the list is built for (left out: none)"
    )
    share_url = serializers.URLField(help_text="Anyone with this link may read the list (GET /api/shared/{key}/)")
    book_version = serializers.CharField(
        help_text="The version of the army book the list is pinned to: its costs and rules, until the list is "
        "moved on (POST /api/lists/{id}/upgrade/)"
    )
    book_latest = serializers.CharField(allow_null=True, help_text="The army book's current version (null: gone)")
    book_changed = serializers.BooleanField(help_text="book_latest differs from book_version")
    created = serializers.DateTimeField()
    updated = serializers.DateTimeField()
    validation = ValidationSerializer()

    def to_representation(self, shown: ShownList) -> dict[str, Any]:
        army_list, shared = shown.army_list, self.shared
        payload: dict[str, Any] = {} if shared else {"id": army_list.pk}
        payload["version"] = army_list.version
        payload.update(army_list.as_armylist(with_event=not shared))
        if not shared:
            payload["share_url"] = self.context["request"].build_absolute_uri(army_list.share_path)
        payload["book_version"] = army_list.book_version
        payload["book_latest"] = shown.book_latest
        payload["book_changed"] = shown.book_latest != army_list.book_version
        payload["created"] = army_list.created.isoformat()
        payload["updated"] = army_list.updated.isoformat()
        payload["validation"] = shown.validation
        return payload


def changes_own_list(answer: type[serializers.Serializer], unchanged: str) -> dict[int, Any]:
    """The answers of a change to one's own list based on the version it was made from."""
    conflict = OpenApiResponse(ConflictSerializer, description=f"The list changed since `version`: {unchanged}.")
    return {200: answer, 400: FIELD_ERRORS, 404: NOT_YOURS, 409: conflict}


class ImportWarningSerializer(serializers.Serializer):
    """Something the player should know about an import that went through; codes:
    book_version_nearest, book_version_matched, points_differ, not_in_version,
    campaign_notes, unit_notes, points_limit_default, notes_cut (each may add fields,
    e.g. points_differ: armyforge_total, total, entries)."""

    code = serializers.CharField()
    message = serializers.CharField()


class ImportedListOutSerializer(ArmyListOutSerializer):
    """A list just imported, with what the player should know about the import."""

    # (the import's warnings are in the context)

    warnings = ImportWarningSerializer(many=True)

    def to_representation(self, shown: ShownList) -> dict[str, Any]:
        payload = super().to_representation(shown)
        payload["warnings"] = [warning.as_dict() for warning in self.context["warnings"]]
        return payload


class ArmyForgeLinkSerializer(serializers.Serializer):
    armyforge = serializers.CharField(
        help_text="An Army Forge share link (https://army-forge.onepagerules.com/share?id=…) or the list's id: "
        "the list is read from Army Forge (GET {ARMYFORGE_URL}/api/tts?id=…)"
    )


class SharedListOutSerializer(ArmyListOutSerializer):
    """A list read by its share key: no `id`, `share_url` or `event`."""

    shared = True
    # (DRF's way to leave out a field a parent serializer declares; the stubs know only the
    # parent's field there)
    id = None  # type: ignore[assignment]
    share_url = None  # type: ignore[assignment]
    event = None  # type: ignore[assignment]


class ArmyListUpdateSerializer(ArmyListSerializer):
    version = serializers.IntegerField(help_text="The version this change was made from")


class EnterSerializer(ClosedSerializer):
    event = serializers.CharField(
        max_length=PACK_KEY_LENGTH, allow_null=True, help_text="An event pack's key; null: no event"
    )
    version = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="The list's version the change was made from (default: the one read now); if the list has "
        "changed since, nothing is written and the answer is 409",
    )


def export_kinds() -> tuple[str, ...]:
    return (*TEXT_KINDS, *pdf.PDF_KINDS)


def export_response(
    army_list: ArmyList,
    kind: str,
    params: dict[str, str] | None = None,
    *,
    shared: bool = False,
    request: HttpRequest | None = None,
) -> HttpResponse:
    if kind in pdf.PDF_KINDS:
        # Each drawing counts against the client's limit; a file drawn already does not.
        may_draw = (lambda: ratelimit.wait(request, "pdf")) if request is not None else None
        return list_pdf_response(army_list, kind, params or {}, may_draw=may_draw)
    if kind not in TEXT_KINDS:
        raise NotFound(f'No export "{kind}"; available: {", ".join(export_kinds())}.')
    stem = file_stem(army_list.name)
    if kind == "json":
        return json_download(army_list.as_armylist(with_event=not shared), f"{stem}.json")
    if kind == "armyforge":
        return json_download(armyforge_file(army_list), f"{stem}.armyforge.json")
    state = selectors.army_list_load(army_list)
    text = list_text(
        name=army_list.name,
        ruleset_title=state.ruleset.title,
        faction_name=state.faction_name,
        validation=state.validation,
        uses_points=state.ruleset.uses_points,
    )
    return text_download(text, f"{stem}.txt")


def armyforge_file(army_list: ArmyList) -> dict[str, Any]:
    """The list as Army Forge's "Share as File" JSON; none (a 404 saying why) for a list
    whose book did not come from Army Forge, which Army Forge could not open."""
    state = selectors.army_list_load(army_list)
    if state.book is None or not opens_in_armyforge(state.book):
        book = "is no longer in the catalogue" if state.book is None else "did not come from Army Forge"
        raise NotFound(
            f"No Army Forge file of this list: its army book {state.faction_name} {book}, so Army Forge could "
            "not open it; the json export (armylist/1) carries it to another copy of this site."
        )
    return armyforge_list_file(
        army_list=army_list,
        book=state.book,
        book_id=state.book.armyforge_id,
        game=state.book.system,
        total=state.validation.total_points,
        models=state.models,
        activations=state.validation.activations,
    )


def _export_params(request: Request) -> dict[str, str]:
    """The query string, plus the site's own address for the share link's QR code."""
    return {"base_url": request.build_absolute_uri("/"), **request.query_params.dict()}


KIND = OpenApiParameter("kind", str, OpenApiParameter.PATH, enum=list(export_kinds()))
EXPORTS = {
    (200, "application/json"): OpenApiResponse(
        OpenApiTypes.OBJECT,
        description="`json`: the armylist/1 file; `armyforge`: Army Forge's \u201cShare as File\u201d JSON "
        "(saveVersion 3), for lists of books that came from Army Forge (else a 404 saying so)",
    ),
    (200, "text/plain"): OpenApiResponse(OpenApiTypes.STR, description="`text`: the list as plain text"),
    (200, "application/pdf"): OpenApiResponse(
        OpenApiTypes.BINARY,
        description="`cards.pdf`, `reference.pdf`, `roster.pdf` (with `?sheet=1`: the one-page army sheet)",
    ),
    503: error(
        "A PDF of more than 100 entries asked while the site draws as many such as it draws at once "
        "(DJANGO_LARGE_PRINTOUTS), or the database is not answering: Retry-After says when to try again."
    ),
}


class VisitorSessionCsrf(BasePermission):
    """A visitor's lists live in the browser session, so a write made with that session
    cookie needs the CSRF token, as a signed-in session's does (DRF checks only those):
    another site cannot make a visitor's browser change their lists. Clients that send
    no session cookie (scripts with a token, or none) are not affected."""

    def has_permission(self, request, view) -> bool:
        if request.method in SAFE_METHODS or request.user.is_authenticated:
            return True
        if settings.SESSION_COOKIE_NAME in request.COOKIES:
            SessionAuthentication().enforce_csrf(request)  # raises PermissionDenied without the token
        return True


class ListPagination(PageNumberPagination):
    """Pages of 50 lists, newest change first (`?page=2`; `?page_size=` up to 200)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


def list_conflict(based_on: int, conflict: VersionConflict) -> Response:
    detail = (
        f"The list was changed since version {based_on}; it is now at version {conflict.current}. "
        "Reload it and apply the change again."
    )
    answer = ConflictSerializer({"detail": detail, "version": conflict.current})
    return Response(answer.data, status=status.HTTP_409_CONFLICT)


class UpgradeSerializer(ClosedSerializer):
    book_version = serializers.CharField(
        max_length=48, required=False, help_text="The version to move to (left out: the current one)"
    )
    dry_run = serializers.BooleanField(required=False, default=False, help_text="Report only: change nothing")
    version = serializers.IntegerField(
        required=False, min_value=1, help_text="The list version the move is based on: a stale one is a 409"
    )


class DroppedSerializer(serializers.Serializer):
    option = serializers.CharField()
    label = serializers.CharField()  # type: ignore[assignment]  # (a field: see api/serializers.py)
    reason = serializers.CharField()


class MovedSerializer(serializers.Serializer):
    option = serializers.CharField(help_text="The option's id the list took")
    to = serializers.CharField(help_text="Its id in the version moved to")
    label = serializers.CharField()  # type: ignore[assignment]  # (a field: see api/serializers.py)
    to_label = serializers.CharField(help_text="Its label in the version moved to")
    section = serializers.ListField(
        child=serializers.CharField(), help_text="The labels of its section, [before, after]"
    )
    cost = serializers.ListField(
        child=serializers.IntegerField(), help_text="Its price a pick for the unit, [before, after]"
    )
    picks = serializers.ListField(child=serializers.IntegerField(), help_text="Picks [before, after]")
    cut = serializers.CharField(required=False, help_text="Why fewer picks were carried over, when some were cut")


class UpgradeEntrySerializer(serializers.Serializer):
    id = serializers.CharField()
    unit = serializers.CharField(help_text="The unit's name")
    cost = serializers.ListField(child=serializers.IntegerField(), help_text="[before, after] (0 after when removed)")
    dropped = DroppedSerializer(many=True, help_text="Options the version no longer offers the unit")
    moved = MovedSerializer(
        many=True, help_text="Options the version offers the unit under another id (regrouped): kept, with their picks"
    )
    removed = serializers.BooleanField(help_text="The version has no such unit: the entry is gone")
    reason = serializers.CharField(required=False, help_text="Why it was removed")
    notes = serializers.ListField(child=serializers.CharField(), required=False)


class UpgradeReportSerializer(serializers.Serializer):
    # What a move did, as lists/services.py army_list_upgrade reports it: plain data
    # already, given as it is (tests/api/test_shapes.py keeps it to these fields).

    to = serializers.CharField()
    total_points = serializers.ListField(child=serializers.IntegerField(), help_text="[before, after]")
    entries = UpgradeEntrySerializer(many=True)
    validation = ValidationSerializer(help_text="The moved list's validation, as POST /api/validate/ answers it")

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = serializers.CharField()  # a keyword: not a class attribute
        return fields

    def to_representation(self, report: dict[str, Any]) -> dict[str, Any]:
        return report


class UpgradeOutSerializer(serializers.Serializer):
    # The moved list (a ShownList) and the report of the move.

    list = ArmyListOutSerializer()
    report = UpgradeReportSerializer()


def _versioned_body(body: Any) -> tuple[dict[str, Any], int]:
    """An update's list body and the `version` it was made from; a 400 names what is wrong."""
    if not isinstance(body, dict):
        raise ValidationError({"non_field_errors": ["Expected an object."]})
    if "version" not in body:
        raise ValidationError({"version": ["This field is required."]})
    body = dict(body)
    based_on = body.pop("version")
    if isinstance(based_on, bool) or not isinstance(based_on, int):
        raise ValidationError({"version": ["A valid integer is required."]})
    return body, based_on


class ListViewSet(viewsets.ViewSet):
    """The caller's lists (a user's, or a visitor's through the session)."""

    permission_classes = [VisitorSessionCsrf]
    pagination_class = ListPagination
    lookup_value_converter = "int"

    def get_throttles(self):
        throttles = super().get_throttles()
        # New lists from visitors, per address: made or imported (signed-in users: the user rate).
        return [*throttles, VisitorListThrottle()] if self.action in ("create", "import_") else throttles

    def _answer(self, army_list: ArmyList, code: int = status.HTTP_200_OK) -> Response:
        """The list as the API returns it, validated now."""
        return Response(ArmyListOutSerializer(shown_list(army_list), context={"request": self.request}).data, code)

    @extend_schema(
        auth=SIGNED_IN_OR_VISITOR, responses={200: ArmyListOutSerializer(many=True), 404: error("No such page.")}
    )
    def list(self, request: Request) -> Response:
        paginator = self.pagination_class()
        lists = paginator.paginate_queryset(own_lists(request), request, view=self)
        assert lists is not None  # the paginator has a page size: it always gives a page
        shown = ArmyListOutSerializer(shown_lists(lists), many=True, context={"request": request})
        return paginator.get_paginated_response(shown.data)

    @extend_schema(
        auth=SIGNED_IN_OR_VISITOR,
        request={"application/json": ArmyListSerializer},
        responses={201: ArmyListOutSerializer, 400: FIELD_ERRORS},
    )
    def create(self, request: Request) -> Response:
        data, _handle = parse_list_body(request.data)
        army_list = services.army_list_create(data=data, **list_owner(request))
        return self._answer(army_list, status.HTTP_201_CREATED)

    @extend_schema(
        auth=SIGNED_IN_OR_VISITOR,
        request={
            "application/json": PolymorphicProxySerializer(
                component_name="ListImport",
                serializers=[ArmyListSerializer, ArmyForgeLinkSerializer],
                resource_type_field_name=None,
            ),
            "multipart/form-data": FileUploadSerializer,
        },
        responses={201: ImportedListOutSerializer, 400: FIELD_ERRORS},
        description="Create a list from a list file or a share link: an armylist/1 list, an Army Forge "
        '\u201cShare as File\u201d list (a JSON body, or a multipart `file`) or a share link\'s list (`{"armyforge": '
        '"<share link or id>"}`, read from Army Forge). The list is pinned to the version of its book it was '
        "built on when that is held here, else to the nearest one held; `warnings` says what the player should "
        "know (another version, Army Forge's total differing from ours, notes kept).",
    )
    @action(
        detail=False,
        methods=["post"],
        url_path="import/",
        url_name="import",
        parser_classes=[ORJSONParser, MultiPartParser],
    )
    def import_(self, request: Request) -> Response:
        upload = request.FILES.get("file")
        if upload is not None:
            imported = list_from_file(upload.read())
        elif request.content_type.startswith("multipart/"):
            raise ValidationError({"file": ["No file was submitted."]})
        elif isinstance(request.data, dict) and set(request.data) == {"armyforge"}:
            imported = list_from_armyforge_link(request.data["armyforge"], requester=importer(request))
        else:
            imported = list_import(request.data)
        army_list = services.army_list_create(data=imported.data, **list_owner(request))
        context = {"request": request, "warnings": imported.warnings}
        return Response(ImportedListOutSerializer(shown_list(army_list), context=context).data, status.HTTP_201_CREATED)

    @extend_schema(auth=SIGNED_IN_OR_VISITOR, responses={200: ArmyListOutSerializer, 404: NOT_YOURS})
    def retrieve(self, request: Request, pk: int) -> Response:
        return self._answer(own_list(request, pk))

    @extend_schema(
        auth=SIGNED_IN_OR_VISITOR,
        request={"application/json": ArmyListUpdateSerializer},
        responses=changes_own_list(ArmyListOutSerializer, "nothing was written"),
        description="Replace the list. `version` is the version the change was made from; "
        "if the list has changed since, nothing is written and the answer is 409 with the current version.",
    )
    def update(self, request: Request, pk: int) -> Response:
        army_list = own_list(request, pk)
        body, based_on = _versioned_body(request.data)
        data, _handle = parse_list_body(body)
        try:
            army_list = services.army_list_update(army_list=army_list, data=data, based_on=based_on)
        except VersionConflict as conflict:
            return list_conflict(based_on, conflict)
        return self._answer(army_list)

    @extend_schema(auth=SIGNED_IN_OR_VISITOR, responses={204: None, 404: NOT_YOURS})
    def destroy(self, request: Request, pk: int) -> Response:
        services.army_list_delete(army_list=own_list(request, pk))
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(auth=SIGNED_IN_OR_VISITOR, request=None, responses={201: ArmyListOutSerializer, 404: NOT_YOURS})
    @action(detail=True, methods=["post"], url_path="clone/")
    def clone(self, request: Request, pk: int) -> Response:
        copy = services.army_list_clone(army_list=own_list(request, pk), **list_owner(request))
        return self._answer(copy, status.HTTP_201_CREATED)

    @extend_schema(
        auth=SIGNED_IN_OR_VISITOR,
        request={"application/json": UpgradeSerializer},
        responses=changes_own_list(UpgradeOutSerializer, "nothing moved"),
        description="Moves the list, in one transaction, to `book_version` (a version the book holds; default the "
        "current one): entries whose unit is gone are removed, options the version offers the unit under another "
        "id are moved (kept, within the new section's limits), options no longer offered are dropped, each named "
        "with the reason in the report, with every entry's cost before and after and the moved list's "
        "`validation`. `dry_run` changes nothing.",
    )
    @action(detail=True, methods=["post"], url_path="upgrade/")
    def upgrade(self, request: Request, pk: int) -> Response:
        army_list = own_list(request, pk)
        body = UpgradeSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        options = body.validated_data
        try:
            moved = services.army_list_upgrade(
                army_list=army_list,
                book_version=options.get("book_version"),
                dry_run=options["dry_run"],
                based_on=options.get("version"),
            )
        except VersionConflict as conflict:
            return list_conflict(options.get("version", army_list.version), conflict)
        answer = {"list": shown_list(moved.army_list), "report": moved.report}
        return Response(UpgradeOutSerializer(answer, context={"request": request}).data)

    @extend_schema(
        auth=SIGNED_IN_OR_VISITOR,
        request={"application/json": EnterSerializer},
        responses={200: ArmyListOutSerializer, 400: FIELD_ERRORS, 404: NOT_YOURS, 409: LIST_CONFLICT},
        description="Build the list for an event pack (or for none): it takes the event's ruleset (a variant of "
        "its own game) and points, and is checked against the event's rules from now on; `null` builds it for no "
        "event. A list of another game is refused (400, on `event`).",
    )
    @action(detail=True, methods=["post"], url_path="enter/", parser_classes=[ORJSONParser])
    def enter(self, request: Request, pk: int) -> Response:
        army_list = own_list(request, pk)
        body = EnterSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        key, based_on = body.validated_data["event"], body.validated_data.get("version")
        pack = None if key is None else event_pack_find(key=key)
        if key is not None and pack is None:
            raise ValidationError({"event": [f'No event pack "{key}".']})
        try:
            entered = services.army_list_enter(army_list=army_list, pack=pack, based_on=based_on)
        except VersionConflict as conflict:
            return list_conflict(based_on or army_list.version, conflict)
        return self._answer(entered)

    @extend_schema(auth=SIGNED_IN_OR_VISITOR, request=None, responses={200: ArmyListOutSerializer, 404: NOT_YOURS})
    @action(detail=True, methods=["post"], url_path="share/rotate/", url_name="share-rotate")
    def share_rotate(self, request: Request, pk: int) -> Response:
        """A new share link; the old one stops working."""
        return self._answer(services.army_list_share_rotate(army_list=own_list(request, pk)))

    @extend_schema(parameters=[KIND], responses={**EXPORTS, 404: NOT_YOURS})
    @action(detail=True, url_path="export/<str:kind>", permission_classes=[AllowAny])  # (a read: no CSRF check)
    def export(self, request: Request, pk: int, kind: str) -> HttpResponse:
        return export_response(own_list(request, pk), kind, _export_params(request), request=request)


class SharedListViewSet(viewsets.ViewSet):
    """A list by its share key: read-only, no login."""

    lookup_field = "key"
    lookup_value_converter = "str"

    @extend_schema(responses={200: SharedListOutSerializer, 404: NOT_SHARED})
    def retrieve(self, request: Request, key: str) -> Response:
        shown = shown_list(selectors.army_list_by_share_key(key=key))
        return Response(SharedListOutSerializer(shown, context={"request": request}).data)

    @extend_schema(auth=SIGNED_IN_OR_VISITOR, request=None, responses={201: ArmyListOutSerializer, 404: NOT_SHARED})
    @action(detail=True, methods=["post"], url_path="clone/", permission_classes=[VisitorSessionCsrf])
    def clone(self, request: Request, key: str) -> Response:
        """Copy a shared list into the caller's lists."""
        copy = services.army_list_clone(army_list=selectors.army_list_by_share_key(key=key), **list_owner(request))
        shown = ArmyListOutSerializer(shown_list(copy), context={"request": request})
        return Response(shown.data, status=status.HTTP_201_CREATED)

    @extend_schema(parameters=[KIND], responses={**EXPORTS, 404: NOT_SHARED})
    @action(detail=True, url_path="export/<str:kind>")
    def export(self, request: Request, key: str, kind: str) -> HttpResponse:
        shared = selectors.army_list_by_share_key(key=key)
        return export_response(shared, kind, _export_params(request), shared=True, request=request)
