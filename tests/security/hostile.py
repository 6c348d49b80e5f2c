"""The hostile-input catalogue: what people paste, and the exact refusal each one must get.

Three families, each posted by the tests to the UI endpoints and to the API:
- YAML_INPUTS: text the loader must refuse (malformed, bombs, binary, huge, deep, tags...);
- DOCUMENT_INPUTS: YAML that loads but is not a valid policy (wrong types in every field,
  unknown kinds and versions, lists over the API server's maximums);
- CEL_INPUTS: expressions that must not compile or must stop at the cost limit (loops, string
  building, deep nesting, unicode tricks).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import pytest
import yaml

from tests.builders import replica_limit

MIB = 1024 * 1024


@dataclass(frozen=True)
class Hostile:
    """One bad input and the message (a substring) its refusal must carry."""

    name: str
    payload: Any  # str | bytes for YAML_INPUTS, a document for DOCUMENT_INPUTS, str for CEL
    message: str
    too_large: bool = False  # refused for its size before any parsing

    @property
    def is_text(self) -> bool:
        """Whether a browser form could carry it (bytes that are not UTF-8 cannot)."""
        return isinstance(self.payload, str)

    def __str__(self) -> str:
        return self.name


def params(items: list[Hostile], known: dict[str, str] | None = None) -> list:
    """pytest params of the items; those named in `known` are strict xfails (a bug with an owner)."""
    known = known or {}
    return [
        pytest.param(
            item, id=item.name, marks=pytest.mark.xfail(strict=True, reason=known[item.name])
        )
        if item.name in known
        else pytest.param(item, id=item.name)
        for item in items
    ]


def _laughs(levels: int = 9, width: int = 10) -> str:
    """The billion-laughs document: each anchor aliases the previous one `width` times."""
    lines = ["l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    for level in range(1, levels):
        refs = ", ".join([f"*l{level - 1}"] * width)
        lines.append(f"l{level}: &l{level} [{refs}]")
    return "\n".join(lines) + "\n"


YAML_INPUTS = [
    Hostile("unclosed-flow-mapping", "kind: {a: 1\n", "did not find expected ',' or '}'"),
    Hostile("tab-indentation", "a:\n\tb: 1\n", "found character that cannot start any token"),
    Hostile("unterminated-string", 'a: "abc\n', "found unexpected end of stream"),
    Hostile("bad-indentation", "a:\n  b: 1\n c: 2\n", "did not find expected key"),
    Hostile("unclosed-sequence", "a: [1, 2\n", "did not find expected ',' or ']'"),
    Hostile("stray-colon", "a: b: c\n", "mapping values are not allowed in this context"),
    Hostile("billion-laughs", _laughs(), "refusing a possible billion-laughs document"),
    Hostile("recursive-alias", "a: &x [*x]\n", "recursive alias *x"),
    Hostile("unknown-alias", "a: *nowhere\n", "found undefined alias 'nowhere'"),
    Hostile("deep-flow-nesting", "[" * 10_000 + "]" * 10_000, "exceeded maximum nesting depth"),
    Hostile(
        "deep-block-nesting",
        "".join("  " * i + "a:\n" for i in range(150)) + "  " * 150 + "b: 1\n",
        "nesting deeper than 100 levels",
    ),
    Hostile("binary-garbage", bytes(range(256)) * 8, "not valid UTF-8 (byte 128"),
    Hostile("invalid-utf8", b"kind: \xff\xfe\n", "not valid UTF-8 (byte 6"),
    Hostile("nul-character", "kind: a\x00b\n", "unacceptable character #x0000"),
    Hostile("bell-control-character", "kind: a\x07b\n", "unacceptable character #x0007"),
    Hostile("ten-megabyte-paste", "a: " + "x" * (10 * MIB), "too large", too_large=True),
    Hostile("just-over-3-mib", "a: " + "x" * (3 * MIB), "too large", too_large=True),
    Hostile("too-many-documents", "---\na: 1\n" * 1001, "too many documents (more than 1000)"),
    Hostile("duplicate-keys", "kind: a\nkind: b\n", 'key "kind" already set in map'),
    Hostile("scalar-document", "just a string\n", "expected an object (a mapping), got a string"),
    Hostile("list-document", "- a\n- b\n", "expected an object (a mapping), got a list"),
    Hostile("number-document", "42\n", "expected an object (a mapping), got a number"),
    Hostile(
        "python-object-tag",
        '!!python/object/apply:os.system ["echo pwned"]\n',
        "unsupported tag tag:yaml.org,2002:python/object/apply:os.system",
    ),
    Hostile("custom-tag", "kind: !evil x\n", "unsupported tag !evil"),
    Hostile("set-tag", "kind: !!set {a, b}\n", "unsupported tag tag:yaml.org,2002:set"),
    Hostile("binary-tag", "kind: !!binary aGVsbG8=\n", "unsupported tag tag:yaml.org,2002:binary"),
    Hostile("nan-value", "spec: {x: .nan}\n", "unsupported value '.nan': not a finite number"),
    Hostile("infinity-value", "spec: {x: -.inf}\n", "unsupported value '-.inf': not a finite"),
    Hostile("collection-key", "? [a, b]\n: c\n", "mapping keys must be scalars"),
    Hostile("json-double-comma", '{"kind": [1, 2,, 3]}', "did not find expected node content"),
    Hostile("json-trailing-brace", '{"kind": 1}}', "did not find expected <document start>"),
    Hostile("directive-garbage", "%YAML 9.9\n---\nkind: a\n", "found incompatible YAML document"),
]


BASE_POLICY: dict = replica_limit(5, "too many", name="hostile.example.com")


def policy_with(path: str, value: Any, base: dict | None = None) -> dict:
    """BASE_POLICY with the value at dotted `path` (list indexes as numbers) replaced."""
    doc = copy.deepcopy(base or BASE_POLICY)
    *parents, last = path.split(".")
    node: Any = doc
    for part in parents:
        node = node[int(part)] if isinstance(node, list) else node[part]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return doc


def policy_without(key: str) -> dict:
    """BASE_POLICY without one top-level field."""
    return {k: v for k, v in copy.deepcopy(BASE_POLICY).items() if k != key}


def unmarshal(json_type: str, field: str, go_type: str) -> str:
    """The API server's strict-decoding message for a value of the wrong JSON type."""
    return f"json: cannot unmarshal {json_type} into Go struct field {field} of type {go_type}"


VAP = "ValidatingAdmissionPolicy"
SPEC = "ValidatingAdmissionPolicySpec"


def wrong_type(
    name: str, path: str, value: Any, json_type: str, go_type: str, struct: str = SPEC
) -> Hostile:
    """BASE_POLICY with a wrong-typed value at `path`, named as strict decoding names it."""
    return Hostile(
        name, policy_with(path, value), unmarshal(json_type, f"{struct}.{path}", go_type)
    )


RULES = "spec.matchConstraints.resourceRules"
EXPRESSION_GO = "Validation.spec.validations.expression"

DOCUMENT_INPUTS = [
    Hostile("missing-api-version", policy_without("apiVersion"), "apiVersion: Required value"),
    Hostile("missing-kind", policy_without("kind"), "kind: Required value"),
    Hostile(
        "unknown-api-version",
        policy_with("apiVersion", "admissionregistration.k8s.io/v9"),
        'no matches for kind "ValidatingAdmissionPolicy"',
    ),
    Hostile("api-version-number", policy_with("apiVersion", 5), "must be a string"),
    wrong_type("metadata-list", "metadata", ["a"], "array", "v1.ObjectMeta", VAP),
    wrong_type("name-number", "metadata.name", 5, "number", "string", "ObjectMeta"),
    Hostile(
        "name-not-dns",
        policy_with("metadata.name", "Bad_Name!"),
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters",
    ),
    wrong_type("spec-string", "spec", "nope", "string", f"v1.{SPEC}", VAP),
    wrong_type("validations-mapping", "spec.validations", {"a": 1}, "object", "[]v1.Validation"),
    wrong_type("validation-string", "spec.validations", ["x"], "string", "v1.Validation"),
    Hostile(
        "expression-number",
        policy_with("spec.validations.0", {"expression": 5}),
        unmarshal("number", EXPRESSION_GO, "string"),
    ),
    Hostile(
        "expression-mapping",
        policy_with("spec.validations.0", {"expression": {"a": 1}}),
        unmarshal("object", EXPRESSION_GO, "string"),
    ),
    Hostile(
        "expression-null",
        policy_with("spec.validations.0", {"expression": None}),
        "expression is not specified",
    ),
    Hostile(
        "failure-policy-unknown",
        policy_with("spec.failurePolicy", "Maybe"),
        'Unsupported value: "Maybe": supported values: "Fail", "Ignore"',
    ),
    wrong_type("failure-policy-number", "spec.failurePolicy", 1, "number", "string"),
    wrong_type(
        "match-constraints-list", "spec.matchConstraints", ["all"], "array", "v1.MatchResources"
    ),
    wrong_type(
        "resource-rule-string",
        RULES,
        ["everything"],
        "string",
        "v1.NamedRuleWithOperations",
        "MatchResources",
    ),
    wrong_type(
        "resource-rules-string",
        RULES,
        "all",
        "string",
        "[]v1.NamedRuleWithOperations",
        "MatchResources",
    ),
    Hostile(
        "operation-unknown",
        policy_with(f"{RULES}.0.operations", ["EXPLODE"]),
        'Unsupported value: "EXPLODE"',
    ),
    wrong_type("param-kind-string", "spec.paramKind", "ConfigMap", "string", "v1.ParamKind"),
    Hostile(
        "sixty-five-match-conditions",
        policy_with(
            "spec.matchConditions",
            [{"name": f"c{i}", "expression": "true"} for i in range(65)],
        ),
        "spec.matchConditions: Too many: 65: must have at most 64 items",
    ),
    Hostile(
        "message-with-line-break",
        policy_with("spec.validations.0", {"expression": "true", "message": "a\nb"}),
        "must not contain line breaks",
    ),
    Hostile(
        "binding-bad-action",
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "ValidatingAdmissionPolicyBinding",
            "metadata": {"name": "b"},
            "spec": {"policyName": "hostile.example.com", "validationActions": ["Explode"]},
        },
        'Unsupported value: "Explode": supported values: "Audit", "Deny", "Warn"',
    ),
    Hostile(
        "mutation-bad-patch-type",
        {
            "apiVersion": "admissionregistration.k8s.io/v1",
            "kind": "MutatingAdmissionPolicy",
            "metadata": {"name": "m"},
            "spec": {
                "matchConstraints": BASE_POLICY["spec"]["matchConstraints"],
                "reinvocationPolicy": "Never",
                "mutations": [{"patchType": "Teleport"}],
            },
        },
        'Unsupported value: "Teleport"',
    ),
]


BIG_LIST = "[" + ",".join(str(i) for i in range(1000)) + "]"

# Expressions refused when the policy is validated (compile time), with cel-go's wording.
CEL_COMPILE_INPUTS = [
    Hostile("cel-syntax-error", "object.spec.replicas <=", "Syntax error: mismatched input"),
    Hostile(
        "cel-bidi-override",
        "object.spec.replicas <= 5 \u202e|| true",
        "Syntax error: token recognition error at: '\u202e'",
    ),
    Hostile(
        "cel-zero-width-space",
        "object.spec.repl\u200bicas <= 5",
        "token recognition error at: '\u200b'",
    ),
    Hostile(
        "cel-cyrillic-homoglyph",
        "\u043ebject.spec.replicas <= 5",
        "token recognition error at: '\u043e'",
    ),
    Hostile("cel-nul-character", "object.spec.replicas\x00 <= 5", "token recognition error"),
    Hostile(
        "cel-type-error",
        "1 + 'a'",
        "found no matching overload for '_+_' applied to '(int, string)'",
    ),
    Hostile("cel-not-bool", "'a'", "must evaluate to bool but got string"),
    Hostile("cel-bad-regex", "'a'.matches('(')", "invalid matches argument"),
    Hostile(
        "cel-deep-nesting",
        "(" * 5000 + "1" + ")" * 5000 + " == 1",
        "expression nests more than 32 levels",
    ),
    Hostile(
        "cel-over-100000-code-points",
        "true && " * 13_000 + "true",
        "expression size exceeds the limit of 100000 code points",
    ),
]

# Expressions that compile but must stop at the runtime cost limit.
CEL_RUNAWAY_INPUTS = [
    Hostile(
        "cel-nested-comprehensions",
        f"{BIG_LIST}.all(x, {BIG_LIST}.all(y, {BIG_LIST}.all(z, x + y + z >= 0)))",
        "operation cancelled: actual cost limit exceeded",
    ),
    Hostile(
        "cel-quadratic-map",
        f"{BIG_LIST}.map(x, {BIG_LIST}.map(y, x * y)).size() > 0",
        "operation cancelled: actual cost limit exceeded",
    ),
    Hostile(
        "cel-string-building",
        f"{BIG_LIST}.map(x, {BIG_LIST}.map(y, 'abcdefghij')).map(l, l.join('')).join('')"
        ".size() > 0",
        "operation cancelled: actual cost limit exceeded",
    ),
]


def as_yaml(document: dict) -> str:
    """A document as the YAML someone would paste (strings kept as they are)."""
    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=10_000)


def policy_with_expression(expression: str) -> dict:
    """BASE_POLICY whose one validation is `expression`."""
    return policy_with("spec.validations.0", {"expression": expression, "message": "m"})


ALL = YAML_INPUTS + DOCUMENT_INPUTS + CEL_COMPILE_INPUTS + CEL_RUNAWAY_INPUTS
