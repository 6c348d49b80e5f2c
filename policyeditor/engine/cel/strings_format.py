"""`string.format(list)` with Kubernetes' `%e` output (`3.140000 × 10⁰⁰`).

cel-go formats `%e` through golang.org/x/text's printer, which writes the exponent as a power of
ten in superscript; cel-expr-python writes `3.140000e+00`. The runtime AST sends every format call
here: `%e` clauses are rendered in Python, everything else still by the engine's own formatter.
"""

from __future__ import annotations

import functools
import math
import re
from typing import Any

import cel_expr_python.cel as cel

from policyeditor.engine.cel.descriptors import shared_pool
from policyeditor.engine.cel.issues import translate_runtime_message
from policyeditor.engine.cel.runtime.wellknown import protobuf_time

_CLAUSE = re.compile(r"%(?:\.(\d+))?([a-zA-Z%])")
_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def scientific(value: float, precision: int = 6) -> str:
    """x/text's %e: '3.140000 × 10⁰⁰' (at least two exponent digits, superscript minus)."""
    mantissa, _, exponent = f"{value:.{precision}e}".partition("e")
    power = int(exponent)
    digits = f"{abs(power):02d}"
    return f"{mantissa} × 10" + (("-" if power < 0 else "") + digits).translate(_SUPERSCRIPT)


@functools.cache
def _engine_format() -> Any:
    env = cel.NewEnv(
        shared_pool(),
        config=cel.NewEnvConfigFromYaml("extensions:\n- name: strings\n  version: 2\n"),
        variables={"f": cel.Type.STRING, "a": cel.Type.List(cel.Type.DYN)},
    )
    return env.compile("f.format(a)")


def _engine_value(value: Any) -> Any:
    if isinstance(value, list):
        return [_engine_value(v) for v in value]
    if isinstance(value, dict):
        return {k: _engine_value(v) for k, v in value.items()}
    return protobuf_time(value)


def format_string(fmt: str, args: list) -> str:
    """Evaluate fmt.format(args) as Kubernetes does."""
    args = list(args)
    pieces: list[str] = []
    pos = 0
    index = 0
    for match in _CLAUSE.finditer(fmt):
        verb = match.group(2)
        if verb == "%":
            continue
        if verb == "e" and index < len(args):
            arg = args[index]
            if isinstance(arg, (int, float)) and not isinstance(arg, bool) and math.isfinite(arg):
                precision = int(match.group(1)) if match.group(1) else 6
                pieces.append(fmt[pos : match.start()] + "%s")
                args[index] = scientific(float(arg), precision)
                pos = match.end()
        index += 1
    pieces.append(fmt[pos:])
    value = _engine_format().eval(data={"f": "".join(pieces), "a": _engine_value(args)})
    if value.type() == cel.Type.ERROR:
        raise ValueError(translate_runtime_message(str(value.value())))
    return value.plain_value()
