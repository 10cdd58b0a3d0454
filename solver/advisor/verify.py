"""Independent rechecks of what the solver claims (``quintet-solve --verify``).

A claim is rechecked by the *other* exact engine, which shares no pruning reasoning with
the one that made it:

* a best response proven optimal (engine ``search``): CP-SAT solves the same problem, seeded
  with the claimed arrangement (a hint changes what CP-SAT must prove, not whether its proof
  holds); a CP-SAT answer is rechecked by the search;
* an equilibrium's certified exploitability — no arrangement gains more than it against the
  mix: CP-SAT computes the best response to the mix.

``status`` is ``confirmed`` when the checking engine proves that nothing beats the claim by
more than ``VERIFY_TOLERANCE``; ``refuted`` when it found an arrangement that does (the
claim is false — a bug to report); ``inconclusive`` when it ran out of time (or was
stopped) with neither, its bound then tells how far the claim is known to hold.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from quintet.game import Arrangement, Deal
from solver.advisor.advice import Solution, best_response_problem
from solver.advisor.equilibrium import EquilibriumResult
from solver.engines.base import EngineOptions, other_engine, solve
from solver.games.quintet_game import QuintetGame
from solver.problem.best_response import VALUE_TOLERANCE, BestResponseProblem
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import OpponentModel

from .limits import VERIFY_TIME_LIMIT

if TYPE_CHECKING:
    from .schema import VerificationOut

__all__ = ["VERIFY_TOLERANCE", "Verification", "recheck", "verify_solution", "verify_mix", "verify_equilibrium",
           "other_engine"]

VERIFY_TOLERANCE = 10 * VALUE_TOLERANCE
"""Points: two engines' proofs agree when they differ by at most this (both ~1e-9 exact)."""


@dataclass(frozen=True)
class Verification:
    """The outcome of rechecking a claim with another engine."""

    claim: str  # "optimum" (a best response's value) or "exploitability" (an equilibrium's)
    claimed: float  # points
    engine: str  # the checking engine
    found: float  # the best value the checking engine found (points)
    bound: float  # its proven upper bound on the true value (points)
    proven: bool  # the checking engine finished (found is the true value)
    seconds: float

    @property
    def status(self) -> str:
        if self.found > self.claimed + VERIFY_TOLERANCE:
            return "refuted"
        if self.bound <= self.claimed + VERIFY_TOLERANCE:
            return "confirmed"
        return "inconclusive"

    def describe(self) -> str:
        """One line for people."""
        what = "the optimum" if self.claim == "optimum" else "the certified exploitability"
        if self.status == "confirmed":
            return (f"Verified by {self.engine}: {what} {self.claimed:.6f} confirmed "
                    f"(independent bound {self.bound:.6f}; {self.seconds:.1f} s)")
        if self.status == "refuted":
            return (f"REFUTED by {self.engine}: {what} was claimed {self.claimed:.6f}, but an arrangement worth "
                    f"{self.found:.6f} exists — please report this deal ({self.seconds:.1f} s)")
        return (f"Verification by {self.engine} inconclusive after {self.seconds:.1f} s: it proves at most "
                f"{self.bound:.6f} (claimed {self.claimed:.6f}); nothing better than the claim found")

    def to_model(self) -> VerificationOut:
        from .schema import VerificationOut
        return VerificationOut(status=self.status, claim=self.claim, claimed=self.claimed,  # type: ignore[arg-type]
                               engine=self.engine, found=self.found, bound=self.bound, proven=self.proven,
                               seconds=self.seconds)

    def to_dict(self) -> dict[str, object]:
        from .schema import dump
        return dump(self.to_model())


def recheck(problem: BestResponseProblem, *, claim: str, claimed: float, engine: str,
            hint: tuple[int, ...] | None = None, time_limit: float | None = VERIFY_TIME_LIMIT,
            stop_event: threading.Event | None = None) -> Verification:
    """Solve ``problem`` with ``engine`` and compare with the claimed value (see module doc)."""
    start = time.perf_counter()
    result = solve(problem, EngineOptions(engine=engine, time_limit=time_limit), hint, stop_event)
    return Verification(claim, claimed, result.engine, result.value, result.bound, result.optimal,
                        time.perf_counter() - start)


def verify_solution(solution: Solution, opponent: OpponentModel | str, *,
                    fixed: Mapping[int, int | str] | None = None, time_limit: float | None = VERIFY_TIME_LIMIT,
                    stop_event: threading.Event | None = None) -> Verification:
    """Recheck a best response (or completion of ``fixed``) against the same ``opponent``.

    The claim is the solution's value when it is proven optimal, else its bound.
    """
    tables = DealTables.build(solution.deal)
    problem = best_response_problem(solution.deal, opponent, objective=solution.objective, fixed=fixed,
                                    tables=tables)
    hint = tuple(tables.index_of(m) for m in solution.arrangement.packets)
    engine = other_engine(solution.engine)
    claimed = solution.value if solution.optimal else solution.bound
    return recheck(problem, claim="optimum", claimed=claimed, engine=engine, hint=hint, time_limit=time_limit,
                   stop_event=stop_event)


def verify_mix(deal: Deal, mix: Sequence[tuple[float, Arrangement]], exploitability: float, *,
               time_limit: float | None = VERIFY_TIME_LIMIT, stop_event: threading.Event | None = None,
               certified_by: str = "search") -> Verification:
    """Recheck a mix's certified exploitability: the other engine's best response to the mix
    (CP-SAT's, unless ``certified_by`` CP-SAT)."""
    tables = DealTables.build(deal)
    game = QuintetGame(tables)
    support = [tuple(tables.index_of(m) for m in a.packets) for _, a in mix]
    problem = game.problem(support, np.asarray([p for p, _ in mix], dtype=np.float64))
    return recheck(problem, claim="exploitability", claimed=exploitability, engine=other_engine(certified_by),
                   time_limit=time_limit, stop_event=stop_event)


def verify_equilibrium(eq: EquilibriumResult, *, time_limit: float | None = VERIFY_TIME_LIMIT,
                       stop_event: threading.Event | None = None, certified_by: str = "search") -> Verification:
    """Recheck an equilibrium's certified exploitability: the other engine's best response to the mix."""
    return verify_mix(eq.deal, eq.mix, eq.exploitability, time_limit=time_limit, stop_event=stop_event,
                      certified_by=certified_by)
