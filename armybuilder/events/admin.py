"""The admin of event packs and their submissions: a pack is checked as the site checks
one, and saved with the site's compare-and-swap (see armybuilder/admin_forms.py)."""

from typing import Any

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from armybuilder.admin_forms import CHANGED_MEANWHILE, VersionedAdmin, VersionedForm
from armybuilder.events import services
from armybuilder.events.format import PACK_FIELDS, EventError, check_pack
from armybuilder.events.models import EventPack, Submission


class EventPackForm(VersionedForm):
    """An event pack as the site checks one (check_pack): every problem named by
    its field, nothing saved."""

    changed_meanwhile = CHANGED_MEANWHILE.format(thing="event pack", by="its organiser")

    class Meta:
        model = EventPack
        fields = ["organiser", *PACK_FIELDS]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        data = {field: cleaned.get(field) for field in PACK_FIELDS}
        data["ruleset"] = cleaned["ruleset"].slug
        try:
            check_pack(data)
        except EventError as refused:
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
        services.pack_update(pack=obj, data=form.checked, based_on=based_on)


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
