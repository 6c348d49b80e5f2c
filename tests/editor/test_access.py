"""Tests for who may see which draft."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.http import Http404

from policyeditor.editor.access import get_draft_for
from policyeditor.editor.services import create_draft

pytestmark = pytest.mark.django_db


def _user(name, **extra):
    return get_user_model().objects.create_user(name, password="x", **extra)


def test_owner_gets_their_draft_and_another_user_gets_404():
    alice, bob = _user("alice"), _user("bob")
    draft = create_draft(alice, [], name="mine")
    assert get_draft_for(alice, draft.pk) == draft
    with pytest.raises(Http404):
        get_draft_for(bob, draft.pk)


def test_staff_see_every_draft_and_garbage_ids_are_404():
    alice, admin = _user("alice"), _user("admin", is_staff=True)
    draft = create_draft(alice, [], name="mine")
    assert get_draft_for(admin, draft.pk) == draft
    with pytest.raises(Http404):
        get_draft_for(alice, "nope")
    with pytest.raises(Http404):
        get_draft_for(alice, 999999)


def test_a_draft_fetched_without_documents_reads_them_only_when_asked():
    alice, bob = _user("alice"), _user("bob")
    draft = create_draft(alice, [{"kind": "ConfigMap"}], name="mine")
    light = get_draft_for(alice, draft.pk, documents=False)
    assert "documents" in light.get_deferred_fields()
    assert light.documents == [{"kind": "ConfigMap"}]  # still there when read
    with pytest.raises(Http404):
        get_draft_for(bob, draft.pk, documents=False)
