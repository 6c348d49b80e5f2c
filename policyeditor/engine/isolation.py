"""Run untrusted CEL work in worker processes with a deadline, so no request holds or crashes a web worker.

cel-expr-python is native code: a crafted expression can run for a long time inside one C++ call
(where no Python signal can interrupt it) or exhaust memory. Each call therefore goes to a small pool
of worker processes; a worker that misses the deadline is killed and replaced, a worker that dies is
replaced, a worker that ran out of memory is replaced once it has said so, and the caller gets an
`IsolationError` with a message fit for the user.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import importlib
import multiprocessing
import os
import queue
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

from policyeditor.engine.errors import MemoryExhausted

if sys.platform == "win32":  # no address-space limit there: the deadline alone holds
    resource = None
else:
    import resource

DEFAULT_TIMEOUT = float(os.environ.get("POLICYEDITOR_EVAL_TIMEOUT", "1.5"))
DEFAULT_WORKERS = int(os.environ.get("POLICYEDITOR_EVAL_WORKERS", "2"))
# A worker may use this much address space; past it allocation fails inside the worker, not the server.
WORKER_MEMORY_BYTES = int(os.environ.get("POLICYEDITOR_EVAL_MEMORY_MB", "2048")) * 1024 * 1024
# Modules every worker imports at start, so the first real call does not pay for them.
PRELOAD = ("policyeditor.engine.validation.documents", "policyeditor.engine.admission.evaluation")

# Startup (interpreter + engine imports) does not count against a call's deadline.
STARTUP_TIMEOUT = 60.0
_READY = "ready"

TIMEOUT_MESSAGE = "evaluation exceeded the time limit of {seconds:g}s and was stopped"
CRASH_MESSAGE = "evaluation exceeded the memory or resource limit and was stopped"
# An allocation failed under an address-space cap (a worker's, or `ulimit -v` for the CLI).
MEMORY_MESSAGE = "evaluation exceeded the memory limit of {mib:g} MiB and was stopped"


def memory_message() -> str:
    """The message for an allocation failure in this process: its memory cap, if it has one."""
    cap = resource.getrlimit(resource.RLIMIT_AS)[0] if resource is not None else None
    if cap is None or cap == resource.RLIM_INFINITY:
        return CRASH_MESSAGE  # no cap: the machine itself ran out
    return MEMORY_MESSAGE.format(mib=cap / (1024 * 1024))


class IsolationError(Exception):
    """The isolated call did not finish: it ran past the deadline or its worker died."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason  # "timeout" | "crashed"
        self.message = message


@dataclass
class _Failure:
    """An exception raised inside the worker, carried back as text and re-raised in the caller."""

    type_name: str
    message: str


def _worker_main(conn: Connection, memory_bytes: int, preload: tuple[str, ...]) -> None:
    """Loop in the worker process: receive (fn, args, kwargs), send back the result or the failure."""
    if resource is not None:
        # A limit the platform refuses (ValueError, OSError) leaves the deadline to hold alone.
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))

    for name in preload:
        # A module that fails to import must not stop the worker; the call itself will report it.
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    conn.send(_READY)
    while True:
        try:
            fn, args, kwargs = conn.recv()
        except (EOFError, OSError):
            return
        try:
            result: Any = fn(*args, **kwargs)
        except (MemoryError, MemoryExhausted):
            # The caller replaces this worker: a process that hit its cap is not trusted again.
            result = _Failure("MemoryError", memory_message())
        except Exception as exc:  # sent back and re-raised in the caller with its message
            result = _Failure(type(exc).__name__, str(exc))
        try:
            conn.send(result)
        except Exception as exc:  # an unpicklable result is a programming error; report it
            conn.send(_Failure(type(exc).__name__, f"result could not be returned: {exc}"))


class _Worker:
    """One worker process and the parent's end of its pipe."""

    def __init__(
        self,
        context: multiprocessing.context.SpawnContext,
        preload: tuple[str, ...],
        memory_bytes: int = WORKER_MEMORY_BYTES,
    ) -> None:
        self.conn, child = context.Pipe(duplex=True)
        self.process = context.Process(
            target=_worker_main, args=(child, memory_bytes, preload), daemon=True
        )
        self.process.start()
        child.close()
        self.ready = False

    def wait_ready(self) -> None:
        """Block until the worker has imported the engine; OSError if it died on the way."""
        if self.ready:
            return
        if not self.conn.poll(STARTUP_TIMEOUT) or self.conn.recv() != _READY:
            raise OSError("worker did not start")
        self.ready = True

    def kill(self) -> None:
        """Stop the process at once and release the pipe."""
        try:
            self.process.kill()
            self.process.join(timeout=5)
        finally:
            self.conn.close()


class WorkerPool:
    """A fixed number of worker processes shared by the threads of one server process."""

    def __init__(
        self,
        size: int = DEFAULT_WORKERS,
        timeout: float = DEFAULT_TIMEOUT,
        preload: tuple[str, ...] = PRELOAD,
        memory_bytes: int = WORKER_MEMORY_BYTES,
    ) -> None:
        self.size = size
        self.timeout = timeout
        self.preload = preload
        self.memory_bytes = memory_bytes
        # spawn, not fork: the server process has threads and open database connections.
        self._context = multiprocessing.get_context("spawn")
        self._idle: queue.LifoQueue[_Worker] = queue.LifoQueue()
        self._lock = threading.Lock()
        self._started = 0
        self._closed = False
        self.restarts = 0

    def _checkout(self) -> _Worker:
        """Take an idle worker, starting one while the pool is below its size."""
        with self._lock:
            if self._closed:
                raise RuntimeError("worker pool is closed")
            if self._idle.empty() and self._started < self.size:
                self._started += 1
                return _Worker(self._context, self.preload, self.memory_bytes)
        return self._idle.get()

    def _replace(self, worker: _Worker) -> None:
        """Kill a stuck or dead worker and put a fresh one in its place."""
        worker.kill()
        self.restarts += 1
        with self._lock:
            closed = self._closed
        if not closed:
            self._idle.put(_Worker(self._context, self.preload, self.memory_bytes))

    def call(
        self, fn: Callable[..., Any], *args: Any, timeout: float | None = None, **kwargs: Any
    ) -> Any:
        """Run fn(*args, **kwargs) in a worker; raise IsolationError past the deadline or on a crash.

        fn must be importable by name (a module-level function) and its arguments and result picklable.
        """
        return self.submit(fn, *args, timeout=timeout, **kwargs).result()

    def submit(
        self, fn: Callable[..., Any], *args: Any, timeout: float | None = None, **kwargs: Any
    ) -> Pending:
        """Send fn(*args, **kwargs) to a worker and return at once; `result()` waits for it.

        The caller must call `result()` (in a `finally`), which gives the worker back to the pool.
        """
        limit = self.timeout if timeout is None else timeout
        # Pickled before a worker is taken (Connection.send would pickle it after): a call that
        # cannot be pickled then raises without holding a worker that nothing gives back.
        message = ForkingPickler.dumps((fn, args, kwargs))
        worker = self._checkout()
        try:
            worker.wait_ready()
            deadline = time.monotonic() + limit
            worker.conn.send_bytes(message)
        except (EOFError, OSError, BrokenPipeError) as exc:
            self._replace(worker)
            raise IsolationError("crashed", CRASH_MESSAGE) from exc
        return Pending(self, worker, deadline, limit)

    def close(self) -> None:
        """Stop every worker (at interpreter exit, or in tests)."""
        with self._lock:
            self._closed = True
        while not self._idle.empty():
            self._idle.get_nowait().kill()


class Pending:
    """A call sent to a worker; the caller works meanwhile, then collects it with `result()`."""

    def __init__(self, pool: WorkerPool, worker: _Worker, deadline: float, limit: float) -> None:
        self._pool, self._deadline, self._limit = pool, deadline, limit
        self._worker: _Worker | None = worker

    def result(self) -> Any:
        """The call's result; IsolationError past the deadline (counted from the send) or on a crash."""
        pool, worker = self._pool, self._worker
        if worker is None:
            raise RuntimeError("this call's result was already collected")
        self._worker = None  # the worker goes back to the pool (or is replaced) exactly once
        try:
            if not worker.conn.poll(max(0.0, self._deadline - time.monotonic())):
                pool._replace(worker)
                raise IsolationError("timeout", TIMEOUT_MESSAGE.format(seconds=self._limit))
            result = worker.conn.recv()
        except (EOFError, OSError, BrokenPipeError) as exc:
            pool._replace(worker)
            raise IsolationError("crashed", CRASH_MESSAGE) from exc
        if isinstance(result, _Failure) and result.type_name == "MemoryError":
            # Fail closed: after an allocation failed, native state may be half-built.
            pool._replace(worker)
            raise IsolationError("crashed", result.message)
        pool._idle.put(worker)
        if isinstance(result, _Failure):
            raise RuntimeError(f"{result.type_name}: {result.message}")
        return result


_shared: WorkerPool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> WorkerPool:
    """The process-wide pool, created on first use and stopped at exit."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = WorkerPool()
            atexit.register(_shared.close)
        return _shared


def run_isolated(
    fn: Callable[..., Any], *args: Any, timeout: float | None = None, **kwargs: Any
) -> Any:
    """Run fn in the shared pool (see WorkerPool.call); in-process when POLICYEDITOR_ISOLATION=off."""
    if not _isolation_on():
        return _in_process(fn, *args, **kwargs)
    return shared_pool().call(fn, *args, timeout=timeout, **kwargs)


def start_isolated(
    fn: Callable[..., Any], *args: Any, timeout: float | None = None, **kwargs: Any
) -> Callable[[], Any]:
    """Start fn in the shared pool and return its `result` (see WorkerPool.submit): call it always."""
    if not _isolation_on():
        return functools.partial(_in_process, fn, *args, **kwargs)  # runs when collected
    return shared_pool().submit(fn, *args, timeout=timeout, **kwargs).result


def _in_process(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """fn(*args, **kwargs) here, an allocation failure reported as a worker reports it."""
    try:
        return fn(*args, **kwargs)
    except (MemoryError, MemoryExhausted) as exc:
        raise IsolationError("crashed", memory_message()) from exc


def _isolation_on() -> bool:
    return os.environ.get("POLICYEDITOR_ISOLATION", "on").lower() not in {"off", "0", "false"}


def isolation_enabled() -> bool:
    """Whether calls go to worker processes (POLICYEDITOR_ISOLATION is not off)."""
    return _isolation_on()
