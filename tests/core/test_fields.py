"""Documents keep their key order through the database, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import pytest

from policyeditor.editor.models import Draft
from policyeditor.editor.services import create_draft

pytestmark = pytest.mark.django_db


def test_a_saved_policy_comes_back_with_its_keys_in_the_order_written(alice):
    policy = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "order.example.com"},
        "spec": {
            "validations": [{"expression": "true", "message": "m", "reason": "Invalid"}],
            "failurePolicy": "Fail",
        },
    }
    draft = create_draft(alice, [policy])
    stored = Draft.objects.get(pk=draft.pk).documents[0]
    assert list(stored) == ["apiVersion", "kind", "metadata", "spec"]
    assert list(stored["spec"]) == ["validations", "failurePolicy"]
    assert list(stored["spec"]["validations"][0]) == ["expression", "message", "reason"]
    assert stored == policy
