"""Body limits and unreadable or unstorable input: 413 over 3 MiB, 400 with the exact reason, 415 otherwise."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from policyeditor.editor.models import Draft
from policyeditor.engine.manifests.loading import MAX_BYTES

pytestmark = pytest.mark.django_db

CEL = "/api/v1/cel"
VALIDATE = "/api/v1/validate"
DRAFTS = "/api/v1/drafts"


def test_a_body_over_3_mib_is_a_413_problem(api):
    body = '{"expression": "' + "a" * MAX_BYTES + '"}'
    response = api.post(VALIDATE, body)
    assert response.status_code == 413
    problem = response.json()
    assert problem["detail"] == f"Request entity too large: limit is {MAX_BYTES}"
    assert problem["limit"] == MAX_BYTES


def test_a_yaml_body_over_3_mib_is_a_413_too(api):
    body = "a: " + "b" * MAX_BYTES
    assert api.post(VALIDATE, body, content_type="application/yaml").status_code == 413


def test_a_body_of_exactly_3_mib_is_read(api):
    text = '{"expression": ""}'
    body = text + " " * (MAX_BYTES - len(text))
    response = api.post(CEL, body)
    assert response.status_code == 400  # read, then refused for the empty expression
    assert response.json()["errors"] == [
        {"path": "expression", "message": "This field may not be blank."}
    ]


def test_invalid_json_is_a_400_naming_line_and_column(api):
    response = api.post(CEL, '{"expression": }')
    assert response.status_code == 400
    problem = response.json()
    assert problem["type"].endswith("/unreadable-input")
    assert problem["line"] == 1 and problem["column"] == 16
    assert problem["detail"] == "<request body>: line 1, column 16: Expecting value"


def test_nan_is_refused_rather_than_echoed(api):
    response = api.post(CEL, '{"expression": "1", "object": {"a": NaN}}')
    assert response.status_code == 400
    assert "not a finite number" in response.json()["detail"]


def test_deeply_nested_json_is_refused_without_a_crash(api):
    response = api.post(CEL, '{"expression": "1", "object": ' + "[" * 5000 + "]" * 5000 + "}")
    assert response.status_code == 400
    assert "nesting deeper than" in response.json()["detail"]


def test_duplicate_keys_are_refused_like_strict_decoding(api):
    response = api.post(CEL, '{"expression": "1", "expression": "2"}')
    assert response.status_code == 400
    assert 'duplicate field "expression"' in response.json()["detail"]


def test_a_body_that_is_not_an_object_is_a_400(api):
    response = api.post(CEL, "[1, 2]")
    assert response.status_code == 400
    assert response.json()["detail"].endswith("expected an object (a mapping) or a list of objects")


def test_two_documents_where_one_object_is_expected_is_a_400(api):
    response = api.post(
        CEL, "expression: '1'\n---\nexpression: '2'\n", content_type="application/yaml"
    )
    assert response.status_code == 400
    assert response.json()["detail"] == "expected one object in the request body, got 2 documents"


def test_an_unsupported_media_type_is_a_415(api):
    response = api.post(CEL, "expression=1", content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert (
        response.json()["detail"]
        == 'Unsupported media type "application/x-www-form-urlencoded" in request.'
    )


def test_invalid_utf8_is_a_400_with_the_byte(api):
    response = api.post(CEL, b'{"expression": "\xff"}')
    assert response.status_code == 400
    assert "not valid UTF-8" in response.json()["detail"]


def test_an_empty_body_reports_the_missing_fields(api):
    response = api.post(CEL, "")
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {"path": "expression", "message": "This field is required."}
    ]


def test_a_wrong_method_is_a_405_problem(api):
    response = api.get(CEL)
    assert response.status_code == 405
    assert response.json()["detail"] == 'Method "GET" not allowed.'


def test_a_number_beyond_float64_is_refused_rather_than_stored_as_infinity(api):
    before = Draft.objects.count()
    response = api.post(DRAFTS, '{"documents": [{"kind": "ConfigMap", "n": 1e400}]}')
    assert response.status_code == 400
    assert (
        response.json()["detail"] == "<request body>: unsupported value 1e400: not a finite number"
    )
    assert Draft.objects.count() == before


@pytest.mark.parametrize(
    "document, where",
    [
        ('{"kind": "ConfigMap", "metadata": {"name": "\\ud800"}}', "documents[0].metadata.name"),
        ('{"kind": "ConfigMap", "data": {"\\udfff": "x"}}', "documents[0].data: a field name"),
    ],
)
def test_an_unpaired_surrogate_is_refused_with_where_it_is(api, document, where):
    before = Draft.objects.count()
    response = api.post(DRAFTS, '{"documents": [' + document + "]}")
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert where in detail and "unpaired UTF-16 surrogate" in detail
    assert Draft.objects.count() == before


def test_a_surrogate_pair_is_one_character_and_welcome(api):
    response = api.post(
        DRAFTS, '{"documents": [{"kind": "ConfigMap", "data": {"a": "\\ud83d\\ude00"}}]}'
    )
    assert response.status_code == 201
    assert response.json()["documents"][0]["data"] == {"a": "\U0001f600"}


@pytest.mark.parametrize("body", [{"kind": 5}, {"kind": ["x"]}, {"kind": None}])
def test_a_document_whose_kind_is_not_a_string_is_stored_and_reported_not_a_500(api, body):
    created = api.post(DRAFTS, {"documents": [body]})
    assert created.status_code == 201
    assert api.get(f"{DRAFTS}/{created.json()['id']}").status_code == 200
    checked = api.post(VALIDATE, {"documents": [body]})
    assert checked.status_code == 200
    assert "could not process" not in checked.content.decode()


@pytest.mark.parametrize("metadata", ["x", [1]])
def test_a_policy_whose_metadata_is_not_a_mapping_is_stored_as_untitled(api, metadata):
    doc = {"kind": "ValidatingAdmissionPolicy", "metadata": metadata}
    created = api.post(DRAFTS, {"documents": [doc]})
    assert created.status_code == 201
    assert Draft.objects.get(pk=created.json()["id"]).name == "untitled"


@pytest.mark.parametrize("tag", ['"\u00b2"', '"' + "9" * 5000 + '"', '"1.5"'])
def test_an_if_match_that_is_not_a_revision_is_a_400(api, draft, tag):
    response = api.put(f"{DRAFTS}/{draft.pk}", {"documents": []}, headers={"If-Match": tag})
    assert response.status_code == 400
    assert response.json()["detail"].startswith("If-Match must be a revision ETag")


@pytest.mark.parametrize("number", ["\u00b2", "9" * 5000])
def test_a_revision_query_that_is_not_a_number_is_a_400(api, draft, number):
    comments = api.get(f"{DRAFTS}/{draft.pk}/comments?revision={quote(number)}")
    assert comments.status_code == 400
    run = api.post(f"{DRAFTS}/{draft.pk}/test-cases/run?revision={quote(number)}")
    assert run.status_code == 400
