"""The tie search (``research.tie_search``) that closes pure security levels: its two
exclusion levels against brute force, and its answers against known levels."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
from research.pure_security import exploitability
from research.tie_search import _SPLIT15, _SUBSETS15, _Master, close_level

from quintet.game import Deal
from solver.games.quintet_game import QuintetGame
from solver.problem.deal_tables import DealTables


@pytest.fixture(scope="module")
def game():
    return QuintetGame(DealTables.build(Deal.random(2026)))


def _rests(game, n, seed):
    live = int(game.tables.deal.live)
    cards = [c for c in range(64) if live >> c & 1]
    rng = np.random.default_rng(seed)
    return [sum(1 << int(c) for c in rng.choice(cards, 15, replace=False)) for _ in range(n)]


def test_splits_are_every_split_once():
    assert len(_SPLIT15) == 126_126  # 15! / (5!³ 3!)
    groups = _SUBSETS15[_SPLIT15].reshape(len(_SPLIT15), 15)
    assert (np.sort(groups, axis=1) == np.arange(15)).all()
    assert len({tuple(sorted(map(tuple, _SUBSETS15[row].tolist()))) for row in _SPLIT15.tolist()}) == 126_126


def test_strongest_two_against_brute_force(game):
    master = _Master(game, 11, (), [], None, None)
    rests = _rests(game, 2, 1)
    m1, m2 = master.strongest_two(np.array(rests, dtype=np.int64))
    for rest, a, b in zip(rests, m1.tolist(), m2.tolist(), strict=True):
        inside = [p for p in range(len(master.masks)) if master.masks[p] & ~rest == 0]
        assert a == max(master.classes[p] for p in inside)
        assert b == max(min(master.classes[p], master.classes[q]) for p, q in combinations(inside, 2)
                        if master.masks[p] & master.masks[q] == 0)


def test_maximal_splits_are_the_pareto_front(game):
    """Every split's sorted class triple is dominated by a returned one, no returned one by another,
    and the returned packets are a split of the cards with those classes."""
    master = _Master(game, 11, (), [], None, None)
    for rest in _rests(game, 2, 2):
        packets, cls = master.maximal_splits(rest)
        cards = np.array([1 << c for c in range(64) if rest >> c & 1], dtype=np.int64)
        every = -np.sort(-master.classes[master.index_of(cards[_SUBSETS15].sum(axis=1))][_SPLIT15], axis=1)
        every = np.unique(every, axis=0)
        front = [t for t in every if not ((every >= t).all(axis=1) & (every != t).any(axis=1)).any()]
        assert sorted(map(tuple, front)) == sorted(map(tuple, cls.tolist()))
        for row, c in zip(packets.tolist(), cls.tolist(), strict=True):
            assert np.bitwise_or.reduce(master.masks[row]) == rest
            assert master.classes[row].tolist() == c


@pytest.mark.slow
def test_tie_search_never_proves_above_a_known_level():
    """On a deal whose level is 6 (proved by ``pure_security``: a tied pair reaching R = 6), a search
    told the best is 11 must find an arrangement below 11 — with E rechecked by a fresh exact best
    response — and may only call a level proved at or below 6."""
    game = QuintetGame(DealTables.build(Deal.random(2027)))
    found = close_level(game, 11, (), cpu_limit=10.0)
    assert found.upper <= 10
    value, proven = exploitability(game, found.arrangement)
    assert proven and value == found.upper
    assert not found.proved or found.upper <= 6
