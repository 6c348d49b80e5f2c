"""Shapes of drafts and revisions in the API (the models live in policyeditor.editor)."""

from __future__ import annotations

from django.urls import reverse
from rest_framework import serializers

from policyeditor.api.fields import DocumentsMixin, ObjectField, UsernameField, VersionField
from policyeditor.editor.models import Draft, Kind, Revision, Status


class DraftSummarySerializer(serializers.ModelSerializer):
    """A draft in a list: everything but its documents."""

    kubernetesVersion = serializers.CharField(source="kubernetes_version")
    apiVersion = serializers.CharField(source="api_version")
    policyKind = serializers.CharField(source="policy_kind")
    owner = serializers.CharField(source="owner.get_username")
    url = serializers.SerializerMethodField()
    exportUrl = serializers.SerializerMethodField()

    class Meta:
        model = Draft
        fields = [
            "id",
            "name",
            "description",
            "kind",
            "policyKind",
            "kubernetesVersion",
            "apiVersion",
            "status",
            "revision",
            "owner",
            "created",
            "updated",
            "url",
            "exportUrl",
        ]
        read_only_fields = fields

    def get_url(self, draft: Draft) -> str:
        return reverse("api:draft_detail", args=[draft.pk])

    def get_exportUrl(self, draft: Draft) -> str:  # noqa: N802 - named after the field
        return reverse("api:draft_export", args=[draft.pk])


class DraftSerializer(DraftSummarySerializer):
    """One draft with its documents (the Kubernetes objects, as kubectl would apply them)."""

    documents = serializers.ListField(child=ObjectField(), read_only=True)

    class Meta(DraftSummarySerializer.Meta):
        fields = [*DraftSummarySerializer.Meta.fields, "documents"]
        read_only_fields = fields


class DraftCreateSerializer(DocumentsMixin):
    """POST /api/v1/drafts: a new draft from documents or YAML."""

    name = serializers.CharField(required=False, allow_blank=True, max_length=253)
    description = serializers.CharField(required=False, allow_blank=True, max_length=10_000)
    kind = serializers.ChoiceField(
        choices=Kind.choices, required=False, help_text="Default: inferred from the documents."
    )
    kubernetesVersion = VersionField(required=False)
    note = serializers.CharField(required=False, allow_blank=True, max_length=500)


class DraftUpdateSerializer(DocumentsMixin):
    """PUT /api/v1/drafts/{id}: save documents as the next revision."""

    revision = serializers.IntegerField(
        min_value=0,
        required=False,
        help_text="The revision you edited (else the If-Match header); a stale one is a 409.",
    )
    name = serializers.CharField(required=False, allow_blank=True, max_length=253)
    kubernetesVersion = VersionField(required=False)
    note = serializers.CharField(required=False, allow_blank=True, max_length=500)


class DraftPatchSerializer(DraftUpdateSerializer):
    """PATCH /api/v1/drafts/{id}: like PUT, the documents default to the current ones."""

    def validate(self, attrs: dict) -> dict:
        if "documents" not in attrs and "yaml" not in attrs:
            return serializers.Serializer.validate(self, attrs)
        return super().validate(attrs)


class RevisionSummarySerializer(serializers.ModelSerializer):
    """One saved state of a draft, without its documents."""

    kubernetesVersion = serializers.CharField(source="kubernetes_version")
    author = UsernameField()
    url = serializers.SerializerMethodField()

    class Meta:
        model = Revision
        fields = ["number", "kubernetesVersion", "author", "note", "created", "url"]
        read_only_fields = fields

    def get_url(self, revision: Revision) -> str:
        return reverse("api:revision_detail", args=[revision.draft_id, revision.number])


class RevisionSerializer(RevisionSummarySerializer):
    """One revision with its documents."""

    documents = serializers.ListField(child=ObjectField(), read_only=True)

    class Meta(RevisionSummarySerializer.Meta):
        fields = [*RevisionSummarySerializer.Meta.fields, "documents"]
        read_only_fields = fields


STATUS_CHOICES = Status.values
