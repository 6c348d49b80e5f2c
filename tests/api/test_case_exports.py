"""The saved test cases over HTTP as zips in each export layout, runnable by `policyeditor test`."""

from __future__ import annotations

import io
import zipfile

import pytest

from policyeditor.api.examples import DEPLOYMENT

pytestmark = pytest.mark.django_db

CASE = {"name": "six replicas are denied", "object": DEPLOYMENT, "expect": {"result": "deny"}}


def _export(api, draft, **params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return api.get(f"/api/v1/drafts/{draft.pk}/test-cases/export?{query}")


@pytest.mark.parametrize("layout", ["policytest", "kat", "kaptest", "kyverno"])
def test_each_layout_downloads_as_a_zip_that_runs(api, draft, tmp_path, layout):
    from policyeditor.cli import main

    assert api.post(f"/api/v1/drafts/{draft.pk}/test-cases", CASE).status_code == 201
    response = _export(api, draft, layout=layout, revision=1)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/zip"
    assert response["X-Draft-Revision"] == "1"
    assert response["Content-Disposition"].endswith(f'-r1.{layout}.zip"')
    with zipfile.ZipFile(io.BytesIO(response.content)) as archive:
        archive.extractall(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert main(["test", str(tmp_path)], stdout=out, stderr=err) == 0, out.getvalue()
    assert out.getvalue().rstrip().endswith("1 passed, 0 failed")


def test_an_unknown_layout_or_revision_is_a_400(api, draft):
    response = _export(api, draft, layout="gator")
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "layout must be one of policytest, kat, kaptest, kyverno, not 'gator'"
    )
    assert _export(api, draft, revision="first").status_code == 400
    assert _export(api, draft, revision=9).status_code == 404
