"""The value types of the CEL API: contexts, environment types, declarations, results."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from policyeditor.engine.cel.issues import CelIssue


class Context(StrEnum):
    """Which expression field is compiled: decides the declared variables."""

    # Each field compiles with its own OptionalVariableDeclarations (kubernetes/kubernetes
    # pkg/apis/admissionregistration/validation/validation.go, validateMatchConditions,
    # validateValidation, validateVariable, validateMutation).

    MATCH_CONDITION = "matchCondition"
    VALIDATION = "validation"
    MESSAGE_EXPRESSION = "messageExpression"
    AUDIT_ANNOTATION = "auditAnnotation"
    VARIABLE = "variable"
    MUTATION = "mutation"
    # A CRD's x-kubernetes-validations rule (and its messageExpression): `self` and `oldSelf`
    # (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/compilation.go, Compile).
    CRD_RULE = "crdRule"
    # The same with optionalOldSelf: true, where oldSelf is an optional.
    CRD_RULE_OPTIONAL_OLD_SELF = "crdRuleOptionalOldSelf"


class EnvType(StrEnum):
    """NewExpressions (write time: libraries of version - 1) or StoredExpressions (everything)."""

    NEW_EXPRESSIONS = "NewExpressions"
    STORED_EXPRESSIONS = "StoredExpressions"


@dataclass(frozen=True)
class Declarations:
    """What the policy around an expression declares."""

    has_params: bool = False
    # Composited variable names visible to this expression, in order.
    variables: tuple[str, ...] = ()
    # MAP: Object/JSONPatch types and the jsonpatch library.
    mutating: bool = False
    # Types of the visible variables as cel-go type strings ("list(int)", "dyn"), parallel to
    # `variables`; missing entries are dyn. compile_variables() fills these in.
    variable_types: tuple[str, ...] = ()

    def variable_type(self, index: int) -> str:
        """The declared type of variables[index] ("dyn" when unknown)."""
        return self.variable_types[index] if index < len(self.variable_types) else "dyn"


NO_DECLARATIONS = Declarations()


@dataclass
class EvalResult:
    """The outcome of one evaluation.

    `value` is plain JSON-shaped Python (dict/list/int/float/str/bool/None). Values JSON cannot
    hold are converted as cel-go's string() would: durations as CEL prints them ("3600s"),
    timestamps to RFC 3339, bytes to base64 (as Go's JSON encoding writes []byte), Kubernetes
    opaque values (quantity, IP, ...) to their string form, optionals to their value or None.
    """

    value: Any = None
    error: CelIssue | None = None
    cost: int = 0

    @property
    def ok(self) -> bool:
        """True when the evaluation produced a value."""
        return self.error is None

    def to_dict(self) -> dict[str, Any]:
        """JSON form for the API and `policyeditor cel -o json`."""
        return {
            "value": self.value,
            "error": str(self.error) if self.error is not None else None,
            "errors": [str(self.error)] if self.error is not None else [],
            "cost": self.cost,
        }


@dataclass
class CompileResult:
    """A compiled expression (program) or the reasons it does not compile."""

    program: Any = None
    errors: list[CelIssue] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    estimated_cost: int | None = None
    # The checked result type as cel-go prints it ("bool", "list(JSONPatch)", "Object", "dyn").
    output_type: str = "dyn"

    @property
    def ok(self) -> bool:
        """True when the expression compiled."""
        return not self.errors and self.program is not None

    def to_dict(self) -> dict[str, Any]:
        """JSON form: errors as cel-go prints them, plus their positions."""
        return {
            "ok": self.ok,
            "errors": [str(issue) for issue in self.errors],
            "issues": [issue.to_dict() for issue in self.errors],
            "warnings": list(self.warnings),
            "estimatedCost": self.estimated_cost,
            "outputType": self.output_type,
        }

    def error_text(self) -> str:
        """All errors as cel-go prints them (the text after `compilation failed: `)."""
        return "\n".join(str(issue) for issue in self.errors)
