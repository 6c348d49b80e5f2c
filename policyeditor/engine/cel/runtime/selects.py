"""Field selection and indexing with cel-go's semantics, for an evaluation that failed on them.

cel-expr-python stops a selection from null (or any value without fields) with "Applying SELECT to
non-message type", where cel-go's attribute qualifier answers `no such key: <field>` and a
presence test on such a value is false (google/cel-go interpreter/attributes.go, refQualify:
the default case returns missingKey(idx), or not-present for presence tests). The engine's error
does not say which selection failed, so such an evaluation is run again on a copy of the AST
where each selection from a non-message operand, and each index of a container the checker only
knows as dyn (`Invalid container type`), calls the helpers below.
"""

from __future__ import annotations

from typing import Any

import cel_expr_python.cel as cel

from policyeditor.engine.cel.runtime.values import to_engine
from policyeditor.engine.cel.syntax import ast_pb
from policyeditor.engine.cel.syntax.walk import walk

SELECT_FN = "__k8s_select"
HAS_FN = "__k8s_has"
INDEX_FN = "__k8s_index"

# The engine's messages for a selection or an index from a value that has no fields.
NON_MAP_SELECT_MESSAGES = ("Applying SELECT to non-message type",)
NON_CONTAINER_PREFIX = "Invalid container type: "


def _select(operand: Any, field: str) -> Any:
    if isinstance(operand, dict) and field in operand:
        return to_engine(operand[field])
    raise ValueError(f"no such key: {field}")


def _key_text(key: Any) -> str:
    # Go's %v of the CEL key value
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def _index(container: Any, key: Any) -> Any:
    """container[key] as cel-go's attribute qualifiers answer it for a dyn container."""
    if isinstance(container, dict):
        if not isinstance(key, bool) and key in container:
            return to_engine(container[key])
        raise ValueError(f"no such key: {_key_text(key)}")
    if isinstance(container, list):
        if isinstance(key, float) and key.is_integer():
            key = int(key)
        if isinstance(key, bool) or not isinstance(key, int):
            raise ValueError(f"unsupported index type '{type(key).__name__}' in list")
        if 0 <= key < len(container):
            return to_engine(container[key])
        raise ValueError(f"index out of bounds: {key}")
    raise ValueError(f"no such key: {_key_text(key)}")


def _has(operand: Any, field: str) -> bool:
    return isinstance(operand, dict) and field in operand


def extension() -> cel.CelExtension:
    """The helpers as an extension (dyn parameters dispatch at runtime only that way)."""
    dyn = cel.Type.DYN
    return cel.CelExtension(
        "policyeditor.selects",
        [
            cel.FunctionDecl(
                SELECT_FN,
                [
                    cel.Overload(
                        f"{SELECT_FN}_dyn_string", dyn, [dyn, cel.Type.STRING], impl=_select
                    )
                ],
            ),
            cel.FunctionDecl(
                INDEX_FN, [cel.Overload(f"{INDEX_FN}_dyn_dyn", dyn, [dyn, dyn], impl=_index)]
            ),
            cel.FunctionDecl(
                HAS_FN,
                [
                    cel.Overload(
                        f"{HAS_FN}_dyn_string", cel.Type.BOOL, [dyn, cel.Type.STRING], impl=_has
                    )
                ],
            ),
        ],
    )


def failed_on_non_map(message: str) -> bool:
    """True when message is the engine's error for selecting a field of a value without fields."""
    return (
        any(message.endswith(known) for known in NON_MAP_SELECT_MESSAGES)
        or NON_CONTAINER_PREFIX in message
    )


def with_select_helpers(checked: Any) -> Any | None:
    """A copy of checked where selections from non-message operands call the helpers; None if none."""
    out = ast_pb.CheckedExpr()
    out.CopyFrom(checked)
    next_id = max([0, *out.type_map.keys(), *(n.id for n in walk(out.expr))]) + 1
    changed = False
    # Innermost first: an outer selection copies its operand once that is rewritten.
    for node in reversed(list(walk(out.expr))):
        if _is_dyn_index(out, node):
            node.call_expr.function = INDEX_FN
            if node.id in out.reference_map:
                del out.reference_map[node.id]
            out.reference_map[node.id].overload_id.append(f"{INDEX_FN}_dyn_dyn")
            changed = True
            continue
        if node.WhichOneof("expr_kind") != "select_expr":
            continue
        operand_type = out.type_map.get(node.select_expr.operand.id)
        if operand_type is not None and operand_type.WhichOneof("type_kind") == "message_type":
            continue  # typed objects (JSONPatch, Object constructions) select natively
        select = node.select_expr
        operand = ast_pb.Expr()
        operand.CopyFrom(select.operand)
        field, test_only = select.field, select.test_only
        node_id = node.id
        node.Clear()
        node.id = node_id
        node.call_expr.function = HAS_FN if test_only else SELECT_FN
        node.call_expr.args.add().CopyFrom(operand)
        name = node.call_expr.args.add()
        name.id = next_id
        name.const_expr.string_value = field
        out.type_map[next_id].primitive = 5  # STRING
        next_id += 1
        overload = f"{HAS_FN}_dyn_string" if test_only else f"{SELECT_FN}_dyn_string"
        if node_id in out.reference_map:
            del out.reference_map[node_id]
        out.reference_map[node_id].overload_id.append(overload)
        changed = True
    return out if changed else None


def _is_dyn_index(checked: Any, node: Any) -> bool:
    """True for `a[k]` whose container the checker knows neither as a list nor as a map."""
    if node.WhichOneof("expr_kind") != "call_expr" or node.call_expr.function != "_[_]":
        return False
    if len(node.call_expr.args) != 2:
        return False
    container = checked.type_map.get(node.call_expr.args[0].id)
    return container is None or container.WhichOneof("type_kind") not in (
        "list_type",
        "map_type",
        "message_type",
    )
