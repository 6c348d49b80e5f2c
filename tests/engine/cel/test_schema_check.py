"""Schema-aware type-check warnings, as Kubernetes writes them to status.typeChecking."""

from __future__ import annotations

import pytest

from policyeditor.engine.cel import Declarations
from policyeditor.engine.cel.schema_check import type_check, type_check_warning


def deployment_warning(expr: str) -> str | None:
    return type_check_warning(
        expr, group="apps", api_version="v1", kind="Deployment", version="1.37"
    )


def test_misspelled_field_is_an_undefined_field_warning_with_position():
    warning = deployment_warning("object.spec.replica > 1")
    assert warning == (
        "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replica'\n"
        " | object.spec.replica > 1\n"
        " | ...........^"
    )


@pytest.mark.parametrize(
    "expr",
    [
        "object.spec.replicas <= 5",
        "object.spec.replicas < 2.5",
        "object.metadata.labels.app == 'x'",
        "object.spec.template.spec.containers.all(c, c.image.startsWith('nginx'))",
        "object.spec.template.spec.containers[0].name == 'a'",
        "has(object.spec.strategy) && object.spec.strategy.type == 'Recreate'",
    ],
)
def test_correct_expressions_give_no_warning(expr):
    assert deployment_warning(expr) is None


def test_fields_of_list_elements_are_checked_inside_macros():
    warning = deployment_warning("object.spec.template.spec.containers.all(c, c.imagex == 'a')")
    assert warning is not None and "undefined field 'imagex'" in warning


def test_two_variable_comprehensions_bind_the_element():
    warning = deployment_warning("object.spec.template.spec.containers.all(i, c, c.image == 1)")
    assert warning is not None
    assert "found no matching overload for '_==_' applied to '(string, int)'" in warning


def test_comparison_with_a_literal_of_another_type_is_reported():
    warning = deployment_warning("object.spec.replicas == 'three'")
    assert warning is not None
    assert "found no matching overload for '_==_' applied to '(int, string)'" in warning


def test_old_object_is_typed_too_and_params_use_their_own_schema():
    assert deployment_warning("oldObject.spec.nope == 1") is not None
    param = {"type": "object", "properties": {"max": {"type": "integer"}}}
    issues = type_check(
        "params.maxx > 1",
        object_schema=None,
        param_schema=param,
        version="1.37",
        declarations=Declarations(has_params=True),
    )
    assert [issue.message for issue in issues] == ["undefined field 'maxx'"]


def test_unknown_kinds_and_uncompilable_expressions_give_nothing():
    assert type_check_warning("object.x", group="nope.io", api_version="v1", kind="Nope") is None
    assert deployment_warning("object.spec.(") is None
