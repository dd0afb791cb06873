"""The web builder: start a list, build it, keep it. Every action is a plain form post
that redirects back (works without JavaScript); static/builder.js sends the same posts
with an `X-Live` header and swaps in the re-rendered workspace instead."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote, urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from armybuilder import ratelimit
from armybuilder.exports import pdf
from armybuilder.lists import editing, selectors, services
from armybuilder.lists.format import ListFormatError, first_error, parse_list_body
from armybuilder.lists.imports import list_from_file
from armybuilder.lists.models import ArmyList
from armybuilder.lists.visitors import visitor_id
from armybuilder.web import fragments, presenters
from armybuilder.web.fragments import FORM_HEAD
from factions.models import CoreRule, Faction, Ruleset
from factions.selectors import engine_book_get

MAX_PICKS = 1000


def _owner(request: HttpRequest) -> dict[str, Any]:
    user = request.user if request.user.is_authenticated else None
    return {"owner": user, "visitor": "" if user else visitor_id(request, create=True)}


def _own_list(request: HttpRequest, pk: int) -> ArmyList:
    try:
        return selectors.army_list_get(pk=pk, user=request.user, visitor=visitor_id(request))
    except ArmyList.DoesNotExist:
        raise Http404("No such list among yours.") from None


# -- start -----------------------------------------------------------------------------
@require_GET
def start(request: HttpRequest) -> HttpResponse:
    cards = [(ruleset, _article(ruleset.name)) for ruleset in Ruleset.objects.all()]
    return render(request, "builder/start.html", {"cards": cards})


def _article(name: str) -> str:
    """ "an Age of Fantasy list", "a One Page Fantasy list": by the first sound, which for
    these names is the first letter, bar "One" (said "won")."""
    return "an" if name[:1].lower() in "aeiou" and not name.lower().startswith("one") else "a"


@require_http_methods(["GET", "POST"])
def new_list(request: HttpRequest, system: str) -> HttpResponse:
    ruleset = Ruleset.objects.filter(slug=system).first()
    if ruleset is None:
        raise Http404("No such ruleset.")
    factions = list(Faction.objects.filter(ruleset=ruleset).order_by("name"))
    errors: dict[str, str] = {}
    values = {
        "faction": factions[0].slug if len(factions) == 1 else "",
        "points": ruleset.default_points or "",
        "name": "",
    }
    if request.method == "POST" and not ratelimit.allow_visitor_list(request):
        return _too_many_lists(request)
    if request.method == "POST":
        values = {key: request.POST.get(key, "").strip() for key in ("faction", "points", "name")}
        body = {
            "name": values["name"],
            "system": system,
            "faction": values["faction"],
            "points_limit": _int_or_none(values["points"]) if ruleset.uses_points else None,
            "entries": [],
        }
        if ruleset.uses_points and body["points_limit"] is None:
            errors["points"] = "Enter the game size in points, a whole number."
        elif not values["faction"]:
            errors["faction"] = "Pick an army."
        else:
            try:
                data, _handle = parse_list_body(body)
            except ListFormatError as exc:
                errors = {key: first_error(value) for key, value in exc.errors.items()}
                if "points_limit" in errors:
                    errors["points"] = errors.pop("points_limit")
            else:
                army_list = services.army_list_create(data=data, **_owner(request))
                return redirect("builder", pk=army_list.pk)
    return render(
        request,
        "builder/new.html",
        {"ruleset": ruleset, "factions": factions, "errors": errors, "values": values},
        status=400 if errors else 200,
    )


def _too_many_lists(request: HttpRequest) -> HttpResponse:
    message = "Too many new lists from here just now; try again later, or sign up: accounts have more room."
    return HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")


def _int_or_none(text: str) -> int | None:
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


# -- my lists --------------------------------------------------------------------------
@require_GET
def my_lists(request: HttpRequest) -> HttpResponse:
    """The caller's lists, 50 a page, with their stored validations: a fixed number of
    queries however many lists there are."""
    lists = selectors.army_lists_of(user=request.user, visitor=visitor_id(request))
    page = Paginator(lists, 50).get_page(request.GET.get("page"))
    summaries = selectors.army_list_summaries(page.object_list)
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
        for army_list, summary in zip(page.object_list, summaries, strict=True)
    ]
    return render(request, "builder/my_lists.html", {"rows": rows, "page": page})


@require_POST
def import_list(request: HttpRequest) -> HttpResponse:
    upload = request.FILES.get("file")
    if upload is None:
        messages.error(request, "Choose an armylist/1 JSON file to import.")
        return redirect("my-lists")
    if not ratelimit.allow_visitor_list(request):
        return _too_many_lists(request)
    try:
        data, _handle = list_from_file(upload.read())
    except ListFormatError as exc:
        messages.error(request, f"{upload.name} is not a list we can read: {exc}")
        return redirect("my-lists")
    army_list = services.army_list_create(data=data, **_owner(request))
    messages.success(request, f"Imported {army_list.name or 'the list'}.")
    return redirect("builder", pk=army_list.pk)


@require_POST
def clone_list(request: HttpRequest, pk: int) -> HttpResponse:
    copy = services.army_list_clone(army_list=_own_list(request, pk), **_owner(request))
    messages.success(request, f"Made {copy.name}.")
    return redirect("builder", pk=copy.pk)


@require_http_methods(["GET", "POST"])
def delete_list(request: HttpRequest, pk: int) -> HttpResponse:
    army_list = _own_list(request, pk)
    if request.method == "POST":
        services.army_list_delete(army_list=army_list)
        messages.success(request, f"Deleted {army_list.name or 'the list'}.")
        return redirect("my-lists")
    return render(request, "builder/delete.html", {"army_list": army_list})


@require_POST
def copy_shared(request: HttpRequest, key: str) -> HttpResponse:
    try:
        shared = selectors.army_list_by_share_key(key=key)
    except ArmyList.DoesNotExist:
        raise Http404("No list has this share link.") from None
    copy = services.army_list_clone(army_list=shared, **_owner(request))
    messages.success(request, "Copied to your lists.")
    return redirect("builder", pk=copy.pk)


# -- the builder -----------------------------------------------------------------------
def builder_context(request: HttpRequest, army_list: ArmyList, selected: str | None) -> dict[str, Any]:
    validation, current_version = selectors.army_list_state(army_list)
    ruleset = Ruleset.objects.get(slug=army_list.system)
    core = {name: summary for name, summary in CoreRule.objects.filter(ruleset=ruleset).values_list("name", "summary")}
    book = engine_ruleset = None
    if current_version is not None:
        book, engine_ruleset = engine_book_get(system=army_list.system, slug=army_list.faction)
    entries = presenters.entry_views(validation, book, engine_ruleset, core) if book else []
    chosen = next((e for e in entries if e.id == selected), None)
    context = {
        "army_list": army_list,
        "ruleset": ruleset,
        "rules_url": reverse("rules", args=[army_list.system]),
        "faction_name": book.name if book else army_list.faction,
        "book_changed": current_version != army_list.book_version,
        "validation": validation,
        "entries": entries,
        "selected": chosen,
        "composition": presenters.composition_rows(book, validation) if book else [],
        "models": sum(e.models for e in validation.entries),
        "list_issues": [i for i in validation.issues if i.entry is None],
        "share_url": request.build_absolute_uri(f"/s/{army_list.share_key}/"),
        "pdf_kinds": pdf.PDF_KINDS,
        "form_head": FORM_HEAD,
    }
    context["units_html"] = fragments.units_html(book, engine_ruleset, core, context)
    context["entries_html"] = fragments.entries_html(book, entries, chosen, context)
    return context


@require_GET
def builder(request: HttpRequest, pk: int) -> HttpResponse:
    army_list = _own_list(request, pk)
    context = builder_context(request, army_list, request.GET.get("entry"))
    if request.headers.get("X-Live") == "1":  # the page opening an upgrade editor in place
        return _live(request, "builder/_workspace.html", context)
    return fragments.with_form_heads(request, render(request, "builder/builder.html", context), army_list)


def _live(request: HttpRequest, template: str, context: dict[str, Any], status: int = 200) -> HttpResponse:
    """A re-rendered part of the builder for the page's script, with the list's version
    in a header: the script bases its next change on it, so its own changes never
    conflict with each other."""
    response = fragments.with_form_heads(
        request, render(request, template, context, status=status), context["army_list"]
    )
    response["X-List-Version"] = str(context["army_list"].version)
    return response


ACTIONS = {}


def action(name: str):
    def register(fn):
        ACTIONS[name] = fn
        return fn

    return register


@require_POST
def builder_action(request: HttpRequest, pk: int) -> HttpResponse:
    """One change to the list, sent as a form post. Answers with a redirect to the
    builder, or with the re-rendered workspace when the page asked for it (X-Live)."""
    army_list = _own_list(request, pk)
    post = request.POST
    selected = post.get("entry") or None
    handler = ACTIONS.get(post.get("action", ""))
    if handler is None:
        return HttpResponseBadRequest("Unknown action.")
    based_on = _int_or_none(post.get("version", ""))
    status = 200
    try:
        data, selected = handler(army_list.as_armylist(), post, selected)
        if based_on is None:
            raise editing.EditError("The form did not say which version of the list it was made from.")
        checked, _handle = parse_list_body(data)
        army_list = services.army_list_update(army_list=army_list, data=checked, based_on=based_on)
    except services.VersionConflict as conflict:
        army_list.refresh_from_db()
        messages.warning(
            request,
            f"This list was changed elsewhere (it is now at version {conflict.current}); "
            "your last change was not applied. Here is the list as it is now.",
        )
        status = 409
    except (editing.EditError, ListFormatError) as exc:
        messages.error(request, f"That change could not be made: {exc}")
        status = 400
    if request.headers.get("X-Live") == "1":
        return _live(request, "builder/_workspace.html", builder_context(request, army_list, selected), status)
    url = reverse("builder", args=[army_list.pk])
    if selected not in {entry["id"] for entry in army_list.entries}:
        return redirect(url)
    query = urlencode({"entry": selected})
    return redirect(f"{url}?{query}#entry-{quote(selected)}")


@action("add")
def _add(data, post, selected):
    data["entries"], new_id = editing.add_entry(data["entries"], post.get("unit", ""))
    return data, new_id


@action("remove")
def _remove(data, post, selected):
    data["entries"] = editing.remove_entry(data["entries"], post.get("entry", ""))
    return data, None


@action("duplicate")
def _duplicate(data, post, selected):
    data["entries"], new_id = editing.duplicate_entry(data["entries"], post.get("entry", ""))
    return data, new_id


@action("rename")
def _rename(data, post, selected):
    data["entries"] = editing.rename_entry(data["entries"], post.get("entry", ""), post.get("name", ""))
    return data, selected


@action("move")
def _move(data, post, selected):
    step = -1 if post.get("step") == "up" else 1
    data["entries"] = editing.move_entry(data["entries"], post.get("entry", ""), step)
    return data, selected


@action("combine")
def _combine(data, post, selected):
    data["entries"] = editing.set_combined(data["entries"], post.get("entry", ""), post.get("combined") == "1")
    return data, selected


@action("join")
def _join(data, post, selected):
    target = post.get("target") or None
    data["entries"] = editing.set_joined(data["entries"], post.get("entry", ""), target)
    return data, selected


@action("options")
def _options(data, post, selected):
    """The whole upgrade form of one entry; a +/- button adds its step to one option.

    With `partial` (the page's script), only what the player just touched is sent:
    `set` fields ("option=picks") and a `bump`, applied to the picks the list has now,
    so quick clicks add up even before the page has shown the previous one."""
    if post.get("partial") == "1":
        return _options_change(data, post, selected)
    options: dict[str, int] = {}
    for key, value in post.items():
        if key.startswith("o:"):
            options[key[2:]] = _picks(value)
        elif key.startswith("s:") and value:
            options[value] = 1
    for key in post.getlist("c"):  # checkboxes
        options[key] = max(options.get(key, 0), 1)
    bump = post.get("bump", "")
    if bump:
        option_id, _, step = bump.rpartition(":")
        options[option_id] = max(0, options.get(option_id, 0) + (1 if step == "+1" else -1))
    data["entries"] = editing.set_options(data["entries"], post.get("entry", ""), options)
    return data, selected


def _options_change(data, post, selected):
    entry_id = post.get("entry", "")
    current = next((e for e in data["entries"] if e["id"] == entry_id), None)
    if current is None:
        raise editing.EditError("That unit is no longer in the list.")
    options = dict(current.get("options", {}))
    for change in post.getlist("set"):
        option_id, _, picks = change.rpartition("=")
        options[option_id] = _picks(picks)
    bump = post.get("bump", "")
    if bump:
        option_id, _, step = bump.rpartition(":")
        options[option_id] = max(0, options.get(option_id, 0) + (1 if step == "+1" else -1))
    data["entries"] = editing.set_options(data["entries"], entry_id, options)
    return data, selected


def _picks(value: str) -> int:
    number = _int_or_none(value)
    if number is None or number < 0:
        raise editing.EditError(f'"{value}" is not a number of picks.')
    return min(number, MAX_PICKS)


@action("settings")
def _settings(data, post, selected):
    data["name"] = post.get("name", data["name"]).strip()[:200]
    data["notes"] = post.get("notes", data["notes"])[:5000]
    if data["points_limit"] is not None:
        points = _int_or_none(post.get("points_limit", ""))
        if points is None or points < 1:
            raise editing.EditError("The points limit must be a whole number above 0.")
        data["points_limit"] = points
    if data["system"] == "aof":
        data["force_org"] = post.get("force_org") == "1"
    return data, selected


# -- rules -----------------------------------------------------------------------------
@require_GET
def rules_page(request: HttpRequest, system: str) -> HttpResponse:
    ruleset = Ruleset.objects.prefetch_related("limits", "core_rules").filter(slug=system).first()
    if ruleset is None:
        raise Http404("No such ruleset.")
    rules = [(presenters.rule_anchor(rule.name), rule) for rule in ruleset.core_rules.all()]
    return render(request, "builder/rules.html", {"ruleset": ruleset, "rules": rules, "limits": ruleset.limits.all()})
