"""The event pages' forms: a pack's details, each kind of event rule on its edit page,
building or submitting a list for an event, and the builder's "Event" field.

The forms read what a page posts (types, what is required); what a pack may say is the
service's to check (events/format.py check_pack), and its field errors are shown next to
the form that caused them (`EventForm.add_event_errors`)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.formats import date_format
from django.utils.timezone import localtime

from armybuilder.engine import Book
from armybuilder.engine.book import Limit
from armybuilder.engine.limit_kinds import ADDABLE_KINDS, KINDS, describe_limit
from armybuilder.events import format as pack_format
from armybuilder.events import selectors as event_selectors
from armybuilder.events.models import PACK_KEY_LENGTH, EventPack
from armybuilder.events.rules import BOOKS_RULES, EVENT_SOURCE, ban_words, cap_words
from armybuilder.lists.format import ListFormatError, first_error, parse_list_body
from armybuilder.lists.models import ArmyList
from armybuilder.lists.selectors import ListSummary
from armybuilder.web.forms import Flag, Form, OnceForm
from factions.models import Ruleset

STALE = "This pack was changed after the page was opened (in another tab, or by someone else): nothing was saved."
DEADLINE_HELP = f"Date and time, read as {settings.TIME_ZONE} time."
PICK_A_LIST = "Pick one of your lists."
NO_PACK = "No event pack has this link or key (it may have been deleted)."
PACK_LINK = re.compile(r"/events/([^/?#]+)")
PACK_KEY = re.compile(rf"[A-Za-z0-9_-]{{1,{PACK_KEY_LENGTH}}}")
# Kinds an organiser adds as rows of their own (those with an example to type from); armies,
# bans and caps have forms of their own.
ROW_KINDS = [kind for kind in ADDABLE_KINDS if KINDS[kind].example]
PARAM_LABELS = {
    "per": "One for every (pts)",
    "percent": "Percent of the points",
    "base": "Base number",
    "minimum": "Never fewer than",
    "max": "At most",
    "min": "At least",
}


def problem_messages(problem: Any) -> list[str]:
    """Every message in a service's field errors, however deeply they are nested."""
    if isinstance(problem, dict):
        return [message for value in problem.values() for message in problem_messages(value)]
    if isinstance(problem, list):
        return [message for value in problem for message in problem_messages(value)]
    return [str(problem)]


class EventForm(Form):
    """A form of the event pages, which shows the service's errors as its own."""

    def add_event_errors(self, errors: dict[str, Any]) -> None:
        """The service's field errors (EventError.errors) on this form: on the field of
        the same name, else on the form as a whole."""
        for field, problem in errors.items():
            for message in problem_messages(problem):
                self.add_error(field if field in self.fields else None, message)


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _ruleset_choices() -> list[tuple[str, str]]:
    """Every ruleset and variant, a variant saying which game it plays."""
    rulesets = Ruleset.objects.select_related("base")
    return [(r.slug, f"{r.title} (a variant of {r.base.name})" if r.base else r.title) for r in rulesets]


BOOKS_LABELS = {
    "current": "Current versions: each list on its army book's current version",
    "any": "Any version: players keep the version they built their list on",
}
BOOKS_CHOICES = [(rule, BOOKS_LABELS[rule]) for rule in BOOKS_RULES]


# -- a pack's details ----------------------------------------------------------------------
class PackForm(EventForm):
    """A pack's name, description, ruleset, points, deadline and the versions of the army
    books it plays, as `pack_data()`."""

    name = forms.CharField(max_length=120, error_messages={"required": "Give the event a name."})
    description = forms.CharField(required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 3}))
    ruleset = forms.ChoiceField(choices=_ruleset_choices)
    points_limit = forms.IntegerField(
        required=False,
        label="Points",
        help_text="The game size every list is built to; leave it empty for Arena warbands.",
        error_messages={"invalid": "A whole number of points."},
    )
    deadline = forms.DateTimeField(
        label="Submissions close",
        help_text=DEADLINE_HELP,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        error_messages={
            "required": "Say when submissions close.",
            "invalid": "A date and a time, e.g. 2026-12-31 18:00.",
        },
    )

    books = forms.ChoiceField(
        required=False,
        label="Army book versions",
        choices=BOOKS_CHOICES,
        initial="current",
        help_text="Army books change a few times a year; a list keeps the version it was built on until its player "
        "updates it.",
    )

    def pack_data(self) -> dict[str, Any]:
        data = {field: self.cleaned_data[field] for field in self.fields if field in pack_format.PACK_FIELDS}
        if not data.get("books"):
            data.pop("books", None)  # not sent: the pack's own (a new pack's default)
        return data


# -- the edit page -------------------------------------------------------------------------
class EditForm(EventForm):
    """One change on a pack's edit page. `rule` names the form in the post; `version` is
    the pack's version the page showed: a change made from an older page is refused."""

    rule = ""
    version = forms.IntegerField(widget=forms.HiddenInput, error_messages={"required": STALE, "invalid": STALE})

    def __init__(self, data: Any = None, *, pack: EventPack, view: event_selectors.PackView, **kwargs: Any):
        kwargs.setdefault("auto_id", f"{self.rule}-%s")
        super().__init__(data, **kwargs)
        self.pack, self.view = pack, view
        self.fields["version"].initial = pack.version

    def clean_version(self) -> int:
        if self.cleaned_data["version"] != self.pack.version:
            raise ValidationError(STALE)
        return self.cleaned_data["version"]

    def changes(self) -> dict[str, Any]:
        """The fields of the pack this change sets (for event_services.pack_update)."""
        raise NotImplementedError

    def done(self) -> str:
        return "Saved."

    def where(self) -> str:
        """The place on the edit page to come back to after the change."""
        return f"#{self.rule}"


class BasicsForm(EditForm, PackForm):
    rule = "basics"

    def __init__(self, data: Any = None, *, pack: EventPack, view: event_selectors.PackView):
        fields = ("name", "description", "points_limit", "deadline", "books")
        initial = {field: getattr(pack, field) for field in fields}
        super().__init__(data, pack=pack, view=view, initial={**initial, "ruleset": pack.ruleset.slug})

    def changes(self) -> dict[str, Any]:
        return self.pack_data()

    def done(self) -> str:
        return "Saved the event's details."


class LimitForm(EditForm):
    """One limit row of the pack's ruleset: its numbers at this event, or not used."""

    rule = "limit"
    code = forms.CharField(widget=forms.HiddenInput)
    unused = Flag(label="Not used at this event")

    def __init__(self, data: Any = None, *, pack: EventPack, view: event_selectors.PackView, limit: Limit):
        super().__init__(data, pack=pack, view=view, auto_id=f"limit-{limit.code}-%s")
        self.limit = limit
        self.numbers = [key for key, value in limit.params.items() if _whole(value)]
        changed = pack.limit_changes.get(limit.code, {})
        for key in self.numbers:
            self.fields[key] = forms.IntegerField(
                label=PARAM_LABELS.get(key, key), initial=changed.get(key, limit.params[key])
            )
        self.fields["code"].initial = limit.code
        self.fields["unused"].initial = limit.code in pack.limits_removed

    @property
    def number_fields(self) -> list[forms.BoundField]:
        return [self[key] for key in self.numbers]

    @property
    def rulebook_words(self) -> str:
        return describe_limit(self.limit.kind, dict(self.limit.params))

    @property
    def event_words(self) -> str:
        """What the event says instead, when it changes the numbers ("" when it does not)."""
        changed = self.pack.limit_changes.get(self.limit.code)
        return describe_limit(self.limit.kind, {**self.limit.params, **changed}) if changed else ""

    def changes(self) -> dict[str, Any]:
        code, params = self.limit.code, self.limit.params
        numbers = {key: self.cleaned_data[key] for key in self.numbers if self.cleaned_data[key] != params[key]}
        limit_changes = {other: values for other, values in self.pack.limit_changes.items() if other != code}
        if numbers:
            limit_changes[code] = numbers
        removed = [other for other in self.pack.limits_removed if other != code]
        if self.cleaned_data["unused"]:
            removed.append(code)
        return {"limit_changes": limit_changes, "limits_removed": removed}

    def done(self) -> str:
        numbers = {key: self.cleaned_data[key] for key in self.numbers}
        words = describe_limit(self.limit.kind, {**self.limit.params, **numbers})
        if self.cleaned_data["unused"]:
            return f"Saved: “{words}” is not used at this event."
        return f"Saved: {words}."

    def where(self) -> str:
        return f"#limit-{self.limit.code}"


class AddLimitForm(EditForm):
    """A limit row of the event's own: a kind, its parameters and where players read it."""

    rule = "add-limit"
    kind = forms.ChoiceField(choices=[(kind, KINDS[kind].label) for kind in ROW_KINDS])
    params = forms.CharField(
        label="Parameters", help_text='As JSON, e.g. {"counts": "heroes", "max": 1}: see the examples below.'
    )
    section = forms.CharField(
        required=False, max_length=100, label="Where players read it", help_text="e.g. Club pack, page 2"
    )

    @property
    def examples(self) -> list[tuple[str, str]]:
        """Each kind's name and an example of its parameters."""
        return [(KINDS[kind].label, KINDS[kind].example) for kind in ROW_KINDS]

    def clean_params(self) -> dict[str, Any]:
        try:
            params = json.loads(self.cleaned_data["params"])
        except (ValueError, RecursionError):  # not JSON, or nested past what the parser follows
            params = None
        if not isinstance(params, dict):
            raise ValidationError('Write the parameters as JSON, e.g. {"counts": "heroes", "max": 1}.')
        return params

    def changes(self) -> dict[str, Any]:
        kind = self.cleaned_data["kind"]
        taken = {limit.code for limit in self.view.ruleset.limits} | {row["code"] for row in self.pack.limits_added}
        number = next(n for n in range(1, len(taken) + 2) if f"event_{kind}_{n}" not in taken)
        row = {
            "code": f"event_{kind}_{number}",
            "kind": kind,
            "params": self.cleaned_data["params"],
            "section": self.cleaned_data["section"] or EVENT_SOURCE,
        }
        return {"limits_added": [*self.pack.limits_added, row]}

    def done(self) -> str:
        return "Added the limit."


class ArmiesForm(EditForm):
    """The army books a list may use at the event; none ticked: every one."""

    rule = "armies"
    factions = forms.MultipleChoiceField(required=False, widget=forms.CheckboxSelectMultiple, label="Armies")

    def __init__(self, data: Any = None, *, pack: EventPack, view: event_selectors.PackView):
        super().__init__(data, pack=pack, view=view)
        books = sorted(view.books.values(), key=lambda book: book.name)
        self.army_choices = [(book.slug, book.name) for book in books]  # (slug, name), by name
        factions = self.fields["factions"]
        assert isinstance(factions, forms.MultipleChoiceField)  # the field declared above
        factions.choices = self.army_choices
        factions.initial = list(pack.factions)

    def changes(self) -> dict[str, Any]:
        ticked = set(self.cleaned_data["factions"])
        return {"factions": [slug for slug, _name in self.army_choices if slug in ticked]}

    def done(self) -> str:
        return "Saved the armies allowed."


class ArmyRuleForm(EditForm):
    """A rule about one army's units or upgrades: the army is a hidden field, and
    `picks` the field choosing one of its units (or upgrades)."""

    faction = forms.CharField(widget=forms.HiddenInput)
    picks = "unit"

    def __init__(self, data: Any = None, *, pack: EventPack, view: event_selectors.PackView, book: Book | None):
        super().__init__(data, pack=pack, view=view)
        self.book = book
        self.fields["faction"].initial = book.slug if book else ""
        if book is not None:
            self.fields[self.picks].label = self.label(book.name)
            self.fields[self.picks].widget.choices = self.choices(book)

    def label(self, army: str) -> str:
        raise NotImplementedError

    def choices(self, book: Book) -> list[tuple[str, str]]:
        """What `picks` offers of the army's book."""
        return sorted(((unit.id, unit.name) for unit in book.units.values()), key=lambda pair: pair[1])

    def where(self) -> str:
        return f"?{urlencode({'army': self.cleaned_data['faction']})}#bans"


class BanForm(ArmyRuleForm):
    """A unit (`picks="unit"`) or an upgrade (`picks="option"`) of one army banned at the event."""

    NOUNS = {"unit": ("a unit", "unit"), "option": ("an upgrade", "upgrade")}
    unit = forms.CharField(widget=forms.Select)
    option = forms.CharField(widget=forms.Select)

    def __init__(self, data: Any = None, *, picks: str, **kwargs: Any):
        self.picks = picks
        self.rule = f"ban-{picks}"
        self.article, self.noun = self.NOUNS[picks]
        super().__init__(data, **kwargs)
        del self.fields["option" if picks == "unit" else "unit"]
        self.fields[picks].error_messages["required"] = f"Pick the {self.noun} to ban."

    def label(self, army: str) -> str:
        return f"Ban {self.article} of {army}"

    @property
    def button(self) -> str:
        return f"Ban the {self.noun}"

    def choices(self, book: Book) -> list[tuple[str, str]]:
        """The army's units; or each of its upgrades once, with the first unit that takes it."""
        if self.picks == "unit":
            return super().choices(book)
        found: dict[str, str] = {}
        for unit in sorted(book.units.values(), key=lambda unit: unit.name):
            for option_id, (section, option) in unit.options.items():
                found.setdefault(option_id, f"{option.label} ({unit.name}: {section.label})")
        return sorted(found.items(), key=lambda pair: pair[1])

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if not self.errors and self.ban() in self.pack.bans:
            raise ValidationError(f"That {self.noun} is banned already.")
        return cleaned

    def ban(self) -> dict[str, str]:
        return {"faction": self.cleaned_data["faction"], self.picks: self.cleaned_data[self.picks]}

    def changes(self) -> dict[str, Any]:
        return {"bans": [*self.pack.bans, self.ban()]}

    def done(self) -> str:
        return f"Banned the {self.noun}."


class CapForm(ArmyRuleForm):
    rule = "cap"
    button = "Cap the unit"
    unit = forms.CharField(widget=forms.Select, error_messages={"required": "Pick the unit to cap."})
    max = forms.IntegerField(label="At most", initial=1, error_messages={"invalid": "A whole number from 0 to 100."})

    def label(self, army: str) -> str:
        return f"Cap a unit of {army}"

    def changes(self) -> dict[str, Any]:
        faction, unit = self.cleaned_data["faction"], self.cleaned_data["unit"]
        others = [cap for cap in self.pack.caps if (cap["faction"], cap["unit"]) != (faction, unit)]
        return {"caps": [*others, {"faction": faction, "unit": unit, "max": self.cleaned_data["max"]}]}

    def done(self) -> str:
        return "Capped the unit."


class RemoveForm(EditForm):
    """Drop one row of the event's own limits, bans or caps."""

    rule = "remove"
    what = forms.ChoiceField(choices=[("limits_added", "limit"), ("bans", "ban"), ("caps", "cap")])
    index = forms.IntegerField(min_value=0)

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if not self.errors and cleaned["index"] >= len(getattr(self.pack, cleaned["what"])):
            raise ValidationError("That rule is not there any more.")
        return cleaned

    @property
    def section(self) -> str:
        """Which rows the posted removal was of ("" when none was posted)."""
        return self.data.get("what", "") if self.is_bound else ""

    def where(self) -> str:
        return "#add-limit" if self.cleaned_data["what"] == "limits_added" else "#bans"

    def changes(self) -> dict[str, Any]:
        rows = list(getattr(self.pack, self.cleaned_data["what"]))
        del rows[self.cleaned_data["index"]]
        return {self.cleaned_data["what"]: rows}

    def done(self) -> str:
        return "Removed the rule."


@dataclass
class EditForms:
    """Every form of a pack's edit page, the one posted (if any) bound to the post."""

    basics: BasicsForm
    limits: list[LimitForm]
    add_limit: AddLimitForm
    armies: ArmiesForm
    ban_unit: BanForm
    ban_option: BanForm
    cap: CapForm
    remove: RemoveForm
    army_books: list[Book]  # the armies whose units the ban and cap forms offer

    @property
    def posted(self) -> EditForm | None:
        every = [self.basics, *self.limits, self.add_limit, self.armies, self.ban_unit, self.ban_option, self.cap]
        return next((form for form in [*every, self.remove] if form.is_bound), None)

    @property
    def book(self) -> Book | None:
        return self.ban_unit.book

    @property
    def added(self) -> list[tuple[int, str, str]]:
        """The event's own limit rows: (index, in words, where players read it)."""
        rows = self.basics.pack.limits_added
        return [
            (i, describe_limit(row["kind"], row["params"]), row.get("section", EVENT_SOURCE))
            for i, row in enumerate(rows)
        ]

    @property
    def bans(self) -> list[tuple[int, str]]:
        books = self.basics.view.books
        return [(i, ban_words(ban, books)) for i, ban in enumerate(self.basics.pack.bans)]

    @property
    def caps(self) -> list[tuple[int, str]]:
        books = self.basics.view.books
        return [(i, cap_words(cap, books)) for i, cap in enumerate(self.basics.pack.caps)]


def edit_forms(data: Any, *, pack: EventPack, view: event_selectors.PackView, army: str | None) -> EditForms:
    """The edit page's forms; `army` is the army the ban and cap forms show (the first
    one allowed when it names none)."""
    rule = data.get("rule") if data else None

    def bound(form_rule: str, code: str = "") -> Any:
        return data if rule == form_rule and (not code or data.get("code") == code) else None

    books = view.armies or sorted(view.books.values(), key=lambda book: book.name)
    wanted = data.get("faction") if rule in ("ban-unit", "ban-option", "cap") else army
    book = view.books.get(wanted or "") or (books[0] if books else None)
    return EditForms(
        basics=BasicsForm(bound("basics"), pack=pack, view=view),
        limits=[
            LimitForm(bound("limit", limit.code), limit=limit, pack=pack, view=view) for limit in view.ruleset.limits
        ],
        add_limit=AddLimitForm(bound("add-limit"), pack=pack, view=view),
        armies=ArmiesForm(bound("armies"), pack=pack, view=view),
        ban_unit=BanForm(bound("ban-unit"), picks="unit", book=book, pack=pack, view=view),
        ban_option=BanForm(bound("ban-option"), picks="option", book=book, pack=pack, view=view),
        cap=CapForm(bound("cap"), book=book, pack=pack, view=view),
        remove=RemoveForm(bound("remove"), pack=pack, view=view),
        army_books=books,
    )


# -- building and submitting -----------------------------------------------------------------
class BuildForm(EventForm, OnceForm):
    """A new list for the event: one of the armies it takes, its ruleset and points, and
    a name. Valid, it holds the checked list as `cleaned_data["list"]`."""

    faction = forms.CharField(label="Army", error_messages={"required": "Pick an army."})
    name = forms.CharField(required=False, max_length=200, label="List name (optional)")

    def __init__(self, data: Any = None, *, pack: EventPack, armies: list[Book]):
        super().__init__(data, auto_id="build-%s")
        self.pack, self.armies = pack, armies

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        names = {book.slug: book.name for book in self.armies}
        if self.errors:
            return cleaned
        if cleaned["faction"] not in names:
            self.add_error("faction", "This event does not take that army.")
            return cleaned
        body = {
            "name": cleaned["name"] or f"{names[cleaned['faction']]} for {self.pack.name}"[:200],
            "system": self.pack.ruleset.slug,
            "faction": cleaned["faction"],
            "points_limit": self.pack.points_limit,
            "entries": [],
            "event": self.pack.key,
        }
        try:
            cleaned["list"], _handle = parse_list_body(body)
        except ListFormatError as exc:
            self.add_error(None, " ".join(first_error(problem) for problem in exc.errors.values()))
        return cleaned


@dataclass(frozen=True, slots=True)
class ListChoice:
    """One of the player's lists in the "Submit one of your lists" menu."""

    pk: int
    label: str


def list_choices(
    lists: Sequence[ArmyList], summaries: Sequence[ListSummary], *, armies: dict[str, str], pack: EventPack
) -> list[ListChoice]:
    """The menu's options, `summaries` the lists' (lists.selectors.army_list_summaries). A
    player often has lists of the same name (a copy kept before a change, one per event):
    each option says the list's name, its army book and version, its points and when it
    was last changed, so that the player can tell them apart."""
    return [
        ListChoice(army_list.pk, _choice_label(army_list, summary.validation, armies, pack))
        for army_list, summary in zip(lists, summaries, strict=True)
    ]


def _choice_label(army_list: ArmyList, validation: dict[str, Any], armies: dict[str, str], pack: EventPack) -> str:
    """ "Border Patrol · Human Empire 3.5.2 · 1495/1500 pts · changed 29 Nov 2026, 12:30" """
    army = armies.get(army_list.faction, army_list.faction)
    parts = [army_list.name or "Unnamed list", f"{army} {army_list.book_version}".strip()]
    total, limit = validation["total_points"], validation["points_limit"]
    if limit:
        parts.append(f"{total}/{limit} pts")
    elif total:  # a ruleset of no points (Arena warbands) has no points to say
        parts.append(f"{total} pts")
    parts.append(f"changed {date_format(localtime(army_list.updated), 'j M Y, H:i')}")
    if army_list.event_id == pack.key:
        parts.append("built for this event")
    return " · ".join(parts)


class SubmitForm(EventForm):
    """Which of the player's lists to submit (the view finds it among theirs: 404 else)."""

    army_list = forms.IntegerField(label="Your list", error_messages={"required": PICK_A_LIST, "invalid": PICK_A_LIST})

    def __init__(self, data: Any = None):
        super().__init__(data, auto_id="submit-%s")


class ListEventForm(EventForm):
    """The builder's "Event" field: an event pack's link or key (its pack as
    `cleaned_data["pack"]`), or nothing, or "leave", for no event."""

    event = forms.CharField(required=False, max_length=300, label="Event")
    leave = Flag()

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        text = (cleaned.get("event") or "").strip()
        cleaned["pack"] = None
        if self.errors or cleaned.get("leave") or not text:
            return cleaned
        link = PACK_LINK.search(text)
        key = link.group(1) if link else text.strip("/")
        pack = event_selectors.event_pack_find(key=key) if PACK_KEY.fullmatch(key) else None
        if pack is None:
            self.add_error("event", NO_PACK)
        cleaned["pack"] = pack
        return cleaned
