"""Teams, their members and the members' roles."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models

from policyeditor.core.fields import storage_limit_fields


class Role(models.TextChoices):
    """A member's role in a team; each role can do everything the roles before it can."""

    VIEWER = "viewer", "Viewer"
    AUTHOR = "author", "Author"
    REVIEWER = "reviewer", "Reviewer"
    ADMIN = "admin", "Admin"


# Roles are ranked so "at least author" is one comparison (an admin may also review and author).
ROLE_RANK = {Role.VIEWER: 0, Role.AUTHOR: 1, Role.REVIEWER: 2, Role.ADMIN: 3}


class Team(models.Model):
    """A group of people who own drafts together; backed by a Django auth group."""

    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    # How many distinct reviewers must approve the revision under review.
    required_approvals = models.PositiveSmallIntegerField(default=1)
    group = models.OneToOneField(
        Group, on_delete=models.SET_NULL, null=True, blank=True, related_name="team"
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        # The table the review app created before teams were an app of their own: no data moves.
        db_table = "review_team"
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        # The auth group lets Django's own permission tooling see team members.
        if self.group_id is None:
            self.group, _ = Group.objects.get_or_create(name=f"team:{self.name}")
        super().save(*args, **kwargs)


class Membership(models.Model):
    """One user's role in one team."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="team_memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.VIEWER)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "review_membership"
        ordering = ["team", "user__username"]
        constraints = [
            models.UniqueConstraint(fields=["team", "user"], name="membership_team_user_unique")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"

    def save(self, *args, **kwargs) -> None:
        super().save(*args, **kwargs)
        if self.team.group_id:
            self.user.groups.add(self.team.group_id)

    def delete(self, *args, **kwargs):
        if self.team.group_id:
            self.user.groups.remove(self.team.group_id)
        return super().delete(*args, **kwargs)

    @property
    def rank(self) -> int:
        """The role's rank in ROLE_RANK."""
        return ROLE_RANK[Role(self.role)]


class TeamQuota(models.Model):
    """An administrator's override of one team's storage limits; empty fields keep the defaults."""

    team = models.OneToOneField(Team, on_delete=models.CASCADE, related_name="storage_quota")
    max_drafts, max_revisions, max_bytes = storage_limit_fields("drafts in the team", "the team's")

    def __str__(self) -> str:
        return f"storage quota of {self.team}"
