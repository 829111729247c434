"""Small statistics for benchmark samples."""

from __future__ import annotations

import statistics
from dataclasses import dataclass


@dataclass(frozen=True)
class Summary:
    """Median and 95th percentile of a sample, in milliseconds."""

    n: int
    median_ms: float
    p95_ms: float

    def __str__(self) -> str:
        return f"median {self.median_ms:7.2f} ms   p95 {self.p95_ms:7.2f} ms   (n={self.n})"


def percentile(seconds: list[float], fraction: float) -> float:
    """The sample at `fraction` (0..1) of the sorted samples, nearest rank."""
    ordered = sorted(seconds)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def summarise(seconds: list[float]) -> Summary:
    """Summarise samples given in seconds."""
    median = statistics.median(seconds)
    return Summary(len(seconds), median * 1000, percentile(seconds, 0.95) * 1000)
