"""Form posts are read as UTF-8: one that declares another charset is a 400, not a 500."""

from __future__ import annotations

import pytest
from django.urls import reverse

from policyeditor.editor.services import create_draft
from policyeditor.editor.starters import get_starter
from policyeditor.review.models import Comment

pytestmark = pytest.mark.django_db


@pytest.fixture
def replica_draft(alice):
    return create_draft(alice, get_starter("replica-limit").documents())


# In utf-7, "+2AA-" is a lone surrogate: no page can show it and no column can store it.
UTF7_BODY = b'--x\r\nContent-Disposition: form-data; name="body"\r\n\r\nx+2AA-\r\n--x--\r\n'


@pytest.mark.parametrize("charset", ["utf-7", "UTF-16", "bogus"])
def test_a_form_declaring_another_charset_is_refused_before_it_is_decoded(
    alice_client, replica_draft, charset
):
    url = reverse("review:comment", args=[replica_draft.pk, 1])
    response = alice_client.generic(
        "POST", url, UTF7_BODY, content_type=f"multipart/form-data; boundary=x; charset={charset}"
    )
    assert response.status_code == 400
    assert response.content.decode() == (
        f"Forms are read as UTF-8; this request declares charset '{charset}'."
    )
    assert not Comment.objects.exists()


@pytest.mark.parametrize("charset", ["", "; charset=utf-8", "; charset=UTF8", "; charset=us-ascii"])
def test_utf8_and_ascii_forms_are_read_as_always(alice_client, replica_draft, charset):
    # (Django itself refuses urlencoded bodies in any charset but utf-8; multipart it decodes.)
    url = reverse("editor:draft_form", args=[replica_draft.pk])
    body = b'--x\r\nContent-Disposition: form-data; name="yaml"\r\n\r\nkind: [oops\r\n--x--\r\n'
    response = alice_client.generic(
        "POST", url, body, content_type="multipart/form-data; boundary=x" + charset
    )
    assert response.status_code == 200
    assert response["HX-Reswap"] == "none"  # the YAML was read, and its problem reported
