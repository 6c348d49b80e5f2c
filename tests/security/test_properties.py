"""Property tests: random input never raises out of the loader, the CEL front end or validation."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyeditor.engine.cel import Activation, CompileResult, Context, compile_expression
from policyeditor.engine.errors import FieldError, InputError
from policyeditor.engine.manifests.loading import dump_documents, load_documents
from policyeditor.engine.validation.documents import validate_documents
from tests.security.hostile import BASE_POLICY

# derandomize: the same examples on every run, so a failure is reproducible and CI is stable.
SETTINGS = settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

YAML_ALPHABET = st.sampled_from(
    list("abcxyz019 -:{}[],&*!|>'\"#%@`?\n\t.\\") + ["---", "...", "<<", "\u202e", "\x00", "é"]
)
yaml_like = st.lists(YAML_ALPHABET, max_size=80).map("".join)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)
objects = st.dictionaries(st.text(max_size=10), json_values, max_size=6)


def _is_documents(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(doc, dict) for doc in value)


def _assert_loads_or_refuses(source: str | bytes) -> None:
    """`source` loads as a list of documents, or is refused with an InputError that says why."""
    try:
        documents = load_documents(source)
    except InputError as error:
        assert str(error)
    else:
        assert _is_documents(documents)


@SETTINGS
@given(yaml_like)
def test_the_loader_reads_or_refuses_any_yaml_like_text(text):
    _assert_loads_or_refuses(text)


@SETTINGS
@given(st.binary(max_size=200))
def test_the_loader_reads_or_refuses_any_bytes(data):
    _assert_loads_or_refuses(data)


@SETTINGS
@given(objects)
def test_dumped_documents_load_back_unchanged(document):
    assert load_documents(dump_documents([document])) == ([document] if document else [{}])


CEL_TOKENS = st.sampled_from(
    [
        "object", "oldObject", "request", "params", "variables", "self", ".", "spec", "replicas",
        "metadata", "name", "(", ")", "[", "]", "{", "}", ",", ":", "?", "+", "-", "*", "/", "%",
        "==", "!=", "<", "<=", ">", ">=", "&&", "||", "!", "in", "has", "size", "all", "exists",
        "map", "filter", "x", "1", "0", "-1", "2.5", "1u", "'a'", '"b"', "b'c'", "true", "false",
        "null", "int", "string", "matches", "'^a+$'", "quantity", "'1Gi'", "ip", "cidr", "url",
        "\u202e", "\u200b", "\u043e", " ", "\n", "#", "@", "\\", "`",
    ]
)  # fmt: skip
cel_like = st.lists(CEL_TOKENS, max_size=30).map(" ".join) | st.text(max_size=40)


@SETTINGS
@given(cel_like, st.sampled_from(list(Context)), st.sampled_from(["1.30", "1.34", "1.37"]))
def test_compiling_any_expression_gives_a_result_never_an_exception(expression, context, version):
    result = compile_expression(expression, context=context, version=version)
    assert isinstance(result, CompileResult)
    assert result.ok == (result.program is not None)
    if not result.ok:
        assert result.errors and all(str(issue) for issue in result.errors)


@SETTINGS
@given(cel_like, objects)
def test_evaluating_any_compiled_expression_returns_a_value_or_an_error(expression, obj):
    result = compile_expression(expression, context=Context.VALIDATION, version="1.37")
    if result.ok:
        outcome = result.program.evaluate(Activation(object=obj, request={"operation": "CREATE"}))
        assert outcome.error is None or str(outcome.error)


PATHS = [
    ("apiVersion",),
    ("kind",),
    ("metadata",),
    ("metadata", "name"),
    ("spec",),
    ("spec", "failurePolicy"),
    ("spec", "matchConstraints"),
    ("spec", "matchConstraints", "resourceRules"),
    ("spec", "validations"),
    ("spec", "validations", 0),
    ("spec", "validations", 0, "expression"),
    ("spec", "validations", 0, "message"),
    ("spec", "matchConditions"),
    ("spec", "variables"),
    ("spec", "paramKind"),
    ("spec", "auditAnnotations"),
]
KINDS = st.sampled_from(
    [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
        "ConfigMap",
        "Nonsense",
    ]
)


def _mutate(path: tuple, value: Any, kind: str) -> dict:
    doc = copy.deepcopy(BASE_POLICY)
    doc["kind"] = kind
    node: Any = doc
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return doc


@SETTINGS
@given(
    st.lists(st.tuples(st.sampled_from(PATHS), json_values, KINDS), min_size=1, max_size=3),
    st.sampled_from(["1.30", "1.34", "1.37"]),
)
def test_validating_random_documents_reports_errors_never_raises(mutations, version):
    documents = [_mutate(path, value, kind) for path, value, kind in mutations]
    errors = validate_documents(documents, version=version)
    for index, error in errors:
        assert 0 <= index < len(documents)
        assert isinstance(error, FieldError) and error.message


@SETTINGS
@given(st.lists(objects, min_size=1, max_size=3))
def test_validating_arbitrary_objects_never_raises(documents):
    for index, error in validate_documents(documents):
        assert 0 <= index < len(documents) and error.message
