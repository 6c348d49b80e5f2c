"""Without the review app the editor is what it is on its own: drafts are their owner's."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.http import Http404
from django.urls import reverse

from policyeditor.editor import access, cases, extensions
from policyeditor.editor.models import Draft
from policyeditor.editor.reviewing import ExportError, export_revision_for, review_state
from policyeditor.review.models import AuditEvent, DraftWorkflow
from policyeditor.teams.models import Membership, Team

pytestmark = pytest.mark.django_db

REVIEW = "policyeditor.review"


@pytest.fixture
def without_review():
    """The editor with no review hooks, as when the review app is not installed."""
    hooks = extensions.registered(REVIEW)
    assert hooks is not None, "the review app registers its hooks in ReviewConfig.ready()"
    extensions.unregister(REVIEW)
    yield
    extensions.register(hooks)


@pytest.fixture
def team_draft(replica_draft, bob):
    """alice's draft in a team where bob is an admin: only the review app's rules let bob in."""
    team = Team.objects.create(name="platform")
    Membership.objects.create(team=team, user=replica_draft.owner, role="author")
    Membership.objects.create(team=team, user=bob, role="admin")
    DraftWorkflow.objects.create(draft=replica_draft, team=team)
    return replica_draft


def test_the_review_app_registers_its_hooks_with_the_editor(team_draft, bob):
    assert extensions.access() is not None and extensions.review() is not None
    assert extensions.saved_cases() is not None
    assert access.get_draft_for(bob, team_draft.pk) == team_draft


def test_hooks_of_an_app_that_is_not_installed_do_not_count(settings):
    settings.INSTALLED_APPS = [app for app in settings.INSTALLED_APPS if app != REVIEW]
    assert extensions.registered(REVIEW) is not None
    assert extensions.access() is None
    assert extensions.review() is None and extensions.saved_cases() is None


def test_without_review_a_draft_is_its_owners_only(without_review, team_draft, alice, bob):
    with pytest.raises(Http404):
        access.get_draft_for(bob, team_draft.pk)
    assert list(access.visible_drafts(bob)) == []
    assert access.get_draft_for(alice, team_draft.pk) == team_draft
    assert access.can_edit(alice, team_draft) and not access.can_edit(bob, team_draft)


def test_without_review_the_editor_page_shows_no_review_controls(
    without_review, team_draft, alice_client
):
    html = alice_client.get(reverse("editor:draft_edit", args=[team_draft.pk])).content.decode()
    assert 'id="review-status"' not in html and 'id="review-link"' not in html
    assert review_state(team_draft) is None


def test_without_review_exports_are_not_audited_and_nothing_is_approved(
    without_review, team_draft, alice_client
):
    with pytest.raises(ExportError, match="approved yet"):
        export_revision_for(team_draft, "approved")
    before = AuditEvent.objects.count()
    response = alice_client.get(reverse("editor:draft_export", args=[team_draft.pk]))
    assert response.status_code == 200
    assert AuditEvent.objects.count() == before


def test_without_review_the_tests_tab_says_saved_cases_are_not_available(
    without_review, team_draft
):
    outcome = cases.run_current(team_draft, team_draft.documents, team_draft.kubernetes_version)
    assert not outcome.available
    assert outcome.problem == "Saved test cases need the review app."
    assert cases.saved_cases(team_draft) == []


def test_without_review_seed_demo_makes_no_team(without_review):
    call_command("seed_demo", stdout=io.StringIO())
    assert not Team.objects.exists()
    assert Draft.objects.count() == 3
    assert not DraftWorkflow.objects.exists()
