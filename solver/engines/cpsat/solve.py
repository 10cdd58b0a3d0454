"""Steps 2 and 3 of ``solve_cpsat``: solve the built model (restarting around a better
arrangement) and extract the answer with its sound bound (``solver.engines.cpsat``)."""

from __future__ import annotations

import threading
import time

import numpy as np
from ortools.sat.python import cp_model

from solver.engines.base import arrangement_fault, check_hint
from solver.problem.best_response import VALUE_TOLERANCE, BestResponseProblem, EngineResult

from .hints import Lookup, free_mask, free_slots
from .model import BuildStopped, CpsatModel, build_model
from .options import DEFAULT_OPTIONS, FLOAT_SLACK, IMPROVE_EPS, SCALE, CpsatOptions

__all__ = ["solve_cpsat", "CPSAT_PARAMS"]

RESTART_SLICE = 1.0  # seconds of CP-SAT before an improved solution restarts the build
MAX_REBUILDS = 20  # restarts with a better hint (each re-prunes with a higher T)
# Extra CP-SAT parameters.  Presolve off: on the pruned models its probing and clique
# merging cost seconds (13 s of a 20 s budget on a 25k-variable model) for no gain.
# No SIGINT handler: CP-SAT's own one, left behind after every solve, resets SIGINT to the
# system default, so the program's next Ctrl-C would kill it outright (no clean stop, no
# "interrupted"), and a worker process that ignores Ctrl-C would die of it.  Stops come
# through ``stop_event`` instead.
CPSAT_PARAMS: dict[str, object] = {"cp_model_presolve": False, "catch_sigint_signal": False}


def solve_cpsat(problem: BestResponseProblem, *, time_limit: float | None = None, workers: int = 1,
                hint: tuple[int, ...] | None = None, seed: int = 0,
                stop_event: threading.Event | None = None, options: CpsatOptions = DEFAULT_OPTIONS) -> EngineResult:
    """Best response by CP-SAT (the module doc has the model and every soundness argument).

    * ``time_limit`` — seconds for the whole call (model building included: pruning stops
      early when half of it is spent; CP-SAT gets what is left, at least 1 ms); ``None`` (the
      default, as for every engine: ``solver.engines.base``) for no limit.
    * ``workers`` — CP-SAT ``num_workers``; ``seed`` — ``random_seed``.
    * ``hint`` — a legal arrangement (packet indices in slot order; else ``HintError``) or
      ``None`` for ``greedy_hint``; either way improved by local search first (unless switched off).
    * ``stop_event`` — when set (e.g. by Ctrl-C handling) the search stops and the best
      arrangement found so far is returned with its sound bound.
    * ``options`` — the model's strengthenings (``CpsatOptions``); tests compare the default
      model against the plain one.

    Returns ``EngineResult(packets, value=problem.value_of(packets), bound ≥ value (a proven
    upper bound on the optimum), optimal, seconds, "cpsat", stats)``; ``stats`` has
    ``variables``, ``pruned_pairs``, ``status`` (CP-SAT's status name; ``NOT_RUN`` when
    stopped before solving, ``TRIVIAL`` when at most one slot is free) and more.
    """
    t0 = time.perf_counter()
    free = free_slots(problem)
    hint = check_hint(problem, hint)
    if len(free) <= 1:
        return _solve_forced(problem, free, t0)

    best: list[tuple[int, ...]] = [hint] if hint is not None else []
    bound = np.inf
    optimal_status = False
    status_name = "NOT_RUN"
    cur_hint = hint
    built: CpsatModel | None = None
    rebuilds = 0
    final = False

    def remaining() -> float:
        return np.inf if time_limit is None else t0 + float(time_limit) - time.perf_counter()

    while True:
        if built is None or not final:
            # 1. build (pruning may use half of the time left)
            deadline = time.perf_counter() + 0.5 * remaining()
            new, legal, bound0, stats = _build_round(problem, cur_hint, options, deadline, stop_event)
            best.append(legal)
            bound = min(bound, bound0 + FLOAT_SLACK)
            if new is None:  # stopped: as if CP-SAT did not run
                break
            built = new
        if stop_event is not None and stop_event.is_set():
            break
        # 2. solve: a short slice first; an improvement restarts with a stronger pruning
        final = final or rebuilds >= MAX_REBUILDS
        slice_s = remaining() if final else min(RESTART_SLICE, remaining())
        max_time = max(slice_s, 1e-3) if np.isfinite(slice_s) else None
        status, status_name, found, cp_bound = _solve_once(
            built, problem, max_time, workers, seed, stop_event, options.linearization_level)
        # 3. extract
        bound = min(bound, cp_bound)
        if found is not None:
            best.append(found)
        if status == cp_model.OPTIMAL:
            optimal_status = True
            break
        if remaining() <= 0 or (stop_event is not None and stop_event.is_set()) or final:
            break
        if found is not None and problem.value_of(found) > built.hint_value + VALUE_TOLERANCE:
            cur_hint = found
            rebuilds += 1
        else:
            final = True
            if found is not None:  # resume from the best solution of this same model
                _set_hint(built, found)

    stats = {**stats, "status": status_name, "chains": 0 if built is None else len(built.chains),
             "rebuilds": rebuilds}
    return _best_result(problem, best, bound, optimal_status, stats, t0)


def _solve_forced(problem: BestResponseProblem, free: list[int], t0: float) -> EngineResult:
    """At most one free slot: the leftover cards fill it (CP-SAT is not run); optimal, bound = value.
    ``t0``: the call's ``time.perf_counter()`` start."""
    packets_l = [int(p) for p in problem.fixed]
    if free:
        packets_l[free[0]] = int(Lookup(problem.tables.masks)(free_mask(problem))[0])
    packets_t = tuple(packets_l)
    value = problem.value_of(packets_t)
    trivial: dict[str, object] = {"variables": 0, "pruned_pairs": 0, "status": "TRIVIAL"}
    return EngineResult(packets_t, value, value, True, time.perf_counter() - t0, "cpsat", trivial)


def _build_round(problem: BestResponseProblem, hint: tuple[int, ...] | None, options: CpsatOptions,
                 deadline: float, stop_event: threading.Event | None
                 ) -> tuple[CpsatModel | None, tuple[int, ...], float, dict[str, object]]:
    """1. build: ``build_model`` (``deadline`` a ``time.perf_counter()`` value).  Returns (the
    model — None when stopped —, its legal hint, the pruning bound ``bound0`` in real units,
    a copy of the stats)."""
    try:
        built = build_model(problem, hint, options=options, deadline=deadline, stop_event=stop_event)
    except BuildStopped as stopped:  # the hint and the pruning bound stand
        return None, stopped.hint, stopped.bound0, dict(stopped.stats)
    return built, built.hint, built.bound0, dict(built.stats)


def _best_result(problem: BestResponseProblem, best: list[tuple[int, ...]], bound: float, optimal_status: bool,
                 stats: dict[str, object], t0: float) -> EngineResult:
    """3. extract: the best arrangement seen, its value, the bound (never below the value, real
    units) and ``optimal`` (CP-SAT's OPTIMAL with bound − value ≤ ``VALUE_TOLERANCE``)."""
    packets = max(best, key=problem.value_of)
    value = problem.value_of(packets)
    bound = max(value, bound)
    optimal = optimal_status and bound - value <= VALUE_TOLERANCE
    return EngineResult(packets, value, bound, optimal, time.perf_counter() - t0, "cpsat", stats)


def _set_hint(built: CpsatModel, packets: tuple[int, ...]) -> None:
    """Replace the model's hint by ``packets`` (a solution of this model)."""
    built.model.clear_hints()
    chosen = {(int(packets[s]), s) for s in built.free_slots}
    for k, (p, s) in enumerate(zip(built.pair_packet.tolist(), built.pair_slot.tolist(), strict=True)):
        built.model.add_hint(built.x[k], 1 if (p, s) in chosen else 0)


def _solve_once(built: CpsatModel, problem: BestResponseProblem, max_time: float | None, workers: int,
                seed: int, stop_event: threading.Event | None, linearization_level: int | None
                ) -> tuple[object, str, tuple[int, ...] | None, float]:
    """Solve the built model once.  Returns (status, status name, best arrangement found or
    None, bound in real units — inf when CP-SAT gave none)."""
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = max(1, int(workers))
    params.random_seed = int(seed)
    params.log_search_progress = False
    for _k, _v in CPSAT_PARAMS.items():
        setattr(params, _k, _v)
    if linearization_level is not None:
        params.linearization_level = int(linearization_level)
    if max_time is not None:
        params.max_time_in_seconds = float(max_time)

    done = threading.Event()
    watcher = None
    if stop_event is not None:
        def _watch() -> None:
            while not done.is_set():
                if stop_event.wait(0.02):
                    # repeat: a StopSearch issued just before Solve starts could be lost
                    while not done.wait(0.01):
                        solver.stop_search()
                    return

        watcher = threading.Thread(target=_watch, name="cpsat-stop-watcher", daemon=True)
        watcher.start()
    try:
        status = solver.solve(built.model)
    finally:
        done.set()
        if watcher is not None:
            watcher.join()
    name = solver.status_name(status)
    if status in (cp_model.MODEL_INVALID, cp_model.INFEASIBLE):
        # the canonical hint satisfies every constraint: this is a bug, not an answer
        raise RuntimeError(f"CP-SAT returned {name} on a model its hint satisfies")
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return status, name, None, np.inf  # UNKNOWN: CP-SAT reports a meaningless bound 0
    chosen = [int(p) for p in problem.fixed]
    for k in np.flatnonzero(np.array(solver.boolean_values(built.x), dtype=bool)).tolist():
        chosen[int(built.pair_slot[k])] = int(built.pair_packet[k])
    found = tuple(chosen)
    fault = arrangement_fault(problem, found)
    if fault is not None:  # the model's constraints make every solution legal: a bug, not an answer
        raise RuntimeError(f"CP-SAT solution: {fault}")
    # OPT ≤ max(T + ε, fixed + B/K + E⁺)  (module doc)
    b = float(solver.best_objective_bound)
    cp_bound = np.inf
    if np.isfinite(b):
        cp_bound = max(built.prune_T + IMPROVE_EPS, built.fixed_value + b / SCALE + built.err_max) + FLOAT_SLACK
    return status, name, found, cp_bound
