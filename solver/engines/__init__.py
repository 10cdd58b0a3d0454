"""Exact best-response engines (the search, CP-SAT) and the local search.

The built-in engines are registered here (``solver.engines.base.register_engine``); the
engines' modules import ``base``, never this registration.  CP-SAT's module is loaded when it
first solves: OR-Tools and its kernels take about 0.6 s to import, which a command that never
asks for CP-SAT does not pay.
"""

from __future__ import annotations

import threading

from ..problem.best_response import BestResponseProblem, EngineResult
from .base import EngineOptions, register_engine
from .search import solve_search


class SearchEngine:
    """The exact branch and bound (``solver.engines.search``)."""

    name = "search"

    def solve(self, problem: BestResponseProblem, options: EngineOptions, hint: tuple[int, ...] | None = None,
              stop: threading.Event | None = None) -> EngineResult:
        return solve_search(problem, time_limit=options.time_limit, hint=hint, stop_event=stop)


class CpsatEngine:
    """OR-Tools CP-SAT (``solver.engines.cpsat``)."""

    name = "cpsat"

    def solve(self, problem: BestResponseProblem, options: EngineOptions, hint: tuple[int, ...] | None = None,
              stop: threading.Event | None = None) -> EngineResult:
        from .cpsat import solve_cpsat

        return solve_cpsat(problem, time_limit=options.time_limit, workers=options.threads, hint=hint,
                           seed=options.seed, stop_event=stop)


register_engine(SearchEngine())
register_engine(CpsatEngine())
