"""Field selection with cel-go's semantics, for the evaluation that failed on a non-map operand.

cel-expr-python stops a selection from null (or any value without fields) with "Applying SELECT to
non-message type", where cel-go's attribute qualifier answers `no such key: <field>` and a
presence test on such a value is false (google/cel-go interpreter/attributes.go, refQualify:
the default case returns missingKey(idx), or not-present for presence tests). The engine's error
does not say which selection failed, so such an evaluation is run again on a copy of the AST
where each selection from a non-message operand calls the helpers below.
"""

from __future__ import annotations

from typing import Any

import cel_expr_python.cel as cel

from policyeditor.engine.cel.runtime.values import to_engine
from policyeditor.engine.cel.syntax import ast_pb
from policyeditor.engine.cel.syntax.walk import walk

SELECT_FN = "__k8s_select"
HAS_FN = "__k8s_has"

# The engine's messages for a selection or an index from a value that has no fields.
NON_MAP_SELECT_MESSAGES = ("Applying SELECT to non-message type",)


def _select(operand: Any, field: str) -> Any:
    if isinstance(operand, dict) and field in operand:
        return to_engine(operand[field])
    raise ValueError(f"no such key: {field}")


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
    return any(message.endswith(known) for known in NON_MAP_SELECT_MESSAGES)


def with_select_helpers(checked: Any) -> Any | None:
    """A copy of checked where selections from non-message operands call the helpers; None if none."""
    out = ast_pb.CheckedExpr()
    out.CopyFrom(checked)
    next_id = max([0, *out.type_map.keys(), *(n.id for n in walk(out.expr))]) + 1
    changed = False
    # Innermost first: an outer selection copies its operand once that is rewritten.
    for node in reversed(list(walk(out.expr))):
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
