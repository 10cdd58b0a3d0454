"""Sparse mixes (solver.games.sparse_mix, solver.advisor.sparse): the K-mix against enumeration
of every support on small games, certificates rechecked by CP-SAT on a Quintet deal, the
exploitability non-increasing in K, plans and the die roll, the request's refusals and the CLI."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from deals import QUICK
from matrix_game import MatrixGame
from programs import run_main
from test_equilibrium import all_strategies, reduced_deal

from quintet.game import Deal
from quintet.rules import CLASSIC
from solver.advisor.advice import best_response
from solver.advisor.equilibrium import equilibrium, sample_mix
from solver.advisor.plans import plan_of, plans
from solver.advisor.request import RequestError, SolveRequest
from solver.advisor.sparse import roll_mix, sparse_equilibrium, sparse_frontier
from solver.advisor.verify import verify_mix
from solver.apps.solve_cli import main as solve_main
from solver.games.double_oracle import Response, double_oracle
from solver.games.lp import solve_minmax_lp
from solver.games.quintet_game import QuintetGame
from solver.games.sparse_mix import CertifiedMix, SparseMixSearch, sparse_mix
from solver.games.sparse_mix import sparse_frontier as game_frontier
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import ArrangementMix


def random_game(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(6, 12))
    B = rng.integers(-5, 6, (n, n)).astype(float)
    A = np.triu(B, 1)
    return A - A.T


def best_over_supports(A: np.ndarray, K: int) -> float:
    """min over every support of at most K strategies of its best weights' exploitability."""
    n = len(A)
    return min(solve_minmax_lp(A[:, list(S)])[1] for k in range(1, min(K, n) + 1)
               for S in itertools.combinations(range(n), k))


def true_exploitability(A: np.ndarray, support, probabilities) -> float:
    return float((A[:, list(support)] @ probabilities).max())


@pytest.mark.parametrize("seed", range(8))
def test_complete_candidates_give_the_best_k_mix_proven(seed):
    A = random_game(seed)
    results = game_frontier(MatrixGame(A), list(range(len(A))), [1, 2, 3, 4], complete=True)
    for r in results:
        assert len(r.support) <= r.max_support
        assert r.exploitability == pytest.approx(true_exploitability(A, r.support, r.probabilities), abs=1e-12)
        assert r.exploitability == pytest.approx(best_over_supports(A, r.max_support), abs=1e-6)
        assert r.optimal and r.proven
        assert r.lower_bound == pytest.approx(r.exploitability, abs=1e-6)


@pytest.mark.parametrize("seed", range(8))
def test_k1_is_the_best_pure_strategy(seed):
    A = random_game(seed)
    r = sparse_mix(MatrixGame(A), list(range(len(A))), 1, complete=True)
    assert r.exploitability == pytest.approx(float(A.max(axis=0).min()))
    assert r.optimal


@pytest.mark.parametrize("seed", range(8))
def test_found_not_proven_from_an_equilibrium_support(seed):
    """From the equilibrium's support only (the Quintet setting): never below the true best,
    never called optimal unless it is, and its lower bound is valid."""
    A = random_game(seed)
    game = MatrixGame(A)
    eq = double_oracle(game, [0], epsilon=1e-9)
    results = game_frontier(game, list(eq.support), [1, 2, 3], prior=list(eq.probabilities))
    previous = float("inf")
    for r in results:
        best = best_over_supports(A, r.max_support)
        assert r.exploitability == pytest.approx(true_exploitability(A, r.support, r.probabilities), abs=1e-12)
        assert r.exploitability >= best - 1e-7
        assert r.lower_bound <= best + 1e-7
        if r.exploitability > best + 1e-6:
            assert not r.optimal
        assert r.exploitability <= previous + 1e-12  # non-increasing in K
        previous = r.exploitability


def test_the_certificate_is_never_an_unproven_number():
    class Unproven(MatrixGame):
        def best_response(self, support, probabilities, *, time_limit, hint, stop_event):
            r = super().best_response(support, probabilities, time_limit=time_limit, hint=hint,
                                      stop_event=stop_event)
            return Response(r.strategy, r.value, r.value + 0.5, False)

    A = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    r = sparse_mix(Unproven(A), [0, 1, 2], 3, complete=True)
    assert not r.proven and not r.optimal
    assert r.exploitability >= true_exploitability(A, r.support, r.probabilities) + 0.5 - 1e-9


def test_a_previous_answer_is_kept_unless_beaten():
    A = random_game(3)
    game = MatrixGame(A)
    search = SparseMixSearch(game, [0])
    worse = CertifiedMix((0,), np.ones(1), -1.0, True)  # a (false) certificate better than anything
    r = search.solve(2, initial=worse)
    assert r.exploitability == -1.0 and r.method == "initial"


def test_two_slot_quintet_k_mixes_match_enumeration():
    deal = reduced_deal(2, 0)
    tables = DealTables.build(deal)
    game = QuintetGame(tables)
    strategies = all_strategies(tables)
    A = game.payoffs(strategies, strategies)
    index = {s: i for i, s in enumerate(strategies)}
    pure = sparse_mix(game, strategies, 1, complete=True)
    assert pure.optimal and pure.exploitability == pytest.approx(float(A.max(axis=0).min()))
    eq = equilibrium(deal, epsilon=0.0, time_limit=60)
    support = [tuple(tables.index_of(m) for m in a.packets) for _, a in eq.mix]
    for r in game_frontier(game, support, [1, 2, 3], prior=[p for p, _ in eq.mix]):
        cols = [index[s] for s in r.support]
        assert r.exploitability == pytest.approx(true_exploitability(A, cols, r.probabilities), abs=1e-9)
        assert r.exploitability >= pure.exploitability - 1e-9 or r.max_support > 1
        if r.max_support == 1:
            assert r.exploitability >= pure.exploitability - 1e-9


@pytest.fixture(scope="module")
def quick_frontier(quick_exact_equilibrium):
    deal = Deal.from_exposed(QUICK)
    eq = quick_exact_equilibrium  # solved once per session (conftest)
    assert eq.deal == deal
    # no time limit: the tests assert proofs, and a limit would fail them on a slow or busy machine
    # (pytest-timeout guards a hang)
    return deal, eq, sparse_frontier(deal, [1, 2, 3, len(eq.mix)], equilibrium=eq, time_limit=None)


def test_quintet_frontier_is_non_increasing_and_certified(quick_frontier):
    deal, eq, results = quick_frontier
    values = [r.exploitability for r in results]
    assert values == sorted(values, reverse=True)
    for r in results:
        assert 1 <= len(r.mix) <= r.max_support
        assert sum(p for p, _ in r.mix) == pytest.approx(1.0)
        assert r.proven and not r.interrupted
        assert r.equilibrium_exploitability == eq.exploitability
        br = best_response(deal, ArrangementMix(tuple(a for _, a in r.mix), tuple(p for p, _ in r.mix)))
        assert br.optimal and br.expected_margin == pytest.approx(r.exploitability, abs=1e-9)
    assert results[-1].method == "equilibrium" and results[-1].mix == eq.mix
    again = sparse_equilibrium(deal, 1000, equilibrium=eq)
    assert again.method == "equilibrium" and again.exploitability == eq.exploitability


@pytest.mark.slow  # three CP-SAT rechecks, about a minute (CI runs the slow tier)
def test_quintet_certificates_are_confirmed_by_cpsat(quick_frontier):
    deal, _, results = quick_frontier
    for r in results[:3]:
        check = verify_mix(deal, r.mix, r.exploitability, time_limit=None)  # a proof: no limit
        assert check.status == "confirmed", check.describe()


def test_plans_group_the_mix_by_category(quick_frontier):
    deal, eq, _ = quick_frontier
    found = plans(eq.mix, deal.rules)
    assert sum(p.probability for p in found) == pytest.approx(1.0)
    assert sum(p.arrangements for p in found) == len(eq.mix)
    assert [p.probability for p in found] == sorted((p.probability for p in found), reverse=True)
    for plan in found:
        members = [pr for pr, a in eq.mix if plan_of(a, deal.rules) == plan.categories]
        assert sum(members) == pytest.approx(plan.probability) and len(members) == plan.arrangements
    assert len({p.categories for p in found}) == len(found)


def test_the_die_roll_picks_what_sample_draws(quick_frontier):
    _, eq, results = quick_frontier
    for seed in range(40):
        for mix in (eq.mix, results[2].mix):
            roll = roll_mix([p for p, _ in mix], seed)
            assert mix[roll.index][1] == sample_mix(mix, seed)
            assert roll.low <= roll.value < roll.high
    assert results[2].sample(7) == sample_mix(results[2].mix, 7)


def test_to_dict_has_the_fields(quick_frontier):
    _, _, results = quick_frontier
    doc = results[1].to_dict(seed=3)
    assert {"mix", "exploitability", "max_support", "equilibrium_exploitability", "plans", "roll", "arrangement",
            "lower_bound", "optimal", "best_found"} <= set(doc)
    assert doc["max_support"] == 2 and len(doc["mix"]) <= 2
    json.dumps(doc)


@pytest.mark.parametrize("options, words", [
    ({"max_support": 0}, "from 1 to 1000"),
    ({"max_support": 1001}, "from 1 to 1000"),
    ({"max_support": True}, "integer"),
    ({"max_support": "3"}, "integer"),
    ({"max_support": 2, "opponent": "uniform"}, "applies to the equilibrium"),
    ({"max_support": 2, "opponent": "equilibrium:0.5,uniform:0.5"}, "applies to the equilibrium"),
    ({"max_support": 2, "grade": "x"}, "grade"),
    ({"max_support": 2, "fix": {"5": "As Ah Ad Ac Kd"}}, "grade or fix"),
    ({"max_support": 2, "max_exploitability": 1.0, "opponent": "greedy"}, "cannot be combined"),
    ({"max_support": 2, "objective": "points"}, "objective"),
])
def test_request_refuses_what_a_k_mix_would_not_use(options, words):
    with pytest.raises(ValueError) as error:
        SolveRequest.parse(QUICK, CLASSIC, **options)
    assert words in str(error.value)


def test_request_accepts_a_k_mix():
    request = SolveRequest.parse(QUICK, CLASSIC, max_support=3, seed=5, epsilon=0.0, verify=10.0)
    assert request.max_support == 3 and not request.is_equilibrium and request.samples_a_mix
    assert isinstance(RequestError("x"), ValueError)


def test_cli_json_and_bad_input():
    base = [QUICK, "--no-store", "--quiet"]
    out = run_main(solve_main, base + ["--max-support", "2", "--json", "--seed", "4"])
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert {"mix", "exploitability", "max_support", "equilibrium_exploitability"} <= set(doc)
    assert doc["max_support"] == 2 and 1 <= len(doc["mix"]) <= 2
    assert doc["roll"]["seed"] == 4 and doc["arrangement"] == doc["mix"][doc["roll"]["pick"] - 1]["arrangement"]
    text = run_main(solve_main, base + ["--max-support", "2"])
    assert text.returncode == 0, text.stderr
    assert "Die roll (seed 0)" in text.stdout and "The full equilibrium: exploitability" in text.stdout
    assert "best mix of at most 2 found" in text.stdout or "proven the least exploitable" in text.stdout
    for extra, words in [(["--max-support", "0"], "from 1 to 1000"),
                         (["--max-support", "x"], "integer"),
                         (["--max-support", "2", "--opponent", "greedy"], "applies to the equilibrium"),
                         (["--max-support", "2", "--grade", "x"], "grade")]:
        bad = run_main(solve_main, base + extra)
        assert bad.returncode == 2 and words in bad.stderr and len(bad.stderr.strip().splitlines()) == 1, bad.stderr


def test_reorderings_alone_gain_11_against_distinct_hands_and_6_against_one_tie():
    """docs/kmix.md: an arrangement is beaten by its own packets in another order — by at least 11
    points when its five hands differ in strength, 6 with exactly one pair of equal hands, and
    only 2 or 0 with more ties (so no bound on every single arrangement comes from this)."""
    weights = np.array(CLASSIC.weights)
    orders = np.array(list(itertools.permutations(range(5))))
    least: dict[tuple[int, ...], float] = {}
    for ranks in itertools.product(range(5), repeat=5):
        r = np.array(ranks)
        gain = (weights * np.sign(r[orders] - r[None, :])).sum(axis=1).max()  # the best reordering
        groups = tuple(sorted((ranks.count(v) for v in set(ranks)), reverse=True))
        least[groups] = min(least.get(groups, np.inf), gain)
    assert least[(1, 1, 1, 1, 1)] == 11 and least[(2, 1, 1, 1)] == 6
    assert least[(3, 1, 1)] == least[(2, 2, 1)] == 2 and least[(3, 2)] == least[(4, 1)] == least[(5,)] == 0
