"""The editor's Tests tab: saved cases run on the unsaved form, and Try-it inputs saved as cases."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.editor.models import Draft
from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter
from policyeditor.review import testcases
from policyeditor.review.models import SavedTestCase
from tests.builders import deployment
from tests.builders import replica_limit as policy
from tests.editor.formhtml import form_data, postable

pytestmark = pytest.mark.django_db

DEPLOYMENT = deployment(replicas=6)
DEPLOYMENT_YAML = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
    "spec: {replicas: %d}\n"
)


@pytest.fixture
def draft(alice):
    """alice's personal draft limiting replicas to 5, with two saved cases."""
    draft = create_draft(alice, [policy(5)], name="replica-limit")
    six = {"name": "six-denied", "object": DEPLOYMENT, "expect": {"result": "deny"}}
    four = {
        "name": "four-allowed",
        "object": {**DEPLOYMENT, "spec": {"replicas": 4}},
        "expect": {"result": "allow"},
    }
    testcases.save_case(alice, draft, six)
    testcases.save_case(alice, draft, four)
    return draft


def _form(client, draft, **fields) -> dict:
    data = postable(form_data(client.get(draft.get_absolute_url()).content.decode()))
    for key, value in fields.items():
        data[key] = [value]
    return data


def _expression_key(data) -> str:
    return next(k for k in data if ".spec.validations." in k and k.endswith(".expression"))


def _tests(client, draft, data):
    return client.post(
        reverse("editor:draft_tests", args=[draft.pk]), data, headers={"HX-Request": "true"}
    )


def test_the_editor_page_has_a_tests_tab_that_loads_with_the_preview(alice_client, draft):
    html = alice_client.get(draft.get_absolute_url()).content.decode()
    assert 'id="tab-tests"' in html and 'id="panel-tests"' in html
    assert reverse("editor:draft_tests", args=[draft.pk]) in html
    assert "editor:validated from:body" in html.split('id="tests-form"')[1].split(">")[0]


def test_saved_cases_pass_on_the_form_as_saved(alice_client, draft):
    response = _tests(alice_client, draft, _form(alice_client, draft))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<strong>2/2</strong>" in html
    assert '<span id="tests-tab-label" hx-swap-oob="true">Tests 2/2</span>' in html
    assert 'data-case="six-denied" data-passed="true"' in html


def test_an_unsaved_edit_that_breaks_a_case_shows_it_failing_and_saves_nothing(alice_client, draft):
    data = _form(alice_client, draft)
    data[_expression_key(data)] = ["object.spec.replicas <= 10"]
    html = _tests(alice_client, draft, data).content.decode()
    assert "<strong>1/2</strong>" in html and "Tests 1/2" in html
    assert 'data-case="six-denied" data-passed="false"' in html
    assert "expected result deny, got allow" in html
    assert Draft.objects.get(pk=draft.pk).revision == 1


def test_a_form_that_cannot_be_read_is_reported_not_run(alice_client, draft):
    data = _form(alice_client, draft)
    yaml_key = next((k for k in data if k.endswith(":yaml")), None)
    data = {"docs": ["d1"], "d1:yaml": ["kind: [unclosed"]} if yaml_key is None else data
    if yaml_key is not None:
        data[yaml_key] = ["kind: [unclosed"]
    response = _tests(alice_client, draft, data)
    assert response.status_code == 200
    assert "Not run:" in response.content.decode()


def test_a_draft_without_cases_says_how_to_add_one(alice_client, alice):
    draft = create_draft(alice, [policy(5)], name="empty")
    html = _tests(alice_client, draft, _form(alice_client, draft)).content.decode()
    assert 'id="tests-empty"' in html and "Tests</span>" in html


def test_try_it_inputs_and_their_outcome_are_saved_as_a_case_that_then_passes(alice_client, alice):
    draft = create_draft(alice, [policy(5)], name="fresh")
    data = _form(alice_client, draft, try_object=DEPLOYMENT_YAML % 7, case_name="seven denied")
    data.update(try_username=["alice"], try_groups=["dev, ops"])
    response = alice_client.post(
        reverse("editor:draft_test_save", args=[draft.pk]), data, headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert "Saved test case &#x27;seven denied&#x27; (expects deny)." in html
    saved = SavedTestCase.objects.get(draft=draft)
    assert saved.case["object"]["spec"]["replicas"] == 7
    assert saved.case["userInfo"] == {"username": "alice", "groups": ["dev", "ops"]}
    assert saved.case["expect"]["result"] == "deny"
    assert "must be at most 5" in saved.case["expect"]["messages"][0]
    assert "<strong>1/1</strong>" in html
    # The review app runs the same case on the saved revision with the same result.
    runs = testcases.run_cases(draft.revisions.get(number=1), [saved.case])
    assert [run.passed for run in runs] == [True]


def test_saving_a_case_needs_a_name_and_an_object(alice_client, alice):
    draft = create_draft(alice, [policy(5)], name="fresh")
    url = reverse("editor:draft_test_save", args=[draft.pk])
    nameless = _form(alice_client, draft, try_object=DEPLOYMENT_YAML % 7, case_name="  ")
    html = alice_client.post(url, nameless, headers={"HX-Request": "true"}).content.decode()
    assert "Not saved: Give the test case a name." in html
    empty = _form(alice_client, draft, try_object="", case_name="x")
    html = alice_client.post(url, empty, headers={"HX-Request": "true"}).content.decode()
    assert "Not saved: Paste an object" in html
    assert not SavedTestCase.objects.filter(draft=draft).exists()


def test_someone_elses_draft_has_no_tests_endpoints(client, bob, draft):
    client.force_login(bob)
    for name in ("editor:draft_tests", "editor:draft_test_save"):
        assert client.post(reverse(name, args=[draft.pk]), {}).status_code == 404


def test_a_case_saved_from_try_it_on_a_policy_with_params_and_a_namespace_selector_passes(
    alice_client, alice
):
    # The binding resolves a ReplicaLimit param of the draft and selects environment=test
    # namespaces: the saved case must keep both the namespace and the params it was tried with.
    draft = create_draft(alice, get_starter("replica-limit").documents(), name="with-params")
    data = _form(alice_client, draft, try_object=DEPLOYMENT_YAML % 7, case_name="seven denied")
    data["try_namespace_object"] = [
        "apiVersion: v1\nkind: Namespace\nmetadata: {name: default, labels: {environment: test}}\n"
    ]
    response = alice_client.post(
        reverse("editor:draft_test_save", args=[draft.pk]), data, headers={"HX-Request": "true"}
    )
    html = response.content.decode()
    assert "(expects deny)" in html
    assert "<strong>1/1</strong>" in html, html
    saved = SavedTestCase.objects.get(draft=draft)
    runs = testcases.run_cases(draft.revisions.get(number=1), [saved.case])
    assert [run.passed for run in runs] == [True]


def test_a_case_saved_with_defaulting_skipped_keeps_it_skipped_and_passes(alice_client, alice):
    draft = create_draft(alice, [policy(5)], name="as-pasted")
    unset = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: default}\n"
    data = _form(
        alice_client, draft, try_object=unset, case_name="as pasted", try_no_defaulting="on"
    )
    response = alice_client.post(
        reverse("editor:draft_test_save", args=[draft.pk]), data, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    saved = SavedTestCase.objects.get(draft=draft)
    assert saved.case["defaulting"] is False
    assert saved.case["expect"]["result"] != "allow"  # no replicas to read without defaulting
    runs = testcases.run_cases(draft.revisions.get(number=1), [saved.case])
    assert [run.passed for run in runs] == [True]


def test_the_tests_tab_shows_coverage_per_policy_and_binding(alice_client, draft):
    html = _tests(alice_client, draft, _form(alice_client, draft)).content.decode()
    section = html.split('id="tests-coverage"', 1)[1]
    assert "<h3" in section and "Coverage" in section
    assert '<span class="coverage-percent">100.0%</span>' in section
    # Both saved cases went through the validation: one true, one false.
    row = section.split('data-item="validations[0]"', 1)[1].split("</tr>", 1)[0]
    assert "false 1, true 1" in row or "true 1, false 1" in row


def test_a_case_allowed_because_nothing_matched_is_marked_vacuous(alice_client, alice, draft):
    configmap = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}}
    case = {"name": "configmap-allowed", "object": configmap, "expect": {"allowed": True}}
    testcases.save_case(alice, draft, case)
    html = _tests(alice_client, draft, _form(alice_client, draft)).content.decode()
    assert 'data-case="configmap-allowed" data-passed="true" data-vacuous="true"' in html
    assert "Passed vacuously: allowed: no policy matched the request" in html
    assert '<span class="pill pill-warn" id="tests-vacuous-count">1 vacuous</span>' in html
