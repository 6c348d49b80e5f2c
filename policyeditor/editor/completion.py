"""CEL completion for the editor: variable names, request fields and object fields by schema."""

from __future__ import annotations

import re

from policyeditor.engine import schemas
from policyeditor.engine.versions import DEFAULT_VERSION

# The variables each expression field declares (kubernetes/kubernetes
# staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/compile.go, createEnvForOpts).
ROOTS = {
    "object": "the object from the request (null for DELETE)",
    "oldObject": "the existing object (null for CREATE)",
    "request": "attributes of the admission request",
    "params": "the param object of the binding",
    "namespaceObject": "the namespace of the object (null when cluster-scoped)",
    "variables": "composited variables by name",
    "authorizer": "authorization checks for the requesting user",
}
REQUEST_FIELDS = {
    "kind": "group/version/kind of the object",
    "resource": "group/version/resource being requested",
    "subResource": "subresource, e.g. status or scale",
    "requestKind": "the kind as requested (before conversion)",
    "requestResource": "the resource as requested",
    "requestSubResource": "the subresource as requested",
    "name": "name of the object",
    "namespace": "namespace of the object",
    "operation": "CREATE, UPDATE, DELETE or CONNECT",
    "userInfo": "username, uid, groups, extra",
    "dryRun": "true when the request is a dry run",
    "options": "the operation options (CreateOptions, ...)",
}
USER_INFO_FIELDS = {"username": "", "uid": "", "groups": "list of group names", "extra": ""}
PATH = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*|\[[^\]]*\])*$")


def _type_label(schema: dict | None) -> str:
    if not schema:
        return ""
    if schema.get("x-kubernetes-int-or-string"):
        return "int-or-string"  # a CRD's IntOrString has no type of its own
    types = sorted(schemas.schema_types(schema))
    if schemas.is_array_schema(schema):
        return "list"
    if "string" in types and schema.get("format") in ("int-or-string",):
        return "int-or-string"
    return "|".join(types) or ("object" if schemas.is_object_schema(schema) else "")


def summary(description: str, limit: int = 300) -> str:
    """A description's first paragraph on one line (CRD descriptions wrap Go doc comments)."""
    paragraph = description.strip().split("\n\n", 1)[0]
    text = " ".join(paragraph.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "\u2026"


def _fields(schema: dict | None, version: str) -> list[dict]:
    schema = schemas.resolve(schema, version)
    if schema and schemas.is_array_schema(schema) and not schemas.is_object_schema(schema):
        schema = schemas.items_schema(schema, version)
    properties = (schema or {}).get("properties") or {}
    found = []
    for name in sorted(properties):
        child = schemas.resolve(properties[name], version) or {}
        doc = summary(str(child.get("description") or ""))
        found.append({"label": name, "type": _type_label(child), "detail": doc})
    return found


def complete(
    path: str,
    *,
    gvk: tuple[str, str, str] = ("apps", "v1", "Deployment"),
    variables: tuple[str, ...] = (),
    version: str = DEFAULT_VERSION,
    param_gvk: tuple[str, str, str] | None = None,
) -> list[dict]:
    """What may follow `path` + '.' in a CEL expression ('' = the root variables).

    `param_gvk` is the policy's paramKind: `params.` then completes from its schema (a CRD's
    when the draft's CRDs are in force).
    """
    path = path.strip()
    if not path:
        return [{"label": name, "type": "", "detail": detail} for name, detail in ROOTS.items()]
    if not PATH.match(path):
        return []
    head, _, rest = path.partition(".")
    head = head.split("[", 1)[0]
    if head == "variables" and not rest:
        return [{"label": name, "type": "variable", "detail": ""} for name in variables]
    if head == "request":
        if not rest:
            return [{"label": k, "type": "", "detail": v} for k, v in REQUEST_FIELDS.items()]
        if rest == "userInfo":
            return [{"label": k, "type": "", "detail": v} for k, v in USER_INFO_FIELDS.items()]
        if rest in ("kind", "requestKind"):
            return [
                {"label": k, "type": "string", "detail": ""} for k in ("group", "version", "kind")
            ]
        if rest in ("resource", "requestResource"):
            return [
                {"label": k, "type": "string", "detail": ""}
                for k in ("group", "version", "resource")
            ]
        return []
    if head in ("object", "oldObject"):
        root = schemas.schema_for(*gvk, version)
    elif head == "namespaceObject":
        root = schemas.schema_for("", "v1", "Namespace", version)
    elif head == "params" and param_gvk is not None:
        root = schemas.schema_for(*param_gvk, version)
    else:
        return []
    schema = schemas.schema_at_path(root, rest, version) if rest else root
    return _fields(schema, version)


def matched_gvk(documents: list[dict], version: str = DEFAULT_VERSION) -> tuple[str, str, str]:
    """The (group, version, kind) the draft's first resource rule matches (Deployment if unknown)."""
    from policyeditor.editor.samples import sample_object

    obj = sample_object(documents, version)
    api = str(obj.get("apiVersion", "apps/v1"))
    group, _, ver = api.rpartition("/")
    return group, ver, str(obj.get("kind", "Deployment"))
