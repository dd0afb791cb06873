"""Credentials changing: a user's password is replaced. The API ends the account's tokens
when it hears of it (armybuilder/api/tokens.py); accounts know nothing of tokens."""

from django.conf import settings
from django.db.models.signals import pre_save
from django.dispatch import Signal, receiver

# Sent with `user_id` when a saved user's password is about to be replaced.
password_changed = Signal()


@receiver(pre_save, sender=settings.AUTH_USER_MODEL)
def announce_new_password(sender, instance, raw=False, **kwargs) -> None:
    """A saved user whose password differs from the one stored: say so before the save
    (in its transaction, so what the receivers do stands or falls with it)."""
    if raw or instance.pk is None:
        return
    old = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if old is not None and old != instance.password:
        password_changed.send(sender=sender, user_id=instance.pk)
