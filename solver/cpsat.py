"""Best response as an OR-Tools CP-SAT model — the second, independent exact engine.

The problem (``problem.BestResponseProblem``): choose one packet per slot, the packets an
exact cover of the live cards, maximizing ``Σ_s V[c(p_s), s]`` where ``c`` is the packet's
rank class and every column ``V[:, s]`` is nondecreasing in the class.  Some slots may be
fixed to given packets.

``solve_cpsat`` works in the three steps of the OR-Tools samples:

1. **build** (``build_model``) — a complete hint ``H`` (given, or greedy; then improved by
   local search and sorted along the symmetry chains, see below), sound pruning of
   (packet, slot) pairs against ``T = value(H)``, then the model:

   * a boolean ``x[p, s]`` for each surviving pair of a *free* slot ``s`` and a packet ``p``
     inside the free cards (live cards minus the fixed packets' cards).  Fixed slots get no
     variables: their packets are given, their cards are not in the model, and their value is
     a constant added back in real units;
   * ``AddExactlyOne`` over each free slot's variables (one packet per slot);
   * ``AddExactlyOne`` over each free card's variables (every card exactly once);
   * slot-order symmetry-breaking constraints ``Σ c(p)·x[p, a] ≤ Σ c(p)·x[p, b]``;
   * the objective cut ``Σ coef·x ≥ L`` (the hint's scaled value, less rounding slack);
   * objective ``maximize Σ coef[p, s]·x[p, s]``, ``coef = round(K·V)``;
   * ``AddHint`` on every variable: 1 on the hint's pairs, 0 elsewhere.

2. **solve** — ``CpSolver`` with ``max_time_in_seconds``, ``num_workers``, ``random_seed``
   set explicitly; a watcher thread calls ``StopSearch`` when ``stop_event`` is set.

3. **extract** — the packets of the best solution (or the hint, if CP-SAT found nothing
   better), their exact float64 value ``problem.value_of``, the bound in real units.

Integer scaling, the bound and "optimal"
----------------------------------------
``K = 2**36``.  ``K·V`` is exact in float64 (a power-of-two scale, ``|K·V| < 2**53``), so
``coef = round(K·V)`` carries a rounding error ``e = V − coef/K`` with ``|e| ≤ 0.5/K`` that
is itself computed exactly (Sterbenz).  For any arrangement ``A`` with integer objective
``I(A)``: ``value(A) = fixed + I(A)/K + Σ_s e_s(A)``, so with ``E⁺ = Σ_s max_p e[p, s]`` and
``E⁻ = Σ_s min_p e[p, s]`` (over the model's pairs):
``fixed + I(A)/K + E⁻ ≤ value(A) ≤ fixed + I(A)/K + E⁺``.

* *Bound.*  CP-SAT's ``best_objective_bound`` ``B`` bounds ``I`` over the model, so every
  arrangement in the model is worth at most ``fixed + B/K + E⁺``.  Arrangements outside the
  model are either worth less than the hint (pruning, cut) or have an at-least-as-good
  sorted twin inside it up to ``δ`` (symmetry), see below; so the optimum is at most
  ``fixed + B/K + E⁺ + δ + FLOAT_SLACK``.  The pruning bound ``bound0`` (below) is an
  independent sound bound; the reported bound is ``max(value, min(bound0, that))`` — it is
  never below the value returned.
* *Optimal.*  CP-SAT's OPTIMAL proves the *integer* optimum; two arrangements whose real
  values differ by less than ``E⁺ − E⁻ ≤ n/K`` (< 1e-10) may be ordered differently by the
  integers.  So ``optimal=True`` is reported only when CP-SAT says OPTIMAL **and** the real
  bound minus the value is ``≤ OPTIMAL_GAP = 1e-9`` — i.e. nothing is better by more than
  1e-9 (the values themselves are float64 sums, exact to ~1e-15).  With ``K = 2**36`` and
  five slots the conversion gap is ``5/K + δ + FLOAT_SLACK ≈ 1e-10``, so an integer OPTIMAL
  always passes the test.  Exception: with at most one free slot the arrangement is forced
  (nothing to search, CP-SAT is not run) and is reported optimal with ``bound = value``.

Pruning (``prune=True``) and why each rule is sound
---------------------------------------------------
Let ``T = value(H)`` for the (sorted) hint; the optimum ``OPT ≥ T``.

1. *Disjoint-maximum bound.*  If ``A`` holds ``p`` in free slot ``s``, every other free slot
   ``s'`` holds a packet ``q`` inside the free cards and disjoint from ``p``, worth at most
   ``best(p, s') = max_{q ∩ p = ∅} V[c(q), s']``.  So
   ``value(A) ≤ lhs(p, s) = fixed + V[c(p), s] + Σ_{s'≠s free} best(p, s')``.  A pair with
   ``lhs(p, s) < T − PRUNE_TOL`` is in no arrangement worth ``≥ T − PRUNE_TOL`` and is
   dropped.  Computing ``best``: candidates sorted by class, strongest first; for each ``p``
   the first disjoint packet in that list (numba kernel ``first_disjoint``) has the highest
   class among the disjoint ones, hence — every column being nondecreasing — the highest
   value in *every* slot at once.
2. *Iterated per slot.*  The same with ``q`` restricted to the pairs ``(q, s')`` that survived
   the previous round: by induction every arrangement worth ``≥ T − PRUNE_TOL`` keeps all its
   pairs through every round (its slot-``s'`` packet survived for ``s'``), so its value is
   still ``≤ lhs``.  Rounds repeat until nothing changes (or ``MAX_ROUNDS``).  A packet with
   no surviving disjoint partner in some other slot gets ``lhs = −∞``.
3. The hint's pairs are always kept (they satisfy the rule anyway; this guards rounding).
4. ``bound0 = max(T, min_s max_{(p,s) alive} lhs(p, s))``: an arrangement worth
   ``≥ T − PRUNE_TOL`` has its slot-``s`` pair alive, so is worth at most ``lhs`` of it.

The float error of an ``lhs`` (a sum of ≤ 6 values of magnitude ≤ 7) is ~1e-14, far inside
``PRUNE_TOL = 1e-9``, so the comparisons lean the sound way.

Symmetry breaking (``symmetry=True``): slot-order chains
--------------------------------------------------------
For free slots ``a, b`` let ``D(r) = V[r, b] − V[r, a]`` over the classes ``S`` of packets
alive in ``a`` or in ``b``.  If ``D`` is nondecreasing on ``S`` (up to ``SYM_TOL``:
``D(r1) ≥ D(r2) − SYM_TOL`` for all ``r1 > r2`` in ``S``), moving the stronger of two packets
into ``b`` never loses more than ``SYM_TOL``: exchanging ``p`` (slot ``a``, class ``r1``)
and ``q`` (slot ``b``, class ``r2 < r1``) changes the value by ``D(r1) − D(r2)``.  Call
``a → b`` an *edge*.  The engine picks vertex-disjoint chains ``s1 → s2 → … → sk`` of edges
(most edges; exhaustive over ≤ 6 free slots) and adds ``c(p_{s_i}) ≤ c(p_{s_{i+1}})``.

Soundness: bubble-sort an optimal arrangement along each chain by class, swapping adjacent
chain slots only when the lower one holds the strictly stronger class.  Each swap is an
edge exchange; by induction the arrangement before a swap is worth ``≥ OPT − k·(SYM_TOL +
1e-14) ≥ T − PRUNE_TOL`` so all its pairs are alive, its two packets' classes are in ``S``,
and the swap loses at most ``SYM_TOL`` (+ float error of ``D``).  At most
``n_free·(n_free−1)/2`` swaps are made, so some arrangement satisfying every chain
constraint, with all pairs alive, is worth ``≥ OPT − δ``, ``δ = n_free² · (SYM_TOL + 1e-14)``
(≈ 3e-12) — accounted for in the bound, the cut and the pruning tolerance.  The hint is
sorted the same way before it is given to CP-SAT (so it satisfies the constraints).
Against the uniform opponent every column is ``w_s`` times one function, ``D`` is
``(w_b − w_a)`` times a nondecreasing function, and all slots form one chain: the model is
left with choosing the partition.

Skipped on purpose: suit symmetry (only when the exposed cards are suit-symmetric, rare) and
card-exchange symmetry (two same-rank cards are interchangeable in every packet only if no
flush can contain either, which needs two suits with ≤ 4 live cards: impossible with 7
exposed cards of 32).

Objective cut: an arrangement outside the cut ``I(A) ≥ L``,
``L = floor(K·(T − fixed − δ − E⁺ − FLOAT_SLACK)) − 1``, is worth less than ``T − δ``, so it is
neither optimal nor needed by the symmetry argument; the sorted hint satisfies it.
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field

import numpy as np
from numba import njit
from ortools.sat.python import cp_model

from .problem import BestResponseProblem, EngineResult

__all__ = [
    "solve_cpsat",
    "build_model",
    "greedy_hint",
    "improve_hint",
    "first_disjoint",
    "CpsatModel",
    "SCALE",
    "PRUNE_TOL",
    "OPTIMAL_GAP",
]

SCALE = float(2**36)  # K: values are scaled by a power of two, so K·V is exact
PRUNE_TOL = 1e-9  # pruning keeps pairs of every arrangement worth ≥ T − PRUNE_TOL
SYM_TOL = 1e-13  # tolerance of the slot-exchange (Monge) test
FLOAT_SLACK = 1e-11  # covers float error of the few sums that convert bounds to real units
OPTIMAL_GAP = 1e-9  # optimal=True needs bound − value ≤ this (and CP-SAT OPTIMAL)
MAX_ROUNDS = 12  # pruning rounds (each only shrinks the pair set)


# --------------------------------------------------------------------------------------
# numba kernel


@njit(cache=True, nogil=True)
def first_disjoint(sorted_masks, query_masks):
    """For each query mask, the position of the first mask in ``sorted_masks`` disjoint
    from it, or -1.  With ``sorted_masks`` ordered strongest class first this is a
    strongest packet disjoint from the query (int64 array, one entry per query)."""
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
def _first_in(lists, lo, hi, masks, m):
    """First entry of ``lists[lo:hi]`` whose packet is disjoint from ``m``, or -1."""
    for i in range(lo, hi):
        if (masks[lists[i]] & m) == 0:
            return lists[i]
    return -1


@njit(cache=True, nogil=True)
def pair_prune(masks, values, alive, lists, off, need0):
    """Rule 5 of the module doc.  ``values[p, j]``: value of candidate p in free slot j;
    ``lists[off[j]:off[j+1]]``: candidates alive in slot j, strongest class first.  Returns
    a copy of ``alive`` without the pairs (p, j) for which some other slot j2 proves
    ``values[p, j] + max_q (values[q, j2] + Σ_k best(p ∪ q, k)) < need0``."""
    n, nf = values.shape
    out = alive.copy()
    b1 = np.empty(nf)
    for p in range(n):
        any_alive = False
        for j in range(nf):
            if alive[p, j]:
                any_alive = True
        if not any_alive:
            continue
        mp = masks[p]
        for k in range(nf):
            q = _first_in(lists, off[k], off[k + 1], masks, mp)
            b1[k] = values[q, k] if q >= 0 else -np.inf
        for j in range(nf):
            if not alive[p, j]:
                continue
            need = need0 - values[p, j]
            for j2 in range(nf):
                if j2 == j:
                    continue
                rest_ub = 0.0
                for k in range(nf):
                    if k != j and k != j2:
                        rest_ub += b1[k]
                proved = True
                for i in range(off[j2], off[j2 + 1]):
                    q = lists[i]
                    if (masks[q] & mp) != 0:
                        continue
                    if values[q, j2] + rest_ub < need:
                        break  # the list is sorted: no later q reaches need either
                    mpq = mp | masks[q]
                    val = values[q, j2]
                    for k in range(nf):
                        if k != j and k != j2:
                            r = _first_in(lists, off[k], off[k + 1], masks, mpq)
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


# --------------------------------------------------------------------------------------
# helpers on the problem


def _free_slots(problem: BestResponseProblem) -> list[int]:
    return [s for s, p in enumerate(problem.fixed) if p < 0]


def _free_mask(problem: BestResponseProblem) -> int:
    used = 0
    for p in problem.fixed:
        if p >= 0:
            used |= int(problem.tables.masks[p])
    return int(problem.tables.deal.live) & ~used


class _Lookup:
    """Vectorized packet-mask → packet-index lookup (searchsorted on the sorted masks)."""

    def __init__(self, masks: np.ndarray) -> None:
        self.order = np.argsort(masks, kind="stable")
        self.sorted = masks[self.order]

    def __call__(self, query: np.ndarray | int) -> np.ndarray:
        q = np.atleast_1d(np.asarray(query, dtype=self.sorted.dtype))
        pos = np.searchsorted(self.sorted, q)
        pos = np.minimum(pos, self.sorted.shape[0] - 1)
        if not np.all(self.sorted[pos] == q):
            raise ValueError("mask is not a packet of this deal")
        return self.order[pos]


def _check_arrangement(problem: BestResponseProblem, packets: tuple[int, ...], what: str) -> None:
    """Raise ValueError unless ``packets`` is a legal exact cover respecting fixed slots."""
    tables = problem.tables
    if len(packets) != problem.n_slots:
        raise ValueError(f"{what}: {len(packets)} packets instead of {problem.n_slots}")
    used = 0
    n_packets = len(tables.masks)
    for s, p in enumerate(packets):
        if not 0 <= int(p) < n_packets:
            raise ValueError(f"{what}: slot {s + 1}: {p} is not a packet index")
        if problem.fixed[s] >= 0 and int(p) != problem.fixed[s]:
            raise ValueError(f"{what}: slot {s + 1} is fixed to packet {problem.fixed[s]}, got {p}")
        m = int(tables.masks[p])
        if m & used:
            raise ValueError(f"{what}: packets overlap")
        used |= m
    if used != int(tables.deal.live):
        raise ValueError(f"{what}: packets do not cover the live cards")


_COMBOS_10_5 = np.array(list(itertools.combinations(range(10), 5)), dtype=np.int64)


def improve_hint(problem: BestResponseProblem, packets: tuple[int, ...], *,
                 lookup: _Lookup | None = None, max_passes: int = 50) -> tuple[int, ...]:
    """Local search from a legal arrangement: best slot order of its packets (exhaustive over
    the free slots' permutations) and best re-split of every two free slots' ten cards
    (252 ordered splits), repeated until no move gains more than 1e-12."""
    tables, V = problem.tables, problem.values
    free = _free_slots(problem)
    cur = list(packets)
    if len(free) < 2:
        return tuple(cur)
    lookup = lookup or _Lookup(tables.masks)
    classes = tables.classes
    perms = list(itertools.permutations(range(len(free))))
    for _ in range(max_passes):
        improved = False
        # best order of the current free packets
        ps = [cur[s] for s in free]
        cl = [int(classes[p]) for p in ps]
        base = sum(V[cl[i], free[i]] for i in range(len(free)))
        best_gain, best_perm = 1e-12, None
        for perm in perms:
            v = sum(V[cl[perm[i]], free[i]] for i in range(len(free)))
            if v - base > best_gain:
                best_gain, best_perm = v - base, perm
        if best_perm is not None:
            for i, s in enumerate(free):
                cur[s] = ps[best_perm[i]]
            improved = True
        # best re-split of each pair of free slots
        for i, a in enumerate(free):
            for b in free[i + 1:]:
                union = int(tables.masks[cur[a]]) | int(tables.masks[cur[b]])
                bits = np.array([1 << k for k in range(32) if union >> k & 1], dtype=np.int64)
                sub = np.bitwise_or.reduce(bits[_COMBOS_10_5], axis=1)
                idx_a = lookup(sub.astype(np.uint32))
                idx_b = lookup((union & ~sub).astype(np.uint32))
                vals = V[classes[idx_a], a] + V[classes[idx_b], b]
                k = int(np.argmax(vals))
                old = V[classes[cur[a]], a] + V[classes[cur[b]], b]
                if vals[k] > old + 1e-12:
                    cur[a], cur[b] = int(idx_a[k]), int(idx_b[k])
                    improved = True
        if not improved:
            break
    return tuple(int(p) for p in cur)


def greedy_hint(problem: BestResponseProblem, *, improve: bool = True) -> tuple[int, ...]:
    """A legal arrangement respecting the fixed slots: repeatedly take the strongest packet
    (highest class; ties by table index) inside the free cards disjoint from those taken,
    the last free packet being the leftover cards; lay them in the best order of the free
    slots; then ``improve_hint`` (unless ``improve=False``)."""
    tables, V = problem.tables, problem.values
    free = _free_slots(problem)
    packets = list(problem.fixed)
    if not free:
        return tuple(int(p) for p in packets)
    free_mask = _free_mask(problem)
    lookup = _Lookup(tables.masks)
    masks = tables.masks
    cand = np.flatnonzero((masks.astype(np.int64) & ~np.int64(free_mask)) == 0)
    order = cand[np.argsort(-tables.classes[cand], kind="stable")]
    taken: list[int] = []
    used = 0
    for p, m in zip(order.tolist(), masks[order].tolist(), strict=True):
        if len(taken) == len(free) - 1:
            break
        if m & used == 0:
            taken.append(p)
            used |= m
    taken.append(int(lookup(free_mask & ~used)[0]))
    # best order of the taken packets over the free slots
    cl = [int(tables.classes[p]) for p in taken]
    best_perm = max(itertools.permutations(range(len(free))),
                    key=lambda perm: sum(V[cl[perm[i]], free[i]] for i in range(len(free))))
    for i, s in enumerate(free):
        packets[s] = taken[best_perm[i]]
    result = tuple(int(p) for p in packets)
    return improve_hint(problem, result, lookup=lookup) if improve else result


# --------------------------------------------------------------------------------------
# symmetry chains


def _edge_ok(V: np.ndarray, S: np.ndarray, a: int, b: int) -> bool:
    """D = V[:, b] − V[:, a] nondecreasing on the sorted classes S, up to SYM_TOL."""
    if S.size <= 1:
        return True
    D = V[S, b] - V[S, a]
    return bool(np.all(D >= np.maximum.accumulate(D) - SYM_TOL))


def _best_chains(n: int, edge: np.ndarray) -> list[list[int]]:
    """Vertex-disjoint paths in the digraph ``edge`` (n × n bools) with the most edges."""
    if n <= 1:
        return []
    if n > 6:  # not needed for Quintet (5 slots); keep consecutive runs in index order
        chains, run = [], [0]
        for i in range(1, n):
            if edge[i - 1, i]:
                run.append(i)
            else:
                if len(run) > 1:
                    chains.append(run)
                run = [i]
        if len(run) > 1:
            chains.append(run)
        return chains
    best: list[list[int]] = []
    best_edges = 0
    for perm in itertools.permutations(range(n)):
        # greedily cut the permutation where an edge is missing: maximal runs
        chains, run, n_edges = [], [perm[0]], 0
        for x in perm[1:]:
            if edge[run[-1], x]:
                run.append(x)
                n_edges += 1
            else:
                if len(run) > 1:
                    chains.append(run)
                run = [x]
        if len(run) > 1:
            chains.append(run)
        if n_edges > best_edges:
            best, best_edges = chains, n_edges
            if best_edges == n - 1:
                break
    return best


def _sort_along_chains(packets: list[int], chains_slots: list[list[int]], classes: np.ndarray) -> list[int]:
    """Stable bubble sort of the packets along each chain (slots) by class, ascending."""
    out = list(packets)
    for chain in chains_slots:
        changed = True
        while changed:
            changed = False
            for a, b in itertools.pairwise(chain):
                if classes[out[a]] > classes[out[b]]:
                    out[a], out[b] = out[b], out[a]
                    changed = True
    return out


def _canonical_card_order(packets: tuple[int, ...], free: list[int], swaps: list[tuple[int, int]],
                          lookup: _Lookup, classes: np.ndarray, masks: np.ndarray) -> tuple[int, ...]:
    """Exchange same-rank cards a < b (a of the lower suit) between two free slots while a
    sits in the later slot and both packets keep their classes; each exchange raises
    Φ = Σ_card suit·slot, so this terminates (see the module doc)."""
    out = list(packets)
    changed = True
    while changed:
        changed = False
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
    return tuple(out)


def _prune(cmasks: np.ndarray, ccls: np.ndarray, Vc: np.ndarray, hint_pos: np.ndarray, T: float,
           fixed_value: float, bound0: float, pair_level: bool) -> tuple[np.ndarray, float, int]:
    """Rules 1, 2 and 5 of the module doc, to a fixed point.  Returns (alive, bound0, rounds)."""
    n_cand, nf = Vc.shape
    alive = np.ones((n_cand, nf), dtype=bool)
    desc = np.argsort(-ccls, kind="stable")
    cols = np.arange(nf)
    rounds = 0
    while rounds < MAX_ROUNDS:
        rounds += 1
        # rule 1 (first round: one shared list) / rule 2 (per-slot alive lists)
        rows = np.flatnonzero(alive.any(axis=1))
        best = np.empty((rows.size, nf))
        shared = None
        for j in range(nf):
            lst = desc if rounds == 1 else desc[alive[desc, j]]
            if rounds == 1 and shared is not None:
                pos = shared
            else:
                pos = first_disjoint(cmasks[lst], cmasks[rows])
                if rounds == 1:
                    shared = pos
            best[:, j] = np.where(pos >= 0, Vc[lst[np.maximum(pos, 0)], j], -np.inf)
        lhs = np.full((n_cand, nf), -np.inf)
        for j in range(nf):
            others = np.zeros(rows.size)
            for k in range(nf):
                if k != j:
                    others = others + best[:, k]
            lhs[rows, j] = fixed_value + Vc[rows, j] + others
        new_alive = alive & (lhs >= T - PRUNE_TOL)
        new_alive[hint_pos, cols] = True
        per_slot = [lhs[new_alive[:, j], j].max() for j in range(nf)]
        bound0 = min(bound0, max(T, min(per_slot)))
        if np.array_equal(new_alive, alive):
            if not pair_level or nf < 3:
                break
            # rule 5: the pair-level test, then back to rule 2 if it removed anything
            lists = [desc[alive[desc, j]] for j in range(nf)]
            off = np.zeros(nf + 1, dtype=np.int64)
            off[1:] = np.cumsum([lst.size for lst in lists])
            new_alive = pair_prune(cmasks, Vc, alive, np.concatenate(lists).astype(np.int64), off,
                                   T - PRUNE_TOL - fixed_value)
            new_alive[hint_pos, cols] = True
            if np.array_equal(new_alive, alive):
                break
        alive = new_alive
    return alive, float(bound0), rounds


# --------------------------------------------------------------------------------------
# 1. build


@dataclass
class CpsatModel:
    """The built model and what extraction needs (see module doc)."""

    model: cp_model.CpModel
    free_slots: list[int]
    pair_packet: np.ndarray  # packet index of each variable
    pair_slot: np.ndarray  # slot of each variable
    coef: np.ndarray  # int64 objective coefficient of each variable
    x: list[cp_model.IntVar]
    hint: tuple[int, ...]  # the (sorted) hint given to CP-SAT
    best_hint: tuple[int, ...]  # the best-valued hint seen (before sorting)
    hint_value: float  # T = value of the sorted hint
    fixed_value: float
    err_max: float  # E⁺
    delta: float  # δ of the symmetry argument (0 without chains)
    bound0: float  # pruning bound (real units)
    chains: list[list[int]]  # slot chains with c(p_a) ≤ c(p_b) along each
    candidate_pairs: int
    pruning_rounds: int
    stats: dict[str, float] = field(default_factory=dict)


def build_model(problem: BestResponseProblem, hint: tuple[int, ...] | None = None, *,
                prune: bool = True, symmetry: bool = True, objective_cut: bool = True,
                improve: bool = True, card_symmetry: bool = True,
                pair_level: bool = True) -> CpsatModel:
    """Build the CP-SAT model (step 1 of ``solve_cpsat``; see the module doc)."""
    tables, V = problem.tables, problem.values
    classes = tables.classes
    free = _free_slots(problem)
    nf = len(free)
    lookup = _Lookup(tables.masks)

    if hint is None:
        hint = greedy_hint(problem, improve=improve)
    else:
        hint = tuple(int(p) for p in hint)
        _check_arrangement(problem, hint, "hint")
        if improve:
            hint = improve_hint(problem, hint, lookup=lookup)
    best_hint = hint
    T = problem.value_of(hint)

    fixed_value = float(sum(V[classes[p], s] for s, p in enumerate(problem.fixed) if p >= 0))
    free_mask = _free_mask(problem)
    masks = tables.masks
    cand = np.flatnonzero((masks.astype(np.int64) & ~np.int64(free_mask)) == 0)
    cmasks = masks[cand]
    ccls = classes[cand]
    Vc = V[ccls][:, free] if nf else np.zeros((cand.size, 0))
    n_cand = cand.size
    hint_pos = np.searchsorted(cand, np.array([hint[s] for s in free], dtype=np.int64))

    # ---- pruning
    alive = np.ones((n_cand, nf), dtype=bool)
    rounds = 0
    # trivial bound: every free slot at its best candidate's value
    bound0 = fixed_value + float(sum(Vc[:, j].max() for j in range(nf)))
    if prune and nf >= 2:
        alive, bound0, rounds = _prune(cmasks, ccls, Vc, hint_pos, T, fixed_value, bound0, pair_level)

    # ---- symmetry chains (on the alive pairs), then sort the hint along them
    chains: list[list[int]] = []
    delta = 0.0
    if symmetry and nf >= 2:
        cls_sets = [np.unique(ccls[alive[:, j]]) for j in range(nf)]
        edge = np.zeros((nf, nf), dtype=bool)
        for a in range(nf):
            for b in range(nf):
                if a != b:
                    S = np.union1d(cls_sets[a], cls_sets[b])
                    edge[a, b] = _edge_ok(V, S, free[a], free[b])
        chains = _best_chains(nf, edge)
        if chains:
            delta = nf * nf * (SYM_TOL + 1e-14)
            sorted_hint = _sort_along_chains(list(hint), [[free[j] for j in c] for c in chains], classes)
            hint = tuple(int(p) for p in sorted_hint)
            T_sorted = problem.value_of(hint)
            if T_sorted < T - delta:  # cannot happen if the argument holds; fail loudly
                raise AssertionError("slot-order symmetry lost value on the hint")
            T = min(T, T_sorted)
            hint_pos = np.searchsorted(cand, np.array([hint[s] for s in free], dtype=np.int64))
            if not np.all(alive[hint_pos, np.arange(nf)]):
                raise AssertionError("sorted hint uses a pruned pair")

    # ---- card-exchange symmetry: the same-rank card pairs and which alive pairs can swap
    pc, pj = np.nonzero(alive)  # candidate position, free-slot position (slot order)
    card_rules: list[tuple[int, np.ndarray, np.ndarray]] = []  # (card a, swappable a-side, b-side)
    if symmetry and card_symmetry and nf >= 2:
        deck = tables.rules.deck
        free_cards = [c for c in range(deck.size) if free_mask >> c & 1]
        pmask_alive = cmasks[pc].astype(np.int64)
        pcls_alive = ccls[pc]
        swaps = []
        for a, b in itertools.combinations(free_cards, 2):
            if deck.rank_of(a) != deck.rank_of(b):
                continue
            sides = []
            for c_in, c_out in ((a, b), (b, a)):
                k = np.flatnonzero(((pmask_alive >> c_in) & 1 == 1) & ((pmask_alive >> c_out) & 1 == 0))
                other = (pmask_alive[k] & ~np.int64(1 << c_in)) | np.int64(1 << c_out)
                same = classes[lookup(other.astype(np.uint32))] == pcls_alive[k]
                sides.append(k[same])
            card_rules.append((a, b, sides[0], sides[1]))
            swaps.append((a, b))
        if card_rules:
            hint = _canonical_card_order(hint, free, swaps, lookup, classes, tables.masks)
            if problem.value_of(hint) < T - 1e-12:
                raise AssertionError("card exchange changed the hint's value")
            hint_pos = np.searchsorted(cand, np.array([hint[s] for s in free], dtype=np.int64))
            if not np.all(alive[hint_pos, np.arange(nf)]):
                raise AssertionError("card-exchanged hint uses a pruned pair")

    # ---- variables
    pair_packet = cand[pc]
    pair_slot = np.array(free, dtype=np.int64)[pj] if nf else np.zeros(0, dtype=np.int64)
    scaled = Vc[pc, pj] * SCALE
    coef = np.rint(scaled).astype(np.int64)
    err = Vc[pc, pj] - coef / SCALE  # exact (see module doc)
    err_max = float(sum(err[pj == j].max() for j in range(nf))) if nf else 0.0

    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x_{p}_{s}") for p, s in zip(pair_packet.tolist(), pair_slot.tolist(), strict=True)]
    # one packet per free slot
    for j in range(nf):
        model.add_exactly_one([x[k] for k in np.flatnonzero(pj == j).tolist()])
    # every free card exactly once
    pmask = cmasks[pc].astype(np.int64)
    for bit in range(32):
        if free_mask >> bit & 1:
            model.add_exactly_one([x[k] for k in np.flatnonzero(pmask >> bit & 1).tolist()])
    # slot-order symmetry breaking along the chains
    n_sym = 0
    for chain in chains:
        for ja, jb in itertools.pairwise(chain):
            ka, kb = np.flatnonzero(pj == ja), np.flatnonzero(pj == jb)
            model.add(
                cp_model.LinearExpr.weighted_sum([x[k] for k in ka.tolist()], ccls[pc[ka]].tolist())
                <= cp_model.LinearExpr.weighted_sum([x[k] for k in kb.tolist()], ccls[pc[kb]].tolist())
            )
            n_sym += 1
    # card exchange: the lower-suit card a never sits in a later slot than b when both
    # packets would keep their classes after exchanging a and b
    n_card = 0
    for _a, _b, ka, kb in card_rules:
        for j in range(1, nf):
            terms = [x[k] for k in ka[pj[ka] == j].tolist()] + [x[k] for k in kb[pj[kb] < j].tolist()]
            if len(terms) >= 2:
                model.add_at_most_one(terms)
                n_card += 1
    objective = cp_model.LinearExpr.weighted_sum(x, coef.tolist())
    cut = None
    if objective_cut and nf:
        cut = int(np.floor(SCALE * (T - fixed_value - delta - err_max - FLOAT_SLACK))) - 1
        model.add(objective >= cut)
    model.maximize(objective)
    # complete hint
    hint_set = {(int(hint[s]), s) for s in free}
    for k, (p, s) in enumerate(zip(pair_packet.tolist(), pair_slot.tolist(), strict=True)):
        model.add_hint(x[k], 1 if (p, s) in hint_set else 0)

    n_pairs = int(pc.size)
    stats = {
        "variables": n_pairs,
        "candidate_pairs": int(n_cand * nf),
        "pruned_pairs": int(n_cand * nf - n_pairs),
        "pruning_rounds": rounds,
        "symmetry_constraints": n_sym,
        "card_symmetry_constraints": n_card,
        "hint_value": float(problem.value_of(best_hint)),
    }
    if cut is not None:
        stats["objective_cut"] = cut
    return CpsatModel(
        model=model, free_slots=free, pair_packet=pair_packet, pair_slot=pair_slot, coef=coef, x=x,
        hint=hint, best_hint=best_hint, hint_value=T, fixed_value=fixed_value, err_max=err_max,
        delta=delta, bound0=float(bound0), chains=[[free[j] for j in c] for c in chains],
        candidate_pairs=int(n_cand * nf), pruning_rounds=rounds, stats=stats,
    )


# --------------------------------------------------------------------------------------
# 2. solve and 3. extract


def solve_cpsat(problem: BestResponseProblem, *, time_limit: float | None = 10.0, workers: int = 1,
                hint: tuple[int, ...] | None = None, seed: int = 0,
                stop_event: threading.Event | None = None, prune: bool = True,
                symmetry: bool = True, objective_cut: bool = True, card_symmetry: bool = True,
                pair_level: bool = True, linearization_level: int | None = None) -> EngineResult:
    """Best response by CP-SAT (see the module doc for the model and every soundness argument).

    * ``time_limit`` — seconds for the whole call (model building included; CP-SAT gets what
      is left, at least 1 ms); ``None`` for no limit.
    * ``workers`` — CP-SAT ``num_workers``; ``seed`` — ``random_seed``.
    * ``hint`` — a legal arrangement (packet indices in slot order) or ``None`` for the
      built-in greedy one; either way it is improved by local search first.
    * ``stop_event`` — when set (e.g. by Ctrl-C handling) the search stops and the best
      arrangement found so far is returned with its sound bound.
    * ``prune`` / ``symmetry`` / ``objective_cut`` — switch off the pruning, the slot-order
      symmetry breaking and the objective cut (tests compare against the plain model).
    * ``linearization_level`` — CP-SAT's parameter, left at its default when ``None``.

    Returns ``EngineResult`` with ``value = problem.value_of(packets)``, ``bound`` a proven
    upper bound on the optimum (≥ value) and ``optimal`` as defined in the module doc.
    """
    t0 = time.perf_counter()
    free = _free_slots(problem)
    if len(free) <= 1:  # forced: the leftover cards fill the only free slot
        packets = list(problem.fixed)
        if free:
            lookup = _Lookup(problem.tables.masks)
            packets[free[0]] = int(lookup(_free_mask(problem))[0])
        packets_t = tuple(int(p) for p in packets)
        if hint is not None:
            _check_arrangement(problem, tuple(int(p) for p in hint), "hint")
        value = problem.value_of(packets_t)
        return EngineResult(packets_t, value, value, True, time.perf_counter() - t0, "cpsat",
                            {"variables": 0, "pruned_pairs": 0, "status": "TRIVIAL"})

    # 1. build
    built = build_model(problem, hint, prune=prune, symmetry=symmetry, objective_cut=objective_cut,
                        card_symmetry=card_symmetry, pair_level=pair_level)

    # 2. solve
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = max(1, int(workers))
    params.random_seed = int(seed)
    params.log_search_progress = False
    if linearization_level is not None:
        params.linearization_level = int(linearization_level)
    if time_limit is not None:
        params.max_time_in_seconds = max(float(time_limit) - (time.perf_counter() - t0), 1e-3)

    status = cp_model.UNKNOWN
    status_name = "NOT_RUN"
    if stop_event is None or not stop_event.is_set():
        done = threading.Event()
        watcher = None
        if stop_event is not None:
            def _watch() -> None:
                while not done.is_set():
                    if stop_event.wait(0.02):
                        # repeat: a StopSearch issued before Solve starts could be lost
                        while not done.wait(0.01):
                            solver.stop_search()
                        return

            watcher = threading.Thread(target=_watch, name="cpsat-stop-watcher", daemon=True)
            watcher.start()
        try:
            status = solver.solve(built.model)
        finally:
            done.set()
            if watcher is not None:
                watcher.join()
        status_name = solver.status_name(status)
        if status in (cp_model.MODEL_INVALID, cp_model.INFEASIBLE):
            # the sorted hint satisfies every constraint, so this is a bug, not an answer
            raise RuntimeError(f"CP-SAT returned {status_name} on a model its hint satisfies")

    # 3. extract
    candidates = [built.best_hint, built.hint]
    cp_bound = np.inf
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        chosen = list(problem.fixed)
        for k in np.flatnonzero(np.array(solver.boolean_values(built.x), dtype=bool)).tolist():
            chosen[int(built.pair_slot[k])] = int(built.pair_packet[k])
        packets_cp = tuple(int(p) for p in chosen)
        _check_arrangement(problem, packets_cp, "CP-SAT solution")
        candidates.append(packets_cp)
    if status_name != "NOT_RUN":
        b = float(solver.best_objective_bound)
        if np.isfinite(b):
            cp_bound = built.fixed_value + b / SCALE + built.err_max + built.delta + FLOAT_SLACK
    packets = max(candidates, key=problem.value_of)
    value = problem.value_of(packets)
    bound = max(value, min(built.bound0 + FLOAT_SLACK, cp_bound))
    optimal = status == cp_model.OPTIMAL and bound - value <= OPTIMAL_GAP
    stats = dict(built.stats)
    stats["status"] = status_name  # type: ignore[assignment]
    stats["chains"] = len(built.chains)
    return EngineResult(packets, value, bound, optimal, time.perf_counter() - t0, "cpsat", stats)
