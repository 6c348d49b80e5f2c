"""Refusals of team and review actions; the message says why."""


class WorkflowError(Exception):
    """An action on a team or a draft's review was refused; the message says why."""


class NotAllowed(WorkflowError):
    """The user's role does not allow the action."""
