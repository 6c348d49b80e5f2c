"""Test files of other tools, recognised by their own markers so they are named, not misread.

policyeditor runs PolicyTest files, kaptest manifests and kat directories. Other admission-policy
tools keep their tests in YAML too, and a Kyverno CLI `kyverno-test.yaml` happens to share the
`policies` and `resources` keys with kaptest; read as a kaptest manifest it would only earn
"unknown field apiVersion". Each layout here is known by its apiVersion group and kind (and the
legacy Kyverno layout by its `results` list), and reported as a format that is not run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# (apiVersion group, kind) -> what the file is. Groups, not versions: every version of these
# kinds is another tool's.
_KNOWN: dict[tuple[str, str], str] = {
    # kyverno/kyverno cmd/cli/kubectl-kyverno/apis/v1alpha1 test.go, values.go, user_info.go
    ("cli.kyverno.io", "Test"): "a Kyverno CLI test",
    ("cli.kyverno.io", "Values"): "a Kyverno CLI values file",
    ("cli.kyverno.io", "UserInfo"): "a Kyverno CLI user info file",
    # Kyverno CLI tests written before the cli.kyverno.io group existed
    ("kyverno.io", "Test"): "a Kyverno CLI test",
    # kyverno/chainsaw: the chainsaw.kyverno.io Test and Configuration kinds
    ("chainsaw.kyverno.io", "Test"): "a Kyverno Chainsaw test",
    ("chainsaw.kyverno.io", "Configuration"): "a Kyverno Chainsaw configuration",
    # open-policy-agent/gatekeeper pkg/gator/verify read_suites.go: the `gator verify` Suite
    ("test.gatekeeper.sh", "Suite"): "a Gatekeeper gator test suite",
}

# File names the tools look for themselves: discovery mentions them when it finds no suite.
KNOWN_FILE_NAMES = (
    "kyverno-test.yaml",
    "kyverno-test.yml",
    "chainsaw-test.yaml",
    "chainsaw-test.yml",
)

_NOT_RUN = "a format policyeditor does not run yet"


def foreign_format(doc: Any) -> str | None:
    """What another tool's test document is ("a Kyverno CLI test (cli.kyverno.io/v1alpha1 Test)"), else None."""
    if not isinstance(doc, dict):
        return None
    api_version, kind = doc.get("apiVersion"), doc.get("kind")
    if isinstance(api_version, str) and isinstance(kind, str):
        group = api_version.rpartition("/")[0]
        what = _KNOWN.get((group, kind))
        return f"{what} ({api_version} {kind})" if what else None
    if api_version is None and kind is None and _legacy_kyverno_test(doc):
        return "a Kyverno CLI test (the layout without apiVersion and kind)"
    return None


def _legacy_kyverno_test(doc: dict[str, Any]) -> bool:
    # Kyverno's older test files: name, policies, resources and a `results` list whose entries
    # name a policy and a result (`status` in the oldest ones). kaptest has no `results`.
    results = doc.get("results")
    return (
        isinstance(results, list)
        and bool(results)
        and all(
            isinstance(r, dict) and "policy" in r and ("result" in r or "status" in r)
            for r in results
        )
    )


def not_run_message(path: Path, what: str) -> str:
    """The plain statement that a file is of a format policyeditor does not run."""
    return f"{path.name} is {what}, {_NOT_RUN}"
