"""Authorization checks from CEL: the Authorizer protocol, decisions, and the bound sessions."""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol

from policyeditor.engine.apimachinery.validation import is_dns1123_label, is_dns1123_subdomain
from policyeditor.engine.cel.library.errors import LibraryError
from policyeditor.engine.cel.library.types import (
    AuthorizerMessage,
    DecisionMessage,
    GroupCheckMessage,
    PathCheckMessage,
    ResourceCheckMessage,
)


@dataclass
class AuthorizationDecision:
    """What an authorizer answers: decision "allow" | "deny" | "noOpinion", reason, error."""

    decision: str
    reason: str = ""
    error: str = ""


class Authorizer(Protocol):
    """Anything that can answer an authorization check (Go authorizer.Authorizer)."""

    def authorize(self, attributes: dict[str, Any]) -> AuthorizationDecision:
        """Decide on Go AttributesRecord fields in camelCase (user, groups, verb, resource...)."""
        ...


@dataclass
class _Session:
    """One request's authorizer, principal and decision cache (Go's caching authorizer)."""

    authorizer: Authorizer
    user: dict[str, Any]  # the principal's AttributesRecord fields (user, uid, groups, extra)
    cache: dict[str, Any]  # the attributes' repr -> the kubernetes.authorization.Decision message


_SESSIONS: OrderedDict[int, _Session] = OrderedDict()
_SESSION_LIMIT = 4096  # bounded: messages outlive nothing but one evaluation
_COUNTER = itertools.count(1)
_LOCK = threading.Lock()


def _user_of(request: dict[str, Any]) -> dict[str, Any]:
    info = request.get("userInfo") or {}
    return {
        "user": str(info.get("username") or ""),
        "uid": str(info.get("uid") or ""),
        "groups": [str(g) for g in info.get("groups") or []],
        "extra": {str(k): [str(x) for x in v or []] for k, v in (info.get("extra") or {}).items()},
    }


def bind_authorizer(authorizer: Authorizer, request: dict[str, Any]) -> tuple[Any, Any]:
    """The CEL values of `authorizer` and `authorizer.requestResource` for one request.

    `request` is the `request` variable (camelCase: userInfo, resource, subResource, namespace,
    name). The session stays usable for the next 4096 bindings.
    """
    session = _Session(authorizer=authorizer, user=_user_of(request or {}), cache={})
    with _LOCK:
        session_id = next(_COUNTER)
        _SESSIONS[session_id] = session
        while len(_SESSIONS) > _SESSION_LIMIT:
            _SESSIONS.popitem(last=False)
    value = AuthorizerMessage(session=session_id)
    resource = (request or {}).get("resource") or {}
    request_resource = ResourceCheckMessage(
        groupCheck=GroupCheckMessage(authorizer=value, group=str(resource.get("group") or "")),
        resource=str(resource.get("resource") or ""),
        subresource=str((request or {}).get("subResource") or ""),
        namespace=str((request or {}).get("namespace") or ""),
        name=str((request or {}).get("name") or ""),
    )
    value.requestResource.CopyFrom(request_resource)
    return value, request_resource


def _principal(authorizer: Any) -> tuple[_Session, dict[str, Any]]:
    session = _SESSIONS.get(authorizer.session)
    if session is None:
        raise LibraryError("no such attribute: authorizer")
    if authorizer.serviceAccountName or authorizer.serviceAccountNamespace:
        namespace, name = authorizer.serviceAccountNamespace, authorizer.serviceAccountName
        user = {
            "user": f"system:serviceaccount:{namespace}:{name}",
            "uid": "",
            "groups": ["system:serviceaccounts", f"system:serviceaccounts:{namespace}"],
            "extra": {},
        }
        return session, user
    return session, session.user


def _decide(authorizer: Any, attributes: dict[str, Any]) -> Any:
    session, user = _principal(authorizer)
    record = {**user, **attributes}
    key = repr(sorted(record.items()))
    cached = session.cache.get(key)
    if cached is None:
        try:
            answer = session.authorizer.authorize(dict(record))
            decision = str(getattr(answer, "decision", "noOpinion") or "noOpinion")
            reason = str(getattr(answer, "reason", "") or "")
            error = str(getattr(answer, "error", "") or "")
        except Exception as exc:  # an authorizer failure is an errored decision, not a crash
            decision, reason, error = "noOpinion", "", str(exc) or type(exc).__name__
        cached = DecisionMessage(decision=_normal(decision), reason=reason, error=error)
        session.cache[key] = cached
    return cached


def _normal(decision: str) -> str:
    lowered = decision.replace("_", "").lower().removeprefix("decision")
    return {"allow": "allow", "deny": "deny"}.get(lowered, "noOpinion")


def path_check(authorizer: Any, path: str) -> Any:
    """Authorizer.path(string)."""
    if not path:
        raise LibraryError("path must not be empty")
    return PathCheckMessage(authorizer=authorizer, path=path)


def group_check(authorizer: Any, group: str) -> Any:
    """Authorizer.group(string); '' is the core group."""
    return GroupCheckMessage(authorizer=authorizer, group=group)


def service_account(authorizer: Any, namespace: str, name: str) -> Any:
    """Authorizer.serviceAccount(namespace, name): the checks run as that service account."""
    if is_dns1123_subdomain(name):
        raise LibraryError("Invalid service account name")
    if is_dns1123_label(namespace):
        raise LibraryError("Invalid service account namespace")
    result = AuthorizerMessage()
    result.CopyFrom(authorizer)
    result.serviceAccountNamespace = namespace
    result.serviceAccountName = name
    return result


def resource_check(group: Any, resource: str) -> Any:
    """GroupCheck.resource(string)."""
    if not resource:
        raise LibraryError("resource must not be empty")
    return ResourceCheckMessage(groupCheck=group, resource=resource)


def with_field(check: Any, field: str, value: str) -> Any:
    """A copy of a ResourceCheck with one builder field set (subresource, namespace, name...)."""
    result = ResourceCheckMessage()
    result.CopyFrom(check)
    setattr(result, field, value)
    if field in ("fieldSelector", "labelSelector"):
        setattr(result, "has" + field[0].upper() + field[1:], True)
    return result


def check_path(check: Any, verb: str) -> Any:
    """PathCheck.check(httpVerb) -> Decision."""
    return _decide(check.authorizer, {"path": check.path, "verb": verb, "resourceRequest": False})


def check_resource(check: Any, verb: str) -> Any:
    """ResourceCheck.check(apiVerb) -> Decision."""
    from policyeditor.engine.cel.library.selectors import parse_field_selector, parse_label_selector

    attributes: dict[str, Any] = {
        "resourceRequest": True,
        "apiGroup": check.groupCheck.group,
        "apiVersion": "*",
        "resource": check.resource,
        "subresource": check.subresource,
        "namespace": check.namespace,
        "name": check.name,
        "verb": verb,
    }
    if check.fieldSelector:
        requirements, error = parse_field_selector(check.fieldSelector)
        attributes["fieldSelector"] = requirements
        if error:
            attributes["fieldSelectorParsingError"] = error
    if check.labelSelector:
        requirements, error = parse_label_selector(check.labelSelector)
        attributes["labelSelector"] = requirements
        if error:
            attributes["labelSelectorParsingError"] = error
    return _decide(check.groupCheck.authorizer, attributes)


def check(target: Any, verb: str) -> Any:
    """check(verb) on a PathCheck or a ResourceCheck (one runtime slot for both)."""
    if isinstance(target, PathCheckMessage):
        return check_path(target, verb)
    return check_resource(target, verb)


def _zero(value: Any) -> bool:
    return value in (None, "", False, 0) or value == [] or value == {}


def _comparable(attributes: dict[str, Any]) -> dict[str, Any]:
    """Attributes as the conformance vectors write them: user as {name, groups}, zeros dropped."""
    record = dict(attributes)
    user = record.pop("user", "")
    if not isinstance(user, dict):  # an AttributesRecord: the user is split over several keys
        user = {"name": user, "groups": record.pop("groups", [])}
    for key in ("uid", "extra"):
        if not _zero(record.get(key)):
            user[key] = record[key]
        record.pop(key, None)
    record["user"] = {k: v for k, v in user.items() if not _zero(v)}
    return {k: v for k, v in record.items() if not _zero(v)}


@dataclass
class MockAuthorizer:
    """The conformance vectors' `{"$mock": ...}` authorizers, for tests and the CLI."""

    spec: dict[str, Any]

    def authorize(self, attributes: dict[str, Any]) -> AuthorizationDecision:
        """allowIfAttributesEqual: Allow iff the check's attributes equal the given ones."""
        kind = self.spec.get("$mock")
        if kind == "allowIfAttributesEqual":
            if _comparable(attributes) == _comparable(self.spec.get("attributes") or {}):
                return AuthorizationDecision("allow")
            answer = self.spec.get("otherwise") or {}
        elif kind == "fixed":
            answer = self.spec
        else:
            raise ValueError(f"unknown authorizer mock {kind!r}")
        return AuthorizationDecision(
            decision=_normal(str(answer.get("decision") or "noOpinion")),
            reason=str(answer.get("reason") or ""),
            error=str(answer.get("error") or ""),
        )


def mock_authorizer(spec: dict[str, Any]) -> MockAuthorizer:
    """An Authorizer for a vector's `{"$mock": ...}` description."""
    return MockAuthorizer(spec)
