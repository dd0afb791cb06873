"""An event's files in the API (shared/spec/api.md): the combined roster of every list
submitted to a pack, as a PDF, and the submissions as a CSV, for the pack's organiser
and staff: two actions of the pack (EventViewSet). To anyone else the pack is not there:
a 404, never a 403."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from armybuilder import downloads
from armybuilder.api.schema import error
from armybuilder.api.serializers import FieldErrorsSerializer
from armybuilder.events import selectors as event_selectors
from armybuilder.exports import pdf
from armybuilder.exports.event_csv import HEADER
from armybuilder.exports.pdf_style import PAPERS
from armybuilder.lists import submissions as list_submissions

NOT_MANAGED = error(
    "No event pack with this key among those the caller organises (staff see every pack): "
    "to a player or a stranger the pack's files are not there."
)
PAPER = OpenApiParameter("paper", str, OpenApiParameter.QUERY, enum=list(PAPERS), description="Default a4")


class EventFiles:
    """The files of a pack (a mixin of EventViewSet)."""

    @extend_schema(
        operation_id="events_roster_pdf",
        parameters=[PAPER],
        responses={
            (200, "application/pdf"): OpenApiResponse(
                OpenApiTypes.BINARY,
                description="A cover (the event, its ruleset and points, the deadline, a table of every "
                "submission) and then each submission's roster, each from a new page",
            ),
            400: OpenApiResponse(
                FieldErrorsSerializer,
                description="`paper` is not a4 or letter; or the request could not be read (a NUL character).",
            ),
            404: NOT_MANAGED,
            422: error(
                f"The lists submitted hold more than {downloads.MAX_EVENT_ENTRIES} entries in all, more than one "
                "combined roster prints: the detail says how many (submissions.csv lists them all)."
            ),
        },
    )
    @action(detail=True, url_path="roster.pdf", url_name="roster-export")
    def roster(self, request: Request, key: str) -> HttpResponse:
        """Every submission's roster in one PDF, after a cover listing them all."""
        pack = event_selectors.event_pack_managed_get(key=key, user=request.user)
        try:
            paper = pdf.paper_option(request.query_params.dict())
        except ValueError as exc:
            raise ValidationError({"paper": [str(exc)]}) from None
        submissions = list(event_selectors.submissions_visible(pack, request.user))
        return downloads.event_roster_response(pack, submissions, paper=paper)

    @extend_schema(
        operation_id="events_submissions_csv",
        responses={
            (200, "text/csv"): OpenApiResponse(
                OpenApiTypes.STR, description=f"Columns: {', '.join(HEADER)} (ISO 8601, with its time zone)"
            ),
            404: NOT_MANAGED,
        },
    )
    @action(detail=True, url_path="submissions.csv", url_name="submissions-export")
    def submissions_csv(self, request: Request, key: str) -> HttpResponse:
        """The submissions as CSV, one row each, checked against the pack's rules now."""
        pack = event_selectors.event_pack_managed_get(key=key, user=request.user)
        rows = list_submissions.submission_rows(pack, list(event_selectors.submissions_visible(pack, request.user)))
        return downloads.submissions_csv_response(pack, rows)
