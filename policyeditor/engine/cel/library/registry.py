"""Which Kubernetes CEL libraries exist, when each was introduced, and how to declare them."""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cel_expr_python import cel

from policyeditor.engine.cel.library.decls import Spec, build_function_decls
from policyeditor.engine.cel.library.dispatch import hidden_overloads, merge_slots

NEW_EXPRESSIONS = "NewExpressions"
STORED_EXPRESSIONS = "StoredExpressions"

# Function names the base environment already has (stdlib / strings ext): never "requires 1.NN".
_BASE_NAMES = frozenset({"string", "indexOf", "lastIndexOf"})


@dataclass(frozen=True)
class Library:
    """One Kubernetes CEL library at one library version."""

    # Versions as in kubernetes/kubernetes staging/src/k8s.io/apiserver/pkg/cel/environment/
    # base.go, baseOptsWithoutStrictCost (IntroducedVersion / RemovedVersion per option).

    name: str  # "kubernetes.net.ip": the name the conformance vectors use
    introduced: int  # Kubernetes minor that enables it for new expressions (0 = always)
    module: str  # <module>.specs(version) -> list[Spec]
    version: int = 0  # library version (lists 0/1, Semver 1)
    removed: int | None = None  # minor from which new expressions no longer get it
    mutating_only: bool = False  # MAP environments only (jsonpatch)
    family: str = field(default="")  # versions of one library share a family; one per env

    def specs(self) -> list[Spec]:
        """The overload specs of this library (with Python implementations)."""
        loaded: Any = importlib.import_module(f"{__package__}.{self.module}")
        return list(loaded.specs(self.version))

    @property
    def functions(self) -> tuple[str, ...]:
        """The CEL function names this library declares, in declaration order."""
        return tuple(dict.fromkeys(spec.name for spec in self.specs()))

    def function_decls(self) -> list[cel.FunctionDecl]:
        """Declarations for NewEnv(functions=...) when this library is used alone."""
        return env_declarations([self]).functions

    def extension_decls(self) -> list[cel.FunctionDecl]:
        """Declarations that must go through a CelExtension (names clashing with the base env)."""
        return env_declarations([self]).extension_functions


LIBRARIES: tuple[Library, ...] = (
    Library("kubernetes.lists", 0, "lists_decls", version=0, removed=37, family="lists"),
    Library("kubernetes.lists", 37, "lists_decls", version=1, family="lists"),
    Library("kubernetes.regex", 0, "regex_decls", family="regex"),
    Library("kubernetes.urls", 0, "urls_decls", family="urls"),
    Library("kubernetes.authz", 27, "authz_decls", family="authz"),
    Library("kubernetes.authzSelectors", 31, "authz_selectors_decls", family="authzSelectors"),
    Library("kubernetes.quantity", 28, "quantity_decls", family="quantity"),
    Library("kubernetes.net.ip", 30, "ip_decls", family="ip"),
    Library("kubernetes.net.cidr", 30, "cidr_decls", family="cidr"),
    Library("kubernetes.format", 31, "formats_decls", family="format"),
    Library("kubernetes.Semver", 33, "semver_decls", version=1, family="semver"),
    Library("kubernetes.jsonpatch", 0, "jsonpatch_decls", mutating_only=True, family="jsonpatch"),
)


def _env_type_name(env_type: object) -> str:
    # accepts cel-core's EnvType enum or its string value without importing cel-core (no cycle)
    return str(getattr(env_type, "value", env_type))


def libraries_for(
    minor: int,
    *,
    env_type: object = NEW_EXPRESSIONS,
    mutating: bool = False,
    compatibility_minor: int | None = None,
) -> list[Library]:
    """The libraries a Kubernetes 1.<minor> API server puts in one admission CEL environment.

    NewExpressions (write-time validation) gets the libraries introduced at or before the
    compatibility version, by default minor - 1 as the API server does, and not removed by then.
    StoredExpressions (runtime) gets every library, the newest version of each.
    `mutating` adds the MAP-only libraries (jsonpatch).
    """
    kind = _env_type_name(env_type)
    compat = minor - 1 if compatibility_minor is None else compatibility_minor
    chosen: dict[str, Library] = {}
    for lib in LIBRARIES:
        if lib.mutating_only and not mutating:
            continue
        if kind == STORED_EXPRESSIONS:
            if lib.removed is not None:
                continue  # replaced by a newer version of its family
        elif lib.introduced > compat or (lib.removed is not None and compat >= lib.removed):
            continue
        chosen[lib.family] = lib  # later entries are newer versions
    return list(chosen.values())


def library(name: str, version: int | None = None) -> Library:
    """The library called `name` (the newest version unless `version` is given); KeyError if none."""
    matches = [lib for lib in LIBRARIES if lib.name == name and version in (None, lib.version)]
    if not matches:
        raise KeyError(name)
    return matches[-1]


ALIAS_PREFIX = "__k8s_overload_"


@dataclass(frozen=True)
class Alias:
    """A check-only declaration standing for an overload the engine cannot declare under its name.

    cel-expr-python registers every overload of a CelExtension in the runtime, and one runtime
    slot (name, member, argument kinds) holds a single function, so `string(net.CIDR)` cannot be
    declared beside `string(net.IP)`. The compiler retries a call the checker refuses under the
    alias whose parameters match, then renames the checked call back: at runtime the slot's
    dispatcher (dispatch.merge_slots) runs the right implementation.
    """

    name: str  # the function's name: "string"
    overload_id: str  # "cidr_to_string"
    member: bool
    params: tuple[str, ...]  # cel.Type signatures ("net.CIDR")
    result: str

    @property
    def alias(self) -> str:
        """The name the checker knows this overload by."""
        return f"{ALIAS_PREFIX}{self.overload_id}"

    def spec(self) -> Spec:
        """The check-only declaration (no implementation: the alias never runs)."""
        return Spec(self.alias, self.alias, self.params, self.result, self.member, None)


@dataclass
class EnvDeclarations:
    """What an environment needs for a set of libraries.

    Pass `functions` as cel.NewEnv(functions=...), and `extension()` *after* the built-in
    extensions in cel.NewEnv(extensions=[..., ExtStrings(2), decls.extension()]).
    """

    functions: list[cel.FunctionDecl]
    extension_functions: list[cel.FunctionDecl]
    # Overloads sharing a runtime slot with another in the CelExtension path (string(net.IP) and
    # string(net.CIDR)): declared for the checker under an alias name (functions), see Alias.
    aliases: tuple[Alias, ...] = ()

    def extension(self, name: str = "kubernetes.libraries") -> cel.CelExtension:
        """A CelExtension holding the declarations whose names clash with the base env."""
        return cel.CelExtension(name, self.extension_functions)


def env_declarations(libraries: Iterable[Library]) -> EnvDeclarations:
    """The merged declarations of several libraries (overloads of one name become one decl)."""
    specs: list[Spec] = []
    for lib in libraries:
        specs.extend(lib.specs())
    # A top-level dyn parameter only dispatches at runtime through the CelExtension path.
    via_extension = [s for s in specs if s.extension or "dyn" in s.params]
    plain = merge_slots([s for s in specs if s not in via_extension], one_per_slot=False)
    extended = merge_slots(via_extension, one_per_slot=True)
    aliases = tuple(
        Alias(s.name, s.overload_id, s.member, s.params, s.result)
        for s in hidden_overloads(via_extension)
    )
    # A dyn parameter only matches through the extension path (decls.py); these never run.
    plain_aliases = [a.spec() for a in aliases if "dyn" not in a.params]
    extension_aliases = [a.spec() for a in aliases if "dyn" in a.params]
    return EnvDeclarations(
        build_function_decls([*plain, *plain_aliases]),
        build_function_decls([*extended, *extension_aliases]),
        aliases,
    )


def _introductions() -> dict[str, int]:
    first: dict[str, int] = {}
    for lib in LIBRARIES:
        for name in lib.functions:
            if name not in _BASE_NAMES:
                first[name] = min(first.get(name, lib.introduced), lib.introduced)
    return first


_FUNCTION_INTRODUCED: dict[str, int] | None = None


def function_introduced() -> dict[str, int]:
    """Map CEL function name -> Kubernetes minor that first allows it in new expressions.

    Functions available in every version are absent. For messages such as
    "`isSemver` requires Kubernetes 1.33" (see required_version).
    """
    global _FUNCTION_INTRODUCED
    if _FUNCTION_INTRODUCED is None:
        _FUNCTION_INTRODUCED = _introductions()
    return dict(_FUNCTION_INTRODUCED)


def required_version(function_name: str) -> str | None:
    """The Kubernetes version that introduced `function_name` ("1.33" for isSemver), or None.

    This is the *compatibility* version: a 1.33 server checks new expressions against 1.32, so
    a new expression using isSemver is accepted from a 1.34 server on (stored ones from 1.33).
    """
    introduced = function_introduced().get(function_name)
    if not introduced:
        return None
    return f"1.{introduced}"


def all_function_names(libraries: Sequence[Library]) -> set[str]:
    """Every function name declared by `libraries`."""
    return {name for lib in libraries for name in lib.functions}
