"""Read-only pages."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils.cache import patch_vary_headers
from django.utils.safestring import mark_safe

from armybuilder.armyforge.lists.writing import opens_in_armyforge
from armybuilder.cache import remembered, shared_key
from armybuilder.engine import RulesetSpec
from armybuilder.engine.rulesets import policy_or_default
from armybuilder.lists import selectors
from armybuilder.lists.models import ArmyList
from armybuilder.memo import Memo
from armybuilder.web import presenters, printing
from armybuilder.web.fragments import csrf_input
from factions.selectors import core_rule_meanings


def shared_list(request: HttpRequest, key: str) -> HttpResponse:
    """A list by its share link: what an opponent needs (each unit's stats, weapons,
    rules, upgrades and joined hero, the totals and validation, what the rules mean).

    The list part of the page is the same for every reader until the list, its army book
    or its ruleset changes, so it is rendered once per stamp of those (the list's
    version, the content stamps of book and ruleset, and the release stamp of the code)
    and kept in the cache; one query finds the list and that stamp. For a reader who is
    not signed in (most readers of a share link) the whole page is the same but for its
    CSRF token, so this process keeps it ready and only puts the token in. The print
    choices go where the kept list part marks their place (PRINT_MARK): their paper is
    guessed from the reader's Accept-Language, so a ready page is kept per guess."""
    list_id, name, versions = selectors.shared_list_stamp(key=key)
    cache_key = shared_key("shared-body", key, versions)
    paper = printing.request_paper(request)  # the one thing the page takes from the reader's headers
    page = _SharedPage(request, key, name, paper, lambda: _shared_body(cache_key, list_id))
    if request.user.is_authenticated or len(messages.get_messages(request)):
        response = page.render(csrf_input(request))
    else:
        response = HttpResponse(_ready_page((cache_key, request.get_full_path(), paper), page, request))
    patch_vary_headers(response, ["Accept-Language"])
    return response


@dataclass
class _SharedPage:
    """The share page of one list for one reader: the kept list part with the print
    choices put in their place."""

    request: HttpRequest
    key: str
    name: str
    paper: str
    body: Callable[[], str]

    def render(self, csrf_field: str) -> HttpResponse:
        exports = f"/api/shared/{self.key}/export/"
        kept = self.body()
        start = kept.index(PRINT_MARK)
        end = kept.index("-->", start) + 3
        entries = int(kept[start + len(PRINT_MARK) : end - 3])
        choices = render_to_string("_print_choices.html", printing.print_context(exports, self.paper, entries=entries))
        body = mark_safe(kept[:start] + choices + kept[end:])
        context = {"army_list": {"name": self.name, "share_key": self.key}, "body": body, "csrf_field": csrf_field}
        return render(self.request, "shared_list.html", context)


def _ready_page(page_key: tuple[str, str, str], page: _SharedPage, request: HttpRequest) -> bytes:
    """The page as this process keeps it ready for readers not signed in, with the
    reader's CSRF token put in."""
    ready = READY_PAGES.fetch(page_key, lambda: page.render(CSRF_MARK).content)
    return ready.replace(CSRF_MARK.encode(), csrf_input(request).encode())


def _shared_body(cache_key: str, list_id: int) -> str:
    def render_body() -> str:
        return render_to_string("shared_list_body.html", _shared_body_context(ArmyList.objects.get(pk=list_id)))

    return mark_safe(remembered(cache_key, render_body, seconds=3600))


CSRF_MARK = mark_safe("<!--csrf-->")
# In the kept list part: where the print choices go, with the list's number of entries
# ("<!--print-choices:12-->"), which says whether its cards and roster print.
PRINT_MARK = "<!--print-choices:"
# Share pages ready for readers not signed in, by (kept list part's key, address, paper).
READY_PAGES: Memo[tuple[str, str, str], bytes] = Memo("web: share pages ready to serve", 256)


def _shared_body_context(army_list: ArmyList) -> dict[str, Any]:
    """Everything the share page's list part shows, in a fixed number of queries."""
    state = selectors.army_list_load(army_list)
    book, validation, ruleset = state.book, state.validation, state.ruleset
    context = {
        "army_list": army_list,
        "validation": validation,
        "ruleset": ruleset,
        "faction_name": state.faction_name,
        "book_gone": state.book_gone,
        "book_changed": state.book_changed,
        "book_latest": state.current_book_version,
        "models": state.models,
        "exports": _export_links(army_list.share_key, armyforge=opens_in_armyforge(book)),
        "arena": policy_or_default(ruleset.family).profile_weapons,  # its weapons have a profile, not attacks
    }
    if book is None:
        return {**context, "units": [], "glossary": [], "spells": ()}
    assert isinstance(ruleset, RulesetSpec)  # with its book, a list is read against the whole ruleset
    core = core_rule_meanings(system=army_list.system)
    return {
        **context,
        "units": presenters.shared_units(validation, book, ruleset, core),
        "glossary": presenters.rule_glossary(validation, book, ruleset, core),
        "spells": presenters.spells_cast(validation, book),
    }


def _export_links(key: str, *, armyforge: bool) -> list[tuple[str, str]]:
    """(label, address) of the list's files but its PDFs (the print choices give those),
    as anyone with the link gets them; the Army Forge file for a list of a book that came
    from Army Forge."""
    base = f"/api/shared/{key}/export/"
    links = [("Text", base + "text"), ("JSON", base + "json")]
    return [*links, ("Army Forge file", base + "armyforge")] if armyforge else links
