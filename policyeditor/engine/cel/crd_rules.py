"""A CRD's x-kubernetes-validations rules compiled, and the compile errors that refuse the CRD.

kube-apiserver compiles every rule of a CRD's structural schema when the CRD is written
(kubernetes/kubernetes staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/
validation.go, validateCustomResourceDefinitionValidation; pkg/apiserver/schema/cel/compilation.go,
Compile); crd_rule_evaluation runs them on custom resources.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policyeditor.engine import apimachinery
from policyeditor.engine.cel.compiler import compile_expression
from policyeditor.engine.cel.crd_types import embedded, rule_result_type, rule_type_issues
from policyeditor.engine.cel.issues import format_issues
from policyeditor.engine.cel.model import CompileResult, Context, EnvType
from policyeditor.engine.errors import FieldError

_REASONS = ("FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate")


@dataclass(frozen=True)
class CompiledRule:
    """One entry of x-kubernetes-validations, compiled."""

    source: dict[str, Any]
    rule: CompileResult
    message: CompileResult | None
    uses_old_self: bool
    optional_old_self: bool


def _context(entry: dict[str, Any]) -> Context:
    if entry.get("optionalOldSelf") is True:
        return Context.CRD_RULE_OPTIONAL_OLD_SELF
    return Context.CRD_RULE


def _reads_old_self(result: CompileResult) -> bool:
    program = result.program
    return program is not None and "oldSelf" in program.runtime.idents


def compiled_rule(
    entry: dict[str, Any], env_type: EnvType = EnvType.STORED_EXPRESSIONS
) -> CompiledRule:
    """The rule as the API server runs it (stored) or checks a CRD being written (new)."""
    context = _context(entry)
    rule = compile_expression(str(entry.get("rule") or ""), context=context, env_type=env_type)
    message = None
    if isinstance(entry.get("messageExpression"), str) and entry["messageExpression"]:
        message = compile_expression(entry["messageExpression"], context=context, env_type=env_type)
    return CompiledRule(
        entry,
        rule,
        message,
        _reads_old_self(rule),
        context == Context.CRD_RULE_OPTIONAL_OLD_SELF,
    )


def rule_entries(schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The x-kubernetes-validations entries of one schema node (not of the nodes below it)."""
    raw = schema.get("x-kubernetes-validations")
    return [e for e in raw if isinstance(e, dict)] if isinstance(raw, list) else []


def _children(schema: dict[str, Any], path: str) -> list[tuple[str, dict[str, Any]]]:
    """The sub-schemas of a node, with the field path kube-apiserver gives them."""
    out: list[tuple[str, dict[str, Any]]] = []
    properties = schema.get("properties")
    if isinstance(properties, dict):
        out += [
            (f"{path}.properties[{k}]", v) for k, v in properties.items() if isinstance(v, dict)
        ]
    for key in ("items", "additionalProperties"):
        if isinstance(schema.get(key), dict):
            out.append((f"{path}.{key}", schema[key]))
    return out


def has_rules(schema: Any) -> bool:
    """Whether schema or any node below it has x-kubernetes-validations rules."""
    if not isinstance(schema, dict):
        return False
    return bool(rule_entries(schema)) or any(has_rules(c) for _, c in _children(schema, ""))


def _failure(
    result: CompileResult, entry: dict[str, Any], key: str, root: bool, schema: Any
) -> str:
    """Why the rule or messageExpression of entry is refused, with `self` typed ("" if it is not)."""
    prefix = "compilation failed: " if key == "rule" else "messageExpression compilation failed: "
    if not result.ok:
        return prefix + result.error_text()
    source = str(entry.get(key) or "")
    issues = rule_type_issues(source, schema, root, _context(entry))
    if issues:
        return prefix + format_issues(issues)
    # compilation.go, compileRule: a rule's type-checked result must be bool.
    if key == "rule" and rule_result_type(source, schema, root, _context(entry)) not in (
        "",
        "bool",
    ):
        return "cel expression must evaluate to a bool"
    return ""


def rule_compile_errors(schema: Any, path: str, resource_root: bool = True) -> list[FieldError]:
    """The rules of schema (and below) that do not compile, as the CRD's field errors.

    resource_root: schema is the root of the custom resource or of an embedded resource.
    """
    # apiextensions validation.go, validateCustomResourceDefinitionValidation: each rule is
    # compiled with the schema's CEL environment, `self` typed by the node's schema
    # (schema/cel/compilation.go, Compile); failures read "compilation failed: ...".
    if not isinstance(schema, dict):
        return []
    errors: list[FieldError] = []
    for index, entry in enumerate(rule_entries(schema)):
        where = f"{path}.x-kubernetes-validations[{index}]"
        compiled = compiled_rule(entry, EnvType.NEW_EXPRESSIONS)
        failed = _failure(compiled.rule, entry, "rule", resource_root, schema)
        if not str(entry.get("rule") or "").strip():
            errors.append(apimachinery.required(f"{where}.rule", ""))
        elif failed:
            errors.append(apimachinery.invalid(f"{where}.rule", entry.get("rule"), failed))
        if compiled.message is not None:
            failed = _failure(compiled.message, entry, "messageExpression", resource_root, schema)
            if failed:
                errors.append(
                    apimachinery.invalid(
                        f"{where}.messageExpression",
                        entry.get("messageExpression"),
                        failed,
                    )
                )
        reason = entry.get("reason")
        if reason is not None and reason not in _REASONS:
            errors.append(apimachinery.not_supported(f"{where}.reason", reason, list(_REASONS)))
        if entry.get("optionalOldSelf") is True and not compiled.uses_old_self:
            errors.append(
                apimachinery.invalid(
                    f"{where}.optionalOldSelf",
                    True,
                    "may not be set if oldSelf is not used in rule",
                )
            )
    for child_path, child in _children(schema, path):
        errors += rule_compile_errors(child, child_path, embedded(child))
    return errors


def crd_rule_errors(crd: Any) -> list[FieldError]:
    """Compile errors of every rule of a CRD document's versions (spec.versions[i].schema)."""
    spec = crd.get("spec") if isinstance(crd, dict) else None
    versions = spec.get("versions") if isinstance(spec, dict) else None
    errors: list[FieldError] = []
    for index, version in enumerate(versions if isinstance(versions, list) else []):
        schema = version.get("schema") if isinstance(version, dict) else None
        if isinstance(schema, dict):
            errors += rule_compile_errors(
                schema.get("openAPIV3Schema"), f"spec.versions[{index}].schema.openAPIV3Schema"
            )
    return errors
