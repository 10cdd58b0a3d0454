"""The CP-SAT model's hint: a legal arrangement by greedy rules and the shared local search
(``solver.engines.local_search``), put in the canonical form every constraint of the model admits
(``solver.engines.cpsat``: exchange-stable, chain-sorted, card-canonical)."""

from __future__ import annotations

import itertools
import threading

import numpy as np
from numba import njit

from solver.engines.local_search import local_optimum
from solver.problem.best_response import BestResponseProblem

__all__ = ["greedy_hint", "free_slots", "free_mask", "Lookup", "canonical_classes", "canonical_cards"]

def free_slots(problem: BestResponseProblem) -> list[int]:
    """The slots the problem leaves free."""
    return [s for s, p in enumerate(problem.fixed) if p < 0]


def free_mask(problem: BestResponseProblem) -> int:
    """The live cards the fixed slots leave."""
    used = 0
    for p in problem.fixed:
        if p >= 0:
            used |= int(problem.tables.masks[p])
    return int(problem.tables.deal.live) & ~used


class Lookup:
    """Vectorized packet-mask → packet-index lookup (searchsorted on the sorted masks)."""

    def __init__(self, masks: np.ndarray) -> None:
        self.order = np.argsort(masks, kind="stable")
        self.sorted = masks[self.order]

    def __call__(self, query: np.ndarray | int) -> np.ndarray:
        q = np.atleast_1d(np.asarray(query, dtype=self.sorted.dtype))  # uint64: card 63 (draw54) is a card
        pos = np.searchsorted(self.sorted, q)
        pos = np.minimum(pos, self.sorted.shape[0] - 1)
        if not np.all(self.sorted[pos] == q):
            raise ValueError("mask is not a packet of this deal")
        return self.order[pos]


@njit(cache=True, nogil=True)
def _greedy_in_orders(masks, orders, perms):
    """For each slot order ``perms[t]``: each slot but the last takes the first packet of its
    preference list ``orders[j]`` disjoint from those taken (-1 for the last slot)."""
    n_perm, nf = perms.shape
    out = np.full((n_perm, nf), -1, dtype=np.int64)
    for t in range(n_perm):
        used = np.uint32(0)
        for i in range(nf - 1):
            j = perms[t, i]
            for q in orders[j]:
                if (masks[q] & used) == 0:
                    out[t, j] = q
                    used |= masks[q]
                    break
    return out


def greedy_hint(problem: BestResponseProblem, *, improve: bool = True, n_improve: int = 2,
                stop_event: threading.Event | None = None) -> tuple[int, ...]:
    """A legal arrangement respecting the fixed slots, the best of:

    * *strongest first*: repeatedly take the strongest packet (highest class; ties by table
      index) inside the free cards disjoint from those taken, the last free packet being the
      leftover cards, laid in the best order over the free slots;
    * *slot by slot*, for every order of the free slots: each slot takes the most valuable
      packet for it (ties: the weakest class, to save strong cards) disjoint from those
      taken, the last slot the leftover cards;

    then (unless ``improve=False``) the local search with three-slot re-splits
    (``solver.engines.local_search.local_optimum``) from the strongest-first arrangement and on
    the ``n_improve`` best slot-by-slot ones (cut short once ``stop_event`` is set)."""
    tables, V = problem.tables, problem.values
    free = free_slots(problem)
    packets = [int(p) for p in problem.fixed]
    if not free:
        return tuple(packets)
    nf = len(free)
    cards = free_mask(problem)
    lookup = Lookup(tables.masks)
    masks = tables.masks
    classes = tables.classes
    cand = np.flatnonzero((masks & ~np.uint64(cards)) == 0)

    def complete(taken: dict[int, int]) -> tuple[int, ...]:
        arr = list(packets)
        used = 0
        for s, p in taken.items():
            arr[s] = p
            used |= int(masks[p])
        rest = [s for s in free if s not in taken]
        if rest:
            arr[rest[0]] = int(lookup(cards & ~used)[0])
        return tuple(arr)

    # strongest first
    order = cand[np.argsort(-classes[cand], kind="stable")]
    taken: list[int] = []
    used = 0
    for p, m in zip(order.tolist(), masks[order].tolist(), strict=True):
        if len(taken) == nf - 1:
            break
        if m & used == 0:
            taken.append(p)
            used |= m
    taken.append(int(lookup(cards & ~used)[0]))
    cl = [int(classes[p]) for p in taken]
    best_perm = max(itertools.permutations(range(nf)),
                    key=lambda perm: sum(V[cl[perm[i]], free[i]] for i in range(nf)))
    strongest = complete({s: taken[best_perm[i]] for i, s in enumerate(free)})

    # slot by slot, every order
    orders = np.empty((nf, cand.size), dtype=np.int64)
    for j, s in enumerate(free):
        orders[j] = cand[np.lexsort((classes[cand], -V[classes[cand], s]))]
    perms = np.array(list(itertools.permutations(range(nf))), dtype=np.int64)
    picks = _greedy_in_orders(masks, orders, perms)
    by_slot = [complete({free[j]: int(picks[t, j]) for j in range(nf) if picks[t, j] >= 0})
               for t in range(perms.shape[0])]
    by_slot.sort(key=problem.value_of, reverse=True)

    if not improve:
        return max([strongest, by_slot[0]], key=problem.value_of)
    starts = [strongest] + by_slot[:n_improve]
    return max((local_optimum(problem, a, triples=True, stop_event=stop_event) for a in starts),
               key=problem.value_of)


def canonical_classes(packets: list[int], free: list[int], rank: np.ndarray | None,
                      chains: list[list[int]], classes: np.ndarray) -> list[int]:
    """Strictly improving exchanges (exact ranks) and chain sorting until neither applies.
    ``chains`` are lists of free positions.  (value, −inversions) rises at every step."""
    out = list(packets)
    nf = len(free)
    changed = True
    steps = 0
    while changed:
        changed = False
        steps += 1
        if steps > 100_000:  # (value, −inversions) rises every pass: this cannot happen
            raise AssertionError("canonical slot order does not converge")
        if rank is not None:
            for a in range(nf):
                for b in range(a + 1, nf):
                    pa, pb = out[free[a]], out[free[b]]
                    if rank[a, b, classes[pa]] > rank[a, b, classes[pb]]:
                        out[free[a]], out[free[b]] = pb, pa
                        changed = True
        for chain in chains:
            for ja, jb in itertools.pairwise(chain):
                pa, pb = out[free[ja]], out[free[jb]]
                if classes[pa] > classes[pb]:
                    out[free[ja]], out[free[jb]] = pb, pa
                    changed = True
    return out


def canonical_cards(packets: list[int], free: list[int], swaps: list[tuple[int, int]],
                     lookup: Lookup, classes: np.ndarray, masks: np.ndarray) -> list[int]:
    """Exchange same-rank cards a < b between two free slots while a sits in the later slot
    and both packets keep their classes; each exchange raises Φ = Σ_card suit·slot."""
    out = list(packets)
    changed = True
    steps = 0
    while changed:
        changed = False
        steps += 1
        if steps > 100_000:  # Φ rises with every exchange: this cannot happen
            raise AssertionError("card exchanges do not converge")
        for a, b in swaps:
            sa = sb = -1
            for s in free:
                m = int(masks[out[s]])
                if m >> a & 1:
                    sa = s
                if m >> b & 1:
                    sb = s
            if sa <= sb:
                continue
            ma, mb = int(masks[out[sa]]), int(masks[out[sb]])
            pa = int(lookup(ma & ~(1 << a) | (1 << b))[0])
            pb = int(lookup(mb & ~(1 << b) | (1 << a))[0])
            if classes[pa] == classes[out[sa]] and classes[pb] == classes[out[sb]]:
                out[sa], out[sb] = pa, pb
                changed = True
    return out
