"""Event packs and the lists players submit to them.

An event pack is a club's or a tournament's own rules for the lists it accepts; players
submit lists to it, and a submission keeps a frozen copy of the list (see
armybuilder/events/services.py). The tables kept the names they had when these models
lived in the lists app.
"""

import secrets

from django.conf import settings
from django.db import models

# The longest event pack key: the `key` column and every place a key is taken in (a
# page's form, the API's fields) hold this many characters. new_pack_key makes 16.
PACK_KEY_LENGTH = 32


def new_pack_key() -> str:
    """A 96-bit random key for an event pack's address: packs are found by their link."""
    return secrets.token_urlsafe(12)


class EventPack(models.Model):
    """An event's rules: a ruleset (or variant) and a points limit, changes to its limit
    rows, the army books allowed, banned units or options and per-unit caps, and the
    deadline for submissions. Its rules are `rules.event_rules(pack)`."""

    key = models.CharField(max_length=PACK_KEY_LENGTH, unique=True, default=new_pack_key, editable=False)
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
        db_table = "lists_eventpack"
        ordering = ["-deadline", "-id"]
        verbose_name = "event pack"

    def __str__(self) -> str:
        return self.name

    @property
    def path(self) -> str:
        """The pack's page on this site: its link, without the host."""
        return f"/events/{self.key}/"


class Submission(models.Model):
    """A player's list entered for an event: a frozen copy, which later edits to the list
    leave alone (the player may submit again before the deadline)."""

    pack = models.ForeignKey(EventPack, on_delete=models.CASCADE, related_name="submissions")
    player = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="submissions")
    army_list = models.ForeignKey(
        "lists.ArmyList", models.SET_NULL, null=True, blank=True, related_name="submissions", help_text="Copied from"
    )
    data = models.JSONField(help_text="The list as submitted (armylist/1)")
    book_version = models.CharField(max_length=48)
    submitted_at = models.DateTimeField()
    # The last validation against the event's rules, and what it was worked out from.
    validation = models.JSONField(null=True, blank=True, editable=False)
    validation_stamp = models.CharField(max_length=200, blank=True, editable=False)

    class Meta:
        db_table = "lists_submission"
        ordering = ["submitted_at", "id"]
        constraints = [models.UniqueConstraint(fields=["pack", "player"], name="one_submission_per_player")]

    def __str__(self) -> str:
        return f"{self.player} for {self.pack}"
