"""The editor's calls into the engine: live validation of documents and Try-it evaluation."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from policyeditor.editor.formdata import ParsedForm
from policyeditor.engine import lint, manifests, validation
from policyeditor.engine.admission.inputs import EvaluationInputs, evaluate_inputs, mock_authorizer
from policyeditor.engine.admission.request import AdmissionRequest
from policyeditor.engine.defaulting import default_object
from policyeditor.engine.errors import FieldError, InputError
from policyeditor.engine.jsontypes import object_at
from policyeditor.engine.objects import family
from policyeditor.engine.versions import (
    introduced_in,
    minor,
    served_api_versions,
)

log = logging.getLogger(__name__)


@dataclass
class Issue:
    """One problem or warning, placed at a form control when one shows its path."""

    doc_index: int
    path: str
    message: str
    target: str = ""
    level: str = "error"  # "error" | "warning"

    @property
    def text(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


@dataclass
class Report:
    """Everything the status badge, the field errors and the summary need."""

    version: str
    errors: list[Issue] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    unavailable: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors and not self.unavailable

    @property
    def error_count(self) -> str:
        """'2 errors' ('' when there are none)."""
        return _count(len(self.errors), "error")

    @property
    def warning_count(self) -> str:
        """'1 warning' ('' when there are none)."""
        return _count(len(self.warnings), "warning")

    @property
    def badge(self) -> str:
        """The status in a few words, errors and warnings counted: "valid, 1 warning"."""
        if self.errors:
            head = self.error_count
        elif self.unavailable:
            head = "validation unavailable"
        else:
            head = f"valid for Kubernetes {self.version}"
        return f"{head}, {self.warning_count}" if self.warnings else head


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'s' if number != 1 else ''}" if number else ""


# A type-check warning as the type-checking controller writes it (validating/typechecking.go,
# TypeChecker.Check: "<GroupVersionKind>: ERROR: <cel issue>" per checked kind).
_TYPE_CHECK = re.compile(r"(?m)^\S[^\n]*Kind=[^\n]*: ERROR: ")


def runtime_consequence(doc: dict, path: str, message: str) -> str:
    """What a type-check warning means when the policy runs, in plain words ('' for others)."""
    if not _TYPE_CHECK.search(message):
        return ""
    if path.endswith(".messageExpression"):
        # validating/validator.go, Validate: a failed messageExpression falls back to message.
        return (
            "This messageExpression will fail at runtime: the API server then uses the static "
            "message instead."
        )
    spec = doc.get("spec") if isinstance(doc.get("spec"), dict) else {}
    policy = spec.get("failurePolicy") if isinstance(spec, dict) else None
    if policy == "Ignore":
        effect = "with failurePolicy Ignore the check is skipped, so nothing is enforced."
    else:
        effect = (
            "with failurePolicy Fail every matching request fails this validation "
            "(denied under a Deny binding)."
        )
    return f"This expression will fail at runtime for the kinds named below: {effect}"


def _version_issues(documents: list[dict], version: str) -> list[tuple[int, FieldError]]:
    """apiVersion problems for the target version (what that version lacks), with the reason."""
    found = []
    for index, doc in enumerate(documents):
        kind = str(doc.get("kind", ""))
        api = str(doc.get("apiVersion", ""))
        if family(kind) is None or "/" not in api:
            continue
        served = served_api_versions(kind, version)
        short = api.split("/", 1)[1]
        if short not in served:
            since = introduced_in(kind, short)
            why = f"requires Kubernetes {since}" if since and minor(since) > minor(version) else ""
            found.append(
                (
                    index,
                    FieldError(
                        "apiVersion",
                        f"Kubernetes {version} does not serve {kind} at {api}"
                        + (f" ({why})" if why else "")
                        + (f"; served: {', '.join(served)}" if served else "; not served at all"),
                    ),
                )
            )
    return found


def _doc_target(parsed: ParsedForm, index: int) -> str:
    """The document-level error box of document `index` ('' when there is none)."""
    return parsed.doc_ids[index] if 0 <= index < len(parsed.doc_ids) else ""


def lint_warnings(documents: list[dict], version: str) -> list[tuple[int, FieldError]]:
    """The CEL pitfall linter's findings as warnings at their expression fields."""
    found = []
    for index, finding in lint.lint_documents(documents, version=version):
        where = f" (line {finding.line}, column {finding.column})" if finding.line else ""
        text = f"{finding.code}{where}: {finding.message}. Fix: {finding.fix}"
        found.append((index, FieldError(finding.path, text)))
    return found


def validate(parsed: ParsedForm, version: str, static: bool = False) -> Report:
    """Validate the documents as the API server would, placing each error at its control;
    `static` validates them as static manifests (staticManifestsDir)."""
    report = Report(version)
    for index, message in parsed.problems:
        report.errors.append(Issue(index, "", message, parsed.target_for(index, "")))
    errors: list[tuple[int, FieldError]] = []
    warnings: list[tuple[int, FieldError]] = []
    try:
        errors = list(
            validation.validate_documents(parsed.documents, version=version, static=static)
        )
    except Exception as exc:  # an engine bug must not cost the user their typing
        log.exception("validate_documents failed")
        report.unavailable.append(f"API-server validation ({exc.__class__.__name__}: {exc})")
    for index, doc in enumerate(parsed.documents):
        try:
            warnings += [
                (index, w) for w in validation.warnings_for(doc, version=version, static=static)
            ]
        except Exception:  # warnings are advisory; keep the errors
            log.exception("warnings_for failed")
    try:
        if static:
            warnings += [(-1, w) for w in validation.feature_problems(version)[1]]
        warnings += lint_warnings(parsed.documents, version)
    except Exception:  # lint findings are advisory too
        log.exception("lint failed")
    for issue in report.errors:
        issue.target = issue.target or _doc_target(parsed, issue.doc_index)
    problem_docs = {index for index, _ in parsed.problems}
    for index, error in errors:
        if index in problem_docs:
            continue  # the text could not be read; its old value's errors would mislead
        report.errors.append(
            Issue(
                index,
                error.path,
                error.message,
                parsed.target_for(index, error.path) or _doc_target(parsed, index),
            )
        )
    for index, warning in warnings:
        consequence = runtime_consequence(parsed.documents[index], warning.path, warning.message)
        report.warnings.append(
            Issue(
                index,
                warning.path,
                f"{consequence}\n{warning.message}" if consequence else warning.message,
                parsed.target_for(index, warning.path) or _doc_target(parsed, index),
                level="warning",
            )
        )
    return report


@dataclass
class TryInputs:
    """What the Try-it tab posts: objects as YAML/JSON text and request attributes."""

    object: str = ""
    old_object: str = ""
    params: str = ""
    namespace_object: str = ""
    operation: str = ""
    username: str = ""
    groups: str = ""
    sub_resource: str = ""
    dry_run: bool = False
    authorizer: str = ""
    # The API server's defaulting of the pasted objects (the "skip defaulting" box turns it off).
    defaulting: bool = True


@dataclass
class TryOutcome:
    """The evaluation result (as to_dict) or the input problems that prevented it."""

    result: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)
    input_object: dict | None = None
    # The request as it was evaluated: its operation (and whether it was inferred), and which
    # namespace object it saw, in words.
    operation: str = ""
    operation_inferred: bool = False
    namespace: str = ""
    namespace_note: str = ""


def _namespace_used(namespace: str, given: Any, documents: list[dict]) -> tuple[Any, str]:
    """The namespace object for a request in `namespace`, and a sentence saying which it is."""
    if not namespace:
        return None, "The object is cluster-scoped: there is no namespace object (null)."
    for doc in documents:
        if doc.get("kind") == "Namespace" and object_at(doc, "metadata").get("name") == namespace:
            if isinstance(given, dict) and object_at(given, "metadata").get("name") == namespace:
                break
            return None, f"namespaceObject: the Namespace {namespace} among the draft's documents."
    given_name = object_at(given, "metadata").get("name") if isinstance(given, dict) else None
    if given_name == namespace:
        return given, f"namespaceObject: the Namespace {namespace} given below."
    # The request is in the object's namespace, whatever Namespace was pasted: a Namespace of
    # another name is not the one the API server would read (the namespace lister's Get).
    bare = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": namespace, "labels": {"kubernetes.io/metadata.name": namespace}},
    }
    if given_name:
        why = f"the Namespace given below is {given_name}, not {namespace}"
    else:
        why = "no Namespace was given"
    return bare, (
        f"namespaceObject: a bare Namespace {namespace} (only its kubernetes.io/metadata.name "
        f"label), since {why}; paste Namespace {namespace} to give it labels."
    )


def _one_object(text: str, label: str) -> tuple[Any, str | None]:
    """The single object in `text` (None when blank), or an error message."""
    if not text.strip():
        return None, None
    try:
        docs = manifests.load_documents(text, source=label)
    except InputError as exc:
        return None, str(exc)
    if len(docs) != 1:
        return None, f"{label}: expected exactly one object, found {len(docs)}"
    return docs[0], None


def try_it(documents: list[dict], inputs: TryInputs, version: str) -> TryOutcome:
    """Evaluate the draft against the Try-it inputs with the engine's admission.evaluate."""
    outcome = TryOutcome()
    values: dict[str, Any] = {}
    for key, label in (
        ("object", "object"),
        ("old_object", "oldObject"),
        ("params", "params"),
        ("namespace_object", "namespaceObject"),
    ):
        value, problem = _one_object(getattr(inputs, key), label)
        if problem:
            outcome.problems.append(problem)
        values[key] = value
    authorizer = None
    if inputs.authorizer.strip():
        try:
            raw = manifests.load_documents(inputs.authorizer, source="authorizer")
            entries = raw[0] if len(raw) == 1 and isinstance(raw[0], list) else raw
            authorizer = mock_authorizer(entries)
        except (InputError, ValueError) as exc:
            outcome.problems.append(f"authorizer: {exc}")
    if values["object"] is None and values["old_object"] is None and not outcome.problems:
        outcome.problems.append("Paste an object (or an oldObject for DELETE) to try the policy.")
    if outcome.problems:
        return outcome
    # The mutated object is compared with the object as the API server decoded it (defaulted),
    # so the diff shows what the policies changed, not what defaulting filled in.
    outcome.input_object = (
        default_object(values["object"], version).object if inputs.defaulting else values["object"]
    )
    user_info = {
        "username": inputs.username.strip(),
        "groups": [g.strip() for g in inputs.groups.split(",") if g.strip()],
    }
    overrides: dict[str, Any] = {"dryRun": bool(inputs.dry_run)}
    if inputs.sub_resource.strip():
        overrides["subResource"] = inputs.sub_resource.strip()
    evaluation = EvaluationInputs(
        documents,
        version,
        object=values["object"],
        old_object=values["old_object"],
        operation=inputs.operation or None,
        user_info=user_info,
        overrides=overrides,
        namespace_object=values["namespace_object"],
        authorizer=authorizer,
        resources=[d for d in documents if family(str(d.get("kind", ""))) is None],
        defaulting=inputs.defaulting,
    )
    if values["params"] is not None:
        evaluation.params = values["params"]
    try:
        request = AdmissionRequest.build(
            object=values["object"],
            old_object=values["old_object"],
            operation=inputs.operation or None,
            user_info=user_info,
            overrides=overrides,
            version=version,
        )
        outcome.operation, outcome.operation_inferred = request.operation, not inputs.operation
        outcome.namespace = request.namespace
        evaluation.namespace_object, outcome.namespace_note = _namespace_used(
            request.namespace, values["namespace_object"], documents
        )
        result = evaluate_inputs(evaluation)
    except InputError as exc:
        outcome.problems.append(str(exc))
        return outcome
    except Exception as exc:  # an engine bug is shown, not turned into a 500
        log.exception("evaluate failed")
        outcome.problems.append(
            f"The evaluation failed unexpectedly: {exc.__class__.__name__}: {exc}"
        )
        return outcome
    outcome.result = result.to_dict()
    return outcome
