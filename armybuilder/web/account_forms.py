"""The account forms: sign-up (Django's, with an e-mail address and a display name, both
optional) and the account page. The e-mail address and the display name are checked by
accounts/services.py, which the services that save them and the backups use too; every
problem of every field is named at once."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm

from armybuilder.accounts import mail
from armybuilder.accounts import services as accounts

DISPLAY_NAME_HELP = (
    f"Up to {accounts.DISPLAY_NAME_MAX} characters. Organisers and other players see you by this name, never by "
    "your username; without one, you are shown as “Player” and a number."
)
EMAIL_HELP = "Only to send you a link if you forget your password; shown to no one."


def _email_field() -> forms.CharField:
    # Checked by accounts/services.py (as the backups are), not by Django's EmailField.
    return forms.CharField(
        label="E-mail address (optional)",
        required=False,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
        help_text=EMAIL_HELP,
    )


def _display_name_field() -> forms.CharField:
    return forms.CharField(
        label="Display name (optional)",
        required=False,
        widget=forms.TextInput(attrs={"maxlength": accounts.DISPLAY_NAME_MAX, "autocomplete": "nickname"}),
        help_text=DISPLAY_NAME_HELP,
    )


class AccountFieldsMixin:
    """The checks of the e-mail address and the display name, with the form's others."""

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}  # type: ignore[misc]
        problems = accounts.account_problems(
            email=cleaned.get("email", ""), display_name=cleaned.get("display_name", "")
        )
        for field, messages in problems.items():
            self.add_error(field, messages)  # type: ignore[attr-defined]
        return cleaned


class SignupForm(AccountFieldsMixin, UserCreationForm):
    email = _email_field()
    display_name = _display_name_field()
    field_order = ["username", "display_name", "email", "password1", "password2"]

    def account_data(self) -> dict[str, str]:
        """What accounts.user_create takes."""
        data = self.cleaned_data
        return {
            "username": data["username"],
            "password": data["password1"],
            "email": data["email"],
            "display_name": data["display_name"],
        }


class AccountForm(AccountFieldsMixin, forms.Form):
    display_name = _display_name_field()
    email = _email_field()
    password = forms.CharField(
        required=False,
        label="Your password",
        help_text="Needed only to change the e-mail address (where a password reset is sent).",
        widget=forms.PasswordInput(attrs={"autocomplete": "current-password"}),
    )
    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)

    def __init__(self, data: Any = None, *, account: accounts.Account, user: Any):
        initial = {"display_name": account.display_name, "email": account.email, "version": account.version}
        super().__init__(data, initial=initial)
        self.account, self.user = account, user

    def clean(self) -> dict[str, Any]:
        """A new e-mail address needs the password: whoever holds a stolen session must
        not be able to point the password reset at an address of their own."""
        cleaned = super().clean()
        email_changes = "email" in cleaned and cleaned["email"] != self.account.email
        if email_changes and not self.user.check_password(cleaned.get("password") or ""):
            self.add_error("password", "Enter your password to change the e-mail address.")
        return cleaned

    def account_data(self) -> dict[str, Any]:
        """What accounts.account_update takes, besides the user."""
        return {field: self.cleaned_data[field] for field in ("email", "display_name", "version")}


class ResetForm(PasswordResetForm):
    """Django's reset form, its e-mail sent after the answer (armybuilder/accounts/mail.py)."""

    def send_mail(self, *args: Any, **kwargs: Any) -> None:
        mail.send_later(super().send_mail, *args, **kwargs)
