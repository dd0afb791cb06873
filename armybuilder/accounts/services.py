"""Accounts: the name a user is shown by, and their e-mail address.

A username is for logging in, and is shown to no one but its user: with it, a stranger
knows which account to guess passwords at (and which to lock out). Everywhere others see
a user (an event's organiser, its players, the files an organiser downloads) they see
`display_name`: the name the user chose, or else a neutral "Player N". N is the same for
a user on every page and in every event, but is worked out from their id with the site's
SECRET_KEY, so it says nothing of the account (not its id, not how old it is: user 1 is
often the site's administrator). Changing DJANGO_SECRET_KEY changes these numbers.

A display name is trimmed, 1 to 40 characters, with no control or invisible formatting
characters, and not of the form the site's own "Player N" names take; blank means none.
The e-mail address is optional and is used only to reset a forgotten password. It need
not be unique: refusing one "already in use" would tell a stranger that it has an account.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import IntegrityError, transaction
from django.utils.crypto import salted_hmac

from armybuilder.accounts.models import Profile
from armybuilder.bidi import invisible_characters

DISPLAY_NAME_MAX = Profile._meta.get_field("display_name").max_length or 0
EMAIL_MAX = 254
SITE_NAMES = re.compile(r"(?i)player\s*\d+")


class AccountError(ValueError):
    """Problems with what an account was to be given, by field: {field: [problem, …]}."""

    def __init__(self, errors: dict[str, list[str]]):
        super().__init__(errors)
        self.errors = errors


class AccountChanged(Exception):
    """The account was saved from elsewhere (another tab) since the form was read."""


@dataclass(frozen=True, slots=True)
class Account:
    """What the account page shows its user."""

    username: str
    email: str
    display_name: str  # chosen; blank: none
    shown_as: str  # what others see
    version: int  # of the profile; 0: none saved yet


def default_name(user_id: int) -> str:
    """The neutral name of a user who chose none: "Player " and six digits, the same every
    time for one user on one site, and telling nothing about the account."""
    # The salt keeps the module's old name: a new one would renumber every player.
    digest = salted_hmac("armybuilder.lists.accounts.default_name", str(user_id)).hexdigest()
    return f"Player {100000 + int(digest[:12], 16) % 900000}"


def display_name(user: AbstractBaseUser) -> str:
    """The name others see `user` by (load users with their `profile`: no query then)."""
    try:
        chosen = user.profile.display_name  # type: ignore[attr-defined]
    except Profile.DoesNotExist:
        chosen = ""
    return chosen or default_name(user.pk)


def display_name_clean(value: Any) -> tuple[str, list[str]]:
    """The display name as kept (trimmed; "" for none), and every problem with it."""
    if not isinstance(value, str):
        return "", ["The display name should be text."]
    name = value.strip()
    problems = []
    if len(name) > DISPLAY_NAME_MAX:
        problems.append(f"The display name is {len(name)} characters long; it may have at most {DISPLAY_NAME_MAX}.")
    if codes := invisible_characters(name):
        problems.append(
            f"The display name holds control or invisible characters ({codes}): use letters, digits, spaces "
            "and punctuation."
        )
    if SITE_NAMES.fullmatch(name):
        problems.append(f'"{name}" is how the site names players who chose no name: choose another.')
    return name, problems


def email_clean(value: Any) -> tuple[str, list[str]]:
    """The e-mail address as kept (trimmed; "" for none), and every problem with it."""
    if not isinstance(value, str):
        return "", ["The e-mail address should be text."]
    email = value.strip()
    if not email:
        return "", []
    if len(email) > EMAIL_MAX:
        return email, [f"The e-mail address is {len(email)} characters long; it may have at most {EMAIL_MAX}."]
    try:
        validate_email(email)
    except ValidationError:
        return email, [f'"{email}" is not an e-mail address: write it as name@example.org, or leave it empty.']
    return email, []


def account_problems(*, email: Any, display_name: Any) -> dict[str, list[str]]:
    """Every problem with an account's e-mail address and display name, by field (none: {})."""
    problems = {"email": email_clean(email)[1], "display_name": display_name_clean(display_name)[1]}
    return {field: found for field, found in problems.items() if found}


def _checked(*, email: Any, display_name: Any) -> tuple[str, str]:
    """(e-mail, display name) as kept; AccountError names every problem."""
    problems = account_problems(email=email, display_name=display_name)
    if problems:
        raise AccountError(problems)
    return email_clean(email)[0], display_name_clean(display_name)[0]


def account_get(*, user: User) -> Account:
    profile = Profile.objects.filter(user=user).first()
    chosen = profile.display_name if profile else ""
    return Account(
        username=user.get_username(),
        email=getattr(user, "email", ""),
        display_name=chosen,
        shown_as=chosen or default_name(user.pk),
        version=profile.version if profile else 0,
    )


@transaction.atomic
def user_create(*, username: str, password: str, email: str = "", display_name: str = "") -> AbstractBaseUser:
    """A new account (the sign-up form has checked the username and password), with its
    profile. AccountError names every problem with the e-mail address and display name."""
    email, name = _checked(email=email, display_name=display_name)
    user = get_user_model().objects.create_user(username=username, email=email, password=password)
    Profile.objects.create(user=user, display_name=name)
    return user


@transaction.atomic
def account_update(*, user: User, email: str, display_name: str, version: int) -> Account:
    """Give the account this e-mail address and display name, if its profile is still at
    `version` (0: it has none yet), else AccountChanged and nothing is written (two tabs
    of the account page do not undo each other's changes). AccountError names every
    problem with the values, and nothing is written either."""
    email, name = _checked(email=email, display_name=display_name)
    _profile_write(user=user, display_name=name, version=version)
    get_user_model().objects.filter(pk=user.pk).update(email=email)
    user.email = email
    return account_get(user=user)


@transaction.atomic
def display_name_update(*, user: User, display_name: str, version: int) -> Account:
    """Give the account this display name (staff putting right an offensive one in the
    admin), on the same terms as account_update: AccountChanged when its profile is no
    longer at `version`, AccountError naming every problem with the name; either way
    nothing is written. Blank: none, and others see the site's "Player N"."""
    name, problems = display_name_clean(display_name)
    if problems:
        raise AccountError({"display_name": problems})
    _profile_write(user=user, display_name=name, version=version)
    return account_get(user=user)


def _profile_write(*, user: User, display_name: str, version: int) -> None:
    """One compare-and-swap on the profile's version (0: it has none yet, and it is made);
    AccountChanged when another request wrote it first."""
    saved = Profile.objects.filter(user=user, version=version).update(display_name=display_name, version=version + 1)
    if not saved and version == 0:
        try:
            with transaction.atomic():
                Profile.objects.create(user=user, display_name=display_name)
                saved = 1
        except IntegrityError:  # made by another request since this one was read
            pass
    if not saved:
        raise AccountChanged()
