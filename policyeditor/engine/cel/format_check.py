"""cel-go's static check of `'<literal>'.format([<list literal>])` calls.

The strings extension validates, after type checking, every format call whose format string is a
literal and whose arguments are a list literal (google/cel-go ext/formatting.go,
stringFormatValidator and stringFormatChecker): each clause against the checked type of its
argument, then the argument count. Runtime formatting is strings_format.py.
"""

from __future__ import annotations

from typing import Any

from policyeditor.engine.cel.syntax.walk import node_type, walk

# (node id, message) pairs, as validators.Finding.
Finding = tuple[int, str]

# The type kinds each clause accepts (verifyTypeOneOf compares kinds only); dyn always passes.
_ACCEPTS = {
    "d": ("int", "uint"),
    "f": ("double", "string"),
    "e": ("double", "string"),
    "b": ("int", "uint", "bool"),
    "x": ("int", "uint", "string", "bytes"),
    "X": ("int", "uint", "string", "bytes"),
    "o": ("int", "uint"),
}
_STRING_KINDS = (
    "list",
    "map",
    "int",
    "uint",
    "double",
    "bool",
    "string",
    "google.protobuf.Timestamp",
    "bytes",
    "google.protobuf.Duration",
    "type",
    "null_type",
)
_CLAUSE_ERRORS = {
    "d": "decimal clause can only be used on integers, was given {}",
    "f": "fixed-point clause can only be used on doubles, was given {}",
    "e": "scientific clause can only be used on doubles, was given {}",
    "b": "only integers and bools can be formatted as binary, was given {}",
    "x": "only integers, byte buffers, and strings can be formatted as hex, was given {}",
    "X": "only integers, byte buffers, and strings can be formatted as hex, was given {}",
    "o": "octal clause can only be used on integers, was given {}",
    "s": (
        "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, "
        "types, durations, and timestamps, was given {}"
    ),
}


def _kind(type_text: str) -> str:
    """cel-go's Type.TypeName() of a checked type: the kind for parameterized types."""
    head = type_text.split("(", 1)[0]
    return head if head in ("list", "map", "type", "optional_type") else type_text


def _string_problem(checked: Any, expr: Any) -> Any | None:
    """verifyString: the first node a %s clause cannot print (list/map literals recursively)."""
    kind = _kind(node_type(checked, expr))
    if kind != "dyn" and kind not in _STRING_KINDS:
        return expr
    children: list[Any] = []
    if expr.WhichOneof("expr_kind") == "list_expr":
        children = list(expr.list_expr.elements)
    elif expr.WhichOneof("expr_kind") == "struct_expr" and not expr.struct_expr.message_name:
        for entry in expr.struct_expr.entries:
            children.extend((entry.map_key, entry.value))
    for child in children:
        bad = _string_problem(checked, child)
        if bad is not None:
            return bad
    return None


def _check_call(checked: Any, node: Any) -> Finding | None:
    fmt = node.call_expr.target.const_expr.string_value
    args = list(node.call_expr.args[0].list_expr.elements)
    requested = 0
    i = 0
    while i < len(fmt):
        if fmt[i] != "%":
            i += 1
            continue
        if fmt[i + 1 : i + 2] == "%":
            i += 2
            continue
        index = requested
        requested += 1
        if i + 1 >= len(fmt):
            return node.id, "unexpected end of string"
        if index >= len(args):
            return node.id, f"index {index} out of range"
        position = i + 1
        if fmt[position] == ".":
            position += 1
            while position < len(fmt) and fmt[position].isascii() and fmt[position].isdigit():
                position += 1
            if position >= len(fmt):
                return node.id, (
                    "could not parse formatting clause: error while parsing precision: could "
                    "not find end of precision specifier"
                )
            if position == i + 2:
                return node.id, (
                    "could not parse formatting clause: error while parsing precision: error "
                    'while converting precision to integer: strconv.Atoi: parsing "": invalid '
                    "syntax"
                )
        verb = fmt[position]
        arg = args[index]
        if verb == "s":
            bad = _string_problem(checked, arg)
            if bad is not None:
                kind = _kind(node_type(checked, bad))
                return bad.id, "error during formatting: " + _CLAUSE_ERRORS["s"].format(kind)
        elif verb in _ACCEPTS:
            kind = _kind(node_type(checked, arg))
            if kind != "dyn" and kind not in _ACCEPTS[verb]:
                return arg.id, "error during formatting: " + _CLAUSE_ERRORS[verb].format(kind)
        else:
            return node.id, (
                f'could not parse formatting clause: unrecognized formatting clause "{verb}"'
            )
        i = position + 1
    if len(args) > requested:
        return node.id, (
            f"too many arguments supplied to string.format (expected {requested}, got {len(args)})"
        )
    return None


def validate(checked: Any) -> list[Finding]:
    """Findings for every literal format call of the checked AST."""
    findings: list[Finding] = []
    for node in walk(checked.expr):
        if node.WhichOneof("expr_kind") != "call_expr":
            continue
        call = node.call_expr
        if call.function != "format" or not call.HasField("target") or len(call.args) != 1:
            continue
        target = call.target
        if (
            target.WhichOneof("expr_kind") != "const_expr"
            or target.const_expr.WhichOneof("constant_kind") != "string_value"
            or call.args[0].WhichOneof("expr_kind") != "list_expr"
        ):
            continue
        finding = _check_call(checked, node)
        if finding is not None:
            findings.append(finding)
    return findings
