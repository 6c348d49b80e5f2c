"""The engine gate: pool outcomes become EngineLimit, whether a call is run or started."""

from __future__ import annotations

import pytest

from policyeditor.core import engine_gate
from policyeditor.core.engine_gate import EngineLimit, start_engine
from policyeditor.engine.errors import InputError
from policyeditor.engine.isolation import IsolationError


def double(value: int) -> int:
    """A well-behaved engine call."""
    return value * 2


def bad_input() -> None:
    """An engine call that rejects its input."""
    raise InputError("line 1: not YAML")


def test_a_started_call_runs_in_process_when_isolation_is_off_once_collected(monkeypatch):
    monkeypatch.setenv("POLICYEDITOR_ISOLATION", "off")
    ran: list[int] = []
    collect = start_engine(ran.append, 21)
    assert ran == []
    assert collect() is None
    assert ran == [21]
    assert start_engine(double, 21, timeout=1.0)() == 42


def test_a_started_call_past_its_deadline_is_an_engine_limit_when_collected(monkeypatch):
    def started(fn, *args, timeout=None):
        def collect():
            raise IsolationError("timeout", f"evaluation exceeded the time limit of {timeout:g}s")

        return collect

    monkeypatch.setattr(engine_gate, "start_isolated", started)
    collect = start_engine(double, 1, timeout=1.5)
    with pytest.raises(EngineLimit) as caught:
        collect()
    assert caught.value.reason == "timeout"
    assert caught.value.message == "evaluation exceeded the time limit of 1.5s"


def test_a_call_that_cannot_start_reports_why_when_collected(monkeypatch):
    def no_worker(fn, *args, timeout=None):
        raise IsolationError("crashed", "evaluation exceeded the memory or resource limit")

    monkeypatch.setattr(engine_gate, "start_isolated", no_worker)
    collect = start_engine(double, 1)
    with pytest.raises(EngineLimit) as caught:
        collect()
    assert caught.value.reason == "crashed"


def test_bad_input_passes_through_a_started_call_unchanged(monkeypatch):
    monkeypatch.setenv("POLICYEDITOR_ISOLATION", "off")
    collect = start_engine(bad_input)
    with pytest.raises(InputError, match="not YAML"):
        collect()
