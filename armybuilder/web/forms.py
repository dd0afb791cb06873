"""The builder's forms: what the new-list page, the import and each builder action may
post, read and checked before a view calls a service. The field names are the ones
templates/builder and static/builder.js send; the changes themselves are made by
lists/editing.py and checked as any list is (lists/format.py)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Collection, Iterable
from typing import Any

from django import forms
from django.core.exceptions import ValidationError

from armybuilder.armyforge.lists.imports import list_from_armyforge_link, list_from_file
from armybuilder.engine.choices import refused_picks
from armybuilder.engine.rulesets import has_force_org_choice
from armybuilder.lists import editing
from armybuilder.lists.format import MAX_PICKS, ListFormatError, first_error, parse_list_body
from armybuilder.lists.selectors import ListBook
from armybuilder.web import presenters
from armybuilder.web import undo as undos
from factions.models import Faction, Ruleset
from factions.selectors import BookHandle, engine_book_get, ruleset_family

GAME_SIZE = "Enter the game size in points, a whole number."
UNKNOWN_ACTION = "Unknown action."
NO_VERSION = "The form did not say which version of the list it was made from."
STEPS = {"+1": 1, "-1": -1}

ListData = dict[str, Any]


class Form(forms.Form):
    def clean(self) -> dict[str, Any]:
        """The cleaned fields, as Django's own clean gives them (its stub allows None, for
        forms whose clean gives nothing; these forms' all give the fields)."""
        return self.cleaned_data

    def error_text(self) -> str:
        """Every problem, as one line for a page's message."""
        # (an ErrorList gives each problem as its text; the stubs allow the ValidationError it holds)
        return " ".join(str(message) for errors in self.errors.values() for message in errors)


class OnceForm(Form):
    """A form that makes something, sent with a one-off key (`new_form_key`, written
    into the page): the same page form sent twice makes one thing, not two."""

    once = forms.RegexField(
        r"^[A-Za-z0-9_-]{16,32}$",
        required=False,
        widget=forms.HiddenInput,
        error_messages={"invalid": "The form's one-off key is not one this site writes: reload the page."},
    )


def new_form_key() -> str:
    """A fresh one-off key for a page form (22 characters)."""
    return secrets.token_urlsafe(16)


class Flag(forms.Field):
    """Yes when sent as "1" (a ticked box, a "combine" button), else no."""

    def __init__(self, **kwargs: Any):
        super().__init__(required=False, **kwargs)

    def to_python(self, value: Any) -> bool:
        return value == "1"


class Several(forms.Field):
    """Every value sent under one name (the ticked boxes, the script's `set` changes)."""

    widget = forms.MultipleHiddenInput

    def __init__(self, **kwargs: Any):
        super().__init__(required=False, **kwargs)

    def to_python(self, value: Any) -> list[str]:
        if isinstance(value, str):
            return [value]
        return list(value or [])


def picks_of(sent: Iterable[tuple[str, str]]) -> dict[str, int]:
    """(option, number sent) pairs as picks: whole numbers from 0, at most MAX_PICKS
    (more is the most); every value that is not one is named."""
    picks, errors = {}, []
    for option_id, value in sent:
        try:
            number = int(value)
        except (TypeError, ValueError):
            number = -1
        if number < 0:
            errors.append(ValidationError(f'"{value}" is not a number of picks.'))
        else:
            picks[option_id] = min(number, MAX_PICKS)
    if errors:
        raise ValidationError(errors)
    return picks


# -- a new list ------------------------------------------------------------------------
class NewListForm(OnceForm):
    """A new list of a ruleset: its army, its size in points (when the ruleset counts
    points) and a name. Valid, it holds the checked list as `cleaned_data["list"]`."""

    faction = forms.CharField(error_messages={"required": "Pick an army."})
    points = forms.IntegerField(error_messages={"required": GAME_SIZE, "invalid": GAME_SIZE})
    name = forms.CharField(required=False)

    def __init__(self, data: Any = None, *, ruleset: Ruleset, factions: list[Faction]):
        super().__init__(data)
        self.ruleset = ruleset
        if len(factions) == 1:
            self.fields["faction"].initial = factions[0].slug
        if ruleset.uses_points:
            self.fields["points"].initial = ruleset.default_points
        else:  # Arena: the composition card decides, not points
            del self.fields["points"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        body = {
            "name": cleaned["name"],
            "system": self.ruleset.slug,
            "faction": cleaned["faction"],
            "points_limit": cleaned.get("points"),
            "entries": [],
        }
        try:
            cleaned["list"], _handle = parse_list_body(body)
        except ListFormatError as exc:
            for key, problem in exc.errors.items():
                field = "points" if key == "points_limit" else key
                self.add_error(field if field in self.fields else None, first_error(problem))
        return cleaned


# -- importing a list file -------------------------------------------------------------
class ImportForm(Form):
    """A list file (armylist/1 JSON or an Army Forge list) or an Army Forge share link.
    Valid, it holds the list carried over as `cleaned_data["imported"]` (the checked
    list, its book and the warnings)."""

    file = forms.FileField(required=False, allow_empty_file=True)  # empty: "not a list we can read"
    armyforge = forms.CharField(required=False, max_length=2000, strip=True)

    def __init__(self, *args: Any, requester: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.requester = requester  # who imports, for the limit on share links (imports.importer)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        upload, link = cleaned.get("file"), cleaned.get("armyforge")
        if upload is None and not link:
            if not self.errors:
                raise forms.ValidationError(
                    "Choose a list file (armylist/1 JSON or an Army Forge list) or paste an Army Forge share link."
                )
            return cleaned
        if upload is not None and link:
            raise forms.ValidationError("Import a file or a share link, one at a time.")
        try:
            cleaned["imported"] = (
                list_from_file(upload.read())
                if upload is not None
                else list_from_armyforge_link(link, requester=self.requester)
            )
        except ListFormatError as exc:
            if upload is not None:
                self.add_error("file", f"{upload.name} is not a list we can read: {exc}")
            else:
                self.add_error("armyforge", f"The share link could not be imported: {exc}")
        return cleaned


# -- the builder's actions -------------------------------------------------------------
ACTIONS: dict[str, type[ActionForm]] = {}


def action(name: str) -> Callable[[type[ActionForm]], type[ActionForm]]:
    """Register the form of the action posted as `action=<name>`."""

    def register(form_class: type[ActionForm]) -> type[ActionForm]:
        ACTIONS[name] = form_class
        return form_class

    return register


def action_form(
    data: Any, current: ListData, *, list_id: int | None = None, undone: Collection[str] = ()
) -> ActionForm:
    """The form of the action `data` names, bound to it and to the list as it is now (an
    unknown action gets the plain form, whose `action` field says so): list `list_id`,
    whose session has used the undos `undone` (web/undo.py)."""
    return ACTIONS.get(data.get("action", ""), ActionForm)(data, current=current, list_id=list_id, undone=undone)


class ActionForm(Form):
    """One change to a list in the builder: the action, the version of the list the page
    showed (the service refuses the change if the list has moved on since) and the entry
    most actions are about. Each action's form adds its fields and `change`.

    Valid, it holds the list after the change, checked as any list is, as
    `cleaned_data["list"]`, and the entry the builder shows next as `["selected"]`."""

    action = forms.ChoiceField(
        choices=lambda: [(name, name) for name in ACTIONS],
        error_messages={"required": UNKNOWN_ACTION, "invalid_choice": UNKNOWN_ACTION},
    )
    version = forms.IntegerField(error_messages={"required": NO_VERSION, "invalid": NO_VERSION})
    entry = forms.CharField(required=False, strip=False)

    def __init__(self, data: Any, *, current: ListData, list_id: int | None = None, undone: Collection[str] = ()):
        super().__init__(data)
        self.current, self.list_id, self.undone = current, list_id, undone

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            changed, cleaned["selected"] = self.change(self.current)
            cleaned["list"], cleaned["handle"] = parse_list_body(changed)
        except (editing.EditError, ListFormatError) as exc:
            raise ValidationError(str(exc)) from exc
        return cleaned

    def change(self, data: ListData) -> tuple[ListData, str | None]:
        """The list after this action, and the entry to show next."""
        raise NotImplementedError

    def with_entries(self, data: ListData, entries: editing.Entries) -> tuple[ListData, str | None]:
        """The list with new entries, the posted entry still shown."""
        return {**data, "entries": entries}, self.cleaned_data["entry"] or None


@action("add")
class AddForm(ActionForm):
    unit = forms.CharField(error_messages={"required": "Say which unit to add."})

    def change(self, data: ListData) -> tuple[ListData, str | None]:
        entries, new_id = editing.add_entry(data["entries"], self.cleaned_data["unit"])
        return {**data, "entries": entries}, new_id


class RemovingForm(ActionForm):
    """An action that takes entries out of the list. Valid, it holds what it took out, and
    its words, as `cleaned_data["removed"]`: the message that confirms it offers to put it
    back (web/undo.py)."""

    removal: editing.Removal

    def removing(self, entries: editing.Entries) -> list[str]:
        """The ids of the entries to take out."""
        raise NotImplementedError

    def change(self, data: ListData) -> tuple[ListData, str | None]:
        entries, self.removal = editing.remove_entries(data["entries"], self.removing(data["entries"]))
        return {**data, "entries": entries}, None

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if not self.errors:
            cleaned["removed"] = undos.Removed(self.words(cleaned["handle"]), self.removal)
        return cleaned

    def words(self, handle: BookHandle) -> str:
        """What was removed, as the builder named it ("Household Guard (2)")."""
        book, _ruleset = engine_book_get(system=self.current["system"], slug=self.current["faction"], handle=handle)
        labels = presenters.entry_labels(book, self.current["entries"])
        return " and ".join(labels[entry["id"]] for _, entry in self.removal.removed)


@action("remove")
class RemoveForm(RemovingForm):
    def removing(self, entries: editing.Entries) -> list[str]:
        return [self.cleaned_data["entry"]]


@action("clear")
class ClearForm(RemovingForm):
    """Every unit out of the list at once."""

    def removing(self, entries: editing.Entries) -> list[str]:
        if not entries:
            raise editing.EditError("The list has no units to remove.")
        return [entry["id"] for entry in entries]

    def words(self, handle: BookHandle) -> str:
        count = len(self.removal.removed)
        return super().words(handle) if count == 1 else f"all {count} units"


@action("undo")
class UndoForm(ActionForm):
    """What a removal took out, put back (editing.restore_entries): `undo` is the signed
    record the removal's message carried (web/undo.py). Valid, `cleaned_data["undo"]` is
    that record, read and checked."""

    undo = forms.CharField(strip=False, error_messages={"required": undos.ALTERED})

    def clean_undo(self) -> undos.Undo:
        return undos.read(self.cleaned_data["undo"], list_id=self.list_id, used=self.undone)

    def change(self, data: ListData) -> tuple[ListData, str | None]:
        removal = self.cleaned_data["undo"].removed.removal
        return {**data, "entries": editing.restore_entries(data["entries"], removal)}, None


@action("duplicate")
class DuplicateForm(ActionForm):
    def change(self, data: ListData) -> tuple[ListData, str | None]:
        entries, copy_id = editing.duplicate_entry(data["entries"], self.cleaned_data["entry"])
        return {**data, "entries": entries}, copy_id


@action("rename")
class RenameForm(ActionForm):
    name = forms.CharField(required=False)

    def change(self, data: ListData) -> tuple[ListData, str | None]:
        entry, name = self.cleaned_data["entry"], self.cleaned_data["name"]
        return self.with_entries(data, editing.rename_entry(data["entries"], entry, name))


@action("move")
class MoveForm(ActionForm):
    step = forms.TypedChoiceField(
        choices=[("up", "up"), ("down", "down")],
        coerce={"up": -1, "down": 1}.get,
        error_messages={"required": "Say which way: up or down.", "invalid_choice": "Say which way: up or down."},
    )

    def change(self, data: ListData) -> tuple[ListData, str | None]:
        entry, step = self.cleaned_data["entry"], self.cleaned_data["step"]
        return self.with_entries(data, editing.move_entry(data["entries"], entry, step))


@action("combine")
class CombineForm(ActionForm):
    combined = Flag()

    def change(self, data: ListData) -> tuple[ListData, str | None]:
        entry, combined = self.cleaned_data["entry"], self.cleaned_data["combined"]
        return self.with_entries(data, editing.set_combined(data["entries"], entry, combined))


@action("join")
class JoinForm(ActionForm):
    target = forms.CharField(required=False, empty_value=None)  # none: leave the unit

    def change(self, data: ListData) -> tuple[ListData, str | None]:
        entry, target = self.cleaned_data["entry"], self.cleaned_data["target"]
        return self.with_entries(data, editing.set_joined(data["entries"], entry, target))


@action("options")
class OptionsForm(ActionForm):
    """The upgrades of one entry. The whole form (without JavaScript) sends every pick:
    "o:<option>" a number, "s:<section>" the option picked, "c" each box ticked; a +/-
    button adds its `bump` ("<option>:+1" or ":-1"). The page's script sends only what
    the player touched, marked `partial`: `set` changes ("<option>=<picks>") and a bump,
    applied to the picks the list has now (editing.change_options)."""

    partial = Flag()
    set = Several()
    c = Several()
    bump = forms.CharField(required=False)

    def clean_set(self) -> dict[str, int]:
        return picks_of(change.rpartition("=")[::2] for change in self.cleaned_data["set"])

    def clean_bump(self) -> tuple[str, int] | None:
        value = self.cleaned_data["bump"]
        if not value:
            return None
        option_id, _, step = value.rpartition(":")
        if not option_id or step not in STEPS:
            raise ValidationError(f'"{value}" is not one more or one less of an option.')
        return option_id, STEPS[step]

    def change(self, data: ListData) -> tuple[ListData, str | None]:
        entry, bump = self.cleaned_data["entry"], self.cleaned_data["bump"]
        if self.cleaned_data["partial"]:
            return self.with_entries(
                data, editing.change_options(data["entries"], entry, self.cleaned_data["set"], bump)
            )
        options = editing.bump_option(self.every_pick(), bump)
        return self.with_entries(data, editing.set_options(data["entries"], entry, options))

    def clean(self) -> dict[str, Any]:
        """The change, unless it takes more of an option than its section allows (a number
        typed past the field's limit): then refused, in the words of the validator's issue."""
        cleaned = super().clean()
        if self.errors:
            return cleaned
        data, entry_id = cleaned["list"], cleaned["entry"]
        after = next((e for e in data["entries"] if e["id"] == entry_id), None)
        before = next((e for e in self.current["entries"] if e["id"] == entry_id), None)
        if after is None or before is None:
            return cleaned
        book, _ruleset = engine_book_get(system=data["system"], slug=data["faction"], handle=cleaned["handle"])
        unit = book.units.get(after["unit"])
        if unit is None:
            return cleaned
        copies = 2 if after.get("combined") else 1
        refused = refused_picks(unit, before.get("options", {}), after.get("options", {}), copies=copies)
        if refused:
            label = after.get("name") or unit.name
            raise ValidationError(" ".join(f"{label}: {message}." for message in refused))
        return cleaned

    def every_pick(self) -> dict[str, int]:
        """The picks the whole form sends."""
        picks = picks_of((key[2:], value) for key, value in self.data.items() if key.startswith("o:"))
        picks.update({value: 1 for key, value in self.data.items() if key.startswith("s:") and value})
        for option_id in self.cleaned_data["c"]:
            picks[option_id] = max(picks.get(option_id, 0), 1)
        return picks


@action("settings")
class SettingsForm(ActionForm):
    """The list's name, notes, points limit and force organisation; a name or notes not
    sent stay as they are."""

    name = forms.CharField(required=False)
    notes = forms.CharField(required=False, strip=False)
    points_limit = forms.IntegerField(required=False, error_messages={"invalid": editing.POINTS_LIMIT})
    force_org = Flag()

    def change(self, data: ListData) -> tuple[ListData, str | None]:
        sent = {field: self.cleaned_data[field] if field in self.data else None for field in ("name", "notes")}
        changed = editing.change_settings(
            data,
            **sent,
            points_limit=self.cleaned_data["points_limit"],
            force_org=self.cleaned_data["force_org"],
            force_org_choice=has_force_org_choice(ruleset_family(data["system"])),
        )
        return changed, self.cleaned_data["entry"] or None


# -- moving a list to another version of its book ----------------------------------------
class BookVersionForm(Form):
    """A version of the list's book to move it to (`to`; blank: the book's current one),
    one the book holds. Valid, `cleaned_data["to"]` is that version's name and
    `["book"]` the list's book (lists/selectors.py ListBook)."""

    to = forms.CharField(max_length=40, required=False)

    def __init__(self, data: Any, *, book: ListBook | None, faction: str):
        super().__init__(data)
        self.book, self.faction = book, faction

    def clean_to(self) -> str:
        if self.book is None:
            gone = f'The army book "{self.faction}" is no longer in the catalogue: the list cannot move.'
            raise ValidationError(gone)
        to = self.cleaned_data["to"] or self.book.current
        if to not in self.book.held:
            held = ", ".join(reversed(self.book.held))
            raise ValidationError(f'{self.book.name} has no version "{to}" here: it holds {held}.')
        return to

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        cleaned["book"] = self.book
        return cleaned


class BookMoveForm(BookVersionForm):
    """Moving the list to a version of its book, from the list version the review showed
    (the service refuses the move if the list has changed since)."""

    version = forms.IntegerField(min_value=1, error_messages={"required": NO_VERSION, "invalid": NO_VERSION})
