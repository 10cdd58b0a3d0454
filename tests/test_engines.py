"""The engines' one contract (solver.engines.base), checked for every registered engine.

Defaults (no time limit), hints (a legal one is never lost; a bad one is the program's fault,
``HintError``, never a client's ``ValueError`` and never ignored), stops and results — each
engine of the registry against brute force (tests/brute.py) on problems with three free slots.
"""

from __future__ import annotations

import inspect
import threading

import brute
import numpy as np
import pytest

from quintet.game import Deal
from solver.engines.base import DEFAULT_ENGINE, EngineOptions, HintError, engine_names, get_engine
from solver.engines.cpsat import solve_cpsat
from solver.engines.search import solve_search
from solver.problem.best_response import VALUE_TOLERANCE, BestResponseProblem, slot_values
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import Greedy, Mixture, Uniform

ENGINES = [name for name in engine_names() if name != "auto"]
ENTRY_POINTS = {"search": solve_search, "cpsat": solve_cpsat}  # each engine's own function


def test_every_engine_has_its_entry_point_listed():
    assert set(ENTRY_POINTS) == set(ENGINES)
    assert get_engine("auto") is get_engine(DEFAULT_ENGINE)


@pytest.mark.parametrize("name", ENGINES)
def test_no_time_limit_by_default(name):
    assert EngineOptions().time_limit is None
    assert inspect.signature(ENTRY_POINTS[name]).parameters["time_limit"].default is None


def test_a_hint_error_is_the_programs_fault_not_the_clients():
    assert issubclass(HintError, RuntimeError) and not issubclass(HintError, ValueError)


def reduced(seed: int) -> tuple[Deal, BestResponseProblem, tuple[int, ...]]:
    """A deal, a problem with two slots fixed to packets of a random arrangement (three free),
    and that arrangement (packet indices)."""
    rng = np.random.default_rng(seed)
    deal = brute.random_deal(rng)
    tables = DealTables.build(deal)
    model = Mixture((Uniform(), Greedy()), (0.6, 0.4))
    values = slot_values(model.marginals(tables), tables.rules.weights, "margin")
    arrangement = tuple(tables.index_of(m) for m in brute.random_arrangement(rng, deal).packets)
    fixed_slots = sorted(int(s) for s in rng.choice(5, 2, replace=False))
    fixed = tuple(p if s in fixed_slots else -1 for s, p in enumerate(arrangement))
    return deal, BestResponseProblem(tables, values, fixed), arrangement


def brute_optimum(deal: Deal, problem: BestResponseProblem) -> float:
    masks = problem.tables.masks
    order = np.argsort(masks)
    pv = np.empty((len(masks), problem.n_slots))
    classes = problem.tables.classes[order]
    for s in range(problem.n_slots):
        pv[:, s] = problem.values[classes, s]
    fixed = [None if p < 0 else int(masks[p]) for p in problem.fixed]
    value, _ = brute.brute_best(deal, masks[order], pv, fixed)
    return value


def assert_keeps_contract(problem: BestResponseProblem, result, optimum: float, name: str) -> None:
    tables = problem.tables
    packet_masks = [int(tables.masks[p]) for p in result.packets]
    assert brute.is_legal(packet_masks, tables.deal)
    assert all(f < 0 or f == p for f, p in zip(problem.fixed, result.packets, strict=True))
    assert result.value == problem.value_of(result.packets)
    assert result.bound >= optimum - VALUE_TOLERANCE
    assert result.bound >= result.value
    assert result.optimal == (result.bound - result.value <= VALUE_TOLERANCE)
    assert result.engine == name


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("name", ENGINES)
def test_defaults_prove_the_brute_force_optimum(name, seed):
    deal, problem, _ = reduced(seed)
    result = get_engine(name).solve(problem, EngineOptions(engine=name))
    optimum = brute_optimum(deal, problem)
    assert_keeps_contract(problem, result, optimum, name)
    assert result.optimal and result.value == pytest.approx(optimum, abs=VALUE_TOLERANCE)


@pytest.mark.parametrize("name", ENGINES)
def test_a_legal_hint_is_never_lost(name):
    deal, problem, arrangement = reduced(7)
    optimum = brute_optimum(deal, problem)
    for limit in (None, 1e-6):
        result = get_engine(name).solve(problem, EngineOptions(engine=name, time_limit=limit), hint=arrangement)
        assert_keeps_contract(problem, result, optimum, name)
        assert result.value >= problem.value_of(arrangement)


def bad_hints(problem: BestResponseProblem, arrangement: tuple[int, ...]) -> dict[str, tuple[int, ...]]:
    """A hint of each fault, with a word of its message."""
    free = [s for s, p in enumerate(problem.fixed) if p < 0]
    fixed = [s for s, p in enumerate(problem.fixed) if p >= 0]
    overlap = list(arrangement)
    overlap[free[0]] = overlap[free[1]]
    swapped = list(arrangement)  # a legal arrangement that moves a fixed packet
    swapped[fixed[0]], swapped[free[0]] = swapped[free[0]], swapped[fixed[0]]
    return {
        "packets instead of": arrangement[:4],
        "not a packet index": (*arrangement[:4], len(problem.tables.masks)),
        "overlap": tuple(overlap),
        "is fixed to packet": tuple(swapped),
    }


@pytest.mark.parametrize("name", ENGINES)
def test_a_bad_hint_raises_hint_error(name):
    _, problem, arrangement = reduced(11)
    for words, hint in bad_hints(problem, arrangement).items():
        with pytest.raises(HintError, match=words):
            get_engine(name).solve(problem, EngineOptions(engine=name), hint=hint)
        with pytest.raises(HintError, match=words):
            ENTRY_POINTS[name](problem, hint=hint)


@pytest.mark.parametrize("name", ENGINES)
def test_a_stop_before_the_start_returns_the_hint_or_better_with_a_sound_bound(name):
    deal, problem, arrangement = reduced(13)
    optimum = brute_optimum(deal, problem)
    stop = threading.Event()
    stop.set()
    result = get_engine(name).solve(problem, EngineOptions(engine=name), hint=arrangement, stop=stop)
    assert_keeps_contract(problem, result, optimum, name)
    assert result.value >= problem.value_of(arrangement)
    result = get_engine(name).solve(problem, EngineOptions(engine=name), stop=stop)  # no hint
    assert_keeps_contract(problem, result, optimum, name)
