"""Protobuf descriptors of the typed admission variables (`request`, `namespaceObject`)."""

from __future__ import annotations

from google.protobuf import descriptor_pb2, struct_pb2, timestamp_pb2

# These messages exist only so that the type checker knows the fields (and reports
# `undefined field 'x'` like the API server). At runtime the checked AST is rewritten so that the
# variables are plain maps (see runtime/lowering.py), so no message instance is ever built.

_F = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    "string": _F.TYPE_STRING,
    "bool": _F.TYPE_BOOL,
    "int": _F.TYPE_INT64,
}

REQUEST_TYPE = "kubernetes.AdmissionRequest"
NAMESPACE_TYPE = "kubernetes.Namespace"

# (message, [(field, type, repeated)]); a type is a scalar name above or a message name.
_MESSAGES: tuple[tuple[str, tuple[tuple[str, str, bool], ...]], ...] = (
    (
        "GroupVersionKind",
        (("group", "string", False), ("version", "string", False), ("kind", "string", False)),
    ),
    (
        "GroupVersionResource",
        (("group", "string", False), ("version", "string", False), ("resource", "string", False)),
    ),
    (
        "UserInfo",
        (
            ("username", "string", False),
            ("uid", "string", False),
            ("groups", "string", True),
            ("extra", "map<string, .google.protobuf.ListValue>", False),
        ),
    ),
    (
        "AdmissionRequest",
        (
            ("kind", ".kubernetes.GroupVersionKind", False),
            ("resource", ".kubernetes.GroupVersionResource", False),
            ("subResource", "string", False),
            ("requestKind", ".kubernetes.GroupVersionKind", False),
            ("requestResource", ".kubernetes.GroupVersionResource", False),
            ("requestSubResource", "string", False),
            ("name", "string", False),
            ("namespace", "string", False),
            ("operation", "string", False),
            ("userInfo", ".kubernetes.UserInfo", False),
            ("dryRun", "bool", False),
            ("options", ".google.protobuf.Value", False),
        ),
    ),
    (
        "NamespaceMetadata",
        (
            ("name", "string", False),
            ("generateName", "string", False),
            ("namespace", "string", False),
            ("labels", "map<string, string>", False),
            ("annotations", "map<string, string>", False),
            ("UID", "string", False),
            ("creationTimestamp", ".google.protobuf.Timestamp", False),
            ("deletionGracePeriodSeconds", "int", False),
            ("deletionTimestamp", ".google.protobuf.Timestamp", False),
            ("generation", "int", False),
            ("resourceVersion", "string", False),
            ("finalizers", "string", True),
        ),
    ),
    ("NamespaceSpec", (("finalizers", "string", True),)),
    (
        "NamespaceCondition",
        (
            ("status", "string", False),
            ("type", "string", False),
            ("lastTransitionTime", ".google.protobuf.Timestamp", False),
            ("message", "string", False),
            ("reason", "string", False),
        ),
    ),
    (
        "NamespaceStatus",
        (("conditions", ".kubernetes.NamespaceCondition", True), ("phase", "string", False)),
    ),
    (
        "Namespace",
        (
            ("metadata", ".kubernetes.NamespaceMetadata", False),
            ("spec", ".kubernetes.NamespaceSpec", False),
            ("status", ".kubernetes.NamespaceStatus", False),
        ),
    ),
)


def _add_field(
    message: descriptor_pb2.DescriptorProto, name: str, type_name: str, repeated: bool, number: int
) -> None:
    if type_name.startswith("map<"):
        key, value = (part.strip() for part in type_name[4:-1].split(","))
        entry = message.nested_type.add(name=name[0].upper() + name[1:] + "Entry")
        entry.options.map_entry = True
        _add_field(entry, "key", key, False, 1)
        _add_field(entry, "value", value, False, 2)
        field = message.field.add(name=name, number=number, label=_F.LABEL_REPEATED)
        field.type = _F.TYPE_MESSAGE
        field.type_name = f".kubernetes.{message.name}.{entry.name}"
        return
    label = _F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL
    field = message.field.add(name=name, number=number, label=label)
    if type_name in _SCALARS:
        field.type = _SCALARS[type_name]
    else:
        field.type = _F.TYPE_MESSAGE
        field.type_name = type_name


def file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    """The FileDescriptorProto declaring the kubernetes.* admission types."""
    fdp = descriptor_pb2.FileDescriptorProto(
        name="policyeditor_core/kubernetes_admission.proto", package="kubernetes", syntax="proto3"
    )
    fdp.dependency.extend(["google/protobuf/struct.proto", "google/protobuf/timestamp.proto"])
    for name, fields in _MESSAGES:
        message = fdp.message_type.add(name=name)
        for number, (field, type_name, repeated) in enumerate(fields, start=1):
            _add_field(message, field, type_name, repeated, number)
    return fdp


JSONPATCH_TYPE = "JSONPatch"


def jsonpatch_descriptor() -> descriptor_pb2.FileDescriptorProto:
    """The MAP `JSONPatch` type (no package: Kubernetes names it plain `JSONPatch`).

    Only the checker sees it (field types for `.op`, `.value`...); at runtime JSONPatch values
    are plain maps so `value` keeps exact JSON types.
    """
    fdp = descriptor_pb2.FileDescriptorProto(
        name="policyeditor_core/jsonpatch.proto", syntax="proto3"
    )
    fdp.dependency.append("google/protobuf/struct.proto")
    message = fdp.message_type.add(name=JSONPATCH_TYPE)
    for number, (field, type_name) in enumerate(
        (
            ("op", "string"),
            ("path", "string"),
            ("from", "string"),
            ("value", ".google.protobuf.Value"),
        ),
        start=1,
    ):
        _add_field(message, field, type_name, False, number)
    return fdp


def dependency_descriptors() -> list[descriptor_pb2.FileDescriptorProto]:
    """Well-known type files the admission types depend on."""
    return [
        descriptor_pb2.FileDescriptorProto.FromString(module.DESCRIPTOR.serialized_pb)
        for module in (struct_pb2, timestamp_pb2)
    ]
