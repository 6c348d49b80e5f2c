"""CEL declarations of kubernetes.authzSelectors (1.31): fieldSelector and labelSelector."""

from __future__ import annotations

from . import authz
from .decls import Spec
from .types import RESOURCE_CHECK


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
