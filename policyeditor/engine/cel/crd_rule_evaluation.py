"""A CRD's x-kubernetes-validations rules run on a custom resource, as kube-apiserver runs them.

Each rule is evaluated per schema node, `self` bound to the node's value and `oldSelf` to the
correlated old value on UPDATE (kubernetes/kubernetes staging/src/k8s.io/apiextensions-apiserver/
pkg/apiserver/schema/cel/validation.go, Validator.Validate), under the API server's cost limits.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine import apimachinery
from policyeditor.engine.cel.cost import PER_CALL_LIMIT, RUNTIME_BUDGET
from policyeditor.engine.cel.crd_rules import CompiledRule, compiled_rule, has_rules, rule_entries
from policyeditor.engine.cel.crd_types import typed_value
from policyeditor.engine.cel.runtime.activation import Activation
from policyeditor.engine.cel.runtime.state import BUDGET_MESSAGE, COST_LIMIT_MESSAGE, CostBudget
from policyeditor.engine.errors import FieldError
from policyeditor.engine.jsontypes import same_json

_MISSING = object()


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
        for entry in rule_entries(schema):
            if self.stopped:
                return
            self.rule(compiled_rule(entry), schema, value, old, path)
        self.children(schema, value, old, path)

    def rule(
        self, rule: CompiledRule, schema: dict[str, Any], value: Any, old: Any, path: str
    ) -> None:
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
        if not rule.uses_old_self and old is not _MISSING and same_json(old, value):
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
    if not has_rules(schema):
        return []
    if any(_blocking(e) for e in schema_errors):
        return [apimachinery.invalid("<nil>", "null", _NOT_CHECKED)]
    return rule_errors(obj, schema, old)
