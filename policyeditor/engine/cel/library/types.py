"""The opaque CEL types of the Kubernetes libraries, as protobuf messages in one shared pool."""

from __future__ import annotations

from typing import Any, Protocol

from google.protobuf import descriptor_pb2, message_factory
from google.protobuf.descriptor_pool import DescriptorPool

# cel-expr-python can only return library values as protobuf messages (an AbstractType return is
# "Unimplemented type"), so every Kubernetes opaque type is a message. Fields hold the canonical
# form only: CEL `==` on messages compares fields, and Kubernetes equality is semantic
# (quantity("200M") == quantity("0.2G"), semver ignores build metadata).

_STRING = descriptor_pb2.FieldDescriptorProto.TYPE_STRING
_INT64 = descriptor_pb2.FieldDescriptorProto.TYPE_INT64
_BOOL = descriptor_pb2.FieldDescriptorProto.TYPE_BOOL
_MESSAGE = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
_OPTIONAL = descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL

IP = "net.IP"
CIDR = "net.CIDR"
QUANTITY = "kubernetes.Quantity"
SEMVER = "kubernetes.Semver"
URL = "kubernetes.URL"
FORMAT = "kubernetes.NamedFormat"
AUTHORIZER = "kubernetes.authorization.Authorizer"
PATH_CHECK = "kubernetes.authorization.PathCheck"
GROUP_CHECK = "kubernetes.authorization.GroupCheck"
RESOURCE_CHECK = "kubernetes.authorization.ResourceCheck"
DECISION = "kubernetes.authorization.Decision"
# Internal: an element type no expression can produce, to hang runtime implementations on
# without widening what type-checks (see decls.py).
NEVER = "kubernetes.internal.Never"

# (file, package, {message: [(field, type, message type name or "")]})
_FILES: tuple[tuple[str, str, dict[str, list[tuple[str, int, str]]]], ...] = (
    (
        "policyeditor/net.proto",
        "net",
        {
            "IP": [("addr", _STRING, "")],
            "CIDR": [("addr", _STRING, ""), ("bits", _INT64, "")],
        },
    ),
    (
        "policyeditor/kubernetes_library.proto",
        "kubernetes",
        {
            # exact decimal value: mantissa * 10**exponent, normalized (no trailing zeros in mantissa)
            "Quantity": [("mantissa", _STRING, ""), ("exponent", _INT64, "")],
            "Semver": [
                ("major", _INT64, ""),
                ("minor", _INT64, ""),
                ("patch", _INT64, ""),
                ("pre", _STRING, ""),
            ],
            "URL": [("raw", _STRING, "")],
            "NamedFormat": [("name", _STRING, "")],
        },
    ),
    (
        "policyeditor/kubernetes_internal.proto",
        "kubernetes.internal",
        {"Never": []},
    ),
    (
        "policyeditor/kubernetes_authorization.proto",
        "kubernetes.authorization",
        {
            # session: handle of the bound authorizer (authz.py); service_account: principal override
            "Authorizer": [
                ("session", _INT64, ""),
                ("serviceAccountNamespace", _STRING, ""),
                ("serviceAccountName", _STRING, ""),
                ("requestResource", _MESSAGE, ".kubernetes.authorization.ResourceCheck"),
            ],
            "PathCheck": [
                ("authorizer", _MESSAGE, ".kubernetes.authorization.Authorizer"),
                ("path", _STRING, ""),
            ],
            "GroupCheck": [
                ("authorizer", _MESSAGE, ".kubernetes.authorization.Authorizer"),
                ("group", _STRING, ""),
            ],
            "ResourceCheck": [
                ("groupCheck", _MESSAGE, ".kubernetes.authorization.GroupCheck"),
                ("resource", _STRING, ""),
                ("subresource", _STRING, ""),
                ("namespace", _STRING, ""),
                ("name", _STRING, ""),
                ("fieldSelector", _STRING, ""),
                ("hasFieldSelector", _BOOL, ""),
                ("labelSelector", _STRING, ""),
                ("hasLabelSelector", _BOOL, ""),
            ],
            "Decision": [
                ("decision", _STRING, ""),
                ("reason", _STRING, ""),
                ("error", _STRING, ""),
            ],
        },
    ),
)

_POOL = DescriptorPool()


def _add_files() -> None:
    for file_name, package, messages in _FILES:
        proto = descriptor_pb2.FileDescriptorProto(name=file_name, package=package, syntax="proto3")
        for message_name, fields in messages.items():
            message = proto.message_type.add(name=message_name)
            for number, (field_name, field_type, type_name) in enumerate(fields, start=1):
                field = message.field.add(
                    name=field_name, number=number, type=field_type, label=_OPTIONAL
                )
                if type_name:
                    field.type_name = type_name
        _POOL.Add(proto)


_add_files()


def descriptor_pool() -> DescriptorPool:
    """The one pool holding every library type; pass it as cel.NewEnv's first argument.

    cel-core may add its own files (typed `request`, `namespaceObject`, MAP `Object`) to it with
    `descriptor_pool().Add(file_descriptor_proto)`, using file names outside "policyeditor/".
    """
    return _POOL


def message_class(full_name: str) -> type[Any]:
    """The Python class of one library message type, e.g. message_class("net.IP")."""
    # A google.protobuf Message subclass made at run time: its field attributes are unknown to a
    # type checker, so its instances are Any (readers use the *Fields protocols below).
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName(full_name))


# The fields the libraries read from their messages: the message classes are built at run time
# from the descriptors above, so no type checker sees their attributes.
class IPFields(Protocol):
    """A net.IP message."""

    addr: str


class CIDRFields(Protocol):
    """A net.CIDR message."""

    addr: str
    bits: int


class QuantityFields(Protocol):
    """A kubernetes.Quantity message: mantissa * 10**exponent."""

    mantissa: str
    exponent: int


class SemverFields(Protocol):
    """A kubernetes.Semver message."""

    major: int
    minor: int
    patch: int
    pre: str


class URLFields(Protocol):
    """A kubernetes.URL message."""

    raw: str


class FormatFields(Protocol):
    """A kubernetes.NamedFormat message."""

    name: str


IPMessage = message_class(IP)
CIDRMessage = message_class(CIDR)
QuantityMessage = message_class(QUANTITY)
SemverMessage = message_class(SEMVER)
URLMessage = message_class(URL)
FormatMessage = message_class(FORMAT)
AuthorizerMessage = message_class(AUTHORIZER)
PathCheckMessage = message_class(PATH_CHECK)
GroupCheckMessage = message_class(GROUP_CHECK)
ResourceCheckMessage = message_class(RESOURCE_CHECK)
DecisionMessage = message_class(DECISION)
