"""Serializer fields shared by the API: Kubernetes objects, versions and document bundles."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from policyeditor.engine.jsonkinds import type_name
from policyeditor.engine.manifests.loading import load_documents
from policyeditor.engine.versions import KUBERNETES_VERSIONS, normalize_version


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": True,
        "description": "A Kubernetes object as JSON (apiVersion, kind, metadata, ...).",
    }
)
class ObjectField(serializers.Field):
    """Any JSON object (mapping), kept exactly as given."""

    default_error_messages = {"not_object": "must be an object (a mapping), not {type}"}

    def to_internal_value(self, data: Any) -> dict:
        if not isinstance(data, dict):
            self.fail("not_object", type=type_name(data, "api"))
        return data

    def to_representation(self, value: Any) -> Any:
        return value


@extend_schema_field(OpenApiTypes.ANY)
class AnyJSONField(serializers.Field):
    """Any JSON value (params may be any shape), kept exactly as given."""

    def to_internal_value(self, data: Any) -> Any:
        return data

    def to_representation(self, value: Any) -> Any:
        return value


@extend_schema_field(OpenApiTypes.STR)
class UsernameField(serializers.Field):
    """A user's username, read only; "" when there is none (the user was deleted)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(read_only=True, **kwargs)

    def get_attribute(self, instance: Any) -> str:
        user = super().get_attribute(instance)
        return user.get_username() if user else ""

    def to_representation(self, value: Any) -> Any:
        return value


@extend_schema_field(
    {
        "type": "string",
        "enum": list(KUBERNETES_VERSIONS),
        "description": "Target Kubernetes version (default: the newest).",
    }
)
class VersionField(serializers.Field):
    """A supported Kubernetes version, normalized to "1.NN"; "v1.34" and "1.34.2" are accepted."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str | int | float) or isinstance(data, bool):
            raise serializers.ValidationError(
                f"must be a version string, not {type_name(data, 'api')}"
            )
        try:
            return normalize_version(str(data))
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from exc

    def to_representation(self, value: Any) -> Any:
        return value


class StrictSerializer(serializers.Serializer):
    """Unknown fields are an error, as in the API server's strict decoding (a typo is not ignored)."""

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError(
                    {key: f'unknown field "{key}"' for key in unknown}
                )
        return super().to_internal_value(data)


class DocumentsMixin(StrictSerializer):
    """`documents` (JSON objects) or `yaml` (multi-document text): exactly one of them."""

    documents = serializers.ListField(
        child=ObjectField(),
        required=False,
        help_text="Kubernetes objects: policies, bindings, param objects.",
    )
    yaml = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text="The same objects as multi-document YAML (or JSON) text.",
    )

    def validate(self, attrs: dict) -> dict:
        attrs = super().validate(attrs)
        has_docs, has_yaml = "documents" in attrs, "yaml" in attrs
        if has_docs and has_yaml:
            raise serializers.ValidationError({"yaml": "give either documents or yaml, not both"})
        if not has_docs and not has_yaml:
            raise serializers.ValidationError(
                {"documents": "required: give documents (a list of objects) or yaml (text)"}
            )
        if has_yaml:
            # ManifestError (an InputError) carries line/column: the problem handler shows them.
            attrs["source"] = attrs.pop("yaml")
            attrs["documents"] = load_documents(attrs["source"], source="yaml")
        return attrs
