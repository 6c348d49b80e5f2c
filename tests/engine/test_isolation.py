"""Worker processes with a deadline: runaway or crashing work never takes the caller down."""

from __future__ import annotations

import os
import threading
import time

import pytest

from policyeditor.engine import admission
from policyeditor.engine.cel import evaluate_expression
from policyeditor.engine.errors import MemoryExhausted
from policyeditor.engine.isolation import IsolationError, WorkerPool, run_isolated, start_isolated
from tests.builders import replica_limit
from tests.engine.impact.helpers import RUNAWAY

# A cap the runaway expression fills within a few tenths of a second, far inside a 30 s deadline:
# the memory limit, not the machine's speed, is what stops it in these tests.
SMALL_MEMORY = 256 * 1024 * 1024
MEMORY_LIMIT_MESSAGE = "evaluation exceeded the memory limit of 256 MiB and was stopped"


def add(a: int, b: int) -> int:
    """A well-behaved task."""
    return a + b


def spin_forever() -> None:
    """A task that never ends, like a runaway native CEL evaluation."""
    while True:
        time.sleep(0.05)


def die() -> None:
    """A task whose process dies, like a crash inside native code."""
    os._exit(3)


def grab_memory() -> int:
    """A task that tries to build a huge value."""
    return len("x" * (8 * 1024 * 1024 * 1024))


def fail() -> None:
    """A task that raises an ordinary exception."""
    raise ValueError("bad input: line 3")


def stopped_for_memory() -> None:
    """A task whose evaluation ran out of memory, as the engine reports it."""
    raise MemoryExhausted


def runaway_policy(failure_policy: str) -> dict:
    """replica_limit, whose validation is the runaway expression."""
    policy = replica_limit(5)
    policy["spec"]["failurePolicy"] = failure_policy
    policy["spec"]["validations"][0]["expression"] = RUNAWAY
    return policy


DEPLOYMENT = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}


@pytest.fixture
def pool():
    # A generous default deadline keeps well-behaved calls deterministic on a loaded machine;
    # the runaway tests pass a short deadline of their own.
    workers = WorkerPool(size=2, timeout=10.0, preload=())
    yield workers
    workers.close()


def test_a_task_runs_in_a_worker_and_returns_its_result(pool):
    assert pool.call(add, 2, 3) == 5


def test_a_runaway_task_is_stopped_at_the_deadline_with_a_clear_message(pool):
    pool.call(add, 0, 0)  # start the worker outside the measured call
    started = time.monotonic()
    with pytest.raises(IsolationError) as caught:
        pool.call(spin_forever, timeout=0.5)
    assert caught.value.reason == "timeout"
    assert "exceeded the time limit of 0.5s" in caught.value.message
    assert time.monotonic() - started < 8  # the deadline plus killing the worker, on a busy machine
    assert pool.call(add, 1, 1) == 2


def test_a_crashing_worker_is_replaced_and_the_pool_keeps_working(pool):
    with pytest.raises(IsolationError) as caught:
        pool.call(die)
    assert caught.value.reason == "crashed"
    assert pool.call(add, 4, 4) == 8
    assert pool.restarts == 1


def test_a_task_over_the_memory_limit_fails_in_its_worker_only(pool):
    with pytest.raises(IsolationError) as caught:
        pool.call(grab_memory)
    assert caught.value.reason == "crashed"
    assert (
        caught.value.message == "evaluation exceeded the memory limit of 2048 MiB and was stopped"
    )
    assert pool.call(add, 2, 2) == 4


@pytest.fixture(scope="module")
def small_pool():
    # Shared by the memory tests: each worker start costs CPU that timing tests running beside
    # these (pytest -n) would feel.
    workers = WorkerPool(size=1, timeout=30.0, preload=(), memory_bytes=SMALL_MEMORY)
    yield workers
    workers.close()


def test_an_expression_that_fills_the_memory_cap_is_stopped_with_the_memory_limit_message(
    small_pool,
):
    assert small_pool.call(evaluate_expression, "1 + 1", version="1.37").value == 2
    restarts = small_pool.restarts
    started = time.monotonic()
    with pytest.raises(IsolationError) as caught:
        small_pool.call(evaluate_expression, RUNAWAY, version="1.37")
    assert caught.value.reason == "crashed"
    assert caught.value.message == MEMORY_LIMIT_MESSAGE  # not cel-expr-python's RESOURCE_EXHAUSTED
    assert time.monotonic() - started < 20  # the cap stopped it, not the deadline
    # Fail closed: the worker that ran out is replaced, and the pool answers again.
    assert small_pool.restarts == restarts + 1
    assert small_pool.call(evaluate_expression, "1 + 2", version="1.37").value == 3


def test_a_policy_that_fills_the_memory_cap_is_stopped_even_under_failure_policy_ignore(
    small_pool,
):
    request = admission.AdmissionRequest.build(object=DEPLOYMENT, version="1.37")
    with pytest.raises(IsolationError) as caught:
        # Not an expression error that failurePolicy Ignore would admit: no decision at all.
        small_pool.call(admission.evaluate, [runaway_policy("Ignore")], request, version="1.37")
    assert caught.value.message == MEMORY_LIMIT_MESSAGE


def test_a_call_run_in_process_that_runs_out_of_memory_is_reported_as_a_worker_reports_it(
    monkeypatch,
):
    monkeypatch.setenv("POLICYEDITOR_ISOLATION", "off")
    for collect in (lambda: run_isolated(stopped_for_memory), start_isolated(stopped_for_memory)):
        with pytest.raises(IsolationError) as caught:
            collect()
        assert caught.value.reason == "crashed"
        assert "memory" in caught.value.message


def test_an_ordinary_exception_comes_back_with_its_message(pool):
    with pytest.raises(RuntimeError, match="ValueError: bad input: line 3"):
        pool.call(fail)


def test_other_callers_are_served_while_one_task_runs_away(pool):
    pool.call(add, 0, 0)
    outcome: dict[str, object] = {}

    def runaway() -> None:
        try:
            pool.call(spin_forever, timeout=2.0)
        except IsolationError as exc:
            outcome["runaway"] = exc.reason

    thread = threading.Thread(target=runaway)
    thread.start()
    time.sleep(0.1)
    answers = [pool.call(add, i, i) for i in range(5)]
    thread.join()
    assert answers == [0, 2, 4, 6, 8]
    assert outcome["runaway"] == "timeout"


def test_a_submitted_task_runs_while_the_caller_works_and_is_collected_once(pool):
    pending = pool.submit(add, 20, 22)
    assert add(1, 1) == 2  # the caller's own work meanwhile
    assert pending.result() == 42
    with pytest.raises(RuntimeError, match="already collected"):
        pending.result()
    assert pool.call(add, 3, 3) == 6  # the worker went back to the pool exactly once


def test_a_submitted_runaway_is_stopped_at_its_deadline_counted_from_the_send(pool):
    pool.call(add, 0, 0)
    pending = pool.submit(spin_forever, timeout=0.3)
    time.sleep(0.5)  # the caller is busy past the deadline: collecting must not wait again
    with pytest.raises(IsolationError) as caught:
        pending.result()
    assert caught.value.reason == "timeout"
    assert "exceeded the time limit of 0.3s" in caught.value.message
    assert pool.restarts == 1
    assert pool.call(add, 1, 1) == 2


def test_a_submitted_task_that_fails_comes_back_with_its_message(pool):
    pending = pool.submit(fail)
    with pytest.raises(RuntimeError, match="ValueError: bad input: line 3"):
        pending.result()


def test_a_task_that_cannot_be_sent_leaves_the_worker_in_the_pool():
    single = WorkerPool(size=1, timeout=10.0, preload=())
    try:
        assert single.call(add, 1, 1) == 2
        with pytest.raises(Exception, match="pickle"):
            single.submit(add, lambda: 1, 2)  # a local function cannot be pickled
        assert single._idle.qsize() == 1  # else the next call would wait forever for a worker
        assert single.call(add, 2, 3) == 5
    finally:
        single.close()
