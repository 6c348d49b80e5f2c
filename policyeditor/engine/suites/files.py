"""Reading the files a test suite names, with errors that say which file and what is wrong."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from typing import Any

from policyeditor.engine import manifests
from policyeditor.engine.errors import InputError
from policyeditor.engine.objects import POLICY_KINDS, is_admission, name_of
from policyeditor.engine.suites.model import SuiteError


def display(path: Path) -> str:
    """A path as the user would like to read it: relative to the working directory when inside it."""
    try:
        return os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)


def load_documents(path: Path, *, what: str = "file") -> list[dict[str, Any]]:
    """All documents of a YAML/JSON file; SuiteError if it is missing or unreadable."""
    if not path.exists():
        raise SuiteError(display(path), f"{what} not found")
    if path.is_dir():
        raise SuiteError(display(path), f"{what} is a directory, expected a YAML file")
    try:
        return manifests.load_file(path)
    except InputError as error:
        raise SuiteError(display(path), _strip_source(str(error), path)) from None


def load_suite_document(path: Path, *, what: str, one: str) -> dict[str, Any]:
    """The one document of a suite file; SuiteError "<one>, found <n>" when it holds another count."""
    docs = load_documents(path, what=what)
    if len(docs) != 1:
        raise SuiteError(display(path), f"{one}, found {len(docs)}")
    return docs[0]


def load_listed(
    base: Path, spec: dict[str, Any], keys: tuple[str, ...], problems: list[str]
) -> list[dict[str, Any]]:
    """The documents of the files listed under `keys` (relative to `base`); unreadable ones go to `problems`."""
    docs: list[dict[str, Any]] = []
    for key in keys:
        for index, relative in enumerate(spec.get(key) or []):
            try:
                docs.extend(load_documents(base / relative, what="file"))
            except SuiteError as error:
                problems.append(f"{key}[{index}]: {relative}: {error.message} ({error.source})")
    return docs


def load_object(path: Path, *, what: str = "object") -> dict[str, Any]:
    """Exactly one object from a file (an object, a param, a golden file...)."""
    docs = load_documents(path, what=what)
    if len(docs) != 1:
        raise SuiteError(display(path), f"expected exactly one {what}, found {len(docs)} documents")
    return docs[0]


def load_mapping_or_empty(path: Path, *, what: str) -> dict[str, Any]:
    """One mapping from a file; an empty file is an empty mapping."""
    docs = load_documents(path, what=what)
    if not docs:
        return {}
    if len(docs) != 1:
        raise SuiteError(display(path), f"expected one {what} mapping, found {len(docs)} documents")
    return docs[0]


def load_list(path: Path, *, what: str) -> list[Any]:
    """A top-level YAML list (kat authorizer mocks); the manifest loader only takes mappings."""
    if not path.is_file():
        raise SuiteError(display(path), f"{what} not found")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SuiteError(display(path), f"cannot read {what}: {error}") from None
    if not text.strip():
        return []
    # Wrap the list in a mapping so the size, depth and alias limits of the manifest loader apply.
    wrapped = "entries:\n" + textwrap.indent(text, "  ")
    try:
        docs = manifests.load_documents(wrapped, source=display(path))
    except manifests.ManifestError as error:
        # the wrapper line shifts every line by one: report the line of the user's file
        line = error.line - 1 if error.line else None
        where = f"line {line}: " if line else ""
        raise SuiteError(display(path), f"{where}{error.problem}") from None
    except InputError as error:
        raise SuiteError(display(path), _strip_source(str(error), path)) from None
    entries = docs[0].get("entries") if len(docs) == 1 else None
    if not isinstance(entries, list):
        raise SuiteError(display(path), f"{what} must be a YAML list")
    return entries


def read_text(path: Path, *, what: str) -> str:
    """A small text side file (messages, warnings)."""
    try:
        if path.stat().st_size > manifests.MAX_BYTES:
            raise SuiteError(display(path), f"{what} is larger than {manifests.MAX_BYTES} bytes")
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SuiteError(display(path), f"cannot read {what}: {error}") from None


def split_documents(
    docs: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(policies and bindings, every other object: params, namespaces, ...)."""
    admission, resources = [], []
    for doc in docs:
        if is_admission(doc):
            admission.append(doc)
        else:
            resources.append(doc)
    return admission, resources


def policy_names(documents: list[dict[str, Any]]) -> list[str]:
    """Names of the policies (not bindings) among the documents, in order."""
    return [name_of(doc) for doc in documents if doc.get("kind") in POLICY_KINDS]


def _strip_source(message: str, path: Path) -> str:
    """ManifestError already starts with the source; SuiteError adds it again, so drop one."""
    for prefix in (f"{path}: ", f"{display(path)}: "):
        if message.startswith(prefix):
            return message[len(prefix) :]
    return message


def load_crd_files(suite: str, base: Path, paths: Any, where: str = "crds") -> Any:
    """The CRDs of a suite's `crds:` files (relative to the suite) as a schemas.CrdRegistry."""
    # None when the suite names no CRDs; a CRD the API server would refuse fails the suite.
    from policyeditor.engine import schemas

    if paths is None:
        return None
    if isinstance(paths, str):
        paths = [paths]
    if not isinstance(paths, list) or not all(isinstance(p, str) for p in paths):
        raise SuiteError(suite, f"{where}: expected a list of file paths relative to the suite")
    documents: list[Any] = []
    for relative in paths:
        documents.extend(load_documents(base / relative, what=f"{where} file"))
    try:
        return schemas.load_crds(documents)
    except schemas.CrdError as error:
        raise SuiteError(suite, f"{where}: {error}") from None
