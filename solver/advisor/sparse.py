"""Equilibria a person can play: the least exploitable mix of at most K arrangements of a deal.

A certified equilibrium of a Quintet deal mixes tens to hundreds of arrangements; at a table
one can play "one of these three, with these odds".  ``sparse_equilibrium(deal, max_support=K)``
returns the mix of at most K arrangements with the smallest *certified* exploitability that the
search finds (``solver.games.sparse_mix`` over ``solver.games.quintet_game.QuintetGame``): its
exploitability is an exact best response's value against it (or that response's proven bound),
as for every equilibrium here.  It is the best mix *found*: not proven the best of all K-mixes
unless ``optimal`` (``lower_bound`` is only the game's value 0 for a Quintet deal: no cheap
bound on the best K-mix is known).

The search starts from the deal's equilibrium (``solve_equilibrium``, through the store when
given): its support and probabilities are the candidates and their prior, and every slot order
of its partitions is a row from the start.  K = 1 is the single most robust arrangement found
(what a pure player should lay down); a K at least the equilibrium's support returns the
equilibrium itself.  ``sparse_frontier`` solves several K in increasing order, each from the
previous answer, so the certified exploitability never rises with K.

The answer's ``roll`` is a seeded die roll picking the arrangement to play: a uniform number in
[0, 1) and the arrangement whose share of [0, 1) (cumulative probabilities, most likely first)
contains it — the arrangement ``sample`` draws with the same seed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from quintet.game import Arrangement, Deal
from quintet.jsonable import Jsonable
from quintet.seeds import seed_rng
from solver.engines.base import DEFAULT_ENGINE, EngineOptions
from solver.games.quintet_game import QuintetGame, Strategy
from solver.games.sparse_mix import (
    DEFAULT_OPTIONS,
    CertifiedMix,
    SparseMixOptions,
    SparseMixResult,
    SparseMixSearch,
    SparseRecord,
)
from solver.problem.deal_tables import DealTables
from solver.storage.store import SolutionStore

from .equilibrium import EquilibriumResult, solve_equilibrium
from .limits import SOLVE_EPSILON, SOLVE_TIME_LIMIT, check_max_support
from .mix import Mix, answer_fields
from .plans import Plan, plans

if TYPE_CHECKING:
    from .schema import RollOut, SparseOut

__all__ = ["Roll", "SparseEquilibrium", "DealSparseSearch", "sparse_equilibrium", "sparse_frontier", "roll_mix"]


@dataclass(frozen=True)
class Roll(Jsonable):
    """A seeded die roll over a mix: ``value`` uniform in [0, 1), the arrangement picked (its
    position in the mix, 0-based) and its share [low, high) of [0, 1)."""

    seed: int
    value: float
    index: int
    low: float
    high: float

    def to_model(self) -> RollOut:
        from .schema import RollOut, model_of
        return model_of(RollOut, self, pick=self.index + 1)


def roll_mix(probabilities: Sequence[float], seed: int = 0, *stream: int) -> Roll:
    """The die roll of ``seed`` over the probabilities (the pick of ``sample_mix`` with that seed:
    numpy's ``Generator.choice`` draws one uniform number and searches the cumulative sums); on
    an independent ``stream`` of the seed when given (``quintet.seeds.seed_rng``)."""
    p = np.asarray(probabilities, dtype=np.float64)
    cdf = np.cumsum(p)
    cdf /= cdf[-1]
    value = float(seed_rng(seed, *stream).random())
    index = int(np.searchsorted(cdf, value, side="right"))
    return Roll(seed, value, index, float(cdf[index - 1]) if index else 0.0, float(cdf[index]))


@dataclass(frozen=True)
class SparseEquilibrium(Jsonable):
    """The least exploitable mix of at most ``max_support`` arrangements found, certified."""

    deal: Deal
    max_support: int
    mix: tuple[tuple[float, Arrangement], ...]  # most likely first
    exploitability: float  # certified: no arrangement gains more than this against the mix
    proven: bool  # the exploitability is an exact best response's value (not only its bound)
    lower_bound: float  # proven: no mix of at most max_support arrangements is exploitable by less
    optimal: bool  # exploitability meets lower_bound: proven the best K-mix (else the best found)
    method: str  # which start of the search found it ("equilibrium": the equilibrium fits in K)
    equilibrium_exploitability: float  # the full equilibrium's certified exploitability, for comparison
    equilibrium_support: int  # arrangements in the full equilibrium
    epsilon: float  # the full equilibrium's target
    best_responses: int
    seconds: float
    interrupted: bool = False
    history: tuple[SparseRecord, ...] = field(default_factory=tuple)

    def sample(self, seed: int = 0) -> Arrangement:
        """The arrangement the die roll of ``seed`` picks."""
        return self.mix[self.roll(seed).index][1]

    def roll(self, seed: int = 0, *stream: int) -> Roll:
        """The die roll of ``seed`` (on ``stream``, when given) over the mix."""
        return roll_mix([p for p, _ in self.mix], seed, *stream)

    def plans(self) -> list[Plan]:
        return plans(self.mix, self.deal.rules)

    def certified_mix(self, tables: DealTables) -> CertifiedMix[Strategy]:
        """The mix as the search's ``CertifiedMix`` (packet indices of ``tables``)."""
        support = tuple(tuple(tables.index_of(m) for m in a.packets) for _, a in self.mix)
        return CertifiedMix(support, np.array([p for p, _ in self.mix]), self.exploitability, self.proven)

    def to_model(self, seed: int = 0, *stream: int) -> SparseOut:
        """The JSON, with the arrangement the die roll of ``seed`` (on ``stream``) picks to play."""
        from .schema import SparseOut, model_of
        roll = self.roll(seed, *stream)
        return model_of(SparseOut, self, **answer_fields(self.deal, self.mix[roll.index][1]), opponent="equilibrium",
                        objective="margin", mix=Mix(self.mix, self.deal.rules).to_model(), roll=roll.to_model(),
                        plans=[plan.to_model() for plan in self.plans()], exploitability_proven=self.proven,
                        best_found=not self.optimal)

def _mix_of(tables: DealTables, support: Sequence[Strategy], probabilities: np.ndarray
            ) -> tuple[tuple[float, Arrangement], ...]:
    order = np.argsort(-np.asarray(probabilities), kind="stable")
    return tuple((float(probabilities[i]), tables.arrangement_of(support[i])) for i in order)


class DealSparseSearch:
    """One deal's search state — the equilibrium, the rows and candidates — kept across K
    (``for_deal`` builds it; ``solve`` answers one K)."""

    def __init__(self, deal: Deal, eq: EquilibriumResult, tables: DealTables, engine: EngineOptions,
                 options: SparseMixOptions, stop_event: threading.Event | None) -> None:
        self.deal, self.eq, self.tables = deal, eq, tables
        game = QuintetGame(tables, engine)
        support = [tuple(tables.index_of(m) for m in a.packets) for _, a in eq.mix]
        self.search: SparseMixSearch[Strategy] = SparseMixSearch(
            game, support, prior=[p for p, _ in eq.mix], options=options, stop_event=stop_event)
        partitions = {frozenset(s): s for s in support}
        self.search.pool.add([o for s in partitions.values() for o in game.orbit(s)])

    @classmethod
    def for_deal(cls, deal: Deal, *, epsilon: float = SOLVE_EPSILON, time_limit: float | None = SOLVE_TIME_LIMIT,
                 store: SolutionStore | None = None, stop_event: threading.Event | None = None,
                 engine: EngineOptions = DEFAULT_ENGINE, options: SparseMixOptions = DEFAULT_OPTIONS,
                 equilibrium: EquilibriumResult | None = None) -> DealSparseSearch:
        """The search of ``deal`` from ``equilibrium``, or from its equilibrium to ``epsilon``
        solved now (through ``store`` when given, at most ``time_limit`` seconds)."""
        if equilibrium is None:
            equilibrium = solve_equilibrium(deal, epsilon=epsilon, time_limit=time_limit, store=store,
                                            stop_event=stop_event, engine=engine)
        elif equilibrium.deal != deal:
            raise ValueError("the equilibrium given is another deal's")
        return cls(deal, equilibrium, DealTables.build(deal), engine, options, stop_event)

    def solve(self, K: int, previous: SparseEquilibrium | None = None, time_limit: float | None = SOLVE_TIME_LIMIT,
              progress: Callable[[SparseRecord], None] | None = None) -> SparseEquilibrium:
        """The least exploitable mix of at most ``K`` arrangements found, from ``previous`` (an
        answer for a smaller K, kept unless beaten) in at most ``time_limit`` seconds."""
        K = check_max_support(K)
        start = time.perf_counter()
        eq = self.eq
        if K >= len(eq.mix):
            return SparseEquilibrium(
                deal=self.deal, max_support=K, mix=eq.mix, exploitability=eq.exploitability, proven=eq.proven,
                lower_bound=0.0, optimal=eq.exploitability <= 1e-6, method="equilibrium",
                equilibrium_exploitability=eq.exploitability, equilibrium_support=len(eq.mix), epsilon=eq.epsilon,
                best_responses=0, seconds=0.0, interrupted=eq.interrupted)
        initial = None if previous is None else previous.certified_mix(self.tables)
        self.search.progress = progress
        result: SparseMixResult[Strategy] = self.search.solve(K, initial=initial, time_limit=time_limit)
        return SparseEquilibrium(
            deal=self.deal, max_support=K, mix=_mix_of(self.tables, result.support, result.probabilities),
            exploitability=result.exploitability, proven=result.proven, lower_bound=result.lower_bound,
            optimal=result.optimal, method=result.method, equilibrium_exploitability=eq.exploitability,
            equilibrium_support=len(eq.mix), epsilon=eq.epsilon, best_responses=result.best_responses,
            seconds=time.perf_counter() - start, interrupted=result.interrupted, history=tuple(result.history))


def sparse_equilibrium(
    deal: Deal,
    max_support: int,
    *,
    epsilon: float = SOLVE_EPSILON,
    time_limit: float | None = SOLVE_TIME_LIMIT,
    store: SolutionStore | None = None,
    stop_event: threading.Event | None = None,
    engine: EngineOptions = DEFAULT_ENGINE,
    equilibrium: EquilibriumResult | None = None,
    progress: Callable[[SparseRecord], None] | None = None,
    options: SparseMixOptions = DEFAULT_OPTIONS,
) -> SparseEquilibrium:
    """The least exploitable mix of at most ``max_support`` arrangements found (module doc).

    The deal's equilibrium to ``epsilon`` (or ``equilibrium``, already solved) seeds the search;
    ``time_limit`` seconds cover both (the search gets what the equilibrium leaves, at least a
    tenth); ``engine`` is the exact best response that certifies; ``progress`` receives each
    certification (``SparseRecord``)."""
    K = check_max_support(max_support)
    start = time.perf_counter()
    state = DealSparseSearch.for_deal(deal, epsilon=epsilon, time_limit=time_limit, store=store,
                                      stop_event=stop_event, engine=engine, options=options,
                                      equilibrium=equilibrium)
    left = None if time_limit is None else max(0.1 * time_limit, time_limit - (time.perf_counter() - start))
    result = state.solve(K, None, left, progress)
    return _with_seconds(result, time.perf_counter() - start)


def sparse_frontier(
    deal: Deal,
    max_supports: Sequence[int],
    *,
    epsilon: float = SOLVE_EPSILON,
    time_limit: float | None = SOLVE_TIME_LIMIT,
    store: SolutionStore | None = None,
    stop_event: threading.Event | None = None,
    engine: EngineOptions = DEFAULT_ENGINE,
    equilibrium: EquilibriumResult | None = None,
    options: SparseMixOptions = DEFAULT_OPTIONS,
) -> list[SparseEquilibrium]:
    """``sparse_equilibrium`` for each K of ``max_supports``, in increasing order, one search
    state shared: each K starts from the previous answer and keeps it unless it finds a better
    one, so the certified exploitability never rises with K.  ``time_limit`` is per K."""
    ks = sorted({check_max_support(k) for k in max_supports})
    state = DealSparseSearch.for_deal(deal, epsilon=epsilon, time_limit=time_limit, store=store,
                                      stop_event=stop_event, engine=engine, options=options,
                                      equilibrium=equilibrium)
    out: list[SparseEquilibrium] = []
    previous = None
    for K in ks:
        previous = state.solve(K, previous, time_limit, None)
        out.append(previous)
    return out


def _with_seconds(result: SparseEquilibrium, seconds: float) -> SparseEquilibrium:
    from dataclasses import replace

    return replace(result, seconds=seconds)
