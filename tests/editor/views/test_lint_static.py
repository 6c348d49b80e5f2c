"""The editor shows lint findings as warnings at their field, validates static manifests when the
draft targets them, and exports the staticManifestsDir layout."""

from __future__ import annotations

import io
import zipfile

import pytest
import yaml
from django.urls import reverse

from policyeditor.editor.models import Draft
from tests.editor.formhtml import draft_form, expression_field, live_validate, postable

pytestmark = pytest.mark.django_db


def test_a_lint_finding_is_a_warning_at_its_field_and_the_badge_counts_it(
    alice_client, replica_draft, htmx_headers
):
    data = draft_form(alice_client, replica_draft)
    field = expression_field(data)
    data[field] = "has(object.metadata.labels.team) && object.spec.replicas <= params.maxReplicas"
    response = live_validate(alice_client, replica_draft, data, htmx_headers)
    html = response.content.decode()
    assert f'data-for="{field}" data-level="warning"' in html
    assert "PE101 (line 1, column 4)" in html
    # a warning never makes the draft invalid; the badge counts it
    assert 'valid<span class="badge-long"> for Kubernetes</span> 1.37' in html
    assert 'title="Go to the first warning">1 warning</button>' in html


def test_the_static_box_validates_the_draft_as_static_manifests(
    alice_client, replica_draft, htmx_headers
):
    data = draft_form(alice_client, replica_draft)
    data["static_manifests"] = "on"
    response = live_validate(alice_client, replica_draft, data, htmx_headers)
    html = response.content.decode()
    assert "spec.paramKind is not supported for static manifests" in html
    assert "must have a name ending with" in html
    assert "unsupported resource type" in html  # the param object has no place there


def test_saving_keeps_the_static_setting_of_the_draft(alice_client, replica_draft, htmx_headers):
    data = draft_form(alice_client, replica_draft)
    data["static_manifests"] = "on"
    alice_client.post(
        reverse("editor:draft_save", args=[replica_draft.pk]), postable(data), headers=htmx_headers
    )
    assert Draft.objects.get(pk=replica_draft.pk).static_manifests is True
    page = alice_client.get(replica_draft.get_absolute_url()).content.decode()
    assert 'name="static_manifests" checked' in page
    data = draft_form(alice_client, replica_draft)
    del data["static_manifests"]
    alice_client.post(
        reverse("editor:draft_save", args=[replica_draft.pk]), postable(data), headers=htmx_headers
    )
    assert Draft.objects.get(pk=replica_draft.pk).static_manifests is False


def test_the_export_menu_downloads_the_static_layout_as_a_zip(alice_client, replica_draft):
    page = alice_client.get(replica_draft.get_absolute_url()).content.decode()
    url = reverse("editor:draft_export_static", args=[replica_draft.pk])
    assert f'href="{url}"' in page
    response = alice_client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        names = sorted(archive.namelist())
        assert names[0] == "admission-configuration.yaml"
        assert all(n.startswith("validating-policies/") for n in names[1:]) and len(names) == 2
        config = yaml.safe_load(archive.read("admission-configuration.yaml"))
    assert config["plugins"][0]["configuration"]["kind"] == "ValidatingAdmissionPolicyConfiguration"
