"""The web builder: start a list, build it, keep it. Every action is a plain form post
that redirects back (works without JavaScript); static/builder.js sends the same posts
with an `X-Live` header and swaps in the pieces of the workspace that changed instead
(web/fragments.py). And a ruleset's rules page, with its quick reference PDF."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from armybuilder import downloads, ratelimit
from armybuilder.armyforge.lists.imports import importer
from armybuilder.armyforge.lists.writing import opens_in_armyforge
from armybuilder.engine import Book, RulesetSpec
from armybuilder.engine.limits import units_allowed
from armybuilder.engine.rulesets import has_force_org_choice
from armybuilder.events import selectors as event_selectors
from armybuilder.events.models import EventPack
from armybuilder.lists import selectors, services
from armybuilder.lists.format import ListFormatError
from armybuilder.lists.models import ArmyList
from armybuilder.lists.visitors import list_owner, own_list, own_lists
from armybuilder.web import forms, fragments, presenters, printing, undo
from armybuilder.web.fragments import FORM_HEAD
from factions.models import Faction, Ruleset
from factions.selectors import core_rule_meanings, faction_list, ruleset_get


# -- start -----------------------------------------------------------------------------
@require_GET
def start(request: HttpRequest) -> HttpResponse:
    cards = [(ruleset, _article(ruleset.name)) for ruleset in Ruleset.objects.select_related("base")]
    return render(request, "builder/start.html", {"cards": cards})


def _article(name: str) -> str:
    """ "an Age of Fantasy list", "a One Page Fantasy list": by the first sound, which for
    these names is the first letter, bar "One" (said "won")."""
    return "an" if name[:1].lower() in "aeiou" and not name.lower().startswith("one") else "a"


@require_http_methods(["GET", "POST"])
def new_list(request: HttpRequest, system: str) -> HttpResponse:
    ruleset = ruleset_get(slug=system)
    if request.method == "POST" and not ratelimit.allow_visitor_list(request):
        return _too_many_lists(request)
    factions = list(Faction.objects.filter(ruleset=ruleset).order_by("name"))
    list_owner(request)  # a visitor's id now: the same form sent again comes from the same owner
    form = forms.NewListForm(request.POST or None, ruleset=ruleset, factions=factions)
    if form.is_valid():
        army_list = create_once(request, form)
        if army_list is not None:
            return redirect("builder", pk=army_list.pk)
    context = {"ruleset": ruleset, "factions": factions, "form": form, "once": forms.new_form_key()}
    return render(request, "builder/new.html", context, status=400 if form.errors else 200)


def create_once(request: HttpRequest, form: forms.OnceForm) -> ArmyList | None:
    """The list the form makes (or made already, if it is the same form sent again);
    None, with the problem on the form, if its key made someone else's list."""
    try:
        return services.army_list_create(
            data=form.cleaned_data["list"], form_key=form.cleaned_data["once"], **list_owner(request)
        )
    except services.FormUsedElsewhere:
        form.add_error("once", "This form was already used: reload the page to start another list.")
        return None


def _too_many_lists(request: HttpRequest) -> HttpResponse:
    message = "Too many new lists from here just now; try again later, or sign up: accounts have more room."
    return HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")


# -- my lists --------------------------------------------------------------------------
@require_GET
def my_lists(request: HttpRequest) -> HttpResponse:
    """The caller's lists, 50 a page, with their stored validations: a fixed number of
    queries however many lists there are."""
    page = Paginator(own_lists(request), 50).get_page(request.GET.get("page"))
    shown = list(page.object_list)  # the page's lists, read once for both uses below
    summaries = selectors.army_list_summaries(shown)
    rulesets = {r.slug: r.title for r in Ruleset.objects.all()}
    armies = {
        (system, slug): name for system, slug, name in Faction.objects.values_list("ruleset__slug", "slug", "name")
    }
    rows = [
        {
            "list": army_list,
            "validation": summary.validation,
            "ruleset": rulesets.get(army_list.system, ""),
            "army": armies.get((army_list.system, army_list.faction), army_list.faction),
        }
        for army_list, summary in zip(shown, summaries, strict=True)
    ]
    return render(request, "builder/my_lists.html", {"rows": rows, "page": page})


@require_POST
def import_list(request: HttpRequest) -> HttpResponse:
    if not ratelimit.allow_visitor_list(request):
        return _too_many_lists(request)
    form = forms.ImportForm(request.POST, request.FILES, requester=importer(request))
    if not form.is_valid():
        messages.error(request, form.error_text())
        return redirect("my-lists")
    imported = form.cleaned_data["imported"]
    army_list = services.army_list_create(data=imported.data, **list_owner(request))
    messages.success(request, f"Imported {army_list.name or 'the list'}.")
    for warning in imported.warnings:
        messages.warning(request, warning.message)
    return redirect("builder", pk=army_list.pk)


@require_POST
def clone_list(request: HttpRequest, pk: int) -> HttpResponse:
    copy = services.army_list_clone(army_list=own_list(request, pk), **list_owner(request))
    messages.success(request, f"Made {copy.name}.")
    return redirect("builder", pk=copy.pk)


@require_http_methods(["GET", "POST"])
def delete_list(request: HttpRequest, pk: int) -> HttpResponse:
    army_list = own_list(request, pk)
    if request.method == "POST":
        services.army_list_delete(army_list=army_list)
        messages.success(request, f"Deleted {army_list.name or 'the list'}.")
        return redirect("my-lists")
    return render(request, "builder/delete.html", {"army_list": army_list})


@require_POST
def copy_shared(request: HttpRequest, key: str) -> HttpResponse:
    shared = selectors.army_list_by_share_key(key=key)
    copy = services.army_list_clone(army_list=shared, **list_owner(request))
    messages.success(request, "Copied to your lists.")
    return redirect("builder", pk=copy.pk)


# -- the builder -----------------------------------------------------------------------
def builder_context(request: HttpRequest, army_list: ArmyList, selected: str | None, **extra: Any) -> dict[str, Any]:
    """Everything the builder shows, its workspace in pieces; `extra` too (a form's errors)."""
    state = selectors.army_list_load(army_list)
    book, validation = state.book, state.validation
    engine_ruleset = _engine_ruleset(state)
    core = _core_rules(book, army_list.system)
    entries = presenters.entry_views(validation, book, engine_ruleset, core) if book and engine_ruleset else []
    context = {
        "army_list": army_list,
        "ruleset": state.ruleset,
        "rules_url": reverse("rules", args=[army_list.system]),
        "faction_name": state.faction_name,
        "book_notice": _book_notice(state),
        "book_url": reverse("list-book", args=[army_list.pk]),
        "validation": validation,
        "entries": entries,
        "selected": next((e for e in entries if e.id == selected), None),
        "composition": presenters.composition_rows(book, validation) if book else [],
        **_counts(state),
        **_sharing(request, army_list),
        "armyforge_export": opens_in_armyforge(book),
        "form_head": FORM_HEAD,
        "force_org_choice": has_force_org_choice(state.ruleset.family),
        **_event_context(request, state.event),
        "messages": messages.get_messages(request),
        **extra,
    }
    return context | {"workspace": fragments.workspace(book, engine_ruleset, core, context)}


def _sharing(request: HttpRequest, army_list: ArmyList) -> dict[str, Any]:
    """The list's share link and its print choices."""
    exports, paper = f"/api/lists/{army_list.pk}/export/", printing.request_paper(request)
    return {
        "share_url": request.build_absolute_uri(army_list.share_path),
        **printing.print_context(exports, paper, entries=len(army_list.entries)),
    }


def _counts(state: selectors.ListState) -> dict[str, Any]:
    """What the totals bar counts besides points: the units (against the most the
    ruleset's limits allow at the list's size), the models and the activations."""
    validation, ruleset = state.validation, state.ruleset
    limits = ruleset.limits if isinstance(ruleset, RulesetSpec) else ()
    return {
        "models": state.models,
        "units": sum(1 for result in validation.entries if result.unit is not None),
        "units_allowed": units_allowed(limits, validation.points_limit, force_org=state.army_list.force_org),
        "activations": validation.activations,
    }


def _core_rules(book: Book | None, system: str) -> presenters.RulesetRules:
    """The ruleset's core rules as the pages explain them, kept with the compiled book: it
    is compiled anew when the ruleset's stamp changes, core rules included (factions/stamps.py),
    so an action asks the database for them once per book, not on every change."""
    if book is None:
        return core_rule_meanings(system=system)
    return book.memo.fetch(("core rule meanings", system), lambda: core_rule_meanings(system=system))  # type: ignore[no-any-return]


def _engine_ruleset(state: selectors.ListState) -> RulesetSpec | None:
    """The ruleset the list's book is read against; None when the book is gone."""
    if state.book is None:
        return None
    assert isinstance(state.ruleset, RulesetSpec)  # with its book, a list is read against the whole ruleset
    return state.ruleset


def _book_notice(state: selectors.ListState) -> presenters.BookNotice | None:
    """What the top of the builder says when the list's book is gone, or has a version
    other than the one the list is built on: what moving on would do, from a dry run of
    the same move the button makes (two small queries; nothing when the list is on the
    current version)."""
    army_list, book = state.army_list, state.book
    if book is None:
        words = f'The army book "{army_list.faction}" is no longer in the catalogue: this list cannot be priced.'
        return presenters.BookNotice(words, gone=True)
    if not state.book_changed:
        return None
    current = state.current_book_version or ""
    review = reverse("list-book", args=[army_list.pk]) + "?" + urlencode({"to": current})
    changes = reverse("book-changes", args=[book.system, book.slug])
    changes += "?" + urlencode({"from": army_list.book_version, "to": current})
    if book.version != army_list.book_version:  # the version it was built on is no longer kept
        words = f"{book.name} {army_list.book_version} is no longer kept here: this list is priced with {current}."
        return presenters.BookNotice(words, review_url=review)
    try:
        report = services.army_list_upgrade(army_list=army_list, dry_run=True).report
    except ListFormatError:  # the book changed in the meantime: the next page says how
        return presenters.BookNotice(f"{book.name} {current} is out.", review_url=review, changes_url=changes)
    move = presenters.move_view(report, book.name)
    return presenters.BookNotice(move.headline(), move.details(), review, changes)


def _event_context(request: HttpRequest, pack: EventPack | None) -> dict[str, Any]:
    """The event a list is built for: its name, deadline and rules in words (worked out
    only for a list built for one: a list for no event costs nothing more)."""
    if pack is None:
        return {}
    link = request.build_absolute_uri(pack.path)
    return {"event": event_selectors.pack_view(pack), "event_open": event_selectors.is_open(pack), "event_link": link}


@require_GET
def builder(request: HttpRequest, pk: int) -> HttpResponse:
    army_list = own_list(request, pk)
    context = builder_context(request, army_list, request.GET.get("entry"))
    if request.headers.get("X-Live") == "1":  # the page opening an upgrade editor in place
        return _live(request, context)
    response = fragments.with_form_heads(request, render(request, "builder/builder.html", context), army_list)
    patch_vary_headers(response, ["Accept-Language"])  # the print choices' paper
    return response


def _live(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    """The pieces of the builder the page lacks, for its script, with the list's version
    in a header: the script bases its next change on it, so its own changes never
    conflict with each other."""
    return fragments.live_answer(request, context["workspace"], context["army_list"], status)


@require_POST
def builder_action(request: HttpRequest, pk: int) -> HttpResponse:
    """One change to the list, sent as a form post. Answers with a redirect to the
    builder, or with the pieces of the workspace that changed when the page asked (X-Live);
    a change that cannot be made, or was made from an old version, leaves a message."""
    army_list = own_list(request, pk)
    form = forms.action_form(request.POST, army_list.as_armylist(), list_id=pk, undone=undo.used(request))
    if form.has_error("action"):
        return HttpResponseBadRequest(forms.UNKNOWN_ACTION)
    if form.is_valid():
        selected = form.cleaned_data["selected"]
        army_list, status = _save(request, army_list, form.cleaned_data)
        if status == 200:
            undo.confirm(request, army_list, form.cleaned_data)
            if form.cleaned_data["action"] == "add" and not _has_upgrades(army_list, selected):
                selected = None  # nothing to choose: no editor opens, the units to add stay in view
    else:
        selected, status = request.POST.get("entry") or None, 400
        messages.error(request, f"That change could not be made: {form.error_text()}")
    if request.headers.get("X-Live") == "1":
        return _live(request, builder_context(request, army_list, selected), status)
    return _back_to_builder(army_list, selected)


def _save(request: HttpRequest, army_list: ArmyList, cleaned: dict[str, Any]) -> tuple[ArmyList, int]:
    """The list saved with the change (200); as it is when an Undo's key was taken
    already (400) or the list has moved on since the version the change was made from
    (409), with a message."""
    if not undo.claim(cleaned.get("undo")):
        messages.error(request, f"That change could not be made: {undo.USED_ALREADY}")
        return army_list, 400
    try:
        return services.army_list_update(army_list=army_list, data=cleaned["list"], based_on=cleaned["version"]), 200
    except services.VersionConflict as conflict:
        undo.release(cleaned.get("undo"))
        army_list.refresh_from_db()
        messages.warning(
            request,
            f"This list was changed elsewhere (it is now at version {conflict.current}); "
            "your last change was not applied. Here is the list as it is now.",
        )
        return army_list, 409


def _has_upgrades(army_list: ArmyList, entry_id: str | None) -> bool:
    """Whether the entry's unit offers any upgrade (the list as saved, its book loaded)."""
    state = selectors.army_list_load(army_list)
    result = next((r for r in state.validation.entries if r.entry.id == entry_id), None)
    return result is None or result.unit is None or bool(result.unit.options)


def _back_to_builder(army_list: ArmyList, selected: str | None) -> HttpResponse:
    """A redirect to the builder, at the entry shown when it is still in the list."""
    url = reverse("builder", args=[army_list.pk])
    if selected is None or selected not in {entry["id"] for entry in army_list.entries}:
        return redirect(url)
    query = urlencode({"entry": selected})
    return redirect(f"{url}?{query}#entry-{quote(selected)}")


# -- moving a list to another version of its book ------------------------------------------
@require_GET
def list_book(request: HttpRequest, pk: int) -> HttpResponse:
    """What moving the list to another version of its book (`?to=`, the current one by
    default) does, before anything changes: each unit's cost before and after, the
    options dropped and the units removed; the button that moves it; the other versions."""
    army_list = own_list(request, pk)
    book = selectors.army_list_book(army_list=army_list)
    form = forms.BookVersionForm(request.GET, book=book, faction=army_list.faction)
    context = {"army_list": army_list, "book": book, "form": form, "selected": army_list.book_version}
    if form.is_valid():
        context["selected"] = to = form.cleaned_data["to"]
        if to != army_list.book_version:
            context.update(_move_context(army_list, form.cleaned_data["book"], to))
    return render(request, "builder/book.html", context, status=400 if form.errors else 200)


def _move_context(army_list: ArmyList, book: selectors.ListBook, to: str) -> dict[str, Any]:
    """The review of moving the list to version `to`: a dry run of the move its button
    makes, and a link to what changed in the book between the two versions."""
    report = services.army_list_upgrade(army_list=army_list, book_version=to, dry_run=True).report
    newer = book.is_newer(to)
    context = {"move": presenters.move_view(report, book.name), "newer": newer}
    if army_list.book_version in book.held:
        old, new = (army_list.book_version, to) if newer else (to, army_list.book_version)
        query = urlencode({"from": old, "to": new})
        url = reverse("book-changes", args=[book.system, book.slug])
        context.update(changes_url=f"{url}?{query}", changes_from=old, changes_to=new)
    return context


@require_POST
def list_book_move(request: HttpRequest, pk: int) -> HttpResponse:
    """Move the list to a version of its book, from the list version the review showed:
    a list changed since is not moved, and the review shows what moving it does now."""
    army_list = own_list(request, pk)
    book = selectors.army_list_book(army_list=army_list)
    form = forms.BookMoveForm(request.POST, book=book, faction=army_list.faction)
    if not form.is_valid():
        messages.error(request, f"The list was not moved: {form.error_text()}")
        return redirect("builder", pk=pk)
    to, based_on = form.cleaned_data["to"], form.cleaned_data["version"]
    try:
        moved = services.army_list_upgrade(army_list=army_list, book_version=to, based_on=based_on)
    except services.VersionConflict as conflict:
        messages.warning(request, presenters.move_conflict_words(conflict.current))
        return redirect(reverse("list-book", args=[pk]) + "?" + urlencode({"to": to}))
    except ListFormatError as error:
        messages.error(request, f"The list was not moved: {error}")
        return redirect("builder", pk=pk)
    messages.success(request, presenters.move_view(moved.report, form.cleaned_data["book"].name).done())
    return redirect("builder", pk=pk)


# -- rules -----------------------------------------------------------------------------
@require_GET
def rules_page(request: HttpRequest, system: str) -> HttpResponse:
    ruleset = ruleset_get(slug=system)
    rules = [(presenters.rule_anchor(rule.name), rule) for rule in ruleset.core_rules.all()]
    books = faction_list(system=system)
    context = {"ruleset": ruleset, "rules": rules, "limits": ruleset.limits.all(), "books": books}
    return render(request, "builder/rules.html", context)


def ruleset_reference_pdf(request: HttpRequest, system: str) -> HttpResponse:
    """The one-page quick reference of a ruleset (`?paper=letter`)."""
    return downloads.ruleset_reference_response(ruleset_get(slug=system), request.GET.dict())
