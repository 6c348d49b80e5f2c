"""Admin pages to manage teams and members; audit events are read-only."""

from django.contrib import admin

from policyeditor.review.models import (
    AuditEvent,
    Comment,
    DraftWorkflow,
    Membership,
    Review,
    SavedTestCase,
    ShareLink,
    Team,
    TeamQuota,
)


class MembershipInline(admin.TabularInline):
    """Members of a team with their roles, edited on the team's page."""

    model = Membership
    extra = 1
    autocomplete_fields = ["user"]


class TeamQuotaInline(admin.StackedInline):
    """The team's storage limits, replacing the POLICYEDITOR_QUOTA_TEAM_* defaults when set."""

    model = TeamQuota
    extra = 0
    max_num = 1


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    """Teams with their members and approval rule."""

    list_display = ["name", "required_approvals", "created"]
    search_fields = ["name"]
    exclude = ["group"]
    inlines = [MembershipInline, TeamQuotaInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    """Every membership, filterable by team and role."""

    list_display = ["user", "team", "role"]
    list_filter = ["team", "role"]
    search_fields = ["user__username", "team__name"]
    autocomplete_fields = ["user"]


@admin.register(DraftWorkflow)
class DraftWorkflowAdmin(admin.ModelAdmin):
    """Which team a draft belongs to and its approved revision."""

    list_display = ["draft", "team", "approved_revision", "updated"]
    list_filter = ["team"]
    raw_id_fields = ["draft", "approved_revision", "review_requested_by"]


@admin.register(Review)
class ReviewAdmin(admin.ModelAdmin):
    """Review decisions."""

    list_display = ["draft", "revision", "reviewer", "decision", "created"]
    list_filter = ["decision"]
    raw_id_fields = ["draft", "revision", "reviewer"]


@admin.register(Comment)
class CommentAdmin(admin.ModelAdmin):
    """Comments, for moderation."""

    list_display = ["draft", "revision", "author", "field_path", "resolved", "created"]
    list_filter = ["resolved"]
    raw_id_fields = ["draft", "revision", "author", "parent", "resolved_by"]


@admin.register(ShareLink)
class ShareLinkAdmin(admin.ModelAdmin):
    """Share links and whether they were revoked."""

    list_display = ["revision", "created_by", "created", "revoked_at"]
    raw_id_fields = ["revision", "created_by"]


@admin.register(SavedTestCase)
class SavedTestCaseAdmin(admin.ModelAdmin):
    """Saved test cases of drafts."""

    list_display = ["name", "draft", "updated"]
    raw_id_fields = ["draft", "created_by"]


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    """The audit log: visible, filterable, never editable."""

    list_display = ["created", "actor_name", "action", "draft_name", "revision_number", "team"]
    list_filter = ["action", "team"]
    search_fields = ["actor_name", "draft_name"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
