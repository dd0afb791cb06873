"""Error pages: JSON under /api/ (clients parse the answer whatever went wrong); a page
in the site's layout elsewhere, with a way on: the player's lists, a new list, and a
log-in for a visitor who may simply not be logged in."""

from __future__ import annotations

import logging

from django.http import HttpRequest, HttpResponse, HttpResponseServerError, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views import defaults

from armybuilder.missing import Missing
from armybuilder.web.context import site_links

log = logging.getLogger(__name__)

MESSAGES = {
    400: "The request could not be read (a malformed body, or too many fields or files).",
    403: "You may not do that.",
    404: "Not found.",
    500: "Something went wrong on our side; it has been logged. Please try again.",
}

# A page's heading and words, by status.
PAGES = {
    400: ("That request could not be read", MESSAGES[400]),
    403: ("Not allowed", MESSAGES[403]),
    404: ("Not found", "There is nothing at this address."),
    413: ("Too large", "What was sent is larger than this site accepts."),
    405: ("Not opened this way", "This address takes the site's own forms and buttons; it is not a page to open."),
    500: ("Something went wrong", MESSAGES[500]),
}
# What a page says of a thing a lookup did not find (armybuilder.missing.Missing, by kind).
MISSING = {
    "list": "No such list among yours.",
    "shared list": "No list has this share link (it may have been replaced by a new one).",
    "ruleset": "No such ruleset.",
    "book": "No such army book.",
    "event pack": "No event pack has this link.",
}
CSRF_WORDS = (
    "This form has expired: the page was open while you logged in, perhaps in another tab. "
    "Go back, reload the page and try again."
)


def _api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def error_page(request: HttpRequest, status: int, words: str = "") -> HttpResponse:
    """The page for `status`, with the request's context (who is logged in), offering a
    log-in that comes back here to anyone who is not."""
    title, default = PAGES[status]
    context = {"title": title, "words": words or default}
    user = getattr(request, "user", None)
    if user is None:  # refused before the session was read: no one is known
        return HttpResponse(_page_without_request(context), status=status)
    if not user.is_authenticated:
        # a form's address is no page to come back to: their lists are
        page = request.method in ("GET", "HEAD") and status != 405
        context["login_next"] = request.get_full_path() if page else site_links()["my_lists"]
    return render(request, "error.html", context, status=status)


def _page_without_request(context: dict[str, str]) -> str:
    """The error page from its words and the site's links alone: no session, no user, no
    database (the header then offers no account links)."""
    return render_to_string("error.html", {**context, "nav": site_links()})


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": MESSAGES[400]}, status=400)
    return error_page(request, 400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": MESSAGES[403]}, status=403)
    return error_page(request, 403)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """A form posted with a stale or missing CSRF token (CSRF_FAILURE_VIEW)."""
    if _api(request):
        return JsonResponse({"detail": f"CSRF check failed: {reason}"}, status=403)
    return error_page(request, 403, CSRF_WORDS)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": MESSAGES[404]}, status=404)
    # Our own 404s say what is missing ("No such list among yours."); the URL resolver's
    # carry a dict of the patterns tried, which is not for visitors.
    if isinstance(exception, Missing):
        words = MISSING.get(exception.kind, "")
    else:
        words = exception.args[0] if exception and exception.args and isinstance(exception.args[0], str) else ""
    return error_page(request, 404, words)


def server_error(request: HttpRequest) -> HttpResponse:
    """Rendered without the request's context: the session, the user or the database may
    be what failed. If even this page cannot be made, Django's plain one answers."""
    if _api(request):
        return JsonResponse({"detail": MESSAGES[500]}, status=500)
    title, words = PAGES[500]
    try:
        html = _page_without_request({"title": title, "words": words})
    except Exception:
        log.exception("the 500 page could not be rendered")
        return defaults.server_error(request)
    return HttpResponseServerError(html)
