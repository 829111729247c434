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


def summarise(seconds: list[float]) -> Summary:
    """Summarise samples given in seconds."""
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return Summary(len(ordered), statistics.median(ordered) * 1000, p95 * 1000)
