"""kubernetes.format: named formats, validate() messages, and the optional rewrite."""

from __future__ import annotations

import pytest

from policyeditor.engine.cel.library import formats, formats_decls
from tests.engine.cel.library.helpers import eval_error, evaluate

FORMAT = ("kubernetes.format",)
LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used"
    " for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
)


def test_dns1123_label_message_keeps_go_double_space() -> None:
    assert formats.validate("dns1123Label", "Not_Valid") == [LABEL_MSG]


def test_a_valid_subdomain_that_is_not_a_label_says_no_dots() -> None:
    assert formats.validate("dns1123Label", "a.b") == ["must not contain dots"]


def test_length_limits_come_first() -> None:
    assert formats.validate("dns1123Label", "a" * 64) == ["must be no more than 63 characters"]
    assert formats.validate("dns1123Subdomain", "a" * 254)[0] == (
        "must be no more than 253 characters"
    )


def test_prefix_formats_mask_a_trailing_dash_like_apimachinery() -> None:
    assert formats.validate("dns1123LabelPrefix", "my-prefix-") == []
    assert formats.validate("dns1123SubdomainPrefix", "my.prefix.-") == []
    assert formats.validate("dns1035LabelPrefix", "abc-") == []
    assert formats.validate("dns1123Label", "my-prefix-") != []


def test_qualified_name_checks_prefix_and_name_parts() -> None:
    assert formats.validate("qualifiedName", "example.com/MyName") == []
    assert formats.validate("qualifiedName", "/x") == ["prefix part must be non-empty"]
    assert formats.validate("qualifiedName", "a/b/c")[0].startswith("a qualified name must consist")
    assert formats.validate("qualifiedName", "Bad_/x")[0].startswith("prefix part a lowercase")


def test_label_values_may_be_empty() -> None:
    assert formats.validate("labelValue", "") == []
    assert formats.validate("labelValue", "-x")[0].startswith("a valid label must be an empty")


@pytest.mark.parametrize(
    ("name", "good", "bad", "message"),
    [
        ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123", "does not match the UUID format"),
        ("byte", "aGVsbG8=", "aGVsbG8", "invalid base64"),
        ("date", "2024-02-29", "2023-02-29", "invalid date"),
        ("datetime", "2021-01-01T10:00:00.5+01:00", "2021-01-01T25:00:00Z", "invalid datetime"),
        (
            "uri",
            "https://example.com/x",
            "example.com",
            'parse "example.com": invalid URI for request',
        ),
    ],
)
def test_data_formats(name: str, good: str, bad: str, message: str) -> None:
    assert formats.validate(name, good) == []
    assert formats.validate(name, bad) == [message]


def test_validate_returns_an_optional_list() -> None:
    assert evaluate("format.dns1123Label().validate('ok').hasValue()", FORMAT) is False
    assert evaluate("format.dns1123Label().validate('NO').value()", FORMAT) == [LABEL_MSG]
    assert (
        evaluate(
            "format.uuid().validate('x') == optional.of(['does not match the UUID format'])", FORMAT
        )
        is True
    )
    assert evaluate("format.byte().validate('aGVsbG8=') == optional.none()", FORMAT) is True


def test_named_returns_an_optional_format() -> None:
    assert evaluate("format.named('labelValue').value() == format.labelValue()", FORMAT) is True
    assert evaluate("format.named('nope').hasValue()", FORMAT) is False
    assert evaluate("format.named('uuid').value().validate('x').hasValue()", FORMAT) is True


def test_formats_equal_only_themselves() -> None:
    assert evaluate("format.date() == format.date()", FORMAT) is True
    assert evaluate("format.date() == format.datetime()", FORMAT) is False


def test_validate_with_a_wrong_argument_type_does_not_type_check() -> None:
    error = eval_error("format.date().validate(1)", FORMAT)
    assert error.phase == "compile"


def test_rewrite_inserts_the_optional_index_after_each_call() -> None:
    source = "format.named('x').value().validate(f('a)', \"b(\")).hasValue()"
    assert formats_decls.rewrite_source(source) == (
        'format.named(\'x\')[?""].value().validate(f(\'a)\', "b("))[?""].hasValue()'
    )


def test_rewrite_leaves_other_calls_and_strings_alone() -> None:
    for source in (
        "object.validate == 1",
        "'x.validate(y)' == 'x'",
        "myformat.named('x')",
        "a.format.named('x')",
        "named('x')",
    ):
        assert formats_decls.rewrite_source(source) == source
