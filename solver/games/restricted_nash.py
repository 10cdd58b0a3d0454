"""The restricted Nash response (Johanson, Zinkevich & Bowling 2007) over a small game interface.

Against an opponent model M that is probably right but might be wrong, the best response to
M is brittle and the equilibrium leaves points on the table.  ``restricted_nash_response``
returns the mix x that maximizes the expected payoff against M among the mixes whose
exploitability ``max_P u(P, x)`` is at most D:

    maximize   Σ_i x_i u(s_i, M)
    such that  Σ_i x_i u(t, s_i) ≤ D      for every pure strategy t   (no t gains more than D)
               Σ_i x_i = 1,  x ≥ 0.

The program has a column and a row per strategy, so both are generated, like the double oracle:

* rows: the exact best response t to the current x; when it gains more than D, its
  constraint joins the program;
* columns: with y_t ≥ 0 the duals of the rows and μ that of Σ x = 1, a strategy s improves
  the program iff ``u(s, M) + Σ_t y_t u(s, t) − μ > 0`` (u(t, s) = −u(s, t)): the best
  response to the opponent mixture "M with weight 1, each t with weight y_t" finds it.

When neither finds anything, x is optimal: feasible for every row (its exploitability, an
exact best response's value, is ≤ D) and optimal for the program with only the generated rows
— a relaxation — with no improving column.  Every x returned is feasible: its certified
exploitability comes from an exact best response (or its proven bound) and is at most D.
``margin_bound`` bounds the optimum from above (the program's value plus the last pricing
gain), so the answer's distance from optimal is known even when stopped early.

The algorithm knows the game only through ``ModelGame`` (payoffs, payoffs against M, a best
response to a weighted mixture of M and a mix) and, when the game offers one, a cheap oracle
``ModelCheapOracle``; ``solver.games.quintet_game.QuintetModelGame`` is a deal of Quintet.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

from .double_oracle import Response
from .lp import solve_rnr_program

__all__ = ["ModelGame", "ModelCheapOracle", "RnrIterationRecord", "SafeResult", "restricted_nash_response",
           "LP_TOLERANCE"]

S = TypeVar("S", bound=Hashable)

LP_TOLERANCE = 1e-7  # points: the linear program's optimum is exact to about this (GLOP's tolerances)


class ModelGame(Protocol[S]):
    """A symmetric zero-sum game with an opponent model M."""

    def payoffs(self, rows: Sequence[S], cols: Sequence[S]) -> np.ndarray:
        """u(row, col), ``len(rows) × len(cols)``, antisymmetric."""
        ...

    def model_payoffs(self, rows: Sequence[S]) -> np.ndarray:
        """u(row, M) for each row."""
        ...

    def best_response(self, support: Sequence[S], probabilities: np.ndarray, *, model_weight: float,
                      time_limit: float | None, stop_event: threading.Event | None) -> Response[S]:
        """The best response to ``model_weight``·M + (1 − model_weight)·mix, with its value."""
        ...


@runtime_checkable
class ModelCheapOracle(Protocol[S]):
    def improving_responses(self, support: Sequence[S], probabilities: np.ndarray, starts: Sequence[S], *,
                            min_gain: float, limit: int, model_weight: float) -> Sequence[tuple[float, S]]:
        """Up to ``limit`` strategies gaining more than ``min_gain`` against ``model_weight``·M +
        (1 − model_weight)·mix, as (gain, strategy), best first; found from ``starts``, no proof."""
        ...


@dataclass(frozen=True)
class RnrIterationRecord:
    """One iteration: program size, the mix's support and payoff against M (``margin``), the
    program's value, the certified exploitability when the exact attack ran (else None), the
    pricing's reduced cost when it ran (else None), seconds so far."""

    iteration: int
    columns: int
    rows: int
    support: int
    margin: float
    program: float
    exploitability: float | None
    reduced_cost: float | None
    seconds: float


@dataclass
class SafeResult(Generic[S]):
    support: list[S]
    probabilities: np.ndarray
    exploitability: float  # certified: max_P u(P, mix) ≤ this ≤ max_exploitability (+ tolerance)
    model_margin: float  # u(mix, M)
    margin_bound: float  # no mix of exploitability ≤ D does better against M than this
    optimal: bool  # the program's optimum, proven (margin_bound − model_margin ≤ tolerance)
    interrupted: bool
    iterations: int
    seconds: float
    history: list[RnrIterationRecord] = field(default_factory=list)


def _ranked(values: np.ndarray, strategies: list[S], count: int = 16) -> list[S]:
    return [strategies[i] for i in np.argsort(-values, kind="stable")[:count]]


@dataclass
class _Generation(Generic[S]):
    """The program's rows and columns so far, and how new ones are found (module doc)."""

    game: ModelGame[S]
    bound: float  # D
    tolerance: float
    cheap: ModelCheapOracle[S] | None
    stop_event: threading.Event | None
    rows: list[S] = field(default_factory=list)
    columns: list[S] = field(default_factory=list)

    def attack(self, support: list[S], probs: np.ndarray, seen: list[S],
               time_left: float | None) -> tuple[list[S], float | None, Response[S] | None]:
        """Rows: strategies gaining more than D against the mix — the cheap oracle's first, else
        the exact best response's.  Returns (new rows, the certified exploitability when the exact
        attack ran, the attack)."""
        if self.cheap is not None:
            starts = _ranked(self.game.payoffs(seen, support) @ probs, seen)
            found = self.cheap.improving_responses(support, probs, starts, min_gain=self.bound + self.tolerance,
                                                   limit=3, model_weight=0.0)
            new_rows = [s for _, s in found if s not in self.rows]
            if new_rows:
                return new_rows, None, None
        attack = self.game.best_response(support, probs, model_weight=0.0, time_limit=time_left,
                                         stop_event=self.stop_event)
        exploit = attack.value if attack.proven else attack.bound
        gains = attack.value > self.bound + self.tolerance and attack.strategy not in self.rows
        return ([attack.strategy] if gains else []), exploit, attack

    def price(self, y: np.ndarray, mu: float, seen: list[S], exact: bool,
              time_left: float | None) -> tuple[list[S], float | None, bool]:
        """Columns whose reduced cost u(s, M) + Σ y_t u(s, t) − μ is positive: the best responses to
        the opponent "M with weight 1, each row t with weight y_t" (normalized by ``weight``); the
        exact pricing runs only when ``exact`` and the cheap oracle finds none.  Returns (new
        columns, the exact pricing's certified reduced cost or None, whether it was proven)."""
        weight = 1.0 / (1.0 + float(y.sum()))
        priced = [t for t, yt in zip(self.rows, y, strict=True) if yt > 0]
        pweights = np.array([yt for yt in y if yt > 0])
        pweights = pweights / pweights.sum() if priced else np.zeros(0)
        model_weight = weight if priced else 1.0
        if self.cheap is not None:
            values = weight * self.game.model_payoffs(seen)
            if priced:
                values = values + (1.0 - weight) * (self.game.payoffs(seen, priced) @ pweights)
            found = self.cheap.improving_responses(priced, pweights, _ranked(values, seen),
                                                   min_gain=(mu + self.tolerance) * weight, limit=3,
                                                   model_weight=model_weight)
            new_columns = [s for _, s in found if s not in self.columns]
            if new_columns or not exact:
                return new_columns, None, False
        elif not exact:
            return [], None, False
        pricing = self.game.best_response(priced, pweights, model_weight=model_weight, time_limit=time_left,
                                          stop_event=self.stop_event)
        reduced = (pricing.value if pricing.proven else pricing.bound) / weight - mu
        improves = pricing.value / weight - mu > self.tolerance and pricing.strategy not in self.columns
        return ([pricing.strategy] if improves else []), reduced, pricing.proven


def restricted_nash_response(
    game: ModelGame[S],
    initial: Sequence[S],
    initial_probabilities: np.ndarray,
    initial_exploitability: float,
    *,
    max_exploitability: float,
    time_limit: float | None = None,
    stop_event: threading.Event | None = None,
    tolerance: float,
    progress: Callable[[RnrIterationRecord], None] | None = None,
) -> SafeResult[S]:
    """The mix maximizing u(·, M) with exploitability ≤ ``max_exploitability`` (module doc).

    ``tolerance`` (points) is the game's float tolerance: a strategy gains only by more than this,
    and an exploitability up to ``max_exploitability + tolerance`` is within the limit.

    ``initial`` with ``initial_probabilities`` is a mix whose certified exploitability,
    ``initial_exploitability``, is at most ``max_exploitability`` (e.g. an equilibrium): the
    answer until a better one is found, and its strategies are the first columns.
    """
    start = time.perf_counter()
    D = float(max_exploitability)
    if initial_exploitability > D + tolerance:
        raise ValueError(f"the initial mix is exploitable by {initial_exploitability}, more than {D}")
    cheap = game if isinstance(game, ModelCheapOracle) else None
    gen: _Generation[S] = _Generation(game, D, tolerance, cheap, stop_event, columns=list(dict.fromkeys(initial)))
    probs0 = np.asarray(initial_probabilities, dtype=np.float64)
    best = SafeResult(list(initial), probs0 / probs0.sum(), max(initial_exploitability, 0.0),
                      float(game.model_payoffs(list(initial)) @ (probs0 / probs0.sum())), float("inf"), False, False,
                      0, 0.0)
    history: list[RnrIterationRecord] = []
    iterations = 0
    interrupted = False

    def remaining() -> float | None:
        return None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))

    while True:
        iterations += 1
        A = game.payoffs(gen.rows, gen.columns) if gen.rows else np.zeros((0, len(gen.columns)))
        x, value, y, mu = solve_rnr_program(game.model_payoffs(gen.columns), A, D)
        keep = x > 1e-12
        support = [s for s, k in zip(gen.columns, keep, strict=True) if k]
        probs = x[keep] / x[keep].sum()
        margin = float(game.model_payoffs(support) @ probs)
        seen = list(dict.fromkeys(gen.columns + gen.rows))
        new_rows, exploit, _ = gen.attack(support, probs, seen, remaining())
        if exploit is not None and exploit <= D + tolerance and margin > best.model_margin:
            best = SafeResult(support, probs, max(exploit, 0.0), margin, best.margin_bound, False, False,
                              iterations, 0.0)
        new_columns, reduced, proven = gen.price(y, mu, seen, not new_rows, remaining())
        if reduced is not None and proven:
            best.margin_bound = min(best.margin_bound, value + max(0.0, reduced))
        record = RnrIterationRecord(iterations, len(gen.columns), len(gen.rows), len(support), margin, value, exploit,
                                    reduced, time.perf_counter() - start)
        history.append(record)
        if progress is not None:
            progress(record)
        gen.rows.extend(new_rows)
        gen.columns.extend(new_columns)
        if not (new_rows or new_columns):
            best.optimal = best.margin_bound - best.model_margin <= LP_TOLERANCE
            break
        if (stop_event is not None and stop_event.is_set()) or remaining() == 0.0:
            interrupted = stop_event is not None and stop_event.is_set()
            break
    best.interrupted = interrupted
    best.iterations = iterations
    best.seconds = time.perf_counter() - start
    best.history = history
    return best
