"""Exported YAML passes the kubernetes-validate schema check for the draft's target version."""

from __future__ import annotations

import kubernetes_validate
import pytest
from django.urls import reverse

from policyeditor.editor.models import Kind
from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import blank_documents, starters
from policyeditor.engine.manifests.loading import load_documents
from policyeditor.engine.objects import family

pytestmark = pytest.mark.django_db


def _schema_check(text: bytes, version: str) -> None:
    for doc in load_documents(text):
        if family(doc["kind"]) is None:
            continue  # param objects are custom resources: the cluster's CRD holds their schema
        kubernetes_validate.validate(doc, f"{version}.0", strict=True)


@pytest.mark.parametrize("starter", starters(), ids=lambda s: s.slug)
def test_every_starter_exports_schema_valid_yaml(alice_client, alice, starter):
    draft = create_draft(alice, starter.documents())
    response = alice_client.get(reverse("editor:draft_export", args=[draft.pk]))
    _schema_check(response.content, draft.kubernetes_version)


@pytest.mark.parametrize("kind", [Kind.VAP, Kind.MAP])
@pytest.mark.parametrize("version", ["1.32", "1.34", "1.36"])
def test_drafts_from_scratch_export_schema_valid_yaml_for_their_version(
    alice_client, alice, kind, version
):
    docs = blank_documents(kind, "scratch.example.com", version)
    draft = create_draft(alice, docs, kind=kind, kubernetes_version=version)
    response = alice_client.get(reverse("editor:draft_export", args=[draft.pk]))
    _schema_check(response.content, version)


def test_the_schema_check_itself_rejects_an_unknown_field():
    doc = blank_documents(Kind.VAP, "bad.example.com", "1.37")[0]
    doc["spec"]["validationz"] = []
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(doc, "1.37.0", strict=True)
