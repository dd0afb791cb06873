"""Read-only pages."""

from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from armybuilder.exports import pdf
from armybuilder.lists import selectors
from armybuilder.lists.models import ArmyList
from factions.models import Ruleset
from factions.selectors import book_handle_get


def shared_list(request: HttpRequest, key: str) -> HttpResponse:
    """A list by its share link: units, loadouts, costs and validation."""
    try:
        army_list = selectors.army_list_by_share_key(key=key)
    except ArmyList.DoesNotExist:
        raise Http404("No list has this share link (it may have been replaced by a new one).") from None
    # The list part of the page is the same for every reader until the list or its army
    # book changes: render it once per list version and book revision.
    handle = book_handle_get(system=army_list.system, slug=army_list.faction)
    book = "-".join(str(part) for part in handle.cache_key) if handle else "none"
    key = f"shared-body:{army_list.share_key}:{army_list.version}:{book}"
    body = cache.get(key)
    if body is None:
        validation, current_version = selectors.army_list_state(army_list)
        body = render_to_string(
            "shared_list_body.html",
            {
                "army_list": army_list,
                "validation": validation,
                "ruleset": Ruleset.objects.filter(slug=army_list.system).first(),
                "faction_name": selectors.faction_name(system=army_list.system, slug=army_list.faction),
                "book_changed": current_version != army_list.book_version,
                "pdf_kinds": pdf.PDF_KINDS,
            },
        )
        cache.set(key, body, timeout=3600)
    return render(request, "shared_list.html", {"army_list": army_list, "body": mark_safe(body)})
