"""Benchmark 3: the load test (bench/load_test.py) as part of `make bench`."""

from __future__ import annotations

from common import Goal
from load_test import run as run_load_test


def run() -> list[Goal]:
    """gunicorn on 127.0.0.1, 20 normal clients and one runaway client; see load_test.py."""
    return run_load_test()
