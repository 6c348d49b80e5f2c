"""View tests for the drafts list and the ways to start a draft."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from policyeditor.editor.forms import SORTS
from policyeditor.editor.models import Draft, Kind
from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter, starters

pytestmark = pytest.mark.django_db


def test_the_drafts_list_requires_sign_in(client):
    response = client.get(reverse("editor:draft_list"))
    assert response.status_code == 302
    assert "/login/" in response.url


def test_the_drafts_list_shows_only_the_users_own_drafts(alice_client, alice, bob):
    create_draft(alice, [], name="alice-draft")
    create_draft(bob, [], name="bob-draft")
    response = alice_client.get(reverse("editor:draft_list"))
    assert response.status_code == 200
    assert b"alice-draft" in response.content
    assert b"bob-draft" not in response.content


def test_the_drafts_list_searches_filters_and_sorts(alice_client, alice):
    create_draft(alice, get_starter("replica-limit").documents())
    create_draft(alice, get_starter("inject-sidecar").documents())
    url = reverse("editor:draft_list")
    assert b"inject-sidecar" not in alice_client.get(url, {"q": "demo-policy"}).content
    maps = alice_client.get(url, {"kind": Kind.MAP}).content
    assert b"inject-sidecar" in maps and b"demo-policy" not in maps
    by_name = alice_client.get(url, {"sort": "name"}).content.decode()
    assert by_name.index("demo-policy") < by_name.index("inject-sidecar")
    by_name_desc = alice_client.get(url, {"sort": "-name"}).content.decode()
    assert by_name_desc.index("inject-sidecar") < by_name_desc.index("demo-policy")
    assert b"demo-policy" in alice_client.get(url, {"owner": "ali"}).content
    assert b"No drafts match" in alice_client.get(url, {"owner": "nobody"}).content


def test_the_drafts_list_paginates_and_answers_htmx_with_the_results_only(
    alice_client, alice, htmx_headers
):
    for number in range(25):
        create_draft(alice, [], name=f"draft-{number:02d}")
    url = reverse("editor:draft_list")
    first = alice_client.get(url, {"sort": "name"})
    assert b"Page 1 of 2" in first.content
    second = alice_client.get(url, {"sort": "name", "page": 2})
    assert b"draft-24" in second.content and b"draft-00" not in second.content
    partial = alice_client.get(url, {"q": "draft-1"}, headers=htmx_headers)
    assert partial.status_code == 200
    assert b'id="results"' in partial.content
    assert b"<html" not in partial.content


@pytest.mark.parametrize("status", ["", "in_review"])
@pytest.mark.parametrize("sort", list(SORTS))
def test_the_drafts_list_walks_an_index_for_its_sort_instead_of_sorting_every_draft(
    alice_client, alice, sort, status
):
    if connection.vendor != "sqlite":
        pytest.skip("reads SQLite's EXPLAIN QUERY PLAN")
    Draft.objects.bulk_create(
        Draft(name=f"d-{n}", owner=alice, status="in_review" if n % 5 else "draft")
        for n in range(25)
    )
    with CaptureQueriesContext(connection) as queries:
        alice_client.get(reverse("editor:draft_list"), {"sort": sort, "status": status})
    (page_query,) = [q["sql"] for q in queries if q["sql"].startswith('SELECT "editor_draft"."id"')]
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {page_query}")
        plan = [row[-1] for row in cursor.fetchall()]
    assert not any("TEMP B-TREE" in step for step in plan), plan
    assert any("editor_draft USING INDEX editor_draft_" in step for step in plan), plan


def test_a_bad_filter_value_is_ignored_not_an_error(alice_client):
    response = alice_client.get(reverse("editor:draft_list"), {"kind": "XYZ", "page": "zz"})
    assert response.status_code == 200


def test_the_new_draft_page_lists_the_ten_starters(alice_client):
    response = alice_client.get(reverse("editor:draft_new"))
    assert response.status_code == 200
    assert len(starters()) >= 10
    for starter in starters():
        assert starter.title.encode() in response.content


def test_a_vap_from_scratch_gets_a_policy_and_a_binding(alice_client, alice):
    response = alice_client.post(
        reverse("editor:draft_new"),
        {"kind": "VAP", "name": "limit.example.com", "kubernetes_version": "1.34"},
    )
    draft = Draft.objects.get(owner=alice)
    assert response.status_code == 302 and response.url == draft.get_absolute_url()
    assert [d["kind"] for d in draft.documents] == [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
    ]
    assert draft.documents[1]["spec"]["policyName"] == "limit.example.com"
    assert draft.kubernetes_version == "1.34"


def test_a_map_from_scratch_uses_the_api_version_the_target_version_serves(alice_client, alice):
    alice_client.post(
        reverse("editor:draft_new"),
        {"kind": "MAP", "name": "labels.example.com", "kubernetes_version": "1.34"},
    )
    draft = Draft.objects.get(owner=alice)
    assert draft.kind == Kind.MAP
    assert draft.documents[0]["apiVersion"] == "admissionregistration.k8s.io/v1beta1"


def test_a_bad_policy_name_is_refused_with_the_api_server_message(alice_client, alice):
    response = alice_client.post(
        reverse("editor:draft_new"),
        {"kind": "VAP", "name": "Bad_Name", "kubernetes_version": "1.37"},
    )
    assert response.status_code == 400
    assert b"RFC 1123 subdomain" in response.content
    assert not Draft.objects.exists()


def test_a_starter_becomes_a_draft_and_an_unknown_one_is_404(alice_client, alice):
    response = alice_client.post(reverse("editor:draft_from_starter", args=["inject-sidecar"]))
    draft = Draft.objects.get(owner=alice)
    assert response.status_code == 302
    assert draft.kind == Kind.MAP
    assert draft.documents == get_starter("inject-sidecar").documents()
    missing = alice_client.post(reverse("editor:draft_from_starter", args=["nope"]))
    assert missing.status_code == 404


def test_importing_pasted_multi_document_yaml_keeps_every_document(alice_client, alice):
    text = get_starter("replica-limit").text
    response = alice_client.post(
        reverse("editor:draft_import"), {"yaml": text, "kubernetes_version": "1.33"}
    )
    draft = Draft.objects.get(owner=alice)
    assert response.status_code == 302
    assert len(draft.documents) == 3
    assert draft.kubernetes_version == "1.33"


def test_importing_an_uploaded_file_works(alice_client, alice):
    upload = SimpleUploadedFile("policy.yaml", get_starter("deny-latest-tag").text.encode())
    response = alice_client.post(
        reverse("editor:draft_import"), {"upload": upload, "kubernetes_version": "1.37"}
    )
    assert response.status_code == 302
    assert Draft.objects.get(owner=alice).name == "deny-latest-tag.example.com"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("kind: [unclosed", b"pasted YAML: document 1: line 2, column 1"),
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", b"No ValidatingAdmissionPolicy"),
        ("", b"Paste YAML or choose a file"),
        ("- just\n- a list\n", b"expected an object (a mapping), got a list"),
    ],
)
def test_importing_bad_yaml_says_what_is_wrong_and_creates_nothing(
    alice_client, alice, text, message
):
    response = alice_client.post(
        reverse("editor:draft_import"), {"yaml": text, "kubernetes_version": "1.37"}
    )
    assert response.status_code == 400
    assert message in response.content
    assert not Draft.objects.exists()
