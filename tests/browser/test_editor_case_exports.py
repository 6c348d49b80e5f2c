"""The Tests tab offers the saved cases as a Kyverno CLI zip that `policyeditor test` runs."""

from __future__ import annotations

import io
import zipfile

import pytest
from playwright.sync_api import expect

from tests.browser.editor_helpers import save_denied_seven_case

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_tests_tab_downloads_the_saved_cases_as_kyverno_cli_tests(alice_page, tmp_path):
    from policyeditor.cli import main

    page = alice_page
    save_denied_seven_case(page)
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
