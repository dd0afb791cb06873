"""Editing an army book in the admin: its current version's armybook/1 document, part by
part. The book's name, description and the new version's name are plain fields; each
other part (army rules, spells, units, upgrade packages, the Arena composition card) is
that part of the document as JSON, as the format describes it (README, "armybook/1").

Saving checks the whole document as an import checks a book (the JSON Schema, then the
book checks: factions/armybook.py) and keeps it as a new version, the current one from
then on (services.armybook_edit); the versions before it, and the lists pinned to them,
are left as they were. A problem names its part and the field in the document
(`units[3].cost: …`), and nothing is saved; so is an edit made from a version that is no
longer the current one (someone saved a newer one meanwhile: a compare-and-swap on the
stamp of the version the form was opened at)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import ModelAdmin
from django.contrib.admin.utils import unquote
from django.contrib.auth import get_permission_codename
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from factions.admin_checks import CatalogueRefused, _version_after_edit
from factions.armybook import ArmyBookError, Problem, parse_json
from factions.models import Faction
from factions.selectors import faction_document
from factions.services import BookChanged, ImportResult, ImportStatus, armybook_edit

# The parts of a document edited as JSON: (key, label, the JSON type it must be).
JSON_PARTS = (
    ("rules", "Army rules", list),
    ("spells", "Spells", list),
    ("units", "Units", list),
    ("packages", "Upgrade packages", list),
    ("composition", "Composition card (Arena)", dict),
)
# Parts that may be left out of a document: an empty field leaves them out.
OPTIONAL_PARTS = ("description", "composition")
SHOWN_WARNINGS = 30


def _json_text(value: Any) -> str:
    return "" if value is None else json.dumps(value, indent=2, ensure_ascii=False)


class BookDocumentForm(forms.Form):
    """The current version of a book, part by part (see the module's docstring)."""

    based_on = forms.CharField(widget=forms.HiddenInput)
    version = forms.CharField(
        label="New version",
        max_length=48,
        help_text="The name the edited book is kept under; lists keep the version they were built with until "
        "they are moved to this one.",
    )
    name = forms.CharField(max_length=120)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 100}), required=False, strip=False)

    def __init__(self, data=None, *, faction: Faction, document: dict[str, Any]):
        self.current = document
        initial = {
            "based_on": faction.content_hash,
            "name": document["name"],
            "description": document.get("description", ""),
            **{key: _json_text(document.get(key)) for key, _label, _kind in JSON_PARTS},
        }
        try:
            initial["version"] = _version_after_edit(faction)
        except CatalogueRefused:
            initial["version"] = ""  # too long to mark: the editor names it
        super().__init__(data, initial=initial)
        for key, label, kind in JSON_PARTS:
            empty = "; empty for none" if key in OPTIONAL_PARTS else ""
            self.fields[key] = forms.CharField(
                label=label,
                required=key not in OPTIONAL_PARTS,
                strip=False,
                widget=forms.Textarea(attrs={"rows": 24, "cols": 100, "spellcheck": "false", "class": "json-part"}),
                help_text=f"JSON: {'a list' if kind is list else 'an object'}, as in armybook/1{empty}.",
            )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        for key, label, kind in JSON_PARTS:
            text = cleaned.get(key)
            if key not in cleaned or (not text and key in OPTIONAL_PARTS):
                continue
            try:
                value = parse_json(text or "")  # as an import reads a file: NULs and nesting too
            except ArmyBookError as exc:
                self.add_error(key, "; ".join(f"{label}: {problem}" for problem in exc.problems))
                continue
            if not isinstance(value, kind):
                self.add_error(key, f"{label}: must be a JSON {'list' if kind is list else 'object'}")
                continue
            cleaned[key] = value
        return cleaned

    def document(self) -> dict[str, Any]:
        """The document as edited: the current one with each part replaced (its ruleset,
        slug and Army Forge fields as they were)."""
        edited = {key: self.cleaned_data[key] for key in ("version", "name", "description")}
        edited.update({key: self.cleaned_data[key] for key, _label, _kind in JSON_PARTS})
        document = {**self.current, **edited}
        for key in OPTIONAL_PARTS:
            if document[key] in ("", None):
                del document[key]
        return document

    def add_problems(self, problems: list[Problem]) -> None:
        """The checks' problems, each on the part of the document it is in."""
        self.add_error(None, "Not saved: the book fails the checks an import runs (each is shown by its part).")
        labels = {key: label for key, label, _kind in JSON_PARTS}
        for problem in problems:
            part = problem.path.split(".", 1)[0].split("[", 1)[0]
            if part in labels:
                self.add_error(part, f"{labels[part]}: {problem}")
            else:
                self.add_error(part if part in self.fields and part != "based_on" else None, str(problem))


if TYPE_CHECKING:  # what the mixin is mixed into, for mypy
    _FactionAdmin = ModelAdmin[Faction]
else:
    _FactionAdmin = object


class BookDocuments(_FactionAdmin):
    """For the army books' ModelAdmin: the page that edits a book's current version
    (`<id>/document/`), for staff who may change army books."""

    def get_urls(self):
        view = self.admin_site.admin_view  # staff only, CSRF-checked
        return [
            path("<path:object_id>/document/", view(self.document_view), name="factions_faction_document"),
            *super().get_urls(),
        ]

    def may_edit(self, request: HttpRequest) -> bool:
        codename = get_permission_codename("change", self.opts)
        return request.user.has_perm(f"{self.opts.app_label}.{codename}")

    def document_view(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if not self.may_edit(request):
            raise PermissionDenied("Editing army books needs the permission to change army books.")
        faction = Faction.objects.select_related("ruleset").filter(pk=unquote(object_id)).first()
        if faction is None:
            raise Http404("No such army book.")
        posted = request.POST if request.method == "POST" else None
        form = BookDocumentForm(posted, faction=faction, document=faction_document(faction=faction))
        if posted is not None and form.is_valid():
            try:
                result = armybook_edit(
                    faction=faction, document=form.document(), based_on=form.cleaned_data["based_on"]
                )
            except BookChanged as changed:
                form.add_error(None, str(changed))
            except ArmyBookError as refused:
                form.add_problems(refused.problems)
            else:
                self._say_kept(request, result)
                return redirect(reverse("admin:factions_faction_change", args=[faction.pk]))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Edit {faction.name} {faction.version}",
            "faction": faction,
            "form": form,
        }
        return TemplateResponse(request, "admin/factions/faction/document.html", context)

    def _say_kept(self, request: HttpRequest, result: ImportResult) -> None:
        if result.status == ImportStatus.UNCHANGED:
            self.message_user(request, f"Nothing changed: {result.faction.name} {result.version} is kept as it was.")
            return
        said = f"Kept {result.faction.name} {result.version} (was {result.replaced_version}): the current version."
        self.message_user(request, said, messages.SUCCESS)
        for warning in result.warnings[:SHOWN_WARNINGS]:
            self.message_user(request, f"warning: {warning}", messages.WARNING)

    @admin.display(description="Edit the book")
    def document_link(self, faction: Faction) -> str:
        url = reverse("admin:factions_faction_document", args=[faction.pk])
        link = '<a href="{}" id="edit-document">Edit {} {}</a>, kept as a new version'
        return format_html(link, url, faction.name, faction.version)
