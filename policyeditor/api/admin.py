"""Staff can see and revoke (delete) anyone's API tokens; the digest is never editable."""

from django.contrib import admin

from policyeditor.api.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens by user, newest first; only deleting changes anything."""

    list_display = ["name", "user", "prefix", "created", "last_used"]
    list_filter = ["created"]
    search_fields = ["name", "user__username", "prefix"]
    readonly_fields = ["user", "name", "prefix", "digest", "created", "last_used"]

    def has_add_permission(self, request) -> bool:
        return False  # a token made here could never be shown to anyone: use the settings page
