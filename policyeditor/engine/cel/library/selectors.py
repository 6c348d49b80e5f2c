"""Field and label selector parsing for authorization checks (fields.ParseSelector, labels)."""

from __future__ import annotations

import re
from typing import Any

# A parse failure is not a CEL error: the check carries the error text to the authorizer and no
# requirements, as apiserver's authz library does (kubernetes/kubernetes
# staging/src/k8s.io/apiserver/pkg/cel/library/authz.go, resourceCheckVal.Authorize).

_LABEL_OPERATORS = ("!=", "==", "=", ">", "<")
_KEY = re.compile(
    r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
)
_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def _split_unescaped(text: str, separator: str) -> list[str]:
    parts, current, escaped = [], [], False
    for char in text:
        if escaped:
            current.append("\\" + char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == separator:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if escaped:
        current.append("\\")
    parts.append("".join(current))
    return parts


def _unescape(text: str) -> str:
    out, escaped = [], False
    for char in text:
        if escaped:
            if char not in "\\,=!":
                raise ValueError(f"invalid escape sequence: \\{char}")
            out.append(char)
            escaped = False
        elif char == "\\":
            escaped = True
        elif char in ",=":
            raise ValueError(f"unescaped '{char}' in value")
        else:
            out.append(char)
    if escaped:
        raise ValueError("unterminated escape sequence")
    return "".join(out)


def parse_field_selector(selector: str) -> tuple[list[dict[str, Any]], str]:
    """fields.ParseSelector: (requirements [{field, operator, value}], error text or '')."""
    requirements = []
    for part in _split_unescaped(selector, ","):
        if not part:
            continue
        for operator, name in (("!=", "!="), ("==", "=="), ("=", "=")):
            index = _find_unescaped(part, operator)
            if index >= 0:
                field, value = part[:index], part[index + len(operator) :]
                try:
                    requirements.append(
                        {"field": field, "operator": name, "value": _unescape(value)}
                    )
                except ValueError as exc:
                    return [], f"invalid selector: '{selector}'; {exc}"
                break
        else:
            return [], f"invalid selector: '{selector}'; can't understand '{part}'"
    return requirements, ""


def _find_unescaped(text: str, token: str) -> int:
    i = 0
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        if text.startswith(token, i):
            return i
        i += 1
    return -1


def _split_top_level(selector: str) -> list[str]:
    parts: list[str] = []
    depth = 0
    current: list[str] = []
    for char in selector:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    parts.append("".join(current))
    return parts


def _check_key(key: str) -> None:
    if not key or len(key.rsplit("/", 1)[-1]) > 63 or not _KEY.match(key):
        raise ValueError(f"invalid label key {key!r}")


def _check_value(value: str) -> None:
    if len(value) > 63 or not _VALUE.match(value):
        raise ValueError(f"invalid label value: {value!r}")


def _label_requirement(part: str) -> dict[str, Any]:
    text = part.strip()
    if text.startswith("!"):
        key = text[1:].strip()
        _check_key(key)
        return {"key": key, "operator": "!", "values": []}
    match = re.match(r"^(\S+?)\s+(in|notin)\s*\((.*)\)$", text)
    if match:
        key, operator, body = match.groups()
        _check_key(key)
        values = [v.strip() for v in body.split(",")] if body.strip() else []
        for value in values:
            _check_value(value)
        return {"key": key, "operator": operator, "values": sorted(set(values))}
    for operator in _LABEL_OPERATORS:
        if operator in text:
            key, value = (s.strip() for s in text.split(operator, 1))
            _check_key(key)
            if operator in "<>":
                if not re.fullmatch(r"-?[0-9]+", value):
                    raise ValueError(
                        f"for 'Gt', 'Lt' operators, the value must be an integer: {value!r}"
                    )
                name = "gt" if operator == ">" else "lt"
            else:
                _check_value(value)
                name = {"=": "=", "==": "==", "!=": "!="}[operator]
            return {"key": key, "operator": name, "values": [value]}
    _check_key(text)
    return {"key": text, "operator": "exists", "values": []}


def parse_label_selector(selector: str) -> tuple[list[dict[str, Any]], str]:
    """labels.ParseToRequirements: (requirements [{key, operator, values}], error text or '')."""
    requirements = []
    for part in _split_top_level(selector):
        if not part.strip():
            return [], f"found '', expected: identifier in selector {selector!r}"
        try:
            requirements.append(_label_requirement(part))
        except ValueError as exc:
            return [], str(exc)
    return requirements, ""
