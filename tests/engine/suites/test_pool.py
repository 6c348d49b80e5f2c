"""Suites run in worker processes: the same report in the same order, a dead worker costs one suite."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from policyeditor.engine.suites import pool
from policyeditor.engine.suites.files import display
from policyeditor.engine.suites.model import SuiteError, TestCase
from policyeditor.engine.suites.runner import SuiteUnit, run, suite_plan
from tests.vectors import DATA, external_path

SUITES = DATA / "suites"
EVERY_SUITE = [SUITES / "passing", SUITES / "failing", external_path("kaptest"), Path("missing")]


def _dying_loader(path: Path, **_: object) -> list:
    """A loader that kills its process, as an engine crash or the OOM killer would."""
    os._exit(3)


def _sleeping_loader(path: Path, **_: object) -> list:
    """A loader that outlasts any test: only terminating its worker ends it early."""
    time.sleep(60)
    return []


def _unpicklable_loader(path: Path, **_: object) -> list:
    """A suite whose case cannot cross back from a worker (its name is a function)."""
    return [
        TestCase(name=lambda: "x", suite="odd", source="odd", layout="policytest", error="boom")
    ]


class _PoolBreakingAtSubmit(ProcessPoolExecutor):
    """A pool whose third submission finds it broken, as when a worker died meanwhile."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.submitted = 0

    def submit(self, *args: object, **kwargs: object):
        self.submitted += 1
        if self._max_workers > 1 and self.submitted >= 3:
            raise BrokenProcessPool("a worker died")
        return super().submit(*args, **kwargs)


def _no_processes(*args: object, **kwargs: object) -> None:
    raise OSError(38, "Function not implemented")  # what sem_open says without /dev/shm


def _units(paths: list[Path]) -> list[SuiteUnit]:
    return [item for item in suite_plan(paths) if isinstance(item, SuiteUnit)]


def test_workers_give_the_report_one_process_gives_in_the_same_order():
    alone = run(EVERY_SUITE, jobs=1)
    pooled = run(EVERY_SUITE, jobs=2)
    assert len(alone.results) > 40 and alone.errors  # passing, failing and malformed suites
    assert pooled.to_text() == alone.to_text()
    assert pooled.to_dict() == alone.to_dict()
    # The cases came back from workers: reduced to what reports print, without their inputs.
    assert all(r.case.documents == [] for r in pooled.results)
    assert all(r.case.documents for r in alone.results if r.case.error is None)


def test_workers_apply_the_run_filter_as_one_process_does():
    alone = run(EVERY_SUITE, jobs=1, run_regex=r"replica|pod-exec")
    pooled = run(EVERY_SUITE, jobs=2, run_regex=r"replica|pod-exec")
    assert 0 < len(alone.results) < len(run(EVERY_SUITE, jobs=1).results)
    assert pooled.to_dict() == alone.to_dict()


def test_a_case_from_a_worker_keeps_the_fields_reports_print():
    pooled = run([SUITES / "passing"], jobs=2)
    alone = run([SUITES / "passing"], jobs=1)
    for mine, theirs in zip(pooled.results, alone.results, strict=True):
        assert (mine.case.name, mine.case.suite, mine.case.source, mine.case.layout) == (
            theirs.case.name,
            theirs.case.suite,
            theirs.case.source,
            theirs.case.layout,
        )
        assert mine.outcome == theirs.outcome and mine.failures == theirs.failures


def test_a_worker_that_dies_fails_its_suite_and_spares_the_others():
    units = _units([SUITES / "passing"])
    doomed = SuiteUnit(_dying_loader, SUITES / "failing" / "malformed.policytest.yaml")
    outcomes = pool.run_units([units[0], doomed, *units[1:]], 2, run_regex=None, version=None)
    assert len(outcomes) == len(units) + 1
    results, errors = outcomes[1]
    assert results == []
    assert [(e.source, e.message) for e in errors] == [(display(doomed.path), pool.WORKER_DIED)]
    spared = [outcome for index, outcome in enumerate(outcomes) if index != 1]
    expected = [pool._run_unit_reported(unit) for unit in units]
    assert [[r.case.full_name for r in o[0]] for o in spared] == [
        [r.case.full_name for r in o[0]] for o in expected
    ]
    assert all(all(r.passed for r in o[0]) for o in spared)


def test_ctrl_c_stops_the_workers_instead_of_waiting_for_their_suites():
    units = [SuiteUnit(_sleeping_loader, SUITES / "passing"), *_units([SUITES / "passing"])]
    # Ctrl-C, as the parent gets it: a real SIGINT wakes its wait for results.
    main = threading.main_thread().ident
    threading.Timer(0.5, signal.pthread_kill, (main, signal.SIGINT)).start()
    before = set(multiprocessing.active_children())  # other tests' pools may live on
    start = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        pool.run_units(units, 2, run_regex=None, version=None)
    # Waiting for the sleeping suite would take a minute; terminated, its worker goes at once.
    assert time.monotonic() - start < 30
    assert set(multiprocessing.active_children()) - before == set()


def test_a_pool_found_broken_while_suites_are_sent_runs_the_rest_again(monkeypatch):
    alone = run(EVERY_SUITE, jobs=1)
    monkeypatch.setattr(pool, "ProcessPoolExecutor", _PoolBreakingAtSubmit)
    assert run(EVERY_SUITE, jobs=2).to_dict() == alone.to_dict()


def test_without_worker_processes_the_suites_run_in_this_process(monkeypatch):
    alone = run(EVERY_SUITE, jobs=1)
    monkeypatch.setattr(pool, "ProcessPoolExecutor", _no_processes)
    assert run(EVERY_SUITE, jobs=2).to_dict() == alone.to_dict()


def test_a_result_that_cannot_cross_processes_is_run_in_this_process():
    units = [SuiteUnit(_unpicklable_loader, SUITES / "passing"), *_units([SUITES / "passing"])]
    outcomes = pool.run_units(units, 2, run_regex=None, version=None)
    results, errors = outcomes[0]
    assert errors == [] and [r.failures for r in results] == [["boom"]]
    assert all(r.passed for outcome in outcomes[1:] for r in outcome[0])


def test_the_message_of_a_dead_worker_carries_what_the_pool_knew():
    broken = BrokenProcessPool("A child process terminated abruptly")
    broken.__cause__ = RuntimeError("Traceback ...\nMemoryError: cannot allocate")
    assert pool.worker_died(pool._cause(broken)) == (
        "the worker process running this suite stopped unexpectedly (MemoryError: cannot "
        "allocate); run it with -j 1 to see more"
    )
    assert pool._cause(BrokenProcessPool("no cause")) == ""


def test_auto_runs_small_suites_in_this_process(monkeypatch):
    monkeypatch.setattr(pool, "default_jobs", lambda: 8)
    assert pool.auto_jobs(_units([SUITES / "passing"])) == 1


def test_auto_starts_a_worker_per_cpu_for_big_suites(monkeypatch, tmp_path):
    monkeypatch.setattr(pool, "default_jobs", lambda: 8)
    for index in range(2):
        (tmp_path / f"s{index}.policytest.yaml").write_text(
            "# padding\n" * (pool.AUTO_MIN_BYTES // 10)
        )
    units = _units([tmp_path])
    assert len(units) == 2
    assert pool.auto_jobs(units) == 8
    assert pool.auto_jobs(units[:1]) == 1  # one suite: nothing to share out


def test_the_cpus_are_this_process_affinity():
    assert pool.default_jobs() == len(os.sched_getaffinity(0))


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_malformed_suite_is_reported_whatever_the_jobs(jobs):
    report = run([SUITES / "failing", SUITES / "passing"], jobs=jobs)
    assert any(isinstance(e, SuiteError) and "malformed" in e.source for e in report.errors)


def test_spawned_workers_give_the_same_report_as_forked_ones(monkeypatch):
    # What macOS and Windows get: workers that import the engine afresh instead of forking.
    forked = run([SUITES / "passing", SUITES / "failing"], jobs=2)
    monkeypatch.setattr(pool, "_context", lambda: multiprocessing.get_context("spawn"))
    spawned = run([SUITES / "passing", SUITES / "failing"], jobs=2)
    assert spawned.to_dict() == forked.to_dict()
    assert all(r.case.documents == [] for r in spawned.results)  # they came from workers
