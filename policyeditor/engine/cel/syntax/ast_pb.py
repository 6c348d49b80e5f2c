"""The cel.expr AST protos (CheckedExpr, Expr, ...) from cel-spec, for walking and rewriting ASTs."""

# cel-expr-python serializes compiled expressions as google.protobuf.Any(cel.expr.CheckedExpr) but
# ships no Python classes for them; these are cel-spec's own descriptors (Apache-2.0), as embedded
# in the cel-expr-python binary, loaded into a private pool so they never clash with other protos.

from __future__ import annotations

from typing import Any

from google.protobuf import (
    any_pb2,
    descriptor_pb2,
    descriptor_pool,
    duration_pb2,
    empty_pb2,
    message_factory,
    struct_pb2,
    timestamp_pb2,
)

_SYNTAX = (
    b"\n\x15cel/expr/syntax.proto\x12\x08cel.expr\x1a\x1egoogle/protobuf/duration."
    b"proto\x1a\x1cgoogle/protobuf/struct.proto\x1a\x1fgoogle/protobuf/timesta"
    b'mp.proto"U\n\nParsedExpr\x12\x1c\n\x04expr\x18\x02 \x01(\x0b2\x0e.cel.expr.Expr\x12)\n\x0bsour'
    b'ce_info\x18\x03 \x01(\x0b2\x14.cel.expr.SourceInfo"\xda\x08\n\x04Expr\x12\n\n\x02id\x18\x02 \x01(\x03\x12(\n\n'
    b"const_expr\x18\x03 \x01(\x0b2\x12.cel.expr.ConstantH\x00\x12*\n\nident_expr\x18\x04 \x01(\x0b2\x14"
    b".cel.expr.Expr.IdentH\x00\x12,\n\x0bselect_expr\x18\x05 \x01(\x0b2\x15.cel.expr.Expr."
    b"SelectH\x00\x12(\n\tcall_expr\x18\x06 \x01(\x0b2\x13.cel.expr.Expr.CallH\x00\x12.\n\tlist_e"
    b"xpr\x18\x07 \x01(\x0b2\x19.cel.expr.Expr.CreateListH\x00\x122\n\x0bstruct_expr\x18\x08 \x01(\x0b2"
    b"\x1b.cel.expr.Expr.CreateStructH\x00\x12:\n\x12comprehension_expr\x18\t \x01(\x0b2\x1c"
    b".cel.expr.Expr.ComprehensionH\x00\x1a\x15\n\x05Ident\x12\x0c\n\x04name\x18\x01 \x01(\t\x1aK\n\x06Sel"
    b"ect\x12\x1f\n\x07operand\x18\x01 \x01(\x0b2\x0e.cel.expr.Expr\x12\r\n\x05field\x18\x02 \x01(\t\x12\x11\n\ttest_"
    b"only\x18\x03 \x01(\x08\x1aV\n\x04Call\x12\x1e\n\x06target\x18\x01 \x01(\x0b2\x0e.cel.expr.Expr\x12\x10\n\x08functi"
    b"on\x18\x02 \x01(\t\x12\x1c\n\x04args\x18\x03 \x03(\x0b2\x0e.cel.expr.Expr\x1aH\n\nCreateList\x12 \n\x08elem"
    b"ents\x18\x01 \x03(\x0b2\x0e.cel.expr.Expr\x12\x18\n\x10optional_indices\x18\x02 \x03(\x05\x1a\xe9\x01\n\x0cCre"
    b"ateStruct\x12\x14\n\x0cmessage_name\x18\x01 \x01(\t\x122\n\x07entries\x18\x02 \x03(\x0b2!.cel.expr."
    b"Expr.CreateStruct.Entry\x1a\x8e\x01\n\x05Entry\x12\n\n\x02id\x18\x01 \x01(\x03\x12\x13\n\tfield_key\x18\x02"
    b" \x01(\tH\x00\x12!\n\x07map_key\x18\x03 \x01(\x0b2\x0e.cel.expr.ExprH\x00\x12\x1d\n\x05value\x18\x04 \x01(\x0b2\x0e.c"
    b"el.expr.Expr\x12\x16\n\x0eoptional_entry\x18\x05 \x01(\x08B\n\n\x08key_kind\x1a\xf8\x01\n\rCompreh"
    b'ension\x12\x10\n\x08iter_var\x18\x01 \x01(\t\x12\x11\n\titer_var2\x18\x08 \x01(\t\x12"\n\niter_range\x18\x02 '
    b"\x01(\x0b2\x0e.cel.expr.Expr\x12\x10\n\x08accu_var\x18\x03 \x01(\t\x12!\n\taccu_init\x18\x04 \x01(\x0b2\x0e.c"
    b"el.expr.Expr\x12&\n\x0eloop_condition\x18\x05 \x01(\x0b2\x0e.cel.expr.Expr\x12!\n\tloop"
    b"_step\x18\x06 \x01(\x0b2\x0e.cel.expr.Expr\x12\x1e\n\x06result\x18\x07 \x01(\x0b2\x0e.cel.expr.ExprB"
    b'\x0b\n\texpr_kind"\xcd\x02\n\x08Constant\x120\n\nnull_value\x18\x01 \x01(\x0e2\x1a.google.proto'
    b"buf.NullValueH\x00\x12\x14\n\nbool_value\x18\x02 \x01(\x08H\x00\x12\x15\n\x0bint64_value\x18\x03 \x01(\x03H\x00"
    b"\x12\x16\n\x0cuint64_value\x18\x04 \x01(\x04H\x00\x12\x16\n\x0cdouble_value\x18\x05 \x01(\x01H\x00\x12\x16\n\x0cstring_v"
    b"alue\x18\x06 \x01(\tH\x00\x12\x15\n\x0bbytes_value\x18\x07 \x01(\x0cH\x00\x127\n\x0eduration_value\x18\x08 \x01(\x0b2"
    b"\x19.google.protobuf.DurationB\x02\x18\x01H\x00\x129\n\x0ftimestamp_value\x18\t \x01(\x0b2\x1a."
    b'google.protobuf.TimestampB\x02\x18\x01H\x00B\x0f\n\rconstant_kind"\x9c\x05\n\nSourceI'
    b"nfo\x12\x16\n\x0esyntax_version\x18\x01 \x01(\t\x12\x10\n\x08location\x18\x02 \x01(\t\x12\x14\n\x0cline_offset"
    b"s\x18\x03 \x03(\x05\x126\n\tpositions\x18\x04 \x03(\x0b2#.cel.expr.SourceInfo.PositionsEn"
    b"try\x129\n\x0bmacro_calls\x18\x05 \x03(\x0b2$.cel.expr.SourceInfo.MacroCallsEnt"
    b"ry\x122\n\nextensions\x18\x06 \x03(\x0b2\x1e.cel.expr.SourceInfo.Extension\x1a0\n\x0ePo"
    b"sitionsEntry\x12\x0b\n\x03key\x18\x01 \x01(\x03\x12\r\n\x05value\x18\x02 \x01(\x05:\x028\x01\x1aA\n\x0fMacroCallsEn"
    b"try\x12\x0b\n\x03key\x18\x01 \x01(\x03\x12\x1d\n\x05value\x18\x02 \x01(\x0b2\x0e.cel.expr.Expr:\x028\x01\x1a\xb1\x02\n\tExte"
    b"nsion\x12\n\n\x02id\x18\x01 \x01(\t\x12E\n\x13affected_components\x18\x02 \x03(\x0e2(.cel.expr.So"
    b"urceInfo.Extension.Component\x127\n\x07version\x18\x03 \x01(\x0b2&.cel.expr.Sou"
    b"rceInfo.Extension.Version\x1a'\n\x07Version\x12\r\n\x05major\x18\x01 \x01(\x03\x12\r\n\x05minor"
    b'\x18\x02 \x01(\x03"o\n\tComponent\x12\x19\n\x15COMPONENT_UNSPECIFIED\x10\x00\x12\x14\n\x10COMPONENT_'
    b"PARSER\x10\x01\x12\x1a\n\x16COMPONENT_TYPE_CHECKER\x10\x02\x12\x15\n\x11COMPONENT_RUNTIME\x10\x03B"
    b".\n\x0cdev.cel.exprB\x0bSyntaxProtoP\x01Z\x0ccel.dev/expr\xf8\x01\x01b\x06proto3"
)

_CHECKED = (
    b"\n\x16cel/expr/checked.proto\x12\x08cel.expr\x1a\x15cel/expr/syntax.proto\x1a\x1bg"
    b'oogle/protobuf/empty.proto\x1a\x1cgoogle/protobuf/struct.proto"\xec\x02\n'
    b"\x0bCheckedExpr\x12>\n\rreference_map\x18\x02 \x03(\x0b2'.cel.expr.CheckedExpr.R"
    b'eferenceMapEntry\x124\n\x08type_map\x18\x03 \x03(\x0b2".cel.expr.CheckedExpr.Ty'
    b"peMapEntry\x12)\n\x0bsource_info\x18\x05 \x01(\x0b2\x14.cel.expr.SourceInfo\x12\x14\n\x0cexp"
    b"r_version\x18\x06 \x01(\t\x12\x1c\n\x04expr\x18\x04 \x01(\x0b2\x0e.cel.expr.Expr\x1aH\n\x11ReferenceMa"
    b'pEntry\x12\x0b\n\x03key\x18\x01 \x01(\x03\x12"\n\x05value\x18\x02 \x01(\x0b2\x13.cel.expr.Reference:\x028\x01\x1a'
    b">\n\x0cTypeMapEntry\x12\x0b\n\x03key\x18\x01 \x01(\x03\x12\x1d\n\x05value\x18\x02 \x01(\x0b2\x0e.cel.expr.Type:"
    b'\x028\x01"\xa2\x08\n\x04Type\x12%\n\x03dyn\x18\x01 \x01(\x0b2\x16.google.protobuf.EmptyH\x00\x12*\n\x04null\x18'
    b"\x02 \x01(\x0e2\x1a.google.protobuf.NullValueH\x00\x121\n\tprimitive\x18\x03 \x01(\x0e2\x1c.cel"
    b".expr.Type.PrimitiveTypeH\x00\x12/\n\x07wrapper\x18\x04 \x01(\x0e2\x1c.cel.expr.Type."
    b"PrimitiveTypeH\x00\x122\n\nwell_known\x18\x05 \x01(\x0e2\x1c.cel.expr.Type.WellKnow"
    b"nTypeH\x00\x12,\n\tlist_type\x18\x06 \x01(\x0b2\x17.cel.expr.Type.ListTypeH\x00\x12*\n\x08map"
    b"_type\x18\x07 \x01(\x0b2\x16.cel.expr.Type.MapTypeH\x00\x12/\n\x08function\x18\x08 \x01(\x0b2\x1b.ce"
    b"l.expr.Type.FunctionTypeH\x00\x12\x16\n\x0cmessage_type\x18\t \x01(\tH\x00\x12\x14\n\ntype_p"
    b"aram\x18\n \x01(\tH\x00\x12\x1e\n\x04type\x18\x0b \x01(\x0b2\x0e.cel.expr.TypeH\x00\x12'\n\x05error\x18\x0c \x01(\x0b2"
    b"\x16.google.protobuf.EmptyH\x00\x124\n\rabstract_type\x18\x0e \x01(\x0b2\x1b.cel.expr."
    b"Type.AbstractTypeH\x00\x1a-\n\x08ListType\x12!\n\telem_type\x18\x01 \x01(\x0b2\x0e.cel.exp"
    b'r.Type\x1aO\n\x07MapType\x12 \n\x08key_type\x18\x01 \x01(\x0b2\x0e.cel.expr.Type\x12"\n\nvalue'
    b"_type\x18\x02 \x01(\x0b2\x0e.cel.expr.Type\x1aV\n\x0cFunctionType\x12#\n\x0bresult_type\x18\x01"
    b" \x01(\x0b2\x0e.cel.expr.Type\x12!\n\targ_types\x18\x02 \x03(\x0b2\x0e.cel.expr.Type\x1aE\n\x0cA"
    b"bstractType\x12\x0c\n\x04name\x18\x01 \x01(\t\x12'\n\x0fparameter_types\x18\x02 \x03(\x0b2\x0e.cel.exp"
    b'r.Type"s\n\rPrimitiveType\x12\x1e\n\x1aPRIMITIVE_TYPE_UNSPECIFIED\x10\x00\x12\x08\n\x04B'
    b"OOL\x10\x01\x12\t\n\x05INT64\x10\x02\x12\n\n\x06UINT64\x10\x03\x12\n\n\x06DOUBLE\x10\x04\x12\n\n\x06STRING\x10\x05\x12\t\n\x05BYTE"
    b'S\x10\x06"V\n\rWellKnownType\x12\x1f\n\x1bWELL_KNOWN_TYPE_UNSPECIFIED\x10\x00\x12\x07\n\x03ANY'
    b'\x10\x01\x12\r\n\tTIMESTAMP\x10\x02\x12\x0c\n\x08DURATION\x10\x03B\x0b\n\ttype_kind"\xd6\x03\n\x04Decl\x12\x0c\n\x04nam'
    b"e\x18\x01 \x01(\t\x12)\n\x05ident\x18\x02 \x01(\x0b2\x18.cel.expr.Decl.IdentDeclH\x00\x12/\n\x08functi"
    b"on\x18\x03 \x01(\x0b2\x1b.cel.expr.Decl.FunctionDeclH\x00\x1aY\n\tIdentDecl\x12\x1c\n\x04type"
    b"\x18\x01 \x01(\x0b2\x0e.cel.expr.Type\x12!\n\x05value\x18\x02 \x01(\x0b2\x12.cel.expr.Constant\x12\x0b\n"
    b"\x03doc\x18\x03 \x01(\t\x1a\xfb\x01\n\x0cFunctionDecl\x127\n\toverloads\x18\x01 \x03(\x0b2$.cel.expr.De"
    b"cl.FunctionDecl.Overload\x12\x0b\n\x03doc\x18\x02 \x01(\t\x1a\xa4\x01\n\x08Overload\x12\x13\n\x0boverlo"
    b"ad_id\x18\x01 \x01(\t\x12\x1e\n\x06params\x18\x02 \x03(\x0b2\x0e.cel.expr.Type\x12\x13\n\x0btype_params\x18\x03"
    b" \x03(\t\x12#\n\x0bresult_type\x18\x04 \x01(\x0b2\x0e.cel.expr.Type\x12\x1c\n\x14is_instance_fun"
    b'ction\x18\x05 \x01(\x08\x12\x0b\n\x03doc\x18\x06 \x01(\tB\x0b\n\tdecl_kind"Q\n\tReference\x12\x0c\n\x04name\x18\x01'
    b" \x01(\t\x12\x13\n\x0boverload_id\x18\x03 \x03(\t\x12!\n\x05value\x18\x04 \x01(\x0b2\x12.cel.expr.Constant"
    b"B,\n\x0cdev.cel.exprB\tDeclProtoP\x01Z\x0ccel.dev/expr\xf8\x01\x01b\x06proto3"
)

POOL = descriptor_pool.DescriptorPool()
for _module in (duration_pb2, struct_pb2, timestamp_pb2, empty_pb2):
    POOL.Add(descriptor_pb2.FileDescriptorProto.FromString(_module.DESCRIPTOR.serialized_pb))
POOL.Add(descriptor_pb2.FileDescriptorProto.FromString(_SYNTAX))
POOL.Add(descriptor_pb2.FileDescriptorProto.FromString(_CHECKED))


def _cls(name: str) -> type[Any]:
    # Message classes made at run time from the descriptors: a type checker sees no fields.
    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(name))


CheckedExpr = _cls("cel.expr.CheckedExpr")
ParsedExpr = _cls("cel.expr.ParsedExpr")
Expr = _cls("cel.expr.Expr")
Constant = _cls("cel.expr.Constant")
SourceInfo = _cls("cel.expr.SourceInfo")
Type = _cls("cel.expr.Type")
Reference = _cls("cel.expr.Reference")

CHECKED_URL = "type.googleapis.com/cel.expr.CheckedExpr"


def checked_from_bytes(serialized: bytes) -> Any:
    """Decode Expression.serialize() output (an Any holding a CheckedExpr)."""
    wrapper = any_pb2.Any.FromString(serialized)
    return CheckedExpr.FromString(wrapper.value)


def checked_to_bytes(checked: Any) -> bytes:
    """Encode a CheckedExpr the way Env.deserialize() expects it."""
    return any_pb2.Any(type_url=CHECKED_URL, value=checked.SerializeToString()).SerializeToString()
