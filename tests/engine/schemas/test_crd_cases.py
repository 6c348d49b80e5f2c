"""Each real CRD end to end in the engine: type checks, evaluation, ApplyConfiguration, params."""

from __future__ import annotations

import pytest

from policyeditor.engine import schemas, validation
from policyeditor.engine.admission.inputs import EvaluationInputs, evaluate_inputs
from tests.crd_cases import CASES, CrdCase, get_path

VERSION = "1.34"


@pytest.fixture(params=CASES, ids=[c.id for c in CASES])
def case(request: pytest.FixtureRequest):
    crd_case: CrdCase = request.param
    registry = schemas.load_crds(crd_case.crds())
    with schemas.using_crds(registry):
        yield crd_case


def _warnings(policy: dict) -> list[str]:
    return [str(w) for w in validation.warnings_for(policy, version=VERSION)]


def _evaluate(case: CrdCase, documents: list, obj: dict, resources: list = ()):
    return evaluate_inputs(EvaluationInputs(documents, VERSION, object=obj, resources=resources))


def test_the_crd_serves_its_plural_scope_and_storage_version(case):
    info = schemas.kind_for_resource(case.group, case.version, case.plural, VERSION)
    assert info is not None and info.kind == case.kind and info.custom
    assert info.namespaced is case.namespaced
    assert any(i.storage for i in schemas.all_resources(VERSION) if i.kind == case.kind)


def test_a_misspelled_field_is_a_type_check_warning_in_the_api_servers_words(case):
    warnings = _warnings(case.vap(case.valid, case.typo))
    assert len(warnings) == 1
    assert warnings[0].startswith("spec.validations[1].expression: ")
    assert f"{case.api_version}, Kind={case.kind}: ERROR: <input>:1:" in warnings[0]
    assert f"undefined field '{case.typo_field}'" in warnings[0]


def test_valid_fields_give_no_type_check_warning(case):
    assert _warnings(case.vap(case.valid)) == []


def test_a_vap_allows_the_valid_object_and_denies_the_changed_one(case):
    policy = case.vap(case.valid)
    allowed = _evaluate(case, [policy], case.object())
    assert allowed.allowed, allowed.message
    denied = _evaluate(case, [policy], case.denied_object())
    assert not denied.allowed and denied.status_code == 422
    assert f"failed expression: {case.valid}" in denied.message


def test_an_apply_configuration_merges_into_a_list_map(case):
    result = _evaluate(case, [case.map(case.list_map)], case.object())
    assert result.allowed, result.message
    path, value = case.list_map_check
    assert get_path(result.object, path) == value
    # what the object had is kept: a list map merges, it does not replace
    kept = get_path(case.object(), case.list_map_kept)
    assert kept is not None and get_path(result.object, case.list_map_kept) == kept


def test_an_apply_configuration_may_not_set_an_atomic_list(case):
    result = _evaluate(case, [case.map(case.atomic)], case.object())
    assert not result.allowed
    assert (
        "invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: "
        + case.atomic_path
    ) in result.message


def test_params_of_the_crd_kind_are_typed_by_its_schema(case):
    assert _warnings(case.vap(case.valid, case.param_valid, params=True)) == []
    warnings = _warnings(case.vap(case.param_typo, params=True))
    assert len(warnings) == 1 and f"undefined field '{case.param_typo_field}'" in warnings[0]


def test_a_param_of_the_crd_kind_is_found_and_evaluated(case):
    policy = case.vap(case.param_valid, params=True)
    param = case.object("limits")
    result = _evaluate(case, [policy, case.binding("limits")], case.object(), [param])
    assert result.allowed, result.message
    assert result.policies and result.policies[0].result == "allow"
