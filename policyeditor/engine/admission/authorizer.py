"""A mocked authorizer for test cases: a list of entries, first match wins, default NoOpinion."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policyeditor.engine.cel.library.authz import AuthorizationDecision

# Entry field -> the AttributesRecord key (camelCase) it is compared with; aliases kat/kaptest use.
_FIELDS = {
    "group": "apiGroup",
    "apiGroup": "apiGroup",
    "version": "apiVersion",
    "apiVersion": "apiVersion",
    "resource": "resource",
    "subresource": "subresource",
    "subResource": "subresource",
    "namespace": "namespace",
    "name": "name",
    "verb": "verb",
    "path": "path",
    "user": "user",
    "username": "user",
}
_RESOURCE_FIELDS = {"apiGroup", "apiVersion", "resource", "subresource", "namespace", "name"}
_DECISIONS = {
    "allow": "allow",
    "allowed": "allow",
    "decisionallow": "allow",
    "deny": "deny",
    "denied": "deny",
    "decisiondeny": "deny",
    "noopinion": "noOpinion",
    "no-opinion": "noOpinion",
    "decisionnoopinion": "noOpinion",
}
_OTHER_KEYS = {"decision", "reason", "error"}


@dataclass(frozen=True)
class MockEntry:
    """One mocked decision: the attributes it matches (missing = any) and what it answers."""

    match: tuple[tuple[str, str], ...]
    decision: str
    reason: str = ""
    error: str = ""

    def matches(self, attributes: dict[str, Any]) -> bool:
        """True when every given field equals the check's attribute."""
        fields = dict(self.match)
        is_resource = bool(attributes.get("resourceRequest", "path" not in attributes))
        if "path" in fields and is_resource:
            return False
        if is_resource is False and _RESOURCE_FIELDS & fields.keys():
            return False
        return all(str(attributes.get(key) or "") == value for key, value in self.match)


def parse_entries(raw: Any) -> list[MockEntry]:
    """Turn the suite's authorizer list into entries; ValueError says which entry is wrong."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise ValueError("authorizer must be a list of entries")
    entries = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict):
            raise ValueError(f"authorizer[{index}]: expected a mapping")
        unknown = sorted(set(item) - set(_FIELDS) - _OTHER_KEYS)
        if unknown:
            raise ValueError(f"authorizer[{index}]: unknown field {unknown[0]!r}")
        decision = _DECISIONS.get(str(item.get("decision", "")).replace("_", "").lower())
        if decision is None:
            raise ValueError(
                f"authorizer[{index}].decision: Unsupported value: {item.get('decision')!r}: "
                'supported values: "allow", "deny", "noOpinion"'
            )
        match = tuple(
            (_FIELDS[key], "" if value is None else str(value))
            for key, value in item.items()
            if key in _FIELDS
        )
        entries.append(
            MockEntry(
                match=match,
                decision=decision,
                reason=str(item.get("reason") or ""),
                error=str(item.get("error") or ""),
            )
        )
    return entries


class MockAuthorizer:
    """Answers authorization checks from the mocked entries, NoOpinion when none matches."""

    def __init__(self, entries: list[MockEntry]) -> None:
        self.entries = entries
        self.checks: list[dict[str, Any]] = []  # every check asked, to show in failure reports

    def authorize(self, attributes: dict[str, Any]) -> Any:
        """The first matching entry's decision, as the cel authz library expects it."""
        self.checks.append(dict(attributes))
        for entry in self.entries:
            if entry.matches(attributes):
                return AuthorizationDecision(
                    decision=entry.decision, reason=entry.reason, error=entry.error
                )
        return AuthorizationDecision(decision="noOpinion", reason="no mocked decision matched")
