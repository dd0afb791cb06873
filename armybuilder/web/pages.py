"""Read-only pages."""

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from armybuilder.exports import pdf
from armybuilder.lists import selectors
from armybuilder.lists.models import ArmyList
from factions.models import Ruleset


def shared_list(request: HttpRequest, key: str) -> HttpResponse:
    """A list by its share link: units, loadouts, costs and validation."""
    try:
        army_list = selectors.army_list_by_share_key(key=key)
    except ArmyList.DoesNotExist:
        raise Http404("No list has this share link (it may have been replaced by a new one).") from None
    validation, current_version = selectors.army_list_state(army_list)
    ruleset = Ruleset.objects.filter(slug=army_list.system).first()
    return render(
        request,
        "shared_list.html",
        {
            "army_list": army_list,
            "validation": validation,
            "ruleset": ruleset,
            "faction_name": selectors.faction_name(system=army_list.system, slug=army_list.faction),
            "book_changed": current_version != army_list.book_version,
            "pdf_kinds": pdf.PDF_KINDS,
        },
    )
