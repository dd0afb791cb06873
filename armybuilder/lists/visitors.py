"""Visitors keep lists without an account: a random id in their session stands in for
the owner until they sign up or log in, when their lists become the user's."""

from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.http import HttpRequest

from armybuilder.lists.services import army_lists_claim, new_visitor_id

SESSION_KEY = "armybuilder_visitor"


def visitor_id(request: HttpRequest, *, create: bool = False) -> str:
    """The visitor id of this browser session ("" if none and not `create`)."""
    session = getattr(request, "session", None)
    if session is None:
        return ""
    visitor = session.get(SESSION_KEY, "")
    if not visitor and create:
        visitor = session[SESSION_KEY] = new_visitor_id()
    return visitor


@receiver(user_logged_in)
def claim_visitor_lists(sender, request: HttpRequest | None, user, **kwargs) -> None:
    if request is not None:
        army_lists_claim(visitor=visitor_id(request), user=user)
