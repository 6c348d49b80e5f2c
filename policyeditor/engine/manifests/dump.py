"""Dumping manifests as kubectl-ready YAML: Kubernetes field order, block style, exact round trip."""

from __future__ import annotations

import math
from typing import Any

import yaml

from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.compose import go_plain_tag

_STR = "tag:yaml.org,2002:str"
_TOP_ORDER = ("apiVersion", "kind", "metadata", "spec")
_ESCAPE_ONLY = ("\r", "\x85", "\u2028", "\u2029", "\ufeff")


class _Dumper(yaml.SafeDumper):
    """SafeDumper with literal blocks for multi-line strings and quoting of type look-alikes."""

    def ignore_aliases(self, data: Any) -> bool:
        """Never emit anchors: kubectl-ready output spells everything out."""
        return True


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
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


def _prepare(value: Any, path: str) -> Any:
    """Check the value is JSON-shaped and return it with tuples as lists (for the safe dumper)."""
    if value is None or isinstance(value, bool | int | str):
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
            result[key] = _prepare(item, f"{path}.{key}" if path else key)
        return result
    if isinstance(value, list | tuple):
        return [_prepare(item, f"{path}[{i}]") for i, item in enumerate(value)]
    raise InputError(f"{path or '<root>'}: cannot dump a {type(value).__name__}")


def _ordered(document: dict[str, Any]) -> dict[str, Any]:
    """Top-level fields in Kubernetes order: apiVersion, kind, metadata, spec, then the rest."""
    head = {key: document[key] for key in _TOP_ORDER if key in document}
    return {**head, **{key: value for key, value in document.items() if key not in head}}


def dump_documents(docs: list[dict[str, Any]]) -> str:
    """Multi-document, block-style, kubectl-ready YAML; load_documents(dump_documents(d)) == d."""
    # (Except for `List` kinds, which load_documents expands into their items.)
    parts = []
    for document in docs:
        value = _prepare(document, "")
        if isinstance(value, dict):
            value = _ordered(value)
        parts.append(
            yaml.dump(
                value,
                Dumper=_Dumper,
                default_flow_style=False,
                sort_keys=False,
                allow_unicode=True,
                width=1 << 30,  # never fold long CEL expressions
            )
        )
    return "---\n".join(parts)


def dump_block(value: dict[str, Any] | list[Any]) -> str:
    """A mapping's entries or a list's items as block YAML, in the given order (for splicing)."""
    return yaml.dump(
        _prepare(value, ""),
        Dumper=_Dumper,
        default_flow_style=False,
        sort_keys=False,
        allow_unicode=True,
        width=1 << 30,
    )
