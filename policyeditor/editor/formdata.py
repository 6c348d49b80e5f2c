"""Binding documents to the editor form and parsing its POST back into documents, losslessly."""

# Each control is named after its place: a document id, then the field keys, with a random id
# per list row ("d1a2b.spec.validations.r9f3c.expression"). Every document and row also posts
# its original JSON in a hidden input, so fields the form does not show survive a round trip;
# only the controls actually rendered overwrite anything. While parsing we record which control
# stands for which Kubernetes path ("spec.validations[0].expression"), so validation errors can
# be shown next to the field they are about, whatever the rows' current order.

from __future__ import annotations

import copy
import dataclasses
import json
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from policyeditor.editor.formspec import Field, Section, sections_for
from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.loading import dump_documents, load_documents, load_json_value

_MISSING = object()


def new_id(prefix: str = "r") -> str:
    """A fresh id for a row or document control name."""
    return prefix + secrets.token_hex(3)


# --- paths inside a document -------------------------------------------------------------


def get_path(obj: Any, key: str, default: Any = _MISSING) -> Any:
    """The value at dotted `key` in nested dicts, or `default`."""
    for part in key.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return default
        obj = obj[part]
    return obj


def set_path(obj: dict, key: str, value: Any) -> None:
    """Set dotted `key`, creating (or replacing non-dict) intermediate objects."""
    parts = key.split(".")
    for part in parts[:-1]:
        if not isinstance(obj.get(part), dict):
            obj[part] = {}
        obj = obj[part]
    obj[parts[-1]] = value


def unset_path(obj: dict, key: str) -> None:
    """Remove dotted `key`, and the parents that this removal leaves empty."""
    parts = key.split(".")
    chain = [obj]
    for part in parts[:-1]:
        nxt = chain[-1].get(part)
        if not isinstance(nxt, dict):
            return
        chain.append(nxt)
    if parts[-1] not in chain[-1]:
        return
    del chain[-1][parts[-1]]
    for depth in range(len(parts) - 2, -1, -1):
        if chain[depth + 1]:
            break
        del chain[depth][parts[depth]]


# --- strings lists ------------------------------------------------------------------------


def format_strings(items: list[str]) -> str:
    """A list of strings as the comma-separated text of a strings control ("" for empty)."""
    return ", ".join('""' if item == "" else item for item in items)


def parse_strings(text: str) -> list[str]:
    """The comma-separated text of a strings control as a list ('""' is the empty string)."""
    return [
        ("" if part.strip() == '""' else part.strip()) for part in text.split(",") if part.strip()
    ]


# --- binding (documents -> template data) ----------------------------------------------------


@dataclass
class BoundRow:
    """One row of a rows control."""

    row_id: str
    name: str
    json: str
    children: list[BoundField]


@dataclass
class BoundField:
    """A control with its name and current value, ready for the template."""

    field: Field
    name: str
    kind: str  # document kind, for help texts and add-row URLs
    key_path: str  # field keys from the document root joined by '/', for add-row URLs
    value: str = ""
    selected: tuple[str, ...] = ()
    # dataclasses.field by its full name: the `field` attribute above shadows it for type checkers.
    pairs: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    rows: list[BoundRow] = dataclasses.field(default_factory=list)
    children: list[BoundField] = dataclasses.field(default_factory=list)
    raw: str = ""  # set when the value has a shape the control cannot show (edit as YAML)

    @property
    def widget(self) -> str:
        return self.field.widget

    @property
    def html_id(self) -> str:
        return "f-" + re.sub(r"[^A-Za-z0-9_-]", "-", self.name)

    @property
    def filled(self) -> bool:
        """Whether the control shows a value (an advanced one then stays unfolded)."""
        return bool(
            self.raw
            or self.value
            or self.selected
            or self.pairs
            or self.rows
            or any(child.filled for child in self.children)
        )


@dataclass
class BoundDocument:
    """One document of the draft, as form sections or as a YAML text area."""

    doc_id: str
    kind: str
    name: str
    json: str
    sections: list[tuple[Section, list[BoundField]]] = field(default_factory=list)
    yaml: str = ""

    @property
    def mode(self) -> str:
        return "form" if self.sections else "yaml"


def _type_ok(widget: str, value: Any) -> bool:
    if value is _MISSING:
        return True
    if widget in {"text", "select", "cel"}:
        return isinstance(value, str)
    if widget in {"strings", "checks"}:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if widget == "map":
        return isinstance(value, dict) and all(isinstance(v, str) for v in value.values())
    if widget == "rows":
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)
    if widget == "group":
        return isinstance(value, dict)
    return False


def bind_field(spec: Field, obj: dict, prefix: str, kind: str, key_prefix: str = "") -> BoundField:
    """Bind one field spec to the object that holds it."""
    name = f"{prefix}.{spec.key}"
    key_path = f"{key_prefix}/{spec.key}" if key_prefix else spec.key
    value = get_path(obj, spec.key)
    bound = BoundField(spec, name, kind, key_path)
    if not _type_ok(spec.widget, value):
        bound.raw = json.dumps(value)
        return bound
    if value is _MISSING:
        value = None
    if spec.widget in {"text", "select", "cel"}:
        bound.value = value or ""
    elif spec.widget == "strings":
        bound.value = format_strings(value or [])
    elif spec.widget == "checks":
        bound.selected = tuple(value or ())
    elif spec.widget == "map":
        bound.pairs = list((value or {}).items())
    elif spec.widget == "rows":
        bound.rows = [bind_row(spec, row, name, kind, key_path) for row in value or []]
    elif spec.widget == "group":
        bound.children = [
            bind_field(child, value or {}, name, kind, key_path) for child in spec.fields
        ]
    return bound


def bind_row(spec: Field, row: dict, list_name: str, kind: str, key_path: str) -> BoundRow:
    """Bind one row of a rows field (a fresh id each time it is rendered)."""
    row_id = new_id()
    name = f"{list_name}.{row_id}"
    children = [bind_field(child, row, name, kind, key_path) for child in spec.fields]
    return BoundRow(row_id, name, json.dumps(row), children)


def bind_documents(documents: list[dict]) -> list[BoundDocument]:
    """Every document of a draft, bound for the form."""
    bound = []
    for doc in documents:
        doc_id = new_id("d")
        kind = str(doc.get("kind", ""))
        name = str(get_path(doc, "metadata.name", "") or "")
        sections = sections_for(kind)
        item = BoundDocument(doc_id, kind, name, json.dumps(doc))
        if sections:
            item.sections = [
                (section, [bind_field(f, doc, doc_id, kind) for f in section.fields])
                for section in sections
            ]
        else:
            item.yaml = dump_documents([doc])
        bound.append(item)
    return bound


# --- parsing (POST -> documents) -------------------------------------------------------------


@dataclass
class ParsedForm:
    """The documents the form describes, and where each Kubernetes path is shown."""

    documents: list[dict]
    doc_ids: list[str]
    targets: list[dict[str, str]]  # per document: Kubernetes path -> control name
    problems: list[tuple[int, str]]  # (document index, message) for text that cannot be read

    def target_for(self, index: int, path: str) -> str:
        """The control that shows `path` of document `index` (or its nearest parent), or ''."""
        if not 0 <= index < len(self.targets):
            return ""
        targets = self.targets[index]
        while True:
            if path in targets:
                return targets[path]
            if not path:
                return ""
            stripped = re.sub(r"(\[[^\]]*\]|\.[^.\[]*|^[^.\[]*)$", "", path)
            path = "" if stripped == path else stripped


def _json(text: str | None, default: Any, source: str) -> Any:
    # The page writes these fields itself, as strict JSON: only a hand-made post fails here, and
    # it gets the reason (InputError) rather than a save of whatever could be read.
    return load_json_value(text, source=source) if text else default


def _parse_field(spec: Field, obj: dict, prefix: str, kpath: str, post, targets: dict) -> None:
    """Apply one posted control to `obj` (in place); record its target."""
    name = f"{prefix}.{spec.key}"
    path = f"{kpath}.{spec.key}" if kpath else spec.key
    widget = spec.widget
    if widget in {"text", "select", "cel", "strings"}:
        if name not in post:
            return
        targets[path] = name
        text = post.get(name, "")
        if widget == "cel":
            text = text.replace("\r\n", "\n")
        else:
            text = text.strip() if widget == "strings" else text
        if widget == "strings":
            items = parse_strings(text)
            if items:
                set_path(obj, spec.key, items)
            elif get_path(obj, spec.key, None) != []:
                unset_path(obj, spec.key)
        elif text:
            set_path(obj, spec.key, text)
        elif get_path(obj, spec.key, None) != "":
            unset_path(obj, spec.key)
        return
    if f"{name}:present" not in post:
        return
    targets[path] = name
    if widget == "checks":
        items = [v for v in post.getlist(name) if v in spec.choices]
        current = get_path(obj, spec.key, None)
        if isinstance(current, list):
            # Keep the document's order (its YAML may say DELETE before UPDATE); ticked boxes
            # that it lacks follow in the form's order.
            kept = [v for v in current if v in items]
            items = kept + [v for v in items if v not in kept]
        if items:
            set_path(obj, spec.key, items)
        elif get_path(obj, spec.key, None) != []:
            unset_path(obj, spec.key)
    elif widget == "map":
        pairs = zip(post.getlist(f"{name}:k"), post.getlist(f"{name}:v"), strict=False)
        mapping = {k.strip(): v for k, v in pairs if k.strip()}
        if mapping:
            set_path(obj, spec.key, mapping)
        elif get_path(obj, spec.key, None) != {}:
            unset_path(obj, spec.key)
    elif widget == "rows":
        rows = []
        for index, row_id in enumerate(post.getlist(f"{name}:rows")):
            row_name = f"{name}.{row_id}"
            row_path = f"{path}[{index}]"
            row = _json(post.get(f"{row_name}:json"), {}, f"the form's state of {row_path}")
            row = row if isinstance(row, dict) else {}
            targets[row_path] = row_name
            for child in spec.fields:
                _parse_field(child, row, row_name, row_path, post, targets)
            rows.append(row)
        if rows:
            set_path(obj, spec.key, rows)
        elif get_path(obj, spec.key, None) != []:
            unset_path(obj, spec.key)
    elif widget == "group":
        current = get_path(obj, spec.key, None)
        sub = copy.deepcopy(current) if isinstance(current, dict) else {}
        for child in spec.fields:
            _parse_field(child, sub, name, path, post, targets)
        if sub:
            set_path(obj, spec.key, sub)
        elif current:
            unset_path(obj, spec.key)


def parse_post(post) -> ParsedForm:
    """The documents described by a posted editor form (a QueryDict)."""
    documents: list[dict] = []
    doc_ids: list[str] = []
    targets: list[dict[str, str]] = []
    problems: list[tuple[int, str]] = []
    for doc_id in post.getlist("docs"):
        doc_targets: dict[str, str] = {}
        index = len(documents)
        try:
            base = _json(post.get(f"{doc_id}:json"), {}, f"document {index + 1}")
        except InputError as exc:
            problems.append((index, str(exc)))
            base = {}
        # The document as the page last had it: what stays when its YAML cannot be read.
        doc = base if isinstance(base, dict) else {}
        if f"{doc_id}:yaml" in post:
            doc_targets[""] = f"{doc_id}:yaml"
            try:
                loaded = load_documents(
                    post.get(f"{doc_id}:yaml", ""), source=f"document {index + 1}"
                )
            except InputError as exc:
                problems.append((index, str(exc)))
            else:
                if len(loaded) == 1:
                    doc = loaded[0]
                else:
                    problems.append(
                        (index, f"expected exactly one object here, found {len(loaded)}")
                    )
        else:
            try:
                for section in sections_for(str(doc.get("kind", ""))) or ():
                    for spec in section.fields:
                        _parse_field(spec, doc, doc_id, "", post, doc_targets)
            except InputError as exc:  # a row's state (_json)
                problems.append((index, f"document {index + 1}: {exc}"))
        documents.append(doc)
        doc_ids.append(doc_id)
        targets.append(doc_targets)
    return ParsedForm(documents, doc_ids, targets, problems)
