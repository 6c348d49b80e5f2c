"""CEL declarations of kubernetes.authz: path/group/resource checks and their decisions."""

from __future__ import annotations

from policyeditor.engine.cel.library import authz
from policyeditor.engine.cel.library.decls import Spec
from policyeditor.engine.cel.library.types import (
    AUTHORIZER,
    DECISION,
    GROUP_CHECK,
    PATH_CHECK,
    RESOURCE_CHECK,
)


def specs(version: int) -> list[Spec]:
    """All overloads of the library."""
    A, P, G, R, D = AUTHORIZER, PATH_CHECK, GROUP_CHECK, RESOURCE_CHECK, DECISION
    return [
        Spec("path", "authorizer_path", (A, "string"), P, True, authz.path_check),
        Spec("group", "authorizer_group", (A, "string"), G, True, authz.group_check),
        Spec(
            "serviceAccount",
            "authorizer_serviceaccount",
            (A, "string", "string"),
            A,
            True,
            authz.service_account,
        ),
        Spec("resource", "groupcheck_resource", (G, "string"), R, True, authz.resource_check),
        Spec(
            "subresource",
            "resourcecheck_subresource",
            (R, "string"),
            R,
            True,
            lambda c, v: authz.with_field(c, "subresource", v),
        ),
        Spec(
            "namespace",
            "resourcecheck_namespace",
            (R, "string"),
            R,
            True,
            lambda c, v: authz.with_field(c, "namespace", v),
        ),
        Spec(
            "name",
            "resourcecheck_name",
            (R, "string"),
            R,
            True,
            lambda c, v: authz.with_field(c, "name", v),
        ),
        # one runtime slot (message, string) for both: authz.check dispatches on the message
        Spec("check", "pathcheck_check", (P, "string"), D, True, authz.check),
        Spec("check", "resourcecheck_check", (R, "string"), D, True, authz.check),
        Spec("errored", "decision_errored", (D,), "bool", True, lambda d: bool(d.error)),
        Spec("error", "decision_error", (D,), "string", True, lambda d: d.error),
        Spec("allowed", "decision_allowed", (D,), "bool", True, lambda d: d.decision == "allow"),
        Spec("reason", "decision_reason", (D,), "string", True, lambda d: d.reason),
    ]
