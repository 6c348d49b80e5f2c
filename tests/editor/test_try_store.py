"""Try-it inputs kept per draft and user on the server."""

from __future__ import annotations

import pytest

from policyeditor.editor import try_store
from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import blank_documents

pytestmark = pytest.mark.django_db


def test_inputs_are_kept_per_user_and_replaced_by_the_next_post(alice, bob):
    draft = create_draft(alice, blank_documents("VAP", "kept.example.com"), kind="VAP")
    try_store.remember(draft, alice, {"try_object": "a", "try_dry_run": "on"})
    try_store.remember(draft, alice, {"try_object": "b", "try_operation": "DELETE"})
    kept = try_store.recall(draft, alice)
    assert kept["try_object"] == "b" and kept["try_operation"] == "DELETE"
    assert kept["try_dry_run"] is False
    assert try_store.recall(draft, bob) == {}


def test_a_post_without_try_fields_keeps_nothing(alice):
    draft = create_draft(alice, blank_documents("VAP", "none.example.com"), kind="VAP")
    try_store.remember(draft, alice, {"case_name": "x"})
    assert try_store.recall(draft, alice) == {}
