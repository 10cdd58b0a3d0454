"""Counterfactual regret minimisation and exact best responses over any ``PublicTree``.

The algorithms know nothing of cards or poker: they take a game through the small interface of
``quintet.draw.cfr.tree`` (OpenSpiel's separation of games and algorithms).

* ``CFRPlus`` — CFR+ (Tammelin 2014): regret matching+ (regrets floored at 0), alternating
  updates, the average strategy weighted linearly by iteration; ``plus=False, linear=False`` is
  vanilla CFR.  Each iteration walks the whole public tree once per player with vectors over the
  types (chance vectorised), so one iteration is exact, not sampled.
* ``ExternalSampling`` — external-sampling Monte-Carlo CFR (Lanctot et al. 2009): each walk draws
  the types, chance and the opponent's actions and explores every action of the traverser.
* ``best_response``, ``expected_value``, ``exploitability`` — exact, by one vector walk.

Strategies are float64 arrays of ``tree.size`` (a probability per type and action of every
decision node; see ``quintet.draw.cfr.kernels``).  Payoffs are to player 0, in the game's units.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import kernels
from .tree import PublicTree

__all__ = ["CFRPlus", "ExternalSampling", "Exploitability", "best_response", "expected_value", "exploitability",
           "uniform_strategy"]


class CFRPlus:
    """CFR+ on a public tree (module doc); ``iterate(n)`` runs n more iterations."""

    def __init__(self, tree: PublicTree, *, plus: bool = True, linear: bool = True) -> None:
        self.tree = tree
        self.plus = plus
        self.linear = linear
        self.iterations = 0
        self.regrets = np.zeros(tree.size)
        self.weights = np.zeros(tree.size)  # the average strategy, unnormalised
        self._t = kernels.tree_arrays(tree)
        self._work = kernels.Work.of(tree)

    def iterate(self, n: int = 1) -> None:
        w, t, tree = self._work, self._t, self.tree
        for _ in range(n):
            self.iterations += 1
            weight = float(self.iterations) if self.linear else 1.0
            for player in (0, 1):
                kernels.walk(t, w, tree.prior[0], tree.prior[1], player, kernels.CFR_PLUS if self.plus else kernels.CFR,
                             self.regrets, self.weights, weight)

    def average(self) -> np.ndarray:
        """The average strategy (the one that converges to an equilibrium)."""
        out = np.empty(self.tree.size)
        kernels.normalise(self._t, self.weights, out)
        return out

    def current(self) -> np.ndarray:
        out = np.empty(self.tree.size)
        kernels.current_strategy(self._t, self.regrets, out)
        return out


class ExternalSampling:
    """External-sampling MCCFR (module doc): an iteration is ``walks`` sampled walks per player."""

    def __init__(self, tree: PublicTree, *, seed: int = 0, walks: int = 1000, linear: bool = True) -> None:
        self.tree = tree
        self.walks = walks
        self.linear = linear
        self.iterations = 0
        self.regrets = np.zeros(tree.size)
        self.weights = np.zeros(tree.size)
        self._t = kernels.tree_arrays(tree)
        self._work = kernels.Work.of(tree)
        self._seed = seed

    def iterate(self, n: int = 1) -> None:
        w, t, tree = self._work, self._t, self.tree
        for _ in range(n):
            seed = self._seed if self.iterations == 0 else -1  # the generator is seeded once
            self.iterations += 1
            weight = float(self.iterations) if self.linear else 1.0
            for player in (0, 1):
                kernels.es_pass(t, w, tree.prior[0], tree.prior[1], player, self.walks, seed, self.regrets,
                                self.weights, weight)
                seed = -1

    def average(self) -> np.ndarray:
        out = np.empty(self.tree.size)
        kernels.normalise(self._t, self.weights, out)
        return out


def uniform_strategy(tree: PublicTree) -> np.ndarray:
    out = np.empty(tree.size)
    kernels.normalise(kernels.tree_arrays(tree), np.zeros(tree.size), out)
    return out


def _check(tree: PublicTree, strategy: np.ndarray) -> np.ndarray:
    s = np.ascontiguousarray(strategy, dtype=np.float64)
    if s.shape != (tree.size,):
        raise ValueError(f"a strategy of this tree has {tree.size} entries, got shape {s.shape}")
    return s


def best_response(tree: PublicTree, strategy: np.ndarray, player: int) -> tuple[float, np.ndarray]:
    """Player ``player``'s best payoff against the other player's part of ``strategy``, and a pure best
    response (``strategy`` with the player's blocks replaced by its choices; 0/1 entries)."""
    s = _check(tree, strategy)
    choice = s.copy()
    value = kernels.walk(kernels.tree_arrays(tree), kernels.Work.of(tree), tree.prior[0], tree.prior[1], player,
                         kernels.BEST, s, choice, 0.0)
    return float(value), choice


def expected_value(tree: PublicTree, strategy: np.ndarray,
                   reach: tuple[np.ndarray, np.ndarray] | None = None) -> float:
    """Player 0's expected payoff when both play ``strategy``, the root's types drawn from ``reach`` (default
    the tree's prior)."""
    s = _check(tree, strategy)
    r0, r1 = tree.prior if reach is None else reach
    return float(kernels.walk(kernels.tree_arrays(tree), kernels.Work.of(tree), r0, r1, 0, kernels.FOLLOW, s, s, 0.0))


@dataclass(frozen=True)
class Exploitability:
    """``best0``: player 0's best-response payoff against the strategy's player 1; ``best1``: player 1's
    against its player 0; ``value``: player 0's payoff when both play it.  ``total`` = (best0 + best1) / 2,
    what a best responder wins per game above the value when it sits in each seat half the time
    (NashConv / 2; 0 exactly at an equilibrium)."""

    best0: float
    best1: float
    value: float

    @property
    def total(self) -> float:
        return (self.best0 + self.best1) / 2


def exploitability(tree: PublicTree, strategy: np.ndarray) -> Exploitability:
    """Exact exploitability of ``strategy`` (both players' parts) in the tree's game."""
    best0, _ = best_response(tree, strategy, 0)
    best1, _ = best_response(tree, strategy, 1)
    return Exploitability(best0, best1, expected_value(tree, strategy))
