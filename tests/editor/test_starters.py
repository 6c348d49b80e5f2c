"""The template gallery: every starter is a valid policy for the versions that serve it."""

from __future__ import annotations

import pytest

from policyeditor.editor.models import Kind
from policyeditor.editor.starters import blank_documents, get_starter, starters
from policyeditor.engine.validation.documents import validate_documents

pytestmark = pytest.mark.django_db

NAMED = {
    "require-labels",
    "replica-limit",
    "deny-privileged",
    "image-registry-allowlist",
    "deny-latest-tag",
    "require-resource-limits",
    "namespace-scoped",
    "add-default-labels",
    "inject-sidecar",
    "set-image-pull-policy",
}


def test_the_gallery_has_the_ten_starters_the_issue_names():
    assert {s.slug for s in starters()} >= NAMED


@pytest.mark.parametrize("starter", starters(), ids=lambda s: s.slug)
def test_every_starter_passes_api_server_validation(starter):
    assert validate_documents(starter.documents(), version="1.37") == []


def test_the_map_starters_use_both_patch_types():
    types = {
        m["patchType"]
        for s in starters()
        if s.kind == Kind.MAP
        for m in s.documents()[0]["spec"]["mutations"]
    }
    assert types == {"ApplyConfiguration", "JSONPatch"}


@pytest.mark.parametrize("kind", [Kind.VAP, Kind.MAP])
@pytest.mark.parametrize("version", ["1.32", "1.34", "1.37"])
def test_blank_documents_are_valid_for_their_target_version(kind, version):
    docs = blank_documents(kind, "blank.example.com", version)
    assert validate_documents(docs, version=version) == []


def test_an_unknown_starter_is_none():
    assert get_starter("nope") is None
