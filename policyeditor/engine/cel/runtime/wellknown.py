"""Python durations and timestamps as the protobuf well-known types cel-expr-python takes."""

from __future__ import annotations

import datetime
from typing import Any

from google.protobuf import duration_pb2, timestamp_pb2


def protobuf_time(value: Any) -> Any:
    """A timedelta or datetime as its protobuf Duration or Timestamp; any other value as it is.

    cel-expr-python takes neither Python type as activation data or a dyn result; a naive
    datetime counts as UTC (as Timestamp.FromDatetime reads it).
    """
    if isinstance(value, datetime.timedelta):
        duration = duration_pb2.Duration()
        duration.FromTimedelta(value)
        return duration
    if isinstance(value, datetime.datetime):
        stamp = timestamp_pb2.Timestamp()
        stamp.FromDatetime(value)
        return stamp
    return value
