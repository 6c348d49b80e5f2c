"""The records an evaluation leaves behind: every step per policy, and the API server's answer."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, NotRequired, TypedDict

# Outcome precedence when several policies (or params) answer one request: an error is the most
# important thing to show, then a denial, then the softer actions.
RESULT_ORDER = ("error", "deny", "warn", "audit", "allow", "skip")


def worst(results: list[str]) -> str:
    """The most important of several results ("skip" when there are none)."""
    present = [r for r in results if r in RESULT_ORDER]
    if not present:
        return "skip"
    return min(present, key=RESULT_ORDER.index)


_SCALARS = (str, int, float, bool, type(None))


def _json(value: Any) -> Any:
    kind = type(value)
    # Exact-type tests first: most values are scalars, and hasattr() is the slow test.
    if kind in _SCALARS:
        return value
    if kind is dict:
        return {str(k): v if type(v) in _SCALARS else _json(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _SCALARS else _json(v) for v in value]
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, dict):
        return {str(k): _json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


class Denial(TypedDict):
    """A denial an outcome contributes to the response; the first one answers the request."""

    message: str
    reason: str  # the Status reason (Invalid, Forbidden, NotFound, InternalError...)
    error: bool  # the expression failed to evaluate (else it evaluated to a denial)
    fatal: NotRequired[bool]  # a status error returned as is (namespace NotFound, internal)
    code: NotRequired[int]  # the HTTP code of a fatal denial, when not 404
    mutating: NotRequired[bool]  # a MutatingAdmissionPolicy's (answered with 403)


class AuditFailure(TypedDict):
    """One entry of the validation.policy.admission.k8s.io/validation_failure audit annotation."""

    message: str
    policy: str
    binding: str
    expressionIndex: int
    validationActions: list[str]


@dataclass
class Step:
    """One evaluated expression: match condition, variable, validation, annotation or mutation."""

    # status is "true"/"false"/"error" for match conditions, "pass"/"fail"/"error" for
    # validations, "ok"/"error"/"unused" for variables and audit annotations,
    # "applied"/"unchanged"/"skipped"/ "error" for mutations.

    kind: str
    index: int
    expression: str = ""
    name: str = ""
    status: str = ""
    value: Any = None
    error: str = ""
    message: str = ""
    reason: str = ""
    cost: int = 0
    message_expression: str = ""
    message_expression_value: Any = None
    message_expression_error: str = ""
    patch_type: str = ""
    patch: Any = None
    diff: str = ""
    # A mutation's result defaulted again before the next mutation sees it: the paths written.
    defaulted: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON form: empty optional fields are left out so the output stays readable."""
        data: dict[str, Any] = {"kind": self.kind, "index": self.index}
        for item in fields(self):
            if item.name in ("kind", "index"):
                continue
            value = getattr(self, item.name)
            if value in ("", None, 0) and item.name not in ("value",):
                continue
            if item.name == "defaulted" and not value:
                continue
            if item.name == "value" and value is None and self.kind in ("mutation",):
                continue
            data[_camel(item.name)] = _json(value)
        return data


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


@dataclass
class PolicyOutcome:
    """One (policy, binding, param) evaluation: whether it matched and what each step gave."""

    kind: str
    policy: str
    binding: str | None = None
    param: str | None = None
    matched: bool = False
    reason: str = ""
    result: str = "skip"
    failure_policy: str = "Fail"
    actions: list[str] = field(default_factory=list)
    matched_kind: dict[str, Any] | None = None
    matched_resource: dict[str, Any] | None = None
    match_conditions: list[Step] = field(default_factory=list)
    variables: list[Step] = field(default_factory=list)
    validations: list[Step] = field(default_factory=list)
    audit_annotations: list[Step] = field(default_factory=list)
    mutations: list[Step] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    message: str = ""
    warnings: list[str] = field(default_factory=list)
    invocation: int = 1
    # What this outcome contributes to the response: denials ({"message", "reason"}), the
    # validation_failure audit entries and the published audit annotations (key -> value).
    denials: list[Denial] = field(default_factory=list)
    audit_failures: list[AuditFailure] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON form with stable camelCase keys."""
        return {_camel(item.name): _json(getattr(self, item.name)) for item in fields(self)}


@dataclass
class EvaluationResult:
    """What the API server would answer, plus every policy's outcome."""

    result: str
    allowed: bool
    status_code: int
    message: str
    warnings: list[str] = field(default_factory=list)
    audit_annotations: dict[str, str] = field(default_factory=dict)
    object: dict[str, Any] | None = None
    policies: list[PolicyOutcome] = field(default_factory=list)
    reason: str = ""
    patch: list[dict[str, Any]] = field(default_factory=list)
    diff: str = ""
    errors: list[str] = field(default_factory=list)
    # Status details.causes messages of a denial (VAP: the denial; MAP: every policy error).
    causes: list[str] = field(default_factory=list)
    # The fields the API server's defaulting filled in before admission, per request object
    # ("object", "oldObject"); empty when defaulting was off or had nothing to add.
    defaulted: dict[str, list[str]] = field(default_factory=dict)
    defaulting: bool = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, stable keys; used by the API, `eval -o json` and the UI."""
        return {
            "result": self.result,
            "allowed": self.allowed,
            "statusCode": self.status_code,
            "reason": self.reason,
            "message": self.message,
            "warnings": list(self.warnings),
            "auditAnnotations": dict(self.audit_annotations),
            "object": _json(self.object),
            "patch": _json(self.patch),
            "diff": self.diff,
            "errors": list(self.errors),
            "causes": list(self.causes),
            "defaulting": self.defaulting,
            "defaulted": {key: list(paths) for key, paths in self.defaulted.items()},
            "policies": [p.to_dict() for p in self.policies],
        }
