"""Policy files for `eval` and `impact`: refused, as the API server would refuse them, before use."""

from __future__ import annotations

from typing import Any, TextIO

from policyeditor.engine.objects import has_policy, is_admission, name_of

__all__ = ["NO_POLICY", "has_policy", "refuse_invalid"]

NO_POLICY = "no ValidatingAdmissionPolicy or MutatingAdmissionPolicy in the files given"


def refuse_invalid(
    documents: list[dict[str, Any]], version: str, err: TextIO, *, what: str = ""
) -> bool:
    """Write the validation errors of the policies and bindings and the refusal; True if any.

    `what` names the files in each error line (`--baseline`) when more than one set is checked.
    """
    from policyeditor.engine import validation

    admission = [doc for doc in documents if is_admission(doc)]
    problems = validation.validate_documents(admission, version=version)
    if not problems:
        return False
    prefix = f"{what}: " if what else ""
    for index, error in problems:
        doc = admission[index]
        err.write(f"{prefix}{doc.get('kind', '')} {name_of(doc)!r}: {error}\n")
    err.write(f"the policies are not valid for Kubernetes {version}: fix them before evaluating\n")
    return True
