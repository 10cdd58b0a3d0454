"""Sparse mixes: the least exploitable mix of at most K strategies of a symmetric zero-sum game.

An equilibrium may mix a hundred strategies; a person can play "one of these three, with these
odds".  ``sparse_mix(game, candidates, K)`` looks for the mix of at most K strategies whose
*certified exploitability* — ``max_P u(P, x)``, the exact best response's value against it, or
its proven bound (as in ``double_oracle``) — is as small as it can find.  The answer is the
best mix **found**, with its exact certificate; it is proven the best of all K-mixes only when
``optimal`` (its exploitability meets ``lower_bound``, a proven lower bound on every K-mix).

The game is the double oracle's ``SymmetricGame`` (payoffs, payoffs against a mix, an exact
best response, orbits); ``candidates`` are the strategies the support is chosen from (e.g. an
equilibrium's support), grown during the search by best responses.

Weights of a fixed support
--------------------------
For a support S the best weights solve ``min t`` s.t. ``Σ_j x_j u(P, s_j) ≤ t`` for every pure
strategy P, ``Σx = 1``, ``x ≥ 0`` — one row per strategy of the game, so the rows are generated:
the LP sees a *pool* of rows (every strategy met: the candidates, the best responses found, and
their orbits), the game's cheap oracle (``CheapOracle``, when it has one) adds rows that beat
the weights (no proof needed: any strategy is a valid row), and the exact best response to the
weights is the next row, until it gains no more than the LP's t.  Every weight vector that gets
an exact best response is certified by it; the LP's t over a pool is a lower bound on the
support's best exploitability (a relaxation).

Choosing the support
--------------------
The support is searched on the pool LP (the *surrogate*: cheap, and a lower bound), and only
the most promising supports are certified:

* starts: the previous answer (``initial``, e.g. the (K−1)-mix, so exploitability never rises
  with K), the K most likely candidates by ``prior`` (e.g. the equilibrium's probabilities:
  *rounding* the equilibrium), *backward elimination* from every candidate the prior plays (drop
  the lowest weights, re-solve, until K remain), a *greedy* build from the best pure candidate,
  ``restarts`` random supports drawn by the prior, and ``kicks`` (a third of the best local
  optimum's members replaced at random, then searched again: iterated local search);
* moves: *add* the candidate that the LP's dual (a mix y of attacking rows) beats least —
  ``u(c, y)`` largest — and *swap*: add one of the best-rated candidates, drop one of the
  lowest-weight members, keep the best exchange if it lowers the surrogate;
* pricing: at a local optimum, the exact best response to y (the strategy y beats least among
  *all* strategies, not only the candidates) joins the candidates with its orbit (column
  generation); the exact best responses met while certifying join them too;
* lazy certification: the local optima are certified lowest surrogate first (the surrogate
  recomputed on the grown pool); one whose surrogate is no lower than the best certified
  exploitability cannot beat it, so the best of them costs few exact best responses.  A
  certified support whose certificate's rows changed the surrogate is searched again;
* when the candidates are few, every support of K of them joins the queue, and the MILP over the
  candidates (``solve_sparse_milp``: at most K nonzero weights) runs with its rows generated the
  same way (``milp_columns``).  Its relaxation is the unrestricted LP (value 0), so on big
  candidate sets its bound stays near 0: it is for small games.

K = 1 is exact over the candidates: each candidate's surrogate (its worst pool row) is a lower
bound on its exploitability, so certifying the lowest until a certificate meets the next lower
bound finds the best pure candidate.

Lower bounds
------------
``lower_bound`` is 0 (the game's value: no mix is exploitable by less) unless more is proven:
the caller's bound (``lower_bound=``), or, when the candidates are *every* strategy of the game
(``complete=True``, small games), the least surrogate over every support of K (or the MILP's
proven bound when the supports are too many to list): a bound on every K-mix, so the search is
exact there.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import numpy as np

from .double_oracle import CheapOracle, SymmetricGame
from .lp import solve_minmax_lp, solve_sparse_milp

__all__ = ["SparseMixOptions", "CertifiedMix", "SparseRecord", "SparseMixResult", "SparseMixSearch", "sparse_mix",
           "sparse_frontier", "OPTIMAL_TOLERANCE", "DEFAULT_OPTIONS"]

S = TypeVar("S", bound=Hashable)

OPTIMAL_TOLERANCE = 1e-6
"""Points: a certified exploitability within this of a proven lower bound is called optimal
(the LP and MILP optima are exact to ~1e-7)."""


@dataclass(frozen=True)
class SparseMixOptions:
    """How the search runs.

    * ``response_time_limit`` — seconds for one exact best response (never more than the time
      left); an unproven one certifies with its bound;
    * ``swap_candidates`` — best-rated candidates tried at each add or swap move;
    * ``drop_tries`` — lowest-weight members a candidate may replace in a swap;
    * ``restarts`` — random starts besides the deterministic ones; ``kicks`` — perturbations of
      the best local optimum searched again (iterated local search); ``seed`` their seed;
    * ``rounds`` — at most this many certifications per start (a certified support whose
      exploitability exceeds its surrogate is searched again on the grown pool);
    * ``cheap_steps`` — rounds of the game's cheap oracle (``CheapOracle``) before each exact
      best response of a certification: rows found without proof, to sharpen the surrogate;
    * ``certify_steps`` — exact best responses per certification of one support;
    * ``enumerate_supports`` — every support of K candidates joins the lazy certification when
      there are at most this many (with ``complete``: the search is then exact, nothing else runs);
    * ``milp_columns`` — otherwise the MILP runs when the candidates are at most this many (always with
      ``complete``); ``milp_time_limit`` seconds per MILP;
    * ``pricing`` — add the exact best response to the dual mix as a candidate at local optima;
    * ``gain_tol`` — points: a move must lower the surrogate by more than this;
    * ``support_tol`` — weights at most this are dropped;
    * ``active_rows`` — rows that bound lately, with which every LP starts (more are added
      while any pool row beats the LP's weights: the LP's answer does not depend on it).
    """

    response_time_limit: float = 60.0
    swap_candidates: int = 12
    drop_tries: int = 3
    restarts: int = 8
    kicks: int = 8
    seed: int = 0
    rounds: int = 4
    cheap_steps: int = 3
    certify_steps: int = 12
    enumerate_supports: int = 2000
    milp_columns: int = 60
    milp_time_limit: float = 20.0
    pricing: bool = True
    gain_tol: float = 1e-9
    support_tol: float = 1e-9
    active_rows: int = 200


DEFAULT_OPTIONS = SparseMixOptions()


@dataclass(frozen=True)
class CertifiedMix(Generic[S]):
    """A mix with its certified exploitability (``proven``: an exact best response's value)."""

    support: tuple[S, ...]
    probabilities: np.ndarray
    exploitability: float
    proven: bool


@dataclass(frozen=True)
class SparseRecord:
    """One certification: which start (``method``), the support's size, the surrogate (a lower
    bound on that support's best exploitability over the pool), the certified exploitability of
    its weights, the best certified so far, the pool's size and the seconds so far."""

    method: str
    support: int
    surrogate: float
    exploitability: float
    best: float
    rows: int
    seconds: float


@dataclass
class SparseMixResult(Generic[S]):
    support: list[S]
    probabilities: np.ndarray
    exploitability: float  # certified: max_P u(P, mix) ≤ this
    proven: bool  # the exploitability is an exact best response's value (not only its bound)
    max_support: int
    lower_bound: float  # proven: no mix of at most max_support strategies is exploitable by less
    optimal: bool  # exploitability − lower_bound ≤ OPTIMAL_TOLERANCE: no K-mix is better
    method: str  # the start that found it ("initial", "top", "greedy", "random", "milp", "pure")
    best_responses: int
    interrupted: bool
    seconds: float
    history: list[SparseRecord] = field(default_factory=list)

    def mix(self) -> CertifiedMix[S]:
        return CertifiedMix(tuple(self.support), self.probabilities, self.exploitability, self.proven)


class _Pool(Generic[S]):
    """Rows: every strategy met, with each evaluated column's payoffs against them cached."""

    def __init__(self, game: SymmetricGame[S]) -> None:
        self.game = game
        self.strategies: list[S] = []
        self.index: dict[S, int] = {}
        self.columns: dict[S, np.ndarray] = {}

    def add(self, strategies: Sequence[S]) -> int:
        before = len(self.strategies)
        for s in strategies:
            if s not in self.index:
                self.index[s] = len(self.strategies)
                self.strategies.append(s)
        return len(self.strategies) - before

    def matrix(self, support: Sequence[S]) -> np.ndarray:
        """u(row, s) for every pool row and support member, ``len(pool) × len(support)``."""
        n = len(self.strategies)
        missing = [s for s in dict.fromkeys(support) if s not in self.columns]
        if missing:
            self.columns.update(zip(missing, self.game.payoffs(self.strategies, missing).T, strict=True))
        stale = [s for s in dict.fromkeys(support) if len(self.columns[s]) < n]
        if stale:  # rows added since these columns were cached: compute only the new rows
            first = min(len(self.columns[s]) for s in stale)
            fresh = self.game.payoffs(self.strategies[first:], stale)
            for j, s in enumerate(stale):
                old = self.columns[s]
                self.columns[s] = np.concatenate([old, fresh[len(old) - first:, j]])
        return np.stack([self.columns[s] for s in support], axis=1)


@dataclass
class _Surrogate:
    """The pool LP of one support: its value t, weights x, and the dual mix y over ``rows``."""

    value: float
    x: np.ndarray
    rows: np.ndarray  # pool indices of the dual's support
    y: np.ndarray


class SparseMixSearch(Generic[S]):
    """The state of a search — the pool of rows and the candidates — kept between calls, so a
    frontier (``sparse_frontier``: K = 1, 2, …) reuses every row and candidate found."""

    def __init__(self, game: SymmetricGame[S], candidates: Sequence[S], *, prior: Sequence[float] | None = None,
                 options: SparseMixOptions = DEFAULT_OPTIONS, complete: bool = False,
                 stop_event: threading.Event | None = None) -> None:
        if not candidates:
            raise ValueError("a sparse mix needs at least one candidate strategy")
        self.game = game
        self.options = options
        self.complete = complete
        self.stop_event = stop_event
        self.candidates: list[S] = list(dict.fromkeys(candidates))
        weights = np.ones(len(candidates)) if prior is None else np.asarray(prior, dtype=np.float64)
        if len(weights) != len(candidates):
            raise ValueError("prior needs one weight per candidate")
        self.prior: dict[S, float] = {}
        for s, w in zip(candidates, weights.tolist(), strict=True):
            self.prior[s] = self.prior.get(s, 0.0) + max(w, 0.0)
        self.pool: _Pool[S] = _Pool(game)
        self.pool.add(self.candidates)
        self.active: list[int] = []  # pool rows that were binding lately: every LP starts from them
        self.best_responses = 0
        self.rng = np.random.default_rng(options.seed)
        self._deadline: float | None = None
        self._start = time.perf_counter()
        self._history: list[SparseRecord] = []
        self._best: CertifiedMix[S] | None = None
        self._best_method = ""
        self.progress: Callable[[SparseRecord], None] | None = None  # receives each certification

    # ------------------------------------------------------------------ the pieces

    def _time_left(self) -> float | None:
        return None if self._deadline is None else max(0.0, self._deadline - time.perf_counter())

    def _out_of_time(self) -> bool:
        left = self._time_left()
        return (left is not None and left <= 0.0) or (self.stop_event is not None and self.stop_event.is_set())

    def _add_candidates(self, strategies: Sequence[S]) -> None:
        for s in strategies:
            if s not in self.prior:
                self.prior[s] = 0.0
                self.candidates.append(s)
        self.pool.add(strategies)

    def surrogate(self, support: Sequence[S]) -> _Surrogate:
        """The support's best weights against the pool (an LP over the rows that bind, grown
        until no pool row beats the LP's value)."""
        M = self.pool.matrix(support)
        if len(support) == 1:
            i = int(np.argmax(M[:, 0]))
            return _Surrogate(float(M[i, 0]), np.ones(1), np.array([i]), np.ones(1))
        working = set(int(i) for i in np.argmax(M, axis=0)) | set(self.active)
        while True:
            rows = np.array(sorted(working))
            x, t, y = solve_minmax_lp(M[rows])
            gains = M @ x
            violated = np.flatnonzero(gains > t + self.options.gain_tol)
            violated = violated[~np.isin(violated, rows)]
            if violated.size == 0:
                keep = y > 1e-12
                self.active = list(dict.fromkeys(rows[keep].tolist() + self.active))[:self.options.active_rows]
                return _Surrogate(float(max(t, gains.max())), x, rows[keep], y[keep] / y[keep].sum())
            working.update(violated[np.argsort(-gains[violated])][:32].tolist())

    def _exact(self, support: Sequence[S], probabilities: np.ndarray) -> tuple[float, bool, S, float]:
        """The exact best response to the mix: (certified exploitability, proven, strategy, value)."""
        limit = self.options.response_time_limit
        left = self._time_left()
        if left is not None:
            limit = min(limit, max(left, 1e-3))
        hint = self.pool.strategies[self.active[0]] if self.active else None
        response = self.game.best_response(list(support), probabilities, time_limit=limit, hint=hint,
                                           stop_event=self.stop_event)
        self.best_responses += 1
        self._add_candidates(self.game.orbit(response.strategy))  # a strong attacker: a candidate too
        certified = response.value if response.proven else response.bound
        return max(float(certified), 0.0), bool(response.proven), response.strategy, float(response.value)

    def _record(self, method: str, mix: CertifiedMix[S], surrogate: float) -> None:
        if self._best is None or mix.exploitability < self._best.exploitability - 1e-12:
            self._best, self._best_method = mix, method
        record = SparseRecord(method, len(mix.support), surrogate, mix.exploitability, self._best.exploitability,
                              len(self.pool.strategies), time.perf_counter() - self._start)
        self._history.append(record)
        if self.progress is not None:
            self.progress(record)

    def _cheap_rows(self, support: Sequence[S], probabilities: np.ndarray, value: float) -> bool:
        """Rows from the game's cheap oracle (no proof needed: any strategy is a valid row) that
        beat the weights by more than ``value``; True if any was new."""
        if not isinstance(self.game, CheapOracle):
            return False
        gains = self.game.payoffs_against(self.pool.strategies, list(support), probabilities)
        starts = [self.pool.strategies[i] for i in np.argsort(-gains, kind="stable")[:16].tolist()]
        found = self.game.improving_responses(list(support), probabilities, starts,
                                              min_gain=value + self.options.gain_tol, limit=4)
        return self.pool.add([t for _, s0 in found for t in self.game.orbit(s0)]) > 0

    def certify(self, support: Sequence[S], method: str) -> tuple[CertifiedMix[S], float]:
        """The support's weights by row generation — the cheap oracle's rows first, then the
        exact best response's; returns the best certified weights met and the last surrogate
        (the support's lower bound over the pool)."""
        best: CertifiedMix[S] | None = None
        surrogate = float("nan")
        for _ in range(self.options.certify_steps):
            sur = self.surrogate(support)
            for _ in range(self.options.cheap_steps):
                if not self._cheap_rows(support, sur.x, sur.value):
                    break
                sur = self.surrogate(support)
            surrogate = sur.value
            keep = sur.x > self.options.support_tol
            members = tuple(s for s, k in zip(support, keep, strict=True) if k)
            probs = sur.x[keep] / sur.x[keep].sum()
            certified, proven, _, value = self._exact(members, probs)
            mix = CertifiedMix(members, probs, certified, proven)
            if best is None or certified < best.exploitability:
                best = mix
            self._record(method, mix, surrogate)
            if value <= surrogate + self.options.gain_tol or not proven or self._out_of_time():
                break
        assert best is not None
        return best, surrogate

    def _rated(self, sur: _Surrogate, exclude: Sequence[S], count: int) -> list[S]:
        """The candidates the dual mix beats least (u(c, y) largest), best first."""
        attackers = [self.pool.strategies[i] for i in sur.rows]
        scores = self.game.payoffs_against(self.candidates, attackers, sur.y)
        excluded = set(exclude)
        order = np.argsort(-scores, kind="stable")
        out: list[S] = []
        for i in order.tolist():
            if self.candidates[i] not in excluded:
                out.append(self.candidates[i])
                if len(out) >= count:
                    break
        return out

    def _price(self, sur: _Surrogate) -> bool:
        """The exact best response to the dual mix joins the candidates (with its orbit); True
        if it is new and the dual mix does not beat it by the surrogate's value."""
        attackers = [self.pool.strategies[i] for i in sur.rows]
        limit = self.options.response_time_limit
        left = self._time_left()
        if left is not None:
            limit = min(limit, max(left, 1e-3))
        response = self.game.best_response(attackers, sur.y, time_limit=limit, hint=None,
                                           stop_event=self.stop_event)
        self.best_responses += 1
        new = response.strategy not in self.prior
        self._add_candidates(self.game.orbit(response.strategy))
        return new and -response.value < sur.value - self.options.gain_tol

    def local_search(self, support: Sequence[S], max_support: int) -> tuple[list[S], _Surrogate]:
        """Add and swap moves on the surrogate until none lowers it (module doc)."""
        current = list(dict.fromkeys(support))
        sur = self.surrogate(current)
        priced = not self.options.pricing
        while not self._out_of_time():
            best_support, best_sur = None, sur
            tries = self._rated(sur, current, self.options.swap_candidates)
            if len(current) < max_support:
                for c in tries:
                    trial = self.surrogate(current + [c])
                    if trial.value < best_sur.value - self.options.gain_tol:
                        best_support, best_sur = current + [c], trial
            else:
                for c in tries:
                    grown = current + [c]
                    g = self.surrogate(grown)
                    order = [i for i in np.argsort(g.x, kind="stable").tolist() if i != len(current)]
                    for i in order[:self.options.drop_tries]:
                        trial_support = grown[:i] + grown[i + 1:]
                        trial = self.surrogate(trial_support)
                        if trial.value < best_sur.value - self.options.gain_tol:
                            best_support, best_sur = trial_support, trial
            if best_support is not None:
                current, sur = best_support, best_sur
                priced = not self.options.pricing
                continue
            if priced:
                break
            priced = True
            if not self._price(sur):
                break
        return current, sur

    def backward(self, support: Sequence[S], max_support: int) -> list[S]:
        """Backward elimination: from a large support (the equilibrium's), drop the lowest-weight
        members and re-solve the weights until ``max_support`` remain."""
        current = list(dict.fromkeys(support))
        while len(current) > max_support and not self._out_of_time():
            sur = self.surrogate(current)
            excess = len(current) - max_support
            drop = max(1, excess // 4)  # far from K: several at a time
            order = np.argsort(sur.x, kind="stable")[:drop].tolist()
            current = [s for i, s in enumerate(current) if i not in set(order)]
        return current

    def _perturbed(self, support: Sequence[S], max_support: int) -> list[S]:
        """A kick for iterated local search: about a third of the members replaced by candidates
        drawn by the prior."""
        current = list(support)
        n = max(1, len(current) // 3)
        weights = np.array([self.prior.get(s, 0.0) for s in self.candidates]) + 1e-3 / len(self.candidates)
        for i in self.rng.choice(len(current), size=min(n, len(current)), replace=False).tolist():
            current[i] = self.candidates[int(self.rng.choice(len(self.candidates), p=weights / weights.sum()))]
        return list(dict.fromkeys(current))[:max_support]

    def _queue_certify(self, optima: list[tuple[str, list[S]]], max_support: int, *, search_again: bool) -> float:
        """Certify the supports lazily, lowest surrogate first: a support whose surrogate
        (recomputed on the grown pool) is no lower than the best certified exploitability cannot
        beat it, so the best of them is found with few exact best responses.  With
        ``search_again`` a certified support that its certificate's rows changed is searched
        again and its new local optimum queued.  Returns the least lower bound met over the
        supports queued (the best exploitability of every one of them is at least that)."""
        queue = [(self.surrogate(support).value, i, method, support) for i, (method, support) in enumerate(optima)]
        lower = {frozenset(support): value for value, _, _, support in queue}
        counter = len(queue)
        seen: set[frozenset[S]] = set()
        while queue and not self._out_of_time():
            queue.sort(key=lambda item: (item[0], item[1]))
            _, i, method, support = queue.pop(0)
            key = frozenset(support)
            value = self.surrogate(support).value
            lower[key] = max(lower[key], value)
            if queue and value > queue[0][0] + self.options.gain_tol:
                queue.append((value, i, method, support))  # the pool grew: no longer the lowest
                continue
            best = self._best.exploitability if self._best is not None else float("inf")
            if value >= best - self.options.gain_tol:
                break  # every support left is at least as exploitable as the best certified
            if key in seen:
                continue
            seen.add(key)
            mix, surrogate = self.certify(support, method)
            lower[key] = max(lower[key], surrogate)
            if (search_again and mix.exploitability > surrogate + self.options.gain_tol
                    and len(seen) < self.options.rounds * len(optima)):
                again, sur = self.local_search(support, max_support)
                if frozenset(again) not in lower:
                    lower[frozenset(again)] = sur.value
                    queue.append((sur.value, counter, method, again))
                    counter += 1
        return min(lower.values())

    def _best_pure(self) -> tuple[S, float]:
        """The candidate with the least certified exploitability, exactly (module doc), and a
        lower bound on every candidate's exploitability."""
        while True:
            M = self.pool.matrix(self.candidates)
            lower = M.max(axis=0)
            order = np.argsort(lower, kind="stable")
            c = self.candidates[int(order[0])]
            certified, proven, _, _ = self._exact((c,), np.ones(1))
            mix = CertifiedMix((c,), np.ones(1), certified, proven)
            self._record("pure", mix, float(lower[order[0]]))
            nxt = float(lower[order[1]]) if len(order) > 1 else float("inf")
            if certified <= nxt + self.options.gain_tol or not proven or self._out_of_time():
                return c, min(certified if proven else float(lower[order[0]]), nxt)

    def _milp(self, max_support: int) -> float:
        """The MILP over the candidates, its rows generated (from the pool, then by the exact best
        response) until the best response gains nothing beyond it.  Returns its proven lower
        bound on the best mix of at most ``max_support`` candidates (every bound met is one: the
        MILP over some rows relaxes the one over every row)."""
        bound = 0.0
        while not self._out_of_time():
            M = self.pool.matrix(self.candidates)
            working = set(int(i) for i in np.argmax(M, axis=0)) | set(self.active)
            left = self._time_left()
            limit = self.options.milp_time_limit if left is None else min(self.options.milp_time_limit, left)
            while True:
                rows = np.array(sorted(working))
                solution = solve_sparse_milp(M[rows], max_support, time_limit=limit)
                if solution is None:
                    return bound  # no solution in time (the program is big): nothing to add
                gains = M @ solution.x
                violated = np.flatnonzero(gains > solution.value + self.options.gain_tol)
                violated = violated[~np.isin(violated, rows)]
                if violated.size == 0 or self._out_of_time():
                    break
                working.update(violated[np.argsort(-gains[violated])][:64].tolist())
            bound = max(bound, solution.bound)
            keep = solution.x > self.options.support_tol
            members = tuple(c for c, k in zip(self.candidates, keep, strict=True) if k)
            probs = solution.x[keep] / solution.x[keep].sum()
            certified, proven, _, value = self._exact(members, probs)
            self._record("milp", CertifiedMix(members, probs, certified, proven), solution.value)
            if value <= solution.value + self.options.gain_tol or not proven or not solution.optimal:
                break
        return bound

    # ------------------------------------------------------------------ the search

    def solve(self, max_support: int, *, initial: CertifiedMix[S] | None = None, time_limit: float | None = None,
              lower_bound: float = 0.0) -> SparseMixResult[S]:
        """The least exploitable mix of at most ``max_support`` strategies found (module doc).

        ``initial`` (a certified mix, e.g. the answer for a smaller K) is kept unless beaten;
        ``lower_bound`` is a proven lower bound the caller knows (points)."""
        if not (isinstance(max_support, int) and max_support >= 1):
            raise ValueError(f"max_support must be an integer at least 1, got {max_support!r}")
        self._start = time.perf_counter()
        self._deadline = None if time_limit is None else self._start + time_limit
        self._history = []
        self._best, self._best_method = None, ""
        responses_before = self.best_responses
        K = max_support
        bound = max(0.0, float(lower_bound))
        if initial is not None and len(initial.support) <= K:
            self._add_candidates(initial.support)
            self._record("initial", initial, float("nan"))
        # K = 1: exact over the candidates; larger K start from it (greedy) among others
        pure, pure_bound = self._best_pure()
        if K == 1 and self.complete:
            bound = max(bound, pure_bound)
        if K >= 2 and self.complete and math.comb(len(self.candidates), K) <= self.options.enumerate_supports:
            # every strategy a candidate, and few: every support of K of them, certified lazily — exact
            every = [("every", list(c)) for c in itertools.combinations(self.candidates, K)]
            if initial is not None:
                every.insert(0, ("initial", list(initial.support)))
            over_candidates = self._queue_certify(every, K, search_again=False)
            if self.complete:
                bound = max(bound, over_candidates)
            return self._result(K, bound, responses_before)
        starts: list[tuple[str, list[S]]] = []
        if initial is not None:
            starts.append(("initial", list(initial.support)[:K]))
        by_prior = sorted(self.candidates, key=lambda s: -self.prior.get(s, 0.0))
        if K >= 2:
            starts.append(("top", by_prior[:K]))
            ranked = [s for s in by_prior if self.prior.get(s, 0.0) > 0]
            if len(ranked) > K:
                starts.append(("backward", self.backward(ranked, K)))
        starts.append(("greedy", [pure]))
        weights = np.array([self.prior.get(s, 0.0) for s in self.candidates]) + 1e-12
        for _ in range(self.options.restarts if K >= 2 else 0):
            pick = self.rng.choice(len(self.candidates), size=min(K, len(self.candidates)), replace=False,
                                   p=weights / weights.sum())
            starts.append(("random", [self.candidates[i] for i in pick.tolist()]))
        optima: list[tuple[str, list[S]]] = []
        for method, support in starts:
            if self._out_of_time():
                break
            optima.append((method, self.local_search(support, K)[0]))
        # iterated local search: kick the best local optimum (by surrogate) and search again
        for _ in range(self.options.kicks if K >= 2 else 0):
            if self._out_of_time():
                break
            method, support = min(optima, key=lambda o: self.surrogate(o[1]).value)
            optima.append(("kick", self.local_search(self._perturbed(support, K), K)[0]))
        if K >= 2 and math.comb(len(self.candidates), K) <= self.options.enumerate_supports:
            optima += [("every", list(c)) for c in itertools.combinations(self.candidates, K)]  # few: all of them
        self._queue_certify(optima, K, search_again=True)
        if K == 1 and not self._out_of_time():
            self._best_pure()  # again: the search added candidates
        elif self.complete or len(self.candidates) <= self.options.milp_columns:
            milp_bound = self._milp(K)
            if self.complete:
                bound = max(bound, milp_bound)
        return self._result(K, bound, responses_before)

    def _result(self, K: int, bound: float, responses_before: int) -> SparseMixResult[S]:
        assert self._best is not None
        best = self._best
        return SparseMixResult(
            support=list(best.support), probabilities=best.probabilities, exploitability=best.exploitability,
            proven=best.proven, max_support=K, lower_bound=min(bound, best.exploitability),
            optimal=best.proven and best.exploitability - bound <= OPTIMAL_TOLERANCE, method=self._best_method,
            best_responses=self.best_responses - responses_before,
            interrupted=self.stop_event is not None and self.stop_event.is_set(),
            seconds=time.perf_counter() - self._start, history=list(self._history))


def sparse_mix(game: SymmetricGame[S], candidates: Sequence[S], max_support: int, *,
               prior: Sequence[float] | None = None, initial: CertifiedMix[S] | None = None,
               time_limit: float | None = None, stop_event: threading.Event | None = None,
               complete: bool = False, lower_bound: float = 0.0,
               options: SparseMixOptions = DEFAULT_OPTIONS) -> SparseMixResult[S]:
    """The least exploitable mix of at most ``max_support`` strategies found (module doc).

    ``candidates`` (with ``prior`` weights, e.g. an equilibrium's support and probabilities)
    seed the support; ``complete``: they are every strategy of the game (the search is then
    exact and ``optimal`` is proven).  Stops after ``time_limit`` seconds or when ``stop_event``
    is set, with the best certified mix so far."""
    search = SparseMixSearch(game, candidates, prior=prior, options=options, complete=complete,
                             stop_event=stop_event)
    return search.solve(max_support, initial=initial, time_limit=time_limit, lower_bound=lower_bound)


def sparse_frontier(game: SymmetricGame[S], candidates: Sequence[S], max_supports: Sequence[int], *,
                    prior: Sequence[float] | None = None, time_limit: float | None = None,
                    stop_event: threading.Event | None = None, complete: bool = False,
                    lower_bounds: Callable[[int], float] | None = None,
                    options: SparseMixOptions = DEFAULT_OPTIONS) -> list[SparseMixResult[S]]:
    """``sparse_mix`` for each K of ``max_supports`` in increasing order, one search state
    shared: each K starts from the previous answer (so the certified exploitability never rises
    with K) and reuses every row found.  ``time_limit`` is per K."""
    search = SparseMixSearch(game, candidates, prior=prior, options=options, complete=complete,
                             stop_event=stop_event)
    out: list[SparseMixResult[S]] = []
    previous: CertifiedMix[S] | None = None
    for K in sorted(set(max_supports)):
        result = search.solve(K, initial=previous, time_limit=time_limit,
                              lower_bound=0.0 if lower_bounds is None else lower_bounds(K))
        out.append(result)
        previous = result.mix()
    return out
