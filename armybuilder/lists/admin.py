"""The admin of the rows players write too: their lists and event packs (display names:
accounts/admin.py, on the same VersionedAdmin).

Staff edit them through the checks and the services the site's own pages use, so an
edit here is refused for what the site would refuse, every problem named by its field.
And a save never undoes a player's: the change form carries the row's version as read
when the page was opened (`based_on`, hidden), and the service writes only while the row
is still at that version (compare-and-swap); a form sent after the player saved is
refused, with nothing written.
"""

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest, HttpResponse

from armybuilder.lists import events
from armybuilder.lists.format import ListFormatError, parse_list_body
from armybuilder.lists.models import ARMYLIST_FIELDS, ArmyList, EventPack, Submission
from armybuilder.lists.services import VersionConflict, army_list_update
from factions.selectors import BookHandle, engine_book_get

CHANGED_MEANWHILE = (
    "This {thing} was changed by {by} while you edited it: nothing was saved; reload to see the current {thing}."
)


def problem_lines(problem: Any, field: str, place: str = "") -> list[str]:
    """Every message of a field's problems as a service gives them (nested by the place in
    the field they are about), each after that place when it is inside the field:
    'entries[2].unit: This field is required.'."""
    if isinstance(problem, dict):
        return [message for key, value in problem.items() for message in problem_lines(value, field, _in(place, key))]
    if isinstance(problem, list):
        return [message for value in problem for message in problem_lines(value, field, place)]
    return [f"{field}{place}: {problem}" if place else str(problem)]


def _in(place: str, key: Any) -> str:
    key = str(key)
    if key == "non_field_errors":  # about the place as a whole
        return place
    return f"{place}[{key}]" if key.isdigit() else f"{place}.{key}"


class VersionedForm(forms.ModelForm):
    """The change form of a row others write too. `based_on` is the row's version when the
    page was opened; a form sent after the row moved on is refused (`changed_meanwhile`)."""

    changed_meanwhile = CHANGED_MEANWHILE.format(thing="row", by="someone else")
    based_on = forms.IntegerField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["based_on"].initial = self.instance.version

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        # The instance is read again for every request: its version is the row's now.
        if self.instance.pk is not None and cleaned.get("based_on") != self.instance.version:
            self.add_error(None, self.changed_meanwhile)
        return cleaned

    def add_problems(self, errors: dict[str, Any]) -> None:
        """A service's field errors on this form: on the field of the same name, else on
        the form as a whole."""
        for field, problem in errors.items():
            for message in problem_lines(problem, field):
                self.add_error(field if field in self.fields else None, message)


class VersionedAdmin(admin.ModelAdmin):
    """Saves a change with `write`: a service's compare-and-swap from the form's
    `based_on`, which raises one of `conflicts` when the row moved on meanwhile. Adding a
    row is Django's plain save (no one else has it yet)."""

    conflicts: tuple[type[Exception], ...] = (VersionConflict,)

    def write(self, obj: Any, form: Any, based_on: int) -> None:
        raise NotImplementedError

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if not change:
            super().save_model(request, obj, form, change)
            return
        self.write(obj, form, form.cleaned_data["based_on"])
        obj.refresh_from_db()

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ) -> HttpResponse:
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except self.conflicts:
            # The player saved between the form's check and the write (which wrote
            # nothing, and the admin's transaction is rolled back): the form read again
            # now sees it, and says so next to the staff member's edits.
            return super().changeform_view(request, object_id, form_url, extra_context)


# -- lists -----------------------------------------------------------------------------------
class ArmyListForm(VersionedForm):
    """A list checked as the API checks one (format.parse_list_body), and refused as well
    for a unit the edit brings in that its army book does not have (a slip of the typing:
    the builder offers only the book's units). Every problem named by its field."""

    changed_meanwhile = CHANGED_MEANWHILE.format(thing="list", by="its owner")
    book_version = forms.CharField(
        max_length=48, required=False, help_text="The army book's version it is built on; empty: the current one"
    )

    class Meta:
        model = ArmyList
        fields = ["name", "system", "faction", "book_version", "points_limit", "force_org", "notes", "entries", "event"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        body = {field: cleaned[field] for field in ARMYLIST_FIELDS}
        if cleaned["book_version"]:
            body["book_version"] = cleaned["book_version"]
        if cleaned["event"] is not None:
            body["event"] = cleaned["event"].key
        try:
            data, handle = parse_list_body(body)
        except ListFormatError as refused:
            self.add_problems(refused.errors)
            return cleaned
        self.add_problems(self._unknown_units(data, handle))
        # Pinned to the version read, whatever the list was on before.
        self.checked = {**data, "book_version": handle.version}
        return cleaned

    def _unknown_units(self, data: dict[str, Any], handle: BookHandle) -> dict[str, Any]:
        had = {entry.get("unit") for entry in self.initial.get("entries") or [] if isinstance(entry, dict)}
        book = engine_book_get(system=data["system"], slug=data["faction"], handle=handle)[0]
        unknown = {
            str(i): {"unit": [f'No unit "{entry["unit"]}" in {book.name}.']}
            for i, entry in enumerate(data["entries"])
            if entry["unit"] not in book.units and entry["unit"] not in had
        }
        return {"entries": unknown} if unknown else {}


@admin.register(ArmyList)
class ArmyListAdmin(VersionedAdmin):
    """Lists are made by their players; here staff read them, put one right or delete it."""

    form = ArmyListForm
    list_display = ["name", "system", "faction", "points_limit", "owner", "event", "version", "updated"]
    list_filter = ["system"]
    search_fields = ["name", "faction", "owner__username"]
    readonly_fields = ["owner", "visitor", "share_key", "version", "created", "updated"]
    list_select_related = ["owner", "event"]
    autocomplete_fields = ["event"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def write(self, obj: ArmyList, form: ArmyListForm, based_on: int) -> None:
        army_list_update(army_list=obj, data=form.checked, based_on=based_on)


# -- event packs ------------------------------------------------------------------------------
class EventPackForm(VersionedForm):
    """An event pack as the site checks one (events.check_pack): every problem named by
    its field, nothing saved."""

    changed_meanwhile = CHANGED_MEANWHILE.format(thing="event pack", by="its organiser")

    class Meta:
        model = EventPack
        fields = ["organiser", *events.PACK_FIELDS]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        data = {field: cleaned.get(field) for field in events.PACK_FIELDS}
        data["ruleset"] = cleaned["ruleset"].slug
        try:
            events.check_pack(data)
        except events.EventError as refused:
            self.add_problems(refused.errors)
        else:
            self.checked = data
        return cleaned


@admin.register(EventPack)
class EventPackAdmin(VersionedAdmin):
    form = EventPackForm
    list_display = ["name", "organiser", "ruleset", "points_limit", "deadline", "key"]
    list_filter = ["ruleset"]
    search_fields = ["name", "organiser__username", "key"]
    readonly_fields = ["key", "version", "created", "updated"]
    list_select_related = ["organiser", "ruleset"]
    autocomplete_fields = ["organiser"]

    def get_readonly_fields(self, request: HttpRequest, obj: Model | None = None) -> list[str]:
        """The organiser is chosen when the pack is made; the site's own pack edit moves
        it to no one else either."""
        return [*self.readonly_fields, "organiser"] if obj is not None else self.readonly_fields

    def write(self, obj: EventPack, form: EventPackForm, based_on: int) -> None:
        events.pack_update(pack=obj, data=form.checked, based_on=based_on)


@admin.register(Submission)
class SubmissionAdmin(admin.ModelAdmin):
    """Submissions are made by players; here they can be read, or withdrawn (deleted)."""

    list_display = ["pack", "player", "book_version", "submitted_at"]
    search_fields = ["pack__name", "player__username"]
    readonly_fields = ["pack", "player", "army_list", "data", "book_version", "submitted_at"]
    list_select_related = ["pack", "player"]
    exclude = ["validation", "validation_stamp"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
