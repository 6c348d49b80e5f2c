"""A CRD's x-kubernetes-validations rules: compiled when the CRD is read, run on each custom resource.

kube-apiserver compiles every rule of a CRD's structural schema when the CRD is written
(kubernetes/kubernetes staging/src/k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation/
validation.go, validateCustomResourceDefinitionValidation; pkg/apiserver/schema/cel/compilation.go,
Compile) and evaluates them per schema node, `self` bound to the node's value and `oldSelf` to the
correlated old value on UPDATE (pkg/apiserver/schema/cel/validation.go, Validator.Validate).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policyeditor.engine import apimachinery
from policyeditor.engine.cel.compiler import compile_expression
from policyeditor.engine.cel.cost import PER_CALL_LIMIT, RUNTIME_BUDGET
from policyeditor.engine.cel.crd_types import (
    embedded,
    rule_result_type,
    rule_type_issues,
    typed_value,
)
from policyeditor.engine.cel.issues import format_issues
from policyeditor.engine.cel.model import CompileResult, Context, EnvType
from policyeditor.engine.cel.runtime.activation import Activation
from policyeditor.engine.cel.runtime.state import BUDGET_MESSAGE, COST_LIMIT_MESSAGE, CostBudget
from policyeditor.engine.errors import FieldError

_REASONS = ("FieldValueInvalid", "FieldValueForbidden", "FieldValueRequired", "FieldValueDuplicate")
_META_KEYS = ("apiVersion", "kind", "metadata")
_MISSING = object()


@dataclass(frozen=True)
class _Rule:
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


def _compiled(entry: dict[str, Any], env_type: EnvType = EnvType.STORED_EXPRESSIONS) -> _Rule:
    """The rule as the API server runs it (stored) or checks a CRD being written (new)."""
    context = _context(entry)
    rule = compile_expression(str(entry.get("rule") or ""), context=context, env_type=env_type)
    message = None
    if isinstance(entry.get("messageExpression"), str) and entry["messageExpression"]:
        message = compile_expression(entry["messageExpression"], context=context, env_type=env_type)
    return _Rule(
        entry,
        rule,
        message,
        _reads_old_self(rule),
        context == Context.CRD_RULE_OPTIONAL_OLD_SELF,
    )


def _entries(schema: dict[str, Any]) -> list[dict[str, Any]]:
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


def _has_rules(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    return bool(_entries(schema)) or any(_has_rules(c) for _, c in _children(schema, ""))


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
    for index, entry in enumerate(_entries(schema)):
        where = f"{path}.x-kubernetes-validations[{index}]"
        compiled = _compiled(entry, EnvType.NEW_EXPRESSIONS)
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


def _same(first: Any, second: Any) -> bool:
    """equality.Semantic.DeepEqual on JSON values: 1 and true, 1 and 1.0 differ."""
    if type(first) is not type(second):
        return False
    if isinstance(first, dict):
        return first.keys() == second.keys() and all(_same(v, second[k]) for k, v in first.items())
    if isinstance(first, list):
        return len(first) == len(second) and all(
            _same(a, b) for a, b in zip(first, second, strict=True)
        )
    return bool(first == second)


def _type_name(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    return kind if isinstance(kind, str) else ""


def _field_error(path: str, value: Any, detail: str, reason: Any) -> FieldError:
    """fieldErrorForReason (schema/cel/validation.go)."""
    if reason == "FieldValueForbidden":
        return apimachinery.forbidden(path, detail)
    if reason == "FieldValueRequired":
        return apimachinery.required(path, detail)
    if reason == "FieldValueDuplicate":
        return apimachinery.duplicate(path, value)
    return apimachinery.invalid(path, value, detail)


def _rule_error_string(entry: dict[str, Any]) -> str:
    message = str(entry.get("message") or "").strip()
    return message or str(entry.get("rule") or "").strip()


def _default_message(entry: dict[str, Any]) -> str:
    """ruleMessageOrDefault (schema/cel/validation.go)."""
    message = str(entry.get("message") or "").strip()
    return message or f"failed rule: {_rule_error_string(entry)}"


def _with_field_path(path: str, field_path: Any) -> str:
    """The rule's fieldPath (a JSON path such as .spec.x or ['a.b']) under path."""
    if not isinstance(field_path, str) or not field_path:
        return path
    return f"{path}{field_path}" if path else field_path.lstrip(".")


class _Run:
    """One custom resource's rule evaluation: its cost budget and errors."""

    def __init__(self, per_call_limit: int, budget: int) -> None:
        self.limit = per_call_limit
        self.budget = CostBudget(budget)
        self.errors: list[FieldError] = []
        self.stopped = False

    def node(self, schema: dict[str, Any], value: Any, old: Any, path: str) -> None:
        for entry in _entries(schema):
            if self.stopped:
                return
            self.rule(_compiled(entry), schema, value, old, path)
        self.children(schema, value, old, path)

    def rule(self, rule: _Rule, schema: dict[str, Any], value: Any, old: Any, path: str) -> None:
        where = path or "<nil>"
        if rule.rule.program is None:
            return  # the CRD was refused for it (rule_compile_errors)
        # self and oldSelf hold the values as the node's schema types them (values.go,
        # UnstructuredToVal): timestamps, durations and bytes for formatted strings.
        old_value: Any = None if old is _MISSING else typed_value(old, schema)
        if rule.optional_old_self:
            old_value = [] if old is _MISSING else [old_value]
        elif rule.uses_old_self and old is _MISSING:
            return  # a transition rule runs only where an old value exists
        shown = _type_name(schema)
        activation = Activation(object=typed_value(value, schema), old_object=old_value)
        ok, result, _cost = rule.rule.program.execute(activation, self.budget, self.limit)
        if not ok:
            text = str(result)
            if text.startswith(BUDGET_MESSAGE) or self.budget.exhausted:
                self.errors.append(apimachinery.invalid(where, shown, BUDGET_MESSAGE))
                self.stopped = True
            elif text.startswith(COST_LIMIT_MESSAGE):
                self.errors.append(
                    apimachinery.invalid(
                        where,
                        shown,
                        f"{COST_LIMIT_MESSAGE}: call cost exceeds limit for rule: "
                        f"{_rule_error_string(rule.source)}",
                    )
                )
            elif text.startswith("no such overload") or text.startswith("no matching overload"):
                self.errors.append(
                    apimachinery.invalid(
                        where,
                        shown,
                        f"'{text}': call arguments did not match a supported operator, function "
                        f"or macro signature for rule: {_rule_error_string(rule.source)}",
                    )
                )
            else:
                self.errors.append(
                    apimachinery.invalid(
                        where,
                        shown,
                        f"{text} evaluating rule: {_rule_error_string(rule.source)}",
                    )
                )
            return
        if result is True:
            return
        if not rule.uses_old_self and old is not _MISSING and _same(old, value):
            # Validation ratcheting (CRDValidationRatcheting, on since 1.30): an unchanged value
            # keeps passing on UPDATE (validation.go, Validate: correlation.shouldRatchetError).
            return
        target = _with_field_path(path, rule.source.get("fieldPath")) or "<nil>"
        detail = _default_message(rule.source)
        if rule.message is not None and rule.message.program is not None:
            ok, text, _cost = rule.message.program.execute(activation, self.budget, self.limit)
            # evalMessageExpression: a failing or empty message falls back to the rule's.
            if ok and isinstance(text, str) and text.strip() and "\n" not in text:
                detail = text
            elif not ok and str(text).startswith(COST_LIMIT_MESSAGE):
                self.errors.append(
                    apimachinery.invalid(
                        where,
                        shown,
                        f"{COST_LIMIT_MESSAGE}: call cost exceeds limit for messageExpression: "
                        f"{rule.source.get('messageExpression')}",
                    )
                )
                return
        self.errors.append(_field_error(target, shown, detail, rule.source.get("reason")))

    def children(self, schema: dict[str, Any], value: Any, old: Any, path: str) -> None:
        if isinstance(value, dict):
            properties = schema.get("properties")
            properties = properties if isinstance(properties, dict) else {}
            additional = schema.get("additionalProperties")
            old_map = old if isinstance(old, dict) else {}
            for key, item in value.items():
                child = properties.get(key)
                if child is None and isinstance(additional, dict):
                    child = additional
                if isinstance(child, dict):
                    child_path = f"{path}.{key}" if path else key
                    self.node(child, item, old_map.get(key, _MISSING), child_path)
        elif isinstance(value, list) and isinstance(schema.get("items"), dict):
            items = schema["items"]
            raw_keys = schema.get("x-kubernetes-list-map-keys")
            keys: list[Any] = raw_keys if isinstance(raw_keys, list) else []
            correlated = schema.get("x-kubernetes-list-type") == "map" and bool(keys)
            old_items = old if isinstance(old, list) else []
            for index, item in enumerate(value):
                previous: Any = _MISSING
                if correlated and isinstance(item, dict):
                    # Map lists correlate items by their keys; other lists do not correlate.
                    identity = [item.get(k) for k in keys]
                    previous = next(
                        (
                            o
                            for o in old_items
                            if isinstance(o, dict) and [o.get(k) for k in keys] == identity
                        ),
                        _MISSING,
                    )
                self.node(items, item, previous, f"{path}[{index}]")


def _root_view(obj: Any) -> Any:
    """The root `self`: metadata limited to name and generateName (schema/cel/validation.go)."""
    if not isinstance(obj, dict):
        return obj
    view = dict(obj)
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        view["metadata"] = {k: meta[k] for k in ("name", "generateName") if k in meta}
    return view


def rule_errors(
    obj: Any,
    schema: Any,
    old: Any = None,
    *,
    per_call_limit: int = PER_CALL_LIMIT,
    budget: int = RUNTIME_BUDGET,
) -> list[FieldError]:
    """The failures of the CRD rules of schema on obj (old: the stored object on UPDATE).

    The limits are the API server's for CRD rules (k8s.io/apiserver/pkg/apis/cel/config.go,
    PerCallLimit and RuntimeCELCostBudget, the budget shared by every rule of one object).
    """
    if not isinstance(schema, dict):
        return []
    run = _Run(per_call_limit, budget)
    old_root = _MISSING if old is None else _root_view(old)
    run.node(schema, _root_view(obj), old_root, "")
    return run.errors


_NOT_CHECKED = (
    "some validation rules were not checked because the object was invalid; correct the existing "
    "errors to complete validation"
)


def _blocking(error: FieldError) -> bool:
    """field.ErrorTypeNotSupported or field.ErrorTypeTypeInvalid (a value of the wrong type)."""
    text = str(error)
    return "Unsupported value: " in text or " must be of type " in text


def errors_after_schema(
    schema_errors: list[FieldError], obj: Any, schema: Any, old: Any = None
) -> list[FieldError]:
    """The rule errors customResourceStrategy.Validate adds to the schema's errors."""
    # apiextensions-apiserver pkg/registry/customresource/strategy.go, validate and
    # hasBlockingErr: rules do not run on an object with values of the wrong type. A schema
    # without rules has no CEL validator at all (schema/cel/validation.go, NewValidator).
    if not _has_rules(schema):
        return []
    if any(_blocking(e) for e in schema_errors):
        return [apimachinery.invalid("<nil>", "null", _NOT_CHECKED)]
    return rule_errors(obj, schema, old)
