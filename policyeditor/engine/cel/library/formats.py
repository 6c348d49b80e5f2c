"""apimachinery validators behind kubernetes.format, with their exact messages."""

from __future__ import annotations

import base64
import binascii
import calendar
import re
from collections.abc import Callable

from policyeditor.engine.apimachinery.validation import (
    is_dns1035_label,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_qualified_name,
    is_valid_label_value,
    match_fully,
)
from policyeditor.engine.cel.library import urls

_UUID = re.compile("^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


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
    return [] if match_fully(_UUID, value) else ["does not match the UUID format"]


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
    "dns1123Label": (is_dns1123_label, 30),
    "dns1123Subdomain": (is_dns1123_subdomain, 60),
    "dns1035Label": (is_dns1035_label, 30),
    "qualifiedName": (is_qualified_name, 60),
    "dns1123LabelPrefix": (lambda s: is_dns1123_label(_mask_trailing_dash(s)), 30),
    "dns1123SubdomainPrefix": (lambda s: is_dns1123_subdomain(_mask_trailing_dash(s)), 60),
    "dns1035LabelPrefix": (lambda s: is_dns1035_label(_mask_trailing_dash(s)), 30),
    "labelValue": (is_valid_label_value, 40),
    "uri": (uri_errors, 1103),
    "uuid": (uuid_errors, 40),
    "byte": (byte_errors, 0),
    "date": (date_errors, 0),
    "datetime": (datetime_errors, 0),
}


def validate(name: str, value: str) -> list[str]:
    """The messages of format `name` for `value` (empty when valid)."""
    return FORMATS[name][0](value)
