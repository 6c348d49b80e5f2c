"""A scripted journey: the reference policy authored with the YAML editor only, actions counted."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from policyeditor.editor.models import Draft
from policyeditor.engine.manifests.loading import load_documents
from tests.browser import editor_helpers  # noqa: F401 - its longer expect() timeout for 2 cores

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A VAP with a ConfigMap param, an env=dev exemption, a binding with Deny+Audit and a
# messageExpression: the policy issue #17 asks both editors to author.
REFERENCE = """\
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit.example.com
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
    namespaceSelector:
      matchExpressions:
      - key: env
        operator: NotIn
        values: ["dev"]
  validations:
  - expression: object.spec.replicas <= int(params.data.maxReplicas)
    messageExpression: "'replicas must be at most ' + params.data.maxReplicas"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: replica-limit-binding
spec:
  policyName: replica-limit.example.com
  validationActions: [Deny, Audit]
  paramRef:
    name: replica-limits
    namespace: default
    parameterNotFoundAction: Deny
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: replica-limits
  namespace: default
data:
  maxReplicas: "5"
"""


class Actions:
    """Counts what a user does: one click, one key chord or one typed line is one action."""

    def __init__(self, page) -> None:
        self.page = page
        self.count = 0

    def click(self, locator) -> None:
        locator.click()
        self.count += 1

    def fill(self, locator, text: str) -> None:
        locator.fill(text)
        self.count += 1

    def press(self, keys: str) -> None:
        self.page.keyboard.press(keys)
        self.count += 1

    def type_line(self, text: str) -> None:
        self.page.keyboard.insert_text(text)
        self.count += 1


def test_authoring_the_reference_policy_with_the_yaml_editor_only(alice_page, capsys):
    page = alice_page
    act = Actions(page)
    page.goto("/drafts/new/")
    act.click(page.get_by_label("ValidatingAdmissionPolicy"))
    act.fill(page.get_by_label("Policy name"), "replica-limit.example.com")
    act.click(page.get_by_role("button", name="Create draft"))
    page.wait_for_url("**/drafts/*/")
    act.click(page.get_by_role("button", name="Edit YAML"))
    content = page.locator(".cm-yaml-host .cm-content")
    expect(content).to_be_visible()
    act.press("Control+a")
    act.press("Delete")
    for line in REFERENCE.splitlines(keepends=True):
        act.type_line(line)  # one line typed: CodeMirror's completion would save keys, not lines
    editor = page.get_by_label("YAML (edits update the form)")
    expect(editor).to_have_value(REFERENCE)
    expect(page.locator("#documents .document")).to_have_count(3)
    expect(page.locator("#status-badge")).to_contain_text("valid for Kubernetes")
    expect(page.locator(".cm-yaml-host .cm-lint-marker-error")).to_have_count(0)
    act.press("Control+s")
    expect(page.locator("#save-status")).to_contain_text("Saved revision 2")
    draft = Draft.objects.get()
    assert draft.source == REFERENCE
    assert draft.documents == load_documents(REFERENCE)
    with capsys.disabled():
        print(f"\nYAML-editor journey for the reference policy: {act.count} user actions")
    assert act.count == 7 + len(REFERENCE.splitlines())
