"""The builder page in pieces: rendered only when what they show has changed, and sent to
the page's script only when the page does not have them yet.

The workspace is laid out (`builder/_workspace.html`) from pieces, each an element with an
id: fixed slots (the notices, the tally, the share link, the composition card, the units
to add, the list's title, the event, the issues panel, the settings) and the list's
entries, one piece each, in order. A piece's hash is of its html, so two renders of the
same thing have the same hash. A hero's menu of the units it may join changes whenever
another entry is added, removed, moved or renamed: it is a piece of its own inside its
entry (`inner`), left out of the entry's hash.

An action on a 50-entry list changes one or two entries, the tally and the issues; the
rest is as it was. So the units to add and each entry are kept with the compiled army book
(`Book.memo`, which goes when the book changes: a new version, an admin edit or a ruleset
change builds a new book), under a key made of everything the piece shows: the entry as
saved, its cost, models, label and issues, what it may join, its place in the list,
whether its editor is open. The other slots are small and rendered on every request.

The page reports the hashes of the pieces it shows (`X-Pieces`); a live answer lists every
piece's id and hash in order, with the html of only those the page lacks, and the page
swaps them in, moves the entries it keeps into the new order, drops the rest and then
swaps in the inner pieces sent. Whatever the page holds, it ends up as a full render would
draw it.

Forms: the pieces hold a marker where each form's CSRF token and list version go; those
change with every request. A full page gets them filled in (`with_form_heads`); a live
answer gets the same fields empty, and the page's script fills them from the token it was
given once and the version the answer carries. So a live answer holds no secret unless
it sends a piece marked `secret` (the share link and the event's link are keys), and only
an answer without one is compressed: BREACH guesses a secret from the compressed size of
a response that reflects an attacker's text next to it (a unit's name, the list's notes)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.middleware.gzip import GZipMiddleware
from django.template.loader import render_to_string
from django.utils.cache import patch_vary_headers
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from armybuilder.engine import Book, RulesetSpec
from armybuilder.lists.models import ArmyList
from armybuilder.memo import Memo
from armybuilder.web import presenters

FORM_HEAD = mark_safe("<!--form-head-->")
JOIN_MENU = mark_safe("<!--join-menu-->")
# The forms the buttons of every entry belong to (builder/_entry.html; the first entry holds
# them): (action, step, combined) of each, its id "entry-<action>[-<step>][-<combined>]".
ENTRY_FORMS = (
    ("duplicate", "", ""),
    ("remove", "", ""),
    ("move", "up", ""),
    ("move", "down", ""),
    ("combine", "", "join"),
    ("combine", "", "split"),
)
# A list of more entries draws an entry whole only while its upgrades are open; the others
# name their rules without explaining them and leave out the name field (builder/_entry.html):
# a list holds up to 500 entries, and its page stays under 1 MB.
LONG_LIST = 100
# The most entry pieces a book keeps as its lists last drew them, beside its memo.
DRAWN_KEPT = 5_000
# The most units a hero's menu of those it may join lists on every entry: a longer one is
# drawn only while the hero's upgrades are open (builder/_join.html).
JOIN_MENU_MOST = 60
# The fixed slots: name (its template is builder/_<name>.html), the id of its element, and
# whether it holds a key that gives access to something.
SLOTS = {
    "notices": ("notices", False),
    "tally": ("tally", False),
    "share": ("share", True),
    "composition": ("composition-card", False),
    "title": ("list-title", False),
    "event": ("event-card", True),
    "issues": ("issues-panel", False),
    "settings": ("settings", True),
}


@dataclass(frozen=True)
class Piece:
    """One swappable part of the workspace: the element with this id, as html (with its
    inner pieces in place); the hash is of the html without them."""

    id: str
    html: SafeString
    hash: str
    secret: bool = False
    inner: tuple[Piece, ...] = ()


@dataclass(frozen=True)
class Workspace:
    slots: dict[str, Piece]
    entries: list[Piece]

    @property
    def hashes(self) -> str:
        """What the page holds once it shows this workspace (its script reports them back)."""
        return " ".join(piece.hash for piece in [*self.slots.values(), *self.entries, *self.inner])

    @property
    def inner(self) -> list[Piece]:
        return [inner for entry in self.entries for inner in entry.inner]


def workspace(
    book: Book | None, ruleset: RulesetSpec | None, core: presenters.RulesetRules, context: dict[str, Any]
) -> Workspace:
    slots = {name: _piece(key, f"builder/_{name}.html", context, secret) for name, (key, secret) in SLOTS.items()}
    slots["units"] = units_piece(book, ruleset, core, context)
    return Workspace(slots, entry_pieces(book, context["entries"], context["selected"], context))


def _piece(key: str, template: str, context: dict[str, Any], secret: bool = False) -> Piece:
    html = render_to_string(template, context).strip()
    return Piece(key, mark_safe(html), hashlib.blake2b(html.encode(), digest_size=6).hexdigest(), secret)


def _memo(book: Book | None) -> Memo[Any, Any]:
    """Where the pieces of `book`'s lists are kept (engine/book.py MEMO_KEPT at most, the
    least recently used dropped first); without a book, nowhere that lasts."""
    return book.memo if book is not None else Memo("web: builder pieces of no book", 1)


def units_piece(
    book: Book | None, ruleset: RulesetSpec | None, core: presenters.RulesetRules, context: dict[str, Any]
) -> Piece:
    """The "Add units" list with each unit's profile: the same for every list of a book
    (but for the form's address)."""
    army_list = context["army_list"]
    memo = _memo(book)
    key = ("units", army_list.pk, context["ruleset"].uses_points)

    def make() -> Piece:
        groups = presenters.unit_groups(book, ruleset, core) if book else []
        return _piece("units", "builder/_units.html", {**_base(context), "unit_groups": groups})

    return memo.fetch(key, make)


def entry_pieces(book: Book | None, entries: list, chosen, context: dict[str, Any]) -> list[Piece]:
    """Each entry's article, from the kept copy when nothing it shows has changed. The
    pieces of the list's last render are looked up first, in a plain dictionary: on a list
    of 500 entries, 1,500 lookups in the book's memo (each behind its lock) were a fifth
    of an action."""
    memo, base, pieces = _memo(book), None, []
    lists_drawn, list_id = _lists_drawn(memo), context["army_list"].pk
    last = lists_drawn.get(list_id) or {}
    drawn: dict[Any, Piece] = {}

    def kept(key: Any, make: Callable[[], Piece]) -> Piece:
        piece = last.get(key) or memo.get(key)
        if piece is None:
            piece = memo.set(key, make())
        drawn[key] = piece
        return piece

    long_list = len(entries) > LONG_LIST
    for i, view in enumerate(entries):
        result, is_selected = view.result, chosen is not None and chosen.id == view.id
        whole = is_selected or not long_list
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
            bool(view.join_targets),
            view.can_combine,
            i == 0,
            i == len(entries) - 1,
            is_selected,
            whole,
        )

        def make(view=view, i=i, is_selected=is_selected, whole=whole) -> Piece:
            nonlocal base
            base = base or _base(context)
            values = {**base, "view": view, "first": i == 0, "last": i == len(entries) - 1, "join_menu": JOIN_MENU}
            values.update(entry_forms=ENTRY_FORMS, whole=whole)
            if is_selected:
                values.update(is_selected=True, selected=view, sections=presenters.section_views(view.result))
            return _piece(f"entry-{view.id}", "builder/_entry.html", values)

        piece = kept(key, make)
        if JOIN_MENU in piece.html:
            menu = kept(*_join_piece(view, context, full=is_selected or len(view.join_targets) <= JOIN_MENU_MOST))
            piece = kept((key, menu.hash), partial(_with_menu, piece, menu))
        pieces.append(piece)
    lists_drawn.set(list_id, drawn)
    return pieces


def _lists_drawn(memo: Memo[Any, Any]) -> Memo[int, dict[Any, Piece]]:
    """The entry pieces each list of the book last drew, by list: kept with the book (a
    piece drawn from another book is never found), bounded by the pieces held."""
    return memo.fetch(  # type: ignore[no-any-return]
        ("lists drawn",), lambda: Memo("web: the entry pieces each list last drew", DRAWN_KEPT, weigh=_pieces)
    )


def _pieces(drawn: dict[Any, Piece]) -> int:
    return len(drawn) + 1


def _join_piece(view: presenters.EntryView, context: dict[str, Any], full: bool) -> tuple[Any, Callable[[], Piece]]:
    """A hero's menu of the units it may join, as a key and a way to draw it; `full`, the
    menu itself, else a link that opens the hero's upgrades, where it is (a long menu is
    not drawn for every hero)."""
    entry = view.result.entry
    targets = tuple(view.join_targets) if full else len(view.join_targets)
    key = ("join", context["army_list"].pk, entry.id, entry.joined_to, view.label, full, targets)
    values = {**_base(context), "view": view, "full": full}
    return key, lambda: _piece(f"joining-{entry.id}", "builder/_join.html", values)


def _with_menu(piece: Piece, menu: Piece) -> Piece:
    """A hero's entry with its menu in place, the menu an inner piece of its own."""
    return replace(piece, html=mark_safe(piece.html.replace(JOIN_MENU, menu.html)), inner=(menu,))


def _base(context: dict[str, Any]) -> dict[str, Any]:
    """What every kept piece may use: the list's address, the ruleset, the rules page."""
    return {key: context[key] for key in ("army_list", "ruleset", "rules_url", "form_head")}


def _hidden(name: str, value: int | str) -> SafeString:
    return format_html('<input type="hidden" name="{}" value="{}">', name, value)


def _form_head(token: str, version: int | str) -> SafeString:
    return _hidden("csrfmiddlewaretoken", token) + _hidden("version", version)


def csrf_input(request: HttpRequest) -> SafeString:
    """The form field carrying this request's CSRF token (what {% csrf_token %} writes)."""
    return _hidden("csrfmiddlewaretoken", get_token(request))


def with_form_heads(request: HttpRequest, response: HttpResponse, army_list: ArmyList) -> HttpResponse:
    """Put this request's CSRF token and the list's version into every form."""
    head = _form_head(get_token(request), army_list.version)
    response.content = response.content.replace(FORM_HEAD.encode(), head.encode())
    return response


def live_answer(request: HttpRequest, space: Workspace, army_list: ArmyList, status: int = 200) -> HttpResponse:
    """The workspace for the page's script: every piece's id and hash in order, and the
    html of those whose hash the page did not report (`X-Pieces`), with empty form
    heads. Compressed when no piece sent holds a key (see the module's docstring)."""
    have = set(request.headers.get("X-Pieces", "").split())
    sent = [piece for piece in [*space.slots.values(), *space.entries] if piece.hash not in have]
    sent += [inner for entry in space.entries if entry.hash in have for inner in entry.inner if inner.hash not in have]
    empty_head = _form_head("", "")
    answer = {
        "version": army_list.version,
        "slots": [[piece.id, piece.hash] for piece in space.slots.values()],
        "entries": [[piece.id, piece.hash] for piece in space.entries],
        "inner": [[piece.id, piece.hash] for piece in space.inner],
        "html": {piece.id: piece.html.replace(FORM_HEAD, empty_head) for piece in sent},
    }
    body = json.dumps(answer, ensure_ascii=False, separators=(",", ":"))
    response = HttpResponse(body, status=status, content_type="application/json")
    response["X-List-Version"] = str(army_list.version)
    patch_vary_headers(response, ["X-Live", "X-Pieces"])
    if any(piece.secret for piece in sent):
        return response
    GZipMiddleware(lambda request: response).process_response(request, response)  # compresses it in place
    return response
