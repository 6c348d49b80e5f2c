"""Which CEL libraries and options each Kubernetes version enables.

Follows kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/cel/environment/base.go,
baseOptsWithoutStrictCost: NewExpressions get the options introduced up to the compatibility
version, StoredExpressions get all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from policyeditor.engine.cel.model import EnvType
from policyeditor.engine.versions import minor, normalize_version

# First Kubernetes minor that enables each cel-go feature this package implements itself.
TWO_VAR_COMPREHENSIONS = 32
LISTS_EXT = 34
# golang.org/x/text's en scientific pattern writes `×` between narrow no-break spaces (U+202F) in
# the versions Kubernetes 1.30-1.32 vendor (google/cel-go ext/strings_test.go of those releases:
# "1.052033\u202f\u00d7\u202f10\u2070\u00b3"), and `×` alone from 1.33.
PLAIN_SCIENTIFIC_TIMES = 33

# Functions and macros of cel-go extensions, by the minor that introduced them; used to tell the
# user which version an unsupported function needs.
EXTENSION_FUNCTIONS: dict[str, int] = {
    "existsOne": TWO_VAR_COMPREHENSIONS,
    "transformList": TWO_VAR_COMPREHENSIONS,
    "transformMap": TWO_VAR_COMPREHENSIONS,
    "transformMapEntry": TWO_VAR_COMPREHENSIONS,
    "range": LISTS_EXT,
    "reverse": LISTS_EXT,
    "slice": LISTS_EXT,
    "flatten": LISTS_EXT,
    "sort": LISTS_EXT,
    "sortBy": LISTS_EXT,
    "distinct": LISTS_EXT,
}

# cel-expr-python extension functions Kubernetes never enables (no cel-go counterpart in the
# Kubernetes environment); a reference to one is reported as undeclared.
FORBIDDEN_FUNCTIONS: frozenset[str] = frozenset({"first", "last"})


@dataclass(frozen=True)
class FeatureSet:
    """The libraries one environment has: decided by a minor version."""

    minor: int

    @property
    def two_var_comprehensions(self) -> bool:
        """`all(i, v, p)`, `existsOne`, `transformList`, `transformMap`, `transformMapEntry`."""
        return self.minor >= TWO_VAR_COMPREHENSIONS

    @property
    def lists_ext(self) -> bool:
        """cel-go lists extension version 3."""
        return self.minor >= LISTS_EXT


def feature_minor(version: str, env_type: EnvType) -> int:
    """The minor whose libraries an environment has: version - 1 for NewExpressions."""
    m = minor(normalize_version(version))
    return m - 1 if env_type == EnvType.NEW_EXPRESSIONS else m


def required_version(minor_number: int) -> str:
    """ "1.NN" for a minor number."""
    return f"1.{minor_number}"


def scientific_times(server_minor: int | None) -> str:
    """The `×` of `'%e'.format(...)` on a Kubernetes 1.<server_minor> server (None: newest)."""
    if server_minor is not None and server_minor < PLAIN_SCIENTIFIC_TIMES:
        return "\u202f×\u202f"
    return "×"
