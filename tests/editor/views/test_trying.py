"""View tests for the Try-it endpoint."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.editor.formhtml import form_data, postable

pytestmark = pytest.mark.django_db

DEPLOYMENT = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
    "spec: {replicas: %d}\n"
)
NAMESPACE = (
    "apiVersion: v1\nkind: Namespace\nmetadata: {name: default, labels: {environment: test}}\n"
)


def _try(client, draft, **fields):
    data = form_data(client.get(draft.get_absolute_url()).content.decode())
    payload = postable(data)
    payload.update({key: [value] for key, value in fields.items()})
    return client.post(
        reverse("editor:draft_try", args=[draft.pk]), payload, headers={"HX-Request": "true"}
    )


def test_a_denied_object_shows_the_decision_status_and_kubectl_message(alice_client, replica_draft):
    response = _try(
        alice_client, replica_draft, try_object=DEPLOYMENT % 7, try_namespace_object=NAMESPACE
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "denied" in html and "HTTP 422" in html
    assert "Error from server (Invalid): deployments.apps &quot;web&quot; is forbidden" in html
    assert "object.spec.replicas must be no greater than 3" in html


def test_an_allowed_object_and_a_skipped_one_say_so(alice_client, replica_draft):
    allowed = _try(
        alice_client, replica_draft, try_object=DEPLOYMENT % 2, try_namespace_object=NAMESPACE
    )
    assert b">allowed<" in allowed.content
    skipped = _try(alice_client, replica_draft, try_object=DEPLOYMENT % 9, try_namespace_object="")
    assert b"skipped" in skipped.content
    assert b"namespaceSelector" in skipped.content


def test_inline_params_override_the_param_reference(alice_client, replica_draft):
    response = _try(
        alice_client,
        replica_draft,
        try_object=DEPLOYMENT % 7,
        try_namespace_object=NAMESPACE,
        try_params="apiVersion: rules.example.com/v1\nkind: ReplicaLimit\nmetadata: {name: p}\nmaxReplicas: 10\n",
    )
    assert b">allowed<" in response.content


def test_a_map_shows_the_mutated_object_and_a_diff(alice_client, map_draft):
    response = _try(
        alice_client,
        map_draft,
        try_object="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n",
    )
    html = response.content.decode()
    assert 'class="diff-add"' in html
    assert "app.kubernetes.io/managed-by: policyeditor" in html


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"try_object": ""}, b"Paste an object"),
        ({"try_object": "kind: [oops"}, b"object: document 1: line"),
        ({"try_object": "a: 1\n---\nb: 2\n"}, b"expected exactly one object"),
        ({"try_object": DEPLOYMENT % 1, "try_operation": "PATCH"}, b"Unsupported value"),
        ({"try_object": DEPLOYMENT % 1, "try_authorizer": "- {decision: maybe}"}, b"authorizer"),
    ],
)
def test_bad_try_inputs_are_explained_with_200(alice_client, replica_draft, fields, message):
    response = _try(alice_client, replica_draft, **fields)
    assert response.status_code == 200
    assert message in response.content


UNSET_REPLICAS = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
    "spec: {template: {spec: {containers: [{name: web, image: nginx}]}}}\n"
)


def test_try_it_defaults_the_object_and_lists_what_it_filled_in(alice_client, replica_draft):
    response = _try(
        alice_client, replica_draft, try_object=UNSET_REPLICAS, try_namespace_object=NAMESPACE
    )
    html = response.content.decode()
    assert ">allowed<" in html  # spec.replicas defaulted to 1
    assert "Defaulted by the API server before admission" in html
    assert "<code>spec.replicas</code>" in html


def test_the_skip_defaulting_box_evaluates_the_object_as_pasted(alice_client, replica_draft):
    response = _try(
        alice_client,
        replica_draft,
        try_object=UNSET_REPLICAS,
        try_namespace_object=NAMESPACE,
        try_no_defaulting="on",
    )
    html = response.content.decode()
    assert ">denied<" in html
    assert "no such key: replicas" in html
    assert "Defaulting skipped" in html


def test_the_form_offers_the_skip_defaulting_box(alice_client, replica_draft):
    page = alice_client.get(replica_draft.get_absolute_url()).content.decode()
    assert 'name="try_no_defaulting"' in page


def test_the_authorizer_is_bound_with_no_mocked_decision_when_none_is_given(
    alice, alice_client, replica_draft
):
    from policyeditor.editor.services import save_draft

    documents = [dict(d) for d in replica_draft.documents]
    policy = next(d for d in documents if d["kind"] == "ValidatingAdmissionPolicy")
    check = "authorizer.group('apps').resource('deployments').check('create').allowed()"
    policy["spec"] = {**policy["spec"], "validations": [{"expression": check}]}
    save_draft(replica_draft, documents, expected_revision=replica_draft.revision, author=alice)
    replica_draft.refresh_from_db()
    html = _try(
        alice_client, replica_draft, try_object=DEPLOYMENT % 1, try_namespace_object=NAMESPACE
    ).content.decode()
    # NoOpinion, as `policyeditor eval` and impact answer: denied, not an unbound variable.
    assert "denied" in html and "no such attribute" not in html
    assert f"failed expression: {check}".replace("'", "&#x27;") in html
