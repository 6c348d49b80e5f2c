"""The JSON Patch engine keeps evanphx/json-patch v4 semantics and error texts."""

from __future__ import annotations

import pytest

from policyeditor.engine.admission.mutating.patch.jsonpatch import (
    JSONPatchError,
    PatchTestFailed,
    apply_patch,
    decode_key,
    escape_key,
)
from policyeditor.engine.admission.mutating.patch.typedobject import DecodeError, strict_decode

DOC = {"metadata": {"labels": {"x": "1"}}, "spec": {"list": ["a", "b", "c"]}}


def _patch_error(*operations: dict) -> JSONPatchError:
    """The JSONPatchError that applying `operations` to DOC raises."""
    with pytest.raises(JSONPatchError) as info:
        apply_patch(DOC, list(operations))
    return info.value


def test_add_sets_a_member_and_replaces_an_existing_map_whole():
    out = apply_patch(DOC, [{"op": "add", "path": "/metadata/labels", "value": {"y": "2"}}])
    assert out["metadata"]["labels"] == {"y": "2"}
    assert DOC["metadata"]["labels"] == {"x": "1"}, "the input is not modified"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/spec/list/0", ["z", "a", "b", "c"]),
        ("/spec/list/3", ["a", "b", "c", "z"]),
        ("/spec/list/-", ["a", "b", "c", "z"]),
        ("/spec/list/-1", ["a", "b", "c", "z"]),
    ],
)
def test_add_inserts_into_lists(path, expected):
    assert apply_patch(DOC, [{"op": "add", "path": path, "value": "z"}])["spec"]["list"] == expected


def test_add_past_the_end_is_an_invalid_index():
    error = _patch_error({"op": "add", "path": "/spec/list/5", "value": "z"})
    assert str(error) == (
        "error in add for path: '/spec/list/5': Unable to access invalid index: 5: invalid index referenced"
    )


def test_add_under_a_missing_parent_reports_the_missing_path():
    error = _patch_error({"op": "add", "path": "/spec/missing/x", "value": 1})
    assert (
        str(error)
        == 'add operation does not apply: doc is missing path: "/spec/missing/x": missing value'
    )


def test_remove_a_missing_key_uses_the_library_wording():
    error = _patch_error({"op": "remove", "path": "/metadata/labels/nope"})
    assert str(error) == (
        "error in remove for path: '/metadata/labels/nope': Unable to remove nonexistent key: nope: missing value"
    )


def test_remove_out_of_range_is_an_invalid_index():
    error = _patch_error({"op": "remove", "path": "/spec/list/3"})
    assert "Unable to access invalid index: 3: invalid index referenced" in str(error)


def test_remove_with_negative_index_counts_from_the_end():
    assert apply_patch(DOC, [{"op": "remove", "path": "/spec/list/-1"}])["spec"]["list"] == [
        "a",
        "b",
    ]


def test_replace_of_a_missing_member_adds_it():
    out = apply_patch(
        DOC, [{"op": "replace", "path": "/metadata/annotations", "value": {"a": "b"}}]
    )
    assert out["metadata"]["annotations"] == {"a": "b"}


def test_replace_dash_in_a_list_is_a_missing_key():
    error = _patch_error({"op": "replace", "path": "/spec/list/-", "value": 1})
    assert (
        str(error)
        == "replace operation does not apply: doc is missing key: /spec/list/-: missing value"
    )


def test_move_and_copy_take_from_then_add_to_path():
    moved = apply_patch(DOC, [{"op": "move", "from": "/spec/list/0", "path": "/spec/list/-"}])
    assert moved["spec"]["list"] == ["b", "c", "a"]
    copied = apply_patch(
        DOC, [{"op": "copy", "from": "/metadata/labels/x", "path": "/metadata/labels/y"}]
    )
    assert copied["metadata"]["labels"] == {"x": "1", "y": "1"}


def test_a_failed_test_raises_the_test_failed_error():
    with pytest.raises(PatchTestFailed):
        apply_patch(DOC, [{"op": "test", "path": "/metadata/labels/x", "value": "2"}])


def test_a_passing_test_compares_json_values():
    ops = [
        {"op": "test", "path": "/spec/list", "value": ["a", "b", "c"]},
        {"op": "test", "path": "/metadata/labels/x", "value": "1"},
        {"op": "add", "path": "/spec/ok", "value": True},
    ]
    assert apply_patch(DOC, ops)["spec"]["ok"] is True


def test_a_test_under_a_missing_parent_is_a_real_error():
    error = _patch_error({"op": "test", "path": "/nope/x", "value": 1})
    assert not isinstance(error, PatchTestFailed)


def test_an_unknown_op_is_unexpected_kind():
    error = _patch_error({"op": "merge", "path": "/spec"})
    assert str(error) == "Unexpected kind: merge"


def test_keys_are_rfc6901_escaped():
    assert escape_key("k8s.io/x~y") == "k8s.io~1x~0y"
    assert decode_key("k8s.io~1x~0y") == "k8s.io/x~y"
    assert decode_key("~01") == "~1"
    out = apply_patch(DOC, [{"op": "add", "path": "/metadata/labels/a~1b", "value": "v"}])
    assert out["metadata"]["labels"]["a/b"] == "v"


def test_strict_decoding_names_the_unknown_field_path():
    obj = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {},
        "spec": {
            "template": {
                "spec": {
                    "containers": [{"name": "a"}, {"name": "x", "ports": [{"containerPortZ": 1}]}]
                }
            }
        },
    }
    with pytest.raises(DecodeError) as info:
        strict_decode(obj)
    assert str(info.value) == (
        'strict decoding error: unknown field "spec.template.spec.containers[1].ports[0].containerPortZ"'
    )


def test_strict_decoding_refuses_wrong_types_and_drops_nulls():
    obj = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"labels": None},
        "spec": {"replicas": "3"},
    }
    with pytest.raises(DecodeError) as info:
        strict_decode(obj)
    assert str(info.value) == (
        "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"
    )
    obj["spec"]["replicas"] = 3
    assert strict_decode(obj) == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {},
        "spec": {"replicas": 3},
    }


def test_type_errors_name_the_enclosing_struct_and_the_path_without_indices():
    spec = {"template": {"spec": {"containers": [{"name": 1}]}}}
    with pytest.raises(DecodeError) as info:
        strict_decode({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {}, "spec": spec})
    assert str(info.value) == (
        "json: cannot unmarshal number into Go struct field Container.spec.template.spec.containers.name"
        " of type string"
    )


def test_unknown_kinds_stay_unstructured():
    obj = {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"anything": 1}}
    assert strict_decode(obj) == obj
