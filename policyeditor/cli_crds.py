"""`--crd FILE` (repeatable) for `policyeditor validate|eval|test|cel|impact`: CRDs in force."""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from typing import Any

from policyeditor.engine.errors import InputError


def add_crd_option(parser: argparse.ArgumentParser) -> None:
    """Register `--crd FILE`, repeatable (a file may hold several CRDs or a List dump)."""
    # One file per flag: a list-taking option would swallow the positional FILEs after it.
    parser.add_argument(
        "--crd",
        dest="crds",
        action="append",
        default=[],
        metavar="FILE",
        help="CustomResourceDefinition files (apiextensions.k8s.io/v1, or a `kubectl get crd "
        "-o yaml` dump) whose schemas type, prune and validate custom resources",
    )


def crd_documents(args: argparse.Namespace) -> list[Any]:
    """Every document of the --crd files, checked as kube-apiserver checks CRDs."""
    from policyeditor.engine import manifests, schemas

    documents: list[Any] = []
    for path in getattr(args, "crds", None) or []:
        loaded = manifests.load_file(path)
        try:
            schemas.load_crds(loaded, source=path)
        except schemas.CrdError as error:
            raise InputError(str(error)) from None
        documents.extend(loaded)
    return documents


@contextlib.contextmanager
def crds_in_force(args: argparse.Namespace) -> Iterator[list[Any]]:
    """The --crd CRDs as the schema layer for the command; yields their documents."""
    from policyeditor.engine import schemas

    documents = crd_documents(args)
    if not documents:
        yield []
        return
    try:
        registry = schemas.load_crds(documents)
    except schemas.CrdError as error:  # conflicts between files
        raise InputError(str(error)) from None
    with schemas.using_crds(registry):
        yield documents


def cel_crd_notes(expression: str, obj: Any, params: Any, version: str) -> list[str]:
    """`cel --crd`: the schema problems of the object and the expression's type-check warnings."""
    from policyeditor.engine.cel.crd_notes import custom_resource_notes

    return custom_resource_notes(expression, obj, params, version)
