"""An allocation failure stops the whole evaluation; it never reads as a CEL error."""

from __future__ import annotations

import pytest

from policyeditor.engine import cel
from policyeditor.engine.cel import strings_format
from policyeditor.engine.cel.runtime import memory
from policyeditor.engine.errors import MemoryExhausted
from tests.engine.cel.compiling import compile_stored

OBJECT = {"metadata": {"name": "web"}, "items": ["a", "b"]}


def program(expr: str) -> cel.Program:
    result = compile_stored(expr)
    assert result.ok, result.errors
    return result.program


@pytest.fixture
def format_runs_out(monkeypatch):
    """string.format's implementation fails as it does when a worker reaches its memory cap."""

    def exhausted(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(strings_format, "format_string", exhausted)


@pytest.mark.parametrize(
    "failure",
    [
        "RESOURCE_EXHAUSTED: ",  # a MemoryError in a Python implementation, as an error value
        "RESOURCE_EXHAUSTED: std::bad_alloc",
        MemoryError("std::bad_alloc"),  # a C++ allocation failure raised by eval()
        MemoryError(),
        RuntimeError("RESOURCE_EXHAUSTED: arena [RESOURCE_EXHAUSTED]"),  # eval() failing so
    ],
)
def test_the_status_and_the_exception_of_an_allocation_failure_are_recognised(failure):
    assert memory.is_exhausted(failure)


@pytest.mark.parametrize(
    "failure",
    [
        'NOT_FOUND: Key not found in map : "RESOURCE_EXHAUSTED: std::bad_alloc"',
        "UNKNOWN: RESOURCE_EXHAUSTED: std::bad_alloc",
        "OUT_OF_RANGE: invalid input: std::bad_alloc",
        "no such key: RESOURCE_EXHAUSTED: x",
        RuntimeError("INTERNAL: Iteration budget exceeded [INTERNAL]"),
        RuntimeError("UNKNOWN: std::bad_alloc [UNKNOWN]"),
        ValueError("RESOURCE_EXHAUSTED: x"),
    ],
)
def test_text_that_only_mentions_the_words_is_not_an_allocation_failure(failure):
    assert not memory.is_exhausted(failure)


def test_a_key_named_like_an_allocation_failure_is_an_ordinary_cel_error():
    expression = program("{'RESOURCE_EXHAUSTED: a': 1}['RESOURCE_EXHAUSTED: std::bad_alloc'] == 1")
    result = expression.evaluate(cel.Activation())
    assert result.error is not None
    assert result.error.message == "no such key: RESOURCE_EXHAUSTED: std::bad_alloc"


def test_format_running_out_of_memory_stops_the_evaluation(format_runs_out):
    expression = program("'%s'.format([object.metadata.name]) == 'web'")
    with pytest.raises(MemoryExhausted):
        expression.evaluate(cel.Activation(object=OBJECT))


def test_an_allocation_failure_that_or_would_absorb_still_stops_the_evaluation(format_runs_out):
    # An error on the left of `|| true` is absorbed by CEL: without the mark the answer is true.
    expression = program("object.items.map(x, '%s'.format([x])).size() > 5 || true")
    with pytest.raises(MemoryExhausted):
        expression.evaluate(cel.Activation(object=OBJECT))


def test_a_variable_running_out_of_memory_stops_the_expression_that_reads_it(format_runs_out):
    results, declarations = cel.compile_variables(
        [("name", "'%s'.format([object.metadata.name])")], version="1.37"
    )
    main = cel.compile_expression(
        "variables.name == 'web' || true",
        context=cel.Context.VALIDATION,
        version="1.37",
        declarations=declarations,
    )
    activation = cel.Activation(object=OBJECT)
    cel.VariableResolver(results).bind(activation)
    with pytest.raises(MemoryExhausted):
        main.program.evaluate(activation)


class _BadAlloc:
    """An engine program whose eval() fails as cel-expr-python's does on a C++ std::bad_alloc."""

    def __init__(self) -> None:
        self.calls = 0

    def eval(self, **kwargs):
        self.calls += 1
        raise MemoryError("std::bad_alloc")


def test_an_allocation_failure_raised_by_the_engine_stops_without_a_second_run(monkeypatch):
    expression = program("object.metadata.name == 'web'")
    engine = _BadAlloc()
    monkeypatch.setattr(expression, "_expression", engine)  # the program is cached: put it back
    with pytest.raises(MemoryExhausted):
        expression.evaluate(cel.Activation(object=OBJECT))
    assert engine.calls == 1  # the retry with sanitized input would only run out of memory again


def test_the_same_expression_evaluates_normally_when_memory_suffices():
    expression = program("object.items.map(x, '%s'.format([x])).size() > 5 || true")
    assert expression.evaluate(cel.Activation(object=OBJECT)).value is True
