"""Impact analysis: what a revision would do to each object of a cluster dump on CREATE and UPDATE.

Dumps are bigger than the 3 MiB the manifest loader allows (`kubectl get deploy,pods -A -o yaml`
of a real cluster), so this module has its own loader: JSON, or YAML without aliases (kubectl never
writes them; refusing them rules out alias bombs), `List`s flattened, managedFields dropped.
Evaluation runs in chunks so the page can show progress between them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import yaml

from policyeditor.engine.errors import InputError
from policyeditor.engine.jsontypes import object_at
from policyeditor.engine.manifests.jsontext import unstorable

MAX_DUMP_BYTES = 64 * 1024 * 1024
MAX_OBJECTS = 50_000
MAX_EVENTS = 20_000_000
OPERATIONS = ("CREATE", "UPDATE")
RESULTS = ("allow", "deny", "warn", "audit", "skip", "error")
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


# A base picked at import time (libyaml's loader when PyYAML has it): mypy takes only class names.
class _Loader(_SafeLoader):  # type: ignore[misc, valid-type]
    """The safe loader, but timestamps stay strings, as Kubernetes reads them (and JSON holds them)."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, pattern) for tag, pattern in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _SafeLoader.yaml_implicit_resolvers.items()
}
_END = object()


class DumpError(InputError):
    """A dump that cannot be read; the message says why."""


def _decode(data: str | bytes) -> str:
    if isinstance(data, str):
        return data
    if len(data) > MAX_DUMP_BYTES:
        raise DumpError(f"the dump is larger than {MAX_DUMP_BYTES // (1024 * 1024)} MiB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise DumpError(f"the dump is not UTF-8 text: {error}") from None


def _check_yaml_events(text: str) -> None:
    """Refuse aliases and absurd sizes before building any Python objects."""
    count = 0
    try:
        for event in yaml.parse(text, Loader=_Loader):
            count += 1
            if isinstance(event, yaml.AliasEvent):
                raise DumpError("YAML aliases (*name) are not allowed in a dump")
            if count > MAX_EVENTS:
                raise DumpError("the dump has too many YAML nodes")
    except yaml.YAMLError as error:
        raise DumpError(f"invalid YAML: {error}") from None


def _raw_documents(text: str) -> list[Any]:
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            value = None  # maybe YAML flow style; let the YAML parser say what is wrong
        else:
            return value if isinstance(value, list) else [value]
    _check_yaml_events(text)
    try:
        return list(yaml.load_all(text, Loader=_Loader))
    except (yaml.YAMLError, RecursionError) as error:
        raise DumpError(f"invalid YAML: {error}") from None


def _clean(obj: dict) -> dict:
    metadata = obj.get("metadata")
    if isinstance(metadata, dict) and "managedFields" in metadata:
        obj = {**obj, "metadata": {k: v for k, v in metadata.items() if k != "managedFields"}}
    return obj


def load_dump(data: str | bytes) -> list[dict]:
    """Every object of a dump (multi-document YAML, JSON, `List`s of any of them)."""
    text = _decode(data)
    if len(text) > MAX_DUMP_BYTES:
        raise DumpError(f"the dump is larger than {MAX_DUMP_BYTES // (1024 * 1024)} MiB")
    objects: list[dict] = []
    # A stack of iterators walks nested Lists in order without recursion.
    stack = [iter(_raw_documents(text))]
    while stack:
        doc = next(stack[-1], _END)
        if doc is _END:
            stack.pop()
            continue
        if doc is None:
            continue
        if not isinstance(doc, dict):
            raise DumpError(f"expected Kubernetes objects, found {type(doc).__name__}")
        kind = doc.get("kind")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(doc.get("items"), list):
            if len(stack) > 10:
                raise DumpError("Lists nested too deeply")
            stack.append(iter(doc["items"]))
            continue
        if not isinstance(kind, str) or not isinstance(doc.get("apiVersion"), str):
            raise DumpError("every object needs apiVersion and kind")
        objects.append(_clean(doc))
        if len(objects) > MAX_OBJECTS:
            raise DumpError(f"the dump has more than {MAX_OBJECTS} objects")
    # NaN and infinities (YAML .nan/.inf, JSON 1e400) or lone surrogates: a run stores the
    # objects as JSON, which cannot hold them.
    problem = unstorable(objects)
    if problem:
        raise DumpError(f"the dump holds a value JSON cannot store, at objects{problem}")
    return objects


def namespaces_of(objects: list[dict]) -> dict[str, dict]:
    """Namespace objects by name."""
    found = {}
    for obj in objects:
        if obj.get("kind") == "Namespace" and obj.get("apiVersion") == "v1":
            name = (obj.get("metadata") or {}).get("name")
            if isinstance(name, str):
                found[name] = obj
    return found


@dataclass
class Outcome:
    """What one revision does to one object for one operation."""

    result: str
    message: str = ""
    mutated: bool = False

    def to_dict(self) -> dict:
        """JSON form stored with the run."""
        return {"result": self.result, "message": self.message, "mutated": self.mutated}


def evaluate_object(
    documents: list[dict],
    obj: dict,
    operation: str,
    *,
    version: str,
    namespace: dict | None,
    defaulting: bool = True,
) -> Outcome:
    """One object through admission; engine failures become an `error` outcome."""
    from policyeditor.engine import admission

    try:
        if operation == "CREATE":
            request = admission.AdmissionRequest.build(object=obj, version=version)
        else:
            request = admission.AdmissionRequest.build(object=obj, old_object=obj, version=version)
        result = admission.evaluate(
            documents,
            request,
            version=version,
            namespace_object=namespace,
            defaulting=defaulting,
        )
    except Exception as error:  # noqa: BLE001 - one odd object must not stop the run
        return Outcome("error", f"{type(error).__name__}: {error}")
    message = result.message or "; ".join(result.warnings)
    # The patch runs from the object as admission saw it (defaulted) to the result, so the
    # fields defaulting filled in do not count as a mutation.
    mutated = result.object is not None and bool(result.patch)
    return Outcome(result.result, message[:500], mutated)


def _identity(obj: dict) -> dict:
    metadata = object_at(obj, "metadata")
    return {
        "kind": obj.get("kind", ""),
        "namespace": metadata.get("namespace", "") or "",
        "name": metadata.get("name", "") or "",
    }


def evaluate_chunk(
    documents: list[dict],
    baseline: list[dict] | None,
    objects: list[dict],
    namespaces: dict[str, dict],
    *,
    version: str,
    baseline_version: str | None = None,
    defaulting: bool = True,
) -> list[dict]:
    """Rows for `objects`: identity, and per operation the outcome (and the baseline's)."""
    # An identical baseline gives identical outcomes: do not evaluate everything twice.
    same = baseline == documents and (baseline_version or version) == version
    rows = []
    for obj in objects:
        namespace_name = _identity(obj)["namespace"]
        namespace = namespaces.get(namespace_name) if namespace_name else None
        row: dict[str, Any] = _identity(obj)
        for operation in OPERATIONS:
            outcome = evaluate_object(
                documents,
                obj,
                operation,
                version=version,
                namespace=namespace,
                defaulting=defaulting,
            )
            row[operation] = outcome.to_dict()
            if baseline is not None and same:
                row[f"{operation}_before"] = dict(row[operation])
            elif baseline is not None:
                before = evaluate_object(
                    baseline,
                    obj,
                    operation,
                    version=baseline_version or version,
                    namespace=namespace,
                    defaulting=defaulting,
                )
                row[f"{operation}_before"] = before.to_dict()
        rows.append(row)
    return rows


def changed(row: dict) -> bool:
    """Whether the revision's outcome differs from the baseline's for any operation."""
    return any(
        f"{op}_before" in row and row[f"{op}_before"]["result"] != row[op]["result"]
        for op in OPERATIONS
    )


def summarize(rows: list[dict]) -> dict[str, Any]:
    """Counts per operation of each result and of mutated objects, and of changed outcomes."""
    summary: dict[str, Any] = {}
    for operation in OPERATIONS:
        counts = Counter(row[operation]["result"] for row in rows if operation in row)
        summary[operation] = {result: counts.get(result, 0) for result in RESULTS}
        summary[operation]["mutated"] = sum(
            1 for row in rows if row.get(operation, {}).get("mutated")
        )
    summary["changed"] = sum(1 for row in rows if changed(row))
    summary["total"] = len(rows)
    return summary


def filter_rows(
    rows: list[dict],
    *,
    result: str = "",
    operation: str = "",
    only_changed: bool = False,
    text: str = "",
) -> list[dict]:
    """Rows matching a result (in one or any operation), a change filter and a name search."""
    operations = [operation] if operation in OPERATIONS else list(OPERATIONS)
    text = text.strip().lower()
    kept = []
    for row in rows:
        if result == "mutated":
            if not any(row.get(op, {}).get("mutated") for op in operations):
                continue
        elif result and not any(row.get(op, {}).get("result") == result for op in operations):
            continue
        if only_changed and not changed(row):
            continue
        if text and text not in f"{row['kind']} {row['namespace']}/{row['name']}".lower():
            continue
        kept.append(row)
    return kept
