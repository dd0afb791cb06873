"""The event pages: the packs a user organises or entered, a new pack, a pack's page (its
rules for anyone with the link; building and submitting lists for a signed-in player;
every submission, checked, for its organiser and staff), its edit and delete pages, and
the builder's "Event" field.

Who may do what is events/selectors.py's (`can_manage`, `submissions_visible`); a pack one
may not manage answers 404, as if it were not there, never 403."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from armybuilder.accounts import services as accounts
from armybuilder.conflicts import VersionConflict
from armybuilder.events import format as pack_format
from armybuilder.events import selectors as event_selectors
from armybuilder.events import services as event_services
from armybuilder.events.models import EventPack
from armybuilder.lists import selectors as list_selectors
from armybuilder.lists import services as list_services
from armybuilder.lists import submissions as list_submissions
from armybuilder.lists.visitors import own_list
from armybuilder.web import builder, event_forms, forms, fragments
from armybuilder.web.accounts import SignedInRequest

CHANGED_MEANWHILE = (
    "The {what} was changed by someone else while you saved: nothing was written. Look at it and make the change again."
)


# -- the packs of a user, a new pack ---------------------------------------------------------
@require_GET
def pack_list(request: HttpRequest) -> HttpResponse:
    """The packs the user organises, then those they entered (staff: every other pack)."""
    packs = list(event_selectors.packs_of(request.user))
    organised = [pack for pack in packs if pack.organiser_id == request.user.pk]
    others = [pack for pack in packs if pack.organiser_id != request.user.pk]
    context = {
        "organised": [(pack, event_selectors.is_open(pack)) for pack in organised],
        "others": [(pack, event_selectors.is_open(pack)) for pack in others],
    }
    return render(request, "events/list.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def pack_new(request: SignedInRequest) -> HttpResponse:
    form = event_forms.PackForm(request.POST or None)
    if form.is_valid():
        try:
            pack = event_services.pack_create(organiser=request.user, data=form.pack_data())
        except pack_format.EventError as exc:
            form.add_event_errors(exc.errors)
        else:
            messages.success(request, f"Made {pack.name}. Share this page's link with the players.")
            return redirect(pack.path)
    return render(request, "events/new.html", {"form": form}, status=400 if form.errors else 200)


# -- a pack's page ---------------------------------------------------------------------------
@require_GET
def pack_page(request: HttpRequest, key: str) -> HttpResponse:
    return _pack_page(request, event_selectors.event_pack_get(key=key))


def _pack_page(request: HttpRequest, pack: EventPack, *, build=None, submit=None, status: int = 200) -> HttpResponse:
    """The pack's rules; a signed-in player's forms and own submission; for its organiser
    and staff every submission, checked (a fixed number of queries however many)."""
    view, user = event_selectors.pack_view(pack), request.user
    armies = view.armies
    rows = list_submissions.submission_rows(pack, list(event_selectors.submissions_visible(pack, user)))
    context = {
        "pack": pack,
        "organiser": accounts.display_name(pack.organiser),
        "rules": view.rules,
        "open": event_selectors.is_open(pack),
        "manage": event_selectors.can_manage(pack, user),
        "rows": rows,
        "own": next((row for row in rows if row.submission.player_id == user.pk), None),
        "armies": armies,
    }
    if user.is_authenticated:
        names = {slug: book.name for slug, book in view.books.items()}
        lists = list(list_selectors.lists_to_submit(pack=pack, user=user))
        summaries = list_selectors.army_list_summaries(lists) if lists else []  # their points
        context["lists"] = event_forms.list_choices(lists, summaries, armies=names, pack=pack)
        context["build"] = build or event_forms.BuildForm(pack=pack, armies=armies)
        context["once"] = forms.new_form_key()
        context["submit"] = submit or event_forms.SubmitForm()
    return render(request, "events/pack.html", context, status=status)


@require_POST
def pack_build(request: HttpRequest, key: str) -> HttpResponse:
    """A new list of one of the armies the pack takes, built for it, open in the builder."""
    pack = event_selectors.event_pack_get(key=key)
    if not request.user.is_authenticated:
        return redirect_to_login(pack.path)
    form = event_forms.BuildForm(request.POST, pack=pack, armies=event_selectors.pack_view(pack).armies)
    army_list = builder.create_once(request, form) if form.is_valid() else None
    if army_list is None:
        return _pack_page(request, pack, build=form, status=400)
    messages.success(request, f"This list is built for {pack.name}: it is checked against the event's rules.")
    return redirect("builder", pk=army_list.pk)


@require_POST
def pack_submit(request: HttpRequest, key: str) -> HttpResponse:
    """Submit one of the player's lists (someone else's list is a 404), until the deadline."""
    pack = event_selectors.event_pack_get(key=key)
    if not request.user.is_authenticated:
        return redirect_to_login(pack.path)
    form = event_forms.SubmitForm(request.POST)
    if form.is_valid():
        army_list = own_list(request, form.cleaned_data["army_list"])
        try:
            event_services.submission_submit(pack=pack, player=request.user, army_list=army_list)
        except event_services.SubmissionsClosed as closed:
            messages.error(request, str(closed))
            return redirect(pack.path)
        except pack_format.EventError as exc:
            form.add_event_errors(exc.errors)
        else:
            messages.success(request, f"Submitted {army_list.name or 'your list'} to {pack.name}.")
            return redirect(pack.path)
    return _pack_page(request, pack, submit=form, status=400)


# -- managing a pack -------------------------------------------------------------------------
@require_http_methods(["GET", "POST"])
def pack_edit(request: HttpRequest, key: str) -> HttpResponse:
    """The pack's details and each of its rules, every one a small form of its own."""
    pack = event_selectors.event_pack_managed_get(key=key, user=request.user)
    view = event_selectors.pack_view(pack)
    forms = event_forms.edit_forms(request.POST or None, pack=pack, view=view, army=request.GET.get("army"))
    posted = forms.posted
    if request.method == "POST" and posted is None:
        return HttpResponseBadRequest("Unknown change.")
    if posted is not None and posted.is_valid():
        try:
            event_services.pack_update(pack=pack, data=posted.changes(), based_on=pack.version)
        except pack_format.EventError as exc:
            posted.add_event_errors(exc.errors)
        except VersionConflict:
            messages.error(request, CHANGED_MEANWHILE.format(what="pack"))
            return redirect(f"{pack.path}edit/")
        else:
            messages.success(request, posted.done())
            return redirect(f"{pack.path}edit/{posted.where()}")
    context = {"pack": pack, "forms": forms, "rules": view.rules}
    return render(request, "events/edit.html", context, status=400 if posted is not None else 200)


@require_http_methods(["GET", "POST"])
def pack_delete(request: HttpRequest, key: str) -> HttpResponse:
    """Asks first (GET), then deletes the pack and its submissions (POST)."""
    pack = event_selectors.event_pack_managed_get(key=key, user=request.user)
    if request.method == "GET":
        return render(request, "events/delete.html", {"pack": pack, "submissions": pack.submissions.count()})
    event_services.pack_delete(pack=pack)
    messages.success(request, f"Deleted {pack.name}.")
    return redirect("events")


# -- the builder's "Event" field -------------------------------------------------------------
@require_POST
def list_event(request: HttpRequest, pk: int) -> HttpResponse:
    """Build a list for the event whose link or key was pasted in, or for none."""
    army_list = own_list(request, pk)
    form = event_forms.ListEventForm(request.POST)
    if form.is_valid():
        pack = form.cleaned_data["pack"]
        try:
            list_services.army_list_enter(army_list=army_list, pack=pack, based_on=army_list.version)
        except pack_format.EventError as exc:
            form.add_event_errors(exc.errors)
        except VersionConflict:
            messages.error(request, CHANGED_MEANWHILE.format(what="list"))
            return redirect("builder", pk=army_list.pk)
        else:
            words = f"built for {pack.name}" if pack else "no longer built for an event"
            messages.success(request, f"This list is {words}.")
            return redirect("builder", pk=army_list.pk)
    context = builder.builder_context(request, army_list, None, event_form=form)  # its errors by the field
    page = render(request, "builder/builder.html", context, status=400)
    return fragments.with_form_heads(request, page, army_list)
