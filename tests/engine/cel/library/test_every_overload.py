"""Every overload each Kubernetes CEL library declares type-checks as itself and runs.

cel-expr-python gives overloads of one name whose arguments are of the same kind a single runtime
slot (string(net.IP) and string(net.CIDR): kubernetes/kubernetes
staging/src/k8s.io/apiserver/pkg/cel/library/ip.go and cidr.go declare both); one hidden that way
would make a valid policy invalid. Each overload is called with arguments of its own types.
"""

from __future__ import annotations

import pytest

from policyeditor.engine import cel
from policyeditor.engine.cel.library import LIBRARIES, authz
from policyeditor.engine.cel.syntax.walk import walk

# One expression of each parameter type (the authorizer's checks are on the mock below).
SAMPLES = {
    "bool": "true",
    "bytes": "b'ab'",
    "double": "1.5",
    "duration": "duration('1s')",
    "dyn": "dyn(1)",
    "int": "2",
    "uint": "2u",
    "string": "'a'",
    "timestamp": "timestamp('2024-01-01T00:00:00Z')",
    "list<bool>": "[true, false]",
    "list<bytes>": "[b'a', b'b']",
    "list<double>": "[1.5, 2.5]",
    "list<duration>": "[duration('1s'), duration('2s')]",
    "list<dyn>": "[dyn(1), dyn(2)]",
    "list<int>": "[1, 2]",
    "list<kubernetes.internal.Never>": "[]",
    "list<string>": "['a', 'b']",
    "list<timestamp>": "[timestamp('2024-01-01T00:00:00Z')]",
    "list<uint>": "[1u, 2u]",
    "map<dyn, dyn>": "{'a': 1}",
    "net.IP": "ip('10.0.0.1')",
    "net.CIDR": "cidr('10.0.0.0/8')",
    "kubernetes.Quantity": "quantity('1Gi')",
    "kubernetes.URL": "url('https://example.com/a?b=c')",
    "kubernetes.Semver": "semver('1.2.3')",
    "kubernetes.NamedFormat": "format.dns1123Label()",
    "kubernetes.authorization.Authorizer": "authorizer",
    "kubernetes.authorization.GroupCheck": "authorizer.group('apps')",
    "kubernetes.authorization.ResourceCheck": "authorizer.group('apps').resource('deployments')",
    "kubernetes.authorization.PathCheck": "authorizer.path('/healthz')",
    "kubernetes.authorization.Decision": "authorizer.path('/healthz').check('get')",
}

# String arguments that mean something to the function taking them (first argument by default).
STRING_ARGUMENTS = {
    "ip": "'10.0.0.1'",
    "isIP": "'10.0.0.1'",
    "ip.isCanonical": "'10.0.0.1'",
    "cidr": "'10.0.0.0/8'",
    "isCIDR": "'10.0.0.0/8'",
    "containsIP": "'10.0.0.1'",
    "containsCIDR": "'10.1.0.0/16'",
    "quantity": "'1Gi'",
    "isQuantity": "'1Gi'",
    "url": "'https://example.com/a'",
    "isURL": "'https://example.com/a'",
    "semver": "'1.2.3'",
    "isSemver": "'1.2.3'",
    "format.named": "'dns1123Label'",
    "fieldSelector": "'metadata.name=web'",
    "labelSelector": "'app=web'",
    "find": "'[a-z]+'",
    "findAll": "'[a-z]+'",
    "check": "'get'",
}

# Versions whose environments hold each library version: lists v0 until 1.36, v1 from 1.37.
VERSIONS = {("kubernetes.lists", 0): "1.36"}


def _argument(function: str, param: str) -> str:
    if param == "string" and function in STRING_ARGUMENTS:
        return STRING_ARGUMENTS[function]
    return SAMPLES[param]


def _call(spec) -> str:
    args = [_argument(spec.name, p) for p in spec.params]
    if spec.member:
        return f"{args[0]}.{spec.name}({', '.join(args[1:])})"
    return f"{spec.name}({', '.join(args)})"


def _cases() -> list:
    return [
        pytest.param(lib, spec, version, id=f"{lib.name}@{lib.version}:{spec.overload_id}")
        for lib in LIBRARIES
        for version in [VERSIONS.get((lib.name, lib.version), "1.37")]
        for spec in lib.specs()
    ]


# Overloads whose only arguments are errors by definition: the library's own error shows it ran.
EXPECTED_ERRORS = {
    "list_never_min": "min called on empty list",
    "list_never_max": "max called on empty list",
}

MOCK = {"$mock": "fixed", "decision": "allow", "reason": "", "error": ""}


@pytest.mark.parametrize(("lib", "spec", "version"), _cases())
def test_each_declared_overload_type_checks_as_itself_and_evaluates(lib, spec, version):
    expression = _call(spec)
    compiled = cel.compile_expression(
        expression,
        version=version,
        env_type=cel.EnvType.STORED_EXPRESSIONS,
        declarations=cel.Declarations(mutating=lib.mutating_only),
    )
    assert compiled.ok, (expression, compiled.error_text())
    checked = compiled.program.checked
    chosen = {
        overload
        for node in walk(checked.expr)
        if node.WhichOneof("expr_kind") == "call_expr" and node.call_expr.function == spec.name
        for overload in checked.reference_map[node.id].overload_id
    }
    assert spec.overload_id in chosen, (expression, sorted(chosen))
    result = compiled.program.evaluate(cel.Activation(authorizer=authz.mock_authorizer(MOCK)))
    error = result.error.message if result.error is not None else None
    assert error == EXPECTED_ERRORS.get(spec.overload_id), (expression, error)
