"""Safe exploitation of a Quintet deal: the restricted Nash response to an opponent model.

``safe_response(deal, model, D)`` returns the mix that does best against ``model`` among the
mixes no arrangement beats by more than D points, certified: the algorithm is
``solver.games.restricted_nash`` over ``solver.games.quintet_game.QuintetModelGame``,
started from the deal's exact equilibrium.  D = 0 gives the equilibrium that does best
against the model; a D at least the best response's own exploitability gives the best
response.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from quintet.game import Arrangement, Deal
from quintet.jsonable import Jsonable
from solver.advisor.equilibrium import EquilibriumResult, sample_mix, solve_equilibrium
from solver.engines.base import DEFAULT_ENGINE, EngineOptions
from solver.games.quintet_game import QuintetModelGame
from solver.games.restricted_nash import RnrIterationRecord, restricted_nash_response
from solver.problem.best_response import VALUE_TOLERANCE
from solver.problem.deal_tables import DealTables
from solver.problem.opponent_spec import parse_opponent
from solver.problem.opponents import ArrangementMix, OpponentModel
from solver.storage.store import SolutionStore

from .limits import SOLVE_TIME_LIMIT, check_max_exploitability
from .mix import Mix, answer_fields

if TYPE_CHECKING:
    from .schema import SafeOut

__all__ = ["SafeResponse", "safe_response"]


@dataclass(frozen=True)
class SafeResponse(Jsonable):
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

    def to_model(self, seed: int = 0) -> SafeOut:
        """The JSON, with the arrangement drawn from the mix (``seed``) to play."""
        from .schema import SafeOut, model_of
        mix = Mix(self.mix, self.deal.rules)
        return model_of(SafeOut, self, **answer_fields(self.deal, mix.sample(seed)), objective="margin",
                        mix=mix.to_model())


def safe_response(
    deal: Deal,
    opponent: OpponentModel | str,
    max_exploitability: float,
    *,
    time_limit: float | None = SOLVE_TIME_LIMIT,
    stop_event: threading.Event | None = None,
    store: SolutionStore | None = None,
    progress: Callable[[RnrIterationRecord], None] | None = None,
    engine: EngineOptions = DEFAULT_ENGINE,
) -> SafeResponse:
    """The mix that does best against ``opponent`` among those no arrangement beats by more
    than ``max_exploitability`` points (module doc).  The search starts from the deal's exact
    equilibrium (through ``store`` when given); ``engine`` is the exact best response."""
    check_max_exploitability(max_exploitability)
    start = time.perf_counter()
    tables = DealTables.build(deal)
    model = parse_opponent(opponent, deal) if isinstance(opponent, str) else opponent
    eq: EquilibriumResult = solve_equilibrium(deal, epsilon=0.0, time_limit=time_limit, store=store,
                                              stop_event=stop_event, engine=engine)
    game = QuintetModelGame(tables, model.marginals(tables), engine)
    eq_support = [tuple(tables.index_of(m) for m in a.packets) for _, a in eq.mix]
    eq_probs = np.array([p for p, _ in eq.mix])
    eq_margin = float(game.model_payoffs(eq_support) @ eq_probs)
    br_margin = game.best_response([], np.zeros(0), model_weight=1.0, time_limit=time_limit,
                                   stop_event=stop_event).value
    limit = max_exploitability if eq.exploitability <= max_exploitability + VALUE_TOLERANCE else eq.exploitability
    remaining = None if time_limit is None else max(1.0, time_limit - (time.perf_counter() - start))
    result = restricted_nash_response(game, eq_support, eq_probs, eq.exploitability, max_exploitability=limit,
                                      tolerance=VALUE_TOLERANCE, time_limit=remaining, stop_event=stop_event,
                                      progress=progress)
    order = np.argsort(-result.probabilities, kind="stable")
    mix = tuple((float(result.probabilities[i]), tables.arrangement_of(result.support[i])) for i in order)
    return SafeResponse(
        deal=deal, opponent=model.name, max_exploitability=max_exploitability, mix=mix,
        exploitability=result.exploitability, expected_margin=result.model_margin, margin_bound=result.margin_bound,
        optimal=result.optimal, interrupted=result.interrupted, iterations=result.iterations,
        seconds=time.perf_counter() - start, equilibrium_margin=eq_margin, best_response_margin=br_margin,
    )
