"""Double oracle and Quintet equilibria: known answers, certificates, store, CLI."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import brute
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matrix_game import MatrixGame
from programs import Ran, run_main

from quintet.cards import CLASSIC_DECK, mask_of
from quintet.game import Arrangement, Deal, showdown
from quintet.rules import get_rules
from quintet.symmetry import canonical_exposed, permute_mask, suit_permutations
from solver.advisor.equilibrium import EquilibriumResult, equilibrium, solve_equilibrium
from solver.apps.solve_cli import main as solve_main
from solver.games.double_oracle import DoubleOracleOptions, Response, double_oracle, solve_symmetric_lp
from solver.games.quintet_game import QuintetGame, birkhoff
from solver.problem.deal_tables import DealTables
from solver.storage.store import SolutionStore

ROOT = Path(__file__).resolve().parents[1]


def exploitability(A: np.ndarray, support, probs) -> float:
    return float((A[:, list(support)] @ probs).max())


def test_rock_paper_scissors():
    A = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    result = double_oracle(MatrixGame(A), [0], epsilon=1e-9)
    mix = dict(zip(result.support, result.probabilities, strict=True))
    assert sorted(mix) == [0, 1, 2]
    assert all(abs(p - 1 / 3) < 1e-6 for p in mix.values())
    assert result.converged and result.exploitability <= 1e-9
    assert abs(exploitability(A, result.support, result.probabilities) - result.exploitability) < 1e-9


def test_rock_paper_scissors_with_a_dominated_strategy():
    # a fourth strategy that loses to everything is never played
    A = np.array([[0, -1, 1, 1], [1, 0, -1, 1], [-1, 1, 0, 1], [-1, -1, -1, 0]], dtype=float)
    result = double_oracle(MatrixGame(A), [3], epsilon=1e-9)
    assert 3 not in result.support
    assert result.exploitability <= 1e-9


@pytest.mark.parametrize("seed", range(5))
def test_random_symmetric_games_match_the_full_lp(seed):
    rng = np.random.default_rng(seed)
    B = rng.integers(-5, 6, size=(40, 40)).astype(float)
    A = B - B.T
    full_x, full_t = solve_symmetric_lp(A)
    assert abs(full_t) < 1e-7  # a symmetric game has value 0
    assert exploitability(A, range(40), full_x) < 1e-7
    result = double_oracle(MatrixGame(A), [int(rng.integers(40))], epsilon=1e-9)
    assert result.converged
    assert exploitability(A, result.support, result.probabilities) <= result.exploitability + 1e-9
    assert result.exploitability < 1e-6


def test_certificate_is_never_an_unproven_number():
    class Unproven(MatrixGame):
        def best_response(self, support, probabilities, *, time_limit, hint, stop_event):
            r = super().best_response(support, probabilities, time_limit=time_limit, hint=hint,
                                      stop_event=stop_event)
            return Response(r.strategy, r.value, r.value + 0.5, False)  # bound, not proof

    A = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    result = double_oracle(Unproven(A), [0], epsilon=0.1, time_limit=1)
    assert not result.converged and not result.proven
    assert result.exploitability >= 0.5 - 1e-9  # the bound, not the unproven value 0


def random_partitions(tables: DealTables, count: int, rng: np.random.Generator) -> list[tuple[int, ...]]:
    cards = [1 << b for b in range(64) if tables.deal.live >> b & 1]
    out = []
    for _ in range(count):
        order = rng.permutation(len(cards))
        out.append(tuple(tables.index_of(sum(cards[j] for j in order[5 * k:5 * k + 5]))
                         for k in range(tables.n_slots)))
    return out


@pytest.mark.parametrize("seed", range(4))
def test_slot_order_lp_is_an_equilibrium_over_every_order(seed):
    # the compact LP (a doubly stochastic matrix per partition) against the LP over all 120·P orders
    rng = np.random.default_rng(seed)
    tables = DealTables.build(Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc"))
    game = QuintetGame(tables)
    partitions = random_partitions(tables, 1 + seed * 2, rng)
    partitions += [tuple(rng.permutation(p)) for p in partitions[:2]]  # a partition twice, in other orders
    columns = [o for p in dict.fromkeys(frozenset(p) for p in partitions) for o in game.orbit(tuple(p))]
    A = game.payoffs(columns, columns)
    x, t = solve_symmetric_lp(A)
    support, probs = game.restricted_mix(partitions, 1e-12)
    assert abs(probs.sum() - 1) < 1e-12 and set(support) <= set(columns)
    assert float(game.payoffs_against(columns, support, probs).max()) < 1e-9  # no order of any partition gains
    assert abs(float((A @ x).max()) - t) < 1e-9 and abs(t) < 1e-9  # the same value, 0


def test_birkhoff_rebuilds_the_matrix():
    rng = np.random.default_rng(0)
    orders = [tuple(rng.permutation(5).tolist()) for _ in range(7)]
    weights = rng.dirichlet(np.ones(7)) * 0.3
    d = np.zeros((5, 5))
    for w, order in zip(weights, orders, strict=True):
        d[list(order), range(5)] += w
    parts = birkhoff(d, 1e-12)
    assert len(parts) <= 17 and abs(sum(w for w, _ in parts) - 0.3) < 1e-12
    rebuilt = np.zeros((5, 5))
    for w, order in parts:
        rebuilt[list(order), range(5)] += w
    assert np.allclose(rebuilt, d, atol=1e-12)


def reduced_deal(n_slots: int, seed: int) -> Deal:
    """A Quintet deal with fewer slots: 5·n_slots live cards, the rest exposed."""
    rules = get_rules("classic", weights=(3, 4, 5)[:n_slots])
    rng = np.random.default_rng(seed)
    exposed = rng.choice(CLASSIC_DECK.cards(), 32 - 5 * n_slots, replace=False)
    return Deal(mask_of(int(c) for c in exposed), rules)


def all_strategies(tables: DealTables) -> list[tuple[int, ...]]:
    """Every ordered exact cover of the live cards (for 2 slots: 252)."""
    masks = [int(m) for m in tables.masks]
    out = []
    live = tables.deal.live
    n_slots = tables.n_slots

    def rec(prefix, used):
        if len(prefix) == n_slots:
            if used == live:
                out.append(tuple(prefix))
            return
        for i, m in enumerate(masks):
            if m & used == 0:
                rec(prefix + [i], used | m)

    rec([], 0)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_two_slot_quintet_matches_the_full_lp(seed):
    deal = reduced_deal(2, seed)
    tables = DealTables.build(deal)
    game = QuintetGame(tables)
    strategies = all_strategies(tables)
    assert len(strategies) == 252
    A = game.payoffs(strategies, strategies)
    assert np.allclose(A, -A.T)
    x, t = solve_symmetric_lp(A)
    assert abs(t) < 1e-7
    result = equilibrium(deal, epsilon=1e-6, time_limit=60)
    assert result.converged and result.proven
    index = {s: i for i, s in enumerate(strategies)}
    support = [index[tuple(tables.index_of(m) for m in a.packets)] for _, a in result.mix]
    probs = np.array([p for p, _ in result.mix])
    exact = exploitability(A, support, probs)  # every pure strategy against the mix
    assert exact <= result.exploitability + 1e-9
    assert result.exploitability <= 1e-6


@pytest.mark.parametrize("seed", range(3))
def test_two_slot_double_oracle_over_the_slot_order_lp(seed):
    # the double oracle with the compact restricted game (orbit_lp) certifies the true exploitability
    deal = reduced_deal(2, seed)
    tables = DealTables.build(deal)
    game = QuintetGame(tables)
    strategies = all_strategies(tables)
    A = game.payoffs(strategies, strategies)
    result = double_oracle(game, [strategies[seed]], epsilon=1e-6, options=DoubleOracleOptions(orbit_lp=True))
    assert result.converged and result.proven
    index = {s: i for i, s in enumerate(strategies)}
    exact = exploitability(A, [index[s] for s in result.support], result.probabilities)
    assert abs(exact - result.exploitability) < 1e-9 and exact <= 1e-6


@pytest.mark.parametrize("seed", range(2))
def test_three_slot_certificate_equals_brute_force_best_response(seed):
    deal = reduced_deal(3, seed)
    result = equilibrium(deal, epsilon=0.05, time_limit=120)
    opponent = [(a, p) for p, a in result.mix]
    masks, pv = brute.packet_values(deal, opponent, "margin")
    best, _ = brute.brute_best(deal, masks, pv, [None, None, None])  # all 756,756 arrangements
    assert result.proven
    assert abs(best - result.exploitability) < 1e-9
    assert result.exploitability <= 0.05


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    """A full 25-card deal solved once into a store (a deal whose equilibrium is quick)."""
    path = tmp_path_factory.mktemp("store") / "solutions.sqlite"
    deal = Deal.from_exposed("As Ks Qs Js Ts Ah Kh")
    with SolutionStore(path) as store:
        result = solve_equilibrium(deal, epsilon=0.05, time_limit=300, store=store)
    return deal, result, path


def test_full_deal_certificate_recomputed(solved):
    deal, result, _ = solved
    assert result.exploitability <= 0.05
    # the certificate is the best response's value against the mix: recompute it
    from solver.advisor.advice import best_response

    br = best_response(deal, result.opponent())
    assert br.optimal
    assert br.expected_margin <= result.exploitability + 1e-9
    if result.proven:  # the certificate is that exact value
        assert abs(br.expected_margin - result.exploitability) < 1e-7
    # and no arrangement of the mix gains against the mix (it is the restricted equilibrium)
    opponent = [(a, p) for p, a in result.mix]
    for _, a in result.mix[:5]:
        assert brute.direct_value(deal, opponent, a) <= result.exploitability + 1e-9
    total = sum(p for p, _ in result.mix)
    assert abs(total - 1) < 1e-9


def test_store_answers_repeat_and_suit_permuted_asks(solved):
    deal, result, path = solved
    with SolutionStore(path) as store:
        again = solve_equilibrium(deal, epsilon=0.05, store=store)
        assert again.from_store
        assert again.exploitability == pytest.approx(result.exploitability)
        for perm in suit_permutations()[1:6]:
            asked = Deal(permute_mask(deal.exposed, perm), deal.rules)
            answer = solve_equilibrium(asked, epsilon=0.05, store=store)
            assert answer.from_store
            assert answer.deal == asked
            for _, a in answer.mix:
                a.validate(asked)
            assert answer.exploitability == pytest.approx(result.exploitability)


@settings(max_examples=10, deadline=None)
@given(perm_index=st.integers(0, 23), seed=st.integers(0, 2**32 - 1))
def test_mapped_answers_keep_their_value(perm_index, seed):
    """Mapping a stored mix to a suit-permuted deal keeps every pairwise result."""
    rng = np.random.default_rng(seed)
    deal = brute.random_deal(rng)
    canonical, perm = canonical_exposed(deal.exposed)
    cdeal = Deal(canonical, deal.rules)
    arrangements = [brute.random_arrangement(rng, cdeal) for _ in range(3)]
    fake = EquilibriumResult(deal=cdeal, mix=tuple((1 / 3, a) for a in arrangements), exploitability=1.0,
                             proven=True, converged=False, epsilon=0.01, iterations=1, seconds=0.0)
    mapped = fake.relabel(deal, perm)
    for (_, a), (_, b) in itertools.combinations(mapped.mix, 2):
        a.validate(deal)
        b.validate(deal)
    for (_, a0), (_, a1) in zip(fake.mix, mapped.mix, strict=True):
        for (_, b0), (_, b1) in zip(fake.mix, mapped.mix, strict=True):
            assert showdown(a0, b0, cdeal).margin == showdown(a1, b1, deal).margin


def run_cli(*args: str) -> Ran:
    return run_main(solve_main, args)


def test_cli_equilibrium_json_from_store(solved):
    deal, result, path = solved
    proc = run_cli("As Ks Qs Js Ts Ah Kh", "--opponent", "equilibrium", "--epsilon", "0.05", "--json",
                   "--store", str(path))
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    for key in ("mix", "exploitability", "iterations", "arrangement", "per_slot", "expected_margin", "bound"):
        assert key in d
    assert d["from_store"] is True
    assert d["exploitability"] == pytest.approx(result.exploitability)
    assert abs(sum(m["probability"] for m in d["mix"]) - 1) < 1e-9
    play = Arrangement.parse([" ".join(p) for p in d["arrangement"]])
    play.validate(deal)
    assert d["expected_margin"] <= d["exploitability"] + 1e-9  # nothing gains more than ε


def test_cli_default_opponent_is_the_equilibrium(solved):
    _, _, path = solved
    proc = run_cli("As", "Ks", "Qs", "Js", "Ts", "Ah", "Kh", "--epsilon", "0.05", "--store", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "Equilibrium mix" in proc.stdout and "Exploitability: " in proc.stdout


def test_cli_corrupt_store_is_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    before = bad.read_bytes()
    proc = run_cli("As Ks Qs Js Ts Ah Kh", "--store", str(bad))
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert bad.read_bytes() == before


def test_cli_store_and_no_store_conflict():
    proc = run_cli("As Ks Qs Js Ts Ah Kh", "--store", "x.sqlite", "--no-store")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1



@pytest.mark.subprocess
def test_cli_ctrl_c_returns_the_best_certified_mix(tmp_path):
    import os
    import signal

    env = dict(os.environ)
    proc = subprocess.Popen(
        [sys.executable, "-m", "solver.apps.solve_cli", "8h 7h 9d Ts 7s Qc Jc", "--no-store", "--json",
         "--epsilon", "1e-9"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env,
    )
    assert proc.stderr is not None
    for line in proc.stderr:  # progress lines: wait until the solve is under way
        if "iteration 3:" in line:
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    d = json.loads(out)
    assert d["interrupted"] is True
    assert d["exploitability"] > 1e-9 and d["bound"] == d["exploitability"]
    for m in d["mix"]:
        Arrangement.parse([" ".join(p) for p in m["arrangement"]]).validate(Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc"))
