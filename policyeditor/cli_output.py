"""Output of the `policyeditor` command: evaluation reports as text, CEL results and data dumps."""

from __future__ import annotations

import json
from typing import Any, TextIO


def dump(data: Any, fmt: str, out: TextIO) -> None:
    """Write data as indented JSON or block-style YAML."""
    if fmt == "json":
        out.write(json.dumps(data, indent=2, sort_keys=False, default=str) + "\n")
    else:
        import yaml

        out.write(
            yaml.safe_dump(data, sort_keys=False, default_flow_style=False, allow_unicode=True)
        )


def format_evaluation(result: Any) -> str:
    """The text form of an EvaluationResult: the answer first, then every policy's steps."""
    lines = [
        f"result: {result.result} (allowed: {str(result.allowed).lower()}, code {result.status_code})"
    ]
    if result.message:
        lines.append(f"message: {result.message}")
    for warning in result.warnings:
        lines.append(f"warning: {warning}")
    for key, value in sorted(result.audit_annotations.items()):
        lines.append(f"audit annotation: {key}: {value}")
    for error in getattr(result, "errors", []):
        lines.append(f"error: {error}")
    for which, paths in getattr(result, "defaulted", {}).items():
        lines.append(f"defaulted ({which}): {', '.join(paths)}")
    for outcome in result.policies:
        lines.extend(_format_outcome(outcome))
    if getattr(result, "diff", ""):
        lines.append("object diff:")
        lines.extend("  " + line for line in result.diff.splitlines())
    return "\n".join(lines) + "\n"


def _format_outcome(outcome: Any) -> list[str]:
    head = f"{outcome.kind} {outcome.policy!r}"
    if outcome.binding:
        head += f" binding {outcome.binding!r}"
    if outcome.param:
        head += f" param {outcome.param!r}"
    if not outcome.matched:
        return [f"{head}: not matched" + (f" ({outcome.reason})" if outcome.reason else "")]
    lines = [f"{head}: {outcome.result}" + (f" ({outcome.reason})" if outcome.reason else "")]
    for group in ("match_conditions", "variables", "validations", "audit_annotations", "mutations"):
        for step in getattr(outcome, group, []):
            lines.append("  " + _format_step(step))
    lines.extend(f"  error: {error}" for error in outcome.errors)
    return lines


def _format_step(step: Any) -> str:
    label = f"{step.kind}[{step.index}]" + (f" {step.name}" if step.name else "")
    text = f"{label}: {step.status}"
    if step.expression:
        text += f"  {' '.join(step.expression.split())}"
    if getattr(step, "defaulted", None):
        text += f"  (then defaulted: {', '.join(step.defaulted)})"
    if step.error:
        text += f"  -- {step.error}"
    elif step.message:
        text += f"  -- {step.message}"
    elif step.kind == "variable" and step.status == "ok":
        text += f"  = {json.dumps(step.value, default=str)}"
    return text


def cel_result_to_dict(result: Any) -> dict[str, Any]:
    """JSON form of evaluate_expression's answer: a CompileResult (errors) or an EvalResult."""
    issues = list(getattr(result, "errors", None) or [])
    error = getattr(result, "error", None)
    if error is not None:
        issues.append(error)
    return {
        "value": getattr(result, "value", None) if not issues else None,
        "cost": getattr(result, "cost", None),
        "errors": [
            {
                "message": getattr(issue, "message", str(issue)),
                "line": getattr(issue, "line", None),
                "column": getattr(issue, "column", None),
                "phase": getattr(issue, "phase", ""),
                "text": str(issue),
            }
            for issue in issues
        ],
        "warnings": [str(w) for w in getattr(result, "warnings", None) or []],
    }
