"""A deal of Quintet as a game for the algorithms of ``solver.games``.

* a pure strategy is an arrangement, as a tuple of packet indices in slot order;
* the payoff of P against Q is the margin ``Σ_s w_s · sign(c(P_s) − c(Q_s))``;
* the best response to a mix is an exact engine (``solver.engines.base``; the search by
  default) against the mix's per-slot marginals, seeded with the pool's best strategy;
* the orbit of a new best response is every slot order of its partition (equilibria play few
  partitions in many orders: adding the orders together cuts the iterations about tenfold);
* the cheap oracle (``improving_responses``) is a local search (``solver.engines.local_search``)
  from the pool's best partitions.

``QuintetModelGame`` adds an opponent model M (its per-slot marginals) for the restricted Nash
response.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from itertools import permutations

import numpy as np

from solver.engines.base import DEFAULT_ENGINE, EngineOptions, solve
from solver.engines.local_search import improving_partitions
from solver.problem.best_response import BestResponseProblem, slot_values
from solver.problem.deal_tables import DealTables

from .double_oracle import Response
from .lp import RESTRICTED_GAME_GLOP, solve_slot_order_lp

__all__ = ["Strategy", "QuintetGame", "QuintetModelGame"]

Strategy = tuple[int, ...]


class QuintetGame:
    """A deal of Quintet as a symmetric zero-sum game over arrangements (margin payoffs)."""

    def __init__(self, tables: DealTables, engine: EngineOptions = DEFAULT_ENGINE) -> None:
        self.tables = tables
        self.engine = engine  # the exact best response's engine (its time limit is set per call)
        self.weights = np.asarray(tables.rules.weights, dtype=np.float64)

    def classes(self, strategies: Sequence[Strategy]) -> np.ndarray:
        return self.tables.classes[np.asarray(strategies, dtype=np.int64).reshape(len(strategies), -1)]

    def payoffs(self, rows: Sequence[Strategy], cols: Sequence[Strategy]) -> np.ndarray:
        r, c = self.classes(rows), self.classes(cols)
        out = np.zeros((len(rows), len(cols)))
        for s, w in enumerate(self.weights):
            out += w * np.sign(r[:, s, None] - c[None, :, s])
        return out

    def payoffs_against(self, rows: Sequence[Strategy], support: Sequence[Strategy],
                        probabilities: np.ndarray) -> np.ndarray:
        """Σ_s V[c(row_s), s] with V the margin values against the mix's marginals."""
        values = self.problem(support, probabilities).values
        return values[self.classes(rows), np.arange(len(self.weights))].sum(axis=1)

    def marginals(self, support: Sequence[Strategy], probabilities: np.ndarray) -> np.ndarray:
        cls = self.classes(support)
        out = np.zeros((len(self.weights), self.tables.n_classes))
        for s in range(len(self.weights)):
            np.add.at(out[s], cls[:, s], probabilities)
        return out

    def problem(self, support: Sequence[Strategy], probabilities: np.ndarray) -> BestResponseProblem:
        values = slot_values(self.marginals(support, probabilities), self.tables.rules.weights, "margin")
        return BestResponseProblem(self.tables, values)

    def best_response(self, support: Sequence[Strategy], probabilities: np.ndarray, *,
                      time_limit: float | None, hint: Strategy | None,
                      stop_event: threading.Event | None) -> Response[Strategy]:
        problem = self.problem(support, probabilities)
        result = solve(problem, self.engine.with_time_limit(time_limit), hint, stop_event)
        return Response(result.packets, result.value, result.bound, result.optimal)

    def improving_responses(self, support: Sequence[Strategy], probabilities: np.ndarray,
                            starts: Sequence[Strategy], *, min_gain: float, limit: int
                            ) -> list[tuple[float, Strategy]]:
        """Local optima of ``local_search`` from the distinct partitions among ``starts``."""
        problem = self.problem(support, probabilities)
        distinct: dict[frozenset[int], Strategy] = {}
        for s in starts:
            distinct.setdefault(frozenset(s), s)
        return improving_partitions(problem, distinct.values(), min_gain=min_gain, limit=limit)

    def orbit(self, strategy: Strategy) -> list[Strategy]:
        return [tuple(p) for p in permutations(strategy)]

    def restricted_mix(self, strategies: Sequence[Strategy], support_tol: float
                       ) -> tuple[list[Strategy], np.ndarray]:
        """An equilibrium of the game over every slot order of the partitions of ``strategies``
        (``solve_slot_order_lp``), as arrangements: each partition's doubly stochastic matrix
        decomposed into slot orders (``birkhoff``), weights at most ``support_tol`` dropped."""
        partitions = list({frozenset(s): tuple(sorted(s)) for s in strategies}.values())
        D = solve_slot_order_lp(self.tables.classes[np.asarray(partitions, dtype=np.int64)], self.weights,
                                RESTRICTED_GAME_GLOP)
        mix = [(weight, tuple(partition[i] for i in order))
               for partition, d in zip(partitions, D, strict=True) if d.sum() > support_tol
               for weight, order in birkhoff(d, support_tol)]
        probs = np.array([weight for weight, _ in mix])
        return [s for _, s in mix], probs / probs.sum()



def birkhoff(d: np.ndarray, tol: float) -> list[tuple[float, tuple[int, ...]]]:
    """Birkhoff's decomposition of a nonnegative n × n matrix whose rows and columns sum alike:
    (weight, order) pairs with ``order[s]`` the row placed in column s, weights summing to the
    matrix's row sum up to ``tol``.  Greedy on the order whose smallest entry is largest (few
    orders; for n = 5 all 120 are tried)."""
    n = d.shape[0]
    orders = np.array(list(permutations(range(n))))
    d = d.copy()
    out: list[tuple[float, tuple[int, ...]]] = []
    while True:
        entries = d[orders, np.arange(n)]
        best = int(np.argmax(entries.min(axis=1)))
        weight = float(entries[best].min())
        if weight <= tol:
            return out
        out.append((weight, tuple(orders[best].tolist())))
        d[orders[best], np.arange(n)] -= weight


class QuintetModelGame(QuintetGame):
    """A deal of Quintet with an opponent model (its per-slot marginals)."""

    def __init__(self, tables: DealTables, model_marginals: np.ndarray,
                 engine: EngineOptions = DEFAULT_ENGINE) -> None:
        super().__init__(tables, engine)
        self.model_marginals = np.asarray(model_marginals, dtype=np.float64)
        self._model_values = slot_values(self.model_marginals, tables.rules.weights, "margin")

    def model_payoffs(self, rows: Sequence[Strategy]) -> np.ndarray:
        if not rows:
            return np.zeros(0)
        return self._model_values[self.classes(rows), np.arange(len(self.weights))].sum(axis=1)

    def model_problem(self, support: Sequence[Strategy], probabilities: np.ndarray,
                      model_weight: float) -> BestResponseProblem:
        """The best-response problem against ``model_weight``·M + (1 − model_weight)·mix."""
        marginals = model_weight * self.model_marginals
        if len(support):
            marginals = marginals + (1.0 - model_weight) * self.marginals(support, probabilities)
        return BestResponseProblem(self.tables, slot_values(marginals, self.tables.rules.weights, "margin"))

    def best_response(self, support: Sequence[Strategy], probabilities: np.ndarray, *,
                      model_weight: float = 0.0, time_limit: float | None = None, hint: Strategy | None = None,
                      stop_event: threading.Event | None = None) -> Response[Strategy]:
        problem = self.model_problem(support, probabilities, model_weight)
        result = solve(problem, self.engine.with_time_limit(time_limit), hint, stop_event)
        return Response(result.packets, result.value, result.bound, result.optimal)

    def improving_responses(self, support: Sequence[Strategy], probabilities: np.ndarray,
                            starts: Sequence[Strategy], *, min_gain: float, limit: int,
                            model_weight: float = 0.0) -> list[tuple[float, Strategy]]:
        """Local optima (``local_search``) worth more than ``min_gain`` against
        ``model_weight``·M + (1 − model_weight)·mix, from the distinct partitions of ``starts``."""
        problem = self.model_problem(support, probabilities, model_weight)
        distinct: dict[frozenset[int], Strategy] = {}
        for s in starts:
            distinct.setdefault(frozenset(s), s)
        return improving_partitions(problem, distinct.values(), min_gain=min_gain, limit=limit)
