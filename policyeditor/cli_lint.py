"""`policyeditor lint`, `policyeditor export-static` and `validate --static`: the CEL pitfall
linter and manifest-based admission control (static manifests) on the command line."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from policyeditor.cli_status import EXIT_FAILED, EXIT_OK
from policyeditor.engine.errors import FieldError, InputError
from policyeditor.engine.objects import name_of


def add_parsers(sub: Any, version_option: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register `lint` and `export-static`."""
    lint = sub.add_parser("lint", help="find Kubernetes CEL pitfalls (warnings with a fix)")
    lint.add_argument("files", nargs="+", metavar="FILE", help="YAML or JSON manifests")
    version_option(lint)
    lint.add_argument("-o", "--output", choices=("text", "json"), default="text")
    lint.add_argument("--strict", action="store_true", help="exit 1 when anything is found")
    export = sub.add_parser(
        "export-static",
        help="write a staticManifestsDir layout (manifest-based admission control)",
    )
    export.add_argument("files", nargs="+", metavar="FILE", help="policies and bindings")
    export.add_argument(
        "--out", required=True, metavar="PATH", help="a directory, or a file ending in .zip"
    )
    export.add_argument(
        "--base-dir",
        default="/etc/kubernetes/admission",
        metavar="DIR",
        help="where the API server host keeps the directories (for admission-configuration.yaml)",
    )
    version_option(export)


def add_static_option(validate: argparse.ArgumentParser) -> None:
    """`validate --static`: the files are one set of static manifests."""
    validate.add_argument(
        "--static",
        action="store_true",
        help="validate the files as static manifests (staticManifestsDir, Kubernetes 1.36+)",
    )


def static_errors(
    loaded: list[tuple[str, list[dict]]], version: str
) -> list[list[tuple[int, FieldError]]]:
    """Errors per loaded file, validating all files together as one static manifest set."""
    from policyeditor.engine import validation

    docs: list[dict] = []
    files: list[str] = []
    owners: list[tuple[int, int]] = []
    for number, (path, file_docs) in enumerate(loaded):
        for index, doc in enumerate(file_docs):
            docs.append(doc)
            files.append(path)
            owners.append((number, index))
    per_file: list[list[tuple[int, FieldError]]] = [[] for _ in loaded]
    for position, error in validation.validate_documents(
        docs, version=version, static=True, files=files
    ):
        number, index = owners[position] if position < len(owners) else (0, 0)
        per_file[number].append((index, error))
    return per_file


def cmd_lint(
    args: argparse.Namespace,
    out: TextIO,
    loaded: list[tuple[str, list[dict]]],
    version: str,
    place: Callable[[str, int, str], str],
) -> int:
    """One line (or record) per finding; exit 1 with --strict when anything was found."""
    from policyeditor.engine import lint

    records: list[dict[str, Any]] = []
    lines: list[str] = []
    for path, docs in loaded:
        for index, finding in lint.lint_documents(docs, version=version):
            doc = docs[index]
            records.append(
                {"file": path, "kind": str(doc.get("kind", "")), "name": name_of(doc)}
                | finding.to_dict()
            )
            lines.append(
                f"{place(path, index, finding.path)}: {doc.get('kind', '')} {name_of(doc)!r}: {finding}"
            )
    if args.output == "json":
        import json

        out.write(json.dumps(records, indent=2) + "\n")
    else:
        for line in lines:
            out.write(line + "\n")
        if not records:
            out.write(f"no CEL pitfalls found (Kubernetes {version})\n")
    return EXIT_FAILED if records and args.strict else EXIT_OK


def cmd_export_static(
    args: argparse.Namespace, out: TextIO, loaded: list[tuple[str, list[dict]]]
) -> int:
    """Write the layout into a directory or a zip file."""
    from policyeditor.engine import validation

    docs = [doc for _, docs in loaded for doc in docs]
    files = validation.static_layout(docs, base_dir=args.base_dir)
    target = Path(args.out)
    if target.suffix == ".zip":
        target.write_bytes(validation.layout_zip(files))
    else:
        if target.exists() and not target.is_dir():
            raise InputError(f"{target}: not a directory")
        for name, text in files.items():
            path = target / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    for name in sorted(files):
        out.write(f"wrote {target}/{name}\n" if target.suffix != ".zip" else f"{target}: {name}\n")
    return EXIT_OK
