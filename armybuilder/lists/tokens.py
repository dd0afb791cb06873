"""API tokens end with the password that made them."""

from django.apps import apps
from django.conf import settings
from django.db.models.signals import pre_save
from django.dispatch import receiver


@receiver(pre_save, sender=settings.AUTH_USER_MODEL)
def revoke_tokens_on_new_password(sender, instance, raw=False, **kwargs) -> None:
    """A new password ends every API token of the account: whoever had the old password
    (or a token made with it) is out."""
    if raw or instance.pk is None:
        return
    old = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if old is not None and old != instance.password:
        apps.get_model("authtoken", "Token").objects.filter(user_id=instance.pk).delete()
