"""compile_expression: rewrite, check, validate, prepare for the runtime; cached (errors: compile_issues)."""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict
from typing import Any

from google.protobuf import any_pb2

from policyeditor.engine.cel import (
    aliases,
    cost,
    features,
    format_check,
    validators,
)
from policyeditor.engine.cel.compile_issues import constant_regex_errors, engine_issues, issue_at
from policyeditor.engine.cel.environment import Environment, get_environment
from policyeditor.engine.cel.issues import (
    CelIssue,
    line_column_to_offset,
    parse_engine_issues,
    translate_compile_message,
)
from policyeditor.engine.cel.model import (
    NO_DECLARATIONS,
    CompileResult,
    Context,
    Declarations,
    EnvType,
)
from policyeditor.engine.cel.program import Program
from policyeditor.engine.cel.runtime import lowering
from policyeditor.engine.cel.runtime.functions import JSONPATCH_FN, OBJECT_FN
from policyeditor.engine.cel.syntax import ast_pb, rewrite
from policyeditor.engine.cel.syntax.walk import node_type
from policyeditor.engine.versions import minor, normalize_version

_CACHE: OrderedDict[tuple[Any, ...], CompileResult] = OrderedDict()
_CACHE_SIZE = 4096
_CACHE_LOCK = threading.Lock()
# Keyed by the arguments exactly as given (no normalising): a hit costs one tuple and one lookup,
# which matters because evaluators look every expression up on every request.
_FAST: dict[tuple[Any, ...], CompileResult] = {}
_MAX_REWRITE_ROUNDS = 8
MAX_EXPRESSION_LENGTH = 100_000

_CROSS_NUMERIC = re.compile(
    r"^found no matching overload for '_(?:<|<=|>|>=)_' applied to '\((int|uint|double), (int|uint|double)\)'$"
)


def compile_expression(
    expression: str,
    *,
    context: Context = Context.VALIDATION,
    version: str | None = None,
    declarations: Declarations = NO_DECLARATIONS,
    env_type: EnvType = EnvType.NEW_EXPRESSIONS,
) -> CompileResult:
    """Compile expression in the kube-apiserver environment; cached, never raises for bad input."""
    fast_key = hit = None
    # Only plain strings use the fast key: 1 == True would share other arguments' results.
    try:
        if type(expression) is str and (version is None or type(version) is str):
            fast_key = (
                expression,
                context,
                version,
                env_type,
                declarations.has_params,
                declarations.variables,
                declarations.mutating,
                declarations.variable_types,
            )
            hit = _FAST.get(fast_key)
    except (AttributeError, TypeError):  # odd arguments: the slow path explains them
        fast_key = hit = None
    if hit is not None:
        return hit
    result = _compile_cached(expression, context, version, declarations, env_type)
    if fast_key is not None:
        if len(_FAST) >= _CACHE_SIZE:
            _FAST.clear()
        _FAST[fast_key] = result
    return result


def _compile_cached(
    expression: str,
    context: Context,
    version: str | None,
    declarations: Declarations,
    env_type: EnvType,
) -> CompileResult:
    try:
        canonical = normalize_version(version)
    except ValueError as exc:
        return CompileResult(errors=[CelIssue(str(exc))])
    if not isinstance(expression, str):
        return CompileResult(
            errors=[CelIssue(f"expression must be a string, not {type(expression).__name__}")]
        )
    try:
        key = (canonical, Context(context), EnvType(env_type), declarations, expression)
        hash(key)
    except (TypeError, ValueError) as exc:
        return CompileResult(errors=[CelIssue(f"invalid compile options: {exc}")])
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None:
            _CACHE.move_to_end(key)
            return cached
    try:
        result = _compile(expression, canonical, Context(context), declarations, EnvType(env_type))
    except Exception as exc:  # noqa: BLE001 - a bug here must read as an error, not a crash
        result = CompileResult(errors=[CelIssue(f"internal error while compiling: {exc}")])
    with _CACHE_LOCK:
        _CACHE[key] = result
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return result


def _parse(env: Environment, text: str) -> Any | None:
    try:
        compiled = env.env.compile(text, disable_check=True)
    except Exception:  # noqa: BLE001 - the checked compile reports syntax errors
        return None
    wrapper = any_pb2.Any.FromString(compiled.serialize())
    return ast_pb.ParsedExpr.FromString(wrapper.value)


def parse_expression(expression: str, *, version: str | None = None) -> Any | None:
    """The parsed (unchecked) cel.expr AST of expression with its source positions, or None.

    The AST is cached and shared: callers must not change it.
    """
    # For linters: the shape of the source as written, before any rewrite or type check.
    if not isinstance(expression, str) or len(expression) > MAX_EXPRESSION_LENGTH:
        return None
    try:
        feature_minor = minor(normalize_version(version))
    except ValueError:
        return None
    return _parsed(expression, feature_minor)


@functools.lru_cache(maxsize=4096)
def _parsed(expression: str, feature_minor: int) -> Any | None:
    # Shared between callers (the linter parses every expression on every keystroke): read only.
    env = get_environment(feature_minor, Context.VALIDATION, Declarations(mutating=True))
    return _parse(env, expression)


def _output_type(checked: Any) -> str:
    """The result type, naming Object/JSONPatch constructions as Kubernetes types them."""

    def structural(expr: Any) -> str:
        kind = expr.WhichOneof("expr_kind")
        if kind == "call_expr":
            call = expr.call_expr
            if call.function == OBJECT_FN and call.args and call.args[0].const_expr.string_value:
                type_name: str = call.args[0].const_expr.string_value
                return type_name
            if call.function == JSONPATCH_FN:
                return "JSONPatch"
            if call.function == "_?_:_" and len(call.args) == 3:
                left, right = structural(call.args[1]), structural(call.args[2])
                if left == right:
                    return left
        if kind == "list_expr" and expr.list_expr.elements:
            kinds = {structural(e) for e in expr.list_expr.elements}
            if len(kinds) == 1:
                return f"list({kinds.pop()})"
        return node_type(checked, expr)

    return structural(checked.expr)


def _compile(
    expression: str, version: str, context: Context, declarations: Declarations, env_type: EnvType
) -> CompileResult:
    if len(expression) > MAX_EXPRESSION_LENGTH:
        return CompileResult(
            errors=[CelIssue("expression size exceeds the limit of 100000 code points")]
        )
    feature_minor = features.feature_minor(version, env_type)
    try:
        env = get_environment(feature_minor, context, declarations)
    except Exception as exc:  # noqa: BLE001 - a broken declaration must not escape
        return CompileResult(errors=[CelIssue(f"cannot build the CEL environment: {exc}")])
    rw = rewrite.Rewrite(expression)
    from policyeditor.engine.cel.library import (
        formats_decls,  # format optionals: see library/formats_decls.py
    )

    for offset in formats_decls.optional_suffix_offsets(expression):
        rw.add(offset, offset, formats_decls.OPTIONAL_SUFFIX)
    constructs = env.mutating and rewrite.may_construct(expression)
    tests_variables = (
        bool(declarations.variables)
        and context != Context.MATCH_CONDITION
        and rewrite.may_test_variables(expression)
    )
    if constructs or tests_variables:
        parsed = _parse(env, expression)
        if parsed is not None:
            positions = dict(parsed.source_info.positions)
            if constructs:
                rewrite.construction_rewrites(rw, parsed.expr, positions)
            if tests_variables:
                rewrite.variable_presence_rewrites(
                    rw, parsed.expr, positions, declarations.variables
                )
    compiled = None
    error_text = ""
    for _ in range(_MAX_REWRITE_ROUNDS):
        try:
            compiled = env.env.compile(rw.text)
            break
        except Exception as exc:  # noqa: BLE001 - every engine failure is a compile error
            error_text = str(exc)
        wrapped = False
        for line, column, message in parse_engine_issues(error_text):
            if not line:
                continue
            offset = rw.to_original(line_column_to_offset(rw.text, line, column))
            if _CROSS_NUMERIC.match(message):
                wrapped = rewrite.wrap_right_operand(rw, offset) or wrapped
            else:
                wrapped = aliases.retry_under_alias(rw, message, offset, env.aliases) or wrapped
        if not wrapped:
            break
    if compiled is None:
        return CompileResult(
            errors=engine_issues(
                aliases.plain_names(error_text, env.aliases),
                rw,
                feature_minor,
                env_type,
                declarations,
                context,
            )
        )
    checked = ast_pb.checked_from_bytes(compiled.serialize())
    aliases.restore_names(checked, env.aliases)
    positions = checked.source_info.positions
    errors = []
    from policyeditor.engine.cel.library.typecheck import (
        generic_findings,  # list(A) overloads (cel-library)
    )

    findings = [
        *validators.validate(checked),
        *generic_findings(checked),
        *format_check.validate(checked),
    ]
    for node_id, message in findings:
        offset = positions.get(node_id)
        errors.append(
            issue_at(expression, rw.to_original(offset) if offset is not None else None, message)
        )
    errors.extend(constant_regex_errors(checked))
    if errors:
        return CompileResult(errors=errors)
    output_type = _output_type(checked)
    unwrap_optional = False
    if output_type.startswith("optional_type("):
        # cel-expr-python cannot hand an optional to Python: evaluate it as a 0/1-element list.
        end = len(expression)
        rw.add(0, 0, "(")
        rw.add(end, end, ").optMap(__v, [__v]).orValue([])")
        try:
            checked = ast_pb.checked_from_bytes(env.env.compile(rw.text).serialize())
            aliases.restore_names(checked, env.aliases)
            unwrap_optional = True
        except Exception:  # noqa: BLE001 - keep the optional; its value reads as None
            pass
    optional_variables = frozenset(
        name
        for index, name in enumerate(declarations.variables)
        if declarations.variable_type(index).startswith("optional_type(")
    )
    if context == Context.CRD_RULE_OPTIONAL_OLD_SELF:
        optional_variables |= {"oldSelf"}
    runtime = lowering.prepare(checked, optional_variables, minor(version))
    runtime.unwrap_optional = unwrap_optional
    try:
        program_expr = env.env.deserialize(ast_pb.checked_to_bytes(runtime.checked))
    except Exception as exc:  # noqa: BLE001 - planning failures are compile errors in cel-go too
        message = translate_compile_message(str(exc))
        return CompileResult(errors=[CelIssue(f"program instantiation failed: {message}")])
    estimated = cost.estimate(checked.expr)
    # Kubernetes does not reject or warn about VAP/MAP expressions by estimate (validation.go
    # has no cost check, unlike CRD rules): the runtime limits stop them. Only reported.
    warnings: list[str] = []
    return CompileResult(
        program=Program(program_expr, env, runtime, expression, checked=checked, rewrite=rw),
        warnings=warnings,
        estimated_cost=estimated,
        output_type=output_type,
    )


def clear_cache() -> None:
    """Forget every compiled expression (tests)."""
    with _CACHE_LOCK:
        _CACHE.clear()
        _FAST.clear()
    _parsed.cache_clear()
