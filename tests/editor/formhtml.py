"""Read a rendered editor form the way a browser submits it (a test helper)."""

from __future__ import annotations

from html.parser import HTMLParser

from django.http import QueryDict
from django.urls import reverse


class _FormReader(HTMLParser):
    """Collects the successful controls of one form, skipping <template> contents."""

    def __init__(self, form_id: str) -> None:
        super().__init__(convert_charrefs=True)
        self.form_id = form_id
        self.depth = 0  # >0 while inside the form
        self.in_template = 0
        self.pairs: list[tuple[str, str]] = []
        self._textarea: list | None = None
        self._select: dict | None = None
        self._option: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and a.get("id") == self.form_id:
            self.depth = 1
            return
        if not self.depth:
            return
        if tag == "template":
            self.in_template += 1
        if self.in_template or "disabled" in a:
            return
        name = a.get("name")
        if tag == "input" and name:
            kind = a.get("type", "text")
            if kind in ("checkbox", "radio"):
                if "checked" in a:
                    self.pairs.append((name, a.get("value", "on")))
            elif kind not in ("submit", "button", "file"):
                self.pairs.append((name, a.get("value", "")))
        elif tag == "textarea" and name:
            self._textarea = [name, ""]
        elif tag == "select" and name:
            self._select = {"name": name, "first": None, "chosen": None}
        elif tag == "option" and self._select is not None:
            self._finish_option()
            # An option without a value attribute has its text as its value.
            self._option = {"value": a.get("value"), "text": "", "selected": "selected" in a}

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea[1] += data
        elif self._option is not None:
            self._option["text"] += data

    def _finish_option(self) -> None:
        option, self._option = self._option, None
        if option is None or self._select is None:
            return
        value = option["value"] if option["value"] is not None else option["text"].strip()
        if self._select["first"] is None:
            self._select["first"] = value
        if option["selected"]:
            self._select["chosen"] = value

    def handle_endtag(self, tag):
        if not self.depth:
            return
        if tag == "template":
            self.in_template -= 1
        elif tag == "textarea" and self._textarea is not None:
            name, text = self._textarea
            # Browsers drop one leading newline of a textarea's content.
            self.pairs.append((name, text[1:] if text.startswith("\n") else text))
            self._textarea = None
        elif tag == "option":
            self._finish_option()
        elif tag == "select" and self._select is not None:
            self._finish_option()
            chosen = self._select["chosen"]
            self.pairs.append(
                (
                    self._select["name"],
                    chosen if chosen is not None else self._select["first"] or "",
                )
            )
            self._select = None
        elif tag == "form":
            self.depth = 0


def form_data(html: str, form_id: str = "editor-form") -> QueryDict:
    """The QueryDict a browser would post for form `form_id` of `html`."""
    reader = _FormReader(form_id)
    reader.feed(html)
    data = QueryDict(mutable=True)
    for name, value in reader.pairs:
        data.appendlist(name, value)
    return data


def postable(data: QueryDict) -> dict[str, list[str]]:
    """The form data as the test client must get it: every value of a repeated name kept."""
    return dict(data.lists())


def draft_form(client, draft) -> QueryDict:
    """The editor form of `draft` as the browser would submit it, read from its page."""
    response = client.get(draft.get_absolute_url())
    assert response.status_code == 200
    return form_data(response.content.decode())


def expression_field(data: QueryDict) -> str:
    """The name of the first validation's expression field in the editor form."""
    return next(k for k in data if ".spec.validations." in k and k.endswith(".expression"))


def live_validate(client, draft, data: QueryDict, headers: dict):
    """POST the editor form `data` to the draft's live validation (nothing is saved)."""
    return client.post(
        reverse("editor:draft_validate", args=[draft.pk]), postable(data), headers=headers
    )
