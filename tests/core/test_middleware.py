"""Bodies over 3 MiB: a friendly 413 page for the UI; the API keeps its own problem JSON."""

from __future__ import annotations

import pytest
from django.core.exceptions import RequestDataTooBig
from django.test import Client, RequestFactory

from policyeditor.api.models import ApiToken
from policyeditor.core.middleware import BodySizeLimitMiddleware, body_limit
from policyeditor.editor.models import Draft
from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter

pytestmark = pytest.mark.django_db

LIMIT = 3 * 1024 * 1024
FORM = "application/x-www-form-urlencoded"


@pytest.fixture
def csrf_client(alice) -> Client:
    """A client that, like a browser, goes through the CSRF check (which reads the form body)."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    return client


@pytest.fixture
def draft(alice) -> Draft:
    return create_draft(alice, get_starter("replica-limit").documents())


def test_the_limit_is_the_api_servers_3_mib():
    assert body_limit() == LIMIT


def test_a_form_post_over_the_limit_gets_a_413_page_not_a_bare_400(csrf_client, draft):
    body = "x=" + "a" * LIMIT
    response = csrf_client.post(f"/drafts/{draft.pk}/validate/", body, content_type=FORM)
    assert response.status_code == 413
    html = response.content.decode()
    assert "Request too large" in html
    assert "larger than 3 MiB (3.0 MiB)" in html
    assert "Nothing was saved" in html
    assert "<html" in html


def test_an_htmx_post_over_the_limit_gets_the_message_alone(csrf_client, draft):
    body = "x=" + "a" * LIMIT
    response = csrf_client.post(
        f"/drafts/{draft.pk}/save/", body, content_type=FORM, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 413
    html = response.content.decode()
    assert "<html" not in html
    assert 'role="alert"' in html and "larger than 3 MiB" in html


def test_a_refused_save_leaves_the_draft_unchanged(csrf_client, draft):
    before = (draft.revision, draft.documents)
    csrf_client.post(f"/drafts/{draft.pk}/save/", "x=" + "a" * (2 * LIMIT), content_type=FORM)
    draft.refresh_from_db()
    assert (draft.revision, draft.documents) == before


def test_a_multipart_upload_over_the_limit_is_refused_before_it_is_read(csrf_client):
    response = csrf_client.post("/drafts/import/", {"file": "a" * (LIMIT + 1)})
    assert response.status_code == 413


def test_the_sign_in_page_refuses_a_huge_body_with_the_413_too(client):
    response = client.post("/login/", "username=" + "a" * LIMIT, content_type=FORM)
    assert response.status_code == 413


@pytest.mark.django_db
def test_the_413_is_a_valid_wsgi_answer_so_the_development_server_sends_it():
    # `make run` serves with runserver, whose WSGI handler (wsgiref's, as here) refuses
    # hop-by-hop headers from the application: a "Connection: close" on the 413 made it a 500.
    import io
    from wsgiref.handlers import SimpleHandler
    from wsgiref.util import setup_testing_defaults

    from django.core.wsgi import get_wsgi_application

    body = b"username=" + b"a" * LIMIT
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": "/login/",
        "CONTENT_TYPE": FORM,
        "CONTENT_LENGTH": str(len(body)),
    }
    setup_testing_defaults(environ)
    out, errors = io.BytesIO(), io.StringIO()
    SimpleHandler(io.BytesIO(body), out, errors, environ).run(get_wsgi_application())
    answer = out.getvalue().decode()
    assert answer.split("\r\n", 1)[0].endswith("413 Request Entity Too Large"), (
        answer[:200],
        errors.getvalue(),
    )
    assert "MiB" in answer


def test_a_body_at_the_limit_is_read_as_usual(csrf_client, draft):
    text = "x="
    response = csrf_client.post(
        f"/drafts/{draft.pk}/validate/", text + "a" * (LIMIT - len(text)), content_type=FORM
    )
    assert response.status_code == 403  # read, then refused by the CSRF check (no token sent)


def test_api_views_keep_their_own_problem_json(alice):
    token = ApiToken.issue(alice, "tests")[1]
    response = Client().post(
        "/api/v1/validate",
        '{"documents": "' + "a" * LIMIT + '"}',
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )
    assert response.status_code == 413
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["detail"] == f"Request entity too large: limit is {LIMIT}"


def test_a_body_read_past_the_limit_by_a_view_becomes_the_413(alice):
    request = RequestFactory().post("/drafts/", "x=1", content_type=FORM)
    request.user = alice
    middleware = BodySizeLimitMiddleware(lambda r: None)
    response = middleware.process_exception(request, RequestDataTooBig("too big"))
    assert response is not None and response.status_code == 413


def test_other_exceptions_are_left_to_django(alice):
    request = RequestFactory().get("/drafts/")
    assert BodySizeLimitMiddleware(lambda r: None).process_exception(request, ValueError()) is None


def test_a_malformed_content_length_is_left_to_the_server(client):
    response = client.get("/login/", CONTENT_LENGTH="many")
    assert response.status_code == 200
