"""Tests for draft creation and conflict-safe saving."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from policyeditor.editor.models import Draft, Kind, Revision
from policyeditor.editor.services import Conflict, DraftInputError, create_draft, save_draft

pytestmark = pytest.mark.django_db

POLICY = {
    "apiVersion": "admissionregistration.k8s.io/v1",
    "kind": "ValidatingAdmissionPolicy",
    "metadata": {"name": "demo.example.com"},
    "spec": {"validations": [{"expression": "true"}]},
}


@pytest.fixture
def alice():
    return get_user_model().objects.create_user("alice", password="x")


def test_create_draft_writes_revision_one_and_infers_name_and_kind(alice):
    draft = create_draft(alice, [POLICY])
    assert draft.name == "demo.example.com"
    assert draft.kind == Kind.VAP
    assert draft.revision == 1
    assert list(draft.revisions.values_list("number", flat=True)) == [1]


def test_create_draft_infers_map_from_mutating_documents(alice):
    doc = {**POLICY, "kind": "MutatingAdmissionPolicy"}
    draft = create_draft(alice, [doc], kubernetes_version="1.34")
    assert draft.kind == Kind.MAP
    assert draft.kubernetes_version == "1.34"


def test_save_draft_creates_the_next_immutable_revision(alice):
    draft = create_draft(alice, [POLICY])
    changed = {**POLICY, "spec": {"validations": [{"expression": "false"}]}}
    save_draft(draft, [changed], expected_revision=1, author=alice, note="tighten")
    draft.refresh_from_db()
    assert draft.revision == 2
    assert draft.documents == [changed]
    latest = draft.revisions.get(number=2)
    assert latest.note == "tighten"
    assert draft.revisions.get(number=1).documents == [POLICY]
    with pytest.raises(ValueError):
        latest.save()


def test_save_draft_with_a_stale_revision_raises_conflict_and_keeps_the_other_save(alice):
    draft = create_draft(alice, [POLICY])
    first = {**POLICY, "metadata": {"name": "first"}}
    save_draft(draft, [first], expected_revision=1, author=alice)
    stale = Draft.objects.get(pk=draft.pk)
    with pytest.raises(Conflict) as info:
        save_draft(stale, [POLICY], expected_revision=1, author=alice)
    assert info.value.actual == 2
    assert "revision 2" in str(info.value)
    draft.refresh_from_db()
    assert draft.documents == [first]
    assert Revision.objects.filter(draft=draft).count() == 2


def test_save_draft_rejects_documents_that_are_not_mappings(alice):
    draft = create_draft(alice, [POLICY])
    with pytest.raises(DraftInputError):
        save_draft(draft, ["not a mapping"], expected_revision=1, author=alice)
    with pytest.raises(DraftInputError):
        create_draft(alice, [POLICY], kubernetes_version="1.12")


def test_bad_kind_and_revision_values_are_input_errors_not_crashes(alice):
    with pytest.raises(DraftInputError):
        create_draft(alice, [POLICY], kind="XYZ")
    draft = create_draft(alice, [POLICY])
    with pytest.raises(DraftInputError):
        save_draft(draft, [POLICY], expected_revision="two", author=alice)
