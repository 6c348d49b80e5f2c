"""Conversion of CEL results to plain JSON-shaped Python, and of inputs to what CEL accepts."""

from __future__ import annotations

import base64
import datetime
import marshal
from typing import Any

from google.protobuf import duration_pb2, text_format, timestamp_pb2
from google.protobuf.message import Message

from policyeditor.engine.cel.runtime.functions import TYPE_KEY
from policyeditor.engine.cel.runtime.wellknown import protobuf_time

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


def go_duration_string(delta: datetime.timedelta) -> str:
    """A duration as CEL's string() prints it: seconds with an `s` ("60s", "1.5s")."""
    micros = (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds
    sign = "-" if micros < 0 else ""
    micros = abs(micros)
    seconds, frac = divmod(micros, 1_000_000)
    if frac:
        return f"{sign}{seconds}.{frac:06d}".rstrip("0") + "s"
    return f"{sign}{seconds}s"


def rfc3339(moment: datetime.datetime) -> str:
    """A timestamp as CEL's string() prints it (UTC, `Z`, fractional seconds only when set)."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.UTC).replace(tzinfo=None)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if moment.microsecond:
        text += f".{moment.microsecond:06d}".rstrip("0")
    return text + "Z"


_SCALARS = frozenset((str, int, bool, float, type(None)))


def to_plain(value: Any) -> Any:
    """A CEL plain_value() result as JSON-shaped Python (see EvalResult for the rules)."""
    # Leaves are tested inline (exact types, as plain_value() makes them): this runs on every
    # result and most of its time is spent on scalars.
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        return {
            (k if type(k) in _SCALARS else to_plain(k)): (v if type(v) in _SCALARS else to_plain(v))
            for k, v in value.items()
            if k != TYPE_KEY
        }
    if kind is list:
        return [v if type(v) in _SCALARS else to_plain(v) for v in value]
    return _other_to_plain(value)


def plain_view(value: Any) -> Any:
    """to_plain(value), but value itself when it already is plain (no copy is made)."""
    return value if _is_plain(value) else to_plain(value)


def _is_plain(value: Any) -> bool:
    # What to_plain would copy unchanged: scalars, and dicts/lists of them without markers.
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is dict:
        for k, v in value.items():
            if type(k) not in _SCALARS or k == TYPE_KEY:
                return False
            if type(v) not in _SCALARS and not _is_plain(v):
                return False
        return True
    if kind is list:
        for v in value:  # noqa: SIM110 - a plain loop: all() over a generator is slower here
            if type(v) not in _SCALARS and not _is_plain(v):
                return False
        return True
    return False


def _other_to_plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (bytes, bytearray)):
        # JSON has no bytes: Kubernetes (Go encoding/json) writes []byte as base64.
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {to_plain(k): to_plain(v) for k, v in value.items() if k != TYPE_KEY}
    if isinstance(value, (list, tuple)):
        return [to_plain(item) for item in value]
    if isinstance(value, datetime.timedelta):
        return go_duration_string(value)
    if isinstance(value, datetime.datetime):
        return rfc3339(value)
    if isinstance(value, duration_pb2.Duration):  # variables' values in the engine form
        return go_duration_string(value.ToTimedelta())
    if isinstance(value, timestamp_pb2.Timestamp):
        return rfc3339(value.ToDatetime())
    if isinstance(value, Message):
        to_string = getattr(value, "to_cel_string", None)
        if callable(to_string):
            return to_string()
        return text_format.MessageToString(value, as_one_line=True)
    return str(value)


def to_engine(value: Any) -> Any:
    """A plain_value() result in the form cel-expr-python accepts back from a function."""
    try:
        # marshal refuses exactly the non-builtin values (datetimes, messages): a C-speed test
        # that nothing needs converting, which is the common case.
        marshal.dumps(value)
        return value
    except ValueError:
        return _engine_walk(value)


def _engine_walk(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _engine_walk(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_engine_walk(v) for v in value]
    # Functions cannot return datetime values; the protobuf well-known types read the same.
    return protobuf_time(value)


def sanitize_input(value: Any) -> Any:
    """JSON input as Kubernetes decodes it: integers beyond int64 become doubles, tuples lists."""
    if isinstance(value, bool) or value is None or isinstance(value, (str, float)):
        return value
    if isinstance(value, int):
        return value if _INT64_MIN <= value <= _INT64_MAX else float(value)
    if isinstance(value, dict):
        return {str(k): sanitize_input(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [sanitize_input(v) for v in value]
    return value


def namespace_value(namespace: Any) -> Any:
    """namespaceObject as Kubernetes exposes it: absent labels/annotations read as empty maps."""
    if not isinstance(namespace, dict):
        return namespace
    metadata = namespace.get("metadata")
    metadata = dict(metadata) if isinstance(metadata, dict) else {}
    metadata.setdefault("labels", {})
    metadata.setdefault("annotations", {})
    out = dict(namespace)
    out["metadata"] = metadata
    return out
