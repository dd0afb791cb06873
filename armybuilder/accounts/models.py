"""What an account shows of itself to others: its Profile.

The table kept its name from when profiles were part of the lists app (lists_profile):
the move to this app changed where the model lives, not the database.
"""

from django.conf import settings
from django.db import models


class Profile(models.Model):
    """What an account shows others: the display name its user chose (blank: none, and
    others see the neutral name accounts/services.py gives it). Usernames are for logging
    in and are shown to no one else. An account made by the admin or `createsuperuser` has
    no profile until its user saves their account page."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="profile"
    )
    display_name = models.CharField(max_length=40, blank=True, help_text="Shown to others instead of the username")
    version = models.PositiveIntegerField(default=1, help_text="Bumped on every save")

    class Meta:
        db_table = "lists_profile"

    def __str__(self) -> str:
        return self.display_name or f"profile of user {self.pk}"
