"""Field help: one line from the OpenAPI docs, overridden where the generic text is wrong."""

from __future__ import annotations

import pytest

from policyeditor.editor.fieldhelp import first_sentence, reference_url, short_help

KINDS = [
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "MutatingAdmissionPolicy",
    "MutatingAdmissionPolicyBinding",
]


@pytest.mark.parametrize("kind", KINDS)
def test_the_name_help_of_a_cluster_scoped_kind_never_says_unique_within_a_namespace(kind):
    text = short_help(kind, "metadata.name")
    assert "cluster-scoped" in text and "namespace" not in text
    assert kind in text


def test_other_fields_get_the_first_sentence_of_their_openapi_description():
    assert short_help("ValidatingAdmissionPolicy", "spec.failurePolicy") == (
        "failurePolicy defines how to handle failures for the admission policy."
    )
    assert short_help("ValidatingAdmissionPolicy", "spec.validations/expression").startswith(
        "expression represents the expression which will be evaluated by CEL."
    )


def test_the_param_namespace_help_says_when_to_leave_it_empty():
    assert "empty for a cluster-scoped paramKind" in short_help(
        "ValidatingAdmissionPolicyBinding", "spec.paramRef.namespace"
    )


def test_a_long_first_sentence_is_cut_to_one_line():
    assert first_sentence("a " * 200 + ". Rest.", limit=40).endswith("…")
    assert len(first_sentence("a " * 200, limit=40)) == 40
    assert first_sentence("Version 1.2 is it. More.") == "Version 1.2 is it."


def test_the_reference_link_points_at_the_kind_page_and_is_empty_for_other_kinds():
    assert reference_url("MutatingAdmissionPolicyBinding") == (
        "https://kubernetes.io/docs/reference/kubernetes-api/admissionregistration/"
        "mutating-admission-policy-binding-v1/"
    )
    assert reference_url("ConfigMap") == ""
