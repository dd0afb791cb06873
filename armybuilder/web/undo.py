"""Undo, offered in the message that confirms a removal (a unit's Remove, or Clear: every
unit at once).

The Undo is a plain form inside the message (templates/builder/_undo.html), so it works
without JavaScript, and through the page's script like any builder action: it posts
`action=undo` with the list version the page holds, and its change is saved with the same
compare-and-swap as every other (a stale one is refused and changes nothing).

What it puts back travels in the form, signed with the site's secret key
(django.core.signing, salted with the list's id): each entry removed with its place, and
the heroes the removal left unjoined. The server reads back only what it signed itself,
for this list: a form altered by hand is refused before anything in it is read. What it
puts back is then checked as any list input is (each entry by the list format's entry
check here, the whole list by parse_list_body in ActionForm.clean), so not even a leaked
key could put a malformed entry in a list. Kept in the form, a removal never undone costs
nothing to store or to expire, however many units a Clear took out.

An Undo is good for a day, and once, whoever sends it: its random key is taken in the
database before its change is saved (`claim`, a unique row), so a double click, another
tab or another session sent the same form puts the units back once; a change that is not
saved lets the key go (`release`)."""

from __future__ import annotations

import secrets
from collections.abc import Collection
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.contrib import messages
from django.core import signing
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone

from armybuilder.lists.editing import Removal
from armybuilder.lists.format import MAX_ENTRIES, check_entry
from armybuilder.lists.models import ArmyList, UsedUndo
from armybuilder.web.fragments import FORM_HEAD

SALT = "armybuilder.web.undo"
MAX_AGE = 24 * 3600
USED = "armybuilder_undone"  # session key: the keys of the undos used, newest last
KEEP_USED = 100

ALTERED = "This Undo is not one this page was given for this list (it was altered): nothing was put back."
TOO_OLD = "This Undo is more than a day old: nothing was put back."
USED_ALREADY = "This was undone already: nothing more was put back."


@dataclass(frozen=True)
class Removed:
    """What a removal took out, and its words ("Household Guard (2)", "all 12 units")."""

    what: str
    removal: Removal


@dataclass(frozen=True)
class Undo:
    """An Undo sent back: its one-off key, and what it puts back."""

    key: str
    removed: Removed


def _salt(list_id: int | None) -> str:
    return f"{SALT}:{list_id}"


def token(list_id: int, removed: Removed) -> str:
    """The signed form of what a removal took out, for the Undo form of list `list_id`."""
    body = {
        "key": secrets.token_urlsafe(9),
        "what": removed.what,
        "removed": [[i, entry] for i, entry in removed.removal.removed],
        "unjoined": removed.removal.unjoined,
    }
    return signing.dumps(body, salt=_salt(list_id), compress=True)


def read(value: str, *, list_id: int | None, used: Collection[str]) -> Undo:
    """The Undo a form sent for list `list_id`; ValidationError, in words, if it is not one
    this site signed for the list, is older than a day or was used already."""
    try:
        body = signing.loads(value, salt=_salt(list_id), max_age=MAX_AGE)
    except signing.SignatureExpired:
        raise ValidationError(TOO_OLD) from None
    except signing.BadSignature:
        raise ValidationError(ALTERED) from None
    undo = _checked(body)
    if undo is None:
        raise ValidationError(ALTERED)
    if undo.key in used or UsedUndo.objects.filter(key=undo.key).exists():
        raise ValidationError(USED_ALREADY)
    return undo


def claim(undo: Undo | None) -> bool:
    """Take the Undo's key before its change is saved: False when it is taken already
    (another session, a double click); True for a change that is no Undo. Keys older than
    an Undo lives are cleared on the way."""
    if undo is None:
        return True
    UsedUndo.objects.filter(used_at__lt=timezone.now() - timedelta(seconds=MAX_AGE)).delete()
    try:
        with transaction.atomic():
            UsedUndo.objects.create(key=undo.key)
    except IntegrityError:
        return False
    return True


def release(undo: Undo | None) -> None:
    """Let the key go again: its change was not saved (the list had moved on)."""
    if undo is not None:
        UsedUndo.objects.filter(key=undo.key).delete()


def _checked(body: Any) -> Undo | None:
    """The signed body as an Undo, each entry checked as a list's entries are; None if
    anything in it is not what `token` writes."""
    if type(body) is not dict or body.keys() != {"key", "what", "removed", "unjoined"}:
        return None
    key, what, removed, unjoined = body["key"], body["what"], body["removed"], body["unjoined"]
    if not (type(key) is str and type(what) is str and type(removed) is list and type(unjoined) is dict):
        return None
    if not 0 < len(removed) <= MAX_ENTRIES or len(what) > 300:
        return None
    places = []
    for item in removed:
        if type(item) is not list or len(item) != 2 or type(item[0]) is not int or not 0 <= item[0] < MAX_ENTRIES:
            return None
        entry, problems = check_entry(item[1])
        if problems or entry is None:  # (check_entry gives no entry only with its problems)
            return None
        places.append((item[0], entry))
    if not all(type(hero) is str and type(unit) is str for hero, unit in unjoined.items()):
        return None
    return Undo(key, Removed(what, Removal(tuple(places), unjoined)))


def used(request: HttpRequest) -> frozenset[str]:
    """The keys of the undos this session has used."""
    return frozenset(request.session.get(USED, []))


def confirm(request: HttpRequest, army_list: ArmyList, cleaned: dict[str, Any]) -> None:
    """The message a saved change leaves when it has one: a removal's offers its Undo; an
    Undo's says what came back (and the Undo cannot be used again)."""
    undo: Undo | None = cleaned.get("undo")
    removed: Removed | None = cleaned.get("removed")
    if undo is not None:
        request.session[USED] = [*request.session.get(USED, []), undo.key][-KEEP_USED:]
        messages.success(request, f"Put back {undo.removed.what}.")
    elif removed is not None:
        context = {"army_list": army_list, "removed": removed, "token": token(army_list.pk, removed)}
        html = render_to_string("builder/_undo.html", {**context, "form_head": FORM_HEAD})
        messages.success(request, html, extra_tags="undo")
