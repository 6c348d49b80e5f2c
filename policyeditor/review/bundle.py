"""PolicyTest bundles: a zip of a revision's documents and the draft's saved cases, both ways.

The zip holds one folder with `policy.yaml` and `<name>.policytest.yaml`; unzipped, `policyeditor
test <folder>` runs it unchanged. The same cases export as kat directories, a kaptest manifest or
Kyverno CLI tests (engine.suites.exports), each a zip that those tools and `policyeditor test` run. Import reads such a zip (or any zip with one PolicyTest suite) in
memory with size and path checks, inlines `*File` parts of cases, and creates a draft.
"""

from __future__ import annotations

import io
import posixpath
import zipfile
from typing import Any

from django.db import transaction

from policyeditor.editor.cases import bundle_slug
from policyeditor.editor.models import Draft, Revision
from policyeditor.editor.services import DraftInputError, create_draft
from policyeditor.engine.errors import InputError
from policyeditor.engine.manifests.loading import MAX_BYTES, load_documents
from policyeditor.engine.suites.exports import EXPORT_LAYOUTS, export_suite
from policyeditor.review import audit, testcases
from policyeditor.review.models import Action, SavedTestCase
from policyeditor.review.permissions import can_view
from policyeditor.review.workflow import NotAllowed, WorkflowError, assign_team
from policyeditor.teams.models import Team
from policyeditor.teams.roles import has_role

MAX_FILES = 200
MAX_TOTAL = 4 * MAX_BYTES  # all members together, uncompressed
_PARTS = ("object", "oldObject", "params", "namespaceObject")


# The layouts a draft's cases export as: ours, then those of engine.suites.exports.
LAYOUTS = ("policytest", *EXPORT_LAYOUTS)
LAYOUT_LABELS = {
    "policytest": "PolicyTest bundle",
    "kat": "kat directories",
    "kaptest": "kaptest manifest",
    "kyverno": "Kyverno CLI tests",
}


def export_bundle(
    user, draft: Draft, revision: Revision, layout: str = "policytest"
) -> tuple[str, bytes]:
    """(file name, zip bytes) of the revision with the draft's saved cases, in `layout`."""
    if not can_view(user, draft) or revision.draft_id != draft.pk:
        raise NotAllowed("You cannot export this draft.")
    if layout not in LAYOUTS:
        raise WorkflowError(f"Unknown export layout {layout!r}: one of {', '.join(LAYOUTS)}.")
    name = bundle_slug(draft.name)
    cases = [saved.case for saved in draft.saved_test_cases.all()]
    if layout == "policytest":
        files = {
            f"{name}/{filename}": text
            for filename, text in testcases.bundle_files(revision, cases, name=name).items()
        }
        detail: dict[str, Any] = {"bundle": True, "cases": len(cases)}
    else:
        export = export_suite(
            layout, revision.documents, cases, version=revision.kubernetes_version, name=name
        )
        files = export.files
        detail = {"bundle": True, "layout": layout, "cases": len(cases) - len(export.left_out)}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for filename, text in files.items():
            archive.writestr(filename, text)
    audit.record(
        Action.EXPORTED,
        actor=user,
        draft=draft,
        revision_number=revision.number,
        detail=detail,
    )
    return f"{name}-r{revision.number}.{layout}.zip", buffer.getvalue()


def _read_zip(data: bytes) -> dict[str, str]:
    """Member path -> text, refusing archives that are too big, too many or escape their root."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, ValueError) as error:
        raise WorkflowError(f"Not a zip file: {error}") from None
    infos = [info for info in archive.infolist() if not info.is_dir()]
    if len(infos) > MAX_FILES:
        raise WorkflowError(f"The bundle has more than {MAX_FILES} files.")
    if sum(info.file_size for info in infos) > MAX_TOTAL:
        raise WorkflowError("The bundle is too large once unpacked.")
    files: dict[str, str] = {}
    for info in infos:
        path = posixpath.normpath(info.filename.replace("\\", "/"))
        if path.startswith(("/", "../")) or path == "..":
            raise WorkflowError(f"Unsafe path in the bundle: {info.filename!r}")
        try:
            files[path] = archive.read(info).decode("utf-8")
        except (UnicodeDecodeError, zipfile.BadZipFile, RuntimeError) as error:
            raise WorkflowError(f"{info.filename}: cannot read: {error}") from None
    return files


def _load(files: dict[str, str], base: str, relative: Any, what: str) -> list[dict]:
    if not isinstance(relative, str) or not relative:
        raise WorkflowError(f"{what}: expected a file path")
    path = posixpath.normpath(posixpath.join(base, relative))
    if path not in files:
        raise WorkflowError(f"{what}: {relative} is not in the bundle")
    try:
        return load_documents(files[path], source=path)
    except InputError as error:
        raise WorkflowError(str(error)) from None


def _inline(case: Any, files: dict[str, str], base: str, where: str) -> dict:
    """The case with every `*File` part replaced by the object it names."""
    if not isinstance(case, dict):
        raise WorkflowError(f"{where}: expected a mapping")
    case = dict(case)
    for key in _PARTS:
        if f"{key}File" in case:
            docs = _load(files, base, case.pop(f"{key}File"), f"{where}.{key}File")
            if len(docs) != 1:
                raise WorkflowError(f"{where}.{key}File: expected exactly one object")
            case[key] = docs[0]
    expect = case.get("expect")
    if isinstance(expect, dict) and "objectFile" in expect:
        expect = dict(expect)
        docs = _load(files, base, expect.pop("objectFile"), f"{where}.expect.objectFile")
        if len(docs) != 1:
            raise WorkflowError(f"{where}.expect.objectFile: expected exactly one object")
        expect["object"] = docs[0]
        case["expect"] = expect
    return case


@transaction.atomic
def import_bundle(user, data: bytes, *, team: Team | None = None) -> Draft:
    """Create a draft (in `team` if given) with the bundle's documents and cases."""
    if team is not None and not has_role(user, team, "author"):
        raise NotAllowed("You must be an author of that team to import into it.")
    files = _read_zip(data)
    suites = sorted(p for p in files if p.endswith((".policytest.yaml", ".policytest.yml")))
    if len(suites) != 1:
        raise WorkflowError(f"Expected one *.policytest.yaml in the bundle, found {len(suites)}.")
    try:
        (suite,) = load_documents(files[suites[0]], source=suites[0])
    except (InputError, ValueError) as error:
        raise WorkflowError(f"{suites[0]}: {error}") from None
    if suite.get("kind") != "PolicyTest":
        raise WorkflowError(f"{suites[0]}: kind must be PolicyTest")
    base = posixpath.dirname(suites[0])
    documents: list[dict] = []
    for key in ("policies", "resources"):
        paths = suite.get(key) or []
        if not isinstance(paths, list):
            raise WorkflowError(f"{suites[0]}: {key} must be a list of file paths")
        for index, relative in enumerate(paths):
            documents.extend(_load(files, base, relative, f"{key}[{index}]"))
    raw_cases = suite.get("cases") or []
    if not isinstance(raw_cases, list):
        raise WorkflowError(f"{suites[0]}: cases must be a list")
    cases = [_inline(c, files, base, f"cases[{i}]") for i, c in enumerate(raw_cases)]
    names = [c.get("name") for c in cases]
    if any(not isinstance(n, str) or not n for n in names) or len(set(names)) != len(names):
        raise WorkflowError("Every case needs a unique name.")
    name = (
        (suite.get("metadata") or {}).get("name") if isinstance(suite.get("metadata"), dict) else ""
    )
    try:
        draft = create_draft(
            user,
            documents,
            kubernetes_version=None
            if suite.get("kubernetesVersion") is None
            else str(suite["kubernetesVersion"]),
            note="Imported from a PolicyTest bundle",
            name="" if not isinstance(name, str) else name,
        )
    except DraftInputError as error:
        raise WorkflowError(str(error)) from None
    SavedTestCase.objects.bulk_create(
        SavedTestCase(draft=draft, name=c["name"][:200], case=c, created_by=user) for c in cases
    )
    if team is not None:
        assign_team(user, draft, team)
    audit.record(
        Action.IMPORTED,
        actor=user,
        draft=draft,
        revision_number=1,
        detail={"cases": len(cases), "file": suites[0]},
    )
    return draft
