"""Password guessing: the username a failed log-in is counted under, and the answer to a
locked-out log-in (django-axes calls both; see AXES_* in settings; its client address is
armybuilder.ratelimit's, as every limit's)."""

from __future__ import annotations

import hashlib
import math
import time
from typing import cast

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

    wait = getattr(request, "login_backoff", 0)
    if wait:
        seconds = wait
        message = f"Too many failed log-ins for this account: try again in {wait} second{'s' if wait != 1 else ''}."
    else:
        minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
        seconds = minutes * 60
        message = f"Too many failed log-ins from this address: try again in {minutes} minutes."
    if request.path.startswith("/api/"):
        return JsonResponse({"detail": message}, status=429, headers={"Retry-After": str(seconds)})
    response = render(request, "registration/locked_out.html", {"message": message}, status=429)
    response["Retry-After"] = str(seconds)
    return response


# -- a slower pace for one account, whatever the address -----------------------------------------
# django-axes locks a username only together with the address it is tried from (and an
# address whatever it tries), so a stranger cannot lock someone else out. Guesses at one
# account from many addresses are slowed instead: after AXES_FAILURE_LIMIT failures each
# further try must wait 1 s, then 2, 4, … up to a minute after the last failure; a try
# sooner is refused unread (not counted), and the owner gets in once the wait is over.
MAX_WAIT = 60


def now() -> float:
    return time.time()


def _backoff_key(username: str) -> str:
    return f"login-backoff:{hashlib.sha256(username.lower().encode()).hexdigest()}"


def backoff_wait(username: str | None) -> int:
    """Seconds the account must wait before its next log-in is tried (0: none)."""
    from django.conf import settings
    from django.core.cache import cache

    if not username:
        return 0
    failures, last = cache.get(_backoff_key(username), (0, 0.0))
    extra = failures - settings.AXES_FAILURE_LIMIT
    if extra < 0:
        return 0
    wait = min(MAX_WAIT, 2**extra) - (now() - last)
    return max(0, math.ceil(wait))


def backoff_failed(sender, credentials: dict, request: HttpRequest | None = None, **kwargs) -> None:
    """A failed log-in (django's user_login_failed): counted for its username, unless it
    was refused unread (its wait, or a lockout)."""
    from django.conf import settings
    from django.core.cache import cache

    username = credentials.get("username") if isinstance(credentials, dict) else None
    refused_unread = getattr(request, "login_backoff", 0) or getattr(request, "axes_locked_out", False)
    if not isinstance(username, str) or not username or refused_unread:
        return
    key = _backoff_key(username[:255])
    failures, _last = cache.get(key, (0, 0.0))
    cache.set(key, (failures + 1, now()), timeout=int(settings.AXES_COOLOFF_TIME.total_seconds()))


def backoff_succeeded(sender, request: HttpRequest, user, **kwargs) -> None:
    from django.core.cache import cache

    cache.delete(_backoff_key(user.get_username()))


class _RefusedRequest(HttpRequest):
    """A request as LoginBackoffBackend leaves it: the wait it was refused for, and the
    mark django-axes reads as a lockout."""

    login_backoff: int
    axes_locked_out: bool


class LoginBackoffBackend:
    """Before the password is read (after django-axes' lockouts): a log-in tried before
    its account's wait is over is refused unread, answered as a lockout with the wait."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None, **kwargs):
        from django.core.exceptions import PermissionDenied

        wait = backoff_wait(username[:255] if isinstance(username, str) else None)
        if wait and request is not None:
            plain = getattr(request, "_request", request)  # (DRF wraps the request)
            for target in (request, plain):
                refused = cast(_RefusedRequest, target)
                refused.login_backoff = wait
                refused.axes_locked_out = True
            raise PermissionDenied
        return None  # (no get_user: it signs no one in, so sessions never name it)
