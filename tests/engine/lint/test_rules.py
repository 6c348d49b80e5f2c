"""Each lint rule fires on the pitfall and stays quiet on the fixed expression."""

from __future__ import annotations

from typing import Any

import pytest

from policyeditor.engine.lint import RULES, lint_document, lint_documents
from tests.builders import document, rules


def vap(*validations: dict[str, Any], operations: list[str] | None = None, **spec: Any) -> dict:
    rule = {
        "apiGroups": ["apps"],
        "apiVersions": ["v1"],
        "resources": ["deployments"],
        "operations": operations or ["CREATE", "UPDATE"],
    }
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": "p"},
        "spec": {
            "matchConstraints": {"resourceRules": [rule]},
            "validations": list(validations),
            **spec,
        },
    }


def codes(doc: dict, version: str = "1.37") -> list[str]:
    return [finding.code for finding in lint_document(doc, version=version)]


def guarded(expression: str) -> dict:
    return {"expression": expression}


# (code, the pitfall, the fixed expression), on a Deployment policy for CREATE and UPDATE.
CASES = [
    (
        "PE101",
        "has(object.metadata.labels.team)",
        "has(object.metadata.labels) && 'team' in object.metadata.labels",
    ),
    (
        "PE102",
        "object.metadata.labels.app.kubernetes.io/name == 'web'",
        "has(object.metadata.labels) && object.metadata.labels['app.kubernetes.io/name'] == 'web'",
    ),
    ("PE105", "oldSelf == object", "oldObject == null || oldObject.spec == object.spec"),
    (
        "PE106",
        "authorizer.group('apps').resource('deployments').check('delete')",
        "authorizer.group('apps').resource('deployments').check('delete').allowed()",
    ),
    (
        "PE110",
        "object.spec.template.spec.containers.all(c, object.spec.template.spec.containers.all(d, c.name != d.name || c == d))",
        "object.spec.template.spec.containers.all(c, c.name != '')",
    ),
    ("PE111", "request.operation == 'Create'", "request.operation == 'CREATE'"),
    (
        "PE113",
        "object.spec.template.spec.containers.all(c, c.resources.limits.memory < '1Gi')",
        "object.spec.template.spec.containers.all(c, quantity(c.resources.limits.memory).compareTo(quantity('1Gi')) < 0)",
    ),
    (
        "PE114",
        "'team' in object.metadata.labels",
        "has(object.metadata.labels) && 'team' in object.metadata.labels",
    ),
]


@pytest.mark.parametrize(("code", "pitfall", "fixed"), CASES, ids=[c[0] for c in CASES])
def test_a_rule_fires_on_its_pitfall_and_not_on_the_fix(code, pitfall, fixed):
    assert code in codes(vap(guarded(pitfall)))
    assert code not in codes(vap(guarded(fixed)))


def test_object_read_on_a_policy_that_matches_delete_needs_a_guard():
    assert "PE103" in codes(vap(guarded("object.spec.replicas < 10"), operations=["DELETE"]))
    fixed = vap(guarded("object == null || object.spec.replicas < 10"), operations=["DELETE"])
    assert "PE103" not in codes(fixed)
    by_operation = vap(
        guarded("request.operation == 'DELETE' || object.spec.replicas < 10"), operations=["*"]
    )
    assert "PE103" not in codes(by_operation)


def test_object_read_is_fine_when_the_policy_never_matches_delete():
    assert "PE103" not in codes(vap(guarded("object.spec.replicas < 10")))


def test_a_match_condition_on_the_operation_guards_every_expression():
    doc = vap(
        guarded("object.spec.replicas < 10"),
        operations=["CREATE", "DELETE"],
        matchConditions=[{"name": "not-delete", "expression": "request.operation != 'DELETE'"}],
    )
    assert "PE103" not in codes(doc)


def test_old_object_read_on_a_policy_that_matches_create_needs_a_guard():
    assert "PE104" in codes(vap(guarded("oldObject.spec.replicas <= object.spec.replicas")))
    fixed = "oldObject == null || oldObject.spec.replicas <= object.spec.replicas"
    assert "PE104" not in codes(vap(guarded(fixed)))
    assert "PE104" not in codes(vap(guarded("oldObject.spec.replicas > 0"), operations=["UPDATE"]))


def test_a_message_expression_reading_an_optional_field_can_fail():
    risky = {
        "expression": "true",
        "messageExpression": "'image: ' + object.spec.template.spec.serviceAccountName",
    }
    assert "PE107" in codes(vap(risky))
    safe = {
        "expression": "true",
        "messageExpression": "'account: ' + object.spec.template.spec.?serviceAccountName.orValue('none')",
    }
    assert "PE107" not in codes(vap(safe))
    with_has = {
        "expression": "true",
        "messageExpression": "has(object.spec.template.spec.serviceAccountName) ? "
        "object.spec.template.spec.serviceAccountName : 'none'",
    }
    assert "PE107" not in codes(vap(with_has))
    named = {"expression": "true", "messageExpression": "'bad: ' + object.metadata.name"}
    assert "PE107" not in codes(vap(named))
    read_by_the_check = {
        "expression": "object.spec.template.spec.serviceAccountName != 'default'",
        "messageExpression": "'account: ' + object.spec.template.spec.serviceAccountName",
    }
    assert "PE107" not in codes(vap(read_by_the_check))


def test_concatenating_a_schema_integer_to_a_string_is_found():
    bad = {"expression": "true", "messageExpression": "'replicas: ' + object.spec.replicas"}
    assert "PE108" in codes(vap(bad))
    good = {
        "expression": "true",
        "messageExpression": "'replicas: ' + string(object.spec.replicas)",
    }
    assert "PE108" not in codes(vap(good))
    assert "PE108" in codes(vap(guarded("'n' + 1 == 'n1'")))
    assert "PE108" in codes(vap(guarded("'n' + size(object.spec.template.spec.containers) != ''")))


def test_a_jsonpatch_field_that_is_not_op_path_from_or_value_is_found():
    def map_doc(expression: str) -> dict:
        patch = {"patchType": "JSONPatch", "jsonPatch": {"expression": expression}}
        pods = rules("pods", group="", operations=("CREATE",))
        return document(
            "MutatingAdmissionPolicy", "m", {"matchConstraints": pods, "mutations": [patch]}
        )

    assert "PE109" in codes(map_doc("[JSONPatch{op: 'add', pth: '/metadata/labels', value: {}}]"))
    assert "PE109" not in codes(
        map_doc("[JSONPatch{op: 'add', path: '/metadata/labels', value: {}}]")
    )


def test_namespace_object_is_flagged_only_where_cluster_scoped_objects_can_match():
    cluster = vap(guarded("namespaceObject.metadata.name != 'kube-system'"))
    cluster["spec"]["matchConstraints"]["resourceRules"][0]["resources"] = ["*"]
    assert "PE112" in codes(cluster)
    namespaced = vap(guarded("namespaceObject.metadata.name != 'kube-system'"))
    assert "PE112" not in codes(namespaced)
    cluster["spec"]["validations"] = [
        guarded("namespaceObject == null || namespaceObject.metadata.name != 'kube-system'")
    ]
    assert "PE112" not in codes(cluster)


def test_a_finding_carries_its_field_position_and_fix():
    [finding] = lint_document(vap(guarded("true"), guarded("has(object.metadata.labels.team)")))
    assert finding.code == "PE101"
    assert finding.path == "spec.validations[1].expression"
    assert (finding.line, finding.column) == (1, 4)
    assert finding.severity == "warning"
    assert finding.fix == "has(object.metadata.labels) && 'team' in object.metadata.labels"
    assert finding.to_dict()["code"] == "PE101"


def test_the_line_and_column_follow_the_expression_lines():
    [finding] = lint_document(vap(guarded("true &&\n  request.operation == 'delete'")))
    assert (finding.code, finding.line) == ("PE111", 2)


def test_bindings_unparsable_expressions_and_other_kinds_have_no_findings():
    binding = {"kind": "ValidatingAdmissionPolicyBinding", "spec": {"policyName": "p"}}
    assert lint_documents([binding, {"kind": "ConfigMap"}, "text", vap(guarded("has(("))]) == []


def test_every_rule_has_a_stable_code_title_and_fix():
    assert sorted(RULES) == [f"PE{n}" for n in range(101, 115)]
    for rule, _check in RULES.values():
        assert rule.title and rule.fix
