"""A series' mean and its trend, for the session statistics of both games.

    >>> t = Trend.of([3.0, 2.0, 2.0, 1.0, 0.0, 0.0], window=2)
    >>> t.mean, t.recent, t.earlier, t.direction
    (1.3333333333333333, 0.0, 2.0, 'down')
    >>> [round(b, 2) for b in t.blocks]
    [2.5, 1.5, 0.0]

``recent`` is the mean of the last ``window`` values and ``earlier`` of all before them (None
until there are more than ``window`` values); ``slope`` the least-squares change per value;
``blocks`` the means of consecutive blocks of ``window`` values (the last block may be shorter).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Trend"]

STEADY = 0.05
"""A change of the recent mean against the earlier one smaller than this share of the larger
of the two (in absolute value; at least 0.01) is ``steady``."""


@dataclass(frozen=True)
class Trend:
    """The mean of a series and how it moves (see the module doc)."""

    count: int
    mean: float | None
    recent: float | None
    earlier: float | None
    slope: float | None  # least-squares change per value (None for fewer than two values)
    window: int
    blocks: tuple[float, ...]

    @classmethod
    def of(cls, values: Sequence[float], window: int = 10) -> Trend:
        if window < 1:
            raise ValueError(f"a trend's window is at least 1, got {window}")
        n = len(values)
        if n == 0:
            return cls(0, None, None, None, None, window, ())
        mean = sum(values) / n
        recent = earlier = None
        if n > window:
            recent = sum(values[-window:]) / window
            earlier = sum(values[:-window]) / (n - window)
        slope = None
        if n >= 2:
            centre = (n - 1) / 2
            slope = sum((i - centre) * (v - mean) for i, v in enumerate(values)) / sum(
                (i - centre) ** 2 for i in range(n))
        blocks = tuple(sum(values[i:i + window]) / len(values[i:i + window]) for i in range(0, n, window))
        return cls(n, mean, recent, earlier, slope, window, blocks)

    @property
    def direction(self) -> str | None:
        """``up``, ``down`` or ``steady``: the recent mean against the earlier one (None until
        there are more than ``window`` values)."""
        if self.recent is None or self.earlier is None or self.mean is None:
            return None
        scale = max(0.01, STEADY * max(abs(self.recent), abs(self.earlier)))
        if abs(self.recent - self.earlier) < scale:
            return "steady"
        return "up" if self.recent > self.earlier else "down"
