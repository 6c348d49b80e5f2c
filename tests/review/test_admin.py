"""Tests for the admin pages of the audit log."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.review.models import AuditEvent

pytestmark = pytest.mark.django_db


def test_the_audit_log_is_read_only_in_the_admin(admin_client, draft):
    event = AuditEvent.objects.first()
    assert admin_client.get(reverse("admin:review_auditevent_changelist")).status_code == 200
    assert admin_client.get(reverse("admin:review_auditevent_add")).status_code == 403
    delete = reverse("admin:review_auditevent_delete", args=[event.pk])
    assert admin_client.post(delete, {"post": "yes"}).status_code == 403
    assert AuditEvent.objects.filter(pk=event.pk).exists()
