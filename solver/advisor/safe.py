"""Safe exploitation: the restricted Nash response (Johanson, Zinkevich & Bowling 2007).

Against an opponent model M that is probably right but might be wrong, the best response to
M is brittle (it can lose much to another opponent) and the equilibrium leaves points on the
table.  ``safe_response`` returns the mix x that maximizes the expected margin against M
among the mixes whose exploitability ``max_P u(P, x)`` is at most D points:

    maximize   Σ_i x_i u(s_i, M)
    such that  Σ_i x_i u(t, s_i) ≤ D      for every pure strategy t   (no t gains more than D)
               Σ_i x_i = 1,  x ≥ 0.

D = 0 gives the equilibrium that does best against M; a D at least the best response's own
exploitability gives the best response.  The linear program has a column per strategy and a
row per strategy, so ``restricted_nash_response`` generates both, like the double oracle:

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

The algorithm knows the game only through ``ModelGame`` (the double oracle's interface plus
the model); ``QuintetModelGame`` is a deal of Quintet with an opponent model.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

import numpy as np

from quintet.cards import format_cards
from quintet.evaluator import describe
from quintet.game import Arrangement, Deal
from solver.advisor.equilibrium import EquilibriumResult, QuintetGame, Strategy, sample_mix, solve_equilibrium
from solver.engines.local_search import improving_partitions
from solver.engines.search import solve_search
from solver.games.double_oracle import Response
from solver.problem.best_response import VALUE_TOLERANCE, BestResponseProblem, slot_values
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import ArrangementMix, OpponentModel, parse_opponent
from solver.storage.store import SolutionStore

__all__ = ["ModelGame", "SafeResult", "restricted_nash_response", "QuintetModelGame", "SafeResponse",
           "safe_response"]

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
    history: list[dict[str, float]] = field(default_factory=list)


def _solve_program(gains: np.ndarray, rows: np.ndarray, bound: float) -> tuple[np.ndarray, float, np.ndarray, float]:
    """max gains·x s.t. rows @ x ≤ bound, Σx = 1, x ≥ 0 (GLOP).

    Returns (x, value, duals y ≥ 0 of the rows, dual μ of Σx = 1), with the reduced cost of a
    column (g, a) equal to g − y·a − μ.
    """
    from ortools.linear_solver import linear_solver_pb2, pywraplp  # here: start-up needs no LP

    n = gains.shape[0]
    request = linear_solver_pb2.MPModelRequest()
    request.solver_type = linear_solver_pb2.MPModelRequest.GLOP_LINEAR_PROGRAMMING
    model = request.model
    model.maximize = True
    for g in gains.tolist():
        v = model.variable.add()
        v.lower_bound, v.upper_bound, v.objective_coefficient = 0.0, float("inf"), g  # x ≤ 1 is implied
    for row in rows:
        c = model.constraint.add()
        c.lower_bound, c.upper_bound = -float("inf"), bound
        c.var_index.extend(range(n))
        c.coefficient.extend(row.tolist())
    c = model.constraint.add()
    c.lower_bound = c.upper_bound = 1.0
    c.var_index.extend(range(n))
    c.coefficient.extend([1.0] * n)
    response = linear_solver_pb2.MPSolutionResponse()
    pywraplp.Solver.SolveWithProto(request, response)
    if response.status != linear_solver_pb2.MPSOLVER_OPTIMAL:
        raise RuntimeError(f"safe-response program failed: status {response.status} {response.status_str}")
    x = np.clip(np.array(response.variable_value[:n]), 0.0, None)
    x /= x.sum()
    duals = np.array(response.dual_value)
    y = np.clip(duals[:-1], 0.0, None)
    return x, float(response.objective_value), y, float(duals[-1])


def restricted_nash_response(
    game: ModelGame[S],
    initial: Sequence[S],
    initial_probabilities: np.ndarray,
    initial_exploitability: float,
    *,
    max_exploitability: float,
    time_limit: float | None = None,
    stop_event: threading.Event | None = None,
    progress: Callable[[dict[str, float]], None] | None = None,
    tolerance: float = VALUE_TOLERANCE,
) -> SafeResult[S]:
    """The mix maximizing u(·, M) with exploitability ≤ ``max_exploitability`` (module doc).

    ``initial`` with ``initial_probabilities`` is a mix whose certified exploitability,
    ``initial_exploitability``, is at most ``max_exploitability`` (e.g. an equilibrium): the
    answer until a better one is found, and its strategies are the first columns.
    """
    start = time.perf_counter()
    D = float(max_exploitability)
    if initial_exploitability > D + tolerance:
        raise ValueError(f"the initial mix is exploitable by {initial_exploitability}, more than {D}")
    columns: list[S] = list(dict.fromkeys(initial))
    rows: list[S] = []
    probs0 = np.asarray(initial_probabilities, dtype=np.float64)
    best = SafeResult(list(initial), probs0 / probs0.sum(), max(initial_exploitability, 0.0),
                      float(game.model_payoffs(list(initial)) @ (probs0 / probs0.sum())), float("inf"), False, False,
                      0, 0.0)
    history: list[dict[str, float]] = []
    iterations = 0
    interrupted = False

    def remaining() -> float | None:
        return None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))

    def stopped() -> bool:
        return (stop_event is not None and stop_event.is_set()) or remaining() == 0.0

    cheap = getattr(game, "improving_responses", None)

    def ranked(values: np.ndarray, strategies: list[S], count: int = 16) -> list[S]:
        return [strategies[i] for i in np.argsort(-values, kind="stable")[:count]]

    while True:
        iterations += 1
        gains = game.model_payoffs(columns)
        A = game.payoffs(rows, columns) if rows else np.zeros((0, len(columns)))
        x, value, y, mu = _solve_program(gains, A, D)
        keep = x > 1e-12
        support = [s for s, k in zip(columns, keep, strict=True) if k]
        probs = x[keep] / x[keep].sum()
        margin = float(game.model_payoffs(support) @ probs)
        seen = list(dict.fromkeys(columns + rows))
        record: dict[str, float] = {"iteration": iterations, "columns": len(columns), "rows": len(rows),
                                    "support": len(support), "margin": margin, "program": value}
        # rows: strategies gaining more than D against x — the cheap oracle first, else the exact
        # best response, whose value certifies x's exploitability
        new_rows: list[S] = []
        if cheap is not None:
            starts = ranked(game.payoffs(seen, support) @ probs, seen)
            new_rows = [s for _, s in cheap(support, probs, starts, min_gain=D + tolerance, limit=3, model_weight=0.0)
                        if s not in rows]
        if not new_rows:
            attack = game.best_response(support, probs, model_weight=0.0, time_limit=remaining(),
                                        stop_event=stop_event)
            exploit = attack.value if attack.proven else attack.bound
            record["exploitability"] = exploit
            if exploit <= D + tolerance and margin > best.model_margin:
                best = SafeResult(support, probs, max(exploit, 0.0), margin, best.margin_bound, False, False,
                                  iterations, 0.0)
            if attack.value > D + tolerance and attack.strategy not in rows:
                new_rows = [attack.strategy]
        # columns: strategies whose reduced cost u(s, M) + Σ y_t u(s, t) − μ is positive, against
        # the opponent "M with weight 1, each row t with weight y_t" (normalized by `weight`)
        weight = 1.0 / (1.0 + float(y.sum()))
        priced = [t for t, yt in zip(rows, y, strict=True) if yt > 0]
        pweights = np.array([yt for yt in y if yt > 0])
        pweights = pweights / pweights.sum() if priced else np.zeros(0)
        new_columns: list[S] = []
        if cheap is not None:
            values = weight * game.model_payoffs(seen)
            if priced:
                values = values + (1.0 - weight) * (game.payoffs(seen, priced) @ pweights)
            found = cheap(priced, pweights, ranked(values, seen), min_gain=(mu + tolerance) * weight, limit=3,
                          model_weight=weight if priced else 1.0)
            new_columns = [s for _, s in found if s not in columns]
        if not new_columns and not new_rows:
            pricing = game.best_response(priced, pweights, model_weight=weight if priced else 1.0,
                                         time_limit=remaining(), stop_event=stop_event)
            reduced = (pricing.value if pricing.proven else pricing.bound) / weight - mu
            record["reduced_cost"] = reduced
            if pricing.proven:
                best.margin_bound = min(best.margin_bound, value + max(0.0, reduced))
            if pricing.value / weight - mu > tolerance and pricing.strategy not in columns:
                new_columns = [pricing.strategy]
        record["seconds"] = time.perf_counter() - start
        history.append(record)
        if progress is not None:
            progress(record)
        rows.extend(new_rows)
        columns.extend(new_columns)
        if not (new_rows or new_columns):
            best.optimal = best.margin_bound - best.model_margin <= LP_TOLERANCE
            break
        if stopped():
            interrupted = stop_event is not None and stop_event.is_set()
            break
    best.interrupted = interrupted
    best.iterations = iterations
    best.seconds = time.perf_counter() - start
    best.history = history
    return best


class QuintetModelGame(QuintetGame):
    """A deal of Quintet with an opponent model (its per-slot marginals)."""

    def __init__(self, tables: DealTables, model_marginals: np.ndarray) -> None:
        super().__init__(tables)
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
        result = solve_search(problem, time_limit=time_limit, hint=hint, stop_event=stop_event)
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


@dataclass(frozen=True)
class SafeResponse:
    """A safe exploitation of an opponent model, certified."""

    deal: Deal
    opponent: str
    max_exploitability: float
    mix: tuple[tuple[float, Arrangement], ...]  # most likely first
    exploitability: float  # certified, ≤ max_exploitability (to VALUE_TOLERANCE)
    expected_margin: float  # against the model (points)
    margin_bound: float  # no mix within the limit does better against the model
    optimal: bool
    interrupted: bool
    iterations: int
    seconds: float
    equilibrium_margin: float  # the equilibrium's margin against the model, for comparison
    best_response_margin: float  # the best response's margin against the model (the most any mix gets)

    def opponent_model(self) -> ArrangementMix:
        """The mix as an opponent model."""
        return ArrangementMix(tuple(a for _, a in self.mix), tuple(p for p, _ in self.mix), name="safe")

    def sample(self, seed: int = 0) -> Arrangement:
        """An arrangement to play, drawn from the mix (same seed, same arrangement)."""
        return sample_mix(self.mix, seed)

    def to_dict(self, seed: int = 0) -> dict[str, object]:
        rules = self.deal.rules
        play = self.sample(seed)
        return {
            "exposed": format_cards(self.deal.exposed, rules.deck).split(),
            "live": format_cards(self.deal.live, rules.deck).split(),
            "rules": rules.describe(),
            "opponent": self.opponent,
            "objective": "margin",
            "max_exploitability": self.max_exploitability,
            "mix": [{"probability": p, "arrangement": a.card_lists(rules),
                     "hands": [describe(m, rules) for m in a.packets]} for p, a in self.mix],
            "arrangement": play.card_lists(rules),
            "hands": [describe(m, rules) for m in play.packets],
            "exploitability": self.exploitability,
            "expected_margin": self.expected_margin,
            "margin_bound": self.margin_bound,
            "equilibrium_margin": self.equilibrium_margin,
            "best_response_margin": self.best_response_margin,
            "optimal": self.optimal,
            "interrupted": self.interrupted,
            "iterations": self.iterations,
            "seconds": self.seconds,
        }


def safe_response(
    deal: Deal,
    opponent: OpponentModel | str,
    max_exploitability: float,
    *,
    time_limit: float | None = 600.0,
    stop_event: threading.Event | None = None,
    store: SolutionStore | None = None,
    progress: Callable[[dict[str, float]], None] | None = None,
) -> SafeResponse:
    """The mix that does best against ``opponent`` among those no arrangement beats by more
    than ``max_exploitability`` points (module doc).  The search starts from the deal's exact
    equilibrium (through ``store`` when given)."""
    if not max_exploitability >= 0:
        raise ValueError(f"max_exploitability must be at least 0, got {max_exploitability}")
    start = time.perf_counter()
    tables = DealTables.build(deal)
    model = parse_opponent(opponent, deal) if isinstance(opponent, str) else opponent
    eq: EquilibriumResult = solve_equilibrium(deal, epsilon=0.0, time_limit=time_limit, store=store,
                                              stop_event=stop_event)
    game = QuintetModelGame(tables, model.marginals(tables))
    eq_support = [tuple(tables.index_of(m) for m in a.packets) for _, a in eq.mix]
    eq_probs = np.array([p for p, _ in eq.mix])
    eq_margin = float(game.model_payoffs(eq_support) @ eq_probs)
    br_margin = game.best_response([], np.zeros(0), model_weight=1.0, time_limit=time_limit,
                                   stop_event=stop_event).value
    limit = max_exploitability if eq.exploitability <= max_exploitability + VALUE_TOLERANCE else eq.exploitability
    remaining = None if time_limit is None else max(1.0, time_limit - (time.perf_counter() - start))
    result = restricted_nash_response(game, eq_support, eq_probs, eq.exploitability, max_exploitability=limit,
                                      time_limit=remaining, stop_event=stop_event, progress=progress)
    order = np.argsort(-result.probabilities, kind="stable")
    mix = tuple((float(result.probabilities[i]), tables.arrangement_of(result.support[i])) for i in order)
    return SafeResponse(
        deal=deal, opponent=model.name, max_exploitability=max_exploitability, mix=mix,
        exploitability=result.exploitability, expected_margin=result.model_margin, margin_bound=result.margin_bound,
        optimal=result.optimal, interrupted=result.interrupted, iterations=result.iterations,
        seconds=time.perf_counter() - start, equilibrium_margin=eq_margin, best_response_margin=br_margin,
    )
