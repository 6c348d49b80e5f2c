"""apimachinery validators behind kubernetes.format, with their exact messages."""

from __future__ import annotations

import base64
import binascii
import calendar
import re
from collections.abc import Callable

from policyeditor.engine.cel.library import urls

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
_UUID = re.compile("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def byte_len(value: str) -> int:
    """Go's len() of a string: its UTF-8 bytes (a lone surrogate counts, never raises)."""
    return len(value.encode("utf-8", "surrogatepass"))


def _match(pattern: re.Pattern[str], value: str) -> bool:
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


def dns1123_label_errors(value: str) -> list[str]:
    """IsDNS1123Label."""
    errors = []
    if byte_len(value) > 63:
        errors.append(max_len_error(63))
    if not _match(_DNS1123_LABEL, value):
        if _match(_DNS1123_SUBDOMAIN, value):
            errors.append("must not contain dots")
        else:
            errors.append(regex_error(DNS1123_LABEL_MSG, DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return errors


def dns1123_subdomain_errors(value: str) -> list[str]:
    """IsDNS1123Subdomain."""
    errors = []
    if byte_len(value) > 253:
        errors.append(max_len_error(253))
    if not _match(_DNS1123_SUBDOMAIN, value):
        errors.append(regex_error(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errors


def dns1035_label_errors(value: str) -> list[str]:
    """IsDNS1035Label."""
    errors = []
    if byte_len(value) > 63:
        errors.append(max_len_error(63))
    if not _match(_DNS1035_LABEL, value):
        errors.append(regex_error(DNS1035_LABEL_MSG, DNS1035_LABEL_FMT, "my-name", "abc-123"))
    return errors


def qualified_name_errors(value: str) -> list[str]:
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
            errors.extend("prefix part " + m for m in dns1123_subdomain_errors(prefix))
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
    if not _match(_QUALIFIED_NAME, name):
        errors.append("name part " + name_regex_error)
    return errors


def label_value_errors(value: str) -> list[str]:
    """IsValidLabelValue."""
    errors = []
    if byte_len(value) > 63:
        errors.append(max_len_error(63))
    if not _match(_LABEL_VALUE, value):
        errors.append(regex_error(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errors


def _mask_trailing_dash(name: str) -> str:
    # apimachinery maskTrailingDash: replaces the last *two* characters with "a"
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def uri_errors(value: str) -> list[str]:
    """url.ParseRequestURI's error, if any."""
    try:
        urls.parse_request_uri(value)
    except urls.URLError as exc:
        return [str(exc)]
    return []


def uuid_errors(value: str) -> list[str]:
    """The UUID format."""
    return [] if _match(_UUID, value) else ["does not match the UUID format"]


def byte_errors(value: str) -> list[str]:
    """base64.StdEncoding.DecodeString (Go skips CR and LF)."""
    try:
        base64.b64decode(value.replace("\r", "").replace("\n", "").encode(), validate=True)
    except (binascii.Error, ValueError):
        return ["invalid base64"]
    return []


_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATETIME = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?"
)


def _valid_date(year: str, month: str, day: str) -> bool:
    y, m, d = int(year), int(month), int(day)
    return 1 <= m <= 12 and 1 <= d <= calendar.monthrange(max(y, 1), m)[1]


def date_errors(value: str) -> list[str]:
    """time.Parse("2006-01-02")."""
    match = _DATE.fullmatch(value)
    return [] if match and _valid_date(*match.groups()) else ["invalid date"]


def datetime_errors(value: str) -> list[str]:
    """strfmt.ParseDateTime (RFC 3339 and the ISO 8601 variants go-openapi accepts)."""
    match = _DATETIME.fullmatch(value)
    if not match or not _valid_date(*match.groups()[:3]):
        return ["invalid datetime"]
    hour, minute, second = int(match[4]), int(match[5]), int(match[6] or 0)
    zone = match[7] or ""
    if hour > 23 or minute > 59 or second > 59:
        return ["invalid datetime"]
    if zone and zone != "Z":
        digits = zone[1:].replace(":", "")
        if int(digits[:2]) > 23 or int(digits[2:]) > 59:
            return ["invalid datetime"]
    return []


# name -> (validator, maxRegexSize used by the cost model)
FORMATS: dict[str, tuple[Callable[[str], list[str]], int]] = {
    "dns1123Label": (dns1123_label_errors, 30),
    "dns1123Subdomain": (dns1123_subdomain_errors, 60),
    "dns1035Label": (dns1035_label_errors, 30),
    "qualifiedName": (qualified_name_errors, 60),
    "dns1123LabelPrefix": (lambda s: dns1123_label_errors(_mask_trailing_dash(s)), 30),
    "dns1123SubdomainPrefix": (lambda s: dns1123_subdomain_errors(_mask_trailing_dash(s)), 60),
    "dns1035LabelPrefix": (lambda s: dns1035_label_errors(_mask_trailing_dash(s)), 30),
    "labelValue": (label_value_errors, 40),
    "uri": (uri_errors, 1103),
    "uuid": (uuid_errors, 40),
    "byte": (byte_errors, 0),
    "date": (date_errors, 0),
    "datetime": (datetime_errors, 0),
}


def validate(name: str, value: str) -> list[str]:
    """The messages of format `name` for `value` (empty when valid)."""
    return FORMATS[name][0](value)
