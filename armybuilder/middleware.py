"""Request-level safety nets: oversized bodies, a database that has gone away, a page (not
an empty answer) for a method an address does not take, and the 404 of a lookup that
found nothing."""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import DatabaseError, InterfaceError, OperationalError, connections
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.template.loader import render_to_string

from armybuilder import errors
from armybuilder.missing import Missing
from armybuilder.web.context import site_links
from factions.armybook import json_has_nul

log = logging.getLogger(__name__)


def _wants_json(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def _has_nul(request: HttpRequest) -> bool:
    """NUL characters anywhere a string could come from: the path, the query, a JSON body
    (any spelling of its content type), form fields and upload names (urlencoded or
    multipart). PostgreSQL text cannot hold them, so they are refused at the door rather
    than failing deep inside a query. The text "%00" in JSON is just text, and passes."""
    if "\x00" in request.path or _nul_in(request.GET):
        return True
    if request.method not in ("POST", "PUT", "PATCH"):
        return False
    content_type = request.META.get("CONTENT_TYPE", "").lower()
    if content_type.startswith("application/json") or "+json" in content_type.split(";")[0]:
        return json_has_nul(request.body)
    if content_type.startswith(("application/x-www-form-urlencoded", "multipart/form-data")):
        files = []
        if content_type.startswith("multipart/"):  # each field's last upload, as request.FILES[field] gives
            files = [uploads[-1].name or "" for _field, uploads in request.FILES.lists()]
        return _nul_in(request.POST) or any("\x00" in name for name in files)
    return False


def _nul_in(query) -> bool:
    return any("\x00" in key or any("\x00" in value for value in values) for key, values in query.lists())


def _refuse(request: HttpRequest, status: int, message: str) -> HttpResponse:
    """JSON for the API (and clients that ask for it); the site's error page otherwise."""
    if _wants_json(request):
        return JsonResponse({"detail": message}, status=status)
    return errors.error_page(request, status, message)


class RequestLimitsMiddleware:
    """A body over MAX_REQUEST_BODY is answered 413 before anything reads it; text with
    NUL characters (which no field accepts) is a 400."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.MAX_REQUEST_BODY
        if length > limit:
            return _refuse(
                request, 413, f"The request body is {length} bytes; the most this site accepts is {limit} bytes."
            )
        try:
            nul = _has_nul(request)
        except MultiPartParserError as exc:
            return _refuse(request, 400, f"The multipart body could not be read: {exc}")
        if nul:
            return _refuse(request, 400, "The request contains a NUL character (\\u0000), which no field accepts.")
        return self.get_response(request)


class DatabaseUnavailableMiddleware:
    """If the database goes away mid-request, answer a clean 503 (JSON for the API, a
    page otherwise) instead of a 500, and drop the broken connection so that the next
    request opens a fresh one. Nothing is half-saved: every save is one transaction."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, OperationalError | InterfaceError) and not _lost_connection(exception):
            return None
        log.warning("database unavailable: %s", exception)
        for connection in connections.all(initialized_only=True):
            if connection.in_atomic_block:
                continue  # (only inside a test's transaction: requests are not wrapped in one)
            try:
                connection.close()
            except DatabaseError:
                pass
        message = "The database is not answering just now. Nothing was lost; please try again in a moment."
        response: HttpResponse
        if _wants_json(request):
            response = JsonResponse({"detail": message}, status=503)
        else:
            page = render_to_string("503.html", {"message": message, "nav": site_links()})
            response = HttpResponse(page, status=503)
        response["Retry-After"] = "5"
        return response


def _lost_connection(exception: Exception) -> bool:
    cause = exception.__cause__
    return isinstance(cause, OperationalError | InterfaceError)


class NotAllowedPageMiddleware:
    """A page's address asked with a method it does not take (`require_POST` and the
    like answer an empty 405: a form's address opened directly, say) answers the site's
    405 page instead, keeping the Allow header. The API's 405s are its own JSON."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if not isinstance(response, HttpResponseNotAllowed) or _wants_json(request):
            return response
        page = errors.error_page(request, 405)
        page["Allow"] = response["Allow"]
        return page


# No inline script or style, nothing from elsewhere: what a stored XSS would need is not
# allowed to run. The API's Swagger page starts itself with an inline script, so it alone
# may run one.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
DOCS_POLICY = CONTENT_SECURITY_POLICY.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'").replace(
    "style-src 'self'", "style-src 'self' 'unsafe-inline'"
)


class ContentSecurityPolicyMiddleware:
    """Sets the Content-Security-Policy of every response that has none."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response:
            docs = request.path.startswith("/api/docs/")
            response["Content-Security-Policy"] = DOCS_POLICY if docs else CONTENT_SECURITY_POLICY
        return response


class MissingMiddleware:
    """A page whose lookup found nothing (a selector's Missing) is the site's 404, as an
    Http404 is: the page says what is missing in its own words (errors.MISSING). The API
    answers its own (api/exceptions.py)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if isinstance(exception, Missing):
            return errors.page_not_found(request, exception)
        return None
