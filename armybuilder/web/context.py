"""Template context shared by every page."""

from functools import cache

from django.http import HttpRequest
from django.urls import reverse

NAV = ("start", "my-lists", "events", "login", "logout", "signup", "account", "password_change", "password_reset")


@cache
def _nav() -> dict[str, str]:
    # The site's own links never change while it runs: reverse them once, not on every
    # page (the share page is served thousands of times a minute in a tournament).
    return {name.replace("-", "_"): reverse(name) for name in NAV}


def nav(request: HttpRequest) -> dict[str, dict[str, str]]:
    return {"nav": _nav()}
