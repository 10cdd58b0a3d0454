"""A local best response to the solved strategy in the REAL game: a lower bound on its real exploitability.

The strategy (``quintet.draw.cfr.strategy``) is an equilibrium of an abstract game in which a player
knows only the class of his hand; its exploitability there is exact.  A best response in the abstract
game sees classes too, so it cannot find what the abstraction loses.  ``LocalBestResponse`` is a bot
of the real game in the spirit of Lisý & Bowling (2017, "Equilibrium approximation quality of current
no-limit poker bots"): at each of its decisions it values every legal action against the strategy's
*range* — the other player's classes after the public line, by Bayes' rule from the class prior, the
exchange's transitions and the strategy's probabilities of the actions he took — and plays the best:

* **before the exchange and at the exchange**: the abstract game's best response to the strategy
  (``solve.best_response``) for the class of its real hand — the draw "draw d" keeps its best 5 - d
  cards (``bot.action_of``);
* **after the exchange**: for each legal action, the chips it is worth against that range when the
  responder continues by its best reply to every later move (an exact expectimax over the rest of the
  betting, a few hundred public nodes: ``_values``), the show-down against a final class q counted with
  its REAL hand: the share of class q's hands of the deck it beats minus the share it loses to
  (``edge``).  This is where it sees what the abstraction hides (two hands of one class tie there).

**Legal, hence a lower bound.**  The responder reads only its own cards (``state.hands[seat]``) and
the public line (``bot.line``: the actions and the number of cards each player drew); never the other
player's cards, the cards he drew, or the stock (``tests/test_lbr.py`` changes them and checks every
decision stays the same).  It is therefore a strategy of the real game, and no strategy wins more
against the CFR bot than a best response does: its mean win per hand, seated first and second equally
often (the game's value is then 0), is a lower bound on the strategy's exploitability in the real
game (``benchmarks/bench_lbr.py`` measures it with an interval).  Its beliefs are approximations
(no card removal between the two hands; within a class, hands as often as in the deck): they can only
make it a weaker responder, never make the bound invalid.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from ..game import Action, ActionKind, IllegalActionError, State
from ..tables import tables
from . import kernels
from .aivat import fill_best
from .betting import BEFORE, EXCHANGE, Spot
from .bot import CfrBot, action_of, line, opponent_range
from .solve import best_response
from .strategy import Strategy
from .tree import DECISION, ONES, SIGN, TERMINAL

__all__ = ["LocalBestResponse", "edge"]


def edge(strategy: Strategy, mask: int) -> np.ndarray:
    """float64[post classes]: for a final hand (card mask), P(it beats a hand of class q) - P(it loses to
    one), the hands of class q weighted as in the whole deck (no card removal)."""
    t = tables(strategy.rules)
    mine = int(t.classes(np.array([mask], dtype=np.uint64))[0])
    bucket = np.searchsorted(strategy.classes.post_cuts, t.percentiles, side="left")
    order = np.arange(t.n_classes)
    n = strategy.classes.n_post
    below = np.bincount(bucket, weights=t.class_counts * (order < mine), minlength=n)
    above = np.bincount(bucket, weights=t.class_counts * (order > mine), minlength=n)
    total = np.bincount(bucket, weights=t.class_counts, minlength=n)
    return np.divide(below - above, total, out=np.zeros(n), where=total > 0)


@njit(cache=True, nogil=True)
def _values(t, root, me, reach0, edge, probs):
    """The chips to the responder (player ``me``, counted from the start of the hand, times the opponent's
    total reach) at every node of the subtree of ``root`` after the exchange (pre-order: the subtree is the
    ids ``root ..``; out[i] is node root + i): the opponent, of reach ``reach0`` over his final classes at
    the root, plays ``probs``; the responder, whose show-down against class q is worth ``edge[q]``, plays
    its best reply (an expectimax: one pass down for the reach, one up for the values)."""
    last = root
    while t.n_children[last] > 0:
        last = t.children[t.first[last] + t.n_children[last] - 1]
    size = last + 1 - root
    n = reach0.shape[0]
    reach = np.zeros((size, n))
    reach[0] = reach0
    for i in range(size):
        node = root + i
        if t.kind[node] != DECISION:
            continue
        first, k, base = t.first[node], t.n_children[node], t.offset[node]
        for a in range(k):
            j = t.children[first + a] - root
            for q in range(n):
                reach[j, q] = reach[i, q] if t.player[node] == me else reach[i, q] * probs[base + q * k + a]
    out = np.zeros(size)
    for i in range(size - 1, -1, -1):
        node = root + i
        first, k = t.first[node], t.n_children[node]
        if t.kind[node] == TERMINAL:
            total = 0.0
            signed = 0.0
            for q in range(n):
                total += reach[i, q]
                signed += reach[i, q] * edge[q]
            v = 0.0
            for m in range(2):
                mid = t.matrix[node] if m == 0 else t.matrix2[node]
                if mid == ONES:
                    v += t.coef[node, m] * total
                elif mid == SIGN:  # sign(class 0 - class 1): the responder's edge, seen from player 0
                    v += t.coef[node, m] * (signed if me == 0 else -signed)
            out[i] = v if me == 0 else -v
        elif t.player[node] == me:
            best = -1e300
            for a in range(k):
                best = max(best, out[t.children[first + a] - root])
            out[i] = best
        else:
            for a in range(k):
                out[i] += out[t.children[first + a] - root]
    return out


@dataclass(eq=False)
class LocalBestResponse:
    """The responder (module doc) against ``strategy``: a bot of a heads-up table (``act``)."""

    strategy: Strategy
    seed: int = 0
    kind = "lbr"

    @cached_property
    def _tree(self) -> tuple[kernels.TreeArrays, np.ndarray, np.ndarray, np.ndarray]:
        """The abstract game's arrays, the strategy's probabilities, its decision nodes and their offsets."""
        tree = self.strategy.game.tree
        nodes = np.flatnonzero(tree.kind == DECISION)
        return kernels.tree_arrays(tree), self.strategy.probabilities(), nodes, tree.offset[nodes]

    @cached_property
    def _before(self) -> CfrBot:
        """The abstract best response (both players' blocks replaced) played at a real table."""
        tree = self.strategy.game.tree
        probs = self._tree[1]
        _, choice0 = best_response(tree, probs, 0)
        _, choice1 = best_response(tree, probs, 1)
        return CfrBot(self.strategy.rules, self.strategy.terms, self.seed, strategy=self.strategy,
                      steps=choice0 + choice1 - probs)

    def values(self, state: State, seat: int) -> tuple[list[int], np.ndarray]:
        """After the exchange: the action codes at the seat's spot and the chips each is worth to it against
        the strategy's range (counted from the start of the hand, the responder best-replying afterwards)."""
        hand = line(self.strategy, state)
        spot = hand.spot
        if not isinstance(spot, Spot) or hand.seats[spot.turn] != seat or spot.phase in (BEFORE, EXCHANGE):
            raise ValueError(f"seat {seat} is not to act after the exchange")
        t, probs, nodes, offsets = self._tree
        node = int(nodes[np.searchsorted(offsets, hand.offset)])
        me = spot.turn
        reach = opponent_range(self.strategy, hand, 1 - me)
        mine = edge(self.strategy, state.hands[seat])
        worth = _values(t, node, me, reach, mine, probs)
        children = t.children[t.first[node]: t.first[node] + t.n_children[node]]
        return [c for c, _ in self.strategy.betting.moves(spot)], worth[children - node]

    def rows(self, state: State, seat: int, player: int, root: int, step: np.ndarray) -> None:
        """For the control variates of the other player's decisions (``quintet.draw.cfr.aivat``): at the seat's
        decisions below ``root`` (after the exchange), 1 for the action it plays there, 0 for the others."""
        hand = line(self.strategy, state)
        t, probs, _, _ = self._tree
        belief = _values(t, root, player, opponent_range(self.strategy, hand, 1 - player),
                         edge(self.strategy, state.hands[seat]), probs)
        fill_best(t, root, step, player, belief)

    def act(self, state: State) -> Action:
        seat = state.actor
        if seat is None:
            raise ValueError("no seat is to act")
        if state.drawn[seat] is None or any(d is None for s, d in enumerate(state.drawn) if state.dealt_in[s]):
            return self._before.act(state)
        codes, worth = self.values(state, seat)
        action = action_of(codes[int(np.argmax(worth))], state, seat)
        try:
            state.verify(action)
        except IllegalActionError:  # no credit: the abstract game's stacks are deep
            return Action(ActionKind.CALL) if state.can_call() else Action(ActionKind.FOLD)
        return action
