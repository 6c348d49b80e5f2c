"""A team's schema library: atomic imports kept as versions, and the editor using the newest."""

from __future__ import annotations

import html
import json

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from policyeditor.editor.services import create_draft
from policyeditor.schemalib import services
from policyeditor.schemalib.models import LibraryVersion
from tests.crd_cases import BY_ID
from tests.editor.formhtml import form_data, postable

pytestmark = pytest.mark.django_db


def _text(case_id: str) -> str:
    return BY_ID[case_id].path.read_text()


def _url(team) -> str:
    return reverse("schemalib:library", args=[team.pk])


def test_an_import_is_kept_as_a_version_and_a_later_one_adds_to_it(team, alice):
    first = services.import_crds(team, alice, _text("certificate"))
    second = services.import_crds(team, alice, _text("gateway"))
    assert (first.number, second.number) == (1, 2)
    assert [c["kind"] for c in second.summary] == ["Certificate", "Gateway"]
    assert second.note == "1 added, 0 replaced"
    assert [c["kind"] for c in LibraryVersion.objects.get(pk=first.pk).summary] == ["Certificate"]
    third = services.import_crds(team, alice, _text("certificate"))
    assert third.note == "0 added, 1 replaced" and len(third.documents) == 2


def test_a_kubectl_dump_is_imported_item_by_item(team, alice):
    dump = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [
            *yaml.safe_load_all(_text("constrainttemplate")),
            yaml.safe_load(_text("rollout")),
        ],
    }
    version = services.import_crds(team, alice, yaml.safe_dump(dump))
    assert sorted(c["kind"] for c in version.summary) == [
        "ConstraintTemplate",
        "Provider",
        "Rollout",
    ]


def test_a_bad_crd_in_an_import_stores_nothing(team, alice):
    services.import_crds(team, alice, _text("certificate"))
    broken = yaml.safe_load(_text("prometheusrule"))
    del broken["spec"]["versions"][0]["schema"]
    text = _text("gateway") + "\n---\n" + yaml.safe_dump(broken)
    with pytest.raises(services.ImportRefused, match="schemas are required"):
        services.import_crds(team, alice, text)
    assert LibraryVersion.objects.filter(team=team).count() == 1


def test_a_crd_conflicting_with_the_library_is_refused(team, alice):
    services.import_crds(team, alice, _text("certificate"))
    other = yaml.safe_load(_text("certificate"))
    other["metadata"]["name"] = "certs.cert-manager.io"
    other["spec"]["names"]["plural"] = "certs"
    with pytest.raises(services.ImportRefused, match='"Certificate" is already in use'):
        services.import_crds(team, alice, yaml.safe_dump(other))
    assert LibraryVersion.objects.filter(team=team).count() == 1


def test_the_page_imports_pasted_crds_for_an_author(client, team, alice):
    client.force_login(alice)
    response = client.post(_url(team), {"text": _text("prometheusrule")})
    assert response.status_code == 200
    body = response.content.decode()
    assert (
        "Imported as version 1" in body and "PrometheusRule" in body and "prometheusrules" in body
    )


def test_the_page_imports_an_uploaded_file(client, team, alice):
    client.force_login(alice)
    upload = SimpleUploadedFile("gw.yaml", _text("gateway").encode(), "application/yaml")
    response = client.post(_url(team), {"file": upload})
    assert response.status_code == 200
    assert "v1, v1beta1 (v1)" in response.content.decode()


def test_a_viewer_cannot_import(client, team, carol):
    client.force_login(carol)
    response = client.post(_url(team), {"text": _text("prometheusrule")})
    assert response.status_code == 403
    assert not LibraryVersion.objects.exists()


def test_a_bad_import_is_a_clear_400_and_stores_nothing(client, team, alice):
    client.force_login(alice)
    response = client.post(_url(team), {"text": "kind: [unclosed"})
    assert response.status_code == 400
    assert "yaml" in response.content.decode().lower()
    big = SimpleUploadedFile("big.yaml", b"#" * (5 * 1024 * 1024), "application/yaml")
    response = client.post(_url(team), {"file": big})
    assert response.status_code == 413  # the 3 MiB body limit answers before the view
    assert "3 MiB" in response.content.decode()
    assert not LibraryVersion.objects.exists()


def test_someone_outside_the_team_gets_a_404(client, team, make_user):
    client.force_login(make_user("eve"))
    assert client.get(_url(team)).status_code == 404


@pytest.fixture
def team_draft(team, alice):
    """A draft of team-a with a Certificate policy (needs the review app for team drafts)."""
    from policyeditor.editor import extensions

    if extensions.review() is None:
        pytest.skip("draft teams come from the review app")
    from policyeditor.review.models import DraftWorkflow

    case = BY_ID["certificate"]
    draft = create_draft(alice, [case.vap(case.valid, case.typo)])
    DraftWorkflow.objects.create(draft=draft, team=team)
    return draft


def test_live_validation_of_a_team_draft_warns_with_the_library(client, team_draft, team, alice):
    client.force_login(alice)
    url = reverse("editor:draft_validate", args=[team_draft.pk])
    data = postable(form_data(client.get(team_draft.get_absolute_url()).content.decode()))
    before = client.post(url, data, headers={"HX-Request": "true"})
    assert "undefined field" not in before.content.decode()
    services.import_crds(team, alice, _text("certificate"))
    after = client.post(url, data, headers={"HX-Request": "true"})
    assert "undefined field &#x27;secretNme&#x27;" in after.content.decode()


def test_completion_offers_crd_fields_for_a_team_draft(client, team_draft, team, alice):
    services.import_crds(team, alice, _text("certificate"))
    client.force_login(alice)
    query = {
        "path": "object.spec",
        "gvk": "cert-manager.io/v1/Certificate",
        "draft": team_draft.pk,
    }
    items = json.loads(client.get(reverse("editor:cel_complete"), query).content)["items"]
    assert "secretName" in {i["label"] for i in items}
    params = {**query, "path": "params.spec", "params": "cert-manager.io/v1/Certificate"}
    items = json.loads(client.get(reverse("editor:cel_complete"), params).content)["items"]
    assert "issuerRef" in {i["label"] for i in items}
    query.pop("draft")
    items = json.loads(client.get(reverse("editor:cel_complete"), query).content)["items"]
    assert items == []  # without the library the kind is unknown


def test_a_personal_draft_pins_its_own_crds_and_warns_with_them(client, alice):
    case = BY_ID["prometheusrule"]
    draft = create_draft(alice, [case.vap(case.typo)])
    client.force_login(alice)
    url = reverse("editor:draft_crds", args=[draft.pk])
    assert "uses no CRDs" in client.get(url).content.decode()
    response = client.post(url, {"action": "pin", "text": _text("prometheusrule")})
    assert response.status_code == 200 and "pins its own CRDs" in response.content.decode()
    validate = reverse("editor:draft_validate", args=[draft.pk])
    data = postable(form_data(client.get(draft.get_absolute_url()).content.decode()))
    after = client.post(validate, data, headers={"HX-Request": "true"})
    assert "undefined field &#x27;grups&#x27;" in after.content.decode()
    client.post(url, {"action": "unpin"})
    again = client.post(validate, data, headers={"HX-Request": "true"})
    assert "undefined field" not in again.content.decode()


def test_a_pin_overrides_the_team_library_and_a_bad_pin_keeps_the_old_one(
    client, team_draft, team, alice
):
    services.import_crds(team, alice, _text("certificate"))
    client.force_login(alice)
    url = reverse("editor:draft_crds", args=[team_draft.pk])
    assert "uses version 1 of its team" in client.get(url).content.decode()
    client.post(url, {"action": "pin", "text": _text("gateway")})
    page = client.get(url).content.decode()
    assert "instead of version 1" in page and "Gateway" in page and "Certificate" not in page
    bad = _text("certificate").replace("scope: Namespaced", "scope: Global")
    response = client.post(url, {"action": "pin", "text": bad})
    assert response.status_code == 400
    assert 'spec.scope: Unsupported value: "Global"' in html.unescape(response.content.decode())
    assert "Gateway" in client.get(url).content.decode()


def test_a_viewer_cannot_pin(client, team_draft, carol):
    client.force_login(carol)
    url = reverse("editor:draft_crds", args=[team_draft.pk])
    response = client.post(url, {"action": "pin", "text": _text("gateway")})
    assert response.status_code == 403


def test_try_it_validates_a_cr_against_the_library_first(client, team_draft, team, alice):
    services.import_crds(team, alice, _text("certificate"))
    client.force_login(alice)
    case = BY_ID["certificate"]
    bad = case.object("web")
    bad["spec"]["dnsNames"] = "web.example.com"
    payload = postable(form_data(client.get(team_draft.get_absolute_url()).content.decode()))
    payload["try_object"] = [yaml.safe_dump(bad)]
    response = client.post(
        reverse("editor:draft_try", args=[team_draft.pk]), payload, headers={"HX-Request": "true"}
    )
    text = html.unescape(response.content.decode())
    assert "HTTP 422" in text
    assert 'Certificate.cert-manager.io "web" is invalid' in text
    assert 'spec.dnsNames in body must be of type array: "string"' in text
