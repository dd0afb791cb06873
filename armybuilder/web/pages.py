"""Read-only pages."""

from collections import OrderedDict
from typing import Any

from django.contrib import messages
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.safestring import mark_safe

from armybuilder.exports import pdf
from armybuilder.lists import selectors
from armybuilder.lists.models import ArmyList
from armybuilder.web import presenters
from armybuilder.web.fragments import csrf_input
from factions.models import CoreRule, Ruleset
from factions.selectors import engine_book_get

SHARE_LAYOUT = 2  # bump when the share page's markup changes, so that cached copies are not served
PDF_LABELS = {"cards.pdf": "Unit cards", "roster.pdf": "Roster", "reference.pdf": "Rules reference"}


def shared_list(request: HttpRequest, key: str) -> HttpResponse:
    """A list by its share link: what an opponent needs (each unit's stats, weapons,
    rules, upgrades and joined hero, the totals and validation, what the rules mean).

    The list part of the page is the same for every reader until the list or its army
    book changes, so it is rendered once per (list version, book version and revisions)
    and kept in the cache; one query finds the list and that stamp. For a reader who is
    not signed in (most readers of a share link) the whole page is the same but for its
    CSRF token, so this process keeps it ready and only puts the token in."""
    stamp = selectors.shared_list_stamp(key=key)
    if stamp is None:
        raise Http404("No list has this share link (it may have been replaced by a new one).")
    list_id, name, versions = stamp
    cache_key = f"shared-body:{SHARE_LAYOUT}:{key}:{versions}"
    context = {"army_list": {"name": name, "share_key": key}, "body": _shared_body(cache_key, list_id)}
    if request.user.is_authenticated or len(messages.get_messages(request)):
        return render(request, "shared_list.html", {**context, "csrf_field": csrf_input(request)})
    page_key = (cache_key, request.get_full_path())
    page = _READY_PAGES.get(page_key)
    if page is None:
        page = render(request, "shared_list.html", {**context, "csrf_field": CSRF_MARK}).content
        _READY_PAGES[page_key] = page
        while len(_READY_PAGES) > READY_PAGES_SIZE:
            _READY_PAGES.popitem(last=False)
    return HttpResponse(page.replace(CSRF_MARK.encode(), csrf_input(request).encode()))


def _shared_body(cache_key: str, list_id: int) -> str:
    body = cache.get(cache_key)
    if body is None:
        army_list = ArmyList.objects.get(pk=list_id)
        body = render_to_string("shared_list_body.html", _shared_body_context(army_list))
        cache.set(cache_key, body, timeout=3600)
    return mark_safe(body)


CSRF_MARK = mark_safe("<!--csrf-->")
READY_PAGES_SIZE = 256
_READY_PAGES: OrderedDict[tuple[str, str], bytes] = OrderedDict()


def _shared_body_context(army_list: ArmyList) -> dict[str, Any]:
    """Everything the share page's list part shows, in a fixed number of queries."""
    validation, current_version = selectors.army_list_state(army_list)
    context = {
        "army_list": army_list,
        "validation": validation,
        "ruleset": Ruleset.objects.filter(slug=army_list.system).first(),
        "book_gone": current_version is None,
        "book_changed": current_version is not None and current_version != army_list.book_version,
        "models": sum(result.models for result in validation.entries),
        "exports": _export_links(army_list.share_key),
        "arena": army_list.system == "aof-arena",  # its weapons have a profile, not attacks
    }
    if current_version is None:
        faction_name = selectors.faction_name(system=army_list.system, slug=army_list.faction)
        return {**context, "faction_name": faction_name, "units": [], "glossary": [], "spells": ()}
    book, ruleset = engine_book_get(system=army_list.system, slug=army_list.faction)
    core = dict(CoreRule.objects.filter(ruleset__slug=army_list.system).values_list("name", "summary"))
    return {
        **context,
        "faction_name": book.name,
        "units": presenters.shared_units(validation, book, ruleset, core),
        "glossary": presenters.rule_glossary(validation, book, ruleset, core),
        "spells": presenters.spells_cast(validation, book),
    }


def _export_links(key: str) -> list[tuple[str, str]]:
    """(label, address) of the list's PDFs and files, as anyone with the link gets them."""
    base = f"/api/shared/{key}/export/"
    links = [(f"{PDF_LABELS.get(kind, kind)} (PDF)", base + kind) for kind in pdf.PDF_KINDS]
    links.insert(1, ("Cards with rules (PDF)", base + "cards.pdf?rules=1"))
    return [*links, ("Text", base + "text"), ("JSON", base + "json")]
