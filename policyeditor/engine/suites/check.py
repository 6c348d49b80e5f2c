"""Comparing an evaluation with what a case expects: one readable reason per mismatch.

Messages are compared in several forms because suites write them differently: the API server's
full text (`deployments.apps "x" is forbidden: ValidatingAdmissionPolicy 'p' with binding 'b'
denied request: msg`), the part after `denied request: `, and for warnings the part after
`Validation failed for ... '<binding>': `. Audit annotation keys may be written as the policy
writes them (`key`) or in full (`<policy>/<key>`); the API server's own
`validation.policy.admission.k8s.io/...` annotations are only compared when the case names them.
"""

from __future__ import annotations

import json
from typing import Any

from policyeditor.engine import manifests
from policyeditor.engine.admission.result import EvaluationResult
from policyeditor.engine.manifests.diff import unified_lines
from policyeditor.engine.suites.model import UNSET, Expectation

_SERVER_ANNOTATION_PREFIX = "validation.policy.admission.k8s.io/"
_DENIED = "denied request: "


def check(
    expect: Expectation, outcome: EvaluationResult, *, input_object: Any, kaptest: bool = False
) -> list[str]:
    """Every way `outcome` (an EvaluationResult) differs from `expect`; [] when it passes."""
    failures: list[str] = []
    if expect.result is not None and outcome.result != expect.result:
        failures.append(
            f"expected result {_label(expect.result, kaptest)}, got {_label(outcome.result, kaptest)}{_why(outcome)}"
        )
    if expect.allowed is not None and outcome.allowed != expect.allowed:
        wanted = "allowed" if expect.allowed else "denied"
        got = "allowed" if outcome.allowed else "denied"
        failures.append(
            f"expected the request to be {wanted}, it was {got} (result {outcome.result}){_why(outcome)}"
        )
    texts = [outcome.message or "", *outcome.warnings]
    for wanted in expect.messages:
        if not any(wanted in text for text in texts):
            failures.append(f"expected a message containing {wanted!r}, got {_quoted_list(texts)}")
    if expect.message_exact is not None and expect.message_exact not in message_forms(
        outcome.message or ""
    ):
        failures.append(
            f"expected the message {expect.message_exact!r}, got {outcome.message or ''!r}"
        )
    failures += _check_warnings(expect, list(outcome.warnings))
    failures += _check_annotations(expect, dict(outcome.audit_annotations))
    if expect.object is not UNSET and outcome.object != expect.object:
        failures.append(
            "the object after mutation differs from the expected one:\n"
            + object_diff(expect.object, outcome.object)
        )
    elif expect.forbid_mutation and expect.object is UNSET and outcome.object != input_object:
        failures.append(
            "policy mutated the object but no .gold.yaml file was provided:\n"
            + object_diff(input_object, outcome.object)
        )
    return failures


def message_forms(message: str) -> set[str]:
    """The forms a denial or warning message can be written in (see the module docstring)."""
    forms = {message, message.strip()}
    if _DENIED in message:
        forms.add(message.split(_DENIED, 1)[1].strip())
    if message.startswith("Validation failed for ") and "': " in message:
        forms.add(message.split("': ", 1)[1].strip())
    return forms


def _check_warnings(expect: Expectation, warnings: list[str]) -> list[str]:
    if expect.warnings is None:
        return []
    if expect.warnings_exact:
        if len(warnings) != len(expect.warnings) or any(
            wanted not in message_forms(actual)
            for wanted, actual in zip(expect.warnings, warnings, strict=False)
        ):
            return [
                f"expected the warnings {_quoted_list(expect.warnings)}, got {_quoted_list(warnings)}"
            ]
        return []
    if not expect.warnings and warnings:
        return [f"expected no warnings, got {_quoted_list(warnings)}"]
    return [
        f"expected a warning containing {wanted!r}, got {_quoted_list(warnings)}"
        for wanted in expect.warnings
        if not any(wanted in actual for actual in warnings)
    ]


def _check_annotations(expect: Expectation, actual: dict[str, str]) -> list[str]:
    if expect.audit_annotations is None:
        return []
    wanted = expect.audit_annotations
    compared: dict[str, str] = {}
    for key, value in actual.items():
        short = key.split("/", 1)[1] if "/" in key else key
        if key in wanted:
            compared[key] = value
        elif short in wanted and not key.startswith(_SERVER_ANNOTATION_PREFIX):
            compared[short] = value
        elif not expect.audit_annotations_subset and not key.startswith(_SERVER_ANNOTATION_PREFIX):
            compared[short] = value  # an annotation the case did not list: part of the exact set
    if compared == wanted:
        return []
    return [f"expected the audit annotations {_json(wanted)}, got {_json(compared)}"]


def object_diff(expected: Any, actual: Any) -> str:
    """A unified diff of two objects as YAML (expected first), indented for the report."""
    lines = unified_lines(_yaml(expected), _yaml(actual), fromfile="expected", tofile="actual")
    return "\n".join(lines)


def _sorted(value: Any) -> Any:
    # both sides in one key order, so the diff shows changed values rather than moved keys
    if isinstance(value, dict):
        return {key: _sorted(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted(item) for item in value]
    return value


def _yaml(value: Any) -> str:
    value = _sorted(value)
    if value is None:
        return "null\n"
    if isinstance(value, dict):
        try:
            return manifests.dump_documents([value])
        except Exception:  # an object dump_documents refuses still deserves a diff
            pass
    return json.dumps(value, indent=2, sort_keys=True, default=str) + "\n"


def _why(outcome: EvaluationResult) -> str:
    details = [outcome.message] if outcome.message else []
    details += [e for e in getattr(outcome, "errors", []) if e not in details]
    return f": {'; '.join(details)}" if details else ""


def _label(result: str, kaptest: bool) -> str:
    # kaptest calls an allowed request "admit"
    return "admit" if kaptest and result == "allow" else result


def _quoted_list(values: list[str]) -> str:
    return "[" + ", ".join(repr(v) for v in values) + "]" if values else "none"


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True)
