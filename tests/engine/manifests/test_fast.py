"""The libyaml fast path: the exact path's values, and a deferral wherever the exact path refuses."""

from __future__ import annotations

import gc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests import fast
from policyeditor.engine.manifests.compose import (
    MAX_ALIASES,
    MAX_DEPTH,
    MAX_DOCUMENTS,
    MAX_NODES,
    load_yaml,
)
from policyeditor.engine.manifests.fast import _FastLoader, _Unsure, fast_load
from policyeditor.engine.manifests.loading import load_documents
from tests.engine.manifests.test_loading import BILLION_LAUGHS
from tests.security.hostile import YAML_INPUTS

pytestmark = pytest.mark.skipif(fast.CParser is None, reason="PyYAML without libyaml")

ACCEPTED = [
    "a: 1\n---\n---\n# only a comment\n---\nb: 2\n",
    "{a: [1, 2, {b: c}], d: 'e'}",
    "v: [y, n, no, on, off, True, ~, null, 1e3, 0o17, 0x1F, 017, 1:20, 08, 1e400]\n",
    "a: 2001-12-14t21:59:43.10-05:00\nb: .5\nc: -.inf_\nd: 1_000\ne: +12\nf: 9223372036854775808\n",
    "1: one\ntrue: yes\n~: nothing\n1.5: x\n2.0: y\n",
    "base: &base {a: 1, b: 2}\nchild:\n  <<: *base\n  b: 3\n",
    "a: &a {x: 1}\nb: &b {y: 2}\nc: {<<: [*a, *b], z: 3}\n",
    "x: &x {a: 1}\nz: [*x, *x, *x]\n",
    "s: &s scalar\nlist: [*s, *s]\n",
    "'<<': quoted merge key is a string\n",
    "key: |\n  literal\n  text\nfolded: >\n  folded\n  text\n",
    "a: &a 1\n---\nb: &a 2\nc: *a\n",  # anchors are per document
    "expr: object.spec.replicas * 2 <= 10\nrules: ['*']\n",  # `*` that is no alias
    "!!map {a: !!str 1, b: !!int '2', c: !!float '1.5', d: !!bool 'true', e: !!null ''}",
    "[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1),
    "- " * (MAX_DEPTH - 1) + "x",
    "",
    "# nothing\n",
]

REFUSED = [
    BILLION_LAUGHS,
    "a: &a [*a]\n",
    "a: *nowhere\n",
    "a: [\n",
    "a: 1\na: 2\n",
    "a: !!binary aGVsbG8=\n",
    "a: .inf\n",
    "- " * (MAX_DEPTH + 1) + "x",
    "[" * (MAX_DEPTH + 1) + "x" + "]" * (MAX_DEPTH + 1),
    "a: &a " + "[" * 60 + "1" + "]" * 60 + "\nb: " + "[" * 50 + "*a" + "]" * 50 + "\n",
    "a: 1\n---\n" * (MAX_DOCUMENTS + 1),
    "a: [" + "1," * (MAX_NODES + 10) + "1]",
    "a: &a 1\nb: &a 2\nc: *a\n",  # PyYAML refuses a redefined anchor
    "a: &a x\nb: [" + ", ".join(["*a"] * (MAX_ALIASES + 1)) + "]\n",
    "a: &a " + "x" * 100_000 + "\nb: [" + ", ".join(["*a"] * 40) + "]\n",
    "{a: 1}: x\n",
    "<<: 1\n",
    "a: \x07\n",
]


def _exact(text: str) -> list | str:
    try:
        return load_yaml(text, "<input>")
    except InputError as error:
        return f"error: {error}"


@pytest.mark.parametrize("text", ACCEPTED, ids=range(len(ACCEPTED)))
def test_accepted_yaml_loads_to_the_exact_paths_values(text):
    expected = _exact(text)
    assert not isinstance(expected, str), expected
    assert fast_load(text) == expected


@pytest.mark.parametrize("text", REFUSED, ids=range(len(REFUSED)))
def test_yaml_the_exact_path_refuses_is_left_to_it(text):
    assert isinstance(_exact(text), str)
    assert fast_load(text) is None


@pytest.mark.parametrize("item", [i for i in YAML_INPUTS if i.is_text], ids=str)
def test_hostile_yaml_is_left_to_the_exact_path(item):
    if isinstance(_exact(item.payload), str):
        assert fast_load(item.payload) is None


def _counts_when_it_stops(text):
    """The loader's (nodes, depth) counts once composing `text` gives up as unsure."""
    loader = _FastLoader(text)
    try:
        assert loader.check_node()
        with pytest.raises(_Unsure):
            loader.get_node()
        return loader.counts()
    finally:
        loader.dispose()


def test_libyaml_stops_composing_at_the_node_limit():
    assert _counts_when_it_stops("a: [" + "1," * (3 * MAX_NODES) + "1]")[0] == MAX_NODES + 1


def test_libyaml_stops_composing_past_the_depth_limit():
    assert _counts_when_it_stops("[" * 900 + "]" * 900)[1] == MAX_DEPTH + 1


def test_a_scalar_at_the_depth_limit_is_left_to_the_exact_path_which_loads_it():
    text = "- " * MAX_DEPTH + "x"
    assert fast_load(text) is None
    assert not isinstance(_exact(text), str)


def test_the_composer_calls_the_counting_hooks_once_per_node():
    assert fast._HOOKS_COUNT


def test_aliases_are_copied_not_shared():
    docs = fast_load("x: &x {a: [1]}\nz: *x\n")
    assert docs == [{"x": {"a": [1]}, "z": {"a": [1]}}]
    assert docs[0]["x"] is not docs[0]["z"] and docs[0]["x"]["a"] is not docs[0]["z"]["a"]


def test_load_documents_gives_the_exact_error_when_the_fast_path_defers():
    with pytest.raises(InputError, match=r"line 1, column 8: recursive alias \*a"):
        load_documents("a: &a [*a]\n")


def test_the_garbage_collector_is_back_on_after_a_load_and_stays_off_if_it_was_off():
    assert gc.isenabled()
    fast_load("a: [1, 2]\n")
    fast_load("a: &a [*a]\n")
    assert gc.isenabled()
    gc.disable()
    try:
        fast_load("a: [1, 2]\n")
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_loads_overlapping_in_two_threads_leave_the_garbage_collector_on(monkeypatch):
    # Thread A's load ends just as thread B's begins: B must not mistake A's pause for the
    # application's own choice, which would leave the collector off for good.
    first = fast._gc_paused()
    first.__enter__()
    open_ = [True]
    real = gc.isenabled

    def isenabled() -> bool:
        seen = real()
        if open_[0]:  # thread A finishes between B's look and B's pause
            open_[0] = False
            first.__exit__(None, None, None)
        return seen

    monkeypatch.setattr(gc, "isenabled", isenabled)
    try:
        fast_load("a: [1, 2]\n")  # thread B
        if open_[0]:  # B did not look while A's pause was on: A finishes now
            open_[0] = False
            first.__exit__(None, None, None)
        assert real()
    finally:
        gc.enable()  # whatever happened, the rest of the run has its collector


_SCALARS = st.sampled_from(
    ["a", "1", "0x1F", "017", "1e3", "y", "~", "''", "'*a'", "2.5", "-", "<<", "&a b", "*a"]
)
_LINES = st.lists(st.tuples(st.sampled_from(["k", "m", "<<", "1"]), _SCALARS), max_size=8)


@settings(max_examples=300, deadline=None)
@given(_LINES, st.booleans())
def test_generated_yaml_loads_the_same_or_is_left_to_the_exact_path(lines, flow):
    if flow:
        text = "{" + ", ".join(f"{k}: {v}" for k, v in lines) + "}"
    else:
        text = "".join(f"{k}: {v}\n" for k, v in lines)
    fast = fast_load(text)
    if fast is not None:
        assert fast == _exact(text)
