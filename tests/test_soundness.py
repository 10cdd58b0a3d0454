"""Soundness of the exact best response at full size (docs/proofs.md).

The search once returned 0.0445 as "proven optimal" against the 97-arrangement mix in
``tests/data/example-deal-eps005-mix.json`` (an equilibrium at ε = 0.05 of the rules'
example deal) where the arrangement ``WITNESS`` — found by CP-SAT and checked by an
independent implementation — gains 0.1715: rule 6 (card prices) pruned candidates of
levels set up before the prices existed.  These tests pin that case and compare the search
with subsets of its rules, CP-SAT and brute force (``tests/differential.py``).
"""

from __future__ import annotations

import itertools
from pathlib import Path

import brute
import differential as diff
import numpy as np
import pytest
from deals import EXAMPLE

from quintet.game import Arrangement, Deal
from solver.engines.search import PLAIN, SearchOptions, solve_search
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import load_population

DATA = Path(__file__).resolve().parent / "data"
WITNESS = "Ks Kc Qs Js Tc | As Ac 9s 9h 9c | 8s 8d 8c 7d 7c | Ah Kh Qh Jh Th | Ad Kd Qd Jd Td"
TOL = diff.AGREE


@pytest.fixture(scope="module")
def example_case():
    deal = Deal.from_exposed(EXAMPLE)
    tables = DealTables.build(deal)
    mix = load_population(DATA / "example-deal-eps005-mix.json", deal)
    problem = diff.make_problem(tables, mix, "margin")
    opponent = list(zip(mix.arrangements, np.asarray(mix.probabilities) / sum(mix.probabilities), strict=True))
    return deal, tables, problem, opponent


def test_the_witness_beats_what_was_once_proven(example_case):
    """The case itself, by brute force (hand keys one by one): the witness is legal and
    gains more than the 0.0445 once reported as optimal."""
    deal, _, _, opponent = example_case
    witness = Arrangement.parse(WITNESS)
    assert brute.is_legal(witness.packets, deal)
    assert brute.direct_value(deal, opponent, witness) > 0.1714


@pytest.mark.parametrize("name", ["all rules", "all rules, prices from the root", "rules 1-3, 6"])
def test_example_mix_search_is_not_beaten_by_the_witness(example_case, name):
    deal, tables, problem, opponent = example_case
    r = solve_search(problem, options=diff.VARIANTS[name])
    assert r.optimal
    witness = Arrangement.parse(WITNESS)
    witness_value = problem.value_of([tables.index_of(m) for m in witness.packets])
    assert witness_value == pytest.approx(brute.direct_value(deal, opponent, witness), abs=1e-12)
    assert r.value >= witness_value - TOL
    mine = tables.arrangement_of(r.packets)
    assert brute.direct_value(deal, opponent, mine) == pytest.approx(r.value, abs=1e-12)


def test_example_mix_with_prices_switched_on_mid_search(example_case):
    """Prices arriving after levels were set up (the original fault; the search now starts
    again from the root with its incumbent): small node budgets make the switch happen at
    many different depths, and every run reaches the witness's value."""
    _, tables, problem, _ = example_case
    witness = problem.value_of([tables.index_of(m) for m in Arrangement.parse(WITNESS).packets])
    reference = solve_search(problem, options=SearchOptions(card_prices=False))  # no rule 6 at all
    assert reference.optimal and reference.value >= witness - TOL
    for after, budget in [(1, 20), (300, 100), (5_000, 2_000), (1_000, 50_000)]:
        r = solve_search(problem, options=SearchOptions(card_prices_after=after), budget=budget)
        assert r.optimal and r.value == pytest.approx(reference.value, abs=TOL), (after, budget)


@pytest.fixture(scope="module")
def stream_instances():
    """Eight instances of one random deal, three of them reduced (two slots fixed)."""
    return list(itertools.islice(diff.instance_stream(11, do_seconds=6.0, per_deal=8, reduced_share=0.4), 8))


def test_stream_covers_the_opponents_that_matter(stream_instances):
    kinds = {i.kind for i in stream_instances}
    assert {"do-mix", "pool-mix", "do-mix+uniform+greedy", "population", "uniform", "greedy"} <= kinds
    assert max(i.support for i in stream_instances) >= 10
    assert any(i.reduced for i in stream_instances) and not all(i.reduced for i in stream_instances)


def test_variants_agree_on_a_random_deal(stream_instances):
    for inst in stream_instances:
        verdict = diff.check(inst, brute_force=inst.reduced, time_limit=300)
        assert verdict.ok, verdict.summary()
        if inst.reduced:
            assert verdict.brute is not None


@pytest.mark.parametrize("seed", [3, 4])
def test_every_rule_combination_against_brute_force(seed):
    """All 128 on/off combinations of rules 1–7 on reduced instances (three free slots):
    with rules 1 and 3 off the search is itself a brute force."""
    rng = np.random.default_rng(seed)
    deal = brute.random_deal(rng)
    tables = DealTables.build(deal)
    mix = diff._random_population(rng, deal, tables)
    arr = brute.random_arrangement(rng, deal)
    fixed = [-1] * 5
    for s in rng.choice(5, 2, replace=False):
        fixed[int(s)] = tables.index_of(arr.packets[int(s)])
    problem = diff.make_problem(tables, mix, "margin", fixed)
    masks, pv = brute.packet_values(deal, list(zip(mix.arrangements, mix.probabilities, strict=True)))
    best, _ = brute.brute_best(deal, masks, pv, [int(tables.masks[p]) if p >= 0 else None for p in fixed])
    names = ["best_packet_bound", "slot_thresholds", "branch_order", "exchange", "packing_bounds", "card_prices",
             "card_exchanges"]
    for bits in itertools.product([False, True], repeat=7):
        options = SearchOptions(**dict(zip(names, bits, strict=True)), card_prices_after=0)
        r = solve_search(problem, options=options)
        assert r.optimal and r.value == pytest.approx(best, abs=TOL), options


def test_plain_is_rules_one_and_three():
    assert (PLAIN.best_packet_bound, PLAIN.branch_order) == (True, True)
    assert not (PLAIN.slot_thresholds or PLAIN.exchange or PLAIN.packing_bounds or PLAIN.card_prices
                or PLAIN.card_exchanges)


@pytest.mark.slow
@pytest.mark.timeout(2400)  # 40 instances, each up to 20 + 20 s of the time-limited engines besides the exact ones
def test_sweep_with_cpsat():
    """Forty instances of five deals: every search variant, the basic search, CP-SAT (with a
    time limit: its answer must be consistent with the optimum either way) and brute force
    on the reduced ones.  ``benchmarks/bench_soundness.py`` runs the large sweep."""
    problems = []
    for inst in itertools.islice(diff.instance_stream(2026, do_seconds=15.0, per_deal=8, reduced_share=0.25), 40):
        verdict = diff.check(inst, brute_force=inst.reduced, basic_limit=20, cpsat_limit=20)
        if not verdict.ok:
            problems.append(verdict.summary())
    assert not problems, "\n".join(problems)
