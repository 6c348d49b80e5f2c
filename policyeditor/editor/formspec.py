"""What the editor form shows for each document kind: sections of fields keyed by their path."""

from __future__ import annotations

from dataclasses import dataclass, field

OPERATIONS = ("CREATE", "UPDATE", "DELETE", "CONNECT", "*")
SCOPES = ("", "*", "Cluster", "Namespaced")
SELECTOR_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")
REASONS = ("", "Unauthorized", "Forbidden", "Invalid", "RequestEntityTooLarge")


@dataclass(frozen=True)
class Field:
    """One form control (or group of them) bound to `key`, a dotted path in its parent object."""

    # widget is one of: text, select, cel, strings (comma-separated list), checks (multiple
    # choice list), map (string-to-string rows), rows (a list of objects with `fields`),
    # group (a nested object with `fields`).

    key: str
    label: str
    widget: str = "text"
    choices: tuple[str, ...] = ()
    fields: tuple[Field, ...] = ()
    context: str = ""  # CEL context (cel.Context value) for cel widgets
    placeholder: str = ""
    datalist: str = ""  # id of a <datalist> with suggestions
    row_label: str = ""  # the "+ Add ..." noun for rows
    # Shown behind the "More options" toggle of its section or row, open when it holds a value.
    advanced: bool = False


@dataclass(frozen=True)
class Section:
    """A foldable part of the form."""

    slug: str
    title: str
    summary: str
    fields: tuple[Field, ...] = field(default_factory=tuple)


def _rule_fields() -> tuple[Field, ...]:
    return (
        Field("apiGroups", "API groups", "strings", placeholder='apps, "" (core)'),
        Field("apiVersions", "API versions", "strings", placeholder="v1, *"),
        Field("operations", "Operations", "checks", choices=OPERATIONS),
        Field(
            "resources",
            "Resources",
            "strings",
            placeholder="deployments, pods/status",
            datalist="resources",
        ),
        Field("resourceNames", "Resource names", "strings", placeholder="(any)", advanced=True),
        Field("scope", "Scope", "select", choices=SCOPES, advanced=True),
    )


def _selector(key: str, label: str, advanced: bool = False) -> Field:
    return Field(
        key,
        label,
        "group",
        advanced=advanced,
        fields=(
            Field("matchLabels", "Match labels", "map"),
            Field(
                "matchExpressions",
                "Match expressions",
                "rows",
                row_label="expression",
                fields=(
                    Field("key", "Key"),
                    Field("operator", "Operator", "select", choices=("",) + SELECTOR_OPERATORS),
                    Field("values", "Values", "strings"),
                ),
            ),
        ),
    )


def _match_fields(prefix: str) -> tuple[Field, ...]:
    return (
        Field(
            f"{prefix}.resourceRules",
            "Resource rules",
            "rows",
            fields=_rule_fields(),
            row_label="rule",
        ),
        Field(
            f"{prefix}.excludeResourceRules",
            "Exclude resource rules",
            "rows",
            fields=_rule_fields(),
            row_label="exclusion",
            advanced=True,
        ),
        Field(
            f"{prefix}.matchPolicy",
            "Match policy",
            "select",
            choices=("", "Equivalent", "Exact"),
            advanced=True,
        ),
        _selector(f"{prefix}.namespaceSelector", "Namespace selector"),
        _selector(f"{prefix}.objectSelector", "Object selector", advanced=True),
    )


def _metadata() -> tuple[Field, ...]:
    return (
        Field("metadata.name", "Name", placeholder="my-policy.example.com"),
        Field("metadata.labels", "Labels", "map", advanced=True),
        Field("metadata.annotations", "Annotations", "map", advanced=True),
    )


def _rows_section(
    heading: tuple[str, str, str], key: str, row_label: str, *fields: Field
) -> Section:
    """A section (slug, title, summary) holding one list of rows at `key`, labelled as its title."""
    slug, title, summary = heading
    return Section(
        slug, title, summary, (Field(key, title, "rows", fields=fields, row_label=row_label),)
    )


def _named_cel(context: str) -> tuple[Field, ...]:
    """The fields of a named CEL expression (a match condition, a variable)."""
    return (Field("name", "Name"), Field("expression", "Expression", "cel", context=context))


def _common_policy(mutating: bool) -> list[Section]:
    basics = list(_metadata()) + [
        Field("spec.failurePolicy", "Failure policy", "select", choices=("", "Fail", "Ignore")),
        Field(
            "spec.paramKind.apiVersion",
            "Param kind: apiVersion",
            placeholder="rules.example.com/v1",
        ),
        Field("spec.paramKind.kind", "Param kind: kind", placeholder="ReplicaLimit"),
    ]
    if mutating:
        basics.append(
            Field(
                "spec.reinvocationPolicy",
                "Reinvocation policy",
                "select",
                choices=("", "Never", "IfNeeded"),
            )
        )
    return [
        Section("basics", "Basics", "name, failure policy, params", tuple(basics)),
        Section(
            "match", "Match", "resource rules, selectors", _match_fields("spec.matchConstraints")
        ),
        _rows_section(
            ("conditions", "Match conditions", "CEL filters applied before the policy"),
            "spec.matchConditions",
            "condition",
            *_named_cel("matchCondition"),
        ),
        _rows_section(
            ("variables", "Variables", "named CEL values, usable as variables.<name>"),
            "spec.variables",
            "variable",
            *_named_cel("variable"),
        ),
    ]


VALIDATION_SECTIONS: tuple[Section, ...] = (
    *_common_policy(mutating=False),
    _rows_section(
        ("validations", "Validations", "the checks; false denies"),
        "spec.validations",
        "validation",
        Field("expression", "Expression", "cel", context="validation"),
        Field("message", "Message"),
        Field("messageExpression", "Message expression", "cel", context="messageExpression"),
        Field("reason", "Reason", "select", choices=REASONS, advanced=True),
    ),
    _rows_section(
        ("audit", "Audit annotations", "values written to the audit log"),
        "spec.auditAnnotations",
        "audit annotation",
        Field("key", "Key"),
        Field("valueExpression", "Value expression", "cel", context="auditAnnotation"),
    ),
)

MUTATING_SECTIONS: tuple[Section, ...] = (
    *_common_policy(mutating=True),
    _rows_section(
        ("mutations", "Mutations", "patches applied in order"),
        "spec.mutations",
        "mutation",
        Field("patchType", "Patch type", "select", choices=("", "ApplyConfiguration", "JSONPatch")),
        Field(
            "applyConfiguration.expression",
            "ApplyConfiguration expression",
            "cel",
            context="mutation",
        ),
        Field("jsonPatch.expression", "JSONPatch expression", "cel", context="mutation"),
    ),
)


def _binding_sections(mutating: bool) -> tuple[Section, ...]:
    spec = [Field("spec.policyName", "Policy name")]
    if not mutating:
        spec.append(
            Field(
                "spec.validationActions",
                "Validation actions",
                "checks",
                choices=("Deny", "Warn", "Audit"),
            )
        )
    spec += [
        Field("spec.paramRef.name", "Param name"),
        Field("spec.paramRef.namespace", "Param namespace"),
        _selector("spec.paramRef.selector", "Param selector", advanced=True),
        Field(
            "spec.paramRef.parameterNotFoundAction",
            "Parameter not found action",
            "select",
            choices=("", "Allow", "Deny"),
        ),
    ]
    return (
        Section("binding", "Binding", "policy, actions, params", (*_metadata()[:2], *spec)),
        Section(
            "binding-match",
            "Binding match resources",
            "narrows where it applies",
            _match_fields("spec.matchResources"),
        ),
    )


SECTIONS_BY_KIND: dict[str, tuple[Section, ...]] = {
    "ValidatingAdmissionPolicy": VALIDATION_SECTIONS,
    "MutatingAdmissionPolicy": MUTATING_SECTIONS,
    "ValidatingAdmissionPolicyBinding": _binding_sections(mutating=False),
    "MutatingAdmissionPolicyBinding": _binding_sections(mutating=True),
}


def sections_for(kind: str) -> tuple[Section, ...] | None:
    """The form sections of a document kind, None for kinds edited as YAML (param objects)."""
    return SECTIONS_BY_KIND.get(kind)


def find_field(kind: str, key_path: str) -> Field | None:
    """The field (possibly nested: keys joined by '/') of a kind, for adding rows by URL."""
    sections = sections_for(kind) or ()
    candidates: tuple[Field, ...] = tuple(f for s in sections for f in s.fields)
    found = None
    for part in key_path.split("/"):
        found = next((f for f in candidates if f.key == part), None)
        if found is None:
            return None
        candidates = found.fields
    return found
