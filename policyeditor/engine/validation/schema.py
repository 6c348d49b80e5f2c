"""Strict decoding of a manifest against the kind's OpenAPI schema, as the API server decodes it.

The API server decodes JSON into Go structs: a value of the wrong JSON type fails with
`json: cannot unmarshal <type> into Go struct field <Struct>.<path> of type <Go type>`, and under
strict field validation (kubectl's default) fields the struct does not declare fail with
`strict decoding error: unknown field "<path>"`. `decode` reports both and returns the value as
Go would see it: JSON nulls dropped from structs (nil), null list or map entries as zero values,
and mistyped fields left out, so the validators after it can trust every type.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine import schemas
from policyeditor.engine.errors import FieldError
from policyeditor.engine.jsonkinds import type_name
from policyeditor.engine.objects import ADMISSION_GROUP
from policyeditor.engine.versions import DEFAULT_VERSION

_API_VERSIONS = ("v1", "v1beta1", "v1alpha1")


@dataclass
class Decoded:
    """What strict decoding produced: the Go-shaped value and the problems found."""

    value: dict[str, Any]
    type_errors: list[FieldError] = field(default_factory=list)
    unknown_fields: list[FieldError] = field(default_factory=list)


def kind_schema(kind: str, api_version: str, k8s_version: str) -> tuple[dict[str, Any], str] | None:
    """The OpenAPI schema of a policy kind and the release whose definitions it refers to."""
    # The fields are identical across API versions, so a kind the release's schemas lack (a MAP
    # version not served yet) falls back to another API version or to the newest release.
    version = api_version.split("/", 1)[-1]
    candidates = [(version, k8s_version)]
    candidates += [(other, k8s_version) for other in _API_VERSIONS]
    candidates += [(other, DEFAULT_VERSION) for other in _API_VERSIONS]
    for candidate, k8s in candidates:
        schema = schemas.schema_for(ADMISSION_GROUP, candidate, kind, k8s)
        if schema:
            return schema, k8s
    return None


def decode(doc: dict[str, Any], kind: str, api_version: str, k8s_version: str) -> Decoded:
    """Strictly decode `doc` (a policy kind) and return the Go-shaped copy plus any errors."""
    found = kind_schema(kind, api_version, k8s_version)
    result = Decoded(value={})
    if found is None:
        result.value = doc
        return result
    schema, schema_release = found
    walker = _Walker(schema_release, result)
    value = walker.struct(doc, schema, path="", go_path="", struct=kind)
    result.value = value if isinstance(value, dict) else {}
    return result


def _ref_type(raw: dict[str, Any]) -> str | None:
    """'v1.MatchResources' for a `$ref` to io.k8s.api.admissionregistration.v1.MatchResources."""
    ref = raw.get("$ref") if isinstance(raw, dict) else None
    if not isinstance(ref, str):
        return None
    parts = ref.rsplit("/", 1)[-1].split(".")
    return ".".join(parts[-2:]) if len(parts) >= 2 else parts[-1]


class _Walker:
    """Walks a value and its schema together."""

    def __init__(self, k8s_version: str, result: Decoded) -> None:
        self.k8s = k8s_version
        self.result = result

    def resolve(self, raw: Any) -> dict[str, Any]:
        """The schema with its `$ref` followed."""
        return schemas.resolve(raw, self.k8s) or {}

    def go_type(self, raw: dict[str, Any]) -> str:
        """The Go type name the decoder reports for a schema."""
        named = _ref_type(raw)
        if named:
            return named
        schema = self.resolve(raw)
        types = schemas.schema_types(schema)
        if "array" in types or "items" in schema:
            return "[]" + self.go_type(schema.get("items") or {})
        if "properties" in schema:
            return "struct"
        if "object" in types or "additionalProperties" in schema:
            additional = schema.get("additionalProperties")
            return "map[string]" + (
                self.go_type(additional) if isinstance(additional, dict) else "interface {}"
            )
        if "integer" in types:
            fmt = schema.get("format")
            return fmt if isinstance(fmt, str) and fmt in ("int32", "int64") else "int64"
        if "number" in types:
            return "float64"
        if "boolean" in types:
            return "bool"
        if "string" in types:
            return "string"
        return "interface {}"

    def mistyped(
        self, value: Any, raw: dict[str, Any], path: str, go_path: str, struct: str
    ) -> None:
        """Record a value of the wrong JSON type."""
        kind = _json_kind(value)
        message = (
            f"json: cannot unmarshal {kind} into Go struct field {struct}.{go_path} "
            f"of type {self.go_type(raw)}"
        )
        self.result.type_errors.append(FieldError(path, message))

    def value(self, value: Any, raw: dict[str, Any], path: str, go_path: str, struct: str) -> Any:
        """Decode one value; returns _MISSING when it cannot be decoded."""
        schema = self.resolve(raw)
        if (
            not schema
            or schema.get("x-kubernetes-preserve-unknown-fields")
            and "properties" not in schema
        ):
            return value
        if schema.get("x-kubernetes-int-or-string") or schema.get("format") == "int-or-string":
            if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
                return value
            self.mistyped(value, raw, path, go_path, struct)
            return _MISSING
        types = schemas.schema_types(schema)
        if "properties" in schema:
            if not isinstance(value, dict):
                self.mistyped(value, raw, path, go_path, struct)
                return _MISSING
            named = _ref_type(raw)
            return self.struct(
                value, schema, path, go_path, named.split(".")[-1] if named else struct
            )
        if "array" in types or "items" in schema:
            if not isinstance(value, list):
                self.mistyped(value, raw, path, go_path, struct)
                return _MISSING
            return self.array(value, schema, path, go_path, struct)
        if "object" in types or "additionalProperties" in schema:
            if not isinstance(value, dict):
                self.mistyped(value, raw, path, go_path, struct)
                return _MISSING
            additional = schema.get("additionalProperties")
            if not isinstance(additional, dict):
                return value
            result = {}
            for key, item in value.items():
                key = key if isinstance(key, str) else str(key)  # JSON object keys are strings
                decoded = self.element(item, additional, f"{path}[{key}]", go_path, struct)
                if decoded is not _MISSING:
                    result[key] = decoded
            return result
        return self.scalar(value, schema, raw, path, go_path, struct)

    def scalar(
        self,
        value: Any,
        schema: dict[str, Any],
        raw: dict[str, Any],
        path: str,
        go_path: str,
        struct: str,
    ) -> Any:
        """Decode a string, number or boolean."""
        types = schemas.schema_types(schema)
        ok = True
        if "string" in types:
            ok = isinstance(value, str)
        elif "boolean" in types:
            ok = isinstance(value, bool)
        elif "integer" in types:
            ok = (isinstance(value, int) and not isinstance(value, bool)) or (
                isinstance(value, float) and value.is_integer()
            )
            if ok and isinstance(value, float):
                value = int(value)  # YAML 1.0 reaches Go's decoder as JSON 1
            bits = 32 if schema.get("format") == "int32" else 64
            if ok and not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
                # Go reports the number that does not fit its integer type.
                self.result.type_errors.append(
                    FieldError(
                        path,
                        f"json: cannot unmarshal number {value} into Go struct field "
                        f"{struct}.{go_path} of type {self.go_type(raw)}",
                    )
                )
                return _MISSING
        elif "number" in types:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        if not ok:
            self.mistyped(value, raw, path, go_path, struct)
            return _MISSING
        return value

    def element(self, value: Any, raw: dict[str, Any], path: str, go_path: str, struct: str) -> Any:
        """A list or map entry: null becomes the element type's zero value, as in Go."""
        if value is None:
            return self.zero(raw)
        return self.value(value, raw, path, go_path, struct)

    def array(
        self, value: list[Any], schema: dict[str, Any], path: str, go_path: str, struct: str
    ) -> list[Any]:
        """Decode a list element by element."""
        items = schema.get("items")
        if not isinstance(items, dict):
            return value
        result = []
        for position, item in enumerate(value):
            decoded = self.element(item, items, f"{path}[{position}]", go_path, struct)
            result.append(self.zero(items) if decoded is _MISSING else decoded)
        return result

    def struct(
        self, value: dict[str, Any], schema: dict[str, Any], path: str, go_path: str, struct: str
    ) -> dict[str, Any]:
        """Decode a struct: unknown fields reported, nulls dropped."""
        schema = self.resolve(schema)
        properties = schema.get("properties") or {}
        result = {}
        for key, item in value.items():
            here = _child(path, key)
            if key not in properties:
                self.result.unknown_fields.append(
                    FieldError(here, f'strict decoding error: unknown field "{here}"')
                )
                continue
            if item is None:
                continue  # a nil pointer / empty field, like an absent one
            decoded = self.value(item, properties[key], here, _child(go_path, key), struct)
            if decoded is not _MISSING:
                result[key] = decoded
        return result

    def zero(self, raw: dict[str, Any]) -> Any:
        """The Go zero value of a schema's type."""
        schema = self.resolve(raw)
        types = schemas.schema_types(schema)
        if schema.get("x-kubernetes-int-or-string"):
            return 0
        if "properties" in schema or "object" in types or "additionalProperties" in schema:
            return {}
        if "array" in types or "items" in schema:
            return []
        if "string" in types:
            return ""
        if "boolean" in types:
            return False
        if "integer" in types or "number" in types:
            return 0
        return None


_MISSING = object()


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _json_kind(value: Any) -> str:
    if isinstance(value, float):
        return f"number {value}"  # Go names the number when it is the value that does not fit
    return type_name(value, "unmarshal")
