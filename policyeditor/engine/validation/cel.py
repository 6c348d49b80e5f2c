"""CEL compilation of policy expressions at write time, with the API server's error mapping.

Mirrors plugincel's CompileCELExpression as validation.go uses it: a compile failure is
`Invalid value: "<expr>": compilation failed: <cel-go issues>`, a wrong result type is
`Invalid value: "<expr>": must evaluate to <type> but got <type>`. On update, an expression
string already present in the old object compiles in the StoredExpressions environment
(validation.go, findValidatingPolicyPreexistingExpressions and
findMutatingPolicyPreexistingExpressions), keeping validation.go's own choice of which old set
each field consults.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine import cel
from policyeditor.engine.apimachinery import internal, invalid
from policyeditor.engine.cel.composition import declarable
from policyeditor.engine.errors import FieldError

BOOL = ("bool",)
STRING = ("string",)
STRING_OR_NULL = ("string", "null_type")
OBJECT = ("Object",)
JSON_PATCHES = ("list(JSONPatch)",)


@dataclass
class Preexisting:
    """Expression strings of the old object, per field kind (findXPreexistingExpressions)."""

    match_conditions: set[str] = field(default_factory=set)
    validations: set[str] = field(default_factory=set)
    message_expressions: set[str] = field(default_factory=set)
    audit_annotations: set[str] = field(default_factory=set)
    apply_configurations: set[str] = field(default_factory=set)
    json_patches: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class FieldKind:
    """A kind of expression field: the CEL context it compiles in, the result types it may
    have, the old expressions that make it compile as stored, and whether it sees variables."""

    context: str
    expected: tuple[str, ...] | None
    preexisting: Callable[[Preexisting], set[str]]
    with_variables: bool = True


MATCH_CONDITION = FieldKind("matchCondition", BOOL, lambda old: old.match_conditions, False)
# validation.go consults the old *validation* expressions for variables (sic).
VARIABLE = FieldKind("variable", None, lambda old: old.validations)
VALIDATION = FieldKind("validation", BOOL, lambda old: old.validations)
MESSAGE_EXPRESSION = FieldKind("messageExpression", STRING, lambda old: old.message_expressions)
AUDIT_ANNOTATION = FieldKind("auditAnnotation", STRING_OR_NULL, lambda old: old.audit_annotations)
# validation.go consults the old applyConfiguration set for JSONPatch too (sic).
APPLY_CONFIGURATION = FieldKind("mutation", OBJECT, lambda old: old.apply_configurations)
JSON_PATCH = FieldKind("mutation", JSON_PATCHES, lambda old: old.apply_configurations)


def _strings(items: Any, *keys: str) -> set[str]:
    found = set()
    for item in items if isinstance(items, list) else []:
        value: Any = item
        for key in keys:
            value = value.get(key) if isinstance(value, dict) else None
        if isinstance(value, str):
            found.add(value)
    return found


def preexisting_expressions(old_spec: dict[str, Any] | None, mutating: bool) -> Preexisting:
    """The old policy's expressions, as validation.go collects them for an update."""
    spec = old_spec if isinstance(old_spec, dict) else {}
    found = Preexisting(match_conditions=_strings(spec.get("matchConditions"), "expression"))
    if mutating:
        found.apply_configurations = _strings(
            spec.get("mutations"), "applyConfiguration", "expression"
        )
        found.json_patches = _strings(spec.get("mutations"), "jsonPatch", "expression")
    else:
        found.validations = _strings(spec.get("validations"), "expression")
        found.message_expressions = {
            text for text in _strings(spec.get("validations"), "messageExpression") if text
        }
        found.audit_annotations = _strings(spec.get("auditAnnotations"), "valueExpression")
    return found


class CelChecker:
    """Compiles one policy's expressions; keeps the composited variables in order."""

    def __init__(
        self, version: str, *, has_params: bool, mutating: bool, preexisting: Preexisting
    ) -> None:
        self.version = version
        self.has_params = has_params
        self.mutating = mutating
        self.preexisting = preexisting
        self.variable_names: list[str] = []
        self.variable_types: list[str] = []
        self.warnings: list[FieldError] = []

    def _declarations(self, with_variables: bool, context: str) -> Any:
        names = tuple(self.variable_names) if with_variables else ()
        types = tuple(self.variable_types) if with_variables else ()
        return cel.Declarations(
            has_params=self.has_params,
            variables=names,
            # validation.go declares the Object/JSONPatch types for mutation expressions only.
            mutating=self.mutating and context == "mutation",
            variable_types=types,
        )

    def declarations(self) -> Any:
        """The declarations a validation expression sees now."""
        return self._declarations(True, "validation")

    def check(
        self,
        source: str,
        *,
        path: str,
        shown: str,
        context: str,
        expected: tuple[str, ...] | None,
        stored: bool,
        with_variables: bool = True,
    ) -> tuple[list[FieldError], str | None]:
        """Compile `source`; return the field errors and the output type (None if it failed)."""
        try:
            env_type = cel.EnvType.STORED_EXPRESSIONS if stored else cel.EnvType.NEW_EXPRESSIONS
            result = cel.compile_expression(
                source,
                context=cel.Context(context),
                version=self.version,
                declarations=self._declarations(with_variables, context),
                env_type=env_type,
            )
        except Exception as error:  # a CEL bug must not take validation down with it
            return [internal(path, f"compiling the expression failed: {error}")], None
        if result.errors:
            text = (
                result.error_text()
                if hasattr(result, "error_text")
                else "\n".join(map(str, result.errors))
            )
            return [invalid(path, shown, "compilation failed: " + text)], None
        for warning in result.warnings or ():
            self.warnings.append(FieldError(path, str(warning)))
        output = getattr(result, "output_type", "dyn") or "dyn"
        if expected is not None and output not in expected:
            if len(expected) == 1:
                reason = f"must evaluate to {expected[0]} but got {output}"
            else:
                reason = f"must evaluate to one of [{' '.join(expected)}] but got {output}"
            return [invalid(path, shown, reason)], output
        return [], output

    def check_field(
        self,
        kind: FieldKind,
        source: str,
        path: str,
        *,
        original: str | None = None,
        shown: str | None = None,
    ) -> tuple[list[FieldError], str | None]:
        """check() of a `kind` field: `original` (the untrimmed field, default `source`) decides
        stored, and is what an error shows unless `shown` is given."""
        original = source if original is None else original
        return self.check(
            source,
            path=path,
            shown=original if shown is None else shown,
            context=kind.context,
            expected=kind.expected,
            stored=original in kind.preexisting(self.preexisting),
            with_variables=kind.with_variables,
        )

    def add_variable(self, name: str, expression: str, path: str) -> list[FieldError]:
        """CompileAndStoreVariable: compile with the earlier variables, then declare this one."""
        errors, output = self.check_field(VARIABLE, expression, path)
        self.variable_names.append(name)
        # A variable that does not compile is still declared, as dyn.
        self.variable_types.append(declarable(output) if output and not errors else "dyn")
        return errors
