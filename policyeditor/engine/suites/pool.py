"""Suites run in worker processes (`policyeditor test -j N`): the same report, in the same order.

Each worker loads a whole suite and runs its cases, so YAML loading, the larger part of a big
suite's time after evaluation, is spread too; the results come back pickled, in the order of the
suites, each case reduced to what reports print of it (name, suite, source, layout): its inputs
(objects, policies) would cost the parent more to unpickle than a worker spends running it.

A worker that dies (killed, out of memory, a crash in the CEL engine) breaks the pool, which fails
every suite not collected yet, those of healthy workers included. Those suites are run again one
at a time, each in a process of its own, so only the one that kills its process again is lost
(reported as a failed suite); the rest of such a run is serial, the price of a rare failure.
Where no worker process can be started at all (no /dev/shm, a process limit), the suites run in
the calling process.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from policyeditor.engine.suites.files import display
from policyeditor.engine.suites.model import CaseResult, SuiteError, TestCase
from policyeditor.engine.suites.plan import SuiteUnit, run_unit

Outcome = tuple[list[CaseResult], list[SuiteError]]

# Below this much suite text in all, starting workers costs more than it saves (about 20 ms a
# worker against about 0.5 ms a case of 1 KB): `auto` then runs in the calling process.
AUTO_MIN_BYTES = 256 * 1024


def worker_died(cause: str = "") -> str:
    """The failure of a suite whose worker died twice; `cause`: what the pool knew, if anything."""
    known = f" ({cause})" if cause else " (killed, out of memory, or a crash in the CEL engine)"
    return f"the worker process running this suite stopped unexpectedly{known}; run it with -j 1 to see more"


WORKER_DIED = worker_died()


def default_jobs() -> int:
    """The CPUs this process may run on (its affinity, not the machine's count)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - platforms without sched_getaffinity
        return max(1, os.cpu_count() or 1)


def auto_jobs(units: list[SuiteUnit]) -> int:
    """The workers `-j auto` starts for these suites: the CPUs, or 1 when the suites are small."""
    if len(units) < 2 or _suite_bytes(units) < AUTO_MIN_BYTES:
        return 1
    return default_jobs()


def run_units(
    units: list[SuiteUnit],
    jobs: int,
    *,
    run_regex: str | None,
    version: str | None,
    defaulting: bool = True,
    coverage: bool = False,
    crds: Sequence[dict[str, Any]] = (),
) -> list[Outcome]:
    """Each unit's (results, errors), in the units' order, run by up to `jobs` workers."""
    kwargs = {
        "run_regex": run_regex,
        "version": version,
        "defaulting": defaulting,
        "coverage": coverage,
        "crds": crds,
    }
    pool = _new_pool(_workers(jobs, len(units)))
    if pool is None:
        return [_run_unit_reported(unit, **kwargs) for unit in units]
    try:
        futures: list[Future[Outcome] | None] = []
        for unit in units:
            try:
                futures.append(pool.submit(_run_unit_reported, unit, **kwargs))
            except (BrokenProcessPool, OSError):  # a worker died already, or none can start
                futures.append(None)
        outcomes: list[Outcome | None] = []
        for future in futures:
            try:
                outcomes.append(future.result() if future is not None else None)
            except Exception:  # noqa: BLE001 - a broken pool, or a result that cannot cross
                outcomes.append(None)
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown(wait=True)
    return [
        outcome if outcome is not None else _run_alone(unit, kwargs)
        for unit, outcome in zip(units, outcomes, strict=True)
    ]


def _run_alone(unit: SuiteUnit, kwargs: dict[str, Any]) -> Outcome:
    """One suite in a process of its own; a failed suite if that process dies too."""
    pool = _new_pool(1)
    if pool is None:
        return _run_unit_reported(unit, **kwargs)
    try:
        return pool.submit(_run_unit_reported, unit, **kwargs).result()
    except BrokenProcessPool as broken:
        return [], [SuiteError(display(unit.path), worker_died(_cause(broken)))]
    except Exception:  # noqa: BLE001 - no process to start, or a result that cannot be pickled
        return _run_unit_reported(unit, **kwargs)
    except BaseException:
        _stop(pool)
        raise
    finally:
        pool.shutdown(wait=True)


def _new_pool(workers: int) -> ProcessPoolExecutor | None:
    """A pool of `workers` processes, or None where this system cannot start any."""
    try:
        return ProcessPoolExecutor(max_workers=workers, mp_context=_context())
    except (OSError, ImportError, NotImplementedError):  # no /dev/shm, no semaphores
        return None


def _cause(broken: BrokenProcessPool) -> str:
    """What the pool knows of why it broke (the last line of a traceback), else ""."""
    cause = broken.__cause__
    lines = str(cause).strip().splitlines() if cause is not None else []
    return lines[-1].strip() if lines else ""


def _workers(jobs: int, units: int) -> int:
    """Worker processes to start: no more than suites (nor than Windows' limit of 61)."""
    workers = min(jobs, units)
    return min(workers, 61) if sys.platform == "win32" else workers


def _stop(pool: ProcessPoolExecutor) -> None:
    """Ctrl-C: stop the workers now, not after the suites they run or that wait in the queue."""
    # ProcessPoolExecutor has no public way to stop its workers before Python 3.14
    # (terminate_workers), hence its private table of processes.
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def _run_unit_reported(unit: SuiteUnit, **kwargs: Any) -> Outcome:
    """run_unit, each result's case reduced to the fields reports print (run in the worker)."""
    results, errors = run_unit(unit, **kwargs)
    for result in results:
        case = result.case
        result.case = TestCase(
            name=case.name, suite=case.suite, source=case.source, layout=case.layout
        )
    return results, errors


def _context() -> multiprocessing.context.BaseContext:
    """fork where it is safe and cheap (Linux: workers inherit the imported engine), else spawn."""
    if sys.platform == "linux":
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


def _suite_bytes(units: list[SuiteUnit]) -> int:
    """The size of the suites' files (a kat directory: every file under it).

    Files a suite refers to (policies, objects) are not counted: a rough measure is enough to
    tell a suite worth a worker from a handful of cases.
    """
    total = 0
    for unit in units:
        path = Path(unit.path)
        try:
            if path.is_file():
                total += path.stat().st_size
            else:
                total += sum(p.stat().st_size for p in path.rglob("*") if p.is_file())
        except OSError:
            continue
        if total >= AUTO_MIN_BYTES:
            break
    return total
