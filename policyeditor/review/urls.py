"""URLs of team review (namespace `review`)."""

from django.urls import path

from policyeditor.review.views import actions, cases, editor_side, impact, inbox, revisions, shares
from policyeditor.teams import views as teams

app_name = "review"

urlpatterns = [
    path("", inbox.inbox, name="inbox"),
    path("notifications/read/", inbox.mark_read, name="mark_read"),
    path("activity/", inbox.activity, name="activity"),
    path("import/", cases.bundle_import, name="bundle_import"),
    # The teams app's pages, shown with the review app's page (team activity link, styles).
    path(
        "teams/<int:pk>/",
        teams.team_detail,
        {"template_name": "review/team.html"},
        name="team",
    ),
    path("teams/<int:pk>/members/", teams.team_member, name="team_member"),
    path("teams/<int:pk>/rules/", teams.team_rules, name="team_rules"),
    path("drafts/<int:pk>/", revisions.draft_review, name="draft"),
    path("drafts/<int:pk>/team/", actions.assign_team, name="assign_team"),
    path("drafts/<int:pk>/team/approve/", actions.approve_move, name="approve_move"),
    path("drafts/<int:pk>/team/decline/", actions.decline_move, name="decline_move"),
    path("drafts/<int:pk>/request/", actions.request_review, name="request_review"),
    path("drafts/<int:pk>/withdraw/", actions.withdraw_review, name="withdraw_review"),
    path("drafts/<int:pk>/approved.yaml", revisions.approved_download, name="approved_download"),
    path("drafts/<int:pk>/tests/", cases.case_list, name="cases"),
    path("drafts/<int:pk>/tests/save/", cases.case_save, name="case_save"),
    path("drafts/<int:pk>/tests/<int:case_id>/delete/", cases.case_delete, name="case_delete"),
    path("drafts/<int:pk>/revisions/", revisions.revision_history, name="history"),
    path("drafts/<int:pk>/r/<int:number>/", revisions.revision_page, name="revision"),
    path("drafts/<int:pk>/r/<int:number>/decide/", actions.decide, name="decide"),
    path("drafts/<int:pk>/r/<int:number>/comments/", actions.add_comment, name="comment"),
    path("drafts/<int:pk>/r/<int:number>/share/", actions.create_share, name="share"),
    path(
        "drafts/<int:pk>/r/<int:number>/download.yaml",
        revisions.revision_download,
        name="revision_download",
    ),
    path("drafts/<int:pk>/r/<int:number>/bundle.zip", cases.bundle_export, name="bundle_export"),
    path("drafts/<int:pk>/r/<int:number>/impact/", impact.impact_new, name="impact_new"),
    path("drafts/<int:pk>/impact/<int:run_id>/", impact.impact_run, name="impact_run"),
    path("drafts/<int:pk>/impact/<int:run_id>/cancel/", impact.impact_cancel, name="impact_cancel"),
    path("drafts/<int:pk>/impact/<int:run_id>/report/", impact.impact_report, name="impact_report"),
    path(
        "drafts/<int:pk>/impact/<int:run_id>/try/<int:position>/",
        impact.impact_try,
        name="impact_try",
    ),
    path("comments/<int:comment_id>/resolve/", actions.resolve, name="resolve"),
    path("drafts/<int:pk>/try-share/", editor_side.share_try, name="share_try"),
    path(
        "drafts/<int:pk>/try-share/<str:token>/revoke/",
        editor_side.revoke_try_share,
        name="revoke_try_share",
    ),
    path("drafts/<int:pk>/field-comment/", editor_side.field_comment, name="field_comment"),
    path("s/<str:token>/", shares.shared, name="shared"),
    path("s/<str:token>/revoke/", actions.revoke_share, name="revoke_share"),
]
