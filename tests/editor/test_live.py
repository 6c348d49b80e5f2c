"""The live report's badge and the Try-it request facts (namespace object, operation)."""

from __future__ import annotations

from policyeditor.editor import live
from policyeditor.editor.samples import sample_namespace
from policyeditor.editor.starters import get_starter
from policyeditor.engine.manifests.loading import dump_documents


def _report(errors: int, warnings: int) -> live.Report:
    report = live.Report("1.37")
    report.errors = [live.Issue(0, "spec", "bad")] * errors
    report.warnings = [live.Issue(0, "spec", "hmm", level="warning")] * warnings
    return report


def test_the_badge_counts_errors_and_warnings():
    assert _report(0, 0).badge == "valid for Kubernetes 1.37"
    assert _report(0, 1).badge == "valid for Kubernetes 1.37, 1 warning"
    assert _report(2, 1).badge == "2 errors, 1 warning"
    assert _report(1, 3).badge == "1 error, 3 warnings"


def test_a_type_check_warning_says_the_expression_fails_at_runtime():
    message = "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'"
    doc = {"spec": {"failurePolicy": "Fail"}}
    said = live.runtime_consequence(doc, "spec.validations[0].expression", message)
    assert said.startswith("This expression will fail at runtime")
    assert "denied under a Deny binding" in said
    ignore = live.runtime_consequence(
        {"spec": {"failurePolicy": "Ignore"}}, "spec.validations[0].expression", message
    )
    assert "nothing is enforced" in ignore
    assert "static message" in live.runtime_consequence(
        doc, "spec.validations[0].messageExpression", message
    )
    assert live.runtime_consequence(doc, "spec.validations[0].expression", "cost high") == ""


DEPLOYMENT = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web{ns}}}\nspec: {{replicas: 7}}\n"
)


def _try(object_text: str, old: str = "") -> live.TryOutcome:
    documents = get_starter("replica-limit").documents()
    inputs = live.TryInputs(
        object=object_text,
        old_object=old,
        namespace_object=dump_documents([sample_namespace(documents)]),
    )
    return live.try_it(documents, inputs, "1.37")


def test_the_namespace_object_used_is_the_one_of_the_objects_namespace():
    same = _try(DEPLOYMENT.format(ns=", namespace: default"))
    assert same.namespace_note == "namespaceObject: the Namespace default given below."
    assert same.result and same.result["result"] == "deny"
    other = _try(DEPLOYMENT.format(ns=", namespace: shop"))
    assert other.namespace == "shop"
    assert "a bare Namespace shop" in other.namespace_note
    # shop lacks the environment=test label the binding selects: the policy does not apply.
    assert other.result and other.result["result"] != "deny"


def test_the_operation_is_inferred_from_the_objects_and_said():
    created = _try(DEPLOYMENT.format(ns=""))
    assert (created.operation, created.operation_inferred) == ("CREATE", True)
    updated = _try(DEPLOYMENT.format(ns=""), old=DEPLOYMENT.format(ns=""))
    assert updated.operation == "UPDATE"
