"""Safe, limited YAML/JSON loading and dumping of Kubernetes manifests, with field positions."""

from policyeditor.engine.manifests.loading import (
    MAX_ALIAS_CHARS,
    MAX_ALIAS_NODES,
    MAX_ALIASES,
    MAX_BYTES,
    MAX_DEPTH,
    MAX_DOCUMENTS,
    MAX_NODES,
    ManifestError,
    dump_documents,
    load_documents,
    load_file,
    load_json_value,
)

__all__ = [
    "MAX_ALIASES",
    "MAX_ALIAS_CHARS",
    "MAX_ALIAS_NODES",
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_DOCUMENTS",
    "MAX_NODES",
    "ManifestError",
    "dump_documents",
    "load_documents",
    "load_file",
    "load_json_value",
]
