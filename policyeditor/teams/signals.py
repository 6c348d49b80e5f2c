"""What happens to teams, for apps above this one (the review app writes them to its audit log)."""

from django.dispatch import Signal

# Sent with actor, team, member and role once a member is added or their role changed.
member_added = Signal()
# Sent with actor, team and member once a member is removed.
member_removed = Signal()
# Sent with actor and team once the team's rules (required approvals) changed.
rules_changed = Signal()
