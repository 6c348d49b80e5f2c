"""Calling the engine from any view: in the isolation pool, with a deadline sized to the input."""

# Shared by the editor, the review app and the API (whose api/engine_gate.py turns EngineLimit into
# problem responses): one place decides deadlines and what a runaway or crashed call becomes.

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any

from policyeditor.core.fair_share import Slot, take_slot
from policyeditor.engine.errors import InputError
from policyeditor.engine.isolation import (
    DEFAULT_TIMEOUT,
    IsolationError,
    run_isolated,
    start_isolated,
)

logger = logging.getLogger(__name__)

PER_DOCUMENT_SECONDS = 0.02  # measured: about 6 ms to validate a policy of five expressions
MAX_TIMEOUT = 30.0


class EngineLimit(Exception):
    """The engine call ran past its deadline or its worker died; the message is for the user."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message)
        self.message = message
        self.reason = reason  # "timeout" | "crashed" | "failure"


def deadline_for(documents: list) -> float:
    """The deadline for work on a bundle: the pool's default plus a little per document."""
    # A big (but legitimate) bundle must not hit the deadline meant for runaway expressions.
    count = len(documents) if isinstance(documents, list | tuple) else 0
    return min(MAX_TIMEOUT, DEFAULT_TIMEOUT + PER_DOCUMENT_SECONDS * count)


def run_engine(fn: Callable[..., Any], *args: Any, timeout: float | None = None) -> Any:
    """Run a module-level, Django-free engine function in the pool; EngineLimit when it cannot finish.

    The call first takes one of its user's evaluation slots (fair_share): EngineBusy when the user
    already runs as many as they may and none frees up in time.
    """
    slot = take_slot()
    try:
        return _gated(fn, lambda: run_isolated(fn, *args, timeout=timeout))
    finally:
        slot.release()


def start_engine(
    fn: Callable[..., Any], *args: Any, timeout: float | None = None
) -> Callable[[], Any]:
    """run_engine in two steps: start fn in the pool now, collect it (always) with the returned call.

    The web process works meanwhile (the live preview renders its YAML while a worker validates).
    The user's evaluation slot is taken now (EngineBusy from here) and given back when collected.
    """
    slot = take_slot()
    try:
        collect = start_isolated(fn, *args, timeout=timeout)
    except Exception as exc:  # no worker took the call: collecting it reports why
        collect = functools.partial(_reraise, exc)
    return functools.partial(_collect, fn, collect, slot)


def _collect(fn: Callable[..., Any], collect: Callable[[], Any], slot: Slot) -> Any:
    try:
        return _gated(fn, collect)
    finally:
        slot.release()


def _reraise(exc: BaseException) -> None:
    raise exc


def _gated(fn: Callable[..., Any], call: Callable[[], Any]) -> Any:
    """call(), with a deadline, a crash or an engine failure turned into EngineLimit."""
    try:
        return call()
    except IsolationError as exc:
        raise EngineLimit(exc.message, reason=exc.reason) from exc
    except InputError:
        raise  # in-process mode: the caller reports bad input as it always does
    except Exception as exc:
        # An engine bug met this input: the user still gets the reason, never a bare 500.
        logger.exception("engine failure in %s", getattr(fn, "__name__", fn))
        raise EngineLimit(
            f"the engine could not process this input: {exc}", reason="failure"
        ) from exc
