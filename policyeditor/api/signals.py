"""A password change revokes the user's API tokens: whoever knew the old password may hold one."""

from __future__ import annotations

from django.contrib.auth.hashers import check_password

from policyeditor.api.models import ApiToken


def revoke_tokens_on_password_change(sender, instance, raw=False, **kwargs) -> None:
    """pre_save receiver of the user model: delete the tokens when the stored password changes."""
    if raw or instance.pk is None:
        return
    old = sender.objects.filter(pk=instance.pk).values_list("password", flat=True).first()
    if old is None or old == instance.password:
        return
    # Signing in may re-hash the same password with newer hasher settings: not a change.
    raw_password = getattr(instance, "_password", None)
    if raw_password is not None and old and check_password(raw_password, old):
        return
    ApiToken.objects.filter(user_id=instance.pk).delete()
