"""The equilibrium-set program (``research.equilibrium_set``), the structure of a Quintet
deal's equilibria (``research.quintet_structure``) and the pure security level
(``research.pure_security``): against brute force on small games, known values and the
identities their docstrings prove."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matrix_game import MatrixGame
from research.equilibrium_set import EquilibriumSet
from research.pure_security import (
    _resplit_classes,
    _resplits,
    _weak_resplit,
    exploitability,
    least_bound,
    pure_security_level,
    reorder_gain,
    reorder_table,
    tie_classes,
)
from research.quintet_structure import (
    best_responses_in_orbits,
    concession,
    coupling_lower_bound,
    fewest_arrangements,
    marginal_structure,
    percentiles,
    tier_of,
    verdict_of,
    weakest_slot,
)

from quintet.game import Deal
from solver.advisor.equilibrium import equilibrium
from solver.games.quintet_game import QuintetGame
from solver.problem.deal_tables import DealTables

WEIGHTS = (3, 4, 5, 6, 7)


# rock, paper, scissors and a second copy of scissors: the equilibria are (1/3, 1/3, t, 1/3 − t)
RPSS = np.array([[0, -1, 1, 1], [1, 0, -1, -1], [-1, 1, 0, 0], [-1, 1, 0, 0]], dtype=float)


@pytest.mark.parametrize("coordinate, expected", [(0, 1 / 3), (2, 1 / 3), (3, 1 / 3)])
def test_equilibrium_set_maximum_of_a_coordinate(coordinate, expected):
    """The largest probability of a strategy over the equilibrium set, from one strategy's start
    (columns and rows generated): a scissors copy can take all of scissors' third."""
    game = MatrixGame(RPSS)
    c = np.eye(4)[coordinate]
    eqset = EquilibriumSet(game, columns=[0], rows=[0])
    result = eqset.maximize(lambda s: c[list(s)], game.pricer(c))
    assert result.settled
    assert result.bound == pytest.approx(expected, abs=1e-7)
    assert result.value == pytest.approx(expected, abs=1e-6)
    x = np.zeros(4)
    x[list(result.support)] = result.probabilities
    assert (RPSS @ x).max() <= 1e-7  # the mix reaching it is an equilibrium


def test_equilibrium_set_target_settles_early():
    """With a target the search stops once the question is answered: x_3 can exceed 0.2."""
    game = MatrixGame(RPSS)
    c = np.eye(4)[3]
    eqset = EquilibriumSet(game, columns=[0, 1, 2, 3], rows=[0, 1, 2, 3])
    result = eqset.maximize(lambda s: c[list(s)], game.pricer(c), target=0.2)
    assert result.settled and result.value > 0.2 + 1e-4


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_equilibrium_set_bounds_enclose_the_brute_force_maximum(seed):
    """On random symmetric games the proven bound is ≥ and the certified value ≤ the maximum of a
    random objective over the equilibria, found by a full LP over all strategies."""
    from solver.games.lp import solve_lp

    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 7))
    B = rng.integers(-3, 4, size=(n, n)).astype(float)
    A = B - B.T
    c = rng.random(n)
    full = np.vstack([A, np.ones((1, n))])
    x, best, _ = solve_lp(c, full, np.append(np.full(n, -np.inf), 1.0), np.append(np.full(n, 1e-9), 1.0),
                          var_lower=np.zeros(n), var_upper=np.ones(n), maximize=True, what="test")
    game = MatrixGame(A)
    eqset = EquilibriumSet(game, columns=[int(np.argmax(x))], rows=[])
    result = eqset.maximize(lambda s: c[list(s)], game.pricer(c))
    assert result.bound >= best - 1e-6
    assert result.value <= best + 1e-6
    assert result.settled and result.bound - result.value <= 1e-6


@pytest.fixture(scope="module")
def easy_deal():
    """A deal whose exact equilibrium is quick, with its game and mix."""
    deal = Deal.from_exposed("As Ks Qs Js Ts Ah Kh")
    tables = DealTables.build(deal)
    game = QuintetGame(tables)
    eq = equilibrium(deal, epsilon=0.0, tables=tables, time_limit=120)
    assert eq.exploitability <= 1e-9
    support = [tuple(tables.index_of(m) for m in a.packets) for _, a in eq.mix]
    return game, support, np.array([p for p, _ in eq.mix])


def test_abel_identity_of_the_uniqueness_argument(easy_deal):
    """u(x, x₀) = Σ_s w_s Σ_r Δg_s(r) (F_s(r) − F₀_s(r)), Δg_s(r) = m₀_s(r−1) + m₀_s(r): the
    identity the uniqueness proof rests on, for x₀ the equilibrium and x random mixes of arrangements."""
    game, support, probs = easy_deal
    m0 = game.marginals(support, probs)
    rng = np.random.default_rng(0)
    orbit = best_responses_in_orbits(game, support, probs, tolerance=50.0)  # any slot orders
    for _ in range(5):
        pick = rng.choice(len(orbit), size=min(6, len(orbit)), replace=False)
        mix = [orbit[i] for i in pick]
        p = rng.dirichlet(np.ones(len(mix)))
        m = game.marginals(mix, p)
        F = np.cumsum(m[:, ::-1], axis=1)[:, ::-1]  # F[s, r] = P(class ≥ r)
        F0 = np.cumsum(m0[:, ::-1], axis=1)[:, ::-1]
        dg = m0 + np.hstack([np.zeros((5, 1)), m0[:, :-1]])
        identity = sum(WEIGHTS[s] * (dg[s, 1:] * (F[s, 1:] - F0[s, 1:])).sum() for s in range(5))
        direct = float(p @ game.payoffs(mix, support) @ probs)
        assert identity == pytest.approx(direct, abs=1e-9)


@pytest.mark.slow
def test_marginal_structure_of_an_easy_deal(easy_deal):
    game, support, probs = easy_deal
    ms = marginal_structure(game, support, probs)
    assert ms.verdict in ("unique", "not unique", "undecided")
    assert ms.tails
    for tb in ms.tails:
        assert tb.bound >= tb.found - 1e-7  # m₀ itself is an equilibrium: no bound below its tail
    if ms.verdict == "unique":
        assert all(r < 1e-3 for r in ms.tv_radius)
    fewest = fewest_arrangements(game, ms.marginals, ms.columns, time_limit=20.0)  # any feasible support will do
    assert fewest is not None
    sup, p, bound, _ = fewest
    assert len(sup) <= len(support)
    assert np.allclose(game.marginals(sup, p), ms.marginals, atol=1e-7)
    r = game.best_response(sup, p, time_limit=60, hint=None, stop_event=None)
    assert r.value <= 1e-7  # same marginals, so an equilibrium
    lower, _ = coupling_lower_bound(ms.marginals, ms.class_radius, time_limit=10.0)
    if ms.verdict == "unique":
        assert lower <= len(sup)


def test_coupling_lower_bound_on_known_marginals():
    """Two slots with marginals (½, ½) and (⅓, ⅓, ⅓) need 4 atoms (no common refinement), with
    (½, ½) twice only 2."""
    m = np.zeros((2, 4))
    m[0, :2] = 0.5
    m[1, :3] = 1 / 3
    exact = [{r: 0.0 for r in range(4)}] * 2
    assert coupling_lower_bound(m, exact)[0] == 4
    m[1] = 0
    m[1, 2:] = 0.5
    assert coupling_lower_bound(m, exact)[0] == 2


def test_coupling_lower_bound_counts_only_robust_atoms():
    """(½, ½) against (½, 0.49, 0.01) needs 3 atoms, but an atom of 0.01 within the certified
    radius of 0.02 may be 0 in another equilibrium: then 2 — the bound must not claim 3."""
    m = np.zeros((2, 3))
    m[0, :2] = 0.5
    m[1] = (0.5, 0.49, 0.01)
    assert coupling_lower_bound(m, [{r: 0.0 for r in range(3)}] * 2)[0] == 3
    assert coupling_lower_bound(m, [{r: 0.0 for r in range(3)}, {0: 0.0, 1: 0.0, 2: 0.02}])[0] == 2


def test_verdict_counts_a_witness_only_within_the_proven_bound():
    """A 10⁻⁷-equilibrium above the proven bound of the exact equilibria proves nothing beyond it:
    (found, witness value, bound) triples."""
    assert verdict_of([(0.3, 0.3, 0.3 + 5e-8)]) == ("unique", 0.0)
    verdict, admitted = verdict_of([(0.3, 0.3 + 1.5e-4, 0.3 + 1.4e-5)])  # Ad Kd Qs Qd Qc Tc 8h's tail
    assert verdict == "undecided" and admitted == pytest.approx(1.4e-5)
    verdict, admitted = verdict_of([(0.3, 0.42, 0.5)])
    assert verdict == "not unique" and admitted == pytest.approx(0.12)
    assert tier_of(verdict, admitted, 0.24) == "not unique: material"
    assert tier_of("not unique", 5e-4, 9e-4) == "not unique: small"
    assert tier_of("not unique", 5e-4, 2e-3) == "not unique: between"


def test_concession_statistics(easy_deal):
    game, support, probs = easy_deal
    m0 = game.marginals(support, probs)
    c = concession(game, m0)
    pooled = m0.mean(axis=0)
    assert np.mean(c["weakest_fifth"]) == pytest.approx(c["weakest_fifth_baseline"][0], abs=1e-12)
    assert all(0 <= v <= 1 for v in c["mean_percentile"])
    pct = percentiles(game)
    assert np.all(np.diff(pct) > 0) and 0 < pct[0] and pct[-1] < 1
    assert sum(weakest_slot(game, support, probs)) == pytest.approx(1.0)
    assert pooled.sum() == pytest.approx(1.0)


def brute_reorder(classes, weights=WEIGHTS):  # type: ignore[no-untyped-def]
    return max(sum(w * np.sign(classes[sigma[s]] - classes[s]) for s, w in enumerate(weights))
               for sigma in itertools.permutations(range(5)))


def test_reorder_bound_values():
    """The shift argument: five strengths, the strongest in slot 5: 11; elsewhere more; the least
    bounds per tie structure; R against brute force on every weak order."""
    assert reorder_gain((0, 1, 2, 3, 4), WEIGHTS) == 11
    assert reorder_gain((4, 3, 2, 1, 0), WEIGHTS) == 25 - 2 * 3
    table = reorder_table(WEIGHTS)
    assert table[(1, 1, 1, 1, 1)][0] == 11
    assert least_bound((2, 1, 1, 1), WEIGHTS) == 6
    assert least_bound((2, 2, 1), WEIGHTS) == 2
    assert least_bound((3, 1, 1), WEIGHTS) == 2
    assert least_bound((3, 2), WEIGHTS) == 0
    for ranks in itertools.product(range(3), repeat=5):
        assert reorder_gain(ranks, WEIGHTS) == brute_reorder(ranks)


@pytest.mark.parametrize("exposed", ["Kh Kd Jc 9h 9d 9c 7c", "Ad Jc Td 9c 7h 7d 7c"])
def test_resplits_and_weak_certificates(exposed):
    """The vectorised re-split classes equal the plain enumeration; every weak class's re-split
    beats both tied hands (the certificate the lower bound 7 rests on), on every checked pair."""
    tables = DealTables.build(Deal.from_exposed(exposed))
    game = QuintetGame(tables)
    masks = tables.masks.astype(np.int64)
    index = {int(m): i for i, m in enumerate(masks.tolist())}
    ties = tie_classes(game)
    assert ties.weak and ties.strong
    pairs = [p for sets in ties.strong.values() for p in sets][:50]
    unions = np.array([masks[a] | masks[b] for a, b in pairs])
    ca, cb = _resplit_classes(game, unions)
    for row, u in enumerate(unions.tolist()):
        plain = sorted((int(tables.classes[index[a]]), int(tables.classes[index[b]])) for a, b in _resplits(u, 32))
        assert sorted(zip(ca[row].tolist(), cb[row].tolist(), strict=True)) == plain
    classes = tables.classes
    by_class: dict[int, list[int]] = {}
    for i, c in enumerate(classes.tolist()):
        by_class.setdefault(c, []).append(i)
    rng = np.random.default_rng(1)
    for c in list(ties.weak)[:40]:
        members = by_class[c]
        for _ in range(5):
            a, b = rng.choice(members, 2, replace=False)
            if masks[a] & masks[b]:
                continue
            x, y = _weak_resplit(game, (int(a), int(b)))
            assert x | y == masks[a] | masks[b] and x & y == 0
            assert classes[index[x]] > c and classes[index[y]] > c


@pytest.mark.parametrize("evaluations", [pytest.param(1500, marks=pytest.mark.slow), 40])
def test_pure_security_level_brackets_the_truth(evaluations):
    """lower ≤ upper, the arrangement returned has E = upper, and no deal goes below 2."""
    deal = Deal.from_exposed("Ad Jc Td 9c 7h 7d 7c")
    tables = DealTables.build(deal)
    game = QuintetGame(tables)
    level = pure_security_level(game, max_evaluations=evaluations, constructions=3 if evaluations < 100 else 40,
                                time_limit=60.0)
    assert level.lower <= level.upper
    value, _ = exploitability(game, level.arrangement)
    assert value == pytest.approx(level.upper)
    assert level.lower >= 2  # two tie groups are the least any deal allows once triples are bounded
