"""Small statistics for comparing agents."""

from __future__ import annotations

import math

#: the standard normal's 97.5% quantile: a two-sided 95% interval
Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default).

    Written out rather than taken from statsmodels/scipy: it is five lines and
    those libraries are not dependencies; tests check it against published values.
    """
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: list[float], z: float = Z95) -> tuple[float, float, float]:
    """The mean of ``values`` and its 95% interval by the normal approximation (the sample
    standard deviation over sqrt(n)); infinite with a single value. For paired differences."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else math.inf
    half = z * sd / math.sqrt(n)
    return mean, mean - half, mean + half
