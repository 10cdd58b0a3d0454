"""numba kernels of the solvers over a ``PublicTree`` (``quintet.draw.cfr.tree``): small and pure.

The tree reaches them as the tuple ``tree_arrays(tree)`` (kind, player, first, count, children,
types, offset, matrix, matrix2, coef, mat_data, mat_offset, mat_cols).  Strategy-shaped arrays
have ``tree.size`` entries: node ``n``'s block starts at ``offset[n]``, type-major (type ``x``,
action ``a`` at ``offset[n] + x * count[n] + a``).

Vector kernels (CFR+, evaluation, best response) walk the public tree once, carrying for each
player a vector over its types: the *reach* (chance × the player's own action probabilities)
going down, the traverser's *counterfactual values* (chance × the opponent's reach × payoff)
coming up.  Work buffers are per depth (``Work``).  Every walk is a loop over an explicit stack
by depth, not a recursion: numba cannot cache recursive functions.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .tree import CHANCE, DECISION, NONE, ONES, SIGN, TERMINAL, TRANSITION, PublicTree

__all__ = ["tree_arrays", "Work", "cfr_pass", "evaluate", "current_strategy", "es_pass", "normalise"]


def tree_arrays(tree: PublicTree) -> tuple:
    return (tree.kind, tree.player, tree.first, tree.count, tree.children, tree.types, tree.offset, tree.matrix,
            tree.matrix2, tree.coef, tree.mat_data, tree.mat_offset, tree.mat_cols)


class Work:
    """Per-depth buffers of a walk: reach of both players, values, per-action values and strategies."""

    def __init__(self, tree: PublicTree) -> None:
        depth, types, actions = tree.depth + 1, tree.max_types, tree.max_actions
        self.reach = np.zeros((depth, 2, types))
        self.value = np.zeros((depth, types))
        self.action_value = np.zeros((depth, actions, types))
        self.strategy = np.zeros((depth, actions, types))
        self.scalar = np.zeros((depth, actions))  # sampled walks: per-action values
        self.scalar_strategy = np.zeros((depth, actions))


@njit(cache=True, nogil=True)
def _terminal(t, node, p, r_o, out):
    """out[x] = the payoff to player p of type x against an opponent of reach r_o (summed over its types)."""
    types, matrix, matrix2, coef, mat_data, mat_offset, mat_cols = t[5], t[7], t[8], t[9], t[10], t[11], t[12]
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
    mat_data, mat_offset, mat_cols, matrix = t[10], t[11], t[12], t[7]
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
    mat_data, mat_offset, mat_cols, matrix = t[10], t[11], t[12], t[7]
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
def cfr_pass(t, prior0, prior1, trav, reach, value, action_value, strat, regrets, avg, weight, plus):
    """One walk of CFR (plus=False) or CFR+ (plus=True: regrets floored at 0) updating ``trav``'s regrets
    and its average (each term × ``weight``); returns the traverser's expected payoff under the current
    strategies.  The walk is iterative (an explicit stack by depth: numba cannot cache recursion)."""
    kind, player, first, count, children, types, offset = t[0], t[1], t[2], t[3], t[4], t[5], t[6]
    depth_max = reach.shape[0]
    at = np.zeros(depth_max, dtype=np.int64)  # the node at each depth of the current path
    nxt = np.zeros(depth_max, dtype=np.int64)  # the child being walked at each depth
    reach[0, 0, : prior0.shape[0]] = prior0
    reach[0, 1, : prior1.shape[0]] = prior1
    opp = 1 - trav
    d = 0
    entering = True
    while True:
        node = at[d]
        nt = types[node, trav]
        if entering:
            k = kind[node]
            if k == TERMINAL:
                _terminal(t, node, trav, reach[d, opp], value[d])
                entering = False
            elif not _any(reach[d, opp], types[node, opp]) and not _any(reach[d, trav], nt):
                for x in range(nt):
                    value[d, x] = 0.0
                entering = False
            else:
                if k == DECISION:
                    _matching(regrets, offset[node], types[node, player[node]], count[node], strat[d])
                if k != TRANSITION:
                    for x in range(nt):
                        value[d, x] = 0.0
                nxt[d] = 0
                _down(t, node, d, trav, 0, reach, strat)
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
        if k == TRANSITION:
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
            _down(t, node, d, trav, i, reach, strat)
            at[d + 1] = children[first[node] + i]
            d += 1
            entering = True
            continue
        if k == DECISION and player[node] == trav:  # the traverser's regrets and average
            n_act = count[node]
            base = offset[node]
            for x in range(nt):
                v = 0.0
                for a in range(n_act):
                    v += strat[d, a, x] * action_value[d, a, x]
                value[d, x] = v
                r = reach[d, trav, x]
                for a in range(n_act):
                    j = base + x * n_act + a
                    g = regrets[j] + action_value[d, a, x] - v
                    regrets[j] = g if (g > 0.0 or not plus) else 0.0
                    avg[j] += weight * r * strat[d, a, x]
        entering = False
    own = prior0 if trav == 0 else prior1
    total = 0.0
    for x in range(own.shape[0]):
        total += own[x] * value[0, x]
    return total


@njit(cache=True, nogil=True)
def _down(t, node, d, trav, i, reach, strat):
    """The reach of both players at child i of ``node`` (depth d) into reach[d + 1]; ``strat[d]``: the
    acting player's strategy at a decision node, as (action, type)."""
    kind, player, types = t[0], t[1], t[5]
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
def evaluate(t, prior0, prior1, p, best, reach, value, action_value, strategy, choice):
    """Player p's expected payoff: playing ``strategy`` (best=False) or a best response (best=True, its pure
    choices written into ``choice``) against the opponent's part of ``strategy``; returns the payoff.
    Player p's own reach is not needed: ``reach[:, p]`` stays 1."""
    kind, player, first, count, children, types, offset = t[0], t[1], t[2], t[3], t[4], t[5], t[6]
    depth_max = reach.shape[0]
    at = np.zeros(depth_max, dtype=np.int64)
    nxt = np.zeros(depth_max, dtype=np.int64)
    strat = np.zeros((depth_max, action_value.shape[1], action_value.shape[2]))
    opp = 1 - p
    reach[0, p, :] = 1.0
    other = prior1 if p == 0 else prior0
    reach[0, opp, : other.shape[0]] = other
    d = 0
    entering = True
    while True:
        node = at[d]
        n_p = types[node, p]
        if entering:
            k = kind[node]
            if k == TERMINAL:
                _terminal(t, node, p, reach[d, opp], value[d])
                entering = False
            elif not _any(reach[d, opp], types[node, opp]):
                for x in range(n_p):
                    value[d, x] = 0.0
                entering = False
            else:
                if k == DECISION:
                    q = player[node]
                    n_act = count[node]
                    base = offset[node]
                    for x in range(types[node, q]):
                        for a in range(n_act):
                            strat[d, a, x] = strategy[base + x * n_act + a] if q == opp else 1.0
                if k != TRANSITION:
                    for x in range(n_p):
                        value[d, x] = 0.0
                nxt[d] = 0
                _down(t, node, d, p, 0, reach, strat)
                at[d + 1] = children[first[node]]
                d += 1
                continue
        if d == 0:
            break
        d -= 1
        node = at[d]
        n_p = types[node, p]
        k = kind[node]
        i = nxt[d]
        if k == TRANSITION:
            if player[node] == p:
                _transition_up(t, node, value[d + 1], value[d])
            else:
                for x in range(n_p):
                    value[d, x] = value[d + 1, x]
        elif k == DECISION and player[node] == p:
            for x in range(n_p):
                action_value[d, i, x] = value[d + 1, x]
        else:
            for x in range(n_p):
                value[d, x] += value[d + 1, x]
        i += 1
        if i < count[node]:
            nxt[d] = i
            _down(t, node, d, p, i, reach, strat)
            at[d + 1] = children[first[node] + i]
            d += 1
            entering = True
            continue
        if k == DECISION and player[node] == p:
            n_act = count[node]
            base = offset[node]
            for x in range(n_p):
                if best:
                    top = 0
                    for a in range(1, n_act):
                        if action_value[d, a, x] > action_value[d, top, x]:
                            top = a
                    value[d, x] = action_value[d, top, x]
                    for a in range(n_act):
                        choice[base + x * n_act + a] = 1.0 if a == top else 0.0
                else:
                    v = 0.0
                    for a in range(n_act):
                        v += strategy[base + x * n_act + a] * action_value[d, a, x]
                    value[d, x] = v
        entering = False
    own = prior0 if p == 0 else prior1
    total = 0.0
    for x in range(own.shape[0]):
        total += own[x] * value[0, x]
    return total


@njit(cache=True, nogil=True)
def normalise(t, weights, out):
    """The behaviour strategy of summed weights (an average strategy): each block's rows scaled to 1
    (uniform where a row sums to 0)."""
    kind, count, types, offset, player = t[0], t[3], t[5], t[6], t[1]
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
    kind, count, types, offset, player = t[0], t[3], t[5], t[6], t[1]
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
    matrix, matrix2, coef, mat_data, mat_offset, mat_cols = t[7], t[8], t[9], t[10], t[11], t[12]
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
    kind, player, first, count, children, offset = t[0], t[1], t[2], t[3], t[4], t[6]
    mat_data, mat_offset, mat_cols, matrix = t[10], t[11], t[12], t[7]
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
def es_pass(t, prior0, prior1, trav, walks, seed, regrets, avg, weight, values, probs):
    """``walks`` walks of external-sampling MCCFR for the traverser: both players' types drawn from the
    priors, chance and the opponent's actions sampled, every action of the traverser explored;
    the opponent's average strategy gets its current strategy at each visited node (× ``weight``)."""
    if seed >= 0:
        np.random.seed(seed)
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
def realization(t, prior0, prior1, strategy, out):
    """For every decision node, type and action: the acting player's own reach of the node (chance × its
    own earlier actions) times its probability of the action — the sequence-form weights of ``strategy``."""
    kind, player, first, count, children, types, offset = t[0], t[1], t[2], t[3], t[4], t[5], t[6]
    depth_max = 64
    reach = np.zeros((depth_max, 2, types.max()))
    strat = np.zeros((depth_max, count.max(), types.max()))
    at = np.zeros(depth_max, dtype=np.int64)
    nxt = np.zeros(depth_max, dtype=np.int64)
    reach[0, 0, : prior0.shape[0]] = prior0
    reach[0, 1, : prior1.shape[0]] = prior1
    d = 0
    entering = True
    while True:
        node = at[d]
        if entering and kind[node] != TERMINAL:
            if kind[node] == DECISION:
                q = player[node]
                n_act = count[node]
                base = offset[node]
                for x in range(types[node, q]):
                    for a in range(n_act):
                        strat[d, a, x] = strategy[base + x * n_act + a]
                        out[base + x * n_act + a] = reach[d, q, x] * strategy[base + x * n_act + a]
            nxt[d] = 0
            _down(t, node, d, 0, 0, reach, strat)
            at[d + 1] = children[first[node]]
            d += 1
            continue
        if d == 0:
            break
        d -= 1
        node = at[d]
        i = nxt[d] + 1
        if i < count[node]:
            nxt[d] = i
            _down(t, node, d, 0, i, reach, strat)
            at[d + 1] = children[first[node] + i]
            d += 1
            entering = True
            continue
        entering = False


@njit(cache=True, nogil=True)
def quantise(t, probabilities, out):
    """Each row as uint8 steps of 1/255 summing to 255: the floors, then one more step to the largest
    remainders (ties: the first action)."""
    kind, count, types, offset, player = t[0], t[3], t[5], t[6], t[1]
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
    kind, count, types, offset, player = t[0], t[3], t[5], t[6], t[1]
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
