"""Every documented Kubernetes VAP/MAP example, built as a new user would: with the form alone.

For each example in tests/data/docs_examples (see its README): start a draft from scratch, fill the
form control by control (tests/browser/form_author.py), watch live validation say what the API
server says (first about the docs' own typos, then "valid"), save, check the saved documents are
the docs' documents, export and check the export with `policyeditor validate` and the
kubernetes-validate schemas of Kubernetes 1.37, and try it against an object in the Try it pane.
"""

from __future__ import annotations

import copy
import io
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from django.urls import reverse
from playwright.sync_api import Page, expect

from policyeditor import cli
from policyeditor.editor.models import Draft
from policyeditor.engine.defaulting.admissionregistration import default_in_place
from policyeditor.engine.manifests.loading import load_documents
from policyeditor.engine.objects import family
from policyeditor.engine.validation.documents import validate_documents
from tests.browser.form_author import author_document
from tests.conftest import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXAMPLES = sorted((Path(__file__).resolve().parents[1] / "data" / "docs_examples").glob("*.yaml"))
VERSION = "1.37"


def _default_binding(policy: dict) -> dict:
    """The binding the editor starts a draft from scratch with."""
    name = policy["metadata"]["name"]
    spec: dict = {"policyName": name}
    if policy["kind"] == "ValidatingAdmissionPolicy":
        spec["validationActions"] = ["Deny"]
    return {
        "apiVersion": policy["apiVersion"],
        "kind": f"{policy['kind']}Binding",
        "metadata": {"name": f"{name}-binding"},
        "spec": spec,
    }


def _as_printed(documents: list[dict], mistakes: list[dict]) -> list[dict]:
    """The documents with the docs' printed mistakes put back."""
    printed = copy.deepcopy(documents)
    for mistake in mistakes:
        *parents, last = mistake["path"]
        node = printed[mistake["document"]]
        for key in parents:
            node = node[key]
        if mistake["value"] is None:
            del node[last]
        else:
            node[last] = mistake["value"]
    return printed


def _normalised(documents: list[dict]) -> list[dict]:
    """The documents as the API server stores them (defaults applied), for comparing."""
    docs = [default_in_place(copy.deepcopy(doc)) for doc in documents]
    for doc in docs:
        spec = doc.get("spec") or {}
        for match in (spec.get("matchConstraints"), spec.get("matchResources")):
            for rule in (match or {}).get("resourceRules") or []:
                # Ticking boxes writes operations in the form's order; the API server treats
                # them as a set (the docs list DELETE before UPDATE in one example).
                rule["operations"] = sorted(rule.get("operations") or [])
    return docs


def _build(page: Page, documents: list[dict]) -> None:
    """Fill the draft's form until it holds `documents` (policy, bindings, then params)."""
    docs = page.locator("#documents > .document")
    for index, target in enumerate(documents):
        if index >= docs.count():
            what = "binding" if target["kind"].endswith("Binding") else "param object"
            page.get_by_role("button", name=f"+ Add {what}").click()
            expect(docs).to_have_count(index + 1)
        document = docs.nth(index)
        if target["kind"].endswith(("Policy", "PolicyBinding")):
            author_document(document, target)
        else:
            document.locator("textarea").fill(yaml.safe_dump(target, sort_keys=False))


def _check_export(page: Page, pk: int, tmp_path: Path, static: bool = False) -> None:
    response = page.request.get(reverse("editor:draft_export", args=[pk]))
    assert response.ok, response.status
    path = tmp_path / "export.yaml"
    path.write_bytes(response.body())
    out, err = io.StringIO(), io.StringIO()
    argv = ["validate", *(["--static"] if static else []), str(path)]
    assert cli.main(argv, stdout=out, stderr=err) == 0, out.getvalue()
    for doc in load_documents(path.read_bytes()):
        if family(doc["kind"]) is not None:  # param objects are custom resources or ConfigMaps
            kubernetes_validate.validate(doc, f"{VERSION}.0", strict=True)


def _try(page: Page, inputs: dict) -> None:
    page.keyboard.press("Alt+2")
    panel = page.locator("#panel-try")
    expect(panel).to_be_visible()
    panel.locator("summary", has_text="oldObject").click()
    for label, key in (
        ("oldObject", "oldObject"),
        ("namespaceObject", "namespaceObject"),
        ("userInfo.username", "username"),
    ):
        if key in inputs:
            panel.get_by_label(label, exact=True).fill(inputs[key])
    if "operation" in inputs:
        panel.get_by_label("operation", exact=True).select_option(inputs["operation"])
    panel.get_by_label("object", exact=True).fill(inputs["object"])
    result = page.locator("#try-result")
    for text in inputs["expect"]:
        expect(result).to_contain_text(text)
    for text in inputs.get("diff_adds", []):
        expect(result.locator("pre.diff .diff-add", has_text=text).first).to_be_visible()


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_a_documented_example_is_built_with_the_form_alone_then_validated_exported_and_tried(
    alice_page, tmp_path, path
):
    example = yaml.safe_load(path.read_text())
    page = alice_page
    documents = example["documents"]
    policy = documents[0]
    if example.get("default_binding"):
        documents = [policy, _default_binding(policy), *documents[1:]]
    page.goto("/drafts/new/")
    page.get_by_label(policy["kind"], exact=True).check()
    page.get_by_label("Policy name").fill(policy["metadata"]["name"])
    page.get_by_role("button", name="Create draft").click()
    page.wait_for_url("**/drafts/*/")
    badge = page.locator("#status-badge")
    # "From scratch" is blank: the required fields are errors until the form is filled.
    expect(badge).to_contain_text("error")
    static = bool(example.get("static"))
    if static:
        # Through the API the .static.k8s.io names are reserved: the draft targets static manifests.
        page.get_by_label("Static manifests").check()

    live = page.locator("#live")
    if example.get("as_printed"):
        printed = _as_printed(documents, example["as_printed"])
        _build(page, printed)
        for text in example["live"]["first"]:
            expect(live).to_contain_text(text)
        expect(badge).not_to_have_text(f"valid for Kubernetes {VERSION}")
        for index in sorted({mistake["document"] for mistake in example["as_printed"]}):
            author_document(page.locator("#documents > .document").nth(index), documents[index])
    else:
        _build(page, documents)
    expect(badge).to_have_text(example["live"]["badge"])
    for text in example["live"].get("shows", []):
        expect(live).to_contain_text(text)

    page.get_by_label("Revision note").fill(f"built from the docs: {example['title']}")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-status")).to_contain_text("Saved revision 2")
    draft = Draft.objects.get(name=policy["metadata"]["name"])
    assert _normalised(draft.documents) == _normalised(documents)
    assert draft.static_manifests is static
    assert validate_documents(draft.documents, version=VERSION, static=static) == []

    _check_export(page, draft.pk, tmp_path, static)
    _try(page, example["try"])
    if path.stem == "variable-composition":
        page.locator("#try-result .decision-head").scroll_into_view_if_needed()
        screenshot(page, "editor-docs-example-variables")
    assert page.console_errors == [], page.console_errors
