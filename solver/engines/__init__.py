"""Exact best-response engines (the search, CP-SAT) and the local search.

The built-in engines are registered here (``solver.engines.base.register_engine``); each loads
its module when it first solves (CP-SAT's OR-Tools takes a third of a second to import), and
the engines' modules import ``base``, never this registration.
"""

from __future__ import annotations

import threading

from ..problem.best_response import BestResponseProblem, EngineResult
from .base import EngineOptions, register_engine


class SearchEngine:
    """The exact branch and bound (``solver.engines.search``)."""

    name = "search"

    def solve(self, problem: BestResponseProblem, options: EngineOptions, hint: tuple[int, ...] | None = None,
              stop: threading.Event | None = None) -> EngineResult:
        from .search import solve_search

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
