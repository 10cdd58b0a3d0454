"""Independent rechecks (solver.advisor.verify, quintet-solve --verify) and stale store entries."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace

import pytest
from deals import EXAMPLE

from quintet.fingerprint import rules_fingerprint
from quintet.game import Deal
from quintet.symmetry import canonical_exposed, symmetry_group
from solver.advisor.advice import best_response, evaluate_arrangement
from solver.advisor.equilibrium import STALE_STORE_KINDS, STORE_KIND, EquilibriumResult, equilibrium, solve_equilibrium
from solver.advisor.verify import Verification, verify_equilibrium, verify_solution
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import Uniform, greedy_arrangement
from solver.storage.store import SolutionStore

FAST = "Kc Qh Qd Js 9d 8s 7d"  # converges in a few iterations


def test_a_true_optimum_is_confirmed_by_cpsat():
    deal = Deal.from_exposed(EXAMPLE)
    sol = best_response(deal, "uniform")
    check = verify_solution(sol, "uniform", time_limit=None)  # a proof: no limit (pytest-timeout guards a hang)
    assert check.engine == "cpsat" and check.proven
    assert check.status == "confirmed"
    assert check.found == pytest.approx(sol.value, abs=1e-9)


def test_a_false_optimum_is_refuted():
    """A weak arrangement presented as optimal: the recheck finds the better one."""
    deal = Deal.from_exposed(EXAMPLE)
    sol = best_response(deal, "uniform")
    tables = DealTables.build(deal)
    greedy = greedy_arrangement(tables)
    per_slot, margin, points = evaluate_arrangement(tables, Uniform().marginals(tables), greedy)
    fake = replace(sol, arrangement=greedy, per_slot=per_slot, expected_margin=margin, expected_points=points,
                   bound=margin, optimal=True)
    assert fake.value < sol.value - 0.01
    check = verify_solution(fake, "uniform", time_limit=None)
    assert check.status == "refuted"
    assert check.found == pytest.approx(sol.value, abs=1e-9)
    assert "REFUTED" in check.describe()


def test_status_rules():
    def v(found, bound):
        return Verification("optimum", 1.0, "cpsat", found, bound, False, 0.0)

    assert v(1.0, 1.0).status == "confirmed"
    assert v(0.9, 1.0 + 1e-12).status == "confirmed"
    assert v(0.9, 1.5).status == "inconclusive"
    assert v(1.2, 1.5).status == "refuted"


@pytest.mark.heavy  # a CP-SAT recheck of an exact equilibrium
def test_exact_equilibrium_certificate_is_confirmed(quick_exact_equilibrium):
    """ε = 0: an exact equilibrium (to float tolerance), and CP-SAT finds nothing gaining."""
    eq = quick_exact_equilibrium
    assert eq.deal == Deal.from_exposed(FAST)
    assert eq.converged and eq.proven and eq.exploitability <= 1e-9
    check = verify_equilibrium(eq, time_limit=None)  # a proof: no limit
    assert check.claim == "exploitability" and check.engine == "cpsat"
    assert check.status == "confirmed", check.describe()
    assert check.bound <= 1e-8


@pytest.mark.subprocess
def test_cli_verify_json(tmp_path):
    cmd = [sys.executable, "-m", "solver.apps.solve_cli", EXAMPLE, "--opponent", "greedy", "--verify", "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["verification"]["status"] == "confirmed"
    assert doc["verification"]["claimed"] == pytest.approx(doc["expected_margin"], abs=1e-12)


def test_stale_store_entries_are_not_served(tmp_path):
    """An entry of the old certificate version, with a fake perfect certificate, is solved
    again (warm-started from its mix) and reported in one note; the new one is stored."""
    deal = Deal.from_exposed(FAST)
    rules = deal.rules
    canonical, _ = canonical_exposed(deal.exposed, rules.deck, group=symmetry_group(rules))
    cdeal = Deal(canonical, rules)
    rough = equilibrium(cdeal, epsilon=5.0, time_limit=60)  # a poor mix
    fake = replace(rough, exploitability=0.0, converged=True)
    fp = rules_fingerprint(rules)
    with SolutionStore(tmp_path / "s.sqlite") as store:
        store.put(fp, STALE_STORE_KINDS[0], canonical, fake.to_record(), 0.0)
        eq = solve_equilibrium(deal, epsilon=0.05, store=store, time_limit=120)
        assert not eq.from_store
        assert len(eq.notes) == 1 and "earlier solver" in eq.notes[0]
        assert eq.exploitability <= 0.05
        assert store.get(fp, STORE_KIND, canonical) is not None
        again = solve_equilibrium(deal, epsilon=0.05, store=store)
        assert again.from_store and not again.notes
        assert EquilibriumResult.from_record(cdeal, store.get(fp, STORE_KIND, canonical)).exploitability <= 0.05
