"""Bad input gives clear errors, never an unhandled exception, from the evaluation functions."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyeditor.engine import schemas
from policyeditor.engine.admission import evaluation
from policyeditor.engine.admission.evaluation import AdmissionRequest, evaluate
from policyeditor.engine.admission.matching import match_resources
from policyeditor.engine.admission.mutating.patch.applyconfig import ApplyError, apply_configuration
from policyeditor.engine.admission.mutating.patch.jsonpatch import JSONPatchError, apply_patch
from policyeditor.engine.admission.mutating.patch.typedobject import DecodeError, strict_decode
from policyeditor.engine.errors import MemoryExhausted
from tests.builders import document, vap

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
paths = st.lists(
    st.sampled_from(["spec", "metadata", "labels", "0", "-", "-1", "a~1b", "x"]), max_size=4
).map(lambda parts: "/" + "/".join(parts))
operations = st.fixed_dictionaries(
    {
        "op": st.sampled_from(["add", "remove", "replace", "move", "copy", "test", "bogus"]),
        "path": paths,
    },
    optional={"from": paths, "value": json_values},
)
FAST = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

DEPLOYMENT = {
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {"name": "d"},
    "spec": {"replicas": 1},
}


@FAST
@given(doc=json_values, ops=st.lists(operations, max_size=4))
def test_json_patch_only_raises_its_own_error(doc, ops):
    try:
        out = apply_patch(doc, ops)
    except JSONPatchError as exc:
        assert str(exc), "errors say what went wrong"
    else:
        json.dumps(out)


@FAST
@given(patch=json_values)
def test_apply_configuration_only_raises_its_own_error(patch):
    try:
        out = apply_configuration(DEPLOYMENT, patch)
    except ApplyError as exc:
        assert str(exc).startswith("error applying patch: ")
    else:
        assert out["kind"] == "Deployment"


@FAST
@given(
    spec=st.dictionaries(
        st.sampled_from(["replicas", "selector", "template", "paused", "zzz"]), json_values
    )
)
def test_strict_decoding_only_raises_its_own_error(spec):
    try:
        out = strict_decode({**DEPLOYMENT, "spec": spec})
    except DecodeError as exc:
        assert "strict decoding error" in str(exc) or "cannot unmarshal" in str(exc)
    else:
        assert set(out["spec"]) <= {"replicas", "selector", "template", "paused"}


@FAST
@given(
    criteria=st.dictionaries(
        st.sampled_from(
            [
                "resourceRules",
                "excludeResourceRules",
                "namespaceSelector",
                "objectSelector",
                "matchPolicy",
            ]
        ),
        json_values,
    )
)
def test_matching_malformed_criteria_answers(criteria):
    result = match_resources(criteria, AdmissionRequest.build(object=DEPLOYMENT))
    assert isinstance(result.matched, bool)


@FAST
@given(
    spec=st.dictionaries(
        st.sampled_from(
            [
                "matchConstraints",
                "validations",
                "variables",
                "matchConditions",
                "auditAnnotations",
                "paramKind",
                "failurePolicy",
            ]
        ),
        json_values,
    )
)
def test_evaluate_answers_malformed_policies(spec):
    policy = document("ValidatingAdmissionPolicy", "p", spec)
    result = evaluate([policy], AdmissionRequest.build(object=DEPLOYMENT))
    assert result.result in ("allow", "deny", "warn", "audit", "skip", "error")
    assert isinstance(result.to_dict(), dict)


@FAST
@given(
    spec=st.dictionaries(
        st.sampled_from(["mutations", "matchConstraints", "reinvocationPolicy"]), json_values
    )
)
def test_evaluate_answers_malformed_mutating_policies(spec):
    policy = document("MutatingAdmissionPolicy", "m", spec)
    result = evaluate([policy], AdmissionRequest.build(object=DEPLOYMENT))
    assert result.result in ("allow", "deny", "warn", "audit", "skip", "error")


def test_evaluate_refuses_non_list_documents_with_a_message():
    result = evaluate("not a list", AdmissionRequest.build(object=DEPLOYMENT))  # type: ignore[arg-type]
    assert result.result == "error" and "documents must be a list" in result.message


def test_a_message_that_only_mentions_an_allocation_failure_is_a_denial_as_written():
    message = "'RESOURCE_EXHAUSTED: std::bad_alloc'"
    policy = vap(validations=[{"expression": "false", "messageExpression": message}])
    result = evaluate([policy], AdmissionRequest.build(object=DEPLOYMENT))
    assert result.result == "deny"
    assert result.message.endswith("denied request: RESOURCE_EXHAUSTED: std::bad_alloc")


def test_a_cel_error_whose_text_mentions_an_allocation_failure_stays_an_expression_error():
    validation = {"expression": "{'a': true}['RESOURCE_EXHAUSTED: std::bad_alloc']"}
    policy = vap(validations=[validation], failurePolicy="Ignore")
    result = evaluate([policy], AdmissionRequest.build(object=DEPLOYMENT))
    assert (result.result, result.allowed) == ("error", True)  # failurePolicy Ignore applies
    assert "no such key: RESOURCE_EXHAUSTED: std::bad_alloc" in " ".join(result.errors)


def test_running_out_of_memory_outside_cel_stops_the_evaluation(monkeypatch):
    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(evaluation, "prepare", exhausted)
    with pytest.raises(MemoryExhausted):  # not "internal error while evaluating: MemoryError"
        evaluate(
            [vap(validations=[{"expression": "true"}])], AdmissionRequest.build(object=DEPLOYMENT)
        )


@FAST
@given(group=st.text(max_size=5), kind=st.text(max_size=5), path=st.text(max_size=12))
def test_schema_lookups_accept_anything(group, kind, path):
    root = schemas.schema_for(group, "v1", kind)
    found = schemas.schema_at_path(root or schemas.schema_for("apps", "v1", "Deployment"), path)
    assert found is None or isinstance(found, dict)
    doc = schemas.field_doc(group, "v1", kind, path)
    assert doc is None or isinstance(doc, str)
    assert isinstance(schemas.guess_plural(kind), str)
