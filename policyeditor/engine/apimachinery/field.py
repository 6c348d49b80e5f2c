"""apimachinery's field paths and field.Error constructors, with Kubernetes' exact wording."""

from __future__ import annotations

import json
from typing import Any

from policyeditor.engine.apimachinery.validation import (
    byte_len,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
)
from policyeditor.engine.errors import FieldError

# ---------------------------------------------------------------- field.Error constructors


def go_quote(value: str) -> str:
    """Go's %q of a string: double quotes, Go escapes, printable Unicode kept."""
    out = ['"']
    for char in value:
        code = ord(char)
        if char in _GO_ESCAPES:
            out.append(_GO_ESCAPES[char])
        elif code < 0x20 or code == 0x7F:
            out.append(f"\\x{code:02x}")
        elif not char.isprintable() and char != " ":
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


_GO_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\a": "\\a",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\v": "\\v",
}


def render_value(value: Any) -> str:
    """A bad value as field.Error prints it: strings %q, scalars %v, anything else as JSON."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return go_quote(value)
    try:
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # not JSON-shaped at all (odd keys, cycles)
        return go_quote(repr(value))


def required(path: str, detail: str = "") -> FieldError:
    """field.Required."""
    return FieldError(path, "Required value" + (f": {detail}" if detail else ""))


def invalid(path: str, value: Any, detail: str = "") -> FieldError:
    """field.Invalid."""
    return FieldError(
        path, f"Invalid value: {render_value(value)}" + (f": {detail}" if detail else "")
    )


def not_supported(path: str, value: Any, supported: list[str] | tuple[str, ...]) -> FieldError:
    """field.NotSupported: the supported values quoted, in the order given."""
    choices = ", ".join(go_quote(choice) for choice in supported)
    return FieldError(
        path, f"Unsupported value: {render_value(value)}: supported values: {choices}"
    )


def duplicate(path: str, value: Any) -> FieldError:
    """field.Duplicate."""
    return FieldError(path, f"Duplicate value: {render_value(value)}")


def forbidden(path: str, detail: str) -> FieldError:
    """field.Forbidden."""
    return FieldError(path, f"Forbidden: {detail}")


def too_many(path: str, actual: int, limit: int) -> FieldError:
    """field.TooMany."""
    return FieldError(path, f"Too many: {actual}: must have at most {limit} items")


def too_long(path: str, limit: int) -> FieldError:
    """field.TooLong without a value (as ValidateAnnotations reports it)."""
    return FieldError(path, f"Too long: may not be more than {limit} bytes")


def internal(path: str, detail: str) -> FieldError:
    """field.InternalError."""
    return FieldError(path, f"Internal error: {detail}")


def child(path: str, *names: str) -> str:
    """field.Path.Child."""
    for name in names:
        path = f"{path}.{name}" if path else name
    return path


def index(path: str, position: int) -> str:
    """field.Path.Index."""
    return f"{path}[{position}]"


# ---------------------------------------------------------------- util/validation


def is_path_segment_name(value: str) -> list[str]:
    """content.IsPathSegmentName: not '.' or '..', no '/' or '%'."""
    for illegal in (".", ".."):
        if value == illegal:
            return [f"may not be '{illegal}'"]
    return [f"may not contain '{illegal}'" for illegal in ("/", "%") if illegal in value]


def name_is_dns_subdomain(value: str, prefix: bool) -> list[str]:
    """NameIsDNSSubdomain: a generateName prefix may end with '-'."""
    if prefix and len(value) > 1 and value.endswith("-"):
        # maskTrailingDash: Go swaps the last two characters for an "a".
        value = value[:-2] + "a"
    return is_dns1123_subdomain(value)


def validate_qualified_name(value: str, path: str) -> list[FieldError]:
    """apivalidation.ValidateQualifiedName."""
    return [invalid(path, value, msg) for msg in is_qualified_name(value)]


# ---------------------------------------------------------------- metav1 validation


def validate_labels(labels: dict[str, Any], path: str) -> list[FieldError]:
    """metav1validation.ValidateLabels (Go iterates a map: we sort keys for stable output)."""
    errors: list[FieldError] = []
    for key in sorted(labels):
        errors.extend(invalid(path, key, msg) for msg in is_qualified_name(key))
        value = labels[key]
        errors.extend(invalid(path, value, msg) for msg in is_valid_label_value(value))
    return errors


_SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def validate_label_selector(selector: dict[str, Any] | None, path: str) -> list[FieldError]:
    """metav1validation.ValidateLabelSelector, strict (invalid label values refused)."""
    if selector is None:
        return []
    errors = validate_labels(selector.get("matchLabels") or {}, child(path, "matchLabels"))
    for position, requirement in enumerate(selector.get("matchExpressions") or []):
        at = index(child(path, "matchExpressions"), position)
        operator = requirement.get("operator", "")
        values = requirement.get("values") or []
        if operator in ("In", "NotIn"):
            if not values:
                errors.append(
                    required(
                        child(at, "values"), "must be specified when `operator` is 'In' or 'NotIn'"
                    )
                )
        elif operator in ("Exists", "DoesNotExist"):
            if values:
                errors.append(
                    forbidden(
                        child(at, "values"),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    )
                )
        else:
            errors.append(invalid(child(at, "operator"), operator, "not a valid selector operator"))
        key = requirement.get("key", "")
        errors.extend(invalid(child(at, "key"), key, msg) for msg in is_qualified_name(key))
        for value_index, value in enumerate(values):
            errors.extend(
                invalid(index(child(at, "values"), value_index), value, msg)
                for msg in is_valid_label_value(value)
            )
    return errors


_ANNOTATIONS_LIMIT = 256 * 1024


def validate_object_meta(meta: dict[str, Any], path: str = "metadata") -> list[FieldError]:
    """genericvalidation.ValidateObjectMeta for a cluster-scoped object with DNS-subdomain names."""
    errors: list[FieldError] = []
    generate_name = meta.get("generateName") or ""
    name = meta.get("name") or ""
    if generate_name:
        errors.extend(
            invalid(child(path, "generateName"), generate_name, msg)
            for msg in name_is_dns_subdomain(generate_name, True)
        )
    if name:
        errors.extend(
            invalid(child(path, "name"), name, msg) for msg in name_is_dns_subdomain(name, False)
        )
    elif not generate_name:
        # With generateName the server makes up the name before validating.
        errors.append(required(child(path, "name"), "name or generateName is required"))
    if meta.get("namespace"):
        errors.append(forbidden(child(path, "namespace"), "not allowed on this type"))
    generation = meta.get("generation")
    if isinstance(generation, int) and generation < 0:
        errors.append(
            invalid(child(path, "generation"), generation, "must be greater than or equal to 0")
        )
    errors.extend(validate_labels(meta.get("labels") or {}, child(path, "labels")))
    annotations = meta.get("annotations") or {}
    total = 0
    for key in sorted(annotations):
        errors.extend(
            invalid(child(path, "annotations"), key, msg) for msg in is_qualified_name(key.lower())
        )
        total += byte_len(key) + byte_len(str(annotations[key]))
    if total > _ANNOTATIONS_LIMIT:
        errors.append(too_long(child(path, "annotations"), _ANNOTATIONS_LIMIT))
    for finalizer in meta.get("finalizers") or []:
        errors.extend(
            invalid(child(path, "finalizers"), finalizer, msg)
            for msg in is_qualified_name(finalizer)
        )
    return errors
