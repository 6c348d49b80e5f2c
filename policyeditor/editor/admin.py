"""Admin pages for drafts (revisions are read-only)."""

from django.contrib import admin

from policyeditor.editor.models import Draft, Revision, UserQuota


@admin.register(Draft)
class DraftAdmin(admin.ModelAdmin):
    """Drafts with their owner, kind and status."""

    list_display = ["name", "kind", "kubernetes_version", "owner", "status", "revision", "updated"]
    list_filter = ["kind", "status", "kubernetes_version"]
    search_fields = ["name", "description"]


@admin.register(Revision)
class RevisionAdmin(admin.ModelAdmin):
    """Revisions are history: visible, never editable."""

    list_display = ["draft", "number", "author", "note", "size", "created"]

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(UserQuota)
class UserQuotaAdmin(admin.ModelAdmin):
    """Per-user storage limits that replace the POLICYEDITOR_QUOTA_USER_* defaults."""

    list_display = ["user", "max_drafts", "max_revisions", "max_bytes"]
    search_fields = ["user__username"]
    autocomplete_fields = ["user"]
