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
from typing import Generic, Literal, Protocol, TypeVar, runtime_checkable

import numpy as np

from .lp import solve_symmetric_lp

__all__ = [
    "Response", "SymmetricGame", "CheapOracle", "OrbitGame", "DoubleOracleOptions", "IterationRecord",
    "DoubleOracleResult", "double_oracle", "solve_symmetric_lp",
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

    def payoffs_against(self, rows: Sequence[S], support: Sequence[S], probabilities: np.ndarray) -> np.ndarray:
        """Each row's expected payoff against the mix: ``payoffs(rows, support) @ probabilities``
        (a game may compute it faster, e.g. from marginals)."""
        ...

    def best_response(self, support: Sequence[S], probabilities: np.ndarray, *, time_limit: float | None,
                      hint: S | None, stop_event: threading.Event | None) -> Response[S]:
        ...

    def orbit(self, strategy: S) -> Sequence[S]:
        """Strategies to add together with ``strategy`` (including it)."""
        ...


@runtime_checkable
class CheapOracle(Protocol[S]):
    def improving_responses(self, support: Sequence[S], probabilities: np.ndarray, starts: Sequence[S], *,
                            min_gain: float, limit: int) -> Sequence[tuple[float, S]]:
        """Up to ``limit`` distinct strategies gaining more than ``min_gain`` against the mix,
        as (gain, strategy), best first; found from ``starts`` (the pool's best), no proof."""
        ...


@runtime_checkable
class OrbitGame(Protocol[S]):
    def restricted_mix(self, strategies: Sequence[S], support_tol: float) -> tuple[list[S], np.ndarray]:
        """An equilibrium (support, probabilities > ``support_tol``) of the restricted game over
        every strategy in the orbits of ``strategies`` — solved without listing the orbits."""
        ...


@dataclass(frozen=True)
class DoubleOracleOptions:
    """How the double oracle runs.

    * ``first_response_limit`` — seconds for an exact best response at first, doubled each
      time one ends unproven without finding a gaining strategy (never more than the time left);
    * ``support_tol`` — LP probabilities at most this are dropped from the mix;
    * ``gain_tol`` — points: a strategy gains against a mix only by more than this, and a mix
      is converged when its certified exploitability is at most ``epsilon + gain_tol``;
    * ``max_added`` — pool strategies added to the working set at once;
    * ``cheap_starts``, ``cheap_limit`` — the cheap oracle starts from this many of the pool's
      best strategies and returns at most ``cheap_limit`` gaining more than
      ``max(gain_tol, epsilon / 2)``;
    * ``exact_every`` — the exact best response runs at least every this many iterations;
    * ``orbit_lp`` — a game that offers ``OrbitGame.restricted_mix`` solves the restricted game
      with it, whole orbits at once (``max_added`` then counts orbits).  Off: on the 20 slowest
      dealt deals the compact LP cost twice the CPU of the columns for 7 % fewer iterations
      (benchmarks/data/compact_lp_prototype.md) — the pool already makes the columns' mix an
      equilibrium over every order, so both forms solve the same restricted game.
    """

    first_response_limit: float = 10.0
    support_tol: float = 1e-9
    gain_tol: float = 1e-9
    max_added: int = 60
    cheap_starts: int = 16
    cheap_limit: int = 4
    exact_every: int = 3
    orbit_lp: bool = False


@dataclass(frozen=True)
class IterationRecord:
    """One iteration of the double oracle: the names the command line, the page and the HTTP
    API all use (``solver.advisor.schema.ProgressOut.of`` is the API's progress object).

    ``exploitability`` is the smallest certified exploitability so far (the mix that would be
    returned now); ``iteration_exploitability`` that of this iteration's mix, None when only
    the cheap oracle ran (nothing certified it).  ``exact``: the exact best response ran;
    ``response``: the best gain found (points); ``proven``: that response was proven optimal.
    """

    iteration: int
    pool_size: int
    working_size: int
    support: int
    exact: bool
    response: float
    iteration_exploitability: float | None
    exploitability: float
    proven: bool
    seconds: float


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
    history: list[IterationRecord] = field(default_factory=list)


class _Pool(Generic[S]):
    """Every strategy found, in order, with the number of the orbit that brought it."""

    def __init__(self) -> None:
        self.strategies: list[S] = []
        self.index: dict[S, int] = {}
        self.orbits: list[int] = []

    def add(self, orbit: Sequence[S]) -> list[int]:
        """Add one orbit's new strategies; their indices."""
        added = []
        number = self.orbits[-1] + 1 if self.orbits else 0
        for s in orbit:
            if s not in self.index:
                self.index[s] = len(self.strategies)
                self.strategies.append(s)
                self.orbits.append(number)
                added.append(self.index[s])
        return added


def _most_gaining(pool: _Pool[S], indices: np.ndarray, gains: np.ndarray, options: DoubleOracleOptions,
                  by_orbit: bool, kind: Literal["quicksort", "stable"]) -> list[int]:
    """The pool ``indices`` whose ``gains`` exceed ``options.gain_tol``, most gaining first (ties in
    the order of the sort ``kind``; only the most gaining of each orbit when ``by_orbit``), at
    most ``options.max_added``."""
    keep = gains > options.gain_tol
    order = indices[keep][np.argsort(-gains[keep], kind=kind)]
    if by_orbit:
        order = order[np.sort(np.unique(np.asarray(pool.orbits)[order], return_index=True)[1])]
    return [int(i) for i in order[:options.max_added]]


def _restricted_equilibrium(game: SymmetricGame[S], pool: _Pool[S], working: list[int],
                            options: DoubleOracleOptions, stop_event: threading.Event | None = None
                            ) -> tuple[list[int], list[S], np.ndarray, np.ndarray]:
    """The equilibrium of the whole pool's game, through the working set: after each LP the
    pool strategies gaining against its mix join (most gaining first) until none gains, or
    ``stop_event`` is set (then the last LP's mix, an equilibrium of the working set).
    Returns (working set, support, probabilities, every pool strategy's payoff against the mix).
    With ``OrbitGame.restricted_mix`` the LP covers the working set's whole orbits."""
    orbit_game = game if options.orbit_lp and isinstance(game, OrbitGame) else None
    by_orbit = orbit_game is not None
    while True:
        ws = [pool.strategies[i] for i in working]
        if orbit_game is not None:
            support, probs = orbit_game.restricted_mix(ws, options.support_tol)
        else:
            x, _ = solve_symmetric_lp(game.payoffs(ws, ws))
            keep = x > options.support_tol
            support = [s for s, k in zip(ws, keep, strict=True) if k]
            probs = x[keep] / x[keep].sum()
        pool_gains = game.payoffs_against(pool.strategies, support, probs)
        gains = pool_gains.copy()
        if by_orbit:
            orbits = np.asarray(pool.orbits)
            gains[np.isin(orbits, orbits[working])] = -np.inf
        else:
            gains[working] = -np.inf
        added = _most_gaining(pool, np.arange(len(gains)), gains, options, by_orbit, "quicksort")
        if not added or (stop_event is not None and stop_event.is_set()):
            return working, support, probs, pool_gains
        working = working + added


@dataclass
class _Best(Generic[S]):
    """The mix with the smallest certified exploitability so far, and the exact oracle's budget."""

    support: list[S]
    probabilities: np.ndarray
    exploitability: float
    proven: bool
    response_limit: float  # seconds for the next exact best response

    def exact_response(self, game: SymmetricGame[S], support: list[S], probs: np.ndarray, hint: S,
                       time_left: float | None, gain_tol: float,
                       stop_event: threading.Event | None) -> tuple[Response[S], float]:
        """The exact best response to the mix, and its certified value (value if proven, else the
        bound); keeps the mix if it is the best certified so far; doubles the budget after an
        unproven response that found nothing."""
        limit = self.response_limit if time_left is None else min(self.response_limit, time_left)
        response = game.best_response(support, probs, time_limit=limit, hint=hint, stop_event=stop_event)
        certified = response.value if response.proven else response.bound
        if certified < self.exploitability:
            self.support, self.probabilities = support, probs
            self.exploitability, self.proven = certified, response.proven
        if response.value <= gain_tol and not response.proven:
            self.response_limit *= 2  # nothing found in time: give the next attempt longer
        return response, certified


def double_oracle(
    game: SymmetricGame[S],
    initial: Sequence[S],
    *,
    epsilon: float,
    time_limit: float | None = None,
    stop_event: threading.Event | None = None,
    trivial_bound: float = float("inf"),
    progress: Callable[[IterationRecord], None] | None = None,
    options: DoubleOracleOptions = DoubleOracleOptions(),
    warm_start: Sequence[S] = (),
) -> DoubleOracleResult[S]:
    """Double oracle from ``initial`` until the certified exploitability is ≤ ``epsilon`` or
    ``time_limit`` seconds are spent (or ``stop_event`` is set); ``options`` tune it
    (``DoubleOracleOptions``).

    The working set starts with the orbits of ``initial``; ``warm_start`` strategies (e.g. a
    stored mix's support) start in it as they are, their orbits only in the pool — the LP
    then takes from the pool what gains, ``options.max_added`` at a time, so a large warm
    start never makes one large LP.  ``stop_event`` is checked between the LPs and before
    every exact best response, so a stop takes effect within one LP or one engine poll.

    ``trivial_bound`` (an upper bound on any payoff) certifies the first mix before any best
    response has finished.  A game with a cheap oracle (``CheapOracle``) is asked first; the
    exact best response runs when it finds nothing, and at least every ``options.exact_every``
    iterations — a count, not a clock, so the same game gives the same mix every run.
    ``progress`` gets each iteration's ``IterationRecord`` (kept in ``history``).
    """
    start = time.perf_counter()
    pool: _Pool[S] = _Pool()
    working = [i for s0 in initial for i in pool.add(game.orbit(s0))]
    if not working:
        raise ValueError("double oracle needs at least one initial strategy")
    for s0 in warm_start:
        pool.add(game.orbit(s0))
        if pool.index[s0] not in working:
            working.append(pool.index[s0])
    best: _Best[S] = _Best([pool.strategies[working[0]]], np.ones(1), trivial_bound, False,
                           options.first_response_limit)
    history: list[IterationRecord] = []
    iterations = 0
    interrupted = converged = False
    cheap = game if isinstance(game, CheapOracle) else None
    cheap_gain = max(options.gain_tol, 0.5 * epsilon)
    since_exact = options.exact_every  # iterations since the last exact best response: the first one is exact
    resolve = True  # the restricted game changed since the last LP

    def remaining() -> float | None:
        return None if time_limit is None else max(0.0, time_limit - (time.perf_counter() - start))

    while True:
        if stop_event is not None and stop_event.is_set():  # before the LP: a stop costs no more work
            interrupted = True
            break
        iterations += 1
        if resolve:
            working, support, probs, pool_gains = _restricted_equilibrium(game, pool, working, options, stop_event)
        ranked = np.argsort(-pool_gains, kind="stable")
        found: Sequence[tuple[float, S]] = []  # the cheap oracle: several gaining strategies, no proof
        if cheap is not None and not (stop_event is not None and stop_event.is_set()):
            starts = [pool.strategies[i] for i in ranked[:options.cheap_starts]]
            found = cheap.improving_responses(support, probs, starts, min_gain=cheap_gain, limit=options.cheap_limit)
        exact = not found or since_exact + 1 >= options.exact_every
        since_exact = 0 if exact else since_exact + 1
        new_strategies = [s for _, s in found]
        certified: float | None = None
        proven = False
        gain = float(found[0][0]) if found else 0.0
        if exact:
            response, certified = best.exact_response(game, support, probs, pool.strategies[int(ranked[0])],
                                                      remaining(), options.gain_tol, stop_event)
            proven, gain = response.proven, response.value
            if response.value > options.gain_tol:
                new_strategies.insert(0, response.strategy)
        record = IterationRecord(iterations, len(pool.strategies), len(working), len(support), exact, gain,
                                 certified, best.exploitability, proven, time.perf_counter() - start)
        history.append(record)
        if progress is not None:
            progress(record)
        converged = best.exploitability <= epsilon + options.gain_tol
        interrupted = not converged and stop_event is not None and stop_event.is_set()
        if converged or interrupted or remaining() == 0.0:
            break
        new = [i for s in new_strategies for i in pool.add(game.orbit(s))]
        resolve = bool(new)
        if not new:
            if exact and proven:
                break  # proven, nothing gains beyond tolerance: the exploitability is final
            continue
        # keep the working set small: the support plus the newcomers that gain most
        new_gains = game.payoffs_against([pool.strategies[i] for i in new], support, probs)
        working = [pool.index[s] for s in support] + _most_gaining(
            pool, np.asarray(new), new_gains, options, options.orbit_lp and isinstance(game, OrbitGame), "stable")
    return DoubleOracleResult(
        support=best.support, probabilities=best.probabilities, exploitability=max(best.exploitability, 0.0),
        proven=best.proven, converged=converged, interrupted=interrupted, iterations=iterations,
        seconds=time.perf_counter() - start, pool_size=len(pool.strategies), history=history,
    )
