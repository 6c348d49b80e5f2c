"""The Kubernetes CEL libraries for cel-expr-python, versioned.

They follow kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/cel/library/*.go (lists.go,
regex.go, urls.go, ip.go, cidr.go, quantity.go, semverlib.go, format.go, authz.go, jsonpatch.go),
enabled per version as pkg/cel/environment/base.go, baseOptsWithoutStrictCost does.

How cel-core builds an environment with them::

    from policyeditor.engine.cel import library
    libs = library.libraries_for(minor, env_type=env_type, mutating=mutating)
    decls = library.env_declarations(libs)
    env = cel.NewEnv(
        library.descriptor_pool(),                       # opaque types: net.IP, kubernetes.Quantity...
        config=...,                                      # cel-core's own options and extensions
        extensions=[*builtin_extensions, decls.extension()],   # must come AFTER ExtStrings etc.
        functions=[*cel_core_functions, *decls.functions],
        variables={..., "authorizer": cel.Type(library.types.AUTHORIZER)},
    )

- `libraries_for(minor, env_type=, mutating=, compatibility_minor=)` picks the libraries of a
  Kubernetes 1.<minor> server: NewExpressions use compatibility version minor - 1.
- `library(name)` finds one library by the name the conformance vectors use ("kubernetes.net.ip").
- `function_introduced()` / `required_version(name)` say which version introduced a function.
- Runtime errors are raised as LibraryError (a ValueError): cel-expr-python reports them as
  "OUT_OF_RANGE: <Kubernetes message>"; `strip_status()` removes that prefix.
- `authz.bind_authorizer(...)` makes the `authorizer` variable's value; `authz.Authorizer` and
  `authz.AuthorizationDecision` are the contract types cel re-exports.
- `authz.mock_authorizer(spec)` builds the conformance vectors' `{"$mock": ...}` authorizers.
- `cost.call_cost(function, args)` is the runtime cost of one library call (library/cost.go,
  CostEstimator.CallCost).
- Format functions (`format.named`, `validate`) return optionals, which a Python implementation
  cannot produce: their implementations return `{}` / `{"": value}` and the source gets `[?""]`
  after each call (formats_decls.optional_suffix_offsets; compiler.py applies it).

Known limits of cel-expr-python 0.1.3 (see decls.py): generic functions are declared over dyn,
so `typecheck.generic_findings(checked)` reports what cel-go's list(A) overloads reject
(compiler.py runs it). Overloads of one name over the same argument kinds share one runtime
slot (`string(net.IP)`, `string(net.CIDR)`): the ones a CelExtension cannot declare beside another
are declared for the checker under an alias (`EnvDeclarations.aliases`, cel/aliases.py).
"""

from __future__ import annotations

from policyeditor.engine.cel.library.errors import STATUS_PREFIX, LibraryError, strip_status
from policyeditor.engine.cel.library.registry import (
    LIBRARIES,
    NEW_EXPRESSIONS,
    STORED_EXPRESSIONS,
    EnvDeclarations,
    Library,
    env_declarations,
    function_introduced,
    libraries_for,
    library,
    required_version,
)
from policyeditor.engine.cel.library.types import descriptor_pool

__all__ = [
    "LIBRARIES",
    "NEW_EXPRESSIONS",
    "STATUS_PREFIX",
    "STORED_EXPRESSIONS",
    "EnvDeclarations",
    "Library",
    "LibraryError",
    "descriptor_pool",
    "env_declarations",
    "function_introduced",
    "libraries_for",
    "library",
    "required_version",
    "strip_status",
]
