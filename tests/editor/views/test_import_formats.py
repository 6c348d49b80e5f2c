"""Importing YAML in the shapes the Kubernetes docs print it."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from django.urls import reverse

from policyeditor.editor.models import Draft

pytestmark = pytest.mark.django_db

DOCS_EXAMPLES = Path(__file__).resolve().parents[2] / "data" / "docs_examples"


def test_importing_a_v1_list_as_the_docs_print_it_keeps_its_items_as_documents(alice_client, alice):
    # The "list format" example of the manifest-based admission control page: kind List.
    example = yaml.safe_load((DOCS_EXAMPLES / "require-labels-list.yaml").read_text())
    policy, binding = example["documents"]
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [policy, binding]})
    response = alice_client.post(
        reverse("editor:draft_import"), {"yaml": text, "kubernetes_version": "1.37"}
    )
    assert response.status_code == 302
    draft = Draft.objects.get(owner=alice)
    assert draft.documents == [policy, binding]
    assert draft.name == "example-require-labels.static.k8s.io"


@pytest.mark.parametrize("path", sorted(DOCS_EXAMPLES.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_docs_example_imports_as_the_same_documents(alice_client, alice, path):
    documents = yaml.safe_load(path.read_text())["documents"]
    text = yaml.safe_dump_all(documents, sort_keys=False)
    response = alice_client.post(
        reverse("editor:draft_import"), {"yaml": text, "kubernetes_version": "1.37"}
    )
    assert response.status_code == 302
    assert Draft.objects.get(owner=alice).documents == documents
