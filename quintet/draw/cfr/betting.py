"""The abstract game of heads-up draw poker: the exact betting of ``quintet.draw.game`` over hand classes.

**Which game is solved.**  Two players; player 0 sits on the dealer's left and acts first in
every circle and exchanges first; each posts the ante.  The tree is the whole betting of
``quintet.draw.game.State`` under the given ``Terms`` — every stake of every turn, not a
selection:

* before the exchange (``betting_before_exchange``): ``circles`` circles; on a turn fold, call
  (stake the current stake), or raise to any stake above it up to the limit;
* the exchange: player 0 draws d cards (d = 0..5; "stand pat" is 0), then player 1, who sees d;
  each pays ``exchange_fee`` a card; the action "draw d" keeps the best 5 - d cards by the exact
  mean percentile (``quintet.draw.cfr.classes``), and the player's class changes by the exact
  transition of that draw;
* after the exchange: as before, plus the show-down demand where ``State`` allows it (the first
  circle at the current stake until somebody raises — at any stake under ``raising_demand_ends``
  — and the last circle at any stake; every turn under ``demand_any_turn``), the other player
  then paying to see or folding; the cards are shown after the first circle if nobody raised in
  it, else after all the circles;
* the show-down: the higher class takes the pot; equal classes split it (exactly, in halves).

**What differs from the real game.**  The cards (a player knows only the class of his hand;
the two players' classes are independent — no card removal between them); stacks are deep (no
player runs short within a hand, where the real game's no-credit rule would make him fold; at
most 36 chips a hand under the default terms); folding during the exchange (never better than
standing pat and folding at the next turn) is left out; an odd chip of a split pot is split.

``Betting.moves(spot)`` is the one statement of these rules: ``build_game`` grows the whole
tree from it (for the solvers), and ``Navigator`` walks one line of it without the tree (for
play: where a spot's probabilities are in the strategy array).  Payoffs are chips to player 0.
Action codes: ``FOLD``, ``CALL`` (a call, or paying to see), ``RAISE + k`` (raise to k),
``DEMAND + k`` (stake k and demand), ``DRAW + d``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import numpy as np

from ...text import quote
from ..game import IllegalActionError, Terms
from .classes import HandClasses
from .tree import DECISION, ONES, SIGN, TERMINAL, TRANSITION, PublicTree, TreeBuilder

__all__ = ["FOLD", "CALL", "RAISE", "DEMAND", "DRAW", "BEFORE", "EXCHANGE", "AFTER", "SEEING", "Spot", "End",
           "Betting", "AbstractGame", "Navigator", "build_game", "build_subtree", "action_text", "parse_action"]

FOLD, CALL, RAISE, DEMAND, DRAW = 0, 1, 1000, 2000, 3000  # + the stake (below 1000), + the cards drawn
BEFORE, EXCHANGE, AFTER, SEEING = 0, 1, 2, 3


def action_text(code: int) -> str:
    """'fold', 'call', 'raise 3', 'demand 2', 'draw 1', 'stand pat'."""
    if code == FOLD:
        return "fold"
    if code == CALL:
        return "call"
    if code >= DRAW:
        return "stand pat" if code == DRAW else f"draw {code - DRAW}"
    if code >= DEMAND:
        return f"demand {code - DEMAND}"
    return f"raise {code - RAISE}"


def parse_action(text: str) -> int:
    """The code of an action as ``action_text`` writes it: fold, call, raise N, demand N, draw D, stand pat
    (also ``stand``) — ``IllegalActionError`` with a sentence otherwise."""
    words = text.strip().lower().split()
    if words in (["fold"], ["call"]):
        return FOLD if words[0] == "fold" else CALL
    if words in (["stand"], ["stand", "pat"]):
        return DRAW
    if len(words) == 2 and words[0] in ("raise", "demand", "draw") and words[1].isdigit() and len(words[1]) <= 3:
        n = int(words[1])
        if words[0] == "draw" and n > 5:
            raise IllegalActionError(f"a draw is of 0 to 5 cards, got {n}")
        return {"raise": RAISE, "demand": DEMAND, "draw": DRAW}[words[0]] + n
    raise IllegalActionError(f"not an action: {quote(text)} (fold, call, raise N, demand N, draw D, stand pat)")


@dataclass(frozen=True, slots=True)
class Spot:
    """A public state at which ``turn`` acts: the phase, the circle, the current stake, whether somebody
    raised in this circle, the demanded stake (``SEEING``), the chips each player put in, the cards each drew
    (-1: not yet)."""

    phase: int
    turn: int
    circle: int = 0
    stake: int = 0
    raised: bool = False
    demand: int = 0
    paid: tuple[int, int] = (0, 0)
    drawn: tuple[int, int] = (-1, -1)

    @property
    def shape(self) -> tuple[int, int, int, int, bool, int]:
        """What the subtree below depends on (not the chips paid nor the cards drawn)."""
        return self.phase, self.turn, self.circle, self.stake, self.raised, self.demand

    def exchanged(self, player: int) -> bool:
        return self.phase in (AFTER, SEEING) or (self.phase == EXCHANGE and player < self.turn)


@dataclass(frozen=True, slots=True)
class End:
    """The hand is over: ``folder`` folded (-1: the show-down), with ``paid`` chips in the pot."""

    folder: int
    paid: tuple[int, int]

    def payoff(self) -> tuple[float, float]:
        """(coefficient of sign(class 0 - class 1), constant): player 0's chips (module doc of ``tree``)."""
        c0, c1 = self.paid
        if self.folder == 0:
            return 0.0, float(-c0)
        if self.folder == 1:
            return 0.0, float(c1)
        return (c0 + c1) / 2, (c1 - c0) / 2  # win +c1, lose -c0, tie (c1 - c0) / 2


def _pay(c: tuple[int, int], seat: int, amount: int) -> tuple[int, int]:
    return (c[0] + amount, c[1]) if seat == 0 else (c[0], c[1] + amount)


@dataclass(frozen=True)
class Betting:
    """The rules of the abstract game under these terms (module doc)."""

    terms: Terms

    def root(self) -> Spot:
        terms = self.terms
        paid = (terms.ante, terms.ante)
        if terms.betting_before_exchange:
            return Spot(BEFORE, 0, 1, terms.stake, paid=paid)
        return Spot(EXCHANGE, 0, stake=terms.stake, paid=paid)

    def moves(self, spot: Spot) -> list[tuple[int, Spot | End]]:
        """Every action at ``spot``, in the tree's order, with what follows it."""
        terms, p = self.terms, spot.turn
        if spot.phase == SEEING:
            return [(FOLD, End(p, spot.paid)), (CALL, End(-1, _pay(spot.paid, p, spot.demand)))]
        if spot.phase == EXCHANGE:
            out: list[tuple[int, Spot | End]] = []
            for d in range(6):
                paid = _pay(spot.paid, p, terms.exchange_fee * d)
                drawn = (d, -1) if p == 0 else (spot.drawn[0], d)
                nxt = replace(spot, turn=1, paid=paid, drawn=drawn) if p == 0 else \
                    Spot(AFTER, 0, 1, spot.stake, paid=paid, drawn=drawn)
                out.append((DRAW + d, nxt))
            return out
        out = [(FOLD, End(p, spot.paid)), (CALL, self._after_turn(spot, spot.stake, spot.raised))]
        out += [(RAISE + k, self._after_turn(spot, k, True)) for k in range(spot.stake + 1, terms.limit + 1)]
        if spot.phase == AFTER:
            for k in self.demands(spot):
                out.append((DEMAND + k, Spot(SEEING, 1 - p, spot.circle, k, spot.raised, k, _pay(spot.paid, p, k),
                                             spot.drawn)))
        return out

    def demands(self, spot: Spot) -> range:
        """The stakes of a show-down demand allowed at a spot after the exchange."""
        terms = self.terms
        if terms.demand_any_turn or terms.circles == 1 or spot.circle == terms.circles:
            return range(spot.stake, terms.limit + 1)
        if spot.circle == 1 and not spot.raised:
            return range(spot.stake, (terms.limit if terms.raising_demand_ends else spot.stake) + 1)
        return range(0)

    def _after_turn(self, spot: Spot, stake: int, raised: bool) -> Spot | End:
        """What follows the current player staking ``stake`` (a call or a raise)."""
        terms, p = self.terms, spot.turn
        paid = _pay(spot.paid, p, stake)
        if p == 0:
            return replace(spot, turn=1, stake=stake, raised=raised, paid=paid)
        if spot.phase == AFTER and spot.circle == 1 and not raised:
            return End(-1, paid)
        if spot.circle < terms.circles:
            return replace(spot, turn=0, circle=spot.circle + 1, stake=stake, raised=False, paid=paid)
        if spot.phase == BEFORE:
            return Spot(EXCHANGE, 0, stake=stake, paid=paid)
        return End(-1, paid)


@dataclass(frozen=True, eq=False)
class AbstractGame:
    """The abstract game (module doc): its rules, classes and tree."""

    betting: Betting
    classes: HandClasses
    tree: PublicTree

    @property
    def terms(self) -> Terms:
        return self.betting.terms


def _grow(b: TreeBuilder, betting: Betting, classes: HandClasses, root: Spot) -> None:
    """Add the tree below ``root`` (pre-order: a node, then each child's whole subtree in turn)."""
    draws = [b.matrix(classes.transitions[d]) for d in range(6)] if root.phase in (BEFORE, EXCHANGE) else []
    n_pre, n_post = classes.n_pre, classes.n_post

    def types(spot: Spot) -> tuple[int, int]:
        return (n_post if spot.exchanged(0) else n_pre, n_post if spot.exchanged(1) else n_pre)

    def grow(parent: int, action: int, spot: Spot) -> None:
        here = types(spot)
        node = b.node(parent, DECISION, player=spot.turn, action=action, types=here)
        for code, nxt in betting.moves(spot):
            if isinstance(nxt, End):
                sign, constant = nxt.payoff()
                shown = nxt.folder < 0
                b.node(node, TERMINAL, action=code, types=here, matrix=SIGN if shown else ONES,
                       matrix2=ONES if shown else -1, coef=(sign, constant) if shown else (constant, 0.0))
            elif code >= DRAW:
                moved = b.node(node, TRANSITION, player=spot.turn, action=code, types=here,
                               matrix=draws[code - DRAW])
                grow(moved, code, nxt)
            else:
                grow(node, code, nxt)

    grow(-1, -1, root)


def build_game(terms: Terms, classes: HandClasses) -> AbstractGame:
    """The whole tree of the abstract game of these terms over these classes (module doc)."""
    betting = Betting(terms)
    b = TreeBuilder(classes.prior, classes.prior)
    _grow(b, betting, classes, betting.root())
    return AbstractGame(betting, classes, b.freeze())


def build_subtree(betting: Betting, classes: HandClasses, spot: Spot, reach0: np.ndarray,
                  reach1: np.ndarray) -> PublicTree:
    """The tree below a spot after the exchange, the players' classes there drawn from ``reach0``, ``reach1``
    (its strategy layout is the slice of the whole game's from the spot's offset: ``Navigator.entries``)."""
    b = TreeBuilder(reach0, reach1)
    _grow(b, betting, classes, spot)
    return b.freeze()


class Navigator:
    """One line of the abstract game without its tree: the spots, and where each spot's probabilities start in
    the strategy array (the tree's pre-order offsets, from the sizes of the subtrees by their shape)."""

    def __init__(self, betting: Betting, n_pre: int, n_post: int) -> None:
        self.betting = betting
        self.n_pre = n_pre
        self.n_post = n_post
        self._entries = cache(self._entries_uncached)

    def types(self, spot: Spot, player: int) -> int:
        return self.n_post if spot.exchanged(player) else self.n_pre

    def block(self, spot: Spot) -> int:
        """The spot's own entries: the acting player's types × its actions."""
        return self.types(spot, spot.turn) * len(self.betting.moves(spot))

    def _entries_uncached(self, shape: tuple[int, int, int, int, bool, int]) -> int:
        phase, turn, circle, stake, raised, demand = shape
        spot = Spot(phase, turn, circle, stake, raised, demand)
        total = self.block(spot)
        for _, nxt in self.betting.moves(spot):
            if isinstance(nxt, Spot):
                total += self._entries(nxt.shape)
        return total

    def entries(self, spot: Spot) -> int:
        """The entries of the spot's subtree (its own and every decision below it)."""
        return self._entries(spot.shape)

    def follow(self, spot: Spot, offset: int, code: int) -> tuple[Spot | End, int]:
        """After ``code`` at ``spot`` (whose block starts at ``offset``): what follows, and where its block starts."""
        at = offset + self.block(spot)
        for c, nxt in self.betting.moves(spot):
            if c == code:
                return nxt, at
            if isinstance(nxt, Spot):
                at += self.entries(nxt)
        raise ValueError(f"{action_text(code)} is not an action here")
