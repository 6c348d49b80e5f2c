"""apimachinery's error rendering and name validators, word for word."""

from __future__ import annotations

from policyeditor.engine.apimachinery import (
    go_quote,
    invalid,
    is_dns1035_label,
    is_dns1123_subdomain,
    is_path_segment_name,
    is_qualified_name,
    is_valid_label_value,
    name_is_dns_subdomain,
    not_supported,
    required,
    too_many,
    validate_label_selector,
    validate_object_meta,
)

DNS1123 = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
QNAME_PART = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation "
    "is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)


def test_go_quote_escapes_like_go():
    assert go_quote('a"b\\c\n\t\x01é') == '"a\\"b\\\\c\\n\\t\\x01é"'


def test_error_renderings_follow_field_error():
    assert str(required("spec.x")) == "spec.x: Required value"
    assert str(required("spec.x", "why")) == "spec.x: Required value: why"
    assert str(invalid("a", ["*/*", "a"], "d")) == 'a: Invalid value: ["*/*","a"]: d'
    assert str(invalid("a", 6, "d")) == "a: Invalid value: 6: d"
    assert str(not_supported("spec.failurePolicy", "other", ["Fail", "Ignore"])) == (
        'spec.failurePolicy: Unsupported value: "other": supported values: "Fail", "Ignore"'
    )
    assert (
        str(too_many("spec.matchConditions", 65, 64))
        == "spec.matchConditions: Too many: 65: must have at most 64 items"
    )


def test_dns1123_subdomain_message_and_length():
    assert is_dns1123_subdomain("!!!!") == [DNS1123]
    assert is_dns1123_subdomain("a.b-c") == []
    assert is_dns1123_subdomain("a" * 254) == ["must be no more than 253 characters"]


def test_dns1035_label_rejects_leading_digits():
    assert is_dns1035_label("v1") == []
    assert is_dns1035_label("1v")[0].startswith("a DNS-1035 label must consist of")
    assert "(e.g. 'my-name',  or 'abc-123'," in is_dns1035_label("1v")[0]


def test_qualified_name_parts():
    assert is_qualified_name("example.com/My_Name") == []
    assert is_qualified_name("config/@") == ["name part " + QNAME_PART]
    assert is_qualified_name("nope!/key")[0].startswith(
        "prefix part a lowercase RFC 1123 subdomain"
    )
    assert is_qualified_name("/x") == ["prefix part must be non-empty"]
    assert is_qualified_name("a/b/c")[0].startswith("a qualified name must consist of")
    assert is_qualified_name("x" * 64) == ["name part must be no more than 63 characters"]


def test_label_values_may_be_empty_but_not_odd():
    assert is_valid_label_value("") == []
    assert is_valid_label_value("-x")[0].startswith(
        "a valid label must be an empty string or consist"
    )


def test_path_segment_names():
    assert is_path_segment_name("..") == ["may not be '..'"]
    assert is_path_segment_name("/./.") == ["may not contain '/'"]
    assert is_path_segment_name("a%/b") == ["may not contain '/'", "may not contain '%'"]
    assert is_path_segment_name("ok") == []


def test_label_selector_operator_rules():
    selector = {
        "matchLabels": {"bad key!": "v"},
        "matchExpressions": [
            {"key": "a", "operator": "In"},
            {"key": "b", "operator": "Exists", "values": ["x"]},
            {"key": "c", "operator": "Near", "values": ["-bad"]},
        ],
    }
    rendered = [str(e) for e in validate_label_selector(selector, "spec.objectSelector")]
    assert rendered[0].startswith(
        'spec.objectSelector.matchLabels: Invalid value: "bad key!": name part'
    )
    assert (
        "spec.objectSelector.matchExpressions[0].values: Required value: must be specified when "
        "`operator` is 'In' or 'NotIn'"
    ) in rendered
    assert (
        "spec.objectSelector.matchExpressions[1].values: Forbidden: may not be specified when "
        "`operator` is 'Exists' or 'DoesNotExist'"
    ) in rendered
    assert (
        'spec.objectSelector.matchExpressions[2].operator: Invalid value: "Near": not a valid selector operator'
        in rendered
    )
    assert any(
        line.startswith('spec.objectSelector.matchExpressions[2].values[0]: Invalid value: "-bad"')
        for line in rendered
    )


def test_object_meta_rules():
    assert [str(e) for e in validate_object_meta({})] == [
        "metadata.name: Required value: name or generateName is required"
    ]
    assert validate_object_meta({"generateName": "policy-"}) == []
    rendered = [
        str(e)
        for e in validate_object_meta({"name": "x", "namespace": "default", "generation": -1})
    ]
    assert rendered == [
        "metadata.namespace: Forbidden: not allowed on this type",
        "metadata.generation: Invalid value: -1: must be greater than or equal to 0",
    ]
    big = {"name": "x", "annotations": {"a": "x" * (256 * 1024)}}
    assert [str(e) for e in validate_object_meta(big)] == [
        "metadata.annotations: Too long: may not be more than 262144 bytes"
    ]


def test_generate_name_prefix_masks_its_trailing_dash_like_go():
    assert name_is_dns_subdomain("policy-", True) == []
    assert name_is_dns_subdomain("ab--", True) == []  # Go checks "aba"
    assert name_is_dns_subdomain("ab--", False) != []
    assert name_is_dns_subdomain("-", True) != []


def test_values_that_are_not_json_still_render():
    assert str(invalid("kind", {(1,): 2})) == 'kind: Invalid value: "{(1,): 2}"'
    assert str(invalid("kind", b"x")) == "kind: Invalid value: \"b'x'\""
