"""Safe exploitation (solver.advisor.safe): the restricted Nash response against one full linear
program on small games, the frontier's shape on a real deal, and an independent recheck."""

from __future__ import annotations

import json

import numpy as np
import pytest
from programs import run_main
from test_equilibrium import all_strategies, reduced_deal

from quintet.game import Deal
from solver.advisor.safe import safe_response
from solver.advisor.verify import verify_mix
from solver.apps.solve_cli import main as solve_main
from solver.games.double_oracle import Response, solve_symmetric_lp
from solver.games.lp import solve_rnr_program
from solver.games.quintet_game import QuintetModelGame
from solver.games.restricted_nash import restricted_nash_response
from solver.problem.best_response import VALUE_TOLERANCE
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import Greedy, Uniform

FAST = "Kc Qh Qd Js 9d 8s 7d"


class MatrixModelGame:
    """A symmetric zero-sum matrix game with an opponent model (a distribution over strategies)."""

    def __init__(self, A: np.ndarray, model: np.ndarray) -> None:
        self.A, self.model = A, model

    def payoffs(self, rows, cols):
        return self.A[np.ix_(list(rows), list(cols))]

    def model_payoffs(self, rows):
        return self.A[list(rows)] @ self.model

    def best_response(self, support, probabilities, *, model_weight, time_limit, stop_event):
        opponent = model_weight * self.model
        if len(support):
            mix = np.zeros(len(self.model))
            np.add.at(mix, list(support), probabilities)
            opponent = opponent + (1 - model_weight) * mix
        gains = self.A @ opponent
        i = int(np.argmax(gains))
        return Response(i, float(gains[i]), float(gains[i]), True)


def full_program(A: np.ndarray, gains: np.ndarray, D: float) -> float:
    """The whole program at once: every strategy a column and a row."""
    _, value, _, _ = solve_rnr_program(gains, A, D)
    return value


def equilibrium_of(A: np.ndarray) -> tuple[list[int], np.ndarray, float]:
    x, _ = solve_symmetric_lp(A)
    support = [i for i in range(len(x)) if x[i] > 1e-9]
    probs = x[support] / x[support].sum()
    return support, probs, float((A[:, support] @ probs).max())


@pytest.mark.parametrize("seed", range(12))
def test_matrix_games_match_the_full_program(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 16))
    B = rng.integers(-5, 6, (n, n)).astype(float)
    A = np.triu(B, 1)
    A = A - A.T
    model = rng.dirichlet(np.full(n, 0.5))
    support, probs, exploit = equilibrium_of(A)
    for D in (0.0, 0.3, 1.0, 3.0, 100.0):
        result = restricted_nash_response(MatrixModelGame(A, model), support, probs, exploit, max_exploitability=D,
                                          tolerance=1e-9)
        actual = float((A[:, result.support] @ result.probabilities).max())  # every strategy against the mix
        assert actual <= D + 1e-9 and actual == pytest.approx(result.exploitability, abs=1e-9)
        assert result.model_margin == pytest.approx(full_program(A, A @ model, D), abs=1e-7), D
        assert result.optimal


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("model", [Uniform(), Greedy()], ids=["uniform", "greedy"])
def test_two_slot_quintet_matches_the_full_program(seed, model):
    deal = reduced_deal(2, seed)
    tables = DealTables.build(deal)
    strategies = all_strategies(tables)
    game = QuintetModelGame(tables, model.marginals(tables))
    A = game.payoffs(strategies, strategies)
    gains = game.model_payoffs(strategies)
    support, probs, exploit = equilibrium_of(A)
    eq_support = [strategies[i] for i in support]
    for D in (0.0, 0.5, 2.0, 50.0):
        result = restricted_nash_response(game, eq_support, probs, exploit, max_exploitability=D,
                                          tolerance=VALUE_TOLERANCE)
        index = {s: i for i, s in enumerate(strategies)}
        cols = [index[s] for s in result.support]
        actual = float((A[:, cols] @ result.probabilities).max())
        assert actual <= D + 1e-9
        assert result.model_margin == pytest.approx(full_program(A, gains, D), abs=1e-7), D
        assert result.optimal


@pytest.fixture(scope="module")
def frontier():
    deal = Deal.from_exposed(FAST)
    # no time limit: the tests assert proofs, and a limit would fail them on a slow or busy machine
    # (pytest-timeout guards a hang)
    return deal, [safe_response(deal, "greedy", D, time_limit=None) for D in (0.0, 0.5, 2.0, 30.0)]


def test_the_frontier_rises_with_the_limit(frontier):
    _, results = frontier
    margins = [r.expected_margin for r in results]
    assert margins == sorted(margins)
    for r in results:
        assert r.optimal and not r.interrupted
        assert r.exploitability <= r.max_exploitability + 1e-9
        assert r.equilibrium_margin - 1e-9 <= r.expected_margin <= r.best_response_margin + 1e-9
        assert sum(p for p, _ in r.mix) == pytest.approx(1.0)
    # a limit above the best response's own exploitability: the best response's margin
    assert results[-1].expected_margin == pytest.approx(results[-1].best_response_margin, abs=1e-7)


@pytest.mark.heavy  # a CP-SAT recheck
def test_the_certificate_is_confirmed_by_cpsat(frontier):
    deal, results = frontier
    check = verify_mix(deal, results[1].mix, results[1].exploitability, time_limit=None)  # a proof: no limit
    assert check.status == "confirmed", check.describe()
    assert check.bound <= 0.5 + 1e-8


def test_cli_json_and_bad_combinations():
    base = [FAST, "--no-store", "--quiet"]
    out = run_main(solve_main, base + ["--opponent", "greedy", "--max-exploitability", "1", "--json"])
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert {"mix", "exploitability", "expected_margin", "max_exploitability", "arrangement"} <= set(doc)
    assert doc["exploitability"] <= 1 + 1e-9 and doc["optimal"]
    for extra, words in [(["--max-exploitability", "1"], "opponent model"),
                         (["--opponent", "greedy", "--max-exploitability", "-1"], "from 0 to 50"),
                         (["--opponent", "greedy", "--max-exploitability", "1", "--grade", "x"], "grade")]:
        bad = run_main(solve_main, base + extra)
        assert bad.returncode == 2 and words in bad.stderr and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
