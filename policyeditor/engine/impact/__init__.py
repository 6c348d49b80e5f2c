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
    OPERATIONS,
    RESULTS,
    Job,
    evaluate_batch,
    evaluate_object,
    evaluate_stream,
    identity,
)
from policyeditor.engine.impact.report import Summary, changed, denied_newly

__all__ = [
    "MAX_DUMP_BYTES",
    "MAX_OBJECTS",
    "OPERATIONS",
    "RESULTS",
    "DumpError",
    "Job",
    "Summary",
    "changed",
    "denied_newly",
    "evaluate_batch",
    "evaluate_object",
    "evaluate_stream",
    "identity",
    "iter_objects",
    "namespaces_of",
    "open_dump",
]
