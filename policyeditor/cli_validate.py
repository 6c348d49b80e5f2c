"""`policyeditor validate`, `lint` and `export-static`: every document of the files checked.

Each error is reported at its `file:line:column` where the field's place in the file is known.
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from policyeditor import cli_lint
from policyeditor.cli_inputs import kubernetes_version, load_file
from policyeditor.cli_output import dump
from policyeditor.cli_status import EXIT_FAILED, EXIT_OK
from policyeditor.engine.objects import name_of


def cmd_validate(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Validate every document of every file; one line (or record) per error."""
    from policyeditor.engine import validation

    version = kubernetes_version(args)
    loaded = [(path, load_file(path)) for path in args.files]  # all input errors before any output
    records: list[dict[str, str]] = []
    places: list[str] = []  # "file:line:column" of each record, for the text output
    warnings: list[str] = []
    static = cli_lint.static_errors(loaded, version) if args.static else None
    for number, (path, docs) in enumerate(loaded):
        positions = _positions(path)
        found = (
            static[number]
            if static is not None
            else validation.validate_documents(docs, version=version)
        )
        for index, error in found:
            doc = docs[index] if 0 <= index < len(docs) else {}
            places.append(_place(path, positions, index, error.path))
            records.append(
                {
                    "file": path,
                    "kind": str(doc.get("kind", "")),
                    "name": name_of(doc),
                    "path": error.path,
                    "message": error.message,
                }
            )
        for doc in docs:
            warnings += [
                f"{path}: {doc.get('kind', '')} {name_of(doc)!r}: warning: {w}"
                for w in _warnings(validation, doc, version)
            ]
    if args.static:
        warnings += [f"warning: {w}" for w in validation.feature_problems(version)[1]]
    if args.output != "text":
        dump(records, args.output, out)
    else:
        for place, record in zip(places, records, strict=True):
            where = f"{record['path']}: " if record["path"] else ""
            out.write(f"{place}: {record['kind']} {record['name']!r}: {where}{record['message']}\n")
        for warning in warnings:
            err.write(warning + "\n")
        if not records:
            count = sum(len(docs) for _, docs in loaded)
            out.write(
                f"{count} document{'s' if count != 1 else ''} valid for Kubernetes {version}\n"
            )
    return EXIT_FAILED if records else EXIT_OK


def _positions(path: str) -> list:
    """Where each field of the file is written (empty when that cannot be worked out)."""
    from policyeditor.engine.manifests.positions import field_positions

    try:
        with open(path, "rb") as handle:
            return field_positions(handle.read(), source=path)
    except Exception:  # positions only decorate the output
        return []


def _place(path: str, positions: list, index: int, field_path: str) -> str:
    """`file:line:column` of a field, or just the file when its line is not known."""
    from policyeditor.engine.manifests.positions import locate

    found = locate(positions, index, field_path) if positions else None
    return f"{path}:{found[0]}:{found[1]}" if found else path


def _warnings(validation: Any, doc: dict, version: str) -> list[str]:
    warnings_for = getattr(validation, "warnings_for", None)
    if warnings_for is None:
        return []
    try:
        return [str(w) for w in warnings_for(doc, version=version)]
    except Exception:  # warnings are advisory: never fail validation because of them
        return []


def cmd_lint(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Find Kubernetes CEL pitfalls in every policy of every file (cli_lint)."""
    version = kubernetes_version(args)
    loaded = [(path, load_file(path)) for path in args.files]
    positions = {path: _positions(path) for path, _ in loaded}

    def place(path: str, index: int, field_path: str) -> str:
        return _place(path, positions[path], index, field_path)

    return cli_lint.cmd_lint(args, out, loaded, version, place)


def cmd_export_static(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Write the staticManifestsDir layout of the files (cli_lint)."""
    kubernetes_version(args)
    return cli_lint.cmd_export_static(args, out, [(path, load_file(path)) for path in args.files])
