"""The values of one evaluation and the cel-expr-python activations built from them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from policyeditor.engine.cel import library_bridge
from policyeditor.engine.cel.runtime.values import namespace_value

# Activation.engine_activation's cache: variant (2 * authorizer + match_condition) -> (the
# values it was built from, the cel-expr-python Activation, which has no type information).
EngineCache = dict[int, tuple[tuple[object, ...], Any]]


class VariableSource(Protocol):
    """What an activation needs of composited variables (composition.VariableResolver is one)."""

    holders: dict[str, list[Any]]
    engine_cache: EngineCache
    # The activation the variables are evaluated in, set on the first evaluation that uses them.
    activation: Activation | None


@dataclass
class Activation:
    """The values of one evaluation; `variables` resolves composited variables lazily."""

    object: Any = None
    old_object: Any = None
    request: dict[str, Any] | None = None
    params: Any = None
    namespace_object: Any = None
    authorizer: Any = None
    variables: VariableSource | None = None

    # cel-expr-python activations per variant, reused by every program of this activation and
    # of the activations given the same dict (an evaluation's passes over one request): the
    # engine converts each value once, on first read, and keeps the conversion.
    engine_cache: EngineCache = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def of(cls, values: Mapping[str, Any], authorizer: Any = None) -> Activation:
        """The activation of a mapping named as CEL names the values (object, oldObject...)."""
        return cls(
            object=values.get("object"),
            old_object=values.get("oldObject"),
            request=values.get("request"),
            params=values.get("params"),
            namespace_object=values.get("namespaceObject"),
            authorizer=authorizer,
        )

    def data(
        self, names: frozenset[str], authorizer_value: Any = None, request_resource: Any = None
    ) -> dict[str, Any]:
        """The activation mapping handed to cel-expr-python, limited to the names read."""
        data: dict[str, Any] = {}
        if "object" in names:
            data["object"] = self.object
        if "oldObject" in names:
            data["oldObject"] = self.old_object
        # A CRD rule's self and oldSelf are the object and old object of its activation.
        if "self" in names:
            data["self"] = self.object
        if "oldSelf" in names:
            data["oldSelf"] = self.old_object
        if "request__map" in names:
            data["request__map"] = self.request if self.request is not None else {}
        if "namespaceObject__map" in names:
            data["namespaceObject__map"] = namespace_value(self.namespace_object)
        if "params" in names:
            data["params"] = self.params
        if authorizer_value is not None:
            data["authorizer"] = authorizer_value
        if request_resource is not None:
            data["authorizer.requestResource"] = request_resource
        return data

    def engine_activation(
        self,
        env: Any,
        *,
        authorizer: bool,
        match_condition: bool,
        resolver: VariableSource | None = None,
    ) -> Any:
        """The shared cel-expr-python activation of this variant (built once, reused).

        resolver: bind its variable holders too; such activations belong to that resolver.
        """
        # Only what the variant binds has to be the same for a cached activation to serve.
        namespace = None if match_condition else self.namespace_object
        authorizer_source = self.authorizer if authorizer else None
        key = 2 * authorizer + match_condition
        cache = self.engine_cache if resolver is None else resolver.engine_cache
        cached = cache.get(key)
        # Fields reassigned since the activation was built invalidate it.
        if cached is not None:
            old = cached[0]
            if (
                old[0] is self.object
                and old[1] is self.old_object
                and old[2] is self.request
                and old[3] is self.params
                and old[4] is namespace
                and old[5] is authorizer_source
            ):
                return cached[1]
        sources = (
            self.object,
            self.old_object,
            self.request,
            self.params,
            namespace,
            authorizer_source,
        )
        authorizer_value = request_resource = None
        if authorizer:
            authorizer_value, request_resource = library_bridge.authorizer_values(
                self.authorizer, self.request
            )
        data = self.data(ALL_NAMES, authorizer_value, request_resource)
        if match_condition:
            data["namespaceObject__map"] = None  # Kubernetes never binds it for match conditions
        if resolver is not None:
            data.update(resolver.holders)
        built = env.Activation(data=data)
        cache[key] = (sources, built)
        return built


# The activation's fields and the names CEL expressions know them by.
# Every name Activation.data can bind: the engine converts values lazily, so unread ones are free.
ALL_NAMES = frozenset(
    ("object", "oldObject", "request__map", "namespaceObject__map", "params", "self", "oldSelf")
)
