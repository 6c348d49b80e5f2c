"""Go-exact checks of duration, timestamp and regex literals (cel-go's AST validators)."""

from __future__ import annotations

import re

import re2

_UNITS = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,
    "ms": 1_000_000,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
_MAX_NANOS = 2**63 - 1
_COMPONENT = re.compile(r"(\d*)(?:\.(\d*))?([^\d.]*)")


def go_duration_nanos(text: str) -> int | None:
    """Go time.ParseDuration: the duration in nanoseconds, or None if Go rejects it."""
    s = text
    negative = False
    if s[:1] in ("-", "+"):
        negative = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    if not s:
        return None
    total = 0
    while s:
        match = _COMPONENT.match(s)
        if match is None:
            return None
        whole, frac, unit = match.group(1), match.group(2), match.group(3)
        if not whole and not frac:
            return None
        if unit not in _UNITS:
            return None
        scale = _UNITS[unit]
        value = int(whole or "0") * scale
        if frac:
            value += int(frac) * scale // 10 ** len(frac)
        total += value
        if total > _MAX_NANOS + (1 if negative else 0):
            return None
        s = s[match.end() :]
    return -total if negative else total


# CEL durations are limited to about ±10000 years; Go's int64 nanoseconds are stricter (±292y).
def valid_duration(text: str) -> bool:
    """True when duration(text) succeeds in cel-go."""
    return go_duration_nanos(text) is not None


_RFC3339 = re.compile(
    r"(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))\Z"
)
_DAYS = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
# CEL timestamps range over 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999999Z.
MIN_UNIX = -62135596800
MAX_UNIX = 253402300799


def _leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_from_civil(y: int, m: int, d: int) -> int:
    y -= m <= 2
    era = (y if y >= 0 else y - 399) // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def timestamp_seconds(text: str) -> int | None:
    """Go time.Parse(RFC3339) as cel-go uses it: Unix seconds, or None when rejected."""
    match = _RFC3339.match(text)
    if match is None:
        return None
    year, month, day, hour, minute, second = (int(match.group(i)) for i in range(1, 7))
    if not 1 <= month <= 12 or day < 1 or day > _DAYS[month - 1]:
        return None
    if month == 2 and day == 29 and not _leap(year):
        return None
    if hour > 23 or minute > 59 or second > 59:
        return None
    offset = 0
    if match.group(9):
        oh, om = int(match.group(10)), int(match.group(11))
        if oh > 23 or om > 59:
            return None
        offset = (oh * 3600 + om * 60) * (1 if match.group(9) == "+" else -1)
    seconds = _days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second
    return seconds - offset


def valid_timestamp_string(text: str) -> bool:
    """True when timestamp(text) succeeds in cel-go (RFC 3339, year 1..9999 in UTC)."""
    seconds = timestamp_seconds(text)
    return seconds is not None and MIN_UNIX <= seconds <= MAX_UNIX


def valid_timestamp_int(value: int) -> bool:
    """True when timestamp(int) succeeds in cel-go."""
    return MIN_UNIX <= value <= MAX_UNIX


_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # RE2 would print every rejected pattern to stderr

# RE2 (C++) wording -> Go regexp/syntax wording for the same problem.
_GO_REGEX_WORDING = {
    "missing ): ": "missing closing ): ",
    "missing ]: ": "missing closing ]: ",
    "bad repetition operator: ": "invalid nested repetition operator: ",
}


def regex_error(pattern: str) -> str | None:
    """None when RE2 accepts pattern, else Go's `error parsing regexp: ...` text."""
    try:
        re2.compile(pattern, _RE2_OPTIONS)
    except Exception as exc:  # noqa: BLE001 - any rejection counts as invalid
        detail = exc.args[0] if exc.args else str(exc)
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        return "error parsing regexp: " + go_regex_detail(str(detail))
    return None


def go_regex_detail(detail: str) -> str:
    """'unexpected ): )' (RE2) -> 'unexpected ): `)`' (Go)."""
    head, sep, arg = detail.partition(": ")
    if not sep:
        return detail
    head_sep = head + sep
    head_sep = _GO_REGEX_WORDING.get(head_sep, head_sep)
    return f"{head_sep}`{arg}`"
