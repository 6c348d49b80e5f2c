"""Compile errors as cel-go reports them: placed in the source as written, with version hints.

cel-expr-python's compile errors are read back onto the user's text (through the compiler's
rewrites), named as cel-go names them, and told which Kubernetes version brings a function a
policy calls too early; constant regexes are checked as cel-go checks them at program creation.
"""

from __future__ import annotations

import re
from typing import Any

from policyeditor.engine.cel import features, library_bridge
from policyeditor.engine.cel.environment import split_type_params
from policyeditor.engine.cel.issues import (
    CelIssue,
    line_column_to_offset,
    offset_to_line_column,
    parse_engine_issues,
    snippet_for,
    translate_compile_message,
)
from policyeditor.engine.cel.model import NO_DECLARATIONS, Context, Declarations, EnvType
from policyeditor.engine.cel.syntax import rewrite
from policyeditor.engine.cel.syntax.walk import walk

_NAMED_FUNCTION = re.compile(
    r"^(?:undeclared reference to|found no matching overload for) '([^']+)'"
)


def issue_at(source: str, offset: int | None, message: str) -> CelIssue:
    """An issue at an offset of source, with its line, column and snippet (none without one)."""
    if offset is None:
        return CelIssue(message)
    line, column = offset_to_line_column(source, offset)
    return CelIssue(message, line, column, snippet_for(source, line, column))


def _version_hint(name: str, feature_minor: int, env_type: EnvType) -> str:
    introduced = features.EXTENSION_FUNCTIONS.get(name)
    if introduced is None:
        introduced = library_bridge.introduced_in().get(name)
    if introduced is None or introduced <= feature_minor:
        return ""
    hint = f"`{name}` requires Kubernetes {features.required_version(introduced)}"
    if env_type == EnvType.NEW_EXPRESSIONS:
        hint += f" (new expressions: {features.required_version(introduced + 1)})"
    return hint


def engine_issues(
    text: str,
    rw: rewrite.Rewrite,
    feature_minor: int,
    env_type: EnvType,
    declarations: Declarations = NO_DECLARATIONS,
    context: Context = Context.VALIDATION,
) -> list[CelIssue]:
    """The engine's compile errors (text) of the rewritten source, in cel-go's words and places."""
    issues = []
    for line, column, raw in parse_engine_issues(text):
        message = translate_compile_message(raw)
        if line == 0:
            issues.append(CelIssue(message))
            continue
        offset = rw.to_original(line_column_to_offset(rw.text, line, column))
        named = _NAMED_FUNCTION.match(message)
        full_name = named.group(1) if named else ""
        unknown_variable = _unknown_variable(full_name, message, declarations, context)
        if unknown_variable:
            # Kubernetes declares `variables` as one object type with a field per variable, so an
            # unknown one is a missing field, reported (as cel-go does) at the selecting dot.
            issues.append(issue_at(rw.original, offset, f"undefined field '{unknown_variable}'"))
            continue
        if named and "." in named.group(1) and message.startswith("undeclared reference"):
            # cel-go reports the unresolved root identifier of a qualified name at its start.
            parts = named.group(1).split(".")
            offset = max(0, offset - (len(named.group(1)) - len(parts[-1]) - 1))
            message = message.replace(f"'{named.group(1)}'", f"'{parts[0]}'", 1)
            named = _NAMED_FUNCTION.match(message)
        if named:
            written = re.match(r"[A-Za-z_][A-Za-z0-9_.]*", rw.original[offset:])
            candidates = [full_name, full_name.split(".")[-1]]
            if written:
                candidates.insert(0, written.group(0))
            hint = next(
                (h for c in candidates if (h := _version_hint(c, feature_minor, env_type))), ""
            )
            if hint:
                message = f"{message}: {hint}"
        message = _member_call_types(message, rw.original, offset)
        issues.append(issue_at(rw.original, offset, message))
    return issues


def _unknown_variable(
    full_name: str, message: str, declarations: Declarations, context: Context
) -> str:
    """The field name when message is an undeclared `variables.<name>` while variables exist."""
    if context == Context.MATCH_CONDITION:  # matchConditions never see `variables` (8.7)
        return ""
    if not declarations.variables or not message.startswith("undeclared reference"):
        return ""
    root, _, rest = full_name.partition(".")
    return rest.split(".")[0] if root == "variables" and rest else ""


_OVERLOAD = re.compile(r"^(found no matching overload for '[^']+' applied to ')\((.*)\)'$")


def _member_call_types(message: str, source: str, offset: int) -> str:
    """cel-go prints a member call's receiver outside the parentheses: 'string.(int)'."""
    match = _OVERLOAD.match(message)
    if match is None or source[offset : offset + 1] != "(":
        return message
    before = source[:offset].rstrip()
    name = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\Z", before)
    if name is None or not before[: name.start()].rstrip().endswith("."):
        return message
    function = message[len("found no matching overload for '") :].split("'", 1)[0]
    if function.rsplit(".", 1)[-1] != name.group(1):
        return message  # a macro's expansion (`all` -> `_&&_`) reported at the macro's call
    args = split_type_params(match.group(2))
    if not args:
        return message
    return f"{match.group(1)}{args[0]}.({', '.join(args[1:])})'"


_REGEX_FUNCTIONS = {"find": 0, "findAll": 0}


def constant_regex_errors(checked: Any) -> list[CelIssue]:
    """cel-go compiles constant regexes of the Kubernetes regex library at program creation."""
    from policyeditor.engine.cel import literals

    issues = []
    for node in walk(checked.expr):
        if node.WhichOneof("expr_kind") != "call_expr":
            continue
        call = node.call_expr
        if call.function not in _REGEX_FUNCTIONS or not call.HasField("target") or not call.args:
            continue
        arg = call.args[0]
        if (
            arg.WhichOneof("expr_kind") == "const_expr"
            and arg.const_expr.WhichOneof("constant_kind") == "string_value"
        ):
            problem = literals.regex_error(arg.const_expr.string_value)
            if problem:
                issues.append(CelIssue(f"program instantiation failed: {problem}"))
    return issues
