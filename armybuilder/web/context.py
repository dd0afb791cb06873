"""Template context shared by every page."""

from django.http import HttpRequest
from django.urls import reverse

from armybuilder.memo import memoize

NAV = ("start", "my-lists", "events", "login", "logout", "signup", "account", "password_change", "password_reset")


@memoize("web: the header's links", 1)
def site_links() -> dict[str, str]:
    """The header's links. Pages rendered without a request (the 500 and 503 pages) pass
    them in themselves: they need no database and no session."""
    # The site's own links never change while it runs: reverse them once, not on every
    # page (the share page is served thousands of times a minute in a tournament).
    return {name.replace("-", "_"): reverse(name) for name in NAV}


def nav(request: HttpRequest) -> dict[str, dict[str, str]]:
    return {"nav": site_links()}
