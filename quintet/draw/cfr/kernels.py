"""numba kernels of the solvers over a ``PublicTree`` (``quintet.draw.cfr.tree``): small and pure.

The tree reaches them as ``tree_arrays(tree)``, a ``TreeArrays`` of the arrays they read.
Strategy-shaped arrays have ``tree.size`` entries: node ``n``'s block starts at ``offset[n]``,
type-major (type ``x``, action ``a`` at ``offset[n] + x * count[n] + a``).

The vector kernels (CFR+, evaluation, best response, the sequence-form weights) are one walk,
``walk``, over the public tree, carrying for each player a vector over its types: the *reach*
(chance × the player's own action probabilities) going down, the traverser's *counterfactual
values* (chance × the opponent's reach × payoff) coming up; its ``mode`` says what it does at a
decision node.  Its buffers are per depth (``Work``).  Every walk is a loop over an explicit stack
by depth, not a recursion: numba cannot cache recursive functions.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from .tree import CHANCE, DECISION, NONE, ONES, SIGN, TERMINAL, TRANSITION, PublicTree

__all__ = ["TreeArrays", "tree_arrays", "Work", "walk", "CFR", "CFR_PLUS", "FOLLOW", "BEST", "REACH",
           "current_strategy", "es_pass", "normalise", "quantise", "purify"]

CFR, CFR_PLUS, FOLLOW, BEST, REACH = 0, 1, 2, 3, 4
"""``walk``'s modes: a CFR or CFR+ iteration's regret update, the payoff of a strategy, a best
response to it, its sequence-form weights."""


class TreeArrays(NamedTuple):
    """The arrays of a ``PublicTree`` that the kernels read (the tree's doc)."""

    kind: np.ndarray
    player: np.ndarray
    first: np.ndarray
    n_children: np.ndarray  # the tree's ``count`` (a tuple's ``count`` is a method)
    children: np.ndarray
    types: np.ndarray
    offset: np.ndarray
    matrix: np.ndarray
    matrix2: np.ndarray
    coef: np.ndarray
    mat_data: np.ndarray
    mat_offset: np.ndarray
    mat_cols: np.ndarray


def tree_arrays(tree: PublicTree) -> TreeArrays:
    return TreeArrays(*(getattr(tree, "count" if name == "n_children" else name) for name in TreeArrays._fields))


class Work(NamedTuple):
    """Per-depth buffers of a walk: reach of both players [depth, 2, type], the traverser's values
    [depth, type], per-action values and strategies [depth, action, type]; a sampled walk's per-action
    values and strategies [depth, action]."""

    reach: np.ndarray
    value: np.ndarray
    action_value: np.ndarray
    strategy: np.ndarray
    scalar: np.ndarray
    scalar_strategy: np.ndarray

    @classmethod
    def of(cls, tree: PublicTree) -> Work:
        depth, types, actions = tree.depth + 1, tree.max_types, tree.max_actions
        return cls(np.zeros((depth, 2, types)), np.zeros((depth, types)), np.zeros((depth, actions, types)),
                   np.zeros((depth, actions, types)), np.zeros((depth, actions)), np.zeros((depth, actions)))


@njit(cache=True, nogil=True)
def _terminal(t, node, p, r_o, out):
    """out[x] = the payoff to player p of type x against an opponent of reach r_o (summed over its types)."""
    types, matrix, matrix2, coef = t.types, t.matrix, t.matrix2, t.coef
    mat_data, mat_offset, mat_cols = t.mat_data, t.mat_offset, t.mat_cols
    n_p = types[node, p]
    n_o = types[node, 1 - p]
    for x in range(n_p):
        out[x] = 0.0
    for k in range(2):
        mid = matrix[node] if k == 0 else matrix2[node]
        c = coef[node, k]
        if mid == NONE or c == 0.0:
            continue
        if mid == ONES:
            s = 0.0
            for y in range(n_o):
                s += r_o[y]
            if p == 1:
                s = -s
            for x in range(n_p):
                out[x] += c * s
        elif mid == SIGN:  # S r: the reach of weaker types minus that of stronger ones (both players alike)
            total = 0.0
            for y in range(n_o):
                total += r_o[y]
            below = 0.0
            for x in range(n_p):
                out[x] += c * (below - (total - below - r_o[x]))
                below += r_o[x]
        else:
            base = mat_offset[mid]
            cols = mat_cols[mid]
            if p == 0:
                for x in range(n_p):
                    s = 0.0
                    for y in range(n_o):
                        s += mat_data[base + x * cols + y] * r_o[y]
                    out[x] += c * s
            else:
                for x in range(n_p):
                    s = 0.0
                    for y in range(n_o):
                        s += mat_data[base + y * cols + x] * r_o[y]
                    out[x] -= c * s


@njit(cache=True, nogil=True, inline="always")
def _matching(regrets, base, n_types, k, out):
    """Regret matching: out[a, x] ∝ max(regret, 0); uniform where no regret is positive."""
    for x in range(n_types):
        s = 0.0
        for a in range(k):
            r = regrets[base + x * k + a]
            if r > 0.0:
                s += r
        for a in range(k):
            r = regrets[base + x * k + a]
            out[a, x] = (r if r > 0.0 else 0.0) / s if s > 0.0 else 1.0 / k


@njit(cache=True, nogil=True)
def _transition_down(t, node, r_in, r_out):
    mat_data, mat_offset, mat_cols, matrix = t.mat_data, t.mat_offset, t.mat_cols, t.matrix
    mid = matrix[node]
    base = mat_offset[mid]
    cols = mat_cols[mid]
    for j in range(cols):
        r_out[j] = 0.0
    rows = (mat_offset[mid + 1] - base) // cols
    for i in range(rows):
        ri = r_in[i]
        if ri != 0.0:
            for j in range(cols):
                r_out[j] += ri * mat_data[base + i * cols + j]


@njit(cache=True, nogil=True)
def _transition_up(t, node, v_in, v_out):
    mat_data, mat_offset, mat_cols, matrix = t.mat_data, t.mat_offset, t.mat_cols, t.matrix
    mid = matrix[node]
    base = mat_offset[mid]
    cols = mat_cols[mid]
    rows = (mat_offset[mid + 1] - base) // cols
    for i in range(rows):
        s = 0.0
        for j in range(cols):
            s += mat_data[base + i * cols + j] * v_in[j]
        v_out[i] = s


@njit(cache=True, nogil=True)
def _any(v, n):
    for i in range(n):
        if v[i] != 0.0:
            return True
    return False


@njit(cache=True, nogil=True)
def walk(t, w, prior0, prior1, trav, mode, table, out, weight):
    """The one vector walk of the public tree (module doc) for the traverser ``trav``; by ``mode``:

    * ``CFR``, ``CFR_PLUS`` — ``table``: the regrets, updated by one iteration (CFR+ floors them at 0),
      both players playing their regret-matching strategy; ``out``: the traverser's average strategy,
      each term its own reach × its strategy × ``weight``;
    * ``FOLLOW`` — both play the strategy ``table``; ``BEST`` — the traverser best-responds to the
      other player's part of ``table``, its pure choices written into ``out`` (the traverser's reach is
      not needed there: ``w.reach[:, trav]`` stays 1);
    * ``REACH`` — ``out``: for every decision node, type and action, the acting player's own reach (chance ×
      its own earlier actions) × its probability of the action in ``table`` (the sequence-form weights).

    Returns the traverser's expected payoff (0.0 for ``REACH``).  The walk is a loop over an explicit stack
    by depth (numba cannot cache recursion); its per-depth state is ``w`` (``Work``).
    """
    kind, player, first, count, children, types = t.kind, t.player, t.first, t.n_children, t.children, t.types
    reach, value, action_value, strat = w.reach, w.value, w.action_value, w.strategy
    learning = mode == CFR or mode == CFR_PLUS
    depth_max = reach.shape[0]
    at = np.zeros(depth_max, dtype=np.int64)  # the node at each depth of the current path
    nxt = np.zeros(depth_max, dtype=np.int64)  # the child being walked at each depth
    opp = 1 - trav
    if mode == FOLLOW or mode == BEST:
        reach[0, trav, :] = 1.0
        other = prior1 if trav == 0 else prior0
        reach[0, opp, : other.shape[0]] = other
    else:
        reach[0, 0, : prior0.shape[0]] = prior0
        reach[0, 1, : prior1.shape[0]] = prior1
    d = 0
    entering = True
    while True:
        node = at[d]
        nt = types[node, trav]
        if entering:
            k = kind[node]
            if k == TERMINAL:
                if mode != REACH:
                    _terminal(t, node, trav, reach[d, opp], value[d])
                entering = False
            elif mode != REACH and not _any(reach[d, opp], types[node, opp]) and not (
                    learning and _any(reach[d, trav], nt)):
                for x in range(nt):
                    value[d, x] = 0.0
                entering = False
            else:
                if k == DECISION:
                    _strategy_here(t, node, d, trav, mode, table, out, reach, strat)
                if k != TRANSITION and mode != REACH:
                    for x in range(nt):
                        value[d, x] = 0.0
                nxt[d] = 0
                _down(t, node, d, 0, reach, strat)
                at[d + 1] = children[first[node]]
                d += 1
                continue
        if d == 0:
            break
        # back from the child at depth d into its parent
        d -= 1
        node = at[d]
        nt = types[node, trav]
        k = kind[node]
        i = nxt[d]
        if mode == REACH:
            pass
        elif k == TRANSITION:
            if player[node] == trav:
                _transition_up(t, node, value[d + 1], value[d])
            else:
                for x in range(nt):
                    value[d, x] = value[d + 1, x]
        elif k == DECISION and player[node] == trav:
            for x in range(nt):
                action_value[d, i, x] = value[d + 1, x]
        else:
            for x in range(nt):
                value[d, x] += value[d + 1, x]
        i += 1
        if i < count[node]:
            nxt[d] = i
            _down(t, node, d, i, reach, strat)
            at[d + 1] = children[first[node] + i]
            d += 1
            entering = True
            continue
        if k == DECISION and player[node] == trav and mode != REACH:
            _settle(t, node, d, trav, mode, table, out, weight, w)
        entering = False
    if mode == REACH:
        return 0.0
    own = prior0 if trav == 0 else prior1
    total = 0.0
    for x in range(own.shape[0]):
        total += own[x] * value[0, x]
    return total


@njit(cache=True, nogil=True)
def _strategy_here(t, node, d, trav, mode, table, out, reach, strat):
    """``strat[d]`` (action, type): the acting player's strategy at a decision node on the way down."""
    q = t.player[node]
    n_act = t.n_children[node]
    base = t.offset[node]
    if mode == CFR or mode == CFR_PLUS:
        _matching(table, base, t.types[node, q], n_act, strat[d])
        return
    for x in range(t.types[node, q]):
        for a in range(n_act):
            if mode == REACH:
                strat[d, a, x] = table[base + x * n_act + a]
                out[base + x * n_act + a] = reach[d, q, x] * table[base + x * n_act + a]
            else:
                strat[d, a, x] = table[base + x * n_act + a] if q == 1 - trav else 1.0


@njit(cache=True, nogil=True)
def _settle(t, node, d, trav, mode, table, out, weight, w):
    """The traverser's decision node on the way up, every action's value known: its value (and, learning,
    its regrets and average; best-responding, its choice)."""
    n_act = t.n_children[node]
    base = t.offset[node]
    value, action_value, strat = w.value, w.action_value, w.strategy
    for x in range(t.types[node, trav]):
        if mode == BEST:
            top = 0
            for a in range(1, n_act):
                if action_value[d, a, x] > action_value[d, top, x]:
                    top = a
            value[d, x] = action_value[d, top, x]
            for a in range(n_act):
                out[base + x * n_act + a] = 1.0 if a == top else 0.0
        elif mode == FOLLOW:
            v = 0.0
            for a in range(n_act):
                v += table[base + x * n_act + a] * action_value[d, a, x]
            value[d, x] = v
        else:
            v = 0.0
            for a in range(n_act):
                v += strat[d, a, x] * action_value[d, a, x]
            value[d, x] = v
            r = w.reach[d, trav, x]
            for a in range(n_act):
                j = base + x * n_act + a
                g = table[j] + action_value[d, a, x] - v
                table[j] = g if (g > 0.0 or mode == CFR) else 0.0
                out[j] += weight * r * strat[d, a, x]


@njit(cache=True, nogil=True)
def _down(t, node, d, i, reach, strat):
    """The reach of both players at child i of ``node`` (depth d) into reach[d + 1]; ``strat[d]``: the
    acting player's strategy at a decision node, as (action, type)."""
    kind, player, types = t.kind, t.player, t.types
    k = kind[node]
    if k == DECISION:
        p = player[node]
        for x in range(types[node, p]):
            reach[d + 1, p, x] = reach[d, p, x] * strat[d, i, x]
        q = 1 - p
        for x in range(types[node, q]):
            reach[d + 1, q, x] = reach[d, q, x]
    elif k == TRANSITION:
        p = player[node]
        _transition_down(t, node, reach[d, p], reach[d + 1, p])
        q = 1 - p
        for x in range(types[node, q]):
            reach[d + 1, q, x] = reach[d, q, x]
    else:
        for p in range(2):
            for x in range(types[node, p]):
                reach[d + 1, p, x] = reach[d, p, x]


@njit(cache=True, nogil=True)
def normalise(t, weights, out):
    """The behaviour strategy of summed weights (an average strategy): each block's rows scaled to 1
    (uniform where a row sums to 0)."""
    kind, count, types, offset, player = t.kind, t.n_children, t.types, t.offset, t.player
    for node in range(kind.shape[0]):
        if kind[node] != DECISION:
            continue
        k = count[node]
        base = offset[node]
        for x in range(types[node, player[node]]):
            s = 0.0
            for a in range(k):
                s += weights[base + x * k + a]
            for a in range(k):
                out[base + x * k + a] = weights[base + x * k + a] / s if s > 0.0 else 1.0 / k


@njit(cache=True, nogil=True)
def current_strategy(t, regrets, out):
    """The regret-matching strategy of every block."""
    kind, count, types, offset, player = t.kind, t.n_children, t.types, t.offset, t.player
    for node in range(kind.shape[0]):
        if kind[node] != DECISION:
            continue
        k = count[node]
        base = offset[node]
        for x in range(types[node, player[node]]):
            s = 0.0
            for a in range(k):
                r = regrets[base + x * k + a]
                if r > 0.0:
                    s += r
            for a in range(k):
                r = regrets[base + x * k + a]
                out[base + x * k + a] = (r if r > 0.0 else 0.0) / s if s > 0.0 else 1.0 / k


# ---------------------------------------------------------------- external-sampling MCCFR -----


@njit(cache=True, nogil=True)
def _sample_at(weights, base, n):
    """An index drawn from the n weights at ``weights[base:]`` (they sum to 1)."""
    u = np.random.random()
    s = 0.0
    for i in range(n):
        s += weights[base + i]
        if u < s:
            return i
    return n - 1


@njit(cache=True, nogil=True)
def _sample_row(v, n):
    u = np.random.random()
    s = 0.0
    for i in range(n):
        s += v[i]
        if u < s:
            return i
    return n - 1


@njit(cache=True, nogil=True)
def _payoff(t, node, a, b):
    matrix, matrix2, coef = t.matrix, t.matrix2, t.coef
    mat_data, mat_offset, mat_cols = t.mat_data, t.mat_offset, t.mat_cols
    u = 0.0
    for k in range(2):
        mid = matrix[node] if k == 0 else matrix2[node]
        c = coef[node, k]
        if mid == NONE or c == 0.0:
            continue
        if mid == ONES:
            u += c
        elif mid == SIGN:
            u += c * (1.0 if a > b else -1.0 if a < b else 0.0)
        else:
            u += c * mat_data[mat_offset[mid] + a * mat_cols[mid] + b]
    return u


@njit(cache=True, nogil=True)
def _es_walk(t, trav, ty0, ty1, regrets, avg, weight, values, probs, at, nxt, tys, scale):
    """One sampled walk (``es_pass``), iterative; returns the traverser's sampled payoff."""
    kind, player, first, count, children, offset = t.kind, t.player, t.first, t.n_children, t.children, t.offset
    mat_data, mat_offset, mat_cols, matrix = t.mat_data, t.mat_offset, t.mat_cols, t.matrix
    d = 0
    at[0] = 0
    tys[0, 0] = ty0
    tys[0, 1] = ty1
    scale[0] = 1.0
    result = 0.0  # the value coming back up
    entering = True
    while True:
        node = at[d]
        if entering:
            k = kind[node]
            if k == TERMINAL:
                u = _payoff(t, node, tys[d, 0], tys[d, 1])
                result = u if trav == 0 else -u
                entering = False
            else:
                tys[d + 1, 0] = tys[d, 0]
                tys[d + 1, 1] = tys[d, 1]
                if k == CHANCE:
                    n = count[node]
                    i = int(np.random.random() * n)
                    scale[d] = n
                elif k == TRANSITION:
                    p = player[node]
                    mid = matrix[node]
                    cols = mat_cols[mid]
                    tys[d + 1, p] = _sample_at(mat_data, mat_offset[mid] + tys[d, p] * cols, cols)
                    scale[d] = 1.0
                    i = 0
                else:
                    p = player[node]
                    n_act = count[node]
                    base = offset[node] + tys[d, p] * n_act
                    s = 0.0
                    for a in range(n_act):
                        r = regrets[base + a]
                        if r > 0.0:
                            s += r
                    for a in range(n_act):
                        r = regrets[base + a]
                        probs[d, a] = (r if r > 0.0 else 0.0) / s if s > 0.0 else 1.0 / n_act
                    scale[d] = 1.0
                    if p == trav:
                        i = 0
                    else:
                        for a in range(n_act):
                            avg[base + a] += weight * probs[d, a]
                        i = _sample_row(probs[d], n_act)
                nxt[d] = i
                at[d + 1] = children[first[node] + i]
                d += 1
                continue
        if d == 0:
            break
        d -= 1
        node = at[d]
        k = kind[node]
        if k == DECISION and player[node] == trav:
            i = nxt[d]
            values[d, i] = result
            i += 1
            if i < count[node]:
                nxt[d] = i
                tys[d + 1, 0] = tys[d, 0]
                tys[d + 1, 1] = tys[d, 1]
                at[d + 1] = children[first[node] + i]
                d += 1
                entering = True
                continue
            n_act = count[node]
            base = offset[node] + tys[d, trav] * n_act
            v = 0.0
            for a in range(n_act):
                v += probs[d, a] * values[d, a]
            for a in range(n_act):
                regrets[base + a] += values[d, a] - v
            result = v
        else:
            result *= scale[d]
        entering = False
    return result


@njit(cache=True, nogil=True)
def es_pass(t, w, prior0, prior1, trav, walks, seed, regrets, avg, weight):
    """``walks`` walks of external-sampling MCCFR for the traverser: both players' types drawn from the
    priors, chance and the opponent's actions sampled, every action of the traverser explored;
    the opponent's average strategy gets its current strategy at each visited node (× ``weight``)."""
    if seed >= 0:
        np.random.seed(seed)
    values, probs = w.scalar, w.scalar_strategy
    depth = values.shape[0]
    at = np.zeros(depth, dtype=np.int64)
    nxt = np.zeros(depth, dtype=np.int64)
    tys = np.zeros((depth + 1, 2), dtype=np.int64)
    scale = np.ones(depth)
    total = 0.0
    for _ in range(walks):
        ty0 = _sample_row(prior0, prior0.shape[0])
        ty1 = _sample_row(prior1, prior1.shape[0])
        total += _es_walk(t, trav, ty0, ty1, regrets, avg, weight, values, probs, at, nxt, tys, scale)
    return total / walks


@njit(cache=True, nogil=True)
def quantise(t, probabilities, out):
    """Each row as uint8 steps of 1/255 summing to 255: the floors, then one more step to the largest
    remainders (ties: the first action)."""
    kind, count, types, offset, player = t.kind, t.n_children, t.types, t.offset, t.player
    for node in range(kind.shape[0]):
        if kind[node] != DECISION:
            continue
        k = count[node]
        base = offset[node]
        for x in range(types[node, player[node]]):
            row = base + x * k
            total = 0
            for a in range(k):
                steps = int(np.floor(probabilities[row + a] * 255.0 + 1e-9))
                out[row + a] = steps
                total += steps
            for _ in range(255 - total):
                top = -1
                best = -1.0
                for a in range(k):
                    rest = probabilities[row + a] * 255.0 - out[row + a]
                    if rest > best:
                        best = rest
                        top = a
                out[row + top] += 1


@njit(cache=True, nogil=True)
def purify(t, weights, choice, pure_below, unreached, out):
    """Rows whose own reach (the row's sum of ``weights``) is below ``pure_below`` become one action: the
    row's most likely one, or ``choice``'s where the reach is below ``unreached``."""
    kind, count, types, offset, player = t.kind, t.n_children, t.types, t.offset, t.player
    for node in range(kind.shape[0]):
        if kind[node] != DECISION:
            continue
        k = count[node]
        base = offset[node]
        for x in range(types[node, player[node]]):
            row = base + x * k
            reach = 0.0
            for a in range(k):
                reach += weights[row + a]
            if reach >= pure_below:
                continue
            source = choice if reach < unreached else out
            top = 0
            for a in range(1, k):
                if source[row + a] > source[row + top]:
                    top = a
            for a in range(k):
                out[row + a] = 1.0 if a == top else 0.0
