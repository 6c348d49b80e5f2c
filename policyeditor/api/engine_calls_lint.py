"""The engine work behind lint and static-manifests, run in the isolation pool (no Django)."""

from __future__ import annotations

from typing import Any

from policyeditor.engine.objects import kind_of


def lint_bundle(documents: list[dict], version: str) -> dict[str, Any]:
    """Every CEL pitfall in the documents, each located by document and field."""
    from policyeditor.engine import lint

    findings = []
    for index, finding in lint.lint_documents(documents, version=version):
        doc = documents[index]
        meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
        name = meta.get("name") if isinstance(meta, dict) else ""
        findings.append(
            {"document": index, "kind": kind_of(doc), "name": name if isinstance(name, str) else ""}
            | finding.to_dict()
        )
    return {"kubernetesVersion": version, "findings": findings}


def static_bundle(documents: list[dict], version: str, base_dir: str) -> dict[str, Any]:
    """The staticManifestsDir layout of the documents, and the static loader's errors."""
    from policyeditor.engine import validation

    errors = [
        {
            "document": index,
            "kind": kind_of(documents[index]) if index < len(documents) else "",
            "path": error.path,
            "message": error.message,
        }
        for index, error in validation.validate_documents(documents, version=version, static=True)
    ]
    return {
        "kubernetesVersion": version,
        "valid": not errors,
        "errors": errors,
        "files": validation.static_layout(documents, base_dir=base_dir),
    }
