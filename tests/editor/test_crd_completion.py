"""Completion of custom resource fields (object. and params.) with the CRDs in force."""

from __future__ import annotations

import pytest

from policyeditor.editor.completion import complete
from policyeditor.engine import schemas
from tests.crd_cases import BY_ID, CASES, CrdCase

VERSION = "1.34"


@pytest.fixture(params=CASES, ids=[c.id for c in CASES])
def case(request: pytest.FixtureRequest):
    crd_case: CrdCase = request.param
    with schemas.using_crds(schemas.load_crds(crd_case.crds())):
        yield crd_case


def test_completion_offers_the_crd_fields_with_descriptions(case):
    offered = complete(
        f"object.{case.completion_path}", gvk=(case.group, case.version, case.kind), version=VERSION
    )
    by_label = {o["label"]: o for o in offered}
    where, text = case.completion_expect
    assert by_label[case.completion_field][where].startswith(text)


def test_completion_follows_params_of_the_crd_kind(case):
    offered = complete(
        f"params.{case.completion_path}",
        gvk=("apps", "v1", "Deployment"),
        param_gvk=(case.group, case.version, case.kind),
        version=VERSION,
    )
    assert case.completion_field in {o["label"] for o in offered}


def test_a_wrapped_description_is_offered_as_its_first_paragraph_on_one_line():
    case = BY_ID["certificate"]
    with schemas.using_crds(schemas.load_crds(case.crds())):
        offered = complete(
            "object.spec.privateKey", gvk=(case.group, case.version, case.kind), version=VERSION
        )
    detail = {o["label"]: o["detail"] for o in offered}["rotationPolicy"]
    assert detail == (
        "RotationPolicy controls how private keys should be regenerated when a "
        "re-issuance is being processed."
    )
