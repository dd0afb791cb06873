"""Saved army lists. A list belongs to a user, or, for a visitor with no account, to a
random visitor id kept in the browser session (claimed by the user on sign-up or log in).
"""

import secrets

from django.conf import settings
from django.db import models


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
    book_version = models.CharField(max_length=40, help_text="Version of the army book it was last saved with")
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
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(owner__isnull=False) | ~models.Q(visitor=""), name="army_list_has_an_owner"
            )
        ]

    def __str__(self) -> str:
        return self.name or f"{self.faction} list"

    @property
    def share_path(self) -> str:
        """The share page's address on this site (the share link, without the host)."""
        return f"/s/{self.share_key}/"

    def as_armylist(self) -> dict:
        """The list in armylist/1 form."""
        return {
            "format": "armylist/1",
            "name": self.name,
            "system": self.system,
            "faction": self.faction,
            "points_limit": self.points_limit,
            "force_org": self.force_org,
            "notes": self.notes,
            "entries": self.entries,
        }
