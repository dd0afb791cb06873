"""An event's files for its organiser (and staff): the combined roster of every list
submitted, as a PDF, and the submissions as a CSV. To anyone else the pack's files are
not there: a 404, as for a pack that does not exist."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.views.decorators.http import require_GET

from armybuilder import downloads
from armybuilder.events import selectors as event_selectors
from armybuilder.exports import pdf
from armybuilder.lists import submissions as list_submissions


@require_GET
def event_roster_pdf(request: HttpRequest, key: str) -> HttpResponse:
    """Every submission's roster in one file, after a cover listing them (`?paper=letter`)."""
    pack = event_selectors.event_pack_managed_get(key=key, user=request.user)
    try:
        paper = pdf.paper_option(request.GET.dict())
    except ValueError as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    submissions = list(event_selectors.submissions_visible(pack, request.user))
    try:
        return downloads.event_roster_response(pack, submissions, paper=paper)
    except downloads.TooLargeToPrint as exc:
        return HttpResponse(str(exc), status=422, content_type="text/plain; charset=utf-8")
    except downloads.PrintoutsBusy as exc:
        busy = HttpResponse(str(exc), status=503, content_type="text/plain; charset=utf-8")
        busy["Retry-After"] = str(exc.wait)
        return busy


@require_GET
def event_submissions_csv(request: HttpRequest, key: str) -> HttpResponse:
    """One row per submission: player, army, points, whether it is legal, its issues."""
    pack = event_selectors.event_pack_managed_get(key=key, user=request.user)
    rows = list_submissions.submission_rows(pack, list(event_selectors.submissions_visible(pack, request.user)))
    return downloads.submissions_csv_response(pack, rows)
