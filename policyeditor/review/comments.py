"""Comments on revisions: threads, field anchors, resolve/unresolve and @mentions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from policyeditor.editor.models import Draft, Revision
from policyeditor.review import audit
from policyeditor.review.diffs import document_label
from policyeditor.review.markdown import mentioned_usernames
from policyeditor.review.models import Action, Comment
from policyeditor.review.permissions import can_comment, can_edit, can_review, team_of
from policyeditor.review.workflow import NotAllowed, WorkflowError
from policyeditor.teams.models import Membership

MAX_BODY = 10_000
# `spec.validations[2].expression`, `metadata.labels.app.kubernetes.io/name`, ...
FIELD_PATH = re.compile(r"^[A-Za-z_$][\w$/-]*(?:\[\d+\]|\.[A-Za-z_$][\w$/-]*)*$")
_SEGMENT = re.compile(r"\[(\d+)\]|\.?([^.\[\]]+)")


def parse_field_path(path: str) -> list[str | int]:
    """The steps of a field path (`spec.validations[2]` -> ["spec", "validations", 2])."""
    steps: list[str | int] = []
    for match in _SEGMENT.finditer(path):
        steps.append(int(match.group(1)) if match.group(1) is not None else match.group(2))
    return steps


def resolve_field(documents: list[Any], document: str, path: str) -> tuple[bool, Any]:
    """The value at `path` in the document labelled `document` (default: the first one)."""
    candidates = [
        doc
        for index, doc in enumerate(documents or [])
        if not document or document_label(doc, index) == document
    ]
    if not candidates:
        return False, None
    value: Any = candidates[0]
    for step in parse_field_path(path):
        # Two tests, not one: a type checker narrows `step` and `value` together only per branch.
        if isinstance(step, int) and isinstance(value, list) and step < len(value):
            value = value[step]
            continue
        if isinstance(step, str) and isinstance(value, dict) and step in value:
            value = value[step]
            continue
        return False, None
    return True, value


def field_paths(documents: list[Any], *, limit: int = 400, depth: int = 5) -> list[str]:
    """Field paths found in the documents (for the anchor input's suggestions), without repeats."""
    found: dict[str, None] = {}
    stack: list[tuple[str, Any, int]] = [
        ("", doc, 0) for doc in reversed(documents or []) if isinstance(doc, dict)
    ]
    while stack and len(found) < limit:
        path, value, level = stack.pop()
        if path:
            found.setdefault(path, None)
        if level >= depth:
            continue
        if isinstance(value, dict):
            children = [(f"{path}.{k}" if path else k, v) for k, v in value.items()]
        elif isinstance(value, list):
            children = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
        else:
            continue
        stack.extend((p, v, level + 1) for p, v in reversed(children) if FIELD_PATH.match(p))
    return list(found)


@dataclass
class Thread:
    """A root comment with its replies, and where it points."""

    root: Comment
    replies: list[Comment] = field(default_factory=list)
    anchor_found: bool = True
    anchor_value: Any = None

    @property
    def resolved(self) -> bool:
        """Whether the thread is resolved (kept on the root)."""
        return self.root.resolved


def _check_anchor(revision: Revision, document: str, field_path: str) -> None:
    if field_path and (len(field_path) > 300 or not FIELD_PATH.match(field_path)):
        raise WorkflowError(f"{field_path!r} is not a field path like spec.validations[2].")
    if document:
        labels = [document_label(doc, i) for i, doc in enumerate(revision.documents or [])]
        if document not in labels:
            raise WorkflowError(f"Revision {revision.number} has no document {document!r}.")


@transaction.atomic
def add_comment(
    user,
    draft: Draft,
    revision: Revision,
    body: str,
    *,
    field_path: str = "",
    document: str = "",
    parent: Comment | None = None,
) -> Comment:
    """Comment on a revision (or one field of it), or reply to a thread; mentions notify members."""
    if not can_comment(user, draft):
        raise NotAllowed("You cannot comment on this draft.")
    body = (body or "").strip()
    if not body:
        raise WorkflowError("A comment needs some text.")
    if len(body) > MAX_BODY:
        raise WorkflowError(f"A comment is at most {MAX_BODY} characters.")
    if revision.draft_id != draft.pk:
        raise WorkflowError("That revision belongs to another draft.")
    field_path, document = (field_path or "").strip(), (document or "").strip()
    if parent is not None:
        if parent.draft_id != draft.pk:
            raise WorkflowError("That thread belongs to another draft.")
        # Replies join the root's thread and inherit its anchor.
        parent = parent.parent or parent
        revision, field_path, document = parent.revision, parent.field_path, parent.document
    else:
        _check_anchor(revision, document, field_path)
    comment = Comment.objects.create(
        draft=draft,
        revision=revision,
        author=user,
        body=body,
        field_path=field_path,
        document=document,
        parent=parent,
    )
    team = team_of(draft)
    members = Membership.objects.filter(team=team).values_list("user_id", flat=True)
    mentioned = get_user_model().objects.filter(
        username__in=mentioned_usernames(body), pk__in=members
    )
    notify = [draft.owner, revision.author, *mentioned]
    if parent is not None:
        notify += [parent.author, *(reply.author for reply in parent.replies.all())]
    audit.record(
        Action.COMMENTED,
        actor=user,
        draft=draft,
        revision_number=revision.number,
        detail={
            "comment": comment.pk,
            "field": field_path,
            "mentions": [u.get_username() for u in mentioned],
        },
        notify=notify,
    )
    return comment


def set_resolved(user, comment: Comment, resolved: bool) -> Comment:
    """Resolve or reopen a thread: its author, the draft's authors or reviewers may."""
    draft = comment.draft
    root = comment.parent or comment
    if not (root.author_id == user.pk or can_edit(user, draft) or can_review(user, draft)):
        raise NotAllowed("Only the thread's author, authors and reviewers resolve threads.")
    if root.resolved != resolved:
        root.resolved = resolved
        root.resolved_by = user if resolved else None
        root.resolved_at = timezone.now() if resolved else None
        root.save(update_fields=["resolved", "resolved_by", "resolved_at"])
        audit.record(
            Action.RESOLVED if resolved else Action.UNRESOLVED,
            actor=user,
            draft=draft,
            revision_number=root.revision.number,
            detail={"comment": root.pk},
            notify=[root.author],
        )
    return root


def threads_for(draft: Draft, revision: Revision | None = None) -> list[Thread]:
    """Threads of a draft (of one revision if given), oldest first, anchors checked on `revision`."""
    comments = Comment.objects.filter(draft=draft).select_related("author", "revision")
    if revision is not None:
        comments = comments.filter(revision=revision)
    threads: dict[int, Thread] = {}
    for comment in comments.order_by("created", "pk"):
        if comment.parent_id is None:
            threads[comment.pk] = Thread(comment)
        elif comment.parent_id in threads:
            threads[comment.parent_id].replies.append(comment)
    for thread in threads.values():
        if thread.root.field_path:
            found, value = resolve_field(
                thread.root.revision.documents, thread.root.document, thread.root.field_path
            )
            thread.anchor_found, thread.anchor_value = found, value
    return list(threads.values())


def member_usernames(draft: Draft) -> list[str]:
    """Usernames that @mentions in this draft's comments highlight."""
    team = team_of(draft)
    if team is None:
        return [draft.owner.get_username()]
    return list(Membership.objects.filter(team=team).values_list("user__username", flat=True))
