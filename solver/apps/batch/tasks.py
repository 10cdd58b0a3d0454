"""One batch job as a worker runs it: solve a canonical deal's equilibrium, send back plain data.

Runs in a worker process (local pool or Dask) or in the batch process itself; never
touches the store.
"""

from __future__ import annotations

import math
import os
import socket
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from quintet.game import Arrangement, Deal
from quintet.rules import Rules
from solver.advisor.equilibrium import equilibrium

__all__ = ["JobResult", "solve_job", "warm_up_quietly"]


@dataclass
class JobResult:
    """What a worker sends back for one canonical deal (plain data: pickles anywhere)."""

    canonical: int
    record: dict[str, Any] | None = None  # the store document (EquilibriumResult.to_record)
    exploitability: float = math.inf  # certified, points
    converged: bool = False
    iterations: int = 0
    support: int = 0
    seconds: float = 0.0  # wall time of the solve in the worker
    cpu_seconds: float = 0.0  # CPU time of the worker process during the solve
    worker: str = ""  # host:pid
    error: str | None = None


_WARMED: set[str] = set()
_WARM_UP_DEAL = "As Ks Qs Js Ts Ah Kh"  # solves in well under a second


def _warm_up(rules: Rules) -> None:
    """Load the compiled kernels once per worker process, before any job is timed."""
    if rules.name in _WARMED or rules.is_variant:
        return
    equilibrium(Deal.from_exposed(_WARM_UP_DEAL, rules), epsilon=1.0, time_limit=30)
    _WARMED.add(rules.name)


def warm_up_quietly(rules: Rules, hold: float = 0.0) -> None:
    """Warm the kernels up (errors ignored: the jobs report real ones), then hold the worker
    ``hold`` seconds (so that a pool's warm-ups land on different workers)."""
    try:
        _warm_up(rules)
    except Exception:  # noqa: BLE001, S110 — only a warm-up; the jobs report real errors
        pass
    time.sleep(hold)


def solve_job(canonical: int, rules: Rules, epsilon: float, time_limit: float | None,
              warm_start: Sequence[Arrangement] = ()) -> JobResult:
    """Solve one canonical deal; ``warm_start``: arrangements (a stored mix) to start from.

    Never raises: an error is returned in ``JobResult.error``.
    """
    worker = f"{socket.gethostname()}:{os.getpid()}"
    warm_up_quietly(rules)  # once per process; not part of the job's times
    cpu0, wall0 = time.process_time(), time.perf_counter()
    try:
        deal = Deal(int(canonical), rules)
        result = equilibrium(deal, epsilon=epsilon, time_limit=time_limit, initial=warm_start)
        return JobResult(
            canonical=int(canonical), record=result.to_record(), exploitability=result.exploitability,
            converged=result.converged, iterations=result.iterations, support=len(result.mix),
            seconds=time.perf_counter() - wall0, cpu_seconds=time.process_time() - cpu0, worker=worker,
        )
    except Exception as exc:  # noqa: BLE001 — reported per deal, the batch goes on
        return JobResult(canonical=int(canonical), seconds=time.perf_counter() - wall0,
                         cpu_seconds=time.process_time() - cpu0, worker=worker,
                         error=f"{type(exc).__name__}: {exc}")
