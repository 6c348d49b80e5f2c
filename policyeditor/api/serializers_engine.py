"""Request and response shapes of the database-free endpoints: validate, evaluate, cel."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from policyeditor.api.fields import (
    AnyJSONField,
    DocumentsMixin,
    ObjectField,
    StrictSerializer,
    VersionField,
)
from policyeditor.engine.admission.authorizer import parse_entries

CONTEXTS = (
    "validation",
    "matchCondition",
    "messageExpression",
    "auditAnnotation",
    "variable",
    "mutation",
)
OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT")
MAX_CRDS = 500


def crds_field() -> serializers.ListField:
    """`crds`: CustomResourceDefinitions whose schemas type, prune and validate custom resources."""
    return serializers.ListField(
        child=ObjectField(),
        required=False,
        max_length=MAX_CRDS,
        help_text="apiextensions.k8s.io/v1 CustomResourceDefinitions (or a List of them, as "
        "`kubectl get crd -o yaml` writes): their schemas type-check expressions on custom "
        "resources and prune and validate custom resource objects, as the API server does.",
    )


class UserInfoSerializer(StrictSerializer):
    """The requesting user as the API server authenticated it."""

    username = serializers.CharField(required=False, allow_blank=True, max_length=1024)
    uid = serializers.CharField(required=False, allow_blank=True, max_length=1024)
    groups = serializers.ListField(
        child=serializers.CharField(allow_blank=True, max_length=1024), required=False
    )
    extra = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField(allow_blank=True)), required=False
    )


class AuthorizerEntrySerializer(serializers.Serializer):
    """One mocked authorization decision; a field left out matches any value."""

    # Schema only: AuthorizerField checks entries with the engine's parser, which knows aliases.

    group = serializers.CharField(required=False, allow_blank=True)
    version = serializers.CharField(required=False, allow_blank=True)
    resource = serializers.CharField(required=False, allow_blank=True)
    subresource = serializers.CharField(required=False, allow_blank=True)
    namespace = serializers.CharField(required=False, allow_blank=True)
    name = serializers.CharField(required=False, allow_blank=True)
    verb = serializers.CharField(required=False, allow_blank=True)
    path = serializers.CharField(required=False, allow_blank=True)
    user = serializers.CharField(required=False, allow_blank=True)
    decision = serializers.ChoiceField(choices=["allow", "deny", "noOpinion"])
    reason = serializers.CharField(required=False, allow_blank=True)
    error = serializers.CharField(required=False, allow_blank=True)


@extend_schema_field(AuthorizerEntrySerializer(many=True))
class AuthorizerField(serializers.ListField):
    """Mocked authorization decisions, first match wins, default NoOpinion (as in test suites)."""

    child = ObjectField()

    def to_internal_value(self, data: Any) -> list[dict]:
        entries = super().to_internal_value(data)
        try:
            parse_entries(entries)
        except ValueError as exc:
            raise serializers.ValidationError(str(exc)) from exc
        return entries


class ValidateRequestSerializer(DocumentsMixin):
    crds = crds_field()
    """POST /api/v1/validate: the documents to validate as the API server would."""

    kubernetesVersion = VersionField(required=False)
    static = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Validate the documents as one set of static manifests (staticManifestsDir, "
        "manifest-based admission control, Kubernetes 1.36+): names ending in .static.k8s.io, "
        "no paramKind/paramRef, every binding's policy in the set, v1 only.",
    )


class FieldErrorSerializer(serializers.Serializer):
    """One API-server error or warning, located by document and Kubernetes field path."""

    document = serializers.IntegerField(help_text="0-based index of the document.")
    kind = serializers.CharField()
    name = serializers.CharField()
    path = serializers.CharField(
        help_text="Kubernetes field path, e.g. spec.validations[0].expression."
    )
    message = serializers.CharField()


class ValidateResponseSerializer(serializers.Serializer):
    """The outcome of validation: valid when there are no errors (warnings never block)."""

    valid = serializers.BooleanField()
    kubernetesVersion = serializers.CharField()
    errors = FieldErrorSerializer(many=True)  # type: ignore[assignment]  # a declared field: DRF's metaclass moves it out of the attributes the stubs type
    warnings = FieldErrorSerializer(many=True)


class EvaluateRequestSerializer(DocumentsMixin):
    """POST /api/v1/evaluate: policies plus one admission request."""

    kubernetesVersion = VersionField(required=False)
    object = ObjectField(required=False, allow_null=True, help_text="The object being admitted.")
    oldObject = ObjectField(
        required=False, allow_null=True, help_text="The object before an UPDATE or DELETE."
    )
    operation = serializers.ChoiceField(
        choices=OPERATIONS,
        required=False,
        help_text="Default: CREATE with only object, UPDATE with both, DELETE with only oldObject.",
    )
    userInfo = UserInfoSerializer(required=False)
    params = AnyJSONField(
        required=False,
        allow_null=True,
        help_text="Inline param object; overrides the binding's paramRef.",
    )
    namespaceObject = ObjectField(required=False, allow_null=True)
    resources = serializers.ListField(
        child=ObjectField(),
        required=False,
        help_text="Other cluster objects (param objects, namespaces) for paramRef and selectors.",
    )
    request = ObjectField(
        required=False,
        help_text="Further AdmissionRequest fields in camelCase (kind, resource, subResource, "
        "namespace, name, dryRun, options, ...); they override what is inferred from the object.",
    )
    authorizer = AuthorizerField(
        required=False, help_text="Mocked authorization decisions, first match wins."
    )
    policy = serializers.CharField(required=False, help_text="Evaluate only this policy (by name).")
    binding = serializers.CharField(required=False, help_text="Evaluate through this binding.")
    crds = crds_field()
    defaulting = serializers.BooleanField(
        required=False,
        default=True,
        help_text="Default object and oldObject (and each mutation's result) as the API server "
        "does for built-in kinds; false evaluates them as given.",
    )

    def validate(self, attrs: dict) -> dict:
        attrs = super().validate(attrs)
        if attrs.get("object") is None and attrs.get("oldObject") is None:
            raise serializers.ValidationError(
                {"object": "required: give object, oldObject or both"}
            )
        return attrs


class EvaluateResponseSerializer(serializers.Serializer):
    """The decision the API server would answer, with each policy's steps."""

    result = serializers.ChoiceField(choices=["allow", "deny", "warn", "audit", "skip", "error"])
    allowed = serializers.BooleanField()
    statusCode = serializers.IntegerField()
    reason = serializers.CharField()
    message = serializers.CharField()
    warnings = serializers.ListField(child=serializers.CharField())
    auditAnnotations = serializers.DictField(child=serializers.CharField())
    object = ObjectField(allow_null=True, help_text="MAP: the object after all mutations.")
    patch = serializers.ListField(child=ObjectField())
    diff = serializers.CharField()
    errors = serializers.ListField(child=serializers.CharField())  # type: ignore[assignment]  # a declared field: DRF's metaclass moves it out of the attributes the stubs type
    defaulting = serializers.BooleanField(help_text="Whether the objects were defaulted.")
    defaulted = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="The fields defaulting filled in, per request object (object, oldObject).",
    )
    policies = serializers.ListField(child=ObjectField())
    kubernetesVersion = serializers.CharField()


class VariableSerializer(StrictSerializer):
    """A policy variable, composited before the expression."""

    name = serializers.CharField()
    expression = serializers.CharField(trim_whitespace=False)


class CelRequestSerializer(StrictSerializer):
    """POST /api/v1/cel: one expression with the variables it may read."""

    expression = serializers.CharField(trim_whitespace=False, max_length=100_000)
    context = serializers.ChoiceField(choices=CONTEXTS, required=False, default="validation")  # type: ignore[assignment]  # a declared field: DRF's metaclass moves it out of the attributes the stubs type
    kubernetesVersion = VersionField(required=False)
    object = AnyJSONField(required=False, allow_null=True)
    oldObject = AnyJSONField(required=False, allow_null=True)
    request = ObjectField(required=False, allow_null=True)
    params = AnyJSONField(required=False, allow_null=True)
    namespaceObject = AnyJSONField(required=False, allow_null=True)
    variables = VariableSerializer(many=True, required=False)
    authorizer = AuthorizerField(required=False)
    envType = serializers.ChoiceField(
        choices=["NewExpressions", "StoredExpressions"], required=False, default="NewExpressions"
    )
    crds = crds_field()


class CelIssueSerializer(serializers.Serializer):
    """A compile or runtime error, with cel-go's position and caret snippet."""

    message = serializers.CharField()
    line = serializers.IntegerField(allow_null=True)
    column = serializers.IntegerField(allow_null=True)
    snippet = serializers.CharField()
    phase = serializers.ChoiceField(choices=["compile", "runtime"])
    text = serializers.CharField(help_text='cel-go style "ERROR: <input>:1:5: ..." text.')


class CelResponseSerializer(serializers.Serializer):
    """The value (JSON) or the error of one expression."""

    value = AnyJSONField(allow_null=True)
    error = CelIssueSerializer(allow_null=True, help_text="The first error, if any.")
    errors = CelIssueSerializer(many=True, help_text="Every compile error (or the runtime one).")  # type: ignore[assignment]  # a declared field: DRF's metaclass moves it out of the attributes the stubs type
    cost = serializers.IntegerField(allow_null=True)
    estimatedCost = serializers.IntegerField(allow_null=True)
    warnings = serializers.ListField(child=serializers.CharField())
    kubernetesVersion = serializers.CharField()
