"""The abstraction curve of heads-up draw poker: hand classes of several sizes numbered by strength, the control
variates of ``quintet.draw.cfr.aivat`` unbiased (exactly, on a small game), the monotonicity check, and the
curve benchmark's argument errors."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from test_benchmarks import BENCHMARKS, load_benchmark

from quintet.draw.cfr import kernels
from quintet.draw.cfr.aivat import fill_best, fill_strategy, realised, subtree_size
from quintet.draw.cfr.betting import DRAW, FOLD, Betting, Navigator
from quintet.draw.cfr.classes import best_draw, emd_clusters, emd_distance, hand_classes
from quintet.draw.cfr.solve import uniform_strategy
from quintet.draw.cfr.strategy import FORMAT, Strategy, _header_key, monotonicity, strategy_for, strategy_key
from quintet.draw.cfr.tree import DECISION, ONES, SIGN, TERMINAL, TreeBuilder
from quintet.draw.game import Terms
from quintet.rules import get_rules

RULES = get_rules("draw36-joker-11")


@pytest.mark.parametrize("size", [(6, 6), (10, 10), (30, 32)])
def test_classes_of_each_size_are_numbered_by_strength(size):
    """Before the exchange: within each group (the cards the best exchange draws) a higher class has a higher
    mean final percentile (E*), the groups in order of cards drawn; after it: percentile ranges in order."""
    c = hand_classes(RULES, *size)
    assert c.n_pre >= size[0] and 2 <= c.n_post <= size[1]
    assert np.isclose(c.prior.sum(), 1.0) and np.all(c.prior > 0)
    for a in range(c.n_pre - 1):
        if c.group_of(a) == c.group_of(a + 1):
            assert c.pre_range[a, 1] <= c.pre_range[a + 1, 0]
        else:
            assert c.group_of(a) < c.group_of(a + 1)
    assert np.all(np.diff(c.post_range[:, 0]) > 0) and np.all(c.post_range[:-1, 1] == c.post_range[1:, 0])
    groups = [c.group_of(a) for a in range(c.n_pre)]
    rows = c.transitions[groups, np.arange(c.n_pre)]  # every class drawing its own best exchange
    assert np.allclose(rows.sum(axis=1), 1.0)


def transport(a, b, x):
    """The cheapest way to move histogram a onto histogram b (both normalised) along the line x, by the north-west
    corner rule (optimal in one dimension): a brute force for ``emd_distance``."""
    a, b = list(a / a.sum()), list(b / b.sum())
    i = j = 0
    cost = 0.0
    while i < len(a) and j < len(b):
        moved = min(a[i], b[j])
        cost += moved * abs(x[i] - x[j])
        a[i] -= moved
        b[j] -= moved
        if a[i] <= 1e-15:
            i += 1
        else:
            j += 1
    return cost


def test_emd_distance_is_the_cheapest_transport():
    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(0, 1, 7))
    for _ in range(20):
        a, b = rng.integers(0, 5, 7).astype(float) + 0.01, rng.integers(0, 5, 7).astype(float) + 0.01
        assert emd_distance(a, b, x) == pytest.approx(transport(a, b, x), abs=1e-12)


def cost(hist, weight, x, labels):
    """Σ weight × EMD to the cluster's centre, the centre the coordinate-wise weighted median of its CDFs."""
    cdf = np.cumsum(hist, axis=1) / hist.sum(axis=1, keepdims=True)
    total = 0.0
    for c in set(labels.tolist()):
        rows = labels == c
        centre = np.array([np.sort(col)[np.searchsorted(np.cumsum(weight[rows][np.argsort(col)]),
                                                        weight[rows].sum() / 2)] for col in cdf[rows].T])
        total += float(weight[rows] @ (np.abs(cdf[rows] - centre)[:, :-1] @ np.diff(x)))
    return total


def test_emd_clusters_find_the_best_partition_of_a_small_case():
    """Eight histograms of two shapes at several means (a pair and a spread): the clusters equal the best of every
    partition into two by the exact EMD objective, and are numbered by mean (the weaker cluster first)."""
    x = np.linspace(0.0, 1.0, 5)
    hist = np.array([[4, 1, 0, 0, 0], [3, 2, 0, 0, 0], [5, 0, 0, 0, 1], [2, 2, 1, 0, 0],
                     [0, 0, 1, 2, 3], [0, 0, 0, 2, 4], [1, 0, 0, 1, 5], [0, 0, 2, 3, 2]], dtype=float)
    weight = np.array([1.0, 2.0, 1.0, 1.0, 3.0, 1.0, 1.0, 2.0])
    labels = emd_clusters(hist, weight, x, 2)
    best = min(cost(hist, weight, x, np.array(p)) for p in itertools.product(range(2), repeat=len(hist))
               if len(set(p)) == 2)
    assert cost(hist, weight, x, labels) == pytest.approx(best)
    means = (hist @ x) / hist.sum(axis=1)
    assert means[labels == 0].max() < means[labels == 1].min()


def test_classes_by_distribution_keep_the_groups_and_look_hands_up(tmp_path):
    """EMD classes: one group per number of cards drawn as by mean, each hand's class in its group and its E* in
    the class's range; stored and read back by a strategy file unchanged."""
    c = hand_classes(RULES, 30, 32, True)
    by_mean = hand_classes(RULES, 30, 32)
    assert c.pre_of is not None and by_mean.pre_of is None
    assert np.array_equal(c.group_first, by_mean.group_first) and np.array_equal(c.post_cuts, by_mean.post_cuts)
    assert np.isclose(c.prior.sum(), 1.0) and not np.allclose(c.prior, by_mean.prior)
    rng = np.random.default_rng(5)
    deck = np.array(RULES.deck.cards())
    for _ in range(300):
        hand = rng.choice(deck, 5, replace=False).tolist()
        drawn, value = best_draw(RULES, hand)
        x = c.pre_class(hand)
        assert c.group_of(x) == drawn
        assert c.pre_range[x, 0] <= value <= c.pre_range[x, 1]
    betting = Betting(Terms())
    steps = np.zeros(Navigator(betting, c.n_pre, c.n_post).entries(betting.root()), dtype=np.uint8)
    info = {"format": FORMAT, "key": _header_key(RULES, Terms(), 30, 32, True)}
    path = tmp_path / f"{strategy_key(RULES, Terms(), 30, 32, True)}.npz"
    assert path.name != f"{strategy_key(RULES, Terms(), 30, 32)}.npz"
    Strategy(betting, c, steps, info).save(path)
    back = Strategy.load(path, RULES, Terms()).classes
    assert np.array_equal(back.pre_of, c.pre_of) and np.array_equal(back.transitions, c.transitions)


@pytest.mark.parametrize("emd", [False, True])
def test_the_joker_apart_splits_each_group_and_numbers_it_by_strength(emd, tmp_path):
    """Joker classes: the groups as without it; every class holds only hands with the joker or only hands
    without, both kinds seen; by mean, the classes of one kind in a group in order of E*; a hand's class in its
    group; stored and read back under its own key."""
    c = hand_classes(RULES, 30, 32, emd, True)
    plain = hand_classes(RULES, 30, 32, emd)
    assert c.pre_of is not None and np.isclose(c.prior.sum(), 1.0) and np.all(c.prior > 0)
    assert [c.group_first[d + 1] > c.group_first[d] for d in range(6)] == \
        [plain.group_first[d + 1] > plain.group_first[d] for d in range(6)]
    joker = RULES.deck.joker_cards[0]
    holds: dict[int, set[bool]] = {}
    rng = np.random.default_rng(6)
    deck = np.array(RULES.deck.cards())
    for _ in range(400):
        hand = rng.choice(deck, 5, replace=False).tolist()
        drawn, v = best_draw(RULES, hand)
        x = c.pre_class(hand)
        assert c.group_of(x) == drawn and c.pre_range[x, 0] <= v <= c.pre_range[x, 1]
        holds.setdefault(x, set()).add(joker in hand)
    assert all(len(kinds) == 1 for kinds in holds.values())
    assert {True, False} <= {next(iter(kinds)) for kinds in holds.values()}
    if not emd:  # by mean: the classes of one kind in a group cut its E* in order
        for g in range(6):
            for kind in (True, False):
                mine = [x for x in range(c.group_first[g], c.group_first[g + 1]) if holds.get(x) == {kind}]
                assert all(c.pre_range[x, 1] <= c.pre_range[y, 0] for x, y in itertools.pairwise(mine))
    path = tmp_path / f"{strategy_key(RULES, Terms(), 30, 32, emd, True)}.npz"
    assert path.name != f"{strategy_key(RULES, Terms(), 30, 32, emd)}.npz"
    betting = Betting(Terms())
    steps = np.zeros(Navigator(betting, c.n_pre, c.n_post).entries(betting.root()), dtype=np.uint8)
    Strategy(betting, c, steps, {"format": FORMAT, "key": _header_key(RULES, Terms(), 30, 32, emd, True)}).save(path)
    back = Strategy.load(path, RULES, Terms()).classes
    assert np.array_equal(back.pre_of, c.pre_of) and np.array_equal(back.transitions, c.transitions)


# ---------------------------------------------------------------- control variates ------------


def small_game():
    """Two players, three types each drawn independently, two betting rounds of check or bet (1, then 2), fold or
    call facing a bet; at the show-down the higher type takes the pot (``SIGN``), equal types split it.  ``c``:
    what each player has put in; player 0's chips are +-c."""
    b = TreeBuilder([0.2, 0.3, 0.5], [0.5, 0.25, 0.25])
    types = (3, 3)

    def on(parent, action, c, bet, last):  # the next round, or the show-down after the last
        if last:
            b.node(parent, TERMINAL, action=action, types=types, matrix=SIGN, coef=(c, 0.0))
        else:
            round_(parent, action, c, 2 * bet, True)

    def fold(parent, chips):
        b.node(parent, TERMINAL, action=FOLD, types=types, matrix=ONES, coef=(chips, 0.0))

    def round_(parent, action, c, bet, last):
        first = b.node(parent, DECISION, player=0, action=action, types=types)
        check = b.node(first, DECISION, player=1, action=0, types=types)
        on(check, 0, c, bet, last)
        facing = b.node(check, DECISION, player=0, action=1, types=types)
        fold(facing, -c)
        on(facing, 2, c + bet, bet, last)
        bet0 = b.node(first, DECISION, player=1, action=1, types=types)
        fold(bet0, c)
        on(bet0, 2, c + bet, bet, last)

    round_(-1, -1, 1.0, 1.0, False)
    return b.freeze()


def paths(t, probs, x, node=0, p=1.0, taken=()):
    """Every path from ``node`` to a terminal: (its probability, the decisions and children on it, the terminal)."""
    if t.kind[node] == TERMINAL:
        yield p, taken, node
        return
    k, first, base = t.n_children[node], t.first[node], t.offset[node]
    me = t.player[node]
    for a in range(k):
        q = probs[base + x[me] * k + a]
        if q > 0:
            yield from paths(t, probs, x, int(t.children[first + a]), p * q, (*taken, (node, a)))


def payoff(t, node, sign):
    """Player 0's chips at a terminal, the show-down won (1), tied (0) or lost (-1) by him."""
    return t.coef[node, 0] * (sign if t.matrix[node] == SIGN else 1.0)


def corrections(t, probs, x, sign, taken, known, best_values=None):
    """The sum over a path of the control variates of the decisions of the ``known`` players, each seen from the
    acting player's seat and added for player 0 (subtracted for player 1), as ``Watched`` and ``deal_totals`` do;
    a player not known plays ``fill_best`` on ``best_values``."""
    total = 0.0
    for node, a in taken:
        me = int(t.player[node])
        if me not in known:
            continue
        step = np.zeros(subtree_size(t, node))
        for p in (0, 1):
            if p in known:
                fill_strategy(t, node, step, p, probs, x[p])
            else:
                fill_best(t, node, step, p, best_values[node:node + step.shape[0]])
        out = realised(t, node, step, me, sign if me == 0 else -sign)
        cv = out[0] - out[t.children[t.first[node] + a] - node]
        total += cv if me == 0 else -cv
    return total


@pytest.fixture(scope="module")
def game():
    tree = small_game()
    rng = np.random.default_rng(7)
    probs = uniform_strategy(tree) * rng.uniform(0.05, 1.0, tree.size)
    t = kernels.tree_arrays(tree)
    for node in np.flatnonzero(tree.kind == DECISION).tolist():
        k, n = int(tree.count[node]), int(tree.types[node, tree.player[node]])
        block = probs[tree.offset[node]: tree.offset[node] + n * k].reshape(n, k)
        block /= block.sum(axis=1, keepdims=True)
    return tree, t, probs


@pytest.mark.parametrize("x", list(itertools.product(range(3), range(3))))
def test_control_variates_both_known_leave_the_value(game, x):
    """Both players known and the values exact: on every path chips + control variates = the value at the
    root (the sum telescopes), whose mean over the paths is the mean of the chips: unbiased, variance 0."""
    tree, t, probs = game
    sign = float(np.sign(x[0] - x[1]))
    step = np.zeros(subtree_size(t, 0))
    fill_strategy(t, 0, step, 0, probs, x[0])
    fill_strategy(t, 0, step, 1, probs, x[1])
    value = realised(t, 0, step, 0, sign)[0]
    mean = 0.0
    for p, taken, end in paths(t, probs, x):
        chips = payoff(t, end, sign)
        mean += p * chips
        assert chips + corrections(t, probs, x, sign, taken, (0, 1)) == pytest.approx(value, abs=1e-12)
    assert mean == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize("known", [0, 1])
def test_control_variates_of_one_known_player_are_unbiased(game, known):
    """One player known, the other playing a best reply to some values (``fill_best``, as the local best response
    does): the mean of chips + control variates over the paths equals the mean of the chips, for every deal of
    types; and the control variates are not all 0 (the check can fail)."""
    tree, t, probs = game
    values = np.random.default_rng(known).normal(size=tree.n_nodes)
    other = 1 - known
    step = np.zeros(subtree_size(t, 0))
    fill_best(t, 0, step, other, values)
    played = probs.copy()
    for node in np.flatnonzero((tree.kind == DECISION) & (tree.player == other)).tolist():
        k, base = int(tree.count[node]), int(tree.offset[node])
        for y in range(3):
            played[base + y * k: base + (y + 1) * k] = step[t.children[t.first[node]: t.first[node] + k]]
    moved = 0.0
    for x in itertools.product(range(3), range(3)):
        sign = float(np.sign(x[0] - x[1]))
        plain = corrected = 0.0
        for p, taken, end in paths(t, played, x):
            cv = corrections(t, probs, x, sign, taken, (known,), values)
            plain += p * payoff(t, end, sign)
            corrected += p * (payoff(t, end, sign) + cv)
            moved += abs(cv)
        assert corrected == pytest.approx(plain, abs=1e-12)
    assert moved > 0


# ---------------------------------------------------------------- monotonicity ----------------


@pytest.fixture(scope="module")
def shipped() -> Strategy:
    return strategy_for(RULES, Terms(), build=False)


def test_monotonicity_counts_a_stronger_class_that_folds_more(shipped):
    """A strategy that never folds is monotone; making one class fold at one decision after the exchange where a
    weaker class calls makes exactly that decision non-monotone."""
    tree = shipped.game.tree
    steps = shipped.steps.copy()
    target = None
    for node in tree.decisions().tolist():
        actions = tree.action[tree.child_list(node)]
        if actions[0] >= DRAW:
            continue
        n, k = int(tree.types[node, tree.player[node]]), len(actions)
        block = np.zeros((n, k), dtype=np.uint8)
        block[:, int(np.flatnonzero(actions != FOLD)[0])] = 255
        steps[tree.offset[node]: tree.offset[node] + n * k] = block.ravel()
        if target is None and FOLD in actions.tolist() and n == shipped.classes.n_post:
            target = (node, k, list(actions).index(FOLD))
    calls = dataclasses.replace(shipped, steps=steps)
    calls.__dict__["game"] = shipped.game
    m = monotonicity(calls)
    assert m["decisions"] > 0 and m["non_monotone"] == 0
    node, k, fold = target
    bent = steps.copy()
    row = tree.offset[node] + (shipped.classes.n_post - 1) * k  # the strongest class folds
    bent[row: row + k] = 0
    bent[row + fold] = 255
    broken = dataclasses.replace(shipped, steps=bent)
    broken.__dict__["game"] = shipped.game
    m2 = monotonicity(broken)
    assert m2["decisions"] == m["decisions"]
    assert m2["non_monotone"] == pytest.approx(1 / m["decisions"])


# ---------------------------------------------------------------- the benchmark's arguments ---


@pytest.mark.parametrize(("argv", "words"), [
    (["train", "--sizes", "10y10"], "a size is PRExPOST"),
    (["train", "--sizes", "1x10"], "at least 2 classes"),
    (["train", "--sizes", "10x10,10x10"], "given twice"),
    (["train", "--target", "0"], "argument --target: must be positive"),
    (["play", "--cpu-minutes", "-1"], "argument --cpu-minutes: must be positive"),
    (["curve"], "invalid choice"),
    (["confirm", "--sizes", "30x32"], "the base and at least one other size"),
    (["confirm", "--sizes", "30x32,30x32e", "--seed", "2030"], "within 1000 of the curve's"),
    (["confirm", "--hands", "0"], "argument --hands: must be at least 1"),
])
def test_curve_benchmark_argument_errors(argv, words, monkeypatch, capsys):
    module = load_benchmark(BENCHMARKS / "bench_cfr_sizes.py", "benchmark_bench_cfr_sizes", monkeypatch)
    with pytest.raises(SystemExit) as stop:
        module.main(argv)
    assert stop.value.code == 2
    assert words in capsys.readouterr().err


def test_curve_benchmark_play_needs_train(monkeypatch, capsys, tmp_path):
    module = load_benchmark(BENCHMARKS / "bench_cfr_sizes.py", "benchmark_bench_cfr_sizes", monkeypatch)
    monkeypatch.setattr(module, "DATA", tmp_path)
    for stage, words in (("play", "play needs the strategies of `train`"), ("report", "run `train` first")):
        with pytest.raises(SystemExit) as stop:
            module.main([stage])
        assert stop.value.code == 2
        assert words in capsys.readouterr().err
