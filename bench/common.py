"""Shared helpers of the benchmarks: timing side by side, percentiles, goals."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class Goal:
    """One goal of a benchmark: what was measured, the figure, the target and whether it is met."""

    name: str
    figure: float
    target: float
    unit: str = "x"
    lower_is_better: bool = True

    @property
    def met(self) -> bool:
        """True when the figure is on the right side of the target."""
        return self.figure <= self.target if self.lower_is_better else self.figure >= self.target

    def line(self) -> str:
        """`[met] name: 1.23x (goal <= 1.5x)`."""
        sign = "<=" if self.lower_is_better else ">="
        mark = "met" if self.met else "NOT met"
        return f"[{mark}] {self.name}: {self.figure:.2f}{self.unit} (goal {sign} {self.target:g}{self.unit})"


def per_call(fn: Callable[[], object], *, repeat: int, rounds: int = 5) -> float:
    """Best-of-rounds seconds per call of fn, each round `repeat` calls."""
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            fn()
        best = min(best, (time.perf_counter() - start) / repeat)
    return best


def interleaved(
    subjects: dict[str, Callable[[], object]], *, repeat: int | dict[str, int], rounds: int = 7
) -> dict[str, float]:
    """Seconds per call for several subjects, measured in alternating rounds so drift hits all alike.

    repeat: calls per round, or per subject (a slow subject fewer, so that a fast one is not
    timed over a handful of calls made with the caches the slow one just evicted).
    """
    counts = repeat if isinstance(repeat, dict) else dict.fromkeys(subjects, repeat)
    best = {name: float("inf") for name in subjects}
    for _ in range(rounds):
        for name, fn in subjects.items():
            start = time.perf_counter()
            for _ in range(counts[name]):
                fn()
            best[name] = min(best[name], (time.perf_counter() - start) / counts[name])
    return best


def percentiles(samples: list[float]) -> dict[str, float]:
    """Median, p95 and p99 of a list of samples (seconds)."""
    ordered = sorted(samples)
    cuts = (
        statistics.quantiles(ordered, n=100, method="inclusive")
        if len(ordered) > 1
        else ordered * 99
    )
    return {"p50": statistics.median(ordered), "p95": cuts[94], "p99": cuts[98]}
