"""Double oracle for symmetric zero-sum games (McMahan, Gordon & Blum 2003).

The algorithm knows the game only through ``SymmetricGame``: a payoff block between two
lists of pure strategies, a best response to a mix (with a proven bound), and an *orbit*
— strategies to add together with a new best response (Quintet adds all slot orders of a
partition).  A game may also offer ``improving_responses`` (``CheapOracle``): strategies
found quickly, without proof, that gain against a mix.  Each iteration asks the cheap
oracle first and adds several of its strategies at once; the exact best response runs only
when the cheap oracle finds nothing worth adding — to find what it missed, or to certify.
The same code solves rock-paper-scissors (see the tests) or Quintet.

Exploitability
--------------
In a symmetric zero-sum game the value is 0, and a mix ``x`` is ε-optimal with
``ε = max_P u(P, x)`` — the best response's value against it: the mix's *exploitability*.
The exploitability reported for a mix is *certified*: that value when the best response was
proven optimal, otherwise the best response's proven upper bound — never an unproven number.
The mix returned is the one with the smallest certified exploitability seen.

Restricted games
----------------
Every strategy ever found goes into a *pool*; the LP sees only a *working set*.  After each
LP, pool strategies that gain against the LP's mix join the working set (most gaining
first) until none gains, so the mix is an equilibrium of the whole pool's game.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, runtime_checkable

import numpy as np

__all__ = [
    "Response", "SymmetricGame", "CheapOracle", "DoubleOracleResult", "double_oracle", "solve_symmetric_lp",
]

S = TypeVar("S", bound=Hashable)


@dataclass(frozen=True)
class Response(Generic[S]):
    """A best response: its strategy, payoff against the mix, and a proven upper bound."""

    strategy: S
    value: float
    bound: float
    proven: bool


class SymmetricGame(Protocol[S]):
    def payoffs(self, rows: Sequence[S], cols: Sequence[S]) -> np.ndarray:
        """Row player's payoff, ``len(rows) × len(cols)``; ``payoffs(a, b) = −payoffs(b, a).T``."""
        ...

    def best_response(self, support: Sequence[S], probabilities: np.ndarray, *, time_limit: float | None,
                      hint: S | None, stop_event: threading.Event | None) -> Response[S]:
        ...

    def orbit(self, strategy: S) -> Sequence[S]:
        """Strategies to add together with ``strategy`` (including it)."""
        ...


def payoffs_against(game: SymmetricGame[S], rows: Sequence[S], support: Sequence[S],
                    probabilities: np.ndarray) -> np.ndarray:
    """Each row's expected payoff against the mix, ``payoffs(rows, support) @ probabilities``,
    or the game's own ``payoffs_against`` when it has a faster way (e.g. from marginals)."""
    own = getattr(game, "payoffs_against", None)
    if own is not None:
        return np.asarray(own(rows, support, probabilities))
    return game.payoffs(rows, support) @ probabilities


@runtime_checkable
class CheapOracle(Protocol[S]):
    def improving_responses(self, support: Sequence[S], probabilities: np.ndarray, starts: Sequence[S], *,
                            min_gain: float, limit: int) -> Sequence[tuple[float, S]]:
        """Up to ``limit`` distinct strategies gaining more than ``min_gain`` against the mix,
        as (gain, strategy), best first; found from ``starts`` (the pool's best), no proof."""
        ...


def solve_symmetric_lp(A: np.ndarray) -> tuple[np.ndarray, float]:
    """Equilibrium mix of the symmetric zero-sum matrix game ``A`` (GLOP).

    Solves ``min t  s.t.  A x ≤ t, Σx = 1, x ≥ 0``; returns (x, t).  For an antisymmetric
    ``A`` the optimum t is 0 up to solver tolerance.
    """
    from ortools.linear_solver import linear_solver_pb2, pywraplp  # here: start-up needs no LP

    n = A.shape[0]
    request = linear_solver_pb2.MPModelRequest()
    request.solver_type = linear_solver_pb2.MPModelRequest.GLOP_LINEAR_PROGRAMMING
    model = request.model
    for _ in range(n):
        v = model.variable.add()
        v.lower_bound, v.upper_bound = 0.0, 1.0
    t = model.variable.add()
    t.lower_bound, t.upper_bound, t.objective_coefficient = -float("inf"), float("inf"), 1.0
    index = list(range(n)) + [n]
    for i in range(n):
        c = model.constraint.add()
        c.lower_bound, c.upper_bound = -float("inf"), 0.0
        c.var_index.extend(index)
        c.coefficient.extend(A[i].tolist() + [-1.0])
    c = model.constraint.add()
    c.lower_bound = c.upper_bound = 1.0
    c.var_index.extend(range(n))
    c.coefficient.extend([1.0] * n)
    response = linear_solver_pb2.MPSolutionResponse()
    pywraplp.Solver.SolveWithProto(request, response)
    if response.status != linear_solver_pb2.MPSOLVER_OPTIMAL:
        raise RuntimeError(f"restricted-game LP failed: status {response.status} {response.status_str}")
    x = np.clip(np.array(response.variable_value[:n]), 0.0, None)
    x /= x.sum()
    return x, float(response.objective_value)


@dataclass
class DoubleOracleResult(Generic[S]):
    support: list[S]
    probabilities: np.ndarray
    exploitability: float  # certified: max_P u(P, mix) ≤ this
    proven: bool  # the exploitability is a best response proven optimal (not only its bound)
    converged: bool  # exploitability ≤ epsilon
    interrupted: bool
    iterations: int
    seconds: float
    pool_size: int
    history: list[dict[str, float]] = field(default_factory=list)


def double_oracle(
    game: SymmetricGame[S],
    initial: Sequence[S],
    *,
    epsilon: float = 0.01,
    time_limit: float | None = None,
    stop_event: threading.Event | None = None,
    trivial_bound: float = float("inf"),
    progress: Callable[[dict[str, float]], None] | None = None,
    first_response_limit: float = 10.0,
    support_tol: float = 1e-9,
    gain_tol: float = 1e-9,
    max_added: int = 120,
    cheap_starts: int = 16,
    cheap_limit: int = 4,
    exact_every: int = 3,
) -> DoubleOracleResult[S]:
    """Double oracle from ``initial`` until the certified exploitability is ≤ ``epsilon`` or time is up.

    ``trivial_bound`` (an upper bound on any payoff) certifies the first mix before any best
    response has finished.  Each best response gets the remaining time, but at most
    ``first_response_limit`` seconds at first, doubled each time one ends unproven without
    finding a gaining strategy.  A game with a cheap oracle (``CheapOracle``) is asked first,
    from the ``cheap_starts`` best pool strategies, for up to ``cheap_limit`` strategies
    gaining more than ``max(gain_tol, epsilon / 2)``; the exact best response runs when it finds
    nothing, and at least every ``exact_every`` iterations.  ``support_tol``: LP probabilities at most
    this are dropped from the mix; ``gain_tol`` (points): a strategy counts as gaining against a
    mix only by more than this (float noise adds nothing), and the mix counts as converged when
    its certified exploitability is at most ``epsilon + gain_tol`` (so ``epsilon = 0`` asks for
    a proven equilibrium, exact to that tolerance).

    ``progress(record)`` gets one record per iteration (kept in ``history``): ``iteration``,
    ``pool``, ``working``, ``support``, ``oracle`` (1.0: the exact best response ran; 0.0: only
    the cheap oracle), ``response`` (the best gain found), ``exploitability`` (this mix's,
    certified; NaN when only the cheap oracle ran), ``best_exploitability`` (the smallest so
    far), ``proven`` (1.0/0.0) and ``seconds``.
    """
    start = time.perf_counter()
    pool: list[S] = []
    seen: dict[S, int] = {}

    def add(strategies: Sequence[S]) -> list[int]:
        added = []
        for s in strategies:
            if s not in seen:
                seen[s] = len(pool)
                pool.append(s)
                added.append(seen[s])
        return added

    working: list[int] = add([s for s0 in initial for s in game.orbit(s0)])
    if not working:
        raise ValueError("double oracle needs at least one initial strategy")
    best_support: list[S] = [pool[working[0]]]
    best_probs = np.ones(1)
    best_exploitability = trivial_bound
    best_proven = False
    history: list[dict[str, float]] = []
    response_limit = first_response_limit
    iterations = 0
    interrupted = converged = False
    cheap = game if isinstance(game, CheapOracle) else None
    cheap_gain = max(gain_tol, 0.5 * epsilon)
    since_exact = exact_every  # iterations since the last exact best response: the first one is exact

    def out_of_time() -> bool:
        return time_limit is not None and time.perf_counter() - start >= time_limit

    while True:
        iterations += 1
        # 1. restricted equilibrium over the pool, via the working set
        while True:
            ws = [pool[i] for i in working]
            x, _ = solve_symmetric_lp(game.payoffs(ws, ws))
            keep = x > support_tol
            support = [s for s, k in zip(ws, keep, strict=True) if k]
            probs = x[keep] / x[keep].sum()
            pool_gains = payoffs_against(game, pool, support, probs)
            gains = pool_gains.copy()
            in_working = np.zeros(len(pool), dtype=bool)
            in_working[working] = True
            gains[in_working] = -np.inf
            candidates = np.flatnonzero(gains > gain_tol)
            if candidates.size == 0:
                break
            order = candidates[np.argsort(-gains[candidates])][:max_added]
            working = working + order.tolist()
        record: dict[str, float] = {"iteration": iterations, "pool": len(pool), "working": len(working),
                                    "support": len(support)}
        ranked = np.argsort(-pool_gains, kind="stable")
        # 2. the cheap oracle: several gaining strategies, no proof
        found: Sequence[tuple[float, S]] = []
        if cheap is not None:
            found = cheap.improving_responses(support, probs, [pool[i] for i in ranked[:cheap_starts]],
                                              min_gain=cheap_gain, limit=cheap_limit)
        # 3. the exact best response: when the cheap oracle finds nothing, and regularly
        #    anyway (every `exact_every` iterations), so that what lies far from the pool is
        #    found early.  A count, not a clock: the same deal gives the same mix every run.
        exact = not found or since_exact + 1 >= exact_every
        new_strategies = [s for _, s in found]
        since_exact = 0 if exact else since_exact + 1
        if exact:
            remaining = None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))
            limit = response_limit if remaining is None else min(response_limit, remaining)
            response = game.best_response(support, probs, time_limit=limit, hint=pool[int(ranked[0])],
                                          stop_event=stop_event)
            certified = response.value if response.proven else response.bound
            if certified < best_exploitability:
                best_support, best_probs, best_exploitability, best_proven = support, probs, certified, response.proven
            if response.value > gain_tol:
                new_strategies.insert(0, response.strategy)
            elif not response.proven:
                response_limit *= 2  # nothing found in time: give the next attempt longer
            record.update({"oracle": 1.0, "response": response.value, "exploitability": certified,
                           "proven": float(response.proven)})
        else:
            record.update({"oracle": 0.0, "response": float(found[0][0]), "exploitability": float("nan"),
                           "proven": 0.0})
        record.update({"best_exploitability": best_exploitability, "seconds": time.perf_counter() - start})
        history.append(record)
        if progress is not None:
            progress(record)
        if best_exploitability <= epsilon + gain_tol:
            converged = True
            break
        if stop_event is not None and stop_event.is_set():
            interrupted = True
            break
        if out_of_time():
            break
        new = [i for s in new_strategies for i in add(game.orbit(s))]
        if not new:
            if exact and response.proven:
                break  # proven, nothing gains beyond tolerance: the exploitability is final
            continue
        # keep the working set small: the support plus the newcomers that gain most
        new_gains = payoffs_against(game, [pool[i] for i in new], support, probs)
        best_new = np.argsort(-new_gains, kind="stable")[:max_added]
        working = [seen[s] for s in support] + [new[k] for k in best_new.tolist() if new_gains[k] > gain_tol]
    return DoubleOracleResult(
        support=best_support, probabilities=best_probs, exploitability=max(best_exploitability, 0.0),
        proven=best_proven, converged=converged, interrupted=interrupted, iterations=iterations,
        seconds=time.perf_counter() - start, pool_size=len(pool), history=history,
    )
