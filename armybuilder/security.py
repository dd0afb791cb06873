"""Password guessing: the username a failed log-in is counted under, and the answer to a
locked-out log-in (django-axes calls both; see AXES_* in settings; its client address is
armybuilder.ratelimit's, as every limit's)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def login_username(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """The username a log-in tried, as the failure records keep it: cut to the column's
    255 characters (no account name is longer than 150), so a long made-up name is
    still counted, not a database error."""
    if credentials:
        username = credentials.get("username")
    else:
        username = getattr(request, "data", request.POST).get("username")
    return username[:255] if isinstance(username, str) else None


def locked_out(request: HttpRequest, credentials: dict | None = None, *args, **kwargs) -> HttpResponse:
    """What a locked-out log-in gets: when it may try again, in words (JSON for the API)."""
    from django.conf import settings
    from django.http import JsonResponse

    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    message = f"Too many failed log-ins for this account or from this address: try again in {minutes} minutes."
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message}, status=429, headers={"Retry-After": str(minutes * 60)})
    response = render(request, "registration/locked_out.html", {"message": message}, status=429)
    response["Retry-After"] = str(minutes * 60)
    return response
