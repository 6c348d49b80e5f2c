"""Trying policies in a real browser: a denial as kubectl prints it, a MAP diff, export."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import expect

from policyeditor.editor.starters import get_starter
from tests.browser import editor_helpers  # noqa: F401  (longer expect timeout)
from tests.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parents[2]


def _use_template(page, title: str) -> None:
    page.goto("/drafts/new/")
    expect(page.get_by_role("heading", name="Template gallery")).to_be_visible()
    screenshot(page, "drafts-new-gallery", full_page=True)
    page.get_by_role("button", name=f"Use template {title}").click()
    page.wait_for_url("**/drafts/*/")


def test_pasting_an_object_shows_denied_with_the_message_as_kubectl_prints_it(alice_page):
    page = alice_page
    _use_template(page, "Replica limit with params")
    page.keyboard.press("Alt+2")
    expect(page.get_by_role("tab", name="Try it")).to_have_attribute("aria-selected", "true")
    page.get_by_label("object", exact=True).fill(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
        "spec: {replicas: 7}\n"
    )
    result = page.locator("#try-result")
    expect(result).to_contain_text("denied")
    expect(result.locator("pre.kubectl")).to_contain_text(
        'Error from server (Invalid): deployments.apps "web" is forbidden: '
        "ValidatingAdmissionPolicy 'demo-policy.example.com' with binding "
        "'demo-binding-test.example.com' denied request: "
        "object.spec.replicas must be no greater than 3"
    )
    screenshot(page, "editor-try-denied")
    page.get_by_label("object", exact=True).fill(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
        "spec: {replicas: 2}\n"
    )
    expect(result.locator(".decision-head")).to_contain_text("allowed")
    assert page.console_errors == []


def test_an_imported_map_is_tried_and_shows_the_diff(alice_page):
    page = alice_page
    page.goto("/drafts/import/")
    page.get_by_label("Paste YAML").fill(get_starter("inject-sidecar").text)
    page.get_by_role("button", name="Import").click()
    page.wait_for_url("**/drafts/*/")
    expect(page.locator("#status-badge")).to_have_text("valid for Kubernetes 1.37")
    page.get_by_role("tab", name="Try it").click()
    page.get_by_label("object", exact=True).fill(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: app, namespace: default}\n"
        "spec:\n  containers:\n  - {name: app, image: docker.io/library/nginx:1.27}\n"
    )
    diff = page.locator("pre.diff")
    # The result for what was typed, defaulted as the API server stores it (a tagged image is
    # pulled IfNotPresent).
    expect(diff).to_contain_text("imagePullPolicy: IfNotPresent")
    expect(diff.locator(".diff-add", has_text="log-shipper")).to_have_count(1)
    expect(diff.locator(".diff-del")).to_have_count(0)
    expect(page.locator("#try-result .decision-head")).to_contain_text("allowed")
    expect(page.locator("#try-result")).to_contain_text("value: true")
    diff.scroll_into_view_if_needed()
    screenshot(page, "editor-try-map-diff")


def test_the_exported_yaml_passes_policyeditor_validate(alice_page, tmp_path):
    page = alice_page
    _use_template(page, "Deny privileged containers")
    with page.expect_download() as info:
        page.get_by_text("Export", exact=True).click()
        page.get_by_role("link", name="All documents (.yaml)").click()
    path = tmp_path / "export.yaml"
    info.value.save_as(path)
    run = subprocess.run(
        [sys.executable, "-m", "policyeditor", "validate", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "deny-privileged.example.com" in path.read_text()
