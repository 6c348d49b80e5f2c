"""Whatever the suite files hold, the runner answers with a report and never raises."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from policyeditor.engine.suites.runner import run
from tests.builders import json_values

_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=8))
_VALUES = json_values(_SCALARS)
_KAPTEST_KEYS = st.sampled_from(
    [
        "validatingAdmissionPolicies",
        "resources",
        "testSuites",
        "vapTestSuites",
        "mapTestSuites",
        "policies",
        "version",
    ]
)
_POLICYTEST_KEYS = st.sampled_from(["policies", "cases", "kubernetesVersion", "resources"])


def _run_with(name: str, text: str):
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / name
        path.write_text(text)
        return run([path])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_arbitrary_text_as_a_kaptest_manifest_gives_a_report(text):
    report = _run_with("kaptest.yaml", text)
    # no text names a policy file that exists next to it, so nothing can pass
    assert not report.ok
    assert report.errors or all(r.failures for r in report.results)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_KAPTEST_KEYS, _VALUES, max_size=5))
def test_kaptest_manifests_of_any_shape_fail_cleanly(manifest):
    import json

    report = _run_with("kaptest.yaml", json.dumps(manifest))
    assert not report.ok
    assert report.to_text().splitlines()[-1].endswith("failed")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_POLICYTEST_KEYS, _VALUES, max_size=4))
def test_policytest_suites_of_any_shape_fail_cleanly(fields):
    import json

    suite = {"apiVersion": "policyeditor.dev/v1", "kind": "PolicyTest", **fields}
    report = _run_with("x.policytest.yaml", json.dumps(suite))
    assert not report.ok
