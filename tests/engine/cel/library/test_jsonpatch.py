"""kubernetes.jsonpatch: escapeKey."""

from __future__ import annotations

from policyeditor.engine.cel.library import jsonpatch
from tests.engine.cel.library.helpers import evaluate


def test_escape_key_replaces_tilde_before_slash() -> None:
    assert jsonpatch.escape_key("k8s.io/my~label") == "k8s.io~1my~0label"
    assert jsonpatch.escape_key("~1") == "~01"


def test_escape_key_through_cel() -> None:
    expr = "'/metadata/labels/' + jsonpatch.escapeKey('k8s.io/my~label')"
    assert evaluate(expr, ("kubernetes.jsonpatch",)) == "/metadata/labels/k8s.io~1my~0label"
