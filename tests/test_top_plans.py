"""The best arrangements of the N best plans (``--top N``): the search with plans banned
(``solve_search``'s ``banned``) against brute force, and the answer through the advisor, the
request, ``quintet-solve`` and its JSON.

A plan is the hand category of each slot.  The k-th answer is the best arrangement whose plan
is none of the k − 1 before it, so its value is the k-th largest of the plans' best values —
which brute force computes directly on reduced instances (two or three slots fixed), from
every ordered split of the free cards.
"""

from __future__ import annotations

import json
import threading

import brute
import numpy as np
import pytest
from deals import EXAMPLE
from programs import run_main

from quintet.evaluator import hand_keys
from quintet.game import Deal
from solver.advisor.advice import best_response, complete, grade
from solver.advisor.request import RequestError, SolveRequest
from solver.apps.solve_cli import main as solve_main
from solver.engines.base import HintError
from solver.engines.search import NoArrangementError, SearchOptions, class_categories, solve_search
from solver.problem.best_response import VALUE_TOLERANCE, BestResponseProblem, slot_values
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import ArrangementMix, Greedy, Mixture, Uniform

AGREE = 4 * VALUE_TOLERANCE
ARR_A = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"


def reduced(seed: int, n_fixed: int, objective: str = "margin") -> BestResponseProblem:
    """A random deal against a mixture of uniform, greedy and a few random arrangements, with
    ``n_fixed`` slots fixed to packets of a random arrangement."""
    rng = np.random.default_rng(seed)
    deal = brute.random_deal(rng)
    tables = DealTables.build(deal)
    population = ArrangementMix(tuple(brute.random_arrangement(rng, deal) for _ in range(3)), (0.5, 0.3, 0.2))
    model = Mixture((Uniform(), Greedy(), population), (0.4, 0.3, 0.3))
    values = slot_values(model.marginals(tables), tables.rules.weights, objective)
    arrangement = tuple(tables.index_of(m) for m in brute.random_arrangement(rng, deal).packets)
    fixed_slots = {int(s) for s in rng.choice(5, n_fixed, replace=False)}
    fixed = tuple(p if s in fixed_slots else -1 for s, p in enumerate(arrangement))
    return BestResponseProblem(tables, values, fixed)


def brute_plan_values(problem: BestResponseProblem) -> list[float]:
    """Every plan's best value, largest first: each ordered split of the free cards (at most
    three free slots) valued and its plan read from the evaluator's categories, one hand at a time."""
    tables = problem.tables
    deal = tables.deal
    fixed = [None if p < 0 else int(tables.masks[p]) for p in problem.fixed]
    used = sum(m for m in fixed if m is not None)
    free = [s for s, m in enumerate(fixed) if m is None]
    splits = brute.ordered_splits(brute.cards_of_mask(deal.live & ~used), len(free))
    order = np.argsort(tables.masks)
    sorted_masks = tables.masks[order].astype(np.int64)
    total = np.zeros(splits.shape[0])
    plan = np.zeros((splits.shape[0], problem.n_slots), dtype=np.int64)
    for s in range(problem.n_slots):
        masks = np.full(splits.shape[0], fixed[s], dtype=np.int64) if fixed[s] is not None else splits[:, free.index(s)]
        index = order[np.searchsorted(sorted_masks, masks)]
        total += problem.values[tables.classes[index], s]
        plan[:, s] = hand_keys(masks.astype(np.uint64), deal.rules)[1]
    best: dict[tuple[int, ...], float] = {}
    for row, value in zip(map(tuple, plan.tolist()), total.tolist(), strict=True):
        if value > best.get(row, -np.inf):
            best[row] = value
    return sorted(best.values(), reverse=True)


SHIPPED = SearchOptions()


def search_top(problem: BestResponseProblem, n: int, options: SearchOptions = SHIPPED):
    """The search's first n plans: (value, plan, result) each, banning the plans found before."""
    cat = class_categories(problem.tables)
    found, banned = [], []
    for _ in range(n):
        try:
            result = solve_search(problem, banned=tuple(banned), options=options)
        except NoArrangementError:
            break
        plan = tuple(int(cat[problem.tables.classes[p]]) for p in result.packets)
        assert plan not in banned
        assert result.optimal and result.value == problem.value_of(result.packets)
        assert all(f < 0 or f == p for f, p in zip(problem.fixed, result.packets, strict=True))
        assert brute.is_legal([int(problem.tables.masks[p]) for p in result.packets], problem.tables.deal)
        found.append((result.value, plan, result))
        banned.append(plan)
    return found


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("objective", ["margin", "points"])
def test_each_next_plan_is_brute_forces_next_best_plan(seed, objective):
    """Three free slots: the k-th plan's value is brute force's k-th best plan value."""
    problem = reduced(seed, 2, objective)
    expected = brute_plan_values(problem)[:6]
    got = [value for value, _, _ in search_top(problem, 6)]
    assert len(got) == len(expected)
    assert got == pytest.approx(expected, abs=AGREE)
    assert all(a >= b - AGREE for a, b in zip(got, got[1:], strict=False))  # non-increasing


@pytest.mark.parametrize("seed", range(3))
def test_two_free_slots_and_every_plan_listed(seed):
    """Two free slots (the root is a leaf): all plans of the deal, in brute force's order, then none left."""
    problem = reduced(100 + seed, 3)
    expected = brute_plan_values(problem)
    got = search_top(problem, len(expected) + 2)
    assert [v for v, _, _ in got] == pytest.approx(expected, abs=AGREE)
    with pytest.raises(NoArrangementError):
        solve_search(problem, banned=tuple(plan for _, plan, _ in got))


def test_one_free_slot_has_one_plan():
    problem = reduced(7, 4)
    (only,) = search_top(problem, 3)
    assert only[0] == pytest.approx(brute_plan_values(problem)[0], abs=AGREE)


@pytest.mark.parametrize("seed", range(2))
def test_full_deal_rules_agree_with_plans_banned(seed):
    """At full size (no brute force): the shipped search and the plain rules 1–3 give the same
    plan values with plans banned, non-increasing, the plans distinct."""
    rng = np.random.default_rng(50 + seed)
    deal = brute.random_deal(rng)
    tables = DealTables.build(deal)
    values = slot_values(Mixture((Uniform(), Greedy()), (0.7, 0.3)).marginals(tables), tables.rules.weights, "margin")
    problem = BestResponseProblem(tables, values, (-1,) * 5)
    shipped = search_top(problem, 4)
    other = search_top(problem, 4, SearchOptions(packing_bounds=False, card_prices=False, card_exchanges=False))
    assert [v for v, _, _ in shipped] == pytest.approx([v for v, _, _ in other], abs=AGREE)
    assert len({plan for _, plan, _ in shipped}) == 4
    assert shipped[0][0] == pytest.approx(solve_search(problem).value, abs=AGREE)


def test_a_banned_hint_is_the_programs_fault():
    problem = reduced(3, 2)
    (value, plan, result), = search_top(problem, 1)
    with pytest.raises(HintError, match="banned"):
        solve_search(problem, hint=result.packets, banned=(plan,))


def test_a_stopped_search_with_plans_banned_says_best_found_and_its_bound():
    problem = BestResponseProblem(DealTables.build(Deal.from_exposed(EXAMPLE)),
                                  slot_values(Uniform().marginals(DealTables.build(Deal.from_exposed(EXAMPLE))),
                                              (3, 4, 5, 6, 7), "margin"), (-1,) * 5)
    first = solve_search(problem)
    cat = class_categories(problem.tables)
    plan = tuple(int(cat[problem.tables.classes[p]]) for p in first.packets)
    stop = threading.Event()
    stop.set()
    stopped = solve_search(problem, banned=(plan,), stop_event=stop, budget=1)
    proven = solve_search(problem, banned=(plan,))
    assert tuple(int(cat[problem.tables.classes[p]]) for p in stopped.packets) != plan
    assert stopped.bound >= proven.value - VALUE_TOLERANCE and stopped.value <= proven.value + VALUE_TOLERANCE
    assert stopped.optimal == (stopped.bound - stopped.value <= VALUE_TOLERANCE)


# ---------------------------------------------------------------------------- the advisor and the request


def test_best_response_top_three_lists_two_other_plans():
    deal = Deal.from_exposed(EXAMPLE)
    one = best_response(deal, "uniform")
    three = complete(deal, {}, "uniform", top=3)
    assert one.alternatives is None and three.arrangement == one.arrangement
    assert three.alternatives is not None and len(three.alternatives) == 2
    plans = [three.plan, *(a.plan for a in three.alternatives)]
    assert len(set(plans)) == 3
    values = [three.value, *(a.value for a in three.alternatives)]
    assert values == sorted(values, reverse=True)
    model = three.to_model().alternatives
    assert model is not None and [a.rank for a in model] == [2, 3]
    assert model[0].cost == pytest.approx(three.value - three.alternatives[0].value)
    assert model[0].plan == list(three.alternatives[0].plan) and all(a.optimal for a in model)


def test_a_grade_lists_the_best_of_other_plans_beside_the_given():
    g = grade(Deal.from_exposed(EXAMPLE), ARR_A, "greedy", top=3)
    assert g.best.alternatives is not None and len(g.best.alternatives) == 2
    assert g.given.alternatives is None
    assert "alternatives" in g.to_dict()["best"] and "alternatives" not in g.to_dict()["given"]


@pytest.mark.parametrize(("given", "words"), [
    ({"top": 3}, "top applies to a best response"),
    ({"top": 2, "opponent": "uniform", "engine": "cpsat"}, "top above 1 needs the search engine"),
    ({"top": 0, "opponent": "uniform"}, "top must be an integer from 1 to 10, got 0"),
    ({"top": 2.5, "opponent": "uniform"}, "top must be an integer"),
])
def test_a_bad_top_is_refused_in_one_line(given, words):
    with pytest.raises(RequestError if "applies" in words or "engine" in words else Exception) as info:
        SolveRequest.parse(EXAMPLE, **given)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_cli_top_prints_the_plans_and_json_holds_them():
    text = run_main(solve_main, [EXAMPLE, "--opponent", "uniform", "--top", "3"])
    assert text.returncode == 0, text.stderr
    assert "Plans (hand category per slot), best first: 3 plans:" in text.stdout
    assert "  2. +24.8633 (-0.0036)  full house | full house | full house | full house | straight flush" in text.stdout
    data = json.loads(run_main(solve_main, [EXAMPLE, "--opponent", "uniform", "--top", "3", "--json"]).stdout)
    assert [a["rank"] for a in data["alternatives"]] == [2, 3]
    assert data["alternatives"][0]["value"] <= data["expected_margin"]


def test_cli_top_one_is_todays_output():
    plain = run_main(solve_main, [EXAMPLE, "--opponent", "uniform", "--json"])
    one = run_main(solve_main, [EXAMPLE, "--opponent", "uniform", "--top", "1", "--json"])
    strip = [json.loads(p.stdout) for p in (plain, one)]
    for d in strip:
        d.pop("seconds")
    assert strip[0] == strip[1] and "alternatives" not in strip[0]


@pytest.mark.parametrize(("top", "words"), [("0", "top must be an integer from 1 to 10, got 0"),
                                             ("11", "top must be an integer from 1 to 10, got 11"),
                                             ("two", "top")])
def test_cli_bad_top_exits_2_with_one_line(top, words):
    ran = run_main(solve_main, [EXAMPLE, "--opponent", "uniform", "--top", top])
    assert ran.returncode == 2 and ran.stdout == ""
    assert words in ran.stderr and len(ran.stderr.strip().splitlines()) == 1
