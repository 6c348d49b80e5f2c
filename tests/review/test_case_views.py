"""Tests for the test-case and bundle pages."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from policyeditor.editor.models import Draft
from policyeditor.review.models import SavedTestCase
from tests.review.conftest import approved_then_edited

pytestmark = pytest.mark.django_db

CASE = (
    "name: six-denied\n"
    "object: {apiVersion: apps/v1, kind: Deployment, metadata: {name: c, namespace: default},"
    " spec: {replicas: 6}}\n"
    "expect: {result: deny}\n"
)
ALLOWED = CASE.replace("six-denied", "four-allowed").replace("replicas: 6", "replicas: 4")
ALLOWED = ALLOWED.replace("result: deny", "result: allow")


def test_an_author_adds_a_case_and_sees_it_pass(client, draft, alice):
    client.force_login(alice)
    response = client.post(reverse("review:case_save", args=[draft.pk]), {"case": CASE})
    assert response.status_code == 302
    html = client.get(reverse("review:cases", args=[draft.pk])).content.decode()
    assert "1 passed, 0 failed" in html
    assert "CREATE Deployment c → expect deny" in html


def test_a_bad_case_keeps_the_typed_text_and_says_why(client, draft, alice):
    client.force_login(alice)
    client.post(reverse("review:case_save", args=[draft.pk]), {"case": "name: x\n"})
    html = client.get(reverse("review:cases", args=[draft.pk])).content.decode()
    assert "needs `expect`" in html
    assert ">name: x\n</textarea>" in html


def test_a_viewer_cannot_add_or_delete_cases(client, draft, alice, carol):
    client.force_login(alice)
    client.post(reverse("review:case_save", args=[draft.pk]), {"case": CASE})
    saved = SavedTestCase.objects.get()
    client.force_login(carol)
    assert (
        client.post(reverse("review:case_save", args=[draft.pk]), {"case": CASE}).status_code == 403
    )
    url = reverse("review:case_delete", args=[draft.pk, saved.pk])
    assert client.post(url).status_code == 403
    assert SavedTestCase.objects.count() == 1


def test_the_review_page_says_what_the_change_now_denies(client, draft, alice, bob):
    client.force_login(alice)
    client.post(reverse("review:case_save", args=[draft.pk]), {"case": ALLOWED})
    approved_then_edited(draft, alice, bob, 3)
    client.force_login(bob)
    html = client.get(reverse("review:revision", args=[draft.pk, 2])).content.decode()
    assert "This change now denies 1 object that was allowed." in html
    assert "was allow" in html


def test_bundle_export_and_import_through_the_pages(client, draft, alice, team):
    client.force_login(alice)
    client.post(reverse("review:case_save", args=[draft.pk]), {"case": CASE})
    response = client.get(reverse("review:bundle_export", args=[draft.pk, 1]))
    assert response["Content-Type"] == "application/zip"
    assert zipfile.ZipFile(io.BytesIO(response.content)).testzip() is None
    upload = SimpleUploadedFile("b.zip", response.content, content_type="application/zip")
    response = client.post(reverse("review:bundle_import"), {"bundle": upload, "team": team.pk})
    assert response.status_code == 302
    imported = Draft.objects.exclude(pk=draft.pk).get()
    assert response.url == reverse("review:draft", args=[imported.pk])
    assert imported.saved_test_cases.count() == 1


def test_importing_garbage_shows_an_error(client, alice):
    client.force_login(alice)
    upload = SimpleUploadedFile("b.zip", b"not a zip", content_type="application/zip")
    response = client.post(reverse("review:bundle_import"), {"bundle": upload})
    assert response.status_code == 200
    assert "Not a zip file" in response.content.decode()


def test_a_case_that_passes_because_nothing_matched_is_flagged_vacuous(client, draft, alice):
    client.force_login(alice)
    vacuous = (
        "name: configmap-allowed\n"
        "object: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: default}}\n"
        "expect: {allowed: true}\n"
    )
    client.post(reverse("review:case_save", args=[draft.pk]), {"case": vacuous})
    html = client.get(reverse("review:cases", args=[draft.pk])).content.decode()
    assert "1 passed, 0 failed" in html
    assert "Passed vacuously: allowed: no policy matched the request" in html
