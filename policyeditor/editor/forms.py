"""Django forms of the editor: list filters, new draft from scratch, YAML import."""

from __future__ import annotations

import re
from typing import Any

from django import forms

from policyeditor.editor.models import Kind, Status
from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.loading import MAX_BYTES, load_documents
from policyeditor.engine.objects import family
from policyeditor.engine.versions import DEFAULT_VERSION, KUBERNETES_VERSIONS

VERSION_CHOICES = [(v, f"Kubernetes {v}") for v in KUBERNETES_VERSIONS]
SORTS = {
    "-updated": "Recently updated",
    "updated": "Least recently updated",
    "name": "Name A–Z",
    "-name": "Name Z–A",
    "-created": "Newest",
    "created": "Oldest",
}
# metadata.name of a policy is a DNS subdomain (RFC 1123), as the API server requires.
DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


class DraftFilterForm(forms.Form):
    """The drafts list's search box, filters and sort order."""

    q = forms.CharField(required=False, label="Search", max_length=200)
    kind = forms.ChoiceField(required=False, choices=[("", "Any kind"), *Kind.choices])
    status = forms.ChoiceField(required=False, choices=[("", "Any status"), *Status.choices])
    owner = forms.CharField(required=False, label="Owner", max_length=150)
    sort = forms.ChoiceField(required=False, choices=list(SORTS.items()))


class NewDraftForm(forms.Form):
    """A draft from scratch: kind, policy name and target version."""

    kind = forms.ChoiceField(choices=Kind.choices, initial=Kind.VAP, widget=forms.RadioSelect)
    name = forms.CharField(
        max_length=253,
        label="Policy name",
        help_text="A DNS subdomain, e.g. replica-limit.example.com",
    )
    kubernetes_version = forms.ChoiceField(
        choices=VERSION_CHOICES, initial=DEFAULT_VERSION, label="Target version"
    )

    def clean_name(self) -> str:
        name = self.cleaned_data["name"].strip()
        if not DNS_SUBDOMAIN.match(name):
            raise forms.ValidationError(
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                "characters, '-' or '.', and must start and end with an alphanumeric character"
            )
        return name


class ImportForm(forms.Form):
    """YAML pasted or uploaded: a policy with its bindings and param objects."""

    yaml = forms.CharField(
        required=False,
        strip=False,  # the text is kept as written, to its last line break
        widget=forms.Textarea(attrs={"rows": 12, "class": "code", "spellcheck": "false"}),
        label="Paste YAML",
    )
    upload = forms.FileField(required=False, label="…or upload a file")
    kubernetes_version = forms.ChoiceField(
        choices=VERSION_CHOICES, initial=DEFAULT_VERSION, label="Target version"
    )

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data is None:  # what Form.clean never returns; Django then keeps cleaned_data
            data = self.cleaned_data
        if self.has_error("yaml") or self.has_error("upload"):
            return data  # the field's own error (e.g. a NUL character) says what is wrong
        upload = data.get("upload")
        # Browsers send a textarea's line breaks as CRLF (HTML's form submission rules).
        text: str | bytes = (data.get("yaml") or "").replace("\r\n", "\n")
        source = "pasted YAML"
        if upload is not None:
            if upload.size > MAX_BYTES:
                raise forms.ValidationError(f"{upload.name} is larger than {MAX_BYTES} bytes")
            text, source = upload.read(), upload.name
        if not text or (isinstance(text, str) and not text.strip()):
            raise forms.ValidationError("Paste YAML or choose a file to import.")
        try:
            documents = load_documents(text, source=source)
        except InputError as exc:
            raise forms.ValidationError(str(exc)) from exc
        policies = [
            d
            for d in documents
            if family(str(d.get("kind", ""))) and not str(d.get("kind")).endswith("Binding")
        ]
        if not policies:
            raise forms.ValidationError(
                "No ValidatingAdmissionPolicy or MutatingAdmissionPolicy found in the YAML."
            )
        families = {family(str(d.get("kind"))) for d in policies}
        if len(families) > 1:
            raise forms.ValidationError(
                "A draft holds one kind of policy: import VAP and MAP separately."
            )
        data["documents"] = documents
        # Read above with every limit; kept as written (comments, order, styles) by the draft.
        data["source"] = text.decode("utf-8-sig") if isinstance(text, bytes) else text
        return data
