"""The pruning kernels of the CP-SAT model (numba; arrays in, arrays out): P1–P4 of
``solver.engines.cpsat`` over one round's candidate lists (``PairLists``)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

__all__ = ["PairLists", "first_disjoint", "level1_lhs", "pair_prune", "B1", "B2"]

_NO_LIMIT = 1 << 40
B1 = 32  # block sizes of the key-filter skip structure (see _best_in)
B2 = 1024

PairLists = namedtuple("PairLists", "masks cls values lists lists_cls off rel keys fkey bm1 bm2")
PairLists.__doc__ = """One pruning round's candidates, read-only in the kernels.

masks, cls, values: per candidate packet p its card mask, rank class (int64) and
``values[p, j]`` in free slot j; ``lists[off[k]:off[k+1]]``: the candidates alive in slot k,
strongest class first (classes in ``lists_cls``); ``rel[j, k]`` = +1 / −1 / 0 when slot k
must hold a class ≥ / ≤ / anything relative to slot j (chains, P4); ``keys[j, k, c(q)] ≥
keys[j, k, c(p)]`` is required of q in slot k when p is in slot j (exchange keys, P2);
``fkey[j, i]`` is ``keys[j, k, c]`` of list position i in slot k's segment, ``bm1``/``bm2``
its maxima over aligned blocks of ``B1``/``B2`` positions."""


@njit(cache=True, nogil=True)
def first_disjoint(sorted_masks, query_masks):
    """For each query mask, the position of the first mask in ``sorted_masks`` disjoint
    from it, or -1.  With ``sorted_masks`` ordered strongest class first this is a
    strongest packet disjoint from the query (P1, without windows)."""
    n = query_masks.shape[0]
    m_sorted = sorted_masks.shape[0]
    out = np.full(n, -1, dtype=np.int64)
    for i in range(n):
        q = query_masks[i]
        for j in range(m_sorted):
            if (sorted_masks[j] & q) == 0:
                out[i] = j
                break
    return out


@njit(cache=True, nogil=True)
def _best_in(pl, k, m, lb, ub, j1, kmin1, j2, kmin2):
    """Strongest candidate q of slot k's list (``PairLists``) with ``lb ≤ c(q) ≤ ub``, packet
    disjoint from ``m``, ``fkey[j1, i] ≥ kmin1`` and (if ``j2 ≥ 0``) ``fkey[j2, i] ≥ kmin2``
    (``i`` its position); -1 if none.  Blocks of positions where no entry passes the key
    filters (block maxima ``bm1``/``bm2``) are skipped whole."""
    lists, lists_cls, masks, fkey, bm1, bm2 = pl.lists, pl.lists_cls, pl.masks, pl.fkey, pl.bm1, pl.bm2
    lo, hi = pl.off[k], pl.off[k + 1]
    a, b = lo, hi  # first position with class ≤ ub (classes nonincreasing)
    while a < b:
        mid = (a + b) // 2
        if lists_cls[mid] <= ub:
            b = mid
        else:
            a = mid + 1
    i = a
    while i < hi:
        if i % B2 == 0 and i + B2 <= hi:
            blk = i // B2
            if bm2[j1, blk] < kmin1 or (j2 >= 0 and bm2[j2, blk] < kmin2):
                if lists_cls[i + B2 - 1] < lb:
                    return -1
                i += B2
                continue
        if i % B1 == 0 and i + B1 <= hi:
            blk = i // B1
            if bm1[j1, blk] < kmin1 or (j2 >= 0 and bm1[j2, blk] < kmin2):
                if lists_cls[i + B1 - 1] < lb:
                    return -1
                i += B1
                continue
        c = lists_cls[i]
        if c < lb:
            return -1
        if (masks[lists[i]] & m) == 0 and fkey[j1, i] >= kmin1 and (j2 < 0 or fkey[j2, i] >= kmin2):
            return lists[i]
        i += 1
    return -1


@njit(cache=True, nogil=True)
def _window(rel, cls_p, j, k):
    """Class window (lb, ub) in slot k implied by class cls_p in slot j (chains, P4)."""
    r = rel[j, k]
    if r > 0:
        return cls_p, np.int64(_NO_LIMIT)
    if r < 0:
        return np.int64(-1), cls_p
    return np.int64(-1), np.int64(_NO_LIMIT)


@njit(cache=True, nogil=True)
def level1_lhs(pl, alive, base):
    """P1, P2 and P4: ``lhs[p, j] = base + values[p, j] + Σ_{k≠j} best`` for the alive
    pairs (−inf elsewhere); ``best`` the strongest candidate of slot k compatible with p in
    slot j (``PairLists``)."""
    masks, cls, values, rel, keys = pl.masks, pl.cls, pl.values, pl.rel, pl.keys
    n, nf = values.shape
    lhs = np.full((n, nf), -np.inf)
    for p in range(n):
        mp = masks[p]
        cp = np.int64(cls[p])
        for j in range(nf):
            if not alive[p, j]:
                continue
            tot = base + values[p, j]
            for k in range(nf):
                if k == j:
                    continue
                lb, ub = _window(rel, cp, j, k)
                q = _best_in(pl, k, mp, lb, ub, j, keys[j, k, cp], -1, 0)
                if q < 0:
                    tot = -np.inf
                    break
                tot += values[q, k]
            lhs[p, j] = tot
    return lhs


@njit(cache=True, nogil=True)
def pair_prune(pl, alive, need0, row_lo, row_hi):
    """P3 and P4 on candidate rows ``row_lo:row_hi``: a copy of ``alive`` without the
    pairs (p, j) for which some other slot j2 proves
    ``values[p, j] + max_q (values[q, j2] + Σ_k best(p ∪ q, k)) < need0`` (``PairLists``)."""
    masks, cls, values, rel, keys = pl.masks, pl.cls, pl.values, pl.rel, pl.keys
    lists, lists_cls, off = pl.lists, pl.lists_cls, pl.off
    n, nf = values.shape
    out = alive.copy()
    for p in range(row_lo, row_hi):
        mp = masks[p]
        cp = np.int64(cls[p])
        for j in range(nf):
            if not alive[p, j]:
                continue
            need = need0 - values[p, j]
            for j2 in range(nf):
                if j2 == j:
                    continue
                lb2, ub2 = _window(rel, cp, j, j2)
                kmin2 = keys[j, j2, cp]
                # optimistic value of the slots other than j and j2, from p alone
                others = 0.0
                for k in range(nf):
                    if k != j and k != j2:
                        lb, ub = _window(rel, cp, j, k)
                        r = _best_in(pl, k, mp, lb, ub, j, keys[j, k, cp], -1, 0)
                        if r < 0:
                            others = -np.inf
                            break
                        others += values[r, k]
                proved = True
                if others > -np.inf:
                    a, b = off[j2], off[j2 + 1]
                    while a < b:  # first position with class ≤ ub2
                        mid = (a + b) // 2
                        if lists_cls[mid] <= ub2:
                            b = mid
                        else:
                            a = mid + 1
                    for i in range(a, off[j2 + 1]):
                        cq = np.int64(lists_cls[i])
                        if cq < lb2:
                            break
                        q = lists[i]
                        if (masks[q] & mp) != 0 or keys[j, j2, cq] < kmin2:
                            continue
                        if values[q, j2] + others < need:
                            break  # sorted: no later q reaches need either
                        mpq = mp | masks[q]
                        val = values[q, j2]
                        for k in range(nf):
                            if k == j or k == j2:
                                continue
                            lb, ub = _window(rel, cp, j, k)
                            lbq, ubq = _window(rel, cq, j2, k)
                            r = _best_in(pl, k, mpq, max(lb, lbq), min(ub, ubq), j, keys[j, k, cp], j2,
                                         keys[j2, k, cq])
                            if r < 0:
                                val = -np.inf
                                break
                            val += values[r, k]
                        if val >= need:
                            proved = False
                            break
                if proved:
                    out[p, j] = False
                    break
    return out
