"""The admin of the lists players write: checked as the API checks a list, and saved
with a compare-and-swap on the version read (armybuilder/admin_forms.py says how; event
packs are events/admin.py, display names accounts/admin.py)."""

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest

from armybuilder.admin_forms import CHANGED_MEANWHILE, VersionedAdmin, VersionedForm
from armybuilder.lists.format import ListFormatError, parse_list_body
from armybuilder.lists.models import ARMYLIST_FIELDS, ArmyList
from armybuilder.lists.services import army_list_update
from factions.selectors import BookHandle, engine_book_get


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
