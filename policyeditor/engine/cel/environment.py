"""The kube-apiserver CEL environment per (version, context, env type, declarations), cached."""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass, field
from typing import Any

import cel_expr_python.cel as cel

from policyeditor.engine.cel import k8s_types, library_bridge
from policyeditor.engine.cel.descriptors import shared_pool
from policyeditor.engine.cel.features import FeatureSet
from policyeditor.engine.cel.model import Context, Declarations
from policyeditor.engine.cel.runtime import selects
from policyeditor.engine.cel.runtime.functions import check_only_declarations, helper_extension

# Names the runtime binds instead of the typed variables: the checker sees the typed
# declarations, the runtime only plain maps (see runtime/lowering.py).
MAP_ALIASES = {"request": "request__map", "namespaceObject": "namespaceObject__map"}

_LOCK = threading.Lock()


@dataclass
class Environment:
    """One compiled-in environment: the cel-expr-python Env and what it declares."""

    env: Any
    features: FeatureSet
    context: Context
    declarations: Declarations
    variables: dict[str, str] = field(default_factory=dict)  # name -> cel-go type string
    authorizer: bool = False
    mutating: bool = False
    # library.registry.Alias: overloads the checker knows by another name (compiler retries).
    aliases: tuple[Any, ...] = ()


_PRIMITIVE_TYPES = {
    "int": "INT",
    "uint": "UINT",
    "double": "DOUBLE",
    "bool": "BOOL",
    "string": "STRING",
    "bytes": "BYTES",
    "dyn": "DYN",
    "null_type": "NULL",
    "google.protobuf.Duration": "DURATION",
    "google.protobuf.Timestamp": "TIMESTAMP",
}


def split_type_params(text: str) -> list[str]:
    """Split "int, map(string, int)" at its top-level commas."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def cel_type(type_text: str) -> Any:
    """A cel.Type from a cel-go type string ("list(int)", "optional_type(string)", "net.IP")."""
    text = type_text.strip()
    if text in _PRIMITIVE_TYPES:
        return getattr(cel.Type, _PRIMITIVE_TYPES[text])
    if "(" in text and text.endswith(")"):
        head, _, rest = text.partition("(")
        params = [cel_type(p) for p in split_type_params(rest[:-1])]
        if head == "list" and len(params) == 1:
            return cel.Type.List(params[0])
        if head == "map" and len(params) == 2:
            return cel.Type.Map(params[0], params[1])
        if head == "type" and len(params) == 1:
            return cel.Type.Type(params[0])
        return cel.Type.AbstractType(head, params)
    return cel.Type(text)


def _config_yaml(features: FeatureSet) -> str:
    # strings v2 and sets are in every version we target (1.29+); optional types from 1.28.
    lines = ["extensions:", "- name: strings", "  version: 2", "- name: optional", "- name: sets"]
    if features.two_var_comprehensions:
        lines.append("- name: two-var-comprehensions")
    if features.lists_ext:
        lines.append("- name: lists")
    return "\n".join(lines) + "\n"


def declared_variables(
    context: Context, declarations: Declarations, authorizer: bool
) -> dict[str, str]:
    """The variables Kubernetes declares in context, name -> type."""
    # kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/admission/plugin/cel/compile.go,
    # createEnvForOpts: params iff paramKind, authorizer except in messageExpression, variables
    # iff the policy has any (never in match conditions).
    if context in (Context.CRD_RULE, Context.CRD_RULE_OPTIONAL_OLD_SELF):
        # apiextensions-apiserver schema/cel/compilation.go, Compile: ScopedVarName and
        # OldScopedVarName only (oldSelf optional-typed with optionalOldSelf, bound as dyn here
        # and indexed back into an optional by runtime/lowering.py).
        return {"self": "dyn", "oldSelf": "dyn"}
    variables = {
        "object": "dyn",
        "oldObject": "dyn",
        "request": k8s_types.REQUEST_TYPE,
        "namespaceObject": k8s_types.NAMESPACE_TYPE,
    }
    if declarations.has_params:
        variables["params"] = "dyn"
    if context != Context.MATCH_CONDITION:
        for index, name in enumerate(declarations.variables):
            declared = declarations.variable_type(index)
            # cel-expr-python cannot declare an optional-typed variable (its optional_type is
            # not the checker's): such variables are dyn here and indexed back into optionals
            # at runtime (runtime/lowering.py).
            if declared.startswith("optional_type("):
                declared = "dyn"
            variables[f"variables.{name}"] = declared
    if authorizer and context != Context.MESSAGE_EXPRESSION:
        variables["authorizer"] = library_bridge.AUTHORIZER_TYPE
        variables["authorizer.requestResource"] = library_bridge.RESOURCE_CHECK_TYPE
    return variables


@functools.lru_cache(maxsize=512)
def get_environment(
    feature_minor: int, context: Context, declarations: Declarations
) -> Environment:
    """The environment with feature_minor's libraries for context and declarations (cached)."""
    features = FeatureSet(feature_minor)
    mutating = declarations.mutating
    authorizer = library_bridge.has_authorizer(feature_minor)
    variables = declared_variables(context, declarations, authorizer)
    with _LOCK:
        config = cel.NewEnvConfigFromYaml(_config_yaml(features))
        functions: list[Any] = check_only_declarations()
        extensions = [helper_extension(), selects.extension()]
        library_decls = library_bridge.declarations(feature_minor, mutating)
        aliases: tuple[Any, ...] = ()
        if library_decls is not None:
            aliases = library_decls.aliases
            functions += library_decls.functions
            # After the config's built-in extensions: names they already declare merge here.
            extensions.append(library_decls.extension())
        env = cel.NewEnv(
            shared_pool(),
            config=config,
            variables={name: cel_type(type_name) for name, type_name in variables.items()},
            functions=functions,
            extensions=extensions,
        )
    return Environment(
        env=env,
        features=features,
        context=context,
        declarations=declarations,
        variables=variables,
        authorizer=authorizer,
        mutating=mutating,
        aliases=aliases,
    )
