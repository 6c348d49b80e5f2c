"""Shapes of review requests, reviews, comments and saved test cases in the API."""

from __future__ import annotations

from rest_framework import serializers

from policyeditor.api.fields import ObjectField, StrictSerializer, UsernameField
from policyeditor.review.models import Comment, Decision, Review, SavedTestCase


class ReviewRequestSerializer(StrictSerializer):
    """POST .../review-request: ask the team's reviewers to review the latest revision."""

    note = serializers.CharField(required=False, allow_blank=True, max_length=500)


class ReviewCreateSerializer(StrictSerializer):
    """POST .../reviews: approve or request changes on the revision under review."""

    decision = serializers.ChoiceField(choices=Decision.values)
    revision = serializers.IntegerField(
        min_value=1, help_text="The revision you reviewed (the latest)."
    )
    body = serializers.CharField(
        required=False, allow_blank=True, max_length=10_000, trim_whitespace=False
    )

    def validate(self, attrs: dict) -> dict:
        if attrs["decision"] == Decision.REQUEST_CHANGES and not attrs.get("body", "").strip():
            raise serializers.ValidationError({"body": "say what should change"})
        return attrs


class ReviewSerializer(serializers.ModelSerializer):
    """One reviewer's decision on one revision."""

    revision = serializers.IntegerField(source="revision.number")
    reviewer = UsernameField()

    class Meta:
        model = Review
        fields = ["id", "revision", "reviewer", "decision", "body", "created"]
        read_only_fields = fields


class CommentCreateSerializer(StrictSerializer):
    """POST .../comments: a remark on a revision, one of its fields, or a reply."""

    revision = serializers.IntegerField(
        min_value=1, required=False, help_text="Default: the latest."
    )
    body = serializers.CharField(max_length=10_000)
    fieldPath = serializers.CharField(required=False, allow_blank=True, max_length=300)
    document = serializers.CharField(required=False, allow_blank=True, max_length=300)
    parent = serializers.IntegerField(  # type: ignore[assignment]  # a declared field: DRF's metaclass moves it out of the attributes the stubs type
        required=False, min_value=1, help_text="Reply to this thread."
    )


class ResolveSerializer(StrictSerializer):
    """POST .../comments/{id}/resolve: resolve (true) or reopen (false) a thread."""

    resolved = serializers.BooleanField(default=True)


class CommentSerializer(serializers.ModelSerializer):
    """A comment; replies point at their thread's root in `parent`."""

    revision = serializers.IntegerField(source="revision.number")
    author = UsernameField()
    fieldPath = serializers.CharField(source="field_path")

    class Meta:
        model = Comment
        fields = [
            "id",
            "revision",
            "author",
            "document",
            "fieldPath",
            "body",
            "parent",
            "resolved",
            "created",
        ]
        read_only_fields = fields


class TestCaseSerializer(serializers.ModelSerializer):
    """A saved test case: a case mapping of the PolicyTest format (inputs plus `expect`)."""

    __test__ = False  # not a pytest class, whatever its name

    case = ObjectField()

    class Meta:
        model = SavedTestCase
        fields = ["id", "name", "case", "created", "updated"]
        read_only_fields = fields


class CaseRunSerializer(serializers.Serializer):
    """One case's outcome on one revision."""

    name = serializers.CharField()
    passed = serializers.BooleanField()
    result = serializers.CharField(allow_null=True)
    message = serializers.CharField()
    failures = serializers.ListField(child=serializers.CharField())
    vacuous = serializers.CharField(
        help_text="What actually happened when the case passed vacuously (allowed with no "
        "policy taking part, or denied by an evaluation error); empty otherwise."
    )


class ChangeSerializer(serializers.Serializer):
    """A case whose result differs from the baseline's."""

    name = serializers.CharField()
    before = serializers.CharField(allow_null=True)
    after = serializers.CharField(allow_null=True)


class TestReportSerializer(serializers.Serializer):
    """Every saved case run on a revision, with changes against the approved revision."""

    __test__ = False

    revision = serializers.IntegerField()
    baseline = serializers.IntegerField(allow_null=True)
    passed = serializers.IntegerField()
    failed = serializers.IntegerField()
    cases = CaseRunSerializer(many=True)
    changes = ChangeSerializer(many=True)
    summary = serializers.ListField(child=serializers.CharField())
