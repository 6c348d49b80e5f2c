"""Benchmarks 1 and 2: our full `evaluate` against bare cel-expr-python, and against celpy.

1. Engine overhead: the full VAP evaluation (matching, matchCondition, lazy variables, validations,
   messageExpressions, the decision) vs the bare sum of the same expressions pre-compiled and
   evaluated directly with cel-expr-python. Goal: <= 1.5x.
2. The same expressions with the pure-Python `cel-python` package (celpy) vs our engine. Goal: >= 30x.
   Printed beside it: celpy against the floor (`engine_floor`: the expressions alone on shared
   cel-expr-python activations), the most any engine on cel-expr-python could show.
"""

from __future__ import annotations

import cel_expr_python.cel as cel
from common import Goal, interleaved
from fixtures import (
    MATCH_CONDITION,
    VALIDATIONS,
    VARIABLES,
    binding,
    deployment,
    policy,
    request_fields,
)

from policyeditor.engine.admission.evaluation import AdmissionRequest, evaluate


def _compiled() -> tuple:
    """A cel-expr-python environment (every name dyn) and the fixture's expressions compiled in it."""
    env = cel.NewEnv(
        variables={"object": cel.Type.DYN, "request": cel.Type.DYN, "variables": cel.Type.DYN}
    )
    compiled_vars = [(name, env.compile(expr)) for name, expr in VARIABLES]
    condition = env.compile(MATCH_CONDITION)
    validations = [(env.compile(e), env.compile(m)) for e, m in VALIDATIONS]
    return env, compiled_vars, condition, validations


def bare_cel_expr_python():
    """A callable evaluating every expression once with cel-expr-python, pre-compiled, as dyn."""
    env, compiled_vars, condition, validations = _compiled()
    obj, req = deployment(), request_fields()

    def run() -> list:
        data = {"object": obj, "request": req, "variables": {}}
        condition.eval(data=data).value()
        values = {}
        for name, program in compiled_vars:
            data["variables"] = values
            values[name] = program.eval(data=data).plain_value()
        data["variables"] = values
        out = []
        for check, message in validations:
            out.append(check.eval(data=data).value())
            out.append(message.eval(data=data).value())
        return out

    return run


def engine_floor():
    """The same expressions with nothing around them: pre-compiled, one shared activation per pass.

    What cel-expr-python itself needs for the request (each value converted once per pass, no
    costs, matching, traces or decision): no engine built on it can be faster, so celpy / this
    is the most that goal 2 can show.
    """
    env, compiled_vars, condition, validations = _compiled()
    obj, req = deployment(), request_fields()

    def run() -> list:
        first = env.Activation(data={"object": obj, "request": req, "variables": {}})
        condition.eval(activation=first).value()
        values = {
            name: program.eval(activation=first).plain_value() for name, program in compiled_vars
        }
        activation = env.Activation(data={"object": obj, "request": req, "variables": values})
        return [
            (c.eval(activation=activation).value(), m.eval(activation=activation).value())
            for c, m in validations
        ]

    return run


def ours():
    """A callable running our full evaluation of the policy and binding for the Deployment."""
    docs = [policy(), binding()]
    request = AdmissionRequest.build(
        object=deployment(), user_info={"username": "alice", "groups": ["dev"]}
    )

    def run():
        result = evaluate(docs, request)
        assert result.allowed, result.message
        return result

    return run


def celpy_runner():
    """A callable evaluating the same expressions with celpy (pure Python), pre-compiled."""
    import celpy

    env = celpy.Environment()
    compiled_vars = [(name, env.program(env.compile(expr))) for name, expr in VARIABLES]
    condition = env.program(env.compile(MATCH_CONDITION))
    validations = [
        (env.program(env.compile(e)), env.program(env.compile(m))) for e, m in VALIDATIONS
    ]
    obj, req = celpy.json_to_cel(deployment()), celpy.json_to_cel(request_fields())

    def run() -> list:
        condition.evaluate({"object": obj, "request": req})
        values = {}
        for name, program in compiled_vars:
            values[name] = program.evaluate(
                {"object": obj, "request": req, "variables": celpy.json_to_cel(values)}
            )
        activation = {"object": obj, "request": req, "variables": celpy.celtypes.MapType(values)}
        return [(c.evaluate(activation), m.evaluate(activation)) for c, m in validations]

    return run


def run() -> list[Goal]:
    """Measure and print benchmarks 1 and 2."""
    ours_run, bare_run, celpy_run = ours(), bare_cel_expr_python(), celpy_runner()
    floor_run = engine_floor()
    for fn in (ours_run, bare_run, celpy_run, floor_run):
        fn()  # warm caches (compile cache, schemas) before measuring
    times = interleaved({"ours": ours_run, "bare": bare_run}, repeat=300)
    celpy_time = interleaved(
        {"celpy": celpy_run, "ours": ours_run, "floor": floor_run},
        repeat={"celpy": 20, "ours": 300, "floor": 300},  # about 0.1 s a round each
        rounds=5,
    )
    overhead = times["ours"] / times["bare"]
    speedup = celpy_time["celpy"] / celpy_time["ours"]
    print(
        f"full evaluate: {times['ours'] * 1e6:.0f} us/request; bare cel-expr-python: {times['bare'] * 1e6:.0f} us"
    )
    print(
        f"celpy: {celpy_time['celpy'] * 1e6:.0f} us/request; ours in the same rounds: "
        f"{celpy_time['ours'] * 1e6:.0f} us"
    )
    # Goal 2's ceiling: the expressions alone on shared activations, nothing around them.
    print(
        f"cel-expr-python floor (the same expressions, one shared activation per pass, nothing "
        f"else): {celpy_time['floor'] * 1e6:.0f} us; celpy / floor = "
        f"{celpy_time['celpy'] / celpy_time['floor']:.1f}x, the most any engine on "
        "cel-expr-python can show against celpy here"
    )
    return [
        Goal("1 engine overhead (full evaluate / bare cel-expr-python)", overhead, 1.5),
        Goal("2 speed-up over celpy (pure-Python CEL)", speedup, 30, lower_is_better=False),
    ]
