"""Storage quotas: how many drafts, revisions and bytes a user, and a team, may keep."""

# Without a limit one account stored 1.6 GiB a minute (issue 20). Each user is limited over the
# drafts they own, each team over the drafts in it; an administrator raises or lowers either in
# the Django admin (UserQuota, the teams app's TeamQuota). Settings give the defaults; 0 is no limit.

from __future__ import annotations

import json
from dataclasses import dataclass

from django.conf import settings
from django.db.models import QuerySet, Sum

from policyeditor.editor.access import team_storage
from policyeditor.editor.errors import DraftInputError
from policyeditor.editor.models import Draft, Revision, UserQuota

MIB = 1024 * 1024
DEFAULTS = {
    "user": {"drafts": 200, "revisions": 5000, "bytes": 100 * MIB},
    "team": {"drafts": 1000, "revisions": 25000, "bytes": 500 * MIB},
}


class QuotaExceeded(DraftInputError):
    """A write would take a user or team past a storage limit; the message is for the user."""

    def __init__(self, message: str, *, what: str, limit: int, used: int) -> None:
        super().__init__(message)
        self.message = message
        self.what = what
        self.limit = limit
        self.used = used


@dataclass(frozen=True)
class Limits:
    """Drafts, revisions and bytes allowed (0: no limit)."""

    drafts: int
    revisions: int
    bytes: int


def stored_size(documents: list) -> int:
    """The bytes a revision's documents take, as compact JSON (what the quota counts)."""
    return len(json.dumps(documents, separators=(",", ":"), ensure_ascii=False).encode())


def default_limits(scope: str) -> Limits:
    """The limits from settings, e.g. POLICYEDITOR_QUOTA_USER_BYTES, else DEFAULTS."""
    values = {
        name: int(getattr(settings, f"POLICYEDITOR_QUOTA_{scope.upper()}_{name.upper()}", default))
        for name, default in DEFAULTS[scope].items()
    }
    return Limits(**values)


def _with_override(limits: Limits, override) -> Limits:
    if override is None:
        return limits
    return Limits(
        drafts=limits.drafts if override.max_drafts is None else override.max_drafts,
        revisions=limits.revisions if override.max_revisions is None else override.max_revisions,
        bytes=limits.bytes if override.max_bytes is None else override.max_bytes,
    )


def user_limits(user) -> Limits:
    """The user's limits: the defaults, with their admin override."""
    return _with_override(default_limits("user"), UserQuota.objects.filter(user=user).first())


def _usage(drafts: QuerySet[Draft]) -> tuple[int, int, int]:
    revisions = Revision.objects.filter(draft__in=drafts)
    totals = revisions.aggregate(size=Sum("size"))
    return drafts.count(), revisions.count(), int(totals["size"] or 0)


def _mib(size: int) -> str:
    return f"{size / MIB:.1f} MiB"


def _check(whose: Whose, limits: Limits, drafts: QuerySet[Draft], new_drafts: int, size: int):
    count, revisions, used = _usage(drafts)
    hint = "Delete drafts you no longer need, or ask an administrator to raise the quota."
    if new_drafts and limits.drafts and count + new_drafts > limits.drafts:
        raise QuotaExceeded(
            f"{whose.holder} {count} drafts, the limit is {limits.drafts}. {hint}",
            what="drafts",
            limit=limits.drafts,
            used=count,
        )
    if limits.revisions and revisions + 1 > limits.revisions:
        raise QuotaExceeded(
            f"{whose.drafts} hold {revisions} revisions, the limit is {limits.revisions}. {hint}",
            what="revisions",
            limit=limits.revisions,
            used=revisions,
        )
    if limits.bytes and used + size > limits.bytes:
        raise QuotaExceeded(
            f"{whose.drafts} take {_mib(used)}; this revision ({_mib(size)}) would pass the "
            f"limit of {_mib(limits.bytes)}. {hint}",
            what="bytes",
            limit=limits.bytes,
            used=used,
        )


@dataclass(frozen=True)
class Whose:
    """How messages name the quota's holder."""

    holder: str  # "You have" / "Team x has"
    drafts: str  # "Your drafts" / "The drafts of team x"


YOU = Whose("You have", "Your drafts")


def check_create(owner, documents: list) -> int:
    """QuotaExceeded if `owner` may not create a draft of `documents`; else its stored size."""
    size = stored_size(documents)
    _check(YOU, user_limits(owner), Draft.objects.filter(owner=owner), 1, size)
    return size


def check_save(draft: Draft, documents: list) -> int:
    """QuotaExceeded if a new revision of `draft` would pass its team's (else its owner's) limit."""
    # A team draft counts against the team, whoever saves it: one member's personal quota must
    # not stop the rest of the team from working on a draft that member happened to create.
    size = stored_size(documents)
    team = team_storage(draft)
    if team is not None:
        name, drafts, override = team
        whose = Whose(f"Team {name} has", f"The drafts of team {name}")
        _check(whose, _with_override(default_limits("team"), override), drafts, 0, size)
    else:
        owner = draft.owner
        _check(YOU, user_limits(owner), Draft.objects.filter(owner=owner), 0, size)
    return size
