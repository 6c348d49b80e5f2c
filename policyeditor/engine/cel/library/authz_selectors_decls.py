"""CEL declarations of kubernetes.authzSelectors (1.31): fieldSelector and labelSelector."""

from __future__ import annotations

from policyeditor.engine.cel.library import authz
from policyeditor.engine.cel.library.decls import Spec
from policyeditor.engine.cel.library.types import RESOURCE_CHECK


def specs(version: int) -> list[Spec]:
    """All overloads of the library."""
    R = RESOURCE_CHECK
    return [
        Spec(
            "fieldSelector",
            "authorizer_fieldselector",
            (R, "string"),
            R,
            True,
            lambda c, v: authz.with_field(c, "fieldSelector", v),
        ),
        Spec(
            "labelSelector",
            "authorizer_labelselector",
            (R, "string"),
            R,
            True,
            lambda c, v: authz.with_field(c, "labelSelector", v),
        ),
    ]
