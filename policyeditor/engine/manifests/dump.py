"""Dumping manifests as kubectl-ready YAML: Kubernetes field order, block style, exact round trip."""

from __future__ import annotations

import math
import re
from typing import Any

import yaml

from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.goyaml import go_plain_tag

_STR = "tag:yaml.org,2002:str"
_TOP_ORDER = ("apiVersion", "kind", "metadata", "spec")
_ESCAPE_ONLY = ("\r", "\x85", "\u2028", "\u2029", "\ufeff")


class _Dumper(yaml.SafeDumper):
    """SafeDumper with literal blocks for multi-line strings and quoting of type look-alikes."""

    def ignore_aliases(self, data: Any) -> bool:
        """Never emit anchors: kubectl-ready output spells everything out."""
        return True


def _represent_str(dumper: yaml.representer.SafeRepresenter, value: str) -> yaml.ScalarNode:
    if any(char in value for char in _ESCAPE_ONLY):
        # PyYAML's single-quoted and block styles mangle these line breaks; escapes are exact.
        return dumper.represent_scalar(_STR, value, style='"')
    if "\n" in value:
        return dumper.represent_scalar(_STR, value, style="|")
    if go_plain_tag(value) != _STR:
        # go-yaml (kubectl) would read it as a bool, number or null: keep it a string.
        return dumper.represent_scalar(_STR, value, style='"')
    return dumper.represent_scalar(_STR, value)


_Dumper.add_representer(str, _represent_str)

# libyaml's emitter (PyYAML's optional C accelerator) writes the same text as PyYAML's
# pure-Python one, five times faster, as long as every string keeps to these characters: past
# them the two differ (libyaml escapes characters beyond U+FFFF and writes keys with control
# characters as "? " complex keys; PyYAML writes the empty key as one; libyaml ends a document
# whose last scalar keeps trailing line breaks, "|+", with "..."; multi-line keys differ). Checked side by side on the test data and 60,000 generated
# strings (tests/engine/manifests/test_dump.py keeps a seeded sample of that comparison).
_C_SAFE_TEXT = re.compile(r"[\t\n\x20-\x7e\u00a0-\u2027\u202a-\ud7ff]*\Z")
FAST_DUMPER: type | None = None
if getattr(yaml, "CSafeDumper", None) is not None:

    class _CDumper(yaml.CSafeDumper):
        """_Dumper on libyaml's emitter."""

        def ignore_aliases(self, data: Any) -> bool:
            """Never emit anchors (as _Dumper)."""
            return True

    _CDumper.add_representer(str, _represent_str)
    FAST_DUMPER = _CDumper


def _plain_text(text: str) -> bool:
    """True when libyaml's emitter writes text as PyYAML's does."""
    # A text ending in two line breaks, or one line break only, is written "|+" (keep).
    return bool(_C_SAFE_TEXT.match(text)) and not (text.endswith("\n\n") or text == "\n")


def _prepare(value: Any, path: str, plain: list[bool]) -> Any:
    """Check the value is JSON-shaped and return it with tuples as lists (for the safe dumper).

    plain[0] turns False when a string has a character libyaml's emitter writes differently.
    """
    if isinstance(value, str):
        if plain[0] and not _plain_text(value):
            plain[0] = False
        return value
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(f"{path or '<root>'}: cannot dump {value!r}: not a finite number")
        return value
    if isinstance(value, dict):
        result = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise InputError(
                    f"{path or '<root>'}: cannot dump key {key!r}: keys must be strings"
                )
            if plain[0] and not (key and "\n" not in key and _plain_text(key)):
                plain[0] = False
            result[key] = _prepare(item, f"{path}.{key}" if path else key, plain)
        return result
    if isinstance(value, list | tuple):
        return [_prepare(item, f"{path}[{i}]", plain) for i, item in enumerate(value)]
    raise InputError(f"{path or '<root>'}: cannot dump a {type(value).__name__}")


def _ordered(document: dict[str, Any]) -> dict[str, Any]:
    """Top-level fields in Kubernetes order: apiVersion, kind, metadata, spec, then the rest."""
    head = {key: document[key] for key in _TOP_ORDER if key in document}
    return {**head, **{key: value for key, value in document.items() if key not in head}}


def _dump(value: Any, plain: bool) -> str:
    return yaml.dump(
        value,
        Dumper=FAST_DUMPER if plain and FAST_DUMPER is not None else _Dumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=1 << 30,  # never fold long CEL expressions
    )


def dump_documents(docs: list[dict[str, Any]]) -> str:
    """Multi-document, block-style, kubectl-ready YAML; load_documents(dump_documents(d)) == d."""
    # (Except for `List` kinds, which load_documents expands into their items.)
    parts = []
    for document in docs:
        plain = [True]
        value = _prepare(document, "", plain)
        if isinstance(value, dict):
            value = _ordered(value)
        parts.append(_dump(value, plain[0]))
    return "---\n".join(parts)


def dump_block(value: dict[str, Any] | list[Any]) -> str:
    """A mapping's entries or a list's items as block YAML, in the given order (for splicing)."""
    plain = [True]
    prepared = _prepare(value, "", plain)
    return _dump(prepared, plain[0])
