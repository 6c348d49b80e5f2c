"""The Tests tab offers the saved cases as a Kyverno CLI zip that `policyeditor test` runs."""

from __future__ import annotations

import io
import zipfile

import pytest
from playwright.sync_api import expect

from tests.browser import editor_helpers  # noqa: F401  (longer expect timeout)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_tests_tab_downloads_the_saved_cases_as_kyverno_cli_tests(alice_page, tmp_path):
    from policyeditor.cli import main

    page = alice_page
    page.goto("/drafts/new/")
    page.get_by_role("button", name="Use template Replica limit with params").click()
    page.wait_for_url("**/drafts/*/")
    page.keyboard.press("Alt+2")
    page.get_by_label("object", exact=True).fill(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
        "spec: {replicas: 7}\n"
    )
    expect(page.locator("#try-result .decision-head")).to_contain_text("denied")
    page.get_by_label("Test case name").fill("denies seven")
    page.get_by_role("button", name="Save as test case").click()
    page.keyboard.press("Alt+3")
    links = page.locator("#tests-exports a")
    expect(links).to_have_count(4)
    with page.expect_download() as download_info:
        page.get_by_role("link", name="Kyverno CLI tests (.zip)").click()
    download = download_info.value
    assert download.suggested_filename.endswith(".kyverno.zip")
    with zipfile.ZipFile(download.path()) as archive:
        names = archive.namelist()
        archive.extractall(tmp_path)
    assert any(name.endswith("01-denies-seven/kyverno-test.yaml") for name in names)
    out, err = io.StringIO(), io.StringIO()
    assert main(["test", str(tmp_path)], stdout=out, stderr=err) == 0, out.getvalue()
    assert out.getvalue().rstrip().endswith("1 passed, 0 failed")
    assert page.console_errors == []
