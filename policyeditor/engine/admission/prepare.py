"""The documents' side of an evaluation: defaulting, kinds, (policy, bindings) pairs, notes.

None of it depends on the request, so `prepare()` keeps its answer per document content: a
caller that evaluates the same documents again and again (a test suite, a benchmark, the API
under load) defaults and pairs them once. The key is the documents' marshal bytes, which tell
apart every value and type the documents hold (1, 1.0 and True differ; a str or dict subclass
is refused), and the cached documents are decoded from those bytes: a copy nobody else holds,
so a caller mutating its documents afterwards changes the key, never the cached answer.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Any

from policyeditor.engine.admission.common import PlanCache
from policyeditor.engine.objects import ADMISSION_GROUP, POLICY_OF, name_of, spec_of
from policyeditor.engine.versions import served_api_versions

# Bounds of the cache: entries, and the size of one entry's documents (as marshal bytes).
_CACHE_ENTRIES = 64
_MAX_KEY_BYTES = 256 * 1024

Pairs = list[tuple[dict[str, Any], list[dict[str, Any] | None]]]


@dataclass(frozen=True)
class Prepared:
    """What an evaluation takes from its documents; shared between evaluations, never mutated."""

    others: tuple[dict[str, Any], ...]  # objects that are neither policies nor bindings
    map_pairs: Pairs
    vap_pairs: Pairs
    notes: tuple[str, ...]
    # The policies' plans (validating.plan.plan_for), filled in as requests need them.
    plans: PlanCache = field(default_factory=dict, compare=False)


def _default_match_resources(criteria: Any) -> Any:
    """A copy of criteria with the API server's defaults (the input is left alone)."""
    if not isinstance(criteria, dict):
        return criteria
    criteria = dict(criteria)
    criteria.setdefault("matchPolicy", "Equivalent")
    criteria.setdefault("namespaceSelector", {})
    criteria.setdefault("objectSelector", {})
    for key in ("resourceRules", "excludeResourceRules"):
        rules = criteria.get(key)
        if isinstance(rules, list):
            criteria[key] = [
                {**rule, "scope": rule.get("scope", "*")} if isinstance(rule, dict) else rule
                for rule in rules
            ]
    return criteria


def defaulted(doc: dict[str, Any]) -> dict[str, Any]:
    """The API server's defaulting of the four kinds (admissionregistration defaults.go), on a copy."""
    # Only the defaulted paths are copied (the rest is shared, never written to).
    doc = dict(doc)
    spec = doc.get("spec")
    if not isinstance(spec, dict):
        return doc
    spec = doc["spec"] = dict(spec)
    kind = doc.get("kind")
    if kind in ("ValidatingAdmissionPolicy", "MutatingAdmissionPolicy"):
        spec.setdefault("failurePolicy", "Fail")
        if "matchConstraints" in spec:
            spec["matchConstraints"] = _default_match_resources(spec["matchConstraints"])
    else:
        if "matchResources" in spec:
            spec["matchResources"] = _default_match_resources(spec["matchResources"])
        ref = spec.get("paramRef")
        if str(doc.get("apiVersion", "")).endswith("/v1alpha1") and isinstance(ref, dict):
            spec["paramRef"] = {
                **ref,
                "parameterNotFoundAction": ref.get("parameterNotFoundAction", "Deny"),
            }
    return doc


def classify(
    documents: list[dict[str, Any]], version: str
) -> tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Policies and bindings by kind (defaulted), other objects, and unserved policy documents."""
    kinds: dict[str, list[dict[str, Any]]] = {k: [] for k in (*POLICY_OF, *POLICY_OF.values())}
    others: list[dict[str, Any]] = []
    unserved: list[dict[str, Any]] = []
    for doc in documents:
        if not isinstance(doc, dict):
            continue
        kind = doc.get("kind")
        api_version = str(doc.get("apiVersion", ""))
        if (
            isinstance(kind, str)
            and kind in kinds
            and api_version.startswith(ADMISSION_GROUP + "/")
        ):
            if api_version.split("/", 1)[1] not in served_api_versions(str(kind), version):
                unserved.append(doc)
                continue
            kinds[kind].append(defaulted(doc))
        else:
            others.append(doc)
    return kinds, others, unserved


def unserved_notes(
    unserved: list[dict[str, Any]], version: str, policy: str | None, binding: str | None
) -> list[str]:
    """Notes for the unserved documents the policy/binding filters would have selected."""
    notes = []
    for doc in unserved:
        name = name_of(doc)
        target = str(spec_of(doc).get("policyName") or "") if doc.get("kind") in POLICY_OF else name
        if policy is not None and target != policy:
            continue
        if binding is not None and doc.get("kind") in POLICY_OF and name != binding:
            continue
        served = served_api_versions(str(doc.get("kind")), version)
        notes.append(
            f"{doc.get('kind')} {name!r}: {doc.get('apiVersion')} is not served by Kubernetes "
            f"{version} (served: {', '.join(served) if served else 'none'}); it is not evaluated"
        )
    return notes


def pairs(
    policies: list[dict[str, Any]],
    bindings: list[dict[str, Any]],
    policy: str | None,
    binding: str | None,
) -> tuple[Pairs, list[str]]:
    """(policy, its bindings) to evaluate, honouring the policy/binding filters; notes on misses."""
    notes: list[str] = []
    selected_bindings = [b for b in bindings if binding is None or name_of(b) == binding]
    wanted_policy = policy
    if binding is not None and selected_bindings and wanted_policy is None:
        wanted_policy = str(spec_of(selected_bindings[0]).get("policyName") or "")
    names = {name_of(p) for p in policies}
    for b in selected_bindings:
        target = str(spec_of(b).get("policyName") or "")
        if target not in names:
            # The API server silently ignores a binding whose policy does not exist.
            notes.append(f"binding {name_of(b)!r} names policy {target!r}, which is not given")
    found: Pairs = []
    for p in policies:
        name = name_of(p)
        if wanted_policy is not None and name != wanted_policy:
            continue
        mine = [b for b in selected_bindings if spec_of(b).get("policyName") == name]
        if binding is not None and not mine:
            continue
        all_mine = [b for b in bindings if spec_of(b).get("policyName") == name]
        found.append((p, list(mine) if all_mine else []))
    return found, notes


def _prepare(
    documents: list[Any], version: str, policy: str | None, binding: str | None
) -> Prepared:
    kinds, others, unserved = classify(documents, version)
    notes = unserved_notes(unserved, version, policy, binding)
    map_pairs, map_notes = pairs(
        kinds["MutatingAdmissionPolicy"], kinds["MutatingAdmissionPolicyBinding"], policy, binding
    )
    vap_pairs, vap_notes = pairs(
        kinds["ValidatingAdmissionPolicy"],
        kinds["ValidatingAdmissionPolicyBinding"],
        policy,
        binding,
    )
    notes += map_notes + vap_notes
    all_policies = kinds["MutatingAdmissionPolicy"] + kinds["ValidatingAdmissionPolicy"]
    all_bindings = (
        kinds["MutatingAdmissionPolicyBinding"] + kinds["ValidatingAdmissionPolicyBinding"]
    )
    if policy is not None and all(name_of(p) != policy for p in all_policies):
        notes.append(f"policy {policy!r} not found")
    if binding is not None and all(name_of(b) != binding for b in all_bindings):
        notes.append(f"binding {binding!r} not found")
    if not all_policies:
        notes.append("no ValidatingAdmissionPolicy or MutatingAdmissionPolicy to evaluate")
    return Prepared(tuple(others), map_pairs, vap_pairs, tuple(notes))


# (the documents as marshal bytes, version, policy filter, binding filter)
_Key = tuple[bytes, str, str | None, str | None]
_CACHE: dict[_Key, Prepared] = {}


def _key(documents: list[Any], version: str, policy: Any, binding: Any) -> _Key | None:
    """The cache key of these arguments, None when they cannot be keyed exactly."""
    if type(version) is not str or type(policy) not in (str, type(None)):
        return None
    if type(binding) not in (str, type(None)):
        return None
    try:
        # Version 2 writes no back-references, so the same content gives the same bytes
        # whatever the objects' sharing or reference counts.
        data = marshal.dumps(documents, 2)
    except ValueError:  # a type marshal refuses (subclasses, objects) or nesting too deep
        return None
    if len(data) > _MAX_KEY_BYTES:
        return None
    return (data, version, policy, binding)


def prepare(
    documents: list[Any], version: str, policy: str | None = None, binding: str | None = None
) -> Prepared:
    """The documents' side of an evaluation of `documents` under the policy/binding filters."""
    key = _key(documents, version, policy, binding)
    if key is None:
        return _prepare(documents, version, policy, binding)
    cached = _CACHE.get(key)
    if cached is None:
        # Prepared from a private copy (decoded from the key) that the caller cannot reach.
        cached = _prepare(marshal.loads(key[0]), version, policy, binding)
        if len(_CACHE) >= _CACHE_ENTRIES:
            del _CACHE[next(iter(_CACHE))]  # the oldest entry (the cache is full, so not empty)
        _CACHE[key] = cached
    return cached


def unbound_policies(documents: list[Any], version: str) -> list[tuple[str, str]]:
    """(kind, name) of each policy in `documents` that no binding references."""
    # The pairs evaluate() leaves out with bound_only: a binding of another kind (a VAP binding
    # naming a MAP) or of an API version this Kubernetes does not serve binds nothing.
    prepared = prepare(documents, version)
    return [
        (str(policy.get("kind")), name_of(policy))
        for policy, bindings in (*prepared.map_pairs, *prepared.vap_pairs)
        if not bindings
    ]
