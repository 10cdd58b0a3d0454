"""PSRO's meta-solvers and the online double oracle (``research.psro``) on small symmetric games
whose equilibria are known, every certified exploitability checked by brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matrix_game import MatrixGame
from research.psro import META_SOLVERS, online_double_oracle, psro

RPS = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)


@pytest.mark.parametrize("meta", META_SOLVERS)
def test_psro_on_rock_paper_scissors(meta):
    game = MatrixGame(RPS)
    result = psro(game, [0], meta=meta, epsilon=0.03, max_iterations=1000, inner=100, payoff_range=2.0)
    assert result.exploitability == pytest.approx(game.exploitability(result.support, result.probabilities))
    assert result.converged
    assert [h.best for h in result.history] == sorted((h.best for h in result.history), reverse=True)


def test_online_double_oracle_on_rock_paper_scissors():
    game = MatrixGame(RPS)
    result = online_double_oracle(game, [0], epsilon=0.05, max_iterations=3000, payoff_range=2.0)
    assert result.converged
    assert result.exploitability == pytest.approx(game.exploitability(result.support, result.probabilities))


def test_orbits_join_together():
    """A best response brings its whole orbit into the population, as the double oracle's does."""
    result = psro(MatrixGame(RPS), [0], meta="uniform", epsilon=1e-9, max_iterations=1)
    assert result.population == 2  # rock, then the best response to it: paper
    result = psro(MatrixGame(RPS, orbits=[[0], [1, 2]]), [0], meta="uniform", epsilon=1e-9, max_iterations=1)
    assert result.population == 3  # paper's orbit brought scissors with it


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from(["rm+", "hedge", "nash"]))
def test_certificates_are_exact_on_random_games(seed, meta):
    """On random symmetric games every reported exploitability is the brute-force value of the mix,
    and the least one never rises."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 8))
    B = rng.integers(-4, 5, size=(n, n)).astype(float)
    game = MatrixGame(B - B.T)
    result = psro(game, [0], meta=meta, epsilon=1e-6, max_iterations=30, inner=50, payoff_range=16.0)
    assert result.exploitability == pytest.approx(max(0.0, game.exploitability(result.support,
                                                                               result.probabilities)), abs=1e-9)
    if meta == "nash":
        assert result.exploitability <= 1e-6  # the double oracle without its working set: exact
