"""The best-response problem handed to the exact engines, and what they return.

Against opponent marginals ``M`` (``n_slots × R``; see ``opponents``) the expected value of
playing a packet of rank class ``r`` in slot ``s`` is

* objective ``margin`` (my points − their points):
  ``V[r, s] = w_s · (P(theirs < r) − P(theirs > r))``, in [−w_s, w_s];
* objective ``points`` (my points only):
  ``V[r, s] = w_s · (P(theirs < r) + tie_points · P(theirs = r))``, in [0, w_s].

Both are nondecreasing in ``r`` for every slot — the engines' pruning relies on that.
A best response is an ordered exact cover of the live cards by one packet per slot
maximizing ``Σ_s V[class(p_s), s]``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from quintet.faults import InputError
from quintet.text import quote
from solver.problem.deal_tables import DealTables

__all__ = [
    "OBJECTIVES", "VALUE_TOLERANCE", "FLOAT_NOISE", "expected_values", "slot_values", "expected_margin",
    "outcome_probabilities",
    "BestResponseProblem", "EngineResult",
]

OBJECTIVES = ("margin", "points")

VALUE_TOLERANCE = 1e-9
"""Points.  "Optimal" means no arrangement is worth more than the returned one plus this:
the engines seek only improvements larger than it (values are float64 sums, exact to ~1e-14)."""

FLOAT_NOISE = 1e-12
"""Points: far above the rounding of a float64 value sum (~1e-14), far below
``VALUE_TOLERANCE``.  A change of value smaller than this is rounding, not an improvement:
local searches (a hint's improvement, the best two-card swap) stop on it instead of cycling."""


def outcome_probabilities(marginals: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(win, tie, loss) probabilities, each ``(R, n_slots)``: playing class r in slot s."""
    m = np.asarray(marginals, dtype=np.float64)
    cdf = np.cumsum(m, axis=1)  # P(theirs <= r)
    tie = m
    win = cdf - m  # P(theirs < r)
    loss = np.clip(1.0 - cdf, 0.0, 1.0)
    return win.T.copy(), tie.T.copy(), loss.T.copy()


def expected_values(win: Any, tie: Any, loss: Any, weight: Any, tie_points: float = 0.0) -> tuple[Any, Any]:
    """(margin, points) expected in a slot worth ``weight`` points from the chances to win, tie
    and lose there (floats or arrays alike): the one formula of the module doc."""
    return weight * (win - loss), weight * (win + tie_points * tie)


def slot_values(marginals: np.ndarray, weights: Sequence[float], objective: str = "margin",
                tie_points: float = 0.0) -> np.ndarray:
    """Value table ``V`` (float64, ``(R, n_slots)``) of a class in a slot; see module doc."""
    if objective not in OBJECTIVES:
        raise InputError(f"unknown objective {quote(objective)} (use {' or '.join(OBJECTIVES)})")
    w = np.asarray(weights, dtype=np.float64)[None, :]
    values = expected_values(*outcome_probabilities(marginals), w, tie_points)[objective == "points"]
    # Enforce exact monotonicity against float rounding (differences of ~1e-16).
    return np.maximum.accumulate(values, axis=0)


def expected_margin(mine: np.ndarray, theirs: np.ndarray, weights: Sequence[float]) -> float:
    """The exact expected margin (points) of a player whose per-slot marginals are ``mine``
    against ``theirs`` (both ``(n_slots, R)``, rows summing to 1): ``Σ_s Σ_r mine[s, r] · V[r, s]``
    with ``V`` the margin values of ``slot_values``."""
    return float(np.einsum("sr,rs->", np.asarray(mine, dtype=np.float64), slot_values(theirs, weights)))


@dataclass(frozen=True)
class BestResponseProblem:
    """Maximize ``Σ_s values[classes[p_s], s]`` over ordered exact covers of ``tables.deal.live``.

    ``fixed[s]`` is a packet index that slot ``s`` must hold, or −1 (free).
    """

    tables: DealTables
    values: np.ndarray  # float64 (R, n_slots), nondecreasing in R
    fixed: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.fixed:
            object.__setattr__(self, "fixed", (-1,) * self.tables.n_slots)
        if len(self.fixed) != self.tables.n_slots:
            raise ValueError("fixed needs one entry per slot")
        used = 0
        for p in self.fixed:
            if p >= 0:
                m = int(self.tables.masks[p])
                if m & used:
                    raise ValueError("fixed packets overlap")
                used |= m

    @property
    def n_slots(self) -> int:
        return self.tables.n_slots

    def value_of(self, packet_indices: tuple[int, ...] | list[int]) -> float:
        """Exact float64 value of an arrangement given as packet indices in slot order."""
        cls = self.tables.classes
        return float(sum(self.values[cls[p], s] for s, p in enumerate(packet_indices)))

    def trivial_bound(self) -> float:
        """Σ_s max_r V[r, s] — no arrangement is worth more."""
        return float(self.values.max(axis=0).sum())


@dataclass(frozen=True)
class EngineResult:
    """An engine's answer: packet indices in slot order, value, proven bound ≥ value (points),
    seconds spent, the engine's name and its statistics."""

    packets: tuple[int, ...]
    value: float
    bound: float
    optimal: bool
    seconds: float
    engine: str
    stats: dict[str, object] = field(default_factory=dict)
