"""The inputs every `policyeditor` subcommand reads: the Kubernetes version and manifest files."""

from __future__ import annotations

import argparse

from policyeditor.engine.errors import InputError


def kubernetes_version(args: argparse.Namespace) -> str:
    """The canonical `--k8s-version` (the default without one); InputError for one not targeted."""
    from policyeditor.engine import versions

    try:
        return versions.normalize_version(args.k8s_version)
    except ValueError as error:
        raise InputError(str(error)) from None


def load_file(path: str) -> list[dict]:
    """The documents of a manifest file; InputError when it cannot be read or loaded."""
    from policyeditor.engine import manifests

    return manifests.load_file(path)


def load_one(path: str | None, what: str) -> dict | None:
    """The one document of a file given for `what` (None without a file); InputError otherwise."""
    if path is None:
        return None
    docs = load_file(path)
    if len(docs) != 1:
        raise InputError(f"{path}: expected exactly one {what}, found {len(docs)} documents")
    return docs[0]
