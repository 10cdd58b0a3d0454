"""Policy-space response oracles (PSRO; Lanctot et al. 2017) and the online double oracle
(Dinh et al. 2022): the baselines the double oracle is measured against.

Each method keeps a *population* of pure strategies, grown by the exact best response to its
current mix together with that response's orbit (``SymmetricGame.orbit``: for Quintet every slot
order of the partition, as the double oracle adds it), so every method shares the double oracle's
oracle and its orbit expansion and differs only in how it picks the mix over the population —
its *meta-solver*:

* ``uniform`` — fictitious play (Brown 1951): the empirical distribution of the best responses so far
  (each counted once per iteration; PSRO's "uniform" meta-solver over the responses as a multiset);
* ``rm+`` — regret-matching+ (Tammelin 2014) in self-play on the population's game, ``inner``
  steps per outer iteration, the state carried over until the population grows; the mix is its
  (linearly weighted) average strategy;
* ``hedge`` — multiplicative weights (Freund & Schapire 1999) the same way, at the anytime rate
  √(8 ln n / t) / (payoff range); the mix is its average strategy;
* ``nash`` — the population game's equilibrium by linear program: the double oracle without its
  working set and cheap oracle.

``online_double_oracle``: one Hedge step per exact best response (no inner loop); the learner
restarts, uniform over the grown population, whenever a best response joins it, and the mix is
the average of the current window.

Every mix is certified as in ``double_oracle``: its exploitability is the exact best response's
value against it (or the proven bound); the result is the mix with the least certified
exploitability seen.  Payoffs against a mix come from ``payoffs_against`` (for Quintet, from the
mix's slot marginals: linear in the population's size), so no method builds the population's
payoff matrix except ``nash``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

from solver.games.double_oracle import Response, SymmetricGame
from solver.games.lp import solve_symmetric_lp

__all__ = ["META_SOLVERS", "PsroRecord", "PsroResult", "psro", "online_double_oracle"]

S = TypeVar("S", bound=Hashable)

META_SOLVERS = ("uniform", "rm+", "hedge", "nash")


@dataclass(frozen=True)
class PsroRecord:
    """One outer iteration: the population's size, this mix's certified exploitability, the least so
    far, and the seconds since the start (wall clock, ``time.perf_counter``)."""

    iteration: int
    population: int
    exploitability: float
    best: float
    seconds: float


@dataclass
class PsroResult(Generic[S]):
    support: list[S]
    probabilities: np.ndarray
    exploitability: float  # certified, the least seen
    converged: bool
    interrupted: bool
    iterations: int
    population: int
    history: list[PsroRecord] = field(default_factory=list)


class _Population(Generic[S]):
    def __init__(self) -> None:
        self.strategies: list[S] = []
        self.index: dict[S, int] = {}

    def add(self, strategies: Sequence[S]) -> int:
        new = 0
        for s in strategies:
            if s not in self.index:
                self.index[s] = len(self.strategies)
                self.strategies.append(s)
                new += 1
        return new


def _mix(game: SymmetricGame[S], pop: _Population[S], x: np.ndarray) -> tuple[list[S], np.ndarray]:
    keep = x > 1e-12
    support = [s for s, k in zip(pop.strategies, keep, strict=True) if k]
    return support, x[keep] / x[keep].sum()


def _gains(game: SymmetricGame[S], pop: _Population[S], x: np.ndarray) -> np.ndarray:
    """Every population strategy's payoff against the mix x over the population."""
    support, probs = _mix(game, pop, x)
    return game.payoffs_against(pop.strategies, support, probs)


class _Search(Generic[S]):
    """What the outer loops share: the population (``initial``'s orbits), the least certified mix so
    far, the records and the clock."""

    def __init__(self, game: SymmetricGame[S], initial: Sequence[S], progress: Callable[[PsroRecord], None] | None,
                 response_time_limit: float | None, stop_event: threading.Event | None) -> None:
        self.start = time.perf_counter()
        self.game, self.progress, self.time_limit, self.stop_event = game, progress, response_time_limit, stop_event
        self.pop: _Population[S] = _Population()
        for s0 in initial:
            self.pop.add(game.orbit(s0))
        self.best: tuple[list[S], np.ndarray, float] = ([], np.zeros(0), float("inf"))
        self.history: list[PsroRecord] = []

    def respond(self, x: np.ndarray, iteration: int) -> Response[S]:
        """The exact best response to the population's mix ``x``; the mix kept if it is the least
        exploitable so far, the iteration recorded."""
        support, probs = _mix(self.game, self.pop, x)
        r = self.game.best_response(support, probs, time_limit=self.time_limit, hint=None, stop_event=self.stop_event)
        certified = r.value if r.proven else r.bound
        if certified < self.best[2]:
            self.best = (support, probs, certified)
        record = PsroRecord(iteration, len(self.pop.strategies), certified, self.best[2],
                            time.perf_counter() - self.start)
        self.history.append(record)
        if self.progress is not None:
            self.progress(record)
        return r

    def result(self, converged: bool, interrupted: bool, iterations: int) -> PsroResult[S]:
        return PsroResult(self.best[0], self.best[1], max(self.best[2], 0.0), converged, interrupted, iterations,
                          len(self.pop.strategies), self.history)


INNER_STEPS = 200  # the meta-solver's self-play steps a PSRO iteration (rm+, hedge)
PAYOFF_RANGE = 50.0  # max − min of a Quintet payoff (2 × 25): Hedge's scale


class _SelfPlay:
    """Regret-matching+ or Hedge in self-play on the population game.  The state (regrets, or
    Hedge's cumulative payoffs, and the average strategy) carries over from one outer iteration to
    the next and restarts only when the population grows; Hedge's rate is the anytime
    √(8 ln n / t) / range, t the steps since the last restart."""

    def __init__(self, kind: str, payoff_range: float) -> None:
        self.kind = kind
        self.range = payoff_range
        self.regrets = np.zeros(0)
        self.average = np.zeros(0)
        self.steps = 0

    def grow(self, n: int) -> None:
        if n != len(self.regrets):
            self.regrets = np.append(self.regrets, np.zeros(n - len(self.regrets)))
            self.average = np.zeros(n)
            self.steps = 0

    def current(self) -> np.ndarray:
        if self.kind == "rm+":
            positive = np.clip(self.regrets, 0.0, None)
            total = positive.sum()
            return positive / total if total > 0 else np.full(len(positive), 1.0 / len(positive))
        eta = np.sqrt(8.0 * np.log(max(2, len(self.regrets))) / max(1, self.steps)) / self.range
        z = eta * self.regrets  # Hedge: weights ∝ exp(η · cumulative payoff)
        w = np.exp(z - z.max())
        return w / w.sum()

    def step(self, x: np.ndarray, g: np.ndarray) -> None:
        """One update after playing x and seeing the payoffs g of every strategy against it."""
        if self.kind == "rm+":
            self.regrets = np.clip(self.regrets + g - float(x @ g), 0.0, None)
        else:
            self.regrets = self.regrets + g
        self.steps += 1
        self.average += (self.steps if self.kind == "rm+" else 1.0) * x  # RM+: linear averaging

    def mix(self) -> np.ndarray:
        return self.average / self.average.sum() if self.average.sum() > 0 else self.current()

    def run(self, gains: Callable[[np.ndarray], np.ndarray], steps: int, stop: threading.Event | None) -> np.ndarray:
        for _ in range(steps):
            if stop is not None and stop.is_set():
                break
            x = self.current()
            self.step(x, gains(x))
        return self.mix()


def psro(game: SymmetricGame[S], initial: Sequence[S], *, meta: str, epsilon: float,
         stop_event: threading.Event | None = None, progress: Callable[[PsroRecord], None] | None = None,
         inner: int = INNER_STEPS, payoff_range: float = PAYOFF_RANGE, response_time_limit: float | None = None,
         max_iterations: int | None = None) -> PsroResult[S]:
    """PSRO with the meta-solver ``meta`` (``META_SOLVERS``) until the certified exploitability is
    ≤ ``epsilon``, ``stop_event`` is set or ``max_iterations`` outer iterations ran (``nash`` also
    stops when a proven best response adds nothing new).  ``payoff_range``: max − min of a payoff
    (Quintet: 2 × 25), Hedge's scale."""
    if meta not in META_SOLVERS:
        raise ValueError(f"unknown meta-solver {meta!r} (use {', '.join(META_SOLVERS)})")
    search = _Search(game, initial, progress, response_time_limit, stop_event)
    pop = search.pop
    learner = _SelfPlay("rm+" if meta == "rm+" else "hedge", payoff_range)
    counts = np.ones(len(pop.strategies))  # fictitious play: how often each strategy was the best response
    iterations = 0
    converged = interrupted = False
    while True:
        if stop_event is not None and stop_event.is_set():
            interrupted = True
            break
        iterations += 1
        n = len(pop.strategies)
        if meta == "uniform":
            counts = np.append(counts, np.zeros(n - len(counts)))
            x = counts / counts.sum()
        elif meta == "nash":
            x, _ = solve_symmetric_lp(game.payoffs(pop.strategies, pop.strategies))
        else:
            learner.grow(n)
            x = learner.run(lambda y: _gains(game, pop, y), inner, stop_event)
        r = search.respond(x, iterations)
        if search.best[2] <= epsilon + 1e-9:
            converged = True
            break
        if stop_event is not None and stop_event.is_set():
            interrupted = True
            break
        grew = pop.add(game.orbit(r.strategy))
        if meta == "uniform":
            counts = np.append(counts, np.zeros(len(pop.strategies) - len(counts)))
            counts[pop.index[r.strategy]] += 1
        if grew == 0 and r.proven and meta == "nash":
            break  # nothing new and the population game is solved exactly: final
        if max_iterations is not None and iterations >= max_iterations:
            break
    return search.result(converged, interrupted, iterations)


def online_double_oracle(game: SymmetricGame[S], initial: Sequence[S], *, epsilon: float,
                         stop_event: threading.Event | None = None,
                         progress: Callable[[PsroRecord], None] | None = None, payoff_range: float = PAYOFF_RANGE,
                         response_time_limit: float | None = None,
                         max_iterations: int | None = None) -> PsroResult[S]:
    """The online double oracle: Hedge (anytime rate) on the population, one step per
    exact best response; a new best response joins with its orbit and restarts the window.  Stops as
    ``psro`` does (``max_iterations`` outer iterations at most)."""
    search = _Search(game, initial, progress, response_time_limit, stop_event)
    pop = search.pop
    learner = _SelfPlay("hedge", payoff_range)
    learner.grow(len(pop.strategies))
    iterations = 0
    converged = interrupted = False
    while True:
        if stop_event is not None and stop_event.is_set():
            interrupted = True
            break
        iterations += 1
        x = learner.current()
        learner.average += x
        r = search.respond(learner.mix(), iterations)
        if search.best[2] <= epsilon + 1e-9:
            converged = True
            break
        if pop.add(game.orbit(r.strategy)):
            learner = _SelfPlay("hedge", payoff_range)  # a new window over the grown population
            learner.grow(len(pop.strategies))
        else:  # one Hedge step against itself (the average was updated above)
            learner.regrets = learner.regrets + _gains(game, pop, x)
            learner.steps += 1
        if max_iterations is not None and iterations >= max_iterations:
            break
    return search.result(converged, interrupted, iterations)
