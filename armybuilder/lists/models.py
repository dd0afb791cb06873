"""Saved army lists and the event packs lists are entered for (what an account shows of
itself to others, its Profile, is in armybuilder/accounts/models.py).

A list belongs to a user, or, for a visitor with no account, to a random visitor id kept
in the browser session (claimed by the user on sign-up or log in). An event pack is a
club's or a tournament's own rules for the lists it accepts; players submit lists to it,
and a submission keeps a frozen copy of the list (see armybuilder/lists/events.py).
"""

import secrets

from django.conf import settings
from django.db import models

# A list's columns that armylist/1 holds as they are.
ARMYLIST_FIELDS = ("name", "system", "faction", "points_limit", "force_org", "notes", "entries")


def new_share_key() -> str:
    """A 192-bit random key for the share link, separate from the id."""
    return secrets.token_urlsafe(24)


def new_pack_key() -> str:
    """A 96-bit random key for an event pack's address: packs are found by their link."""
    return secrets.token_urlsafe(12)


class EventPack(models.Model):
    """An event's rules: a ruleset (or variant) and a points limit, changes to its limit
    rows, the army books allowed, banned units or options and per-unit caps, and the
    deadline for submissions. Its rules are `events.event_rules(pack)`."""

    key = models.CharField(max_length=32, unique=True, default=new_pack_key, editable=False)
    organiser = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="event_packs")
    name = models.CharField(max_length=120)
    description = models.TextField(max_length=2000, blank=True)
    ruleset = models.ForeignKey("factions.Ruleset", on_delete=models.PROTECT, related_name="event_packs")
    points_limit = models.PositiveIntegerField(null=True, blank=True, help_text="Empty for Arena warbands")
    deadline = models.DateTimeField(help_text="Submissions close at this time")
    factions = models.JSONField(default=list, blank=True, help_text="Army book slugs allowed; empty: all")
    limit_changes = models.JSONField(
        default=dict,
        blank=True,
        help_text='Limit code -> the parameters it takes, e.g. {"unit_too_expensive": {"percent": 30}}',
    )
    limits_removed = models.JSONField(default=list, blank=True, help_text="Codes of the ruleset's limits not used")
    limits_added = models.JSONField(
        default=list, blank=True, help_text="Limit rows of the event's own: {code, kind, params, section}"
    )
    bans = models.JSONField(
        default=list, blank=True, help_text='[{"faction": …, "unit": …} or {"faction": …, "option": …}]'
    )
    caps = models.JSONField(default=list, blank=True, help_text='[{"faction": …, "unit": …, "max": N}]')
    books = models.CharField(
        max_length=10,
        choices=[("current", "current"), ("any", "any")],
        default="current",
        help_text="current: each list must use its army book's current version; any: players keep theirs",
    )
    version = models.PositiveIntegerField(default=1, help_text="Bumped on every save")
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-deadline", "-id"]
        verbose_name = "event pack"

    def __str__(self) -> str:
        return self.name

    @property
    def path(self) -> str:
        """The pack's page on this site: its link, without the host."""
        return f"/events/{self.key}/"


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
        EventPack,
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


class Submission(models.Model):
    """A player's list entered for an event: a frozen copy, which later edits to the list
    leave alone (the player may submit again before the deadline)."""

    pack = models.ForeignKey(EventPack, on_delete=models.CASCADE, related_name="submissions")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    army_list = models.ForeignKey(
        ArmyList, null=True, blank=True, on_delete=models.SET_NULL, related_name="submissions", help_text="Copied from"
    )
    data = models.JSONField(help_text="The list as submitted (armylist/1)")
    book_version = models.CharField(max_length=48)
    submitted_at = models.DateTimeField()
    # The last validation against the event's rules, and what it was worked out from.
    validation = models.JSONField(null=True, blank=True, editable=False)
    validation_stamp = models.CharField(max_length=200, blank=True, editable=False)

    class Meta:
        ordering = ["submitted_at", "id"]
        constraints = [models.UniqueConstraint(fields=["pack", "player"], name="one_submission_per_player")]

    def __str__(self) -> str:
        return f"{self.player} for {self.pack}"
