"""Every vector of conformance/cel.jsonl, evaluated in the Kubernetes CEL environment."""

from __future__ import annotations

import pytest

from policyeditor.engine import cel
from tests.vectors import assert_vector_outcome, load_vectors, vector_id

VECTORS = load_vectors("cel.jsonl")
_VERSION = "1.37"


def _authorizer(mock: dict | None):
    if mock is None:
        return None
    from policyeditor.engine.cel.library import authz

    return authz.mock_authorizer(mock)


def _run(record: dict):
    values = record.get("vars", {})
    has_params = "params" in values
    base = cel.Declarations(has_params=has_params)
    compiled_vars, declarations = cel.compile_variables(
        [(v["name"], v["expression"]) for v in record.get("variables", [])],
        version=_VERSION,
        declarations=base,
        env_type=cel.EnvType.STORED_EXPRESSIONS,
    )
    compiled = cel.compile_expression(
        record["expr"],
        context=cel.Context.VALIDATION,
        version=_VERSION,
        declarations=declarations,
        env_type=cel.EnvType.STORED_EXPRESSIONS,
    )
    if not compiled.ok:
        return "compile", "compilation failed: " + compiled.error_text(), None
    activation = cel.Activation.of(values, _authorizer(values.get("authorizer")))
    cel.VariableResolver(compiled_vars).bind(activation)
    budget = record.get("runtime_cost_budget")
    result = compiled.program.evaluate(
        activation,
        budget=cel.CostBudget(budget) if budget is not None else None,
        limit=record.get("per_call_cost_limit", cel.PER_CALL_LIMIT),
    )
    if result.error is not None:
        message = result.error.message
        return "runtime", f"expression '{record['expr']}' resulted in error: {message}", None
    return "value", "", result.value


@pytest.mark.parametrize("record", VECTORS, ids=[vector_id(r, i) for i, r in enumerate(VECTORS)])
def test_vector_matches_kubernetes(record: dict) -> None:
    assert_vector_outcome(record, *_run(record))
