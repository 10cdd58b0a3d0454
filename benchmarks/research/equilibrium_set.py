"""How far a linear objective ranges over the equilibria of a symmetric zero-sum game.

In a symmetric zero-sum game (value 0) the equilibria are the mixes no pure strategy gains
against, ``X* = {x ∈ Δ : u(P, x) ≤ 0 for every P}``: a polytope.  ``EquilibriumSet.maximize``
bounds ``max_{x ∈ X*} c·x`` for an objective ``c`` over pure strategies, by the linear program

    maximize   Σ_Q c(Q) x_Q
    such that  Σ_Q u(P, Q) x_Q ≤ 0     for every pure strategy P   (rows)
               Σ_Q x_Q = 1,  x ≥ 0                                 (columns: pure strategies Q)

whose rows and columns are both generated, as in the restricted Nash response:

* **rows**: the exact best response P to the program's x; when it gains against x, its orbit's
  gaining members join the rows.  An x no best response gains against (certified by the exact
  oracle) is an equilibrium, so its objective is a *proven lower bound* on the maximum;
* **columns** (pricing): for any weights y ≥ 0 on the rows,

      c·x ≤ Σ_Q x_Q (c(Q) + Σ_P y_P u(Q, P)) ≤ max_Q [c(Q) + Σ_P y_P u(Q, P)]

  for every x ∈ X* (add y_P times the slack ``−u(P, x) ≥ 0``; Σ x = 1).  The game's ``price``
  oracle maximizes the right-hand side exactly (a best response to the rows weighted by the
  program's duals, plus the objective) — its proven bound is a *proven upper bound* on the
  maximum, valid at every round, and its arg max joins the columns when it beats the program.

The bounds meet (to ``tolerance``) when neither oracle finds anything.  ``target`` stops the
search early once the question "can an equilibrium exceed the target?" is settled either way.

A row may also be a mix (``mixed_rows``: e.g. a known equilibrium x₀, whose row
``u(x₀, x) ≤ 0`` confines the columns to best responses to x₀ without listing them).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import numpy as np

from solver.games.double_oracle import Response

__all__ = ["EquilibriumGame", "ObjectiveRange", "EquilibriumSet", "PRIMAL_TOLERANCE", "ROW_SLACK"]

S = TypeVar("S", bound=Hashable)

ROW_SLACK = 1e-9
"""Points: the program's rows are ``u(P, x) ≤ ROW_SLACK`` (a zero right-hand side can make GLOP
call a program with an exact equilibrium infeasible); the upper bounds do not depend on it."""

ELASTIC_PENALTY = 1e6
"""The objective's price of a unit of row violation (objectives here range over [0, 1])."""

PRIMAL_TOLERANCE = 1e-7
"""Points: a mix whose certified exploitability is at most this counts as an equilibrium (the
linear program's x satisfies its rows to GLOP's tolerances, about 1e-9)."""


GLOP_ATTEMPTS = ("use_dual_simplex: true use_preprocessing: false", "use_scaling: false", "",
                 "use_dual_simplex: true perturb_costs_in_dual_simplex: true")
"""GLOP settings tried in turn, each for at most ``GLOP_SECONDS``: these programs are dense and
degenerate (many equal payoffs); each setting has been seen to fail (a numerical failure, or
cycling without end) on a program that another solves in milliseconds."""

GLOP_SECONDS = 20.0


def _solve_glop(c: np.ndarray, A: np.ndarray, lower: np.ndarray, upper: np.ndarray, var_lower: np.ndarray,
                var_upper: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """``maximize c·x`` (``solver.games.lp``'s model), trying ``GLOP_ATTEMPTS`` in turn."""
    from ortools.linear_solver import linear_solver_pb2, pywraplp

    from solver.games.lp import _request

    status = ""
    for parameters in GLOP_ATTEMPTS:
        request = _request(c, A, lower, upper, var_lower, var_upper, True, None)
        request.solver_type = linear_solver_pb2.MPModelRequest.GLOP_LINEAR_PROGRAMMING
        request.solver_specific_parameters = parameters
        request.solver_time_limit_seconds = GLOP_SECONDS
        response = linear_solver_pb2.MPSolutionResponse()
        pywraplp.Solver.SolveWithProto(request, response)
        if response.status == linear_solver_pb2.MPSOLVER_OPTIMAL:
            return (np.array(response.variable_value), float(response.objective_value),
                    np.array(response.dual_value))
        status = f"{response.status} {response.status_str}"
    raise RuntimeError(f"equilibrium-set program failed with every GLOP setting: status {status}")


class EquilibriumGame(Protocol[S]):
    """What the search needs of a symmetric zero-sum game (``solver.games.double_oracle``)."""

    def payoffs(self, rows: Sequence[S], cols: Sequence[S]) -> np.ndarray: ...

    def best_response(self, support: Sequence[S], probabilities: np.ndarray, *, time_limit: float | None,
                      hint: S | None, stop_event: None) -> Response[S]: ...

    def orbit(self, strategy: S) -> Sequence[S]: ...


Pricer = Callable[[Sequence[S], np.ndarray], Response[S]]
"""``price(strategies, weights)``: the pure Q maximizing ``c(Q) + Σ_i weights_i u(Q, strategies_i)``
(weights ≥ 0, not normalized), its value and a proven upper bound on the maximum."""


@dataclass(frozen=True)
class ObjectiveRange(Generic[S]):
    """The answer of ``EquilibriumSet.maximize``.

    ``value``: the objective of ``support``/``probabilities``, an equilibrium whose certified
    exploitability is ``exploitability`` (≤ ``PRIMAL_TOLERANCE``) — a proven lower bound on the
    maximum over the equilibria (−inf when no such mix was certified); ``bound``: a proven upper
    bound on the maximum over the exact equilibria.  ``settled``: the bounds meet to the tolerance,
    or the ``target`` question is answered (``bound ≤ target + tolerance``: no equilibrium exceeds
    it; ``value > target + tolerance``: one does).
    """

    value: float
    bound: float
    support: tuple[S, ...]
    probabilities: np.ndarray
    exploitability: float
    settled: bool
    rounds: int
    responses: int
    seconds: float


class EquilibriumSet(Generic[S]):
    """Rows and columns kept across objectives (every row is valid for every objective)."""

    def __init__(self, game: EquilibriumGame[S], columns: Sequence[S], rows: Sequence[S], *,
                 mixed_rows: Sequence[tuple[Sequence[S], np.ndarray]] = (), tolerance: float = 1e-7,
                 time_limit: float | None = None) -> None:
        self.game = game
        self.tolerance = tolerance
        self.time_limit = time_limit  # seconds per exact oracle call (None: none)
        self.columns: list[S] = list(dict.fromkeys(columns))
        self.rows: list[S] = list(dict.fromkeys(rows))
        self.mixed = [(list(sup), np.asarray(p, dtype=np.float64)) for sup, p in mixed_rows]
        if not self.columns:
            raise ValueError("the equilibrium set's program needs at least one column")
        self._row_index = {s: i for i, s in enumerate(self.rows)}
        self._col_index = {s: i for i, s in enumerate(self.columns)}
        self._A = game.payoffs(self.rows, self.columns) if self.rows else np.zeros((0, len(self.columns)))
        self._M = self._mixed_block(self.columns)
        self.responses = 0

    def _mixed_block(self, cols: Sequence[S]) -> np.ndarray:
        if not self.mixed:
            return np.zeros((0, len(cols)))
        return np.vstack([p @ self.game.payoffs(sup, cols) for sup, p in self.mixed])

    def add_rows(self, strategies: Sequence[S]) -> int:
        new = [s for s in dict.fromkeys(strategies) if s not in self._row_index]
        if new:
            for s in new:
                self._row_index[s] = len(self.rows)
                self.rows.append(s)
            self._A = np.vstack([self._A, self.game.payoffs(new, self.columns)])
        return len(new)

    def add_columns(self, strategies: Sequence[S]) -> int:
        new = [s for s in dict.fromkeys(strategies) if s not in self._col_index]
        if new:
            for s in new:
                self._col_index[s] = len(self.columns)
                self.columns.append(s)
            block = self.game.payoffs(self.rows, new) if self.rows else np.zeros((0, len(new)))
            self._A = np.hstack([self._A, block])
            self._M = np.hstack([self._M, self._mixed_block(new)])
        return len(new)

    def _solve(self, c: np.ndarray) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
        """The program over the current rows and columns: (x, value, row duals ≥ 0, mixed-row duals ≥ 0).

        The rows are elastic — ``u(P, x) − v ≤ 0`` with one violation v ≥ 0 that costs
        ``ELASTIC_PENALTY`` — so the program stays feasible when a row arrives before the
        columns that satisfy it (the duals remain valid weights for the upper bound; an x that
        violates a row is simply not certified)."""
        n = len(self.columns)
        rows = np.vstack([self._A, self._M])
        m = rows.shape[0]
        A = np.vstack([np.hstack([rows, -np.ones((m, 1))]), np.append(np.ones(n), 0.0)])
        lower = np.append(np.full(m, -np.inf), 1.0)
        upper = np.append(np.full(m, ROW_SLACK), 1.0)
        x, value, duals = _solve_glop(np.append(c, -ELASTIC_PENALTY), A, lower, upper, np.zeros(n + 1),
                                      np.append(np.ones(n), np.inf))
        y = np.clip(duals[:m], 0.0, None)
        x = np.clip(x[:n], 0.0, None)
        return x / x.sum(), float(c @ x), y[:len(self.rows)], y[len(self.rows):]

    def _weighted_rows(self, y: np.ndarray, ym: np.ndarray) -> tuple[list[S], np.ndarray]:
        """The rows with positive dual weight, mixed rows spread over their supports."""
        weights: dict[S, float] = {}
        for s, w in zip(self.rows, y.tolist(), strict=True):
            if w > 0:
                weights[s] = weights.get(s, 0.0) + w
        for (sup, p), w in zip(self.mixed, ym.tolist(), strict=True):
            if w > 0:
                for s, q in zip(sup, p.tolist(), strict=True):
                    weights[s] = weights.get(s, 0.0) + w * q
        return list(weights), np.array(list(weights.values()), dtype=np.float64)

    def maximize(self, objective: Callable[[Sequence[S]], np.ndarray], price: Pricer[S], *,
                 target: float | None = None, exceed: float = 1e-4, max_rounds: int = 40) -> ObjectiveRange[S]:
        """Bound ``max c·x`` over the equilibria (see the module doc); ``objective(strategies)``
        gives c of each strategy.  Stops when the bounds meet (to ``tolerance``), when the
        ``target`` question is settled — the bound is at most ``target + tolerance``, or a
        certified equilibrium exceeds ``target + exceed`` (an equilibrium certified to
        ``PRIMAL_TOLERANCE`` may exceed the exact maximum by a little: ``exceed`` is the margin
        that counts as more) — or after ``max_rounds`` rounds (each: one program, one pricing
        and, unless the pricing settled it, one exact best response)."""
        start = time.perf_counter()
        tol = self.tolerance
        value, bound = -np.inf, np.inf
        best: tuple[tuple[S, ...], np.ndarray, float] = ((), np.zeros(0), np.inf)
        responses0 = self.responses
        rounds = 0
        settled = False

        def done() -> bool:
            if bound <= value + tol:
                return True
            return target is not None and (bound <= target + tol or value > target + exceed)

        for rounds in range(1, max_rounds + 1):  # noqa: B007 (reported)
            c = np.asarray(objective(self.columns), dtype=np.float64)
            x, lp_value, y, ym = self._solve(c)
            strategies, weights = self._weighted_rows(y, ym)  # the duals of this program's rows
            keep = x > 1e-12
            support = [s for s, k in zip(self.columns, keep, strict=True) if k]
            probs = x[keep] / x[keep].sum()
            # columns: price with the program's duals (a proven upper bound whatever the rows)
            p = price(strategies, weights)
            self.responses += 1
            bound = min(bound, p.bound)
            if done():
                settled = True
                break
            added_cols = 0
            if p.value > lp_value + tol:
                orbit = list(self.game.orbit(p.strategy))
                reduced = np.asarray(objective(orbit), dtype=np.float64)
                if strategies:
                    reduced = reduced + self.game.payoffs(orbit, strategies) @ weights
                added_cols = self.add_columns([s for s, g in zip(orbit, reduced.tolist(), strict=True)
                                               if g > lp_value + tol] or [p.strategy])
            # rows: is the program's x an equilibrium of the whole game?
            r = self.game.best_response(support, probs, time_limit=self.time_limit, hint=None, stop_event=None)
            self.responses += 1
            exploit = r.value if r.proven else r.bound
            added_rows = 0
            if exploit <= PRIMAL_TOLERANCE:
                x_value = float(np.asarray(objective(support), dtype=np.float64) @ probs)
                if x_value > value:
                    value, best = x_value, (tuple(support), probs, exploit)
            else:
                orbit = list(self.game.orbit(r.strategy))
                gains = self.game.payoffs(orbit, support) @ probs
                added_rows = self.add_rows([s for s, g in zip(orbit, gains.tolist(), strict=True) if g > tol]
                                           or [r.strategy])
            if done():
                settled = True
                break
            if added_rows == 0 and added_cols == 0:
                break
        return ObjectiveRange(value=float(value), bound=float(bound), support=best[0], probabilities=best[1],
                              exploitability=float(best[2]), settled=settled, rounds=rounds,
                              responses=self.responses - responses0, seconds=time.perf_counter() - start)
