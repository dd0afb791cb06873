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


def shared_list(request: HttpRequest, key: str) -> HttpResponse:
    """A list by its share link: units, loadouts, costs and validation.

    The list part of the page is the same for every reader until the list or its army
    book changes, so it is rendered once per (list version, book version and revisions)
    and kept in the cache; one query finds the list and that stamp."""
    stamp = selectors.shared_list_stamp(key=key)
    if stamp is None:
        raise Http404("No list has this share link (it may have been replaced by a new one).")
    list_id, name, versions = stamp
    cache_key = f"shared-body:{key}:{versions}"
    body = cache.get(cache_key)
    if body is None:
        army_list = ArmyList.objects.get(pk=list_id)
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
        cache.set(cache_key, body, timeout=3600)
    return render(request, "shared_list.html", {"army_list": {"name": name, "share_key": key}, "body": mark_safe(body)})
