"""Test files of other tools, recognised by their own markers so they are named, not misread.

policyeditor runs PolicyTest files, kaptest manifests, kat directories and Kyverno CLI tests
(formats/kyverno.py knows those by their apiVersion group and kind, or the legacy layout by its
`results` list). Other files of those tools, and other tools' tests, are named here by their
apiVersion group and kind and reported as a format that is not run, rather than read as a
kaptest manifest (which would only earn "unknown field apiVersion").
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# (apiVersion group, kind) -> what the file is. Groups, not versions: every version of these
# kinds is another tool's.
_KNOWN: dict[tuple[str, str], str] = {
    # kyverno/kyverno cmd/cli/kubectl-kyverno/apis/v1alpha1 values.go, user_info.go: the side
    # files a Kyverno CLI test names (`Value` is how Kyverno's own tests spell the kind)
    ("cli.kyverno.io", "Values"): "a Kyverno CLI values file",
    ("cli.kyverno.io", "Value"): "a Kyverno CLI values file",
    ("cli.kyverno.io", "UserInfo"): "a Kyverno CLI user info file",
    # kyverno/chainsaw: the chainsaw.kyverno.io Test and Configuration kinds
    ("chainsaw.kyverno.io", "Test"): "a Kyverno Chainsaw test",
    ("chainsaw.kyverno.io", "Configuration"): "a Kyverno Chainsaw configuration",
    # open-policy-agent/gatekeeper pkg/gator/verify read_suites.go: the `gator verify` Suite
    ("test.gatekeeper.sh", "Suite"): "a Gatekeeper gator test suite",
}

# File names the tools look for themselves: discovery mentions them when it finds no suite.
KNOWN_FILE_NAMES = (
    "chainsaw-test.yaml",
    "chainsaw-test.yml",
)

_NOT_RUN = "a format policyeditor does not run yet"


def foreign_format(doc: Any) -> str | None:
    """What another tool's test document is ("a Kyverno Chainsaw test (chainsaw.kyverno.io/v1alpha1 Test)"), else None."""
    if not isinstance(doc, dict):
        return None
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if isinstance(api_version, str) and isinstance(kind, str):
        group = api_version.rpartition("/")[0]
        what = _KNOWN.get((group, kind))
        return f"{what} ({api_version} {kind})" if what else None
    return None


def not_run_message(path: Path, what: str) -> str:
    """The plain statement that a file is of a format policyeditor does not run."""
    return f"{path.name} is {what}, {_NOT_RUN}"
