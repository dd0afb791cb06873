"""The builder page in pieces, each rendered only when what it shows has changed.

An action on a 50-entry list changes one or two entries, the totals and the issues;
rendering the whole workspace again was most of its server time. So the units to add
and each entry are rendered on their own and kept with the compiled army book
(`Book.memo`, which goes when the book changes: a new version, an admin edit or a
ruleset change builds a new book), under a key made of everything the piece shows:
the entry as saved, its cost, models, label and issues, what it may join, its place
in the list, whether its editor is open. Everything else (totals, issues panel, list
settings) is rendered on every request.

The kept pieces hold a marker where each form's CSRF token and list version go; those
change with every request and are put in when the page is answered
(`with_form_heads`)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from armybuilder.engine import Book, RulesetSpec
from armybuilder.lists.models import ArmyList
from armybuilder.web import presenters

FORM_HEAD = mark_safe("<!--form-head-->")
MEMO_SIZE = 5_000  # pieces kept per book at most (a few KB each; all dropped when full)


def _memo(book: Book | None) -> dict:
    if book is None:
        return {}
    if len(book.memo) > MEMO_SIZE:
        book.memo.clear()
    return book.memo


def units_html(book: Book | None, ruleset: RulesetSpec | None, core: dict[str, str], context: dict[str, Any]) -> str:
    """The "Add units" list with each unit's profile: the same for every list of a book
    (but for the form's address)."""
    army_list = context["army_list"]
    memo = _memo(book)
    key = ("units", army_list.pk, context["ruleset"].uses_points)
    html = memo.get(key)
    if html is None:
        groups = presenters.unit_groups(book, ruleset, core) if book else []
        html = render_to_string("builder/_units.html", {**_base(context), "unit_groups": groups})
        memo[key] = html
    return mark_safe(html)


def entries_html(book: Book | None, entries: list, chosen, context: dict[str, Any]) -> list[SafeString]:
    """Each entry's article, from the kept copy when nothing it shows has changed."""
    memo, base, pieces = _memo(book), None, []
    for i, view in enumerate(entries):
        result, is_selected = view.result, chosen is not None and chosen.id == view.id
        key = (
            "entry",
            context["army_list"].pk,
            repr(result.entry),
            view.label,
            view.joined_by,
            result.cost,
            result.models,
            tuple((issue.code, issue.severity, issue.message) for issue in view.issues),
            view.joined_label,
            tuple(view.join_targets),
            view.can_combine,
            i == 0,
            i == len(entries) - 1,
            is_selected,
        )
        html = memo.get(key)
        if html is None:
            base = base or _base(context)
            piece = {**base, "view": view, "first": i == 0, "last": i == len(entries) - 1, "is_selected": is_selected}
            if is_selected:
                piece["selected"], piece["sections"] = view, presenters.section_views(result)
            html = render_to_string("builder/_entry.html", piece)
            memo[key] = html
        pieces.append(mark_safe(html))
    return pieces


def _base(context: dict[str, Any]) -> dict[str, Any]:
    """What every piece may use: the list's address, the ruleset, the rules page."""
    return {key: context[key] for key in ("army_list", "ruleset", "rules_url", "form_head")}


def csrf_input(request: HttpRequest) -> SafeString:
    """The form field carrying this request's CSRF token (what {% csrf_token %} writes)."""
    return format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', get_token(request))


def with_form_heads(request: HttpRequest, response: HttpResponse, army_list: ArmyList) -> HttpResponse:
    """Put this request's CSRF token and the list's version into every form."""
    head = csrf_input(request) + format_html('<input type="hidden" name="version" value="{}">', army_list.version)
    response.content = response.content.replace(FORM_HEAD.encode(), head.encode())
    return response
