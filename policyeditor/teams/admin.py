"""Admin pages to manage teams and members."""

from django.contrib import admin

from policyeditor.teams.models import Membership, Team, TeamQuota


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
