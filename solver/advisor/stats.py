"""95% confidence intervals of a sample mean (Student t), shared by the research tools:
the tournament's margins across deals and the book estimate's CPU seconds per deal.

    >>> round(t_quantile_975(4), 4)
    2.7764
    >>> mean, half = mean_ci95([1.0, 2.0, 3.0, 6.0])
    >>> float(mean), round(float(half), 3)
    (3.0, 3.437)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["t_quantile_975", "mean_ci95"]

# Two-sided 95% Student t quantiles t_{0.975, df} for df = 1..30.
_T975 = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
)


def t_quantile_975(df: int) -> float:
    """The 97.5% quantile of Student's t with ``df`` degrees of freedom (for 95% intervals).

    A table for df ≤ 30, above that the Cornish-Fisher expansion around z = 1.959964
    (error < 1e-4 there); NaN for df < 1."""
    if df < 1:
        return math.nan
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959963984540054
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def mean_ci95(samples: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The mean of ``samples`` over its first axis and the half-width of its 95% confidence
    interval (Student t, n − 1 degrees of freedom; NaN with fewer than two samples).

    ``samples``: ``n`` scalars, or ``n`` arrays of one shape (an interval per entry)."""
    x = np.asarray(samples, dtype=np.float64)
    n = x.shape[0]
    if n == 0:
        raise ValueError("a confidence interval needs at least one sample")
    mean = x.mean(axis=0)
    if n < 2:
        return mean, np.full(mean.shape, math.nan)
    return mean, t_quantile_975(n - 1) * (x.std(axis=0, ddof=1) / math.sqrt(n))
