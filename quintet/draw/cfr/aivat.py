"""Control variates for heads-up draw-poker matches after the exchange (AIVAT, Burch et al. 2018).

When a player whose strategy is known (a CFR bot) acts, the match's observer can compute the chips the
rest of the hand is worth to him after each of his actions — exactly, in the abstract game's betting,
with both players' REAL final hands (their show-down is decided) and both players' ways of playing on
(``fill_strategy``: a strategy's probabilities for its class; ``fill_best``: a responder's best reply to
its beliefs).  The control variate of his decision is the value over his probabilities minus the value
after the action he took: its mean is 0 whatever the values (he drew the action from those
probabilities), so a hand's chips plus the sum of its control variates is an unbiased estimate of the
chips, with the luck of the known players' mixed actions after the exchange removed.  With both players
known and exact values the sum telescopes: the estimate is the value at the first decision after the
exchange (``tests/test_cfr_curve.py`` checks both on a small game).  Not removed: the luck of the cards,
of the exchange, and of the actions before it.

``Watched`` wraps a ``CfrBot`` at a table and sums its control variates, seen from its own seat.
"""

from __future__ import annotations

from functools import cache
from typing import Protocol

import numpy as np
from numba import njit

from ..game import Action, State
from ..tables import tables
from . import kernels
from .bot import CfrBot, action_of
from .strategy import Strategy
from .tree import DECISION, ONES, SIGN, TERMINAL

__all__ = ["Watched", "Rows", "subtree_size", "fill_strategy", "fill_best", "realised", "strategy_arrays", "node_of",
           "check_same_betting"]


@njit(cache=True, nogil=True)
def subtree_size(t, root):
    """The number of nodes of the subtree of ``root`` (pre-order: they are the ids root .. root + size - 1)."""
    last = root
    while t.n_children[last] > 0:
        last = t.children[t.first[last] + t.n_children[last] - 1]
    return last + 1 - root


@njit(cache=True, nogil=True)
def fill_strategy(t, root, step, player, probs, x):
    """step[child - root] = the probability that ``player``, of type ``x``, plays to that child, at every
    decision of his in the subtree of ``root`` (probs: a strategy of the tree ``t``)."""
    for i in range(step.shape[0]):
        node = root + i
        if t.kind[node] != DECISION or t.player[node] != player:
            continue
        first, k, base = t.first[node], t.n_children[node], t.offset[node]
        for a in range(k):
            step[t.children[first + a] - root] = probs[base + x * k + a]


@njit(cache=True, nogil=True)
def fill_best(t, root, step, player, values):
    """step[child - root] = 1 for the child of highest ``values`` (the first of equals, as ``np.argmax``) at every
    decision of ``player`` in the subtree of ``root``, 0 for the others (values: per node, indexed from root)."""
    for i in range(step.shape[0]):
        node = root + i
        if t.kind[node] != DECISION or t.player[node] != player:
            continue
        first, k = t.first[node], t.n_children[node]
        best = 0
        for a in range(k):
            step[t.children[first + a] - root] = 0.0
            if values[t.children[first + a] - root] > values[t.children[first + best] - root]:
                best = a
        step[t.children[first + best] - root] = 1.0


@njit(cache=True, nogil=True)
def realised(t, root, step, me, sign):
    """Player ``me``'s expected chips (counted from the start of the hand) at every node of the subtree of
    ``root`` after the exchange, both players playing ``step`` (the probability of each child given its
    parent), his show-down won (sign 1), tied (0) or lost (-1).  Terminals of ``ONES`` and ``SIGN`` only."""
    size = step.shape[0]
    out = np.zeros(size)
    for i in range(size - 1, -1, -1):
        node = root + i
        if t.kind[node] == TERMINAL:
            v = 0.0
            for m in range(2):
                mid = t.matrix[node] if m == 0 else t.matrix2[node]
                if mid == ONES:
                    v += t.coef[node, m]
                elif mid == SIGN:
                    v += t.coef[node, m] * (sign if me == 0 else -sign)
            out[i] = v if me == 0 else -v
        else:
            first, k = t.first[node], t.n_children[node]
            for a in range(k):
                j = t.children[first + a] - root
                out[i] += step[j] * out[j]
    return out


@cache
def strategy_arrays(strategy: Strategy) -> tuple[kernels.TreeArrays, np.ndarray, np.ndarray, np.ndarray]:
    """The strategy's tree arrays, its probabilities (float64), its decision nodes and their offsets."""
    tree = strategy.game.tree
    nodes = np.flatnonzero(tree.kind == DECISION)
    return kernels.tree_arrays(tree), strategy.probabilities(), nodes, tree.offset[nodes]


def node_of(strategy: Strategy, offset: int) -> int:
    """The decision node whose block starts at ``offset`` (node ids are the betting's: alike in every
    abstraction of one terms)."""
    _, _, nodes, offsets = strategy_arrays(strategy)
    return int(nodes[np.searchsorted(offsets, offset)])


class Rows(Protocol):
    """A player of a match whose way of playing on after the exchange the observer can compute."""

    def rows(self, state: State, seat: int, player: int, root: int, step: np.ndarray) -> None:
        """Fill ``step`` at the decisions of abstract player ``player`` (at ``seat``) below node ``root``."""


class Watched:
    """A CFR bot at a table, and the sum of the control variates of its decisions after the exchange seen from
    its own seat (``correction``; reset it between hands you want apart).  ``other``: the player across the
    table (its ``rows``), set before play."""

    def __init__(self, bot: CfrBot, other: Rows | None = None) -> None:
        self.bot = bot
        self.other = other
        self.correction = 0.0

    def rows(self, state: State, seat: int, player: int, root: int, step: np.ndarray) -> None:
        strategy = self.bot._solved()
        t, probs, _, _ = strategy_arrays(strategy)
        fill_strategy(t, root, step, player, probs, strategy.classes.post_class(state.hands[seat]))

    def act(self, state: State) -> Action:
        action = self.bot.act(state)
        if None in state.drawn:
            return action
        seat = state.actor
        assert seat is not None and self.other is not None
        hand, codes, _ = self.bot.probabilities(state, seat)
        me = hand.spot.turn  # type: ignore[union-attr]
        strategy = self.bot._solved()
        t = strategy_arrays(strategy)[0]
        root = node_of(strategy, hand.offset)
        step = np.zeros(subtree_size(t, root))
        self.rows(state, seat, me, root, step)
        other = hand.seats[1 - me]
        self.other.rows(state, other, 1 - me, root, step)
        keys = tables(strategy.rules)
        sign = float(np.sign(keys.key(state.hands[seat]) - keys.key(state.hands[other])))
        out = realised(t, root, step, me, sign)
        taken = [action_of(c, state, seat) for c in codes].index(action)
        self.correction += out[0] - out[t.children[t.first[root] + taken] - root]
        return action


def check_same_betting(a: Strategy, b: Strategy) -> None:
    """``ValueError`` unless the two strategies' trees have one public structure (node ids shared)."""
    ta, tb = a.game.tree, b.game.tree
    if ta.n_nodes != tb.n_nodes or not np.array_equal(ta.first, tb.first) or not np.array_equal(ta.kind, tb.kind):
        raise ValueError("the two strategies are of different betting trees")

