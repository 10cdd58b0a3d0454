"""Fast improving responses by local search (no proof): the double oracle's cheap oracle.

From a start arrangement, repeat until no move gains more than ``MIN_STEP``:

* the best order of the five packets over the slots (all 120 orders);
* for every two slots, the best split of their ten cards into two packets, in either order
  (126 splits × 2).

The result is a local optimum: no slot order and no re-split of two slots improves it.
``improving_partitions`` runs it from several starts and returns the distinct partitions
(sets of packets, whatever their order) that beat a threshold, best first.  Nothing here
is a certificate: the exact engines (``search``, ``cpsat``) prove; this only finds.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations, permutations

import numpy as np
from numba import njit

from quintet.kernels import NO_WRAPPERS
from solver.problem.best_response import BestResponseProblem
from solver.problem.packet_index import build_packet_index, packet_index

__all__ = ["improve", "improving_partitions"]

MIN_STEP = 1e-12  # points: a move must gain more than this (float noise)

_PERMS = np.array(list(permutations(range(5))), dtype=np.int64)


def _split_patterns() -> np.ndarray:
    """The 126 ways to put position 0 and four others of ten positions in one packet."""
    rows = []
    for rest in combinations(range(1, 10), 4):
        a = (0, *rest)
        rows.append(a + tuple(i for i in range(10) if i not in a))
    return np.array(rows, dtype=np.int64)


_SPLITS = _split_patterns()


@njit(cache=True, nogil=True, **NO_WRAPPERS)
def _resplit(ma, mb, a, b, V, ix):
    """Best split of the ten cards of masks ``ma | mb`` into slots a and b.

    Returns (value, packet index for a, packet index for b)."""
    union = ma | mb
    bits = np.empty(10, dtype=np.int64)
    n = 0
    for c in range(64):
        if union >> c & 1:
            bits[n] = c
            n += 1
    best = -1e300
    best_a = -1
    best_b = -1
    for j in range(_SPLITS.shape[0]):
        m1 = np.int64(0)
        for i in range(5):
            m1 |= np.int64(1) << bits[_SPLITS[j, i]]
        m2 = union ^ m1
        p1 = packet_index(m1, ix)
        p2 = packet_index(m2, ix)
        c1 = ix.table_cls[p1]
        c2 = ix.table_cls[p2]
        v = V[c1, a] + V[c2, b]
        if v > best:
            best, best_a, best_b = v, p1, p2
        v = V[c2, a] + V[c1, b]
        if v > best:
            best, best_a, best_b = v, p2, p1
    return best, best_a, best_b


@njit(cache=True, nogil=True)
def improve(packets, V, masks, ix, free):
    """Local search in place on ``packets`` (table indices per slot); only slots with
    ``free[s]`` move.  Returns the final value."""
    n_slots = packets.shape[0]
    all_free = True
    for s in range(n_slots):
        if not free[s]:
            all_free = False
    while True:
        moved = False
        if all_free and n_slots == 5:
            base = 0.0
            for s in range(5):
                base += V[ix.table_cls[packets[s]], s]
            best = base + MIN_STEP
            arg = -1
            for k in range(_PERMS.shape[0]):
                v = 0.0
                for s in range(5):
                    v += V[ix.table_cls[packets[_PERMS[k, s]]], s]
                if v > best:
                    best = v
                    arg = k
            if arg >= 0:
                old = packets.copy()
                for s in range(5):
                    packets[s] = old[_PERMS[arg, s]]
                moved = True
        for a in range(n_slots):
            for b in range(a + 1, n_slots):
                if not (free[a] and free[b]):
                    continue
                cur = V[ix.table_cls[packets[a]], a] + V[ix.table_cls[packets[b]], b]
                v, pa, pb = _resplit(masks[packets[a]], masks[packets[b]], a, b, V, ix)
                if v > cur + MIN_STEP:
                    packets[a] = pa
                    packets[b] = pb
                    moved = True
        if not moved:
            break
    total = 0.0
    for s in range(n_slots):
        total += V[ix.table_cls[packets[s]], s]
    return total


def improving_partitions(problem: BestResponseProblem, starts: Iterable[tuple[int, ...]], *, min_gain: float,
                         limit: int = 3) -> list[tuple[float, tuple[int, ...]]]:
    """Local optima from ``starts`` worth more than ``min_gain``: (value, packet indices in
    slot order), at most one per partition and ``limit`` in all, best first."""
    tables = problem.tables
    ix = tables.derived("packet index", build_packet_index)
    V = np.ascontiguousarray(problem.values, dtype=np.float64)
    masks = tables.masks.astype(np.int64)
    free = np.array([p < 0 for p in problem.fixed], dtype=np.bool_)
    found: dict[frozenset[int], tuple[float, tuple[int, ...]]] = {}
    for start in starts:
        packets = np.array(start, dtype=np.int64)
        value = float(improve(packets, V, masks, ix, free))
        result = tuple(int(p) for p in packets)
        value = problem.value_of(result)
        if value > min_gain:
            key = frozenset(result)
            if key not in found or found[key][0] < value:
                found[key] = (value, result)
    return sorted(found.values(), key=lambda x: -x[0])[:limit]
