"""Error pages: JSON under /api/ (clients parse the answer whatever went wrong), Django's
own pages elsewhere."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views import defaults

MESSAGES = {
    400: "The request could not be read (a malformed body, or too many fields or files).",
    403: "You may not do that.",
    404: "Not found.",
    500: "Something went wrong on our side; it has been logged. Please try again.",
}


def _api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": MESSAGES[400]}, status=400)
    return defaults.bad_request(request, exception)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": MESSAGES[403]}, status=403)
    return defaults.permission_denied(request, exception)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": MESSAGES[404]}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _api(request):
        return JsonResponse({"detail": MESSAGES[500]}, status=500)
    return defaults.server_error(request)
