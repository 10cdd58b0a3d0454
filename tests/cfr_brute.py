"""Brute-force references for the solvers of ``quintet.draw.cfr``, history by history (no vectors over types).

* ``history_value`` — a profile's value by walking every history (both players' types, every chance
  outcome) of a ``PublicTree``;
* ``history_best_response`` — the textbook best response: the information sets of the responder
  deepest first, each action's value summed over the histories of the set weighted by chance and the
  opponent's reach;
* ``kuhn_value`` / ``kuhn_pure_best`` — Kuhn poker written out from its rules (not from the tree): the
  value of a behaviour profile over the six deals, and the best of all 64 pure strategies of a player.
"""

from __future__ import annotations

from itertools import permutations, product

import numpy as np

from quintet.draw.cfr.tree import CHANCE, DECISION, NONE, ONES, SIGN, TERMINAL, PublicTree


def _payoff(tree: PublicTree, node: int, a: int, b: int) -> float:
    u = 0.0
    for k, mid in enumerate((tree.matrix[node], tree.matrix2[node])):
        c = tree.coef[node, k]
        if mid == NONE or c == 0:
            continue
        if mid == ONES:
            u += c
        elif mid == SIGN:
            u += c * np.sign(a - b)
        else:
            u += c * tree.matrices[mid][a, b]
    return float(u)


def _block(tree: PublicTree, strategy: np.ndarray, node: int, x: int) -> np.ndarray:
    k = int(tree.count[node])
    return strategy[tree.offset[node] + x * k: tree.offset[node] + (x + 1) * k]


def _value(tree: PublicTree, strategy: np.ndarray, node: int, types: tuple[int, int], p: int,
           choice: dict[tuple[int, int], int] | None) -> float:
    """Player p's payoff from a history at ``node`` with these types; p plays ``choice`` where given."""
    kind = tree.kind[node]
    if kind == TERMINAL:
        u = _payoff(tree, node, *types)
        return u if p == 0 else -u
    kids = tree.child_list(node)
    if kind == CHANCE:
        return sum(_value(tree, strategy, c, types, p, choice) for c in kids)
    if kind != DECISION:  # a transition
        q = int(tree.player[node])
        row = tree.matrices[tree.matrix[node]][types[q]]
        total = 0.0
        for j in np.flatnonzero(row).tolist():
            moved = (j, types[1]) if q == 0 else (types[0], j)
            total += row[j] * _value(tree, strategy, kids[0], moved, p, choice)
        return total
    q = int(tree.player[node])
    if choice is not None and q == p:
        return _value(tree, strategy, kids[choice[(node, types[p])]], types, p, choice)
    probs = _block(tree, strategy, node, types[q])
    return sum(float(probs[a]) * _value(tree, strategy, c, types, p, choice) for a, c in enumerate(kids) if probs[a])


def history_value(tree: PublicTree, strategy: np.ndarray) -> float:
    """Player 0's payoff when both play ``strategy``, over every history."""
    return sum(tree.prior[0][a] * tree.prior[1][b] * _value(tree, strategy, 0, (a, b), 0, None)
               for a in range(tree.prior[0].size) for b in range(tree.prior[1].size))


def _histories(tree: PublicTree, strategy: np.ndarray, p: int) -> dict[int, dict[tuple[int, int], float]]:
    """For every node: the histories reaching it, (types) → chance × the opponent's reach (p's actions not
    counted)."""
    out: dict[int, dict[tuple[int, int], float]] = {}
    root = {(a, b): tree.prior[0][a] * tree.prior[1][b]
            for a in range(tree.prior[0].size) for b in range(tree.prior[1].size)}
    stack = [(0, root)]
    while stack:
        node, hist = stack.pop()
        out[node] = hist
        kind = tree.kind[node]
        kids = tree.child_list(node)
        if kind == TERMINAL:
            continue
        if kind == CHANCE:
            stack += [(c, hist) for c in kids]
        elif kind == DECISION:
            q = int(tree.player[node])
            for a, c in enumerate(kids):
                if q == p:
                    stack.append((c, hist))
                else:
                    nxt = {ty: w * float(_block(tree, strategy, node, ty[q])[a]) for ty, w in hist.items()}
                    stack.append((c, {ty: w for ty, w in nxt.items() if w}))
        else:
            q = int(tree.player[node])
            matrix = tree.matrices[tree.matrix[node]]
            moved: dict[tuple[int, int], float] = {}
            for ty, w in hist.items():
                for j in np.flatnonzero(matrix[ty[q]]).tolist():
                    key = (j, ty[1]) if q == 0 else (ty[0], j)
                    moved[key] = moved.get(key, 0.0) + w * matrix[ty[q], j]
            stack.append((kids[0], moved))
    return out


def history_best_response(tree: PublicTree, strategy: np.ndarray, p: int) -> float:
    """Player p's best-response payoff, information set by information set, deepest first."""
    hist = _histories(tree, strategy, p)
    choice: dict[tuple[int, int], int] = {}
    for node in sorted(tree.decisions(p).tolist(), reverse=True):  # children have larger ids
        kids = tree.child_list(node)
        for x in range(int(tree.types[node, p])):
            members = [(ty, w) for ty, w in hist.get(node, {}).items() if ty[p] == x]
            values = [sum(w * _value(tree, strategy, c, ty, p, choice) for ty, w in members) for c in kids]
            choice[(node, x)] = int(np.argmax(values))
    return sum(tree.prior[0][a] * tree.prior[1][b] * _value(tree, strategy, 0, (a, b), p, choice)
               for a in range(tree.prior[0].size) for b in range(tree.prior[1].size))


# ---------------------------------------------------------------- Kuhn poker from its rules -----

KUHN_SEQUENCES = {  # player 0's information sets: (card, history); player 1's likewise
    0: ["", "pb"],
    1: ["p", "b"],
}


def kuhn_value(policy: dict[tuple[int, str], float]) -> float:
    """Player 0's expected payoff; ``policy[(card, history)]`` = P(bet or call) at that information set
    (histories in p/b letters: pass, bet)."""
    total = 0.0
    for c0, c1 in permutations(range(3), 2):
        total += _kuhn(policy, (c0, c1), "") / 6
    return total


def _kuhn(policy: dict[tuple[int, str], float], cards: tuple[int, int], h: str) -> float:
    if h == "bp":  # player 1 folds to a bet
        return 1.0
    if h == "pbp":  # player 0 folds to a bet
        return -1.0
    if h in ("pp", "bb", "pbb"):  # the show-down: the antes, or the antes and the bets
        return (1.0 if h == "pp" else 2.0) * (1.0 if cards[0] > cards[1] else -1.0)
    player = len(h) % 2
    bet = policy[(cards[player], h)]
    return bet * _kuhn(policy, cards, h + "b") + (1 - bet) * _kuhn(policy, cards, h + "p")


def kuhn_pure_best(policy: dict[tuple[int, str], float], p: int) -> float:
    """Player p's best payoff over all its 64 pure strategies against ``policy``'s other player."""
    keys = [(c, h) for c in range(3) for h in KUHN_SEQUENCES[p]]
    best = -np.inf
    for bits in product((0.0, 1.0), repeat=len(keys)):
        trial = dict(policy) | dict(zip(keys, bits, strict=True))
        v = kuhn_value(trial)
        best = max(best, v if p == 0 else -v)
    return best
