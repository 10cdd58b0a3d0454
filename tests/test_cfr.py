"""The solvers of ``quintet.draw.cfr`` on games with known answers: Kuhn poker (value -1/18), Leduc poker
(about -0.0856), the best response against brute force (every pure strategy of Kuhn; history by history
on Leduc and on a small draw-poker game), exploitability near 0."""

from __future__ import annotations

import numpy as np
import pytest
from cfr_brute import history_best_response, history_value, kuhn_pure_best, kuhn_value

from quintet.draw.cfr.solve import (
    CFRPlus,
    ExternalSampling,
    best_response,
    expected_value,
    exploitability,
    uniform_strategy,
)
from quintet.draw.cfr.toys import KUHN_VALUE, kuhn, leduc
from quintet.draw.cfr.tree import DECISION, TreeBuilder

LEDUC_VALUE = -0.0856064  # OpenSpiel's leduc_poker, player 0


def random_strategy(tree, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    out = np.empty(tree.size)
    for node in tree.decisions().tolist():
        k = int(tree.count[node])
        n = int(tree.types[node, tree.player[node]])
        block = rng.random((n, k)) ** 3  # skewed, with near-zero actions
        out[tree.offset[node]: tree.offset[node] + n * k] = (block / block.sum(axis=1, keepdims=True)).ravel()
    return out


def kuhn_policy(tree, strategy) -> dict[tuple[int, str], float]:
    """The tree's strategy as P(bet or call) at each of Kuhn's information sets (card, history)."""
    where = {"": (0, 1), "p": (1, 1), "pb": (3, 1), "b": (6, 1)}  # node, index of bet/call among its children
    policy = {}
    for h, (node, a) in where.items():
        k = int(tree.count[node])
        for c in range(3):
            policy[(c, h)] = float(strategy[tree.offset[node] + c * k + a])
    return policy


def test_kuhn_cfr_plus_reaches_minus_one_eighteenth():
    tree = kuhn()
    solver = CFRPlus(tree)
    solver.iterate(1000)
    average = solver.average()
    e = exploitability(tree, average)
    assert abs(e.value - float(KUHN_VALUE)) < 1e-3
    assert 0 <= e.total < 2e-4
    assert abs(kuhn_value(kuhn_policy(tree, average)) - e.value) < 1e-12  # the rules written out agree


def test_vanilla_cfr_and_external_sampling_also_converge_on_kuhn():
    tree = kuhn()
    vanilla = CFRPlus(tree, plus=False, linear=False)
    vanilla.iterate(2000)
    assert exploitability(tree, vanilla.average()).total < 5e-3
    sampled = ExternalSampling(tree, seed=3, walks=100, linear=False)
    sampled.iterate(300)
    e = exploitability(tree, sampled.average())
    assert e.total < 0.02 and abs(e.value - float(KUHN_VALUE)) < 0.01


def test_leduc_cfr_plus_reaches_its_value():
    tree = leduc()
    solver = CFRPlus(tree)
    solver.iterate(1500)
    e = exploitability(tree, solver.average())
    assert abs(e.value - LEDUC_VALUE) < 5e-4
    assert 0 <= e.total < 2e-4


def test_uniform_play_is_exploitable_and_best_responses_are_consistent():
    tree = leduc()
    uniform = uniform_strategy(tree)
    e = exploitability(tree, uniform)
    assert e.total > 1.0  # a uniform Leduc player loses a lot to a best responder
    best0, choice0 = best_response(tree, uniform, 0)
    assert best0 == pytest.approx(expected_value(tree, choice0))  # the pure response earns what it claims
    assert set(np.unique(choice0[tree.offset[tree.decisions(0)[0]]:][:3])) <= {0.0, 1.0}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_best_response_against_every_pure_strategy_of_kuhn(seed):
    tree = kuhn()
    strategy = random_strategy(tree, seed)
    policy = kuhn_policy(tree, strategy)
    assert expected_value(tree, strategy) == pytest.approx(kuhn_value(policy), abs=1e-12)
    for p in (0, 1):
        value, _ = best_response(tree, strategy, p)
        assert value == pytest.approx(kuhn_pure_best(policy, p), abs=1e-12)


@pytest.mark.parametrize("seed", [4, 5])
def test_best_response_history_by_history_on_leduc(seed):
    tree = leduc()
    strategy = random_strategy(tree, seed)
    assert expected_value(tree, strategy) == pytest.approx(history_value(tree, strategy), abs=1e-12)
    for p in (0, 1):
        assert best_response(tree, strategy, p)[0] == pytest.approx(history_best_response(tree, strategy, p),
                                                                    abs=1e-12)


def test_the_tree_interface_refuses_what_it_cannot_solve():
    with pytest.raises(ValueError, match="probability vector"):
        TreeBuilder([0.5, 0.6], [1.0])
    b = TreeBuilder([1.0], [1.0])
    b.node(-1, DECISION, player=0, types=(1, 1))
    with pytest.raises(ValueError, match="no actions"):
        b.freeze()
    with pytest.raises(ValueError, match="entries"):
        expected_value(kuhn(), np.zeros(3))
