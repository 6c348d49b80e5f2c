"""View tests for the editor page and its HTMX endpoints."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from policyeditor.editor.models import Draft
from policyeditor.editor.services import save_draft
from policyeditor.editor.starters import get_starter
from tests.editor.formhtml import draft_form, expression_field, form_data, live_validate, postable


def _badge_text(html: str) -> str:
    """The status badge's text as a reader sees it (its counts are buttons)."""
    found = re.search(r'<span id="status-badge".*?>(.*?)</span>\s*(?:<pre|$)', html, re.S)
    assert found, html
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


pytestmark = pytest.mark.django_db


def test_the_editor_page_shows_every_document_and_the_yaml(alice_client, replica_draft):
    response = alice_client.get(replica_draft.get_absolute_url())
    html = response.content.decode()
    assert "ValidatingAdmissionPolicyBinding" in html
    assert "maxReplicas: 3" in html  # the param object, as YAML
    assert 'id="yaml-preview"' in html
    assert "kind: Deployment" in html  # the Try-it sample object of the matched kind


def test_someone_elses_draft_is_404_on_every_endpoint(client, bob, replica_draft):
    client.force_login(bob)
    pk = replica_draft.pk
    assert client.get(reverse("editor:draft_edit", args=[pk])).status_code == 404
    for name in ("draft_validate", "draft_form", "draft_save", "draft_try", "draft_add_document"):
        assert client.post(reverse(f"editor:{name}", args=[pk])).status_code == 404, name
    assert client.get(reverse("editor:draft_export", args=[pk])).status_code == 404


def _validate_expression(client, draft, headers, expression: str):
    """Live-validate the draft's form with its first validation expression set to `expression`."""
    data = draft_form(client, draft)
    field = expression_field(data)
    data[field] = expression
    response = live_validate(client, draft, data, headers)
    return field, response


def test_live_validation_answers_200_with_the_error_placed_at_the_field(
    alice_client, replica_draft, htmx_headers
):
    field, response = _validate_expression(
        alice_client, replica_draft, htmx_headers, "object.spec.replicas <= params.maxReplicas)"
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert f'data-for="{field}"' in html
    assert "Syntax error: extraneous input" in html
    assert "1 error" in html
    # Nothing is saved by validating.
    replica_draft.refresh_from_db()
    assert replica_draft.revision == 1


def test_live_validation_of_a_valid_draft_says_valid_for_the_target_version(
    alice_client, replica_draft, htmx_headers
):
    data = draft_form(alice_client, replica_draft)
    data["kubernetes_version"] = "1.34"
    response = live_validate(alice_client, replica_draft, data, htmx_headers)
    assert "valid for Kubernetes 1.34" in _badge_text(response.content.decode())


def test_changing_the_target_version_flags_what_that_version_lacks(
    alice_client, map_draft, htmx_headers
):
    data = draft_form(alice_client, map_draft)
    data["kubernetes_version"] = "1.33"
    response = live_validate(alice_client, map_draft, data, htmx_headers)
    assert b"requires Kubernetes 1.36" in response.content
    assert b"2 errors" in response.content


def test_live_validation_of_garbage_posts_is_200_not_a_crash(alice_client, replica_draft):
    url = reverse("editor:draft_validate", args=[replica_draft.pk])
    response = alice_client.post(
        url, {"docs": ["d1"], "d1:json": "{not json", "kubernetes_version": "9.9"}
    )
    assert response.status_code == 200
    response = alice_client.post(url, {"docs": ["d1"], "d1:yaml": "- a\n- b"})
    assert response.status_code == 200
    assert b"expected an object" in response.content


def test_a_new_row_comes_back_as_a_fragment_and_unknown_lists_are_404(alice_client):
    url = reverse("editor:row")
    response = alice_client.get(
        url,
        {
            "kind": "ValidatingAdmissionPolicy",
            "key": "spec.validations",
            "name": "dx.spec.validations",
        },
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'name="dx.spec.validations:rows"' in html
    assert 'data-context="validation"' in html
    nested = alice_client.get(
        url,
        {
            "kind": "ValidatingAdmissionPolicy",
            "key": "spec.matchConstraints.namespaceSelector/matchExpressions",
            "name": "dx.spec.matchConstraints.namespaceSelector.matchExpressions",
        },
    )
    assert nested.status_code == 200 and b"DoesNotExist" in nested.content
    assert alice_client.get(url, {"kind": "Pod", "key": "spec", "name": "x"}).status_code == 404


def test_yaml_mode_rebuilds_the_form_and_bad_yaml_leaves_the_form_alone(
    alice_client, replica_draft, htmx_headers
):
    url = reverse("editor:draft_form", args=[replica_draft.pk])
    text = get_starter("deny-latest-tag").text
    response = alice_client.post(url, {"yaml": text}, headers=htmx_headers)
    assert response.status_code == 200
    assert b"deny-latest-tag.example.com" in response.content
    bad = alice_client.post(url, {"yaml": "kind: [oops"}, headers=htmx_headers)
    assert bad.status_code == 200
    assert bad["HX-Reswap"] == "none"
    assert b"yaml-problem" in bad.content and b"line" in bad.content


def test_restoring_browser_state_rebuilds_the_form_from_documents_json(alice_client, replica_draft):
    url = reverse("editor:draft_form", args=[replica_draft.pk])
    docs = get_starter("require-labels").documents()
    response = alice_client.post(url, {"documents": json.dumps(docs)})
    assert b"require-owner-label.example.com" in response.content
    bad = alice_client.post(url, {"documents": '"a string"'})
    assert bad["HX-Reswap"] == "none"


def test_adding_a_binding_or_param_document_returns_its_section(alice_client, replica_draft):
    url = reverse("editor:draft_add_document", args=[replica_draft.pk])
    binding = alice_client.post(url, {"what": "binding"})
    assert b"ValidatingAdmissionPolicyBinding" in binding.content
    assert b"demo-policy.example.com" in binding.content
    params = alice_client.post(url, {"what": "params"})
    assert b"ReplicaLimit" in params.content
    assert alice_client.post(url, {"what": "nonsense"}).status_code == 400


def test_saving_over_htmx_creates_a_revision_and_triggers_saved(
    alice_client, replica_draft, htmx_headers
):
    data = draft_form(alice_client, replica_draft)
    data[expression_field(data)] = "object.spec.replicas <= params.maxReplicas + 1"
    data["note"] = "allow one more"
    response = alice_client.post(
        reverse("editor:draft_save", args=[replica_draft.pk]), postable(data), headers=htmx_headers
    )
    assert response.status_code == 200
    assert b"Saved revision 2" in response.content
    # django_htmx's trigger_client_event writes the event as JSON: {"editor:saved": {}}.
    assert json.loads(response["HX-Trigger"]) == {"editor:saved": {}}
    replica_draft.refresh_from_db()
    assert replica_draft.revision == 2
    expected = get_starter("replica-limit").documents()
    expected[0]["spec"]["validations"][0]["expression"] = (
        "object.spec.replicas <= params.maxReplicas + 1"
    )
    assert replica_draft.documents == expected


def test_a_stale_save_is_refused_with_a_clear_message_and_overwrites_nothing(
    alice_client, alice, replica_draft, htmx_headers
):
    data = draft_form(alice_client, replica_draft)
    other = get_starter("replica-limit").documents()
    other[0]["spec"]["failurePolicy"] = "Ignore"
    save_draft(replica_draft, other, expected_revision=1, author=alice, note="elsewhere")
    data[expression_field(data)] = "false"
    url = reverse("editor:draft_save", args=[replica_draft.pk])
    response = alice_client.post(url, postable(data), headers=htmx_headers)
    assert response.status_code == 200
    assert b"saved as revision 2 while you were editing revision 1" in response.content
    plain = alice_client.post(url, postable(data))
    assert plain.status_code == 409
    assert b"false" in plain.content  # the user's edit is still in the re-rendered form
    replica_draft.refresh_from_db()
    assert replica_draft.documents == other


def test_a_plain_form_save_redirects_back_to_the_editor(alice_client, replica_draft):
    data = draft_form(alice_client, replica_draft)
    yaml_field = next(k for k in data if k.endswith(":yaml") and "maxReplicas: 3" in data[k])
    data[yaml_field] = data[yaml_field].replace("maxReplicas: 3", "maxReplicas: 4")
    response = alice_client.post(
        reverse("editor:draft_save", args=[replica_draft.pk]), postable(data)
    )
    assert response.status_code == 302
    assert Draft.objects.get(pk=replica_draft.pk).revision == 2


def test_a_plain_form_save_of_nothing_new_redirects_and_stores_no_revision(
    alice_client, replica_draft
):
    data = draft_form(alice_client, replica_draft)
    response = alice_client.post(
        reverse("editor:draft_save", args=[replica_draft.pk]), postable(data), follow=True
    )
    assert "No changes to save: revision 1 is kept as it is." in response.content.decode()
    assert Draft.objects.get(pk=replica_draft.pk).revision == 1


def test_a_save_with_unreadable_yaml_is_refused(alice_client, replica_draft, htmx_headers):
    data = draft_form(alice_client, replica_draft)
    yaml_field = next(k for k in data if k.endswith(":yaml"))
    data[yaml_field] = "maxReplicas: [3"
    response = alice_client.post(
        reverse("editor:draft_save", args=[replica_draft.pk]), postable(data), headers=htmx_headers
    )
    assert b"Not saved" in response.content
    assert Draft.objects.get(pk=replica_draft.pk).revision == 1


@pytest.mark.parametrize(
    ("part", "kinds"),
    [
        ("all", ["ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ReplicaLimit"]),
        ("policy", ["ValidatingAdmissionPolicy"]),
        ("bindings", ["ValidatingAdmissionPolicyBinding"]),
        ("params", ["ReplicaLimit"]),
    ],
)
def test_export_downloads_the_saved_documents_or_a_part(alice_client, replica_draft, part, kinds):
    from policyeditor.engine.manifests.loading import load_documents

    response = alice_client.get(
        reverse("editor:draft_export", args=[replica_draft.pk]), {"part": part}
    )
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/yaml")
    assert "attachment" in response["Content-Disposition"]
    assert [d["kind"] for d in load_documents(response.content)] == kinds


def test_export_raw_is_inline_and_a_bad_part_is_400(alice_client, replica_draft):
    url = reverse("editor:draft_export", args=[replica_draft.pk])
    assert "Content-Disposition" not in alice_client.get(url, {"raw": "1"})
    assert alice_client.get(url, {"part": "secrets"}).status_code == 400


def test_the_export_menu_shows_a_curl_line_with_the_token_authenticated_raw_url(
    alice_client, replica_draft
):
    html = alice_client.get(replica_draft.get_absolute_url()).content.decode()
    assert 'curl -fsS -H "Authorization: Token $TOKEN" http://testserver/api/v1/drafts/' in html
    assert f"/api/v1/drafts/{replica_draft.pk}/export.yaml | kubectl apply -f -" in html


def test_a_read_only_viewer_sees_the_draft_but_cannot_save(client, bob_viewer, replica_draft):
    client.force_login(bob_viewer)
    page = client.get(replica_draft.get_absolute_url())
    assert page.status_code == 200
    assert b"your role does not let you save it" in page.content
    data = form_data(page.content.decode())
    response = client.post(reverse("editor:draft_save", args=[replica_draft.pk]), postable(data))
    assert response.status_code == 403
    assert Draft.objects.get(pk=replica_draft.pk).revision == 1


def test_type_check_warnings_are_shown_at_the_field_without_blocking(
    alice_client, replica_draft, htmx_headers
):
    field, response = _validate_expression(
        alice_client, replica_draft, htmx_headers, "object.spec.replicaz <= params.maxReplicas"
    )
    html = response.content.decode()
    assert f'data-for="{field}" data-level="warning"' in html
    assert "undefined field &#x27;replicaz&#x27;" in html
    # Valid, and honest about the warning; the warning says what it means when the policy runs.
    assert _badge_text(html) == "valid for Kubernetes 1.37, 1 warning"
    assert "This expression will fail at runtime" in html
