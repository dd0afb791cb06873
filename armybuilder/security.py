"""Password guessing: the username a failed log-in is counted under, and the answer to a
locked-out log-in (django-axes calls both; see AXES_* in settings; its client address is
armybuilder.ratelimit's, as every limit's); an account's slower pace for guesses from
anywhere, and the device cookie that spares a browser its owner signed in from."""

from __future__ import annotations

import hashlib
import math
import secrets
import time
from collections.abc import Callable
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
# A browser holding a device cookie for the account (below) is spared that wait.
MAX_WAIT = 60


def now() -> float:
    return time.time()


def _backoff_key(username: str) -> str:
    return f"login-backoff:{hashlib.sha256(username.lower().encode()).hexdigest()}"


def backoff_wait(username: str | None) -> int:
    """Seconds the account must wait before its next log-in from an untrusted client is
    tried (0: none)."""
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
    """A failed log-in (django's user_login_failed): counted for its device cookie when it
    came from a trusted client, else for its username; not at all when it was refused
    unread (its wait, or a lockout)."""
    from django.conf import settings
    from django.core.cache import cache

    username = credentials.get("username") if isinstance(credentials, dict) else None
    refused_unread = getattr(request, "login_backoff", 0) or getattr(request, "axes_locked_out", False)
    if not isinstance(username, str) or not username or refused_unread:
        return
    username = username[:255]
    nonce = trusted_device(request, username)
    if nonce:
        _device_failed(nonce)
        return
    key = _backoff_key(username)
    failures, _last = cache.get(key, (0, 0.0))
    cache.set(key, (failures + 1, now()), timeout=int(settings.AXES_COOLOFF_TIME.total_seconds()))


def login_succeeded(request: HttpRequest, username: str) -> None:
    """A log-in that got in, on any path: the counts it was held to start again (the
    account's only when it came from an untrusted client: a trusted one was never held to
    it, so strangers stay slowed), and the response gives its browser a new device cookie."""
    from django.core.cache import cache

    nonce = trusted_device(request, username)
    cache.delete(_device_failures_key(nonce) if nonce else _backoff_key(username))
    cast(_SignedInRequest, request).device_cookie_for = username


def backoff_succeeded(sender, request: HttpRequest, user, **kwargs) -> None:
    """django's user_logged_in (the site's and the admin's log-in forms)."""
    login_succeeded(request, user.get_username())


class _RefusedRequest(HttpRequest):
    """A request as LoginBackoffBackend leaves it: the wait it was refused for, and the
    mark django-axes reads as a lockout."""

    login_backoff: int
    axes_locked_out: bool


class LoginBackoffBackend:
    """Before the password is read (after django-axes' lockouts): a log-in from an
    untrusted client tried before its account's wait is over is refused unread, answered
    as a lockout with the wait."""

    def authenticate(self, request: HttpRequest | None, username: str | None = None, **kwargs):
        from django.core.exceptions import PermissionDenied

        username = username[:255] if isinstance(username, str) else None
        if request is None or trusted_device(request, username):
            return None
        wait = backoff_wait(username)
        if wait:
            plain = getattr(request, "_request", request)  # (DRF wraps the request)
            for target in (request, plain):
                refused = cast(_RefusedRequest, target)
                refused.login_backoff = wait
                refused.axes_locked_out = True
            raise PermissionDenied
        return None  # (no get_user: it signs no one in, so sessions never name it)


# -- device cookies ----------------------------------------------------------------------------
# After OWASP's "Slow down online guessing attacks with device cookies": a log-in that gets in
# leaves its browser a signed cookie naming the account (in lower case, as the pace above
# counts it) and a random nonce. A log-in carrying a valid one for the username it tries
# comes from a trusted client: neither the account's wait nor django-axes' lockouts (which
# a stranger sharing the owner's address could set off) hold it back. Its own failures are
# counted per nonce instead, and after AXES_FAILURE_LIMIT of them the nonce is locked for
# the cool-off time: the cookie is then worth nothing, and its log-ins are a stranger's.
_DEVICE_SALT = "armybuilder.security.device-cookie"


def _device_failures_key(nonce: str) -> str:
    return f"login-device:{nonce}"


def _device_locked_key(nonce: str) -> str:
    return f"login-device-locked:{nonce}"


def device_cookie_value(username: str) -> str:
    """A new device cookie's value for `username`: signed, salted, with a new nonce."""
    from django.core import signing

    return signing.dumps({"user": username.lower(), "nonce": secrets.token_hex(16)}, salt=_DEVICE_SALT)


def trusted_device(request: HttpRequest | None, username: str | None) -> str | None:
    """The nonce of the request's device cookie when it is a trusted client for `username`
    (signed by us, unexpired, for that account, not locked); None otherwise."""
    from django.conf import settings
    from django.core import signing
    from django.core.cache import cache

    value = request.COOKIES.get(settings.DEVICE_COOKIE_NAME) if request is not None else None
    if not value or not username:
        return None
    try:
        cookie = signing.loads(value, salt=_DEVICE_SALT, max_age=settings.DEVICE_COOKIE_AGE)
    except signing.BadSignature:  # (an expired one too)
        return None
    if not isinstance(cookie, dict) or cookie.get("user") != username.lower():
        return None
    nonce = cookie.get("nonce")
    if not isinstance(nonce, str) or cache.get(_device_locked_key(nonce)):
        return None
    return nonce


def _device_failed(nonce: str) -> None:
    """One more failure for a device cookie, counted atomically (guesses sent together
    with a copied cookie are all counted); at the limit its nonce is locked."""
    from django.conf import settings
    from django.core.cache import cache

    cooloff = int(settings.AXES_COOLOFF_TIME.total_seconds())
    key = _device_failures_key(nonce)
    cache.add(key, 0, timeout=cooloff)
    try:
        failures = cache.incr(key)
    except ValueError:  # (expired between the two calls)
        cache.add(key, 1, timeout=cooloff)
        failures = 1
    if failures >= settings.AXES_FAILURE_LIMIT:
        cache.set(_device_locked_key(nonce), True, timeout=cooloff)


def axes_spares(request: HttpRequest, credentials: dict | None = None) -> bool:
    """django-axes' whitelist (AXES_WHITELIST_CALLABLE): a trusted client is neither held
    by its lockouts nor counted in them."""
    return trusted_device(request, login_username(request, credentials)) is not None


class _SignedInRequest(HttpRequest):
    """A request whose log-in got in: the account its response gives a device cookie for."""

    device_cookie_for: str


class DeviceCookieMiddleware:
    """Sets the device cookie on the response to a log-in that got in (login_succeeded)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        from django.conf import settings

        response = self.get_response(request)
        username = getattr(request, "device_cookie_for", None)
        if username:
            response.set_cookie(
                settings.DEVICE_COOKIE_NAME,
                device_cookie_value(username),
                max_age=settings.DEVICE_COOKIE_AGE,
                secure=settings.DEVICE_COOKIE_SECURE,
                httponly=True,
                samesite="Lax",
            )
        return response
