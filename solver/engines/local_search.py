"""Fast improving responses by local search (no proof): the double oracle's cheap oracle and
CP-SAT's hint.

From a start arrangement, repeat until no move gains more than ``FLOAT_NOISE``:

* the best order of the free slots' packets over those slots (every permutation);
* for every two free slots, the best split of their ten cards into two packets, in either
  order (126 splits × 2);
* with ``triples``, once those are stuck: for every three free slots, the best split of their
  fifteen cards into three packets in any order (756,756 ordered splits).

The result is a local optimum: no order and no re-split of two (or three) free slots improves
it.  Fixed slots never move.  ``local_optimum`` runs it from one start; ``improving_partitions``
from several starts and returns the distinct partitions (sets of packets, whatever their order)
that beat a threshold, best first.  Nothing here is a certificate: the exact engines (``search``,
``cpsat``) prove; this only finds.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from itertools import combinations, permutations

import numpy as np
from numba import njit

from quintet.kernels import NO_WRAPPERS
from solver.problem.best_response import FLOAT_NOISE, BestResponseProblem
from solver.problem.packet_index import PacketIndex, build_packet_index, packet_index, specimen_index

# packet_index is compiled into these kernels, and numba re-checks only this file before using its cache: a
# change to packet_index.py (bit 63, draw54's second joker) goes with a change here
__all__ = ["local_optimum", "improving_partitions"]


def _split_patterns() -> np.ndarray:
    """The 126 ways to put position 0 and four others of ten positions in one packet."""
    rows = []
    for rest in combinations(range(1, 10), 4):
        a = (0, *rest)
        rows.append(a + tuple(i for i in range(10) if i not in a))
    return np.array(rows, dtype=np.int64)


_SPLITS = _split_patterns()
_C15 = np.array(list(combinations(range(15), 5)), dtype=np.int64)  # the first packet of fifteen cards
_C10 = np.array(list(combinations(range(10), 5)), dtype=np.int64)  # the second of the ten left (in order)
_C10_REST = np.array([[i for i in range(10) if i not in c] for c in _C10.tolist()], dtype=np.int64)


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
def improve(packets, V, masks, ix, free_slots, perms, min_step):
    """Local search in place on ``packets`` (table indices per slot) over the slots
    ``free_slots``: the best of the slot orders ``perms`` (each a permutation of positions in
    ``free_slots``) and every two-slot re-split, until no move gains more than ``min_step``.
    Returns the final value."""
    n_slots = packets.shape[0]
    nf = free_slots.shape[0]
    moved_packets = np.empty(nf, dtype=np.int64)
    while True:
        moved = False
        if nf >= 2:
            base = 0.0
            for i in range(nf):
                s = free_slots[i]
                base += V[ix.table_cls[packets[s]], s]
            best = base + min_step
            arg = -1
            for k in range(perms.shape[0]):
                v = 0.0
                for i in range(nf):
                    s = free_slots[i]
                    v += V[ix.table_cls[packets[free_slots[perms[k, i]]]], s]
                if v > best:
                    best = v
                    arg = k
            if arg >= 0:
                for i in range(nf):
                    moved_packets[i] = packets[free_slots[perms[arg, i]]]
                for i in range(nf):
                    packets[free_slots[i]] = moved_packets[i]
                moved = True
        for i in range(nf):
            for j in range(i + 1, nf):
                a = free_slots[i]
                b = free_slots[j]
                cur = V[ix.table_cls[packets[a]], a] + V[ix.table_cls[packets[b]], b]
                v, pa, pb = _resplit(masks[packets[a]], masks[packets[b]], a, b, V, ix)
                if v > cur + min_step:
                    packets[a] = pa
                    packets[b] = pb
                    moved = True
        if not moved:
            break
    total = 0.0
    for s in range(n_slots):
        total += V[ix.table_cls[packets[s]], s]
    return total


@njit(cache=True, nogil=True, **NO_WRAPPERS)
def _colex(pos, idx, binom):
    """Colex rank of the five sorted live positions ``pos[idx[0..4]]`` (``binom``: C(n, k))."""
    r = 0
    for t in range(5):
        r += binom[pos[idx[t]], t + 1]
    return r


@njit(cache=True, nogil=True, **NO_WRAPPERS)
def _resplit3(union, a, b, c, V, ix, out):
    """Best split of the fifteen cards of ``union`` into packets for slots a, b, c (any order):
    their value, the packets in ``out[0..2]``."""
    pos = np.empty(15, dtype=np.int64)
    n = 0
    for bit in range(64):
        if union >> bit & 1:
            pos[n] = ix.live_pos[bit]
            n += 1
    vmax_b = -np.inf
    vmax_c = -np.inf
    for r in range(V.shape[0]):
        vmax_b = max(vmax_b, V[r, b])
        vmax_c = max(vmax_c, V[r, c])
    best = -np.inf
    rest = np.empty(10, dtype=np.int64)
    used = np.zeros(15, dtype=np.bool_)
    for i in range(_C15.shape[0]):
        pa = ix.colex_to_lex[_colex(pos, _C15[i], ix.binom)]
        va = V[ix.table_cls[pa], a]
        if va + vmax_b + vmax_c <= best:
            continue
        used[:] = False
        for t in range(5):
            used[_C15[i, t]] = True
        m = 0
        for t in range(15):
            if not used[t]:
                rest[m] = pos[t]
                m += 1
        for j in range(_C10.shape[0]):
            pb = ix.colex_to_lex[_colex(rest, _C10[j], ix.binom)]
            pc = ix.colex_to_lex[_colex(rest, _C10_REST[j], ix.binom)]
            v = va + V[ix.table_cls[pb], b] + V[ix.table_cls[pc], c]
            if v > best:
                best = v
                out[0] = pa
                out[1] = pb
                out[2] = pc
    return best


@njit(cache=True, nogil=True)
def improve_triples(packets, V, masks, ix, free_slots, min_step):
    """One pass of three-slot re-splits in place over the free slots: each triple's fifteen
    cards split the best way if that gains more than ``min_step``.  Returns True if any did."""
    nf = free_slots.shape[0]
    out = np.empty(3, dtype=np.int64)
    moved = False
    for i in range(nf):
        for j in range(i + 1, nf):
            for k in range(j + 1, nf):
                a = free_slots[i]
                b = free_slots[j]
                c = free_slots[k]
                cur = (V[ix.table_cls[packets[a]], a] + V[ix.table_cls[packets[b]], b]
                       + V[ix.table_cls[packets[c]], c])
                union = masks[packets[a]] | masks[packets[b]] | masks[packets[c]]
                if _resplit3(union, a, b, c, V, ix, out) > cur + min_step:
                    packets[a] = out[0]
                    packets[b] = out[1]
                    packets[c] = out[2]
                    moved = True
    return moved


class _Moves:
    """What the kernels need of one problem: values, masks, packet index, free slots, orders."""

    def __init__(self, problem: BestResponseProblem) -> None:
        tables = problem.tables
        self.ix: PacketIndex = tables.derived("packet index", build_packet_index)
        self.V = np.ascontiguousarray(problem.values, dtype=np.float64)
        self.masks = tables.masks.astype(np.int64)
        self.free = np.array([s for s, p in enumerate(problem.fixed) if p < 0], dtype=np.int64)
        self.perms = np.array(list(permutations(range(self.free.size))), dtype=np.int64)

    def optimum(self, start: tuple[int, ...], triples: bool, stop_event: threading.Event | None) -> tuple[int, ...]:
        packets = np.array(start, dtype=np.int64)
        while True:
            improve(packets, self.V, self.masks, self.ix, self.free, self.perms, FLOAT_NOISE)
            if not triples or self.free.size < 3 or (stop_event is not None and stop_event.is_set()):
                break
            if not improve_triples(packets, self.V, self.masks, self.ix, self.free, FLOAT_NOISE):
                break
        return tuple(int(p) for p in packets)


def local_optimum(problem: BestResponseProblem, start: tuple[int, ...], *, triples: bool = False,
                  stop_event: threading.Event | None = None) -> tuple[int, ...]:
    """The local optimum reached from ``start`` (a legal arrangement, packet indices in slot order;
    fixed slots kept) by the moves of the module doc, three-slot re-splits with ``triples``; cut
    short after a pass once ``stop_event`` is set (the arrangement so far, legal)."""
    return _Moves(problem).optimum(tuple(start), triples, stop_event)


def improving_partitions(problem: BestResponseProblem, starts: Iterable[tuple[int, ...]], *, min_gain: float,
                         limit: int = 3) -> list[tuple[float, tuple[int, ...]]]:
    """Local optima from ``starts`` worth more than ``min_gain``: (value, packet indices in
    slot order), at most one per partition and ``limit`` in all, best first."""
    moves = _Moves(problem)
    found: dict[frozenset[int], tuple[float, tuple[int, ...]]] = {}
    for start in starts:
        result = moves.optimum(tuple(start), False, None)
        value = problem.value_of(result)
        if value > min_gain:
            key = frozenset(result)
            if key not in found or found[key][0] < value:
                found[key] = (value, result)
    return sorted(found.values(), key=lambda x: -x[0])[:limit]


def kernel_specimens() -> list[tuple[object, tuple[object, ...]]]:
    """(kernel, arguments of the types ``LocalSearch`` calls it with), for
    ``solver.engines.precompile``."""
    i64 = np.zeros(1, dtype=np.int64)
    i64_2 = np.zeros((1, 1), dtype=np.int64)
    return [(improve, (i64, np.zeros((1, 1)), i64, specimen_index(), i64, i64_2, 0.0))]
