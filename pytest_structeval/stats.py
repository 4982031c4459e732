"""Small, deterministic statistics for reports: the Student-t 95 % interval of a mean and
the 4-place rounding of every figure (never onto 0 or 1 from the other side).

No scipy (it is optional) and no random numbers: the interval of a set of scores must be
the same on every machine and for every order of the runs (the xdist controller adds them as
workers send them), so every figure is computed at report time from the raw scores.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from statistics import NormalDist
from typing import Any, Final

__all__ = ["finite_number", "mean4", "mean_ci95", "round4", "t_quantile_975"]

_Z975: Final = NormalDist().inv_cdf(0.975)
_EXACT_DF: Final = 60  # exact series below, Cornish-Fisher expansion above (error < 1e-9)


def _two_sided_mass(theta: float, df: int) -> float:
    """P(|T| < sqrt(df)·tan(theta)) for Student's t with integer ``df`` (A&S 26.7.3-4)."""
    sin, cos = math.sin(theta), math.cos(theta)
    c2 = cos * cos
    if df % 2:
        if df == 1:
            return 2.0 * theta / math.pi
        term, total = cos, cos
        for k in range(3, df - 1, 2):  # (2·4···(k-1)) / (3·5···k) · cos^k
            term *= c2 * (k - 1) / k
            total += term
        return 2.0 / math.pi * (theta + sin * total)
    term, total = 1.0, 1.0
    for k in range(2, df - 1, 2):  # (1·3···(k-1)) / (2·4···k) · cos^k
        term *= c2 * (k - 1) / k
        total += term
    return sin * total


def t_quantile_975(df: int) -> float:
    """The 97.5 % quantile of Student's t with ``df >= 1`` degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df > _EXACT_DF:
        z = _Z975
        z3, z5, z7, z9 = z**3, z**5, z**7, z**9
        terms = (
            (z3 + z) / 4,
            (5 * z5 + 16 * z3 + 3 * z) / 96,
            (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / 384,
            (79 * z9 + 776 * z7 + 1482 * z5 - 1920 * z3 - 945 * z) / 92160,
        )
        return z + sum(term / float(df) ** (i + 1) for i, term in enumerate(terms))
    low, high = 0.0, math.pi / 2
    for _ in range(80):  # bisection on the angle: the mass is monotone in it
        mid = (low + high) / 2
        if _two_sided_mass(mid, df) < 0.95:
            low = mid
        else:
            high = mid
    return math.sqrt(df) * math.tan((low + high) / 2)


def finite_number(value: Any) -> float | None:
    """A finite real number as float, else ``None`` (bools are not numbers here, nor are
    integers too large for a float). The aggregate's and the baseline's one reading of a
    figure; called for every metric of every run, so exact types come first."""
    kind = type(value)
    if kind is float:
        return value if math.isfinite(value) else None
    if kind is int:  # (no int converts to an infinite float: past the range it raises)
        try:
            return float(value)
        except OverflowError:
            return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def round4(value: float) -> float:
    """``value`` to 4 places, but never onto 0 or 1 from the other side: a pass rate of 20,000
    runs in 20,001 is 0.9999, not 1.0 (which reads as perfect and meets a gate
    ``pass_rate>=1``), and one pass in 20,001 is 0.0001, not 0.0."""
    rounded = round(value, 4)
    if rounded == 1.0 and value < 1.0:
        return 0.9999
    if rounded == 0.0 and value > 0.0:
        return 0.0001
    return rounded


def mean4(values: Sequence[float]) -> float:
    """The mean of non-empty ``values`` to 4 places, exact in any order (``fsum``); finite
    values whose sum no float holds are scaled first instead of overflowing."""
    n = len(values)
    try:
        return round4(math.fsum(values) / n)
    except OverflowError:  # scaled into [-1, 1]: fsum's partial sums overflow near the limit
        scale = max(map(abs, values))
        return round4(math.fsum(value / scale for value in values) / n * scale)


def mean_ci95(
    values: Iterable[float], *, lower: float = 0.0, upper: float = 1.0
) -> list[float] | None:
    """``[low, high]``: the t-interval of the mean, clipped to ``[lower, upper]`` and rounded
    to 4 places; ``None`` for fewer than two values.

    Sums use :func:`math.fsum` over the sorted values, so the result does not depend on order.
    Values no float arithmetic can spread (past about 1e154) give ``None`` as well.
    """
    data = sorted(values)
    n = len(data)
    if n < 2:
        return None
    try:
        mean = math.fsum(data) / n
        variance = math.fsum((x - mean) ** 2 for x in data) / (n - 1)
    except OverflowError:
        return None
    half = t_quantile_975(n - 1) * math.sqrt(variance / n)
    return [
        round4(min(max(mean - half, lower), upper)),
        round4(min(max(mean + half, lower), upper)),
    ]
