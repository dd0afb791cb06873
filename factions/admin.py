"""Admin for the catalogue. Books normally arrive by import (here too: "Import a book"
and "Sync from Army Forge" on the army books' list, added by
armybuilder/armyforge/admin.py); the admin is for fixing a cost or a typo, by editing the
book's document into a new version (admin_documents), for changing a ruleset's limits,
and for exporting a book back to armybook/1 JSON."""

from __future__ import annotations

import json
from itertools import count
from typing import TYPE_CHECKING, TypedDict

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, OuterRef, Subquery
from django.http import HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from factions import models
from factions.admin_checks import PARENT_FIELDS, CatalogueRefused, catalogue_change_check, catalogue_delete
from factions.admin_documents import BookDocuments
from factions.limits import LimitForm
from factions.ruleset_format import RulesetError
from factions.selectors import faction_document
from factions.services import ruleset_variant_create

SHOWN_PROBLEMS = 30  # lines of problems or warnings one answer shows


def shown(lines: list[str] | tuple[str, ...], what: str = "problems", most: int = SHOWN_PROBLEMS) -> list[str]:
    """The first `most` of `lines`, and how many more there are."""
    more = len(lines) - most
    return [*lines[:most], *([f"... and {more} more {what}"] if more > 0 else [])]


if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    class _VersionTotal(TypedDict):
        version_total: int


class CatalogueAdmin(admin.ModelAdmin):
    """Every change made here to a ruleset, its limits and core rules, inlines and deletes
    included, is checked as the importer checks a book, on every book of the ruleset. One
    the checks refuse is rolled back and the page says why; one they pass stamps the
    ruleset anew, which expires the cached copies built from it (see admin_checks)."""

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            with transaction.atomic():
                return super().changeform_view(request, object_id, form_url, extra_context)
        except CatalogueRefused as refused:
            # The same form again, as the user filled it in, with the checks' answer.
            request.catalogue_problems = refused.problems
            return super().changeform_view(request, object_id, form_url, extra_context)

    def get_form(self, request, obj=None, change=False, **kwargs):
        form = super().get_form(request, obj, change, **kwargs)
        problems = getattr(request, "catalogue_problems", None)
        return _refusing(form, problems) if problems else form

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        catalogue_change_check(
            objects=[form.instance, *_parents_left(form)],
            changed=not change or form.has_changed() or any(formset.has_changed() for formset in formsets),
        )

    def delete_view(self, request, object_id, extra_context=None):
        try:
            with transaction.atomic():
                return super().delete_view(request, object_id, extra_context)
        except CatalogueRefused as refused:
            _show(self, request, "Not deleted", refused)
            return HttpResponseRedirect(
                reverse(f"admin:{self.opts.app_label}_{self.opts.model_name}_change", args=[object_id])
            )

    def changelist_view(self, request, extra_context=None):
        # Actions (delete selected) and list edits end up in delete_queryset/save_related.
        try:
            with transaction.atomic():
                return super().changelist_view(request, extra_context)
        except CatalogueRefused as refused:
            _show(self, request, "Nothing changed", refused)
            return HttpResponseRedirect(request.get_full_path())

    def delete_model(self, request, obj):
        catalogue_delete(objects=[obj])

    def delete_queryset(self, request, queryset):
        catalogue_delete(objects=list(queryset))


def _answer(what: str, problems: list[str]) -> list[str]:
    return [f"{what}: the change fails the checks import_armybook runs.", *shown(problems)]


def _refusing(form_class, problems: list[str]):
    """The admin's form for the object, answering with the checks' problems."""

    class Refused(form_class):
        def clean(self):
            super().clean()
            raise ValidationError(_answer("Not saved", problems))

    return Refused


def _show(model_admin: admin.ModelAdmin, request, what: str, refused: CatalogueRefused) -> None:
    for line in _answer(what, refused.problems):
        model_admin.message_user(request, line, messages.ERROR)


def _parents_left(form) -> list:
    """The parent the object had before, when the form moved it to another (a limit to
    another ruleset): the ruleset it left is checked too."""
    parents = []
    for name in PARENT_FIELDS:
        if name in form.changed_data and form.initial.get(name) is not None:
            model = form.instance._meta.get_field(name).related_model
            parents += model.objects.filter(pk=form.initial[name])
    return parents


def inline(model: type, fields: list[str], **options) -> type[admin.TabularInline]:
    """A table of `model`'s rows inside their parent's page, with no blank rows offered
    until asked for."""
    attributes = {"model": model, "fields": fields, "extra": 0, **options}
    return type(f"{model.__name__}Inline", (admin.TabularInline,), attributes)


def page(*, columns, filters=(), search=(), related=(), inlines=(), **more) -> dict:
    """What a catalogue table's admin pages show: the list's columns, filters, search,
    the related rows read with it, and the tables of child rows on each row's page
    (and any other ModelAdmin option, as `more`)."""
    return {
        "list_display": columns,
        "list_filter": filters,
        "search_fields": search,
        "list_select_related": related,
        "inlines": inlines,
        **more,
    }


def _free_slug(stem: str) -> str:
    """`stem`-1, or the first `stem`-N no ruleset has."""
    taken = set(models.Ruleset.objects.filter(slug__startswith=stem).values_list("slug", flat=True))
    return next(f"{stem}-{n}" for n in count(1) if f"{stem}-{n}" not in taken)


@admin.action(description="Make a variant of each selected ruleset (its own name and limits, the same game)")
def make_variants(modeladmin, request, queryset):
    """A variant per ruleset, named "… (variant)", to rename and change in its own page."""
    for ruleset in queryset:
        try:
            variant = ruleset_variant_create(
                source=ruleset, slug=_free_slug(f"{ruleset.family}-variant"), name=f"{ruleset.name} (variant)"
            )
        except RulesetError as refused:
            modeladmin.message_user(request, f"{ruleset.title}: {refused}", messages.ERROR)
            continue
        link = reverse("admin:factions_ruleset_change", args=[variant.pk])
        modeladmin.message_user(
            request,
            format_html(
                'Made <a href="{}">{}</a> ({}): rename it and change its limits.', link, variant.title, variant.slug
            ),
            messages.SUCCESS,
        )


PAGES = {
    models.Ruleset: page(
        columns=["title", "slug", "base", "uses_points", "default_points", "max_points"],
        actions=[make_variants],
        readonly_fields=["base"],
        inlines=[
            inline(
                models.ForceOrgLimit,
                ["order", "code", "kind", "params", "severity", "optional", "section"],
                form=LimitForm,
            ),
            inline(models.CoreRule, ["name", "rated", "section", "summary"]),
        ],
    ),
    models.CoreRule: page(
        columns=["name", "ruleset", "rated", "section"], filters=["ruleset", "rated"], search=["name", "summary"]
    ),
    models.ForceOrgLimit: page(
        columns=["code", "ruleset", "kind", "describe", "severity", "optional"],
        filters=["ruleset", "kind", "severity"],
        form=LimitForm,
    ),
}
for model, options in PAGES.items():
    admin.site.register(model, CatalogueAdmin, **options)


@admin.action(description="Export selected books as armybook/1 JSON")
def export_books(modeladmin, request, queryset):
    books = [faction_document(faction=faction) for faction in queryset.select_related("ruleset")]
    payload = books[0] if len(books) == 1 else books
    name = f"{books[0]['system']}-{books[0]['slug']}.json" if len(books) == 1 else "armybooks.json"
    response = HttpResponse(json.dumps(payload, indent=2, ensure_ascii=False), content_type="application/json")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


class ReadOnly:
    """Rows written by imports and syncs only: shown, never edited or deleted here."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


VERSION_FIELDS = ("version", "source", "armyforge_id", "imported_at", "units", "changes")


def _changes_link(version: models.BookVersion) -> str:
    faction = version.faction
    if version.version == faction.version:
        return "current"
    url = reverse("book-changes", args=[faction.ruleset.slug, faction.slug])
    return format_html('<a href="{}?from={}&amp;to={}">what changed since</a>', url, version.version, faction.version)


class BookVersionInline(ReadOnly, admin.TabularInline):
    model = models.BookVersion
    fields = readonly_fields = VERSION_FIELDS
    extra = 0
    verbose_name_plural = "versions (newest first; an edit keeps a new one)"

    @admin.display(description="what changed")
    def changes(self, version: models.BookVersion) -> str:
        return _changes_link(version)


@admin.register(models.BookVersion)
class BookVersionAdmin(ReadOnly, admin.ModelAdmin):
    list_display = ["faction", "version", "source", "armyforge_id", "imported_at", "units", "changes"]
    list_filter = ["source", "faction__ruleset"]
    search_fields = ["faction__name", "faction__slug", "version", "armyforge_id"]
    list_select_related = ["faction__ruleset"]
    exclude = ["document"]
    readonly_fields = ["faction", "version", "source", "armyforge_id", "imported_at", "units", "content_hash"]

    @admin.display(description="what changed")
    def changes(self, version: models.BookVersion) -> str:
        return _changes_link(version)


@admin.register(models.ArmyForgeSync)
class ArmyForgeSyncAdmin(ReadOnly, admin.ModelAdmin):
    """What the last sync that changed or failed something did with each official book."""

    list_display = ["name", "system", "version", "outcome", "synced_at", "detail"]
    list_filter = ["system", "outcome"]
    search_fields = ["name", "armyforge_id", "detail"]


@admin.register(models.ArmyForgeRules)
class ArmyForgeRulesAdmin(ReadOnly, admin.ModelAdmin):
    """Every version of Army Forge's core rules the syncs kept, per ruleset (newest first):
    the texts of the rules its official books name without describing them."""

    list_display = ["ruleset", "version", "fetched_at", "rule_count", "current"]
    list_filter = ["ruleset"]
    search_fields = ["version", "ruleset__slug"]
    list_select_related = ["ruleset"]
    exclude = ["rules"]
    readonly_fields = ["ruleset", "version", "fetched_at", "content_hash", "rule_list"]

    def get_queryset(self, request):
        latest = models.ArmyForgeRules.objects.filter(ruleset=OuterRef("ruleset")).order_by("-fetched_at", "-id")
        return super().get_queryset(request).annotate(current_id=Subquery(latest.values("id")[:1]))

    @admin.display(description="rules")
    def rule_count(self, rules: models.ArmyForgeRules) -> int:
        return len(rules.rules)

    @admin.display(description="current", boolean=True)
    def current(self, rules: models.ArmyForgeRules) -> bool:
        """The version read last: the one a sync gives the books it imports."""
        return getattr(rules, "current_id", None) == rules.pk

    @admin.display(description="Rules, in Army Forge's order")
    def rule_list(self, rules: models.ArmyForgeRules) -> str:
        return format_html_join("", "<p><strong>{}</strong>: {}</p>", ((r["name"], r["text"]) for r in rules.rules))


@admin.register(models.Faction)
class FactionAdmin(BookDocuments, admin.ModelAdmin):
    """A book's page shows its row and versions; its content is edited as its current
    version's document ("Edit the book", admin_documents), each edit a new version. Books
    arrive by import (armybuilder/armyforge/admin.py adds its page, and "Add" leads there)."""

    list_display = ["name", "ruleset", "slug", "version", "source", "version_count", "imported_at", "warning_count"]
    list_filter = ["ruleset", "source"]
    search_fields = ["name", "slug", "armyforge_id"]
    readonly_fields = [
        "document_link",
        "name",
        "ruleset",
        "slug",
        "version",
        "description",
        "source",
        "import_slug",
        "armyforge_id",
        "armyforge_rules",
        "imported_at",
        "last_sync",
        "import_warnings_list",
    ]
    fields = tuple(readonly_fields)
    inlines = [BookVersionInline]
    actions = [export_books]

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # the row follows its current version: "Edit the book" changes both

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(version_total=Count("versions", distinct=True))

    @admin.display(description="versions", ordering="version_total")
    def version_count(self, faction: WithAnnotations[models.Faction, _VersionTotal]) -> int:
        return faction.version_total

    @admin.display(description="Last sync from Army Forge")
    def last_sync(self, faction: models.Faction) -> str:
        """What the last sync that changed or failed something did with this book."""
        if not faction.armyforge_id:
            return "Not an Army Forge book"
        sync = models.ArmyForgeSync.objects.filter(
            system=faction.ruleset.slug, armyforge_id=faction.armyforge_id
        ).first()
        if sync is None:
            return "Not synced yet (imported by hand)"
        return f"{sync.synced_at:%Y-%m-%d %H:%M} UTC: {sync.outcome} {sync.version}. {sync.detail}".strip()

    @admin.display(description="import warnings")
    def warning_count(self, faction: models.Faction) -> int:
        return len(faction.import_warnings)

    @admin.display(description="Import warnings")
    def import_warnings_list(self, faction: models.Faction) -> str:
        """What the last import brought in but needs a reader's eye, one per line."""
        if not faction.import_warnings:
            return "None"
        return format_html_join("", "<p>{}</p>", ((w,) for w in faction.import_warnings))
