"""Impact analysis: stream a cluster dump and evaluate every object through admission, isolated."""

from policyeditor.engine.impact.dump import (
    MAX_DUMP_BYTES,
    MAX_OBJECTS,
    DumpError,
    iter_objects,
    namespaces_of,
    open_dump,
)
from policyeditor.engine.impact.evaluate import (
    BATCH,
    OPERATIONS,
    RESULTS,
    Job,
    Packed,
    evaluate_batch,
    evaluate_object,
    evaluate_packed,
    evaluate_packed_stream,
    evaluate_stream,
    failed_row,
    identity,
    pack,
    unpack,
)
from policyeditor.engine.impact.report import Summary, changed, denied_newly

__all__ = [
    "BATCH",
    "MAX_DUMP_BYTES",
    "MAX_OBJECTS",
    "OPERATIONS",
    "RESULTS",
    "DumpError",
    "Job",
    "Packed",
    "Summary",
    "changed",
    "denied_newly",
    "evaluate_batch",
    "evaluate_object",
    "evaluate_packed",
    "evaluate_packed_stream",
    "evaluate_stream",
    "failed_row",
    "identity",
    "iter_objects",
    "namespaces_of",
    "open_dump",
    "pack",
    "unpack",
]
