"""Saved army lists (the event packs they are entered for are armybuilder/events/; what an
account shows of itself to others, its Profile, is armybuilder/accounts/).

A list belongs to a user, or, for a visitor with no account, to a random visitor id kept
in the browser session (claimed by the user on sign-up or log in). A list may be built
for an event pack (armybuilder/events/models.py).
"""

import secrets

from django.conf import settings
from django.db import models

from armybuilder.lists.format import bounded_entries

# A list's columns that armylist/1 holds as they are.
ARMYLIST_FIELDS = ("name", "system", "faction", "points_limit", "force_org", "notes", "entries")


def new_share_key() -> str:
    """A 192-bit random key for the share link, separate from the id."""
    return secrets.token_urlsafe(24)


class ArmyList(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.CASCADE, related_name="army_lists"
    )
    visitor = models.CharField(max_length=64, blank=True, db_index=True, help_text="Visitor id for lists of no user")
    name = models.CharField(max_length=200, blank=True)
    system = models.CharField(max_length=40, help_text="Ruleset slug")
    faction = models.CharField(max_length=80, help_text="Faction slug in that ruleset")
    book_version = models.CharField(
        max_length=48, help_text="The version of the army book it is pinned to: its prices and rules"
    )
    points_limit = models.PositiveIntegerField(null=True, blank=True)
    force_org = models.BooleanField(default=True)
    notes = models.TextField(blank=True)
    entries = models.JSONField(default=list, blank=True)
    version = models.PositiveIntegerField(default=1, help_text="Bumped on every save")
    share_key = models.CharField(max_length=64, unique=True, default=new_share_key)
    # The last validation worked out (Validation.as_dict()) and what it was worked out
    # from (the list's version and its book's cache key): listings show it while the
    # stamp still matches, instead of validating every list again.
    validation = models.JSONField(null=True, blank=True, editable=False)
    validation_stamp = models.CharField(max_length=200, blank=True, editable=False)
    # By the pack's key, which armylist/1 names it by: no query to write a list out.
    event = models.ForeignKey(
        "events.EventPack",
        to_field="key",
        db_column="event_key",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="lists",
        help_text="Built for this event",
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    # The one-off key of the page form that made the list ("Create list", "Build a list
    # for this event"): the same form sent again (a double click, Enter pressed three
    # times, a resend after a lost answer) finds this list instead of making another.
    form_key = models.CharField(max_length=32, blank=True, default="", editable=False)

    class Meta:
        ordering = ["-updated", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(owner__isnull=False) | ~models.Q(visitor=""), name="army_list_has_an_owner"
            ),
            models.UniqueConstraint(
                fields=["form_key"], condition=~models.Q(form_key=""), name="army_list_form_key_once"
            ),
        ]

    def __str__(self) -> str:
        return self.name or f"{self.faction} list"

    @classmethod
    def from_db(cls, db, field_names, values):
        """As read, with its entries bounded (lists.format.bounded_entries): a row stored
        past the input checks answers in what its units can take, not in what it holds."""
        army_list = super().from_db(db, field_names, values)
        if "entries" in army_list.__dict__:
            army_list.entries = bounded_entries(army_list.entries)
        return army_list

    @property
    def share_path(self) -> str:
        """The share page's address on this site (the share link, without the host)."""
        return f"/s/{self.share_key}/"

    def as_armylist(self, *, with_event: bool = True) -> dict:
        """The list in armylist/1 form, with the version of its book it is pinned to
        (`event`, the key of its event pack, when it has one and `with_event`: a share
        link does not hand out the event's link)."""
        data = {"format": "armylist/1", **{field: getattr(self, field) for field in ARMYLIST_FIELDS}}
        if self.book_version:
            data["book_version"] = self.book_version
        if self.event_id is not None and with_event:
            data["event"] = self.event_id
        return data


class UsedUndo(models.Model):
    """The key of an Undo that has put its units back (armybuilder/web/undo.py): an Undo
    is used once, whoever sends it and from whatever session. Taken before the change is
    saved (the key is unique, so of two at once one is refused) and let go again if the
    change is not saved; kept a day, the Undo's own age, then cleared."""

    key = models.CharField(max_length=32, unique=True)
    used_at = models.DateTimeField(auto_now_add=True, db_index=True)

    def __str__(self) -> str:
        return self.key
