"""Visitors keep lists without an account: a random id in their session stands in for
the owner until they sign up or log in, when their lists become the user's."""

from typing import Any

from django.contrib import messages
from django.contrib.auth.signals import user_logged_in
from django.db.models import QuerySet
from django.dispatch import receiver
from django.http import HttpRequest

from armybuilder.lists.models import ArmyList
from armybuilder.lists.selectors import army_list_get, army_lists_of
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


def list_owner(request: HttpRequest) -> dict[str, Any]:
    """Whose a new list is: the signed-in user's, or this browser's visitor id (made now
    if the visitor has none yet). Keyword arguments for the list services."""
    user = request.user if request.user.is_authenticated else None
    return {"owner": user, "visitor": "" if user else visitor_id(request, create=True)}


def own_lists(request: HttpRequest) -> QuerySet[ArmyList]:
    """The caller's lists: the signed-in user's, or this browser's as a visitor."""
    return army_lists_of(user=request.user, visitor=visitor_id(request))


def own_list(request: HttpRequest, pk: int) -> ArmyList:
    """The caller's list; Missing for anyone else's too (a 404 to the caller,
    so that nothing tells a stranger the list exists)."""
    return army_list_get(pk=pk, user=request.user, visitor=visitor_id(request))


@receiver(user_logged_in)
def claim_visitor_lists(sender, request: HttpRequest | None, user, **kwargs) -> None:
    """Give this browser's lists to the user who just signed up or logged in, and say so
    on the page they land on (nothing is said when none moved)."""
    if request is None:
        return
    moved = army_lists_claim(visitor=visitor_id(request), user=user)
    if moved:
        # Silently when there is nowhere to say it: a log-in made outside a page (the test
        # client's force_login) has no messages, and needs none.
        messages.success(request, moved_words(moved), fail_silently=True)


def moved_words(count: int) -> str:
    """ "2 lists from this browser are now in your account." """
    if count == 1:
        return "1 list from this browser is now in your account."
    return f"{count} lists from this browser are now in your account."
