"""Run every benchmark in bench/ (files named bench_*.py) and print each goal as met or not.

Each benchmark module has a `run() -> list[Goal]` function; it measures its subjects side by side in
the same process run, because absolute times on a shared machine drift while ratios hold.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "policyeditor.settings")
os.environ.setdefault("DEBUG", "1")

from common import Goal  # noqa: E402


def load(path: Path):
    """Import one benchmark module from its file."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    """Run the benchmarks named on the command line (default: all), print a summary."""
    names = argv or sorted(p.stem for p in HERE.glob("bench_*.py"))
    goals: list[Goal] = []
    started = time.perf_counter()
    for name in names:
        path = HERE / f"{name.removesuffix('.py')}.py"
        print(f"\n=== {path.stem}", flush=True)
        t0 = time.perf_counter()
        goals.extend(load(path).run())
        print(f"({time.perf_counter() - t0:.1f}s)", flush=True)
    print("\n=== summary")
    for goal in goals:
        print(goal.line())
    met = sum(goal.met for goal in goals)
    print(f"{met} of {len(goals)} goals met in {time.perf_counter() - started:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
