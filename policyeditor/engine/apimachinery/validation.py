"""apimachinery's name and label validators (k8s.io/apimachinery pkg/util/validation/validation.go).

Go's byte lengths and messages, exactly: the API validation of policies and the CEL format library
(kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/cel/library/format.go) share these.
"""

from __future__ import annotations

import re

DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
    "'.', and must start and end with an alphanumeric character"
)
DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
DNS1035_LABEL_MSG = (
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
    "alphabetic character, and end with an alphanumeric character"
)
QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)
LABEL_VALUE_FMT = "(" + QUALIFIED_NAME_FMT + ")?"
LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "
    "'.', and must start and end with an alphanumeric character"
)

_DNS1123_LABEL = re.compile(f"^{DNS1123_LABEL_FMT}$")
_DNS1123_SUBDOMAIN = re.compile(f"^{DNS1123_SUBDOMAIN_FMT}$")
_DNS1035_LABEL = re.compile(f"^{DNS1035_LABEL_FMT}$")
_QUALIFIED_NAME = re.compile(f"^{QUALIFIED_NAME_FMT}$")
_LABEL_VALUE = re.compile(f"^{LABEL_VALUE_FMT}$")


def byte_len(value: str) -> int:
    """Go's len() of a string: its UTF-8 bytes (a lone surrogate counts, never raises)."""
    return len(value.encode("utf-8", "surrogatepass"))


def match_fully(pattern: re.Pattern[str], value: str) -> bool:
    # Go's `$` never matches before a trailing newline; Python's does unless fullmatch is used
    return pattern.fullmatch(value) is not None


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """apimachinery RegexError (note the double space Go's loop leaves before ` or`)."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    text = msg + " (e.g. "
    for index, example in enumerate(examples):
        if index > 0:
            text += " or "
        text += f"'{example}', "
    return text + f"regex used for validation is '{fmt}')"


def max_len_error(length: int) -> str:
    """apimachinery MaxLenError."""
    return f"must be no more than {length} characters"


def _bounded_match(
    value: str, limit: int, pattern: re.Pattern[str], msg: str, fmt: str, *examples: str
) -> list[str]:
    """A MaxLenError past `limit` bytes, then a RegexError unless `pattern` matches all of it."""
    errors = [max_len_error(limit)] if byte_len(value) > limit else []
    if not match_fully(pattern, value):
        errors.append(regex_error(msg, fmt, *examples))
    return errors


def is_dns1123_label(value: str) -> list[str]:
    """IsDNS1123Label."""
    errors = []
    if byte_len(value) > 63:
        errors.append(max_len_error(63))
    if not match_fully(_DNS1123_LABEL, value):
        if match_fully(_DNS1123_SUBDOMAIN, value):
            errors.append("must not contain dots")
        else:
            errors.append(regex_error(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errors


def is_dns1123_subdomain(value: str) -> list[str]:
    """IsDNS1123Subdomain."""
    return _bounded_match(
        value, 253, _DNS1123_SUBDOMAIN, DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"
    )


def is_dns1035_label(value: str) -> list[str]:
    """IsDNS1035Label."""
    return _bounded_match(
        value, 63, _DNS1035_LABEL, DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"
    )


def is_qualified_name(value: str) -> list[str]:
    """IsQualifiedName."""
    errors: list[str] = []
    parts = value.split("/")
    name_regex_error = regex_error(
        QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name", "123-abc"
    )
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return [
            "a qualified name "
            + name_regex_error
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    if not name:
        errors.append("name part must be non-empty")
    elif byte_len(name) > 63:
        errors.append("name part " + max_len_error(63))
    if not match_fully(_QUALIFIED_NAME, name):
        errors.append("name part " + name_regex_error)
    return errors


def is_valid_label_value(value: str) -> list[str]:
    """IsValidLabelValue."""
    return _bounded_match(
        value, 63, _LABEL_VALUE, LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"
    )
