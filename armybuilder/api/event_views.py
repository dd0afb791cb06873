"""The event packs API: a club's or a tournament's rules, and the lists players submit to
them (armybuilder/events/ does the work; these views adapt it).

Anyone with a pack's key reads its rules. Only its organiser and staff change or delete
it and see every submission; a player sees their own submission. To anyone else those
are 404, never 403, as for someone else's list: nothing tells a stranger what is there.
Organising and submitting need an account (401 without one).
"""

from __future__ import annotations

from datetime import UTC
from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status, viewsets
from rest_framework.exceptions import NotFound, ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.utils.serializer_helpers import ReturnList

from armybuilder.accounts import services as accounts
from armybuilder.api.event_files import EventFiles
from armybuilder.api.exceptions import SignInRequired
from armybuilder.api.fastjson import ORJSONParser
from armybuilder.api.list_views import ListPagination
from armybuilder.api.lists import ArmyListSerializer
from armybuilder.api.schema import FIELD_ERRORS, error
from armybuilder.api.serializers import ClosedSerializer, ConflictSerializer, IssueSerializer, ValidationSerializer
from armybuilder.conflicts import VersionConflict
from armybuilder.engine.limit_kinds import ADDABLE_KINDS
from armybuilder.events import format as pack_format
from armybuilder.events import selectors as event_selectors
from armybuilder.events import services as event_services
from armybuilder.events.models import EventPack, Submission
from armybuilder.events.rules import BOOKS_RULES, RULE_FIELDS
from armybuilder.lists import submissions as list_submissions
from armybuilder.lists.visitors import own_list
from factions.ruleset_format import MAX_POINTS

# The OpenAPI security requirement of organising and submitting (see SIGNED_IN_OR_VISITOR in
# api/schema.py on why it is typed Any).
SIGNED_IN: Any = [{"cookieAuth": []}, {"tokenAuth": []}]
NO_PACK = error("No event pack has this key.")
NOT_MANAGED = error(
    "No event pack has this key that the caller may change: to anyone but its organiser and staff it is a 404, "
    "so nothing tells them more than its page does."
)
NO_SUBMISSIONS = error(
    "No event pack has this key, or the caller may see none of its submissions "
    "(its organiser and staff see all, a player their own)."
)
SIGN_IN = error("Not signed in: sign in (a session, or `Authorization: Token …`) first.")


# -- the documented shapes -----------------------------------------------------------------------
class LimitRowSerializer(serializers.Serializer):
    code = serializers.CharField(max_length=40, help_text="The issue code lists breaking it get, e.g. one_dragon")
    kind = serializers.ChoiceField(choices=list(ADDABLE_KINDS))
    params = serializers.DictField(help_text='The parameters of its kind, e.g. {"counts": "heroes", "max": 1}')
    section = serializers.CharField(max_length=100, required=False, allow_blank=True, help_text="Where to read it")
    severity = serializers.ChoiceField(choices=["error", "warning"], required=False)


class BanSerializer(serializers.Serializer):
    faction = serializers.CharField(help_text="An army book's slug")
    unit = serializers.CharField(required=False, help_text="A unit id of that book (or `option`, not both)")
    option = serializers.CharField(required=False, help_text="An upgrade option id of that book")


class CapSerializer(serializers.Serializer):
    faction = serializers.CharField(help_text="An army book's slug")
    unit = serializers.CharField(help_text="A unit id of that book")
    max = serializers.IntegerField(min_value=0, max_value=100, help_text="The most copies a list may field")


def _rows(child: serializers.Field, help_text: str) -> serializers.ListField:
    """A list of an event pack's rules (army books, limits, bans, caps): at most MAX_RULES."""
    return serializers.ListField(child=child, required=False, max_length=pack_format.MAX_RULES, help_text=help_text)


class EventPackSerializer(serializers.Serializer):
    """An event pack as it is made or changed (every field is checked against the ruleset:
    limits, army books, units and options it names must be there)."""

    name = serializers.CharField(max_length=120)
    description = serializers.CharField(max_length=2000, required=False, allow_blank=True)
    ruleset = serializers.CharField(help_text="The slug of the ruleset (or variant) the event is played with")
    points_limit = serializers.IntegerField(
        min_value=1, max_value=MAX_POINTS, required=False, allow_null=True, help_text="null for Arena warbands"
    )
    deadline = serializers.DateTimeField(help_text="Submissions close then: ISO 8601 with the time zone")
    factions = _rows(serializers.CharField(), "Army books allowed")
    limit_changes = serializers.DictField(
        child=serializers.DictField(),
        required=False,
        help_text='Limit code -> the parameters the event sets, e.g. {"unit_too_expensive": {"percent": 30}}',
    )
    limits_removed = _rows(serializers.CharField(), "Limit codes not used")
    limits_added = _rows(LimitRowSerializer(), "Limit rows of its own")
    bans = _rows(BanSerializer(), "Units or options not allowed")
    caps = _rows(CapSerializer(), "At most so many of a unit")
    books = serializers.ChoiceField(
        choices=list(BOOKS_RULES),
        required=False,
        help_text='Which version of its army book a list may use: "current" (the default; a list on an older '
        'version has the issue event_book_version until it is updated) or "any" (players keep the version they '
        "built the list on)",
    )


NAME_HELP = (
    'The {who}\'s display name: the name they chose on their account page, or else "Player" and a number, the '
    "same for them in every event. Never their username, which is for logging in only"
)


class RuleLineSerializer(serializers.Serializer):
    text = serializers.CharField()
    source = serializers.CharField(  # type: ignore[assignment]  # (a field: see api/serializers.py)
        help_text="\"event rule\", or the rulebook's (or variant's) section"
    )
    changed = serializers.CharField(help_text="What the rulebook says, for a rule the event changed or dropped")


class EventPackOutSerializer(EventPackSerializer):
    """An event pack as the API returns it: its fields, and its rules in words."""

    # Made from a PackView in one step (`request` in the context: the pack's address, who
    # asks), as the lists' answers are; tests/api/test_shapes.py keeps it to these fields.

    key = serializers.CharField(help_text="The pack's address: /api/events/{key}/")
    url = serializers.URLField(help_text="The pack's page")
    ruleset_title = serializers.CharField()
    open = serializers.BooleanField(help_text="Submissions are still accepted")
    organiser = serializers.CharField(help_text=NAME_HELP.format(who="organiser"))
    rules = RuleLineSerializer(many=True, help_text="Every rule a list entered for the event keeps, in words")
    version = serializers.IntegerField()
    created = serializers.DateTimeField()
    updated = serializers.DateTimeField()
    can_manage = serializers.BooleanField(help_text="The caller may change the pack and see every submission")

    def to_representation(self, view: event_selectors.PackView) -> dict[str, Any]:
        pack, request = view.pack, self.context["request"]
        return {
            "key": pack.key,
            "url": request.build_absolute_uri(pack.path),
            "name": pack.name,
            "description": pack.description,
            "ruleset": pack.ruleset.slug,
            "ruleset_title": pack.ruleset.title,
            "points_limit": pack.points_limit,
            "deadline": pack.deadline.astimezone(UTC).isoformat(),
            "open": event_selectors.is_open(pack),
            "organiser": accounts.display_name(pack.organiser),
            **{field: getattr(pack, field) for field in RULE_FIELDS},
            "books": pack.books,
            "rules": [{"text": line.text, "source": line.source, "changed": line.changed} for line in view.rules],
            "version": pack.version,
            "created": pack.created.isoformat(),
            "updated": pack.updated.isoformat(),
            "can_manage": event_selectors.can_manage(pack, request.user),
        }


class SubmitSerializer(ClosedSerializer):
    list = serializers.IntegerField(min_value=1, help_text="The id of one of the caller's lists")


class PackConflictSerializer(ConflictSerializer):
    pack = EventPackOutSerializer(help_text="The pack as it is now")


PACK_CONFLICT = OpenApiResponse(
    PackConflictSerializer, description="The pack changed since `version`: nothing written."
)


class SubmissionOutSerializer(serializers.Serializer):
    # Made from a SubmissionRow (checked against the pack's rules now) in one step;
    # tests/api/test_shapes.py keeps it to these fields.

    id = serializers.IntegerField()
    player = serializers.CharField(help_text=NAME_HELP.format(who="player"))
    faction = serializers.CharField()
    faction_name = serializers.CharField()
    book_version = serializers.CharField(help_text="The version of the army book the submitted list is built on")
    total_points = serializers.IntegerField()
    points_limit = serializers.IntegerField(allow_null=True)
    valid = serializers.BooleanField(help_text="Valid against the event's rules as they are now")
    issues = IssueSerializer(many=True)
    submitted_at = serializers.DateTimeField()
    list = ArmyListSerializer(help_text="The list as submitted (armylist/1): later edits leave it alone")
    validation = ValidationSerializer()

    def to_representation(self, row: list_submissions.SubmissionRow) -> dict[str, Any]:
        submission, validation = row.submission, row.validation
        return {
            "id": submission.pk,
            "player": row.player_name,
            "faction": submission.data["faction"],
            "faction_name": row.faction_name,
            "book_version": row.book_version,
            "total_points": validation["total_points"],
            "points_limit": validation["points_limit"],
            "valid": row.valid,
            "issues": row.issues,
            "submitted_at": submission.submitted_at.isoformat(),
            "list": submission.data,
            "validation": validation,
        }


# -- answers -------------------------------------------------------------------------------------
def _packs(request: Request, packs: list[EventPack]) -> ReturnList:
    """The packs as the API returns them, each ruleset's books read once."""
    views = event_selectors.pack_views(packs)
    return EventPackOutSerializer(views, many=True, context={"request": request}).data  # type: ignore[return-value]


def _pack(request: Request, pack: EventPack) -> dict[str, Any]:
    return _packs(request, [pack])[0]


def _submission(pack: EventPack, submission: Submission) -> dict[str, Any]:
    (row,) = list_submissions.submission_rows(pack, [submission])
    return SubmissionOutSerializer(row).data


def _signed_in(request: Request) -> User:
    """The caller's account; SignInRequired (401) without one."""
    if not request.user.is_authenticated:
        raise SignInRequired()
    return request.user


# -- views ---------------------------------------------------------------------------------------
class EventViewSet(EventFiles, viewsets.ViewSet):
    """One pack: anyone with its key reads it; its organiser and staff change or delete it."""

    lookup_field = "key"
    lookup_value_converter = "str"
    pagination_class = ListPagination
    parser_classes = [ORJSONParser]

    @extend_schema(responses={200: EventPackOutSerializer(many=True), 404: error("No such page.")})
    def list(self, request: Request) -> Response:
        """The caller's event packs: those they organise or have submitted a list to (staff:
        every pack; no one signed in: none). Anyone signed in may organise one."""
        paginator = self.pagination_class()
        packs = paginator.paginate_queryset(event_selectors.packs_of(request.user), request, view=self)
        assert packs is not None  # the paginator has a page size: it always gives a page
        return paginator.get_paginated_response(_packs(request, packs))

    @extend_schema(
        auth=SIGNED_IN,
        request={"application/json": EventPackSerializer},
        responses={201: EventPackOutSerializer, 400: FIELD_ERRORS, 401: SIGN_IN},
    )
    def create(self, request: Request) -> Response:
        """Organise an event pack (anyone signed in)."""
        organiser = _signed_in(request)
        pack = event_services.pack_create(organiser=organiser, data=request.data)
        return Response(_pack(request, pack), status=status.HTTP_201_CREATED)

    @extend_schema(responses={200: EventPackOutSerializer, 404: NO_PACK})
    def retrieve(self, request: Request, key: str) -> Response:
        return Response(_pack(request, event_selectors.event_pack_get(key=key)))

    @extend_schema(
        request={"application/json": EventPackSerializer},
        responses={200: EventPackOutSerializer, 400: FIELD_ERRORS, 404: NOT_MANAGED, 409: PACK_CONFLICT},
        description="Change the fields the body names; the others stay as they are. "
        "Lists entered for the pack are checked against its new rules from now on. "
        "`version` (optional) is the pack's version the change was made from (default: the one read now); "
        "if the pack has changed since, nothing is written and the answer is 409 with the pack as it is.",
    )
    def partial_update(self, request: Request, key: str) -> Response:
        pack = event_selectors.event_pack_managed_get(key=key, user=request.user)
        data, based_on = request.data, None
        if isinstance(data, dict) and "version" in data:
            data = dict(data)
            based_on = data.pop("version")
            if isinstance(based_on, bool) or not isinstance(based_on, int) or based_on < 1:
                raise ValidationError({"version": ["The pack's version the change was made from: a whole number."]})
        try:
            pack = event_services.pack_update(pack=pack, data=data, based_on=based_on)
        except VersionConflict as conflict:
            detail = (
                f"The pack was changed since version {based_on or pack.version}; it is now at version "
                f"{conflict.current}. Nothing was written: read it again and make the change again."
            )
            current = event_selectors.pack_view(event_selectors.event_pack_get(key=key))
            answer = PackConflictSerializer(
                {"detail": detail, "version": conflict.current, "pack": current}, context={"request": request}
            )
            return Response(answer.data, status=status.HTTP_409_CONFLICT)
        return Response(_pack(request, pack))

    @extend_schema(responses={204: None, 404: NOT_MANAGED})
    def destroy(self, request: Request, key: str) -> Response:
        event_services.pack_delete(pack=event_selectors.event_pack_managed_get(key=key, user=request.user))
        return Response(status=status.HTTP_204_NO_CONTENT)


SUBMIT_ANSWERS = {
    201: SubmissionOutSerializer,
    400: FIELD_ERRORS,
    401: SIGN_IN,
    404: error("No event pack has this key, or the list is not one of the caller's."),
    409: error("The pack's deadline has passed: it takes no more submissions (the answer says when it closed)."),
}


class SubmissionViewSet(viewsets.ViewSet):
    """A pack's submissions: its organiser and staff see all, a player their own."""

    lookup_value_converter = "int"
    parser_classes = [ORJSONParser]

    @extend_schema(responses={200: SubmissionOutSerializer(many=True), 404: NO_SUBMISSIONS})
    def list(self, request: Request, key: str) -> Response:
        pack = event_selectors.event_pack_get(key=key)
        submissions = list(event_selectors.submissions_visible(pack, request.user))
        if not submissions and not event_selectors.can_manage(pack, request.user):
            raise NotFound()
        rows = list_submissions.submission_rows(pack, submissions)
        return Response(SubmissionOutSerializer(rows, many=True).data)

    @extend_schema(
        auth=SIGNED_IN,
        request={"application/json": SubmitSerializer},
        responses=SUBMIT_ANSWERS,
        description="Submit a frozen copy of one of the caller's lists, replacing their earlier submission.",
    )
    def create(self, request: Request, key: str) -> Response:
        player = _signed_in(request)
        pack = event_selectors.event_pack_get(key=key)
        body = SubmitSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        army_list = own_list(request, body.validated_data["list"])
        submission = event_services.submission_submit(pack=pack, player=player, army_list=army_list)
        return Response(_submission(pack, submission), status=status.HTTP_201_CREATED)

    @extend_schema(
        responses={
            200: SubmissionOutSerializer,
            404: error("No such submission that the caller may see (its organiser, staff and its player may)."),
        }
    )
    def retrieve(self, request: Request, key: str, pk: int) -> Response:
        pack = event_selectors.event_pack_get(key=key)
        submission = event_selectors.submission_get(pack=pack, user=request.user, pk=pk)
        return Response(_submission(pack, submission))
