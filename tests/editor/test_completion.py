"""Tests for CEL completion: roots, request fields, variables and schema fields."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.editor.completion import complete, matched_gvk
from policyeditor.editor.starters import get_starter

pytestmark = pytest.mark.django_db


def _labels(items):
    return [item["label"] for item in items]


def test_object_spec_offers_the_fields_of_the_matched_resource():
    labels = _labels(complete("object.spec", gvk=("apps", "v1", "Deployment")))
    assert {"replicas", "template", "selector"} <= set(labels)


def test_list_fields_step_into_their_elements():
    labels = _labels(complete("object.spec.containers[0]", gvk=("", "v1", "Pod")))
    assert "image" in labels and "securityContext" in labels
    assert _labels(complete("object.spec.containers", gvk=("", "v1", "Pod"))) == labels


def test_roots_request_and_variables_are_offered():
    assert {"object", "oldObject", "params", "request", "variables"} <= set(_labels(complete("")))
    assert "userInfo" in _labels(complete("request"))
    assert _labels(complete("request.userInfo")) == ["username", "uid", "groups", "extra"]
    assert _labels(complete("variables", variables=("allContainers",))) == ["allContainers"]


def test_unknown_or_malformed_paths_offer_nothing():
    assert complete("c") == []
    assert complete("object.spec) ||") == []
    assert complete("object.nope.deeper") == []


def test_the_matched_kind_comes_from_the_first_resource_rule():
    assert matched_gvk(get_starter("deny-privileged").documents()) == ("", "v1", "Pod")
    assert matched_gvk(get_starter("replica-limit").documents()) == ("apps", "v1", "Deployment")


def test_the_completion_endpoint_answers_json_and_rejects_bad_input(alice_client):
    url = reverse("editor:cel_complete")
    response = alice_client.get(url, {"path": "object.spec", "gvk": "v1/Pod", "version": "1.34"})
    assert response.status_code == 200
    assert "containers" in _labels(response.json()["items"])
    assert alice_client.get(url, {"version": "2.0"}).status_code == 400
    assert alice_client.get(url, {"gvk": "a/b/c/d"}).status_code == 400
