"""MAP object construction: Object{...} apply configurations and JSONPatch values."""

from __future__ import annotations

from policyeditor.engine import cel

DEPLOYMENT = {"spec": {"replicas": 1, "template": {"spec": {"containers": [{"name": "a"}]}}}}


def mutation(expr: str, obj=DEPLOYMENT):
    compiled = cel.compile_expression(
        expr,
        context=cel.Context.MUTATION,
        version="1.37",
        declarations=cel.Declarations(mutating=True),
        env_type=cel.EnvType.STORED_EXPRESSIONS,
    )
    if not compiled.ok:
        return compiled, None
    return compiled, compiled.program.evaluate(cel.Activation(object=obj))


def test_object_construction_keeps_exact_json_types():
    compiled, result = mutation("Object{spec: Object.spec{replicas: 2, ratio: 0.5, paused: false}}")
    assert compiled.output_type == "Object"
    assert result.value == {"spec": {"replicas": 2, "ratio": 0.5, "paused": False}}
    assert type(result.value["spec"]["replicas"]) is int


def test_nested_type_names_follow_the_field_path_and_lists_have_no_items_segment():
    expr = (
        "Object{spec: Object.spec{template: Object.spec.template{spec: Object.spec.template.spec{"
        "containers: [Object.spec.template.spec.containers{name: 'b', "
        "ports: [Object.spec.template.spec.containers.ports{containerPort: 80}]}]}}}}"
    )
    _, result = mutation(expr)
    assert result.error is None
    containers = result.value["spec"]["template"]["spec"]["containers"]
    assert containers == [{"name": "b", "ports": [{"containerPort": 80}]}]


def test_a_type_name_off_the_field_path_is_a_runtime_error():
    _, result = mutation("Object{spec: Object.specx{replicas: 2}}")
    assert result.error is not None
    assert result.error.message == (
        'type mismatch: unexpected type name "Object.specx", expected "Object.spec", '
        "which matches field name path from root Object type"
    )


def test_optional_fields_are_left_out_when_empty():
    _, result = mutation(
        "Object{spec: Object.spec{?replicas: optional.none(), ?paused: optional.of(true)}}"
    )
    assert result.value == {"spec": {"paused": True}}


def test_json_patch_values_and_output_type():
    compiled, result = mutation(
        "[JSONPatch{op: 'add', path: '/spec/replicas', value: 3}, "
        "JSONPatch{op: 'replace', path: '/metadata', value: {'labels': {'a': 'b'}}}]"
    )
    assert compiled.output_type == "list(JSONPatch)"
    assert result.value == [
        {"op": "add", "path": "/spec/replicas", "value": 3},
        {"op": "replace", "path": "/metadata", "value": {"labels": {"a": "b"}}},
    ]


def test_json_patch_fields_must_be_strings():
    _, result = mutation("[JSONPatch{op: 1, path: '/x'}]")
    assert result.error.message == "unexpected type int for JSONPatchType 'op' field"


def test_json_patch_value_can_be_read_from_the_object():
    _, result = mutation("[JSONPatch{op: 'add', path: '/x', value: object.spec.template}]")
    assert result.value[0]["value"] == DEPLOYMENT["spec"]["template"]


def test_constructions_are_only_available_to_mutating_policies():
    compiled = cel.compile_expression(
        "Object{spec: {}}", context=cel.Context.VALIDATION, version="1.37"
    )
    assert not compiled.ok


def test_construction_errors_point_at_the_original_text():
    compiled, _ = mutation("Object{spec: Object.spec{replicas: nope}}")
    (issue,) = compiled.errors
    assert issue.message.startswith("undeclared reference to 'nope'")
    assert issue.column == 36


def test_json_patch_lists_built_by_macros_are_typed_list_of_json_patch():
    compiled, result = mutation(
        "object.spec.template.spec.containers.map(c, "
        "JSONPatch{op: 'add', path: '/metadata/labels/' + c.name, value: 'x'})"
    )
    assert compiled.output_type == "list(JSONPatch)"
    assert result.value == [{"op": "add", "path": "/metadata/labels/a", "value": "x"}]
    empty, _ = mutation("object.spec.replicas > 5 ? [JSONPatch{op: 'remove', path: '/x'}] : []")
    assert empty.output_type == "list(JSONPatch)"


def test_json_patch_fields_can_be_read_back():
    _, result = mutation("JSONPatch{op: 'add', path: '/x', value: 3}.value + 1")
    assert result.value == 4
    compiled, _ = mutation("JSONPatch{op: 'add', path: '/x'}.op == 1")
    assert (
        "found no matching overload for '_==_' applied to '(string, int)'" in compiled.error_text()
    )
