"""The admin's change forms of rows players write too (lists, event packs, display names).

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
from django.http import HttpRequest, HttpResponse

from armybuilder.conflicts import VersionConflict

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
        super().clean()
        cleaned = self.cleaned_data  # what ModelForm.clean returns (the stubs allow None)
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
    `based_on`. Adding a row is Django's plain save (no one else has it yet). A write
    that lost its race raises one of `conflicts`."""

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
