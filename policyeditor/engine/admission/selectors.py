"""Kubernetes label selectors (metav1.LabelSelector): parsing errors and matching."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


@dataclass(frozen=True)
class Requirement:
    """One parsed selector requirement: key, operator (In/NotIn/Exists/DoesNotExist), values."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        """Whether a label set satisfies this requirement (labels.Requirement.Matches)."""
        if self.operator == "In":
            return self.key in labels and labels[self.key] in self.values
        if self.operator == "NotIn":
            return self.key not in labels or labels[self.key] not in self.values
        if self.operator == "Exists":
            return self.key in labels
        return self.key not in labels

    def __str__(self) -> str:
        if self.operator == "Exists":
            return self.key
        if self.operator == "DoesNotExist":
            return f"!{self.key}"
        if self.operator == "In" and len(self.values) == 1:
            return f"{self.key}={self.values[0]}"
        op = "in" if self.operator == "In" else "notin"
        return f"{self.key} {op} ({','.join(sorted(self.values))})"


def _key_error(key: str) -> str | None:
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _SUBDOMAIN.match(prefix)):
        return f"prefix part of key {key!r} must be a lowercase RFC 1123 subdomain"
    if not name or len(name) > 63 or not _NAME.match(name):
        return (
            f"key: Invalid value: {_quote(key)}: name part must consist of alphanumeric "
            "characters, '-', '_' or '.', and must start and end with an alphanumeric character"
        )
    return None


def _value_error(value: str) -> str | None:
    if value == "":
        return None
    if len(value) > 63 or not _NAME.match(value):
        return (
            f"values: Invalid value: {_quote(value)}: a valid label must be an empty string or "
            "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
            "alphanumeric character"
        )
    return None


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def parse_selector(selector: Any) -> tuple[list[Requirement] | None, str]:
    """Parse a LabelSelector into requirements; (None, error text) when it is malformed."""
    # An empty selector gives []: it matches everything. The error texts follow
    # metav1.LabelSelectorAsSelector.
    if selector is None:
        return None, "a nil selector matches nothing"
    if not isinstance(selector, dict):
        return None, f"label selector must be a mapping, not {type(selector).__name__}"
    if not selector:
        return [], ""  # the defaulted `{}` of every policy without selectors
    requirements: list[Requirement] = []
    match_labels = selector.get("matchLabels") or {}
    if not isinstance(match_labels, dict):
        return None, "matchLabels must be a mapping of label keys to values"
    for key in sorted(match_labels):
        value = match_labels[key]
        value = "" if value is None else str(value)
        problem = _key_error(str(key)) or _value_error(value)
        if problem:
            return None, problem
        requirements.append(Requirement(str(key), "In", (value,)))
    expressions = selector.get("matchExpressions") or []
    if not isinstance(expressions, list):
        return None, "matchExpressions must be a list"
    for expression in expressions:
        if not isinstance(expression, dict):
            return None, "each matchExpressions entry must be a mapping"
        key = str(expression.get("key") or "")
        operator = str(expression.get("operator") or "")
        raw_values = expression.get("values") or []
        if not isinstance(raw_values, list):
            return None, "matchExpressions values must be a list"
        values = tuple("" if v is None else str(v) for v in raw_values)
        if operator not in _OPERATORS:
            return None, f'"{operator}" is not a valid label selector operator'
        if operator in ("In", "NotIn") and not values:
            return None, "for 'in', 'notin' operators, values set can't be empty"
        if operator in ("Exists", "DoesNotExist") and values:
            return None, "values set must be empty for exists and does not exist"
        problem = _key_error(key)
        if problem:
            return None, problem
        for value in values:
            problem = _value_error(value)
            if problem:
                return None, problem
        requirements.append(Requirement(key, operator, values))
    return requirements, ""


def selector_matches(requirements: list[Requirement], labels: Any) -> bool:
    """Whether a label mapping satisfies every requirement (an empty list matches everything)."""
    label_set = {str(k): "" if v is None else str(v) for k, v in dict(labels or {}).items()}
    return all(req.matches(label_set) for req in requirements)


def first_unmet(requirements: list[Requirement], labels: Any) -> Requirement | None:
    """The first requirement a label set does not satisfy (for explanations), or None."""
    label_set = {str(k): "" if v is None else str(v) for k, v in dict(labels or {}).items()}
    for req in requirements:
        if not req.matches(label_set):
            return req
    return None


def describe(requirements: list[Requirement]) -> str:
    """The selector in kubectl's string form ("app=web,tier in (a,b)")."""
    return ",".join(str(req) for req in requirements)


def object_labels(obj: Any) -> dict[str, Any] | None:
    """metadata.labels of an object, None when the object is not an object with metadata."""
    if not isinstance(obj, dict) or not isinstance(obj.get("metadata"), dict):
        return None
    labels = obj["metadata"].get("labels")
    return labels if isinstance(labels, dict) else {}
