"""Request and response bodies of POST /api/v1/lint and POST /api/v1/static-manifests."""

from __future__ import annotations

from rest_framework import serializers

from policyeditor.api.fields import DocumentsMixin, VersionField


class LintRequestSerializer(DocumentsMixin):
    """POST /api/v1/lint: the policies to look for CEL pitfalls in."""

    kubernetesVersion = VersionField(required=False)


class FindingSerializer(serializers.Serializer):
    """One pitfall: where it is, what goes wrong and the fix."""

    document = serializers.IntegerField(help_text="0-based index of the document.")
    kind = serializers.CharField()
    name = serializers.CharField()
    code = serializers.CharField(help_text="Stable rule id, PE101 to PE114 (docs/linter.md).")
    severity = serializers.CharField(help_text="Always warning: findings never block.")
    path = serializers.CharField(help_text="Kubernetes field path of the expression.")
    line = serializers.IntegerField(allow_null=True, help_text="1-based line in the expression.")
    column = serializers.IntegerField(allow_null=True, help_text="1-based column.")
    message = serializers.CharField()
    fix = serializers.CharField()


class LintResponseSerializer(serializers.Serializer):
    """Every finding of every policy."""

    kubernetesVersion = serializers.CharField()
    findings = FindingSerializer(many=True)


class StaticRequestSerializer(DocumentsMixin):
    """POST /api/v1/static-manifests: policies and bindings to lay out as static manifests."""

    kubernetesVersion = VersionField(required=False)
    baseDir = serializers.CharField(
        required=False,
        default="/etc/kubernetes/admission",
        help_text="Where the API server host keeps the manifest directories.",
    )


class StaticErrorSerializer(serializers.Serializer):
    """One static-loader or validation error."""

    document = serializers.IntegerField()
    kind = serializers.CharField()
    path = serializers.CharField()
    message = serializers.CharField()


class StaticResponseSerializer(serializers.Serializer):
    """The layout (file path -> YAML text) and whether the API server would load it."""

    kubernetesVersion = serializers.CharField()
    valid = serializers.BooleanField()
    errors = StaticErrorSerializer(many=True)  # type: ignore[assignment]  # a declared field: DRF's metaclass moves it out of the attributes the stubs type
    files = serializers.DictField(child=serializers.CharField())
