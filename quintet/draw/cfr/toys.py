"""Kuhn and Leduc poker as public trees: the small games with known answers that check the solvers.

* ``kuhn()`` — three cards J < Q < K, one each, ante 1; player 0 checks or bets 1, … (Kuhn 1950).
  Its value to player 0 is -1/18.
* ``leduc()`` — six cards (J, Q, K twice), one each, ante 1; a betting round (bets of 2), one
  public card, a betting round (bets of 4), at most two raises a round; a pair with the public
  card wins, else the higher card (Southey et al. 2005, as OpenSpiel plays it).  Its value to player 0
  is about -0.0856.

Types are the private ranks, each with prior 1/3; the cards are dealt from one deck, so each
payoff matrix carries the likelihood ratio P(a, b[, c]) / (P(a) P(b)) (``quintet.draw.cfr.tree``).
Action codes: 0 fold, 1 check/call, 2 bet/raise; the public card's code is its rank.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from .tree import CHANCE, DECISION, TERMINAL, PublicTree, TreeBuilder

__all__ = ["kuhn", "leduc", "FOLD", "CALL", "RAISE", "KUHN_VALUE"]

FOLD, CALL, RAISE = 0, 1, 2
KUHN_VALUE = Fraction(-1, 18)


def kuhn() -> PublicTree:
    ratio = np.full((3, 3), 1.5) - 1.5 * np.eye(3)  # P(a, b) = 1/6 for a ≠ b, over P(a) P(b) = 1/9
    b = TreeBuilder([1 / 3] * 3, [1 / 3] * 3)
    joint = b.matrix(ratio)
    showdown = b.matrix(np.sign(np.subtract.outer(np.arange(3), np.arange(3))) * ratio)
    types = (3, 3)

    def end(parent: int, action: int, payoff: float, shown: bool) -> None:
        b.node(parent, TERMINAL, action=action, types=types, matrix=showdown if shown else joint,
               coef=(payoff, 0.0))

    root = b.node(-1, DECISION, player=0, types=types)
    check = b.node(root, DECISION, player=1, action=CALL, types=types)
    end(check, CALL, 1.0, True)  # check, check: the higher card takes the antes
    bet = b.node(check, DECISION, player=0, action=RAISE, types=types)
    end(bet, FOLD, -1.0, False)
    end(bet, CALL, 2.0, True)
    bet0 = b.node(root, DECISION, player=1, action=RAISE, types=types)
    end(bet0, FOLD, 1.0, False)
    end(bet0, CALL, 2.0, True)
    return b.freeze()


def _leduc_ratios() -> tuple[np.ndarray, list[np.ndarray]]:
    """P(a, b) / (P(a) P(b)) and, per public rank c, P(a, b, c) / (P(a) P(b)) (two cards of each rank)."""
    pair = np.empty((3, 3))
    with_card = [np.empty((3, 3)) for _ in range(3)]
    for a in range(3):
        for b in range(3):
            p_ab = (2 / 6) * ((1 if a == b else 2) / 5)
            pair[a, b] = p_ab * 9
            for c in range(3):
                left = 2 - (a == c) - (b == c)
                with_card[c][a, b] = p_ab * left / 4 * 9
    return pair, with_card


def leduc() -> PublicTree:
    pair_ratio, card_ratios = _leduc_ratios()
    b = TreeBuilder([1 / 3] * 3, [1 / 3] * 3)
    types = (3, 3)
    folds1 = b.matrix(pair_ratio)
    folds2 = [b.matrix(r) for r in card_ratios]
    showdowns = []
    for c, r in enumerate(card_ratios):
        strength = np.array([10 + x if x == c else x for x in range(3)])  # a pair beats any other card
        showdowns.append(b.matrix(np.sign(np.subtract.outer(strength, strength)) * r))

    def betting(parent: int, action: int, rnd: int, public: int, c0: int, c1: int, raises: int, acted: int,
                player: int) -> None:
        node = b.node(parent, DECISION, player=player, action=action, types=types)
        bet = 2 if rnd == 1 else 4
        mine, theirs = (c0, c1) if player == 0 else (c1, c0)
        if theirs > mine:  # facing a bet: fold
            payoff = -mine if player == 0 else mine
            b.node(node, TERMINAL, action=FOLD, types=types, matrix=folds1 if rnd == 1 else folds2[public],
                   coef=(float(payoff), 0.0))
        if theirs > mine or acted == 1:  # a call, or the second check: the round is over
            end_round(node, CALL, rnd, public, theirs, theirs)
        else:
            betting(node, CALL, rnd, public, c0, c1, raises, acted + 1, 1 - player)
        if raises < 2:
            up = theirs + bet
            n0, n1 = (up, c1) if player == 0 else (c0, up)
            betting(node, RAISE, rnd, public, n0, n1, raises + 1, acted + 1, 1 - player)

    def end_round(parent: int, action: int, rnd: int, public: int, c0: int, c1: int) -> None:
        if rnd == 1:
            deal = b.node(parent, CHANCE, action=action, types=types)
            for c in range(3):
                betting(deal, c, 2, c, c0, c1, 0, 0, 0)
        else:
            b.node(parent, TERMINAL, action=action, types=types, matrix=showdowns[public], coef=(float(c0), 0.0))

    betting(-1, -1, 1, -1, 1, 1, 0, 0, 0)
    return b.freeze()
