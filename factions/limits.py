"""The admin's side of the limit kinds, whose one registry is the engine's
(`armybuilder.engine.limit_kinds.KINDS`: each kind's check, parameters and words). The
model's `kind` column has no choices, so a new kind needs no migration: the admin's
choices are read from the registry here, and the model's `clean` checks the kind."""

from django import forms

from armybuilder.engine.limit_kinds import KINDS, STORED_KINDS


def kind_choices() -> list[tuple[str, str]]:
    """The kinds a limit row may have, with their labels, in the registry's order."""
    return [(kind, KINDS[kind].label) for kind in STORED_KINDS]


class LimitForm(forms.ModelForm):
    """A limit row in the admin: its kind picked from the registry."""

    kind = forms.ChoiceField(choices=kind_choices)
