"""What the review app adds to the editor, through the editor's extension points."""

from __future__ import annotations

from django.urls import reverse

from policyeditor.editor import extensions
from policyeditor.editor.models import Draft
from policyeditor.review import audit, bundle, comments, permissions, testcases, workflow
from policyeditor.review.diffs import document_label
from policyeditor.review.models import Action, DraftWorkflow, SavedTestCase
from policyeditor.teams.models import Team


def record_export(user, draft: Draft, number: int, *, part: str, approved: bool) -> None:
    """Append an `exported` event to the audit log."""
    audit.record(
        Action.EXPORTED,
        actor=user,
        draft=draft,
        revision_number=number,
        detail={"approved": approved, "part": part},
    )


def join_team(draft: Draft, team: Team) -> bool:
    """Put a draft in a team unless it already has one; True when it was moved."""
    # Not workflow.assign_team: the demo drafts join whatever their owner's role (bob reviews).
    _, created = DraftWorkflow.objects.get_or_create(draft=draft, defaults={"team": team})
    return created


def export_links(draft: Draft) -> list[tuple[str, str]]:
    """(label, url) of the saved cases' zip in each export layout, on the last saved revision."""
    revision = workflow.latest_revision(draft)
    if revision is None:
        return []
    url = reverse("review:bundle_export", args=[draft.pk, revision.number])
    return [(bundle.LAYOUT_LABELS[layout], f"{url}?layout={layout}") for layout in bundle.LAYOUTS]


def saved(draft: Draft) -> list[SavedTestCase]:
    """The draft's saved test cases, oldest first."""
    return list(draft.saved_test_cases.order_by("created", "pk"))


def field_comments(draft: Draft, user) -> list[dict]:
    """The open field threads of the draft's latest revision, for showing at the editor's fields."""
    if not permissions.can_view(user, draft):
        return []
    found = []
    revision = draft.revisions.filter(number=draft.revision).first()
    if revision is None:
        return []
    labels = [document_label(doc, i) for i, doc in enumerate(revision.documents or [])]
    for thread in comments.threads_for(draft, revision):
        root = thread.root
        if thread.resolved or not root.field_path:
            continue
        index = labels.index(root.document) if root.document in labels else 0
        found.append(
            {
                "doc_index": index,
                "path": root.field_path,
                "author": root.author.get_username() if root.author else "someone",
                "body": root.body,
                "replies": len(thread.replies),
                "url": root.get_absolute_url(),
            }
        )
    return found


def comment_url(draft: Draft, user) -> str:
    """Where the editor posts a comment on a field ('' when the user may not comment)."""
    if not permissions.can_comment(user, draft):
        return ""
    return reverse("review:field_comment", args=[draft.pk])


EXTENSION = extensions.Extension(
    app="policyeditor.review",
    access=extensions.DraftAccess(
        visible_drafts=permissions.visible_drafts,
        visible_draft=permissions.visible_draft,
        can_edit=permissions.can_edit,
        team_storage=permissions.team_storage,
    ),
    review=extensions.DraftReview(
        review_url=lambda draft: reverse("review:draft", args=[draft.pk]),
        cases_url=lambda draft: reverse("review:cases", args=[draft.pk]),
        team_of=permissions.team_of,
        approved_revision=workflow.approved_revision,
        record_export=record_export,
        join_team=join_team,
        share_try_url=lambda draft: reverse("review:share_try", args=[draft.pk]),
        field_comments=field_comments,
        comment_url=comment_url,
    ),
    cases=extensions.SavedCases(
        saved=saved,
        summary=testcases.case_summary,
        bundle_files=testcases.bundle_files,
        save=testcases.save_case,
        export_links=export_links,
    ),
)
