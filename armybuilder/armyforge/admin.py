"""The army books' two commands in the admin, as buttons on their change list: import a
book file (armybook/1 or Army Forge's army-book JSON, read as `import_armybook` and the
API read them) and sync the official books and their core rules from Army Forge (as
`sync_armyforge` does).
Each runs the same service as its command, for staff who may add army books, and says
what it did in the admin's messages. The army books' admin is factions' own with these
two pages added (registered in its place here, so their addresses stay
`admin/factions/faction/import/` and `.../sync/`): factions knows armybook/1 only."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.defaultfilters import filesizeformat
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from armybuilder.armyforge.books.imports import book_import
from armybuilder.armyforge.sync import GAMES, SyncResult, armyforge_sync
from factions import admin as factions_admin
from factions.admin import shown
from factions.armybook import ArmyBookError, Problem
from factions.models import Faction, Ruleset
from factions.services import ImportResult

SHOWN_NOTES = 20  # warnings of one book (rules skipped of one ruleset) the sync's page shows


def upload_cap() -> int:
    """The largest book file taken: no more than the site reads of a book from Army Forge,
    nor than a request may carry (the request limits answer a larger body 413, unread)."""
    return min(settings.ARMYFORGE_MAX_BYTES, settings.MAX_REQUEST_BODY)


class BookUploadForm(forms.Form):
    file = forms.FileField(label="Book file")
    system = forms.ModelChoiceField(
        Ruleset.objects.all(),
        to_field_name="slug",
        required=False,
        label="Ruleset",
        empty_label="The one the book names",
        help_text="Needed for an Army Forge book enabled for several rulesets; a book that names its ruleset "
        "must agree.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields[
            "file"
        ].help_text = f"armybook/1 JSON or an Army Forge army book (JSON), at most {filesizeformat(upload_cap())}."

    def clean_file(self) -> UploadedFile[bytes]:
        upload: UploadedFile[bytes] = self.cleaned_data["file"]
        if upload.size is not None and upload.size > upload_cap():
            size, cap = filesizeformat(upload.size), filesizeformat(upload_cap())
            raise ValidationError(f"The file is {size}: a book file may be {cap} at most. Nothing was imported.")
        return upload


class SyncForm(forms.Form):
    system = forms.ModelChoiceField(
        Ruleset.objects.filter(slug__in=GAMES),
        to_field_name="slug",
        required=False,
        label="Ruleset",
        empty_label="All that Army Forge publishes books for",
    )
    dry_run = forms.BooleanField(required=False, label="Dry run: fetch and check, write nothing")


class FactionAdmin(factions_admin.FactionAdmin):
    """The army books' admin with the pages behind "Import a book" and "Sync from Army
    Forge" (templates/admin/factions/faction/)."""

    def get_urls(self) -> list[URLPattern]:
        view = self.admin_site.admin_view  # staff only, CSRF-checked
        return [
            path("import/", view(self.import_view), name="factions_faction_import"),
            path("sync/", view(self.sync_view), name="factions_faction_sync"),
            *super().get_urls(),  # type: ignore[no-untyped-call]
        ]

    def add_view(
        self, request: HttpRequest, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """Books arrive by import: "Add" leads there."""
        return redirect(reverse("admin:factions_faction_import"))

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> HttpResponse:
        commands = {"may_import": self.has_add_permission(request)}
        return super().changelist_view(request, {**commands, **(extra_context or {})})

    def import_view(self, request: HttpRequest) -> HttpResponse:
        self._check_may_import(request)
        form = BookUploadForm(*_posted(request))
        if request.method == "POST" and form.is_valid():
            ruleset = form.cleaned_data["system"]
            try:
                result = book_import(data=form.cleaned_data["file"].read(), system=ruleset and ruleset.slug)
            except ArmyBookError as refused:
                self._say_refused(request, refused)
            else:
                self._say_imported(request, result)
                return redirect(reverse("admin:factions_faction_change", args=[result.faction.pk]))
        return self._page(request, "import", "Import an army book", form, status=400 if form.is_bound else 200)

    def sync_view(self, request: HttpRequest) -> HttpResponse:
        self._check_may_import(request)
        form = SyncForm(*_posted(request))
        result = None
        if settings.ARMYFORGE_URL and request.method == "POST" and form.is_valid():
            # The form offers only rulesets Army Forge has books for, and the setting is
            # an http(s) address (checked at start-up): the sync raises no ValueError here.
            ruleset, dry_run = form.cleaned_data["system"], form.cleaned_data["dry_run"]
            seconds = settings.ARMYFORGE_ADMIN_SYNC_SECONDS
            result = armyforge_sync(systems=ruleset and [ruleset.slug], dry_run=dry_run, seconds=seconds)
            self._say_synced(request, result)
        context = {
            "result": result,
            # Each with its notes: a book's warnings, the core rules Army Forge gave that were skipped.
            "core_rules": [(r, shown(r.skipped, "skipped", SHOWN_NOTES)) for r in result.core_rules] if result else [],
            "books": [(b, shown(b.warnings, "warnings", SHOWN_NOTES)) for b in result.books] if result else [],
            "source": settings.ARMYFORGE_URL,
            "seconds": settings.ARMYFORGE_ADMIN_SYNC_SECONDS,
        }
        status = 400 if form.errors else 200
        return self._page(request, "sync", "Sync the official army books from Army Forge", form, status, **context)

    def _check_may_import(self, request: HttpRequest) -> None:
        if not self.has_add_permission(request):
            raise PermissionDenied("Importing army books needs the permission to add army books.")

    def _page(
        self, request: HttpRequest, name: str, title: str, form: forms.Form, status: int = 200, **more: Any
    ) -> HttpResponse:
        context = {**self.admin_site.each_context(request), "opts": self.opts, "title": title, "form": form, **more}
        return TemplateResponse(request, f"admin/factions/faction/{name}.html", context, status=status)

    def _say(self, request: HttpRequest, level: int, lines: list[str]) -> None:
        for line in lines:
            self.message_user(request, line, level)

    def _say_refused(self, request: HttpRequest, refused: ArmyBookError) -> None:
        self._say(
            request, messages.ERROR, ["Not imported: nothing changed.", *shown(_lines("error", refused.problems))]
        )
        self._say(request, messages.WARNING, shown(_lines("warning", refused.warnings), "warnings"))

    def _say_imported(self, request: HttpRequest, result: ImportResult) -> None:
        count = len(result.warnings)
        warnings = (
            "no warnings" if not count else f"{count} warning{'' if count == 1 else 's'} (this page lists them all)"
        )
        self._say(request, messages.SUCCESS, [f"{result.describe()}; {warnings}."])
        self._say(request, messages.WARNING, shown(_lines("warning", result.warnings), "warnings"))

    def _say_synced(self, request: HttpRequest, result: SyncResult) -> None:
        level = messages.WARNING if result.failed else messages.SUCCESS
        self._say(request, level, [f"Synced from {settings.ARMYFORGE_URL}: {result.summary()}."])
        self._say(request, messages.ERROR, shown(result.failure_lines(), "failures"))


def _posted(request: HttpRequest) -> tuple[Any, ...]:
    """What a form is bound to: the POST's fields and files (even none), nothing on a GET."""
    return (request.POST, request.FILES) if request.method == "POST" else ()


def _lines(kind: str, problems: tuple[Problem, ...] | list[Problem]) -> list[str]:
    """`error: units[3].cost: …`, as import_armybook prints them (and the admin's capital
    letter then falls on the kind, not on the path)."""
    return [f"{kind}: {problem}" for problem in problems]


admin.site.unregister(Faction)
admin.site.register(Faction, FactionAdmin)
