"""``quintet-solve --rules drawN…``: Quintet dealt from a five-card-draw deck and hand table.

The deck less 25 cards is exposed (11 of 36, 28 of 53); the two players arrange the same 25
live cards.  What is verified here, for a 36-card deck, the colour table (its suit symmetry
keeps the colours), the 36-card joker deck and the 53-card deck with a joker:

* completions with three free slots equal brute force (every ordered split, hands compared
  one by one with ``hand_key``) against the uniform and the greedy opponent;
* the two exact engines agree on full best responses (the search's optimum lies between
  CP-SAT's best found and its proven bound);
* an equilibrium is stored under the deal's suit-canonical key and served to a suit
  relabelling that the rule set allows;
* the command line takes the rule set's number of exposed cards and names a wrong count.
"""

from __future__ import annotations

import json
import subprocess
import sys

import brute
import numpy as np
import pytest

from quintet.cards import format_cards
from quintet.game import Deal
from quintet.rules import get_rules
from quintet.symmetry import permute_mask, symmetry_group
from solver.advisor.advice import best_response, complete
from solver.advisor.equilibrium import solve_equilibrium
from solver.problem.best_response import VALUE_TOLERANCE
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import greedy_arrangement
from solver.storage.store import SolutionStore

RULE_SETS = ("draw36", "draw36-11", "draw36-joker", "draw53-9")


def seeded_deal(name: str, seed: int = 0) -> Deal:
    rules = get_rules(name)
    rng = np.random.default_rng(seed)
    return Deal.from_exposed([int(c) for c in rng.choice(rules.deck.cards(), rules.n_exposed, replace=False)], rules)


@pytest.mark.parametrize("name", RULE_SETS)
def test_completion_with_three_free_slots_equals_brute_force(name):
    deal = seeded_deal(name)
    tables = DealTables.build(deal)
    greedy = greedy_arrangement(tables)
    start = best_response(deal, "uniform").arrangement  # any legal arrangement to fix two slots from
    fixed = {1: start.packets[0], 4: start.packets[3]}
    for spec, opponent in (("uniform", [(brute.UNIFORM, 1.0)]), ("greedy", [(greedy, 1.0)])):
        sol = complete(deal, {s: format_cards(m, deal.rules.deck) for s, m in fixed.items()}, spec)
        assert sol.optimal
        masks, pv = brute.packet_values(deal, opponent)
        best, _ = brute.brute_best(deal, masks, pv, [fixed.get(s + 1) for s in range(deal.rules.n_slots)])
        assert abs(sol.expected_margin - best) <= VALUE_TOLERANCE, (name, spec)
        assert sol.expected_margin == pytest.approx(brute.direct_value(deal, opponent, sol.arrangement), abs=1e-9)


@pytest.mark.parametrize("name", RULE_SETS)
def test_search_and_cpsat_agree(name):
    """The search's proven optimum lies between CP-SAT's best found and its proven bound (CP-SAT
    gets a short time: on the 53-card deck it does not always finish)."""
    deal = seeded_deal(name, seed=1)
    a = best_response(deal, "uniform", engine="search")
    b = best_response(deal, "uniform", engine="cpsat", time_limit=10)
    assert a.optimal
    b.arrangement.validate(deal)
    assert b.expected_margin <= a.expected_margin + VALUE_TOLERANCE
    assert a.expected_margin <= b.bound + VALUE_TOLERANCE
    if b.optimal:
        assert abs(a.expected_margin - b.expected_margin) <= 2 * VALUE_TOLERANCE


def _draw54(second_joker_live: bool) -> Deal:
    """A draw54 deal whose second joker (card 63, the sign bit of the kernels' int64 masks) is
    live or exposed."""
    for seed in range(100):
        deal = seeded_deal("draw54", seed)
        if bool(deal.live >> 63 & 1) == second_joker_live:
            return deal
    raise AssertionError("no such deal in 100 seeds")


def test_card_63_is_a_card_like_the_others():
    """draw54's second joker is card 63: a packet holding it has its index (packet_index once
    looped forever on it), the search proves its best response and CP-SAT agrees; and a deal
    with the card live after one without it (numba types a kernel by its first call: the
    mask of live cards once overflowed the int64 it was typed as)."""
    from solver.problem.packet_index import build_packet_index, packet_index

    exposed, live = _draw54(False), _draw54(True)
    assert best_response(exposed, "uniform").optimal
    tables = DealTables.build(live)
    ix = build_packet_index(tables)
    holding = [i for i, m in enumerate(tables.masks) if int(m) >> 63 & 1]
    assert holding
    for i in holding[:: max(1, len(holding) // 50)]:
        mask = int(tables.masks[i])
        assert packet_index(np.int64(mask - (1 << 64)), ix) == i
    a = best_response(live, "uniform", engine="search", time_limit=120)
    b = best_response(live, "uniform", engine="cpsat", time_limit=10)
    assert a.optimal and any(int(p) >> 63 & 1 for p in a.arrangement.packets)
    assert b.expected_margin <= a.expected_margin + VALUE_TOLERANCE <= b.bound + 2 * VALUE_TOLERANCE


def test_equilibrium_is_stored_under_the_rule_sets_symmetry(tmp_path):
    deal = seeded_deal("draw36-11", seed=2)
    group = symmetry_group(deal.rules)
    assert len(group) == 8  # the colour table: only the 8 suit permutations that keep the colours
    twin = Deal(permute_mask(deal.exposed, group[-1], deal.rules.deck), deal.rules)
    assert twin != deal
    with SolutionStore(tmp_path / "s.sqlite") as store:
        first = solve_equilibrium(deal, epsilon=5.0, time_limit=60, store=store)
        assert not first.from_store and first.exploitability <= 5.0
        for _, arrangement in first.mix:
            arrangement.validate(deal)
        again = solve_equilibrium(twin, epsilon=5.0, store=store)
        assert again.from_store and again.exploitability == first.exploitability
        for _, arrangement in again.mix:
            arrangement.validate(twin)  # mapped back to the suits asked about


def _solve(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "solver.apps.solve_cli", *args], capture_output=True, text=True,
                          timeout=300)


@pytest.mark.subprocess
def test_cli_takes_the_rule_sets_exposed_cards():
    deal = seeded_deal("draw36-joker", seed=3)
    proc = _solve(deal.format(), "--rules", "draw36-joker", "--opponent", "greedy", "--json")
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert len(d["exposed"]) == 11 and len(d["live"]) == 25 and d["optimal"]
    assert d["rules"].startswith("draw36-joker, 36 cards")
    bad = _solve("8h 7h 9d Ts 7s Qc Jc", "--rules", "draw36", "--opponent", "uniform")
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "expected 11 exposed cards, got 7" in bad.stderr
