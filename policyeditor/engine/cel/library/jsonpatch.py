"""kubernetes.jsonpatch semantics: escapeKey for JSON Pointer path segments (RFC 6901)."""

from __future__ import annotations


def escape_key(key: str) -> str:
    """`~` -> `~0` and `/` -> `~1`, simultaneously (Go strings.NewReplacer)."""
    return key.replace("~", "~0").replace("/", "~1")
