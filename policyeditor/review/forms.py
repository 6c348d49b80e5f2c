"""Django forms of review: the dump of objects an impact run evaluates."""

from __future__ import annotations

from typing import Any

from django import forms

from policyeditor.core.middleware import body_limit
from policyeditor.engine import impact

LIMIT_MIB = impact.MAX_DUMP_BYTES // 2**20
DUMP_TYPES = ".yaml,.yml,.json,.gz"


def size_text(size: int) -> str:
    """A byte count as people say it: "1 GiB", "3 MiB", "2.5 MiB"."""
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if size >= scale:
            return f"{size / scale:.4g} {unit}"
    return f"{size} bytes"


def paste_limit_text() -> str:
    """What may be pasted, and what to do with more (the text fields share the body limit)."""
    return (
        f"Paste up to {size_text(body_limit())} (both boxes together); upload a larger dump "
        f"as a file instead (up to {size_text(impact.MAX_DUMP_BYTES)})."
    )


def _pasted(rows: int, label: str) -> forms.CharField:
    return forms.CharField(
        required=False,
        strip=False,  # the dump is evaluated as pasted
        widget=forms.Textarea(attrs={"rows": rows, "class": "code", "spellcheck": "false"}),
        label=label,
    )


def _uploaded(label: str) -> forms.FileField:
    return forms.FileField(
        required=False, label=label, widget=forms.FileInput(attrs={"accept": DUMP_TYPES})
    )


class ImpactRunForm(forms.Form):
    """Objects (and Namespace objects) pasted or uploaded, one or the other."""

    dump = _pasted(10, "Objects (paste)")
    dump_file = _uploaded("…or upload objects")
    namespaces = _pasted(4, "Namespaces (paste, optional)")
    namespaces_file = _uploaded("…or upload namespaces")
    no_defaulting = forms.BooleanField(
        required=False,
        label="skip defaulting (evaluate the objects as given; a dump taken from a cluster is "
        "already defaulted)",
    )

    def __init__(self, *args: Any, paste_too_large: bool = False, **kwargs: Any) -> None:
        # paste_too_large: the body's text fields went past the limit and Django read none of
        # them; the form is given back empty with the reason.
        super().__init__(*args, **kwargs)
        self.paste_too_large = paste_too_large
        # The limit is a setting: read when the form is made, not when the module is imported.
        self.fields["dump"].help_text = paste_limit_text()

    def _clean_upload(self, name: str) -> Any:
        upload = self.cleaned_data.get(name)
        if upload is not None and (upload.size or 0) > impact.MAX_DUMP_BYTES:
            raise forms.ValidationError(f"The uploaded dump is larger than {LIMIT_MIB} MiB.")
        return upload

    def clean_dump_file(self) -> Any:
        return self._clean_upload("dump_file")

    def clean_namespaces_file(self) -> Any:
        return self._clean_upload("namespaces_file")

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data is None:  # what Form.clean never returns; Django then keeps cleaned_data
            data = self.cleaned_data
        if self.paste_too_large:
            self.add_error("dump", f"The pasted text is too large. {paste_limit_text()}")
            return data
        if self.errors:
            return data
        for pasted, uploaded, what in (
            ("dump", "dump_file", "objects"),
            ("namespaces", "namespaces_file", "namespaces"),
        ):
            # Both given: which one was meant is a guess, and a wrong guess runs the wrong dump.
            if data.get(pasted) and data.get(uploaded):
                self.add_error(
                    pasted, f"Paste the {what} or upload them as a file, not both: clear one."
                )
        if self.errors:
            return data
        # Django streamed an upload to a temporary file: it is moved or copied, never held in
        # memory. A paste is small (the body limit of a form without a file).
        data["objects"] = data.get("dump_file") or data.get("dump") or ""
        data["namespace_objects"] = data.get("namespaces_file") or data.get("namespaces") or None
        if not data["objects"]:
            raise forms.ValidationError("Paste or upload a dump of objects.")
        return data
