"""Best response as an OR-Tools CP-SAT model — the second, independent exact engine.

The problem (``problem.BestResponseProblem``): choose one packet per slot, the packets an
exact cover of the live cards, maximizing ``Σ_s V[c(p_s), s]`` where ``c`` is the packet's
rank class and every column ``V[:, s]`` is nondecreasing in the class.  Some slots may be
fixed to given packets.

``solve_cpsat`` works in the three steps of the OR-Tools samples:

1. **build** (``build_model``) — a complete hint ``H`` (given, or ``greedy_hint``; improved
   by local search), sound pruning of (packet, slot) pairs against ``T = value(H)``, slot
   chains and card exchanges for symmetry breaking, then the model:

   * a boolean ``x[p, s]`` for each surviving pair of a *free* slot ``s`` and a packet ``p``
     inside the free cards (live cards minus the fixed packets' cards).  Fixed slots get no
     variables: their packets are given, their cards are not in the model, and their value
     is a constant added back in real units;
   * ``AddExactlyOne`` over each free slot's variables (one packet per slot);
   * ``AddExactlyOne`` over each free card's variables (every card exactly once);
   * symmetry breaking: ``Σ c(p)·x[p, a] ≤ Σ c(p)·x[p, b]`` along slot chains, and
     ``AddAtMostOne`` card-exchange constraints;
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
``coef = round(K·V)`` carries a rounding error ``e = V − coef/K``, ``|e| ≤ 0.5/K``, that is
itself computed exactly (Sterbenz).  For any arrangement ``A`` with integer objective
``I(A)``: ``value(A) = fixed + I(A)/K + Σ_s e_s(A) ≤ fixed + I(A)/K + E⁺`` with
``E⁺ = Σ_s max_p e[p, s]`` over the model's pairs.

* *Bound.*  CP-SAT's ``best_objective_bound`` ``B`` bounds ``I`` over the model, so every
  arrangement of the model is worth at most ``fixed + B/K + E⁺``.  Arrangements outside the
  model are worth less than the hint (pruning, cut) or have a twin inside it worth at least
  as much up to ``δ`` (symmetry), see below; so the optimum is at most
  ``fixed + B/K + E⁺ + δ + FLOAT_SLACK``.  The pruning bound ``bound0`` (below) is an
  independent sound bound; the reported bound is ``max(value, min(bound0, that))`` — never
  below the value returned.
* *Optimal.*  CP-SAT's OPTIMAL proves the *integer* optimum; arrangements whose real values
  differ by less than about ``n_slots/K`` (< 1e-10) may be ordered differently by the
  integers.  So ``optimal=True`` is reported only when CP-SAT says OPTIMAL **and** the real
  bound minus the value is ``≤ OPTIMAL_GAP = 1e-9``: nothing is better by more than 1e-9
  (the values themselves are float64 sums, exact to ~1e-15).  With ``K = 2**36`` and five
  slots the conversion gap is ``5/K + δ + FLOAT_SLACK ≈ 1e-10``, so an integer OPTIMAL
  always passes.  Exception: with at most one free slot the arrangement is forced (CP-SAT
  is not run) and is reported optimal with ``bound = value``.

Pruning (``prune=True``) and why each rule is sound
---------------------------------------------------
``T = value(H) ≤ OPT``.  Call a pair *needed* if it belongs to some arrangement worth
``≥ T − PRUNE_TOL``; every rule removes only pairs that are not needed, so every
arrangement worth ``≥ T − PRUNE_TOL`` (in particular every optimal one) keeps all its pairs.

1. *Disjoint-maximum bound.*  If ``A`` holds ``p`` in free slot ``s``, every other free slot
   ``s'`` holds a packet inside the free cards and disjoint from ``p``, worth at most
   ``best(p, s') = max_{q ∩ p = ∅} V[c(q), s']``.  So
   ``value(A) ≤ lhs(p, s) = fixed + V[c(p), s] + Σ_{s'≠s free} best(p, s')``, and a pair
   with ``lhs < T − PRUNE_TOL`` is not needed.  ``best``: candidates sorted by class,
   strongest first; the first one disjoint from ``p`` has the highest class among the
   disjoint ones, hence — every column being nondecreasing — the highest value in *every*
   slot at once (numba kernels ``first_disjoint``, ``level1_lhs``).
2. *Iterated per slot.*  The same with ``q`` restricted to pairs ``(q, s')`` still alive: a
   needed arrangement's slot-``s'`` packet is alive for ``s'`` (induction), so its value is
   still ``≤ lhs``.  No alive partner in some slot: ``lhs = −∞``.
3. *Pair level.*  For ``(p, s)`` and any other slot ``s2``:
   ``value(A) ≤ fixed + V[c(p), s] + max_{q alive in s2, q ∩ p = ∅} (V[c(q), s2] +
   Σ_{k ∉ {s, s2}} best(p ∪ q, k))`` (``q`` is A's slot-``s2`` packet; the rest as in rule
   2 with ``p ∪ q`` excluded).  If for some ``s2`` that is ``< T − PRUNE_TOL`` the pair is
   not needed (kernel ``pair_prune``; the scan over ``q`` stops once even
   ``V[c(q), s2] + Σ_k best(p, k)`` falls short, valid because the list is sorted).
4. *Chain windows* (after the symmetry chains below are chosen): the model then requires
   ``c(p_a) ≤ c(p_b)`` whenever slot ``a`` precedes ``b`` on a chain (transitively), so in
   rules 1–3 a slot before ``s`` on its chain only takes packets of class ``≤ c(p)``, a slot
   after ``s`` only ``≥ c(p)`` (likewise for ``q``).  This removes pairs that no
   *chain-ordered* needed arrangement uses; the symmetry argument below shows a
   chain-ordered arrangement worth ``≥ OPT − δ ≥ T − PRUNE_TOL`` exists among the pairs
   alive before this step, so it keeps all its pairs.
5. The (sorted) hint's pairs are always kept (they are needed anyway; this guards rounding).
6. ``bound0``: a needed arrangement's slot-``s`` pair is alive and bounds its value by its
   ``lhs``, so ``OPT ≤ max(T, min_s max_{(p,s) alive} lhs(p, s))`` (``+ δ`` for the
   chain-window round).

The float error of an ``lhs`` (a sum of ≤ 6 values of magnitude ≤ 7) is ~1e-14, far inside
``PRUNE_TOL = 1e-9``, so the comparisons lean the sound way.

Symmetry breaking (``symmetry=True``)
-------------------------------------
*Slot chains.*  For free slots ``a, b`` let ``D(r) = V[r, b] − V[r, a]`` over the classes
``S`` of packets alive (after rules 1–3) in ``a`` or in ``b``.  If ``D`` is nondecreasing on
``S`` up to ``SYM_TOL`` (``D(r1) ≥ D(r2) − SYM_TOL`` for all ``r1 > r2`` in ``S``), call
``a → b`` an *edge*: exchanging ``p`` (in ``a``, class ``r1``) and ``q`` (in ``b``, class
``r2 < r1``) changes the value by ``D(r1) − D(r2) ≥ −SYM_TOL``.  The engine picks
vertex-disjoint chains ``s1 → s2 → … → sk`` of edges (most edges; exhaustive over ≤ 6 free
slots) and adds ``c(p_{s_i}) ≤ c(p_{s_{i+1}})``.  Soundness: bubble-sort an optimal
arrangement along each chain, exchanging adjacent chain slots when the earlier one holds
the strictly stronger class.  By induction the arrangement before each exchange is worth
``≥ OPT − k·(SYM_TOL + 1e-14) ≥ T − PRUNE_TOL``, so it is needed, all its pairs are alive,
both classes are in ``S`` and the exchange loses at most ``SYM_TOL`` (+ the float error of
``D``).  At most ``n_free·(n_free−1)/2`` exchanges happen, so a chain-ordered arrangement
worth ``≥ OPT − δ``, ``δ = n_free²·(SYM_TOL + 1e-14)`` (≈ 3e-12), exists; ``δ`` is added to
the bound and subtracted in the cut.  Against the uniform opponent every column is ``w_s``
times one function, ``D = (w_b − w_a)·g`` is nondecreasing, and all slots form one chain.

*Card exchanges.*  For two free cards ``a < b`` of the same rank (``a`` of the lower suit),
call a packet ``P ∋ a, ∌ b`` *exchangeable* if ``P − a + b`` has the same class (checked on
the class table, so flushes and every rule option are respected), and symmetrically for
``Q ∋ b``.  If ``a`` sits in slot ``s`` and ``b`` in an earlier slot ``t``, both packets
exchangeable, exchanging the two cards keeps every slot's class, hence the value, the chain
order and the cut, and — the value being unchanged — all pairs stay alive.  The model
forbids that configuration (``AddAtMostOne`` over ``a``'s exchangeable pairs in slot ``s``
and ``b``'s in slots ``< s``).  Sound together for all card pairs: every such exchange
raises ``Φ = Σ_cards suit·slot`` by ``(suit(b) − suit(a))(s − t) > 0``, so repeating them
from a chain-ordered arrangement terminates in one that violates no constraint.

The hint is put in the same canonical form (chain sort, then card exchanges) before CP-SAT
sees it, so it satisfies every constraint.  Skipped: suit permutations (a symmetry only
when the exposed cards are suit-symmetric, rare).

*Objective cut.*  ``I(A) ≥ L``, ``L = floor(K·(T − fixed − δ − E⁺ − FLOAT_SLACK)) − 1``:
an arrangement with ``I(A) < L`` is worth less than ``T − δ``, so it is neither optimal nor
needed by the symmetry argument; the hint satisfies it.
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
    "level1_lhs",
    "pair_prune",
    "CpsatModel",
    "SCALE",
    "PRUNE_TOL",
    "IMPROVE_EPS",
    "OPTIMAL_GAP",
]

SCALE = float(2**36)  # K: values are scaled by a power of two, so K·V is exact
IMPROVE_EPS = 1e-10  # the model need only hold arrangements beating the hint by more than this
PRUNE_TOL = 2e-11  # float guard (≥ δ + lhs rounding): pairs worth ≥ T + IMPROVE_EPS − this stay
SYM_TOL = 1e-13  # tolerance of the slot-exchange (Monge) test
FLOAT_SLACK = 1e-11  # covers float error of the few sums that convert bounds to real units
OPTIMAL_GAP = 1e-9  # optimal=True needs bound − value ≤ this (and CP-SAT OPTIMAL)
MAX_ROUNDS = 20  # pruning rounds per phase (each only shrinks the pair set)
_NO_CLASS_LIMIT = np.int64(1 << 40)


# --------------------------------------------------------------------------------------
# numba kernels (arrays in, arrays out)


@njit(cache=True, nogil=True)
def first_disjoint(sorted_masks, query_masks):
    """For each query mask, the position of the first mask in ``sorted_masks`` disjoint
    from it, or -1.  With ``sorted_masks`` ordered strongest class first this is a
    strongest packet disjoint from the query (rule 1)."""
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
def _best_in(lists, lists_cls, lo, hi, masks, m, lb, ub):
    """Strongest entry of ``lists[lo:hi]`` (sorted by class, strongest first; classes in
    ``lists_cls``) with ``lb ≤ class ≤ ub`` and packet disjoint from ``m``; -1 if none."""
    a, b = lo, hi  # first position with class ≤ ub (binary search; classes nonincreasing)
    while a < b:
        mid = (a + b) // 2
        if lists_cls[mid] <= ub:
            b = mid
        else:
            a = mid + 1
    for i in range(a, hi):
        if lists_cls[i] < lb:
            return -1
        if (masks[lists[i]] & m) == 0:
            return lists[i]
    return -1


@njit(cache=True, nogil=True)
def _window(rel, cls_p, j, k):
    """Class window (lb, ub) in slot k implied by class cls_p in slot j (rule 4)."""
    r = rel[j, k]
    if r > 0:
        return cls_p, _NO_CLASS_LIMIT
    if r < 0:
        return np.int64(-1), cls_p
    return np.int64(-1), _NO_CLASS_LIMIT


@njit(cache=True, nogil=True)
def level1_lhs(masks, cls, values, alive, lists, lists_cls, off, rel, base):
    """Rules 1, 2 and 4: ``lhs[p, j] = base + values[p, j] + Σ_{k≠j} best`` for the alive
    pairs (−inf elsewhere).  ``lists[off[k]:off[k+1]]``: candidates alive in slot k,
    strongest class first; ``rel[j, k]`` = +1 / −1 / 0 when slot k must hold a class ≥ / ≤ /
    anything relative to slot j."""
    n, nf = values.shape
    lhs = np.full((n, nf), -np.inf)
    for p in range(n):
        mp = masks[p]
        for j in range(nf):
            if not alive[p, j]:
                continue
            tot = base + values[p, j]
            for k in range(nf):
                if k == j:
                    continue
                lb, ub = _window(rel, np.int64(cls[p]), j, k)
                q = _best_in(lists, lists_cls, off[k], off[k + 1], masks, mp, lb, ub)
                if q < 0:
                    tot = -np.inf
                    break
                tot += values[q, k]
            lhs[p, j] = tot
    return lhs


@njit(cache=True, nogil=True)
def pair_prune(masks, cls, values, alive, lists, lists_cls, off, rel, need0):
    """Rules 3 and 4: a copy of ``alive`` without the pairs (p, j) for which some other slot
    j2 proves ``values[p, j] + max_q (values[q, j2] + Σ_k best(p ∪ q, k)) < need0``
    (arguments as in ``level1_lhs``)."""
    n, nf = values.shape
    out = alive.copy()
    for p in range(n):
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
                # optimistic value of the slots other than j and j2, from p alone
                others = 0.0
                for k in range(nf):
                    if k != j and k != j2:
                        lb, ub = _window(rel, cp, j, k)
                        r = _best_in(lists, lists_cls, off[k], off[k + 1], masks, mp, lb, ub)
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
                        if lists_cls[i] < lb2:
                            break
                        q = lists[i]
                        if (masks[q] & mp) != 0:
                            continue
                        if values[q, j2] + others < need:
                            break  # sorted: no later q reaches need either
                        mpq = mp | masks[q]
                        cq = np.int64(cls[q])
                        val = values[q, j2]
                        for k in range(nf):
                            if k == j or k == j2:
                                continue
                            lb, ub = _window(rel, cp, j, k)
                            lbq, ubq = _window(rel, cq, j2, k)
                            r = _best_in(lists, lists_cls, off[k], off[k + 1], masks, mpq,
                                         max(lb, lbq), min(ub, ubq))
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
        q = np.atleast_1d(np.asarray(query, dtype=np.int64)).astype(self.sorted.dtype)
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


# --------------------------------------------------------------------------------------
# the hint


_COMBOS_10_5 = np.array(list(itertools.combinations(range(10), 5)), dtype=np.int64)


def improve_hint(problem: BestResponseProblem, packets: tuple[int, ...], *,
                 lookup: _Lookup | None = None, max_passes: int = 50) -> tuple[int, ...]:
    """Local search from a legal arrangement: best slot order of its free packets
    (exhaustive) and best re-split of every two free slots' ten cards (252 ordered splits),
    repeated until no move gains more than 1e-12.  Fixed slots are kept."""
    tables, V = problem.tables, problem.values
    free = _free_slots(problem)
    cur = [int(p) for p in packets]
    if len(free) < 2:
        return tuple(cur)
    lookup = lookup or _Lookup(tables.masks)
    classes = tables.classes
    perms = list(itertools.permutations(range(len(free))))
    for _ in range(max_passes):
        improved = False
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
        for i, a in enumerate(free):
            for b in free[i + 1:]:
                union = int(tables.masks[cur[a]]) | int(tables.masks[cur[b]])
                bits = np.array([1 << k for k in range(32) if union >> k & 1], dtype=np.int64)
                sub = np.bitwise_or.reduce(bits[_COMBOS_10_5], axis=1)
                idx_a = lookup(sub)
                idx_b = lookup(union & ~sub)
                vals = V[classes[idx_a], a] + V[classes[idx_b], b]
                k = int(np.argmax(vals))
                old = V[classes[cur[a]], a] + V[classes[cur[b]], b]
                if vals[k] > old + 1e-12:
                    cur[a], cur[b] = int(idx_a[k]), int(idx_b[k])
                    improved = True
        if not improved:
            break
    return tuple(cur)


def greedy_hint(problem: BestResponseProblem, *, improve: bool = True) -> tuple[int, ...]:
    """A legal arrangement respecting the fixed slots: repeatedly take the strongest packet
    (highest class; ties by table index) inside the free cards disjoint from those taken,
    the last free packet being the leftover cards; lay them in the best order over the free
    slots; then ``improve_hint`` (unless ``improve=False``)."""
    tables, V = problem.tables, problem.values
    free = _free_slots(problem)
    packets = [int(p) for p in problem.fixed]
    if not free:
        return tuple(packets)
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
    cl = [int(tables.classes[p]) for p in taken]
    best_perm = max(itertools.permutations(range(len(free))),
                    key=lambda perm: sum(V[cl[perm[i]], free[i]] for i in range(len(free))))
    for i, s in enumerate(free):
        packets[s] = taken[best_perm[i]]
    result = tuple(packets)
    return improve_hint(problem, result, lookup=lookup) if improve else result


# --------------------------------------------------------------------------------------
# symmetry


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
    perms = itertools.permutations(range(n)) if n <= 6 else [tuple(range(n))]
    best: list[list[int]] = []
    best_edges = 0
    for perm in perms:
        # cut the permutation where an edge is missing: maximal runs
        chains, run, n_edges = [], [perm[0]], 0
        for v in perm[1:]:
            if edge[run[-1], v]:
                run.append(v)
                n_edges += 1
            else:
                if len(run) > 1:
                    chains.append(run)
                run = [v]
        if len(run) > 1:
            chains.append(run)
        if n_edges > best_edges:
            best, best_edges = chains, n_edges
            if best_edges == n - 1:
                break
    return best


def _relations(nf: int, chains: list[list[int]]) -> np.ndarray:
    """rel[j, k] = +1 if k follows j on a chain (c_k ≥ c_j), −1 if it precedes, else 0."""
    rel = np.zeros((nf, nf), dtype=np.int64)
    for chain in chains:
        for i, j in enumerate(chain):
            for k in chain[:i]:
                rel[j, k] = -1
            for k in chain[i + 1:]:
                rel[j, k] = 1
    return rel


def _sort_along_chains(packets: list[int], chains_slots: list[list[int]], classes: np.ndarray) -> list[int]:
    """Bubble sort of the packets along each chain (slots) by class, ascending, exchanging
    only strictly out-of-order neighbours (the exchanges of the soundness argument)."""
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
    """Exchange same-rank cards a < b between two free slots while a sits in the later slot
    and both packets keep their classes; each exchange raises Φ = Σ_card suit·slot, so this
    terminates (see the module doc)."""
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


# --------------------------------------------------------------------------------------
# pruning


def _prune(cmasks: np.ndarray, ccls: np.ndarray, Vc: np.ndarray, alive: np.ndarray,
           hint_pos: np.ndarray, T: float, fixed_value: float, rel: np.ndarray,
           pair_level: bool) -> tuple[np.ndarray, float, int]:
    """Rules 1–4 to a fixed point from ``alive``.  Returns (alive, bound, rounds), ``bound``
    the rule-6 bound of the last round (valid for the arrangements this phase keeps)."""
    n_cand, nf = Vc.shape
    desc = np.argsort(-ccls, kind="stable")
    cols = np.arange(nf)
    cls64 = ccls.astype(np.int64)
    alive = alive.copy()
    thresh = T + IMPROVE_EPS - PRUNE_TOL  # pairs of arrangements worth ≥ thresh are kept
    bound = np.inf
    rounds = 0
    while rounds < MAX_ROUNDS:
        rounds += 1
        lists = [desc[alive[desc, j]] for j in range(nf)]
        flat = np.concatenate(lists).astype(np.int64)
        flat_cls = cls64[flat]
        off = np.zeros(nf + 1, dtype=np.int64)
        off[1:] = np.cumsum([lst.size for lst in lists])
        lhs = level1_lhs(cmasks, cls64, Vc, alive, flat, flat_cls, off, rel, fixed_value)
        new_alive = alive & (lhs >= thresh)
        new_alive[hint_pos, cols] = True
        bound = max(T + IMPROVE_EPS, min(lhs[new_alive[:, j], j].max() for j in range(nf)))
        if np.array_equal(new_alive, alive):
            if not pair_level or nf < 3:
                break
            new_alive = pair_prune(cmasks, cls64, Vc, alive, flat, flat_cls, off, rel,
                                   thresh - fixed_value)
            new_alive[hint_pos, cols] = True
            if np.array_equal(new_alive, alive):
                break
        alive = new_alive
    return alive, float(bound), rounds


# --------------------------------------------------------------------------------------
# 1. build


@dataclass
class CpsatModel:
    """The built model and what extraction needs (see the module doc)."""

    model: cp_model.CpModel
    free_slots: list[int]
    pair_packet: np.ndarray  # packet index of each variable
    pair_slot: np.ndarray  # slot of each variable
    coef: np.ndarray  # int64 objective coefficient of each variable
    x: list[cp_model.IntVar]
    hint: tuple[int, ...]  # the canonical hint given to CP-SAT
    best_hint: tuple[int, ...]  # the hint before canonical ordering (value ≥ T)
    hint_value: float  # T
    fixed_value: float
    err_max: float  # E⁺
    delta: float  # δ of the symmetry argument (0 without chains)
    bound0: float  # pruning bound (real units)
    chains: list[list[int]]  # slot chains with c(p_a) ≤ c(p_b) along each
    stats: dict[str, object] = field(default_factory=dict)


def build_model(problem: BestResponseProblem, hint: tuple[int, ...] | None = None, *,
                prune: bool = True, pair_level: bool = True, symmetry: bool = True,
                card_symmetry: bool = True, objective_cut: bool = True,
                improve: bool = True) -> CpsatModel:
    """Build the CP-SAT model (step 1 of ``solve_cpsat``; the module doc has every rule).

    Needs at least two free slots.  ``prune`` switches rules 1–4 off (all pairs of the free
    slots become variables), ``pair_level`` only rule 3; ``symmetry`` the slot chains and
    the card exchanges, ``card_symmetry`` only the latter; ``improve`` the local search on
    the hint.
    """
    tables, V = problem.tables, problem.values
    classes = tables.classes
    free = _free_slots(problem)
    nf = len(free)
    if nf < 2:
        raise ValueError("build_model needs at least two free slots")
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
    Vc = np.ascontiguousarray(V[ccls][:, free])
    n_cand = cand.size
    cols = np.arange(nf)

    def positions(h: tuple[int, ...]) -> np.ndarray:
        return np.searchsorted(cand, np.array([h[s] for s in free], dtype=np.int64))

    hint_pos = positions(hint)

    # ---- pruning, phase A (rules 1-2; with symmetry rule 3 waits for phase B)
    alive = np.ones((n_cand, nf), dtype=bool)
    rounds = 0
    bound0 = fixed_value + float(Vc.max(axis=0).sum())  # trivial bound
    no_rel = np.zeros((nf, nf), dtype=np.int64)
    if prune:
        alive, b, rounds = _prune(cmasks, ccls, Vc, alive, hint_pos, T, fixed_value, no_rel,
                                  pair_level and not symmetry)
        bound0 = min(bound0, b)

    # ---- slot chains on the phase-A alive pairs (and the hint's classes); canonical hint
    chains: list[list[int]] = []
    delta = 0.0
    if symmetry:
        hint_cls = ccls[hint_pos]
        cls_sets = [np.union1d(ccls[alive[:, j]], hint_cls) for j in range(nf)]
        edge = np.zeros((nf, nf), dtype=bool)
        for a in range(nf):
            for b_ in range(nf):
                if a != b_:
                    S = np.union1d(cls_sets[a], cls_sets[b_])
                    edge[a, b_] = _edge_ok(V, S, free[a], free[b_])
        chains = _best_chains(nf, edge)
        if chains:
            delta = nf * nf * (SYM_TOL + 1e-14)
            hint = tuple(int(p) for p in _sort_along_chains(
                list(hint), [[free[j] for j in c] for c in chains], classes))
            T_sorted = problem.value_of(hint)
            if T_sorted < T - delta:  # impossible if the argument holds: fail loudly
                raise AssertionError("slot-order symmetry lost value on the hint")
            T = min(T, T_sorted)
            hint_pos = positions(hint)
            alive[hint_pos, cols] = True

    # ---- pruning, phase B (rules 1-4 with the chain windows; rule 3 runs only here)
    if prune and symmetry:
        rel = _relations(nf, chains)
        alive, b, r2 = _prune(cmasks, ccls, Vc, alive, hint_pos, T, fixed_value, rel, pair_level)
        bound0 = min(bound0, b + delta)
        rounds += r2

    # ---- card exchanges: canonical hint first (the exchanges do not depend on the pairs)
    swaps: list[tuple[int, int]] = []
    if symmetry and card_symmetry:
        deck = tables.rules.deck
        free_cards = [c for c in range(deck.size) if free_mask >> c & 1]
        swaps = [(a, b_) for a, b_ in itertools.combinations(free_cards, 2)
                 if deck.rank_of(a) == deck.rank_of(b_)]
        if swaps:
            hint = _canonical_card_order(hint, free, swaps, lookup, classes, masks)
            if problem.value_of(hint) < T - 1e-12:
                raise AssertionError("card exchange changed the hint's value")
            hint_pos = positions(hint)
            alive[hint_pos, cols] = True
    pc, pj = np.nonzero(alive)  # candidate position, free-slot position (slot order)
    card_rules: list[tuple[np.ndarray, np.ndarray]] = []
    if swaps:
        pmask = cmasks[pc].astype(np.int64)
        pcls = ccls[pc]
        for a, b_ in swaps:
            sides = []
            for c_in, c_out in ((a, b_), (b_, a)):
                k = np.flatnonzero(((pmask >> c_in) & 1 == 1) & ((pmask >> c_out) & 1 == 0))
                other = (pmask[k] & ~np.int64(1 << c_in)) | np.int64(1 << c_out)
                sides.append(k[classes[lookup(other)] == pcls[k]])
            card_rules.append((sides[0], sides[1]))

    # ---- variables and objective coefficients
    pair_packet = cand[pc]
    pair_slot = np.array(free, dtype=np.int64)[pj]
    v_pair = Vc[pc, pj]
    coef = np.rint(v_pair * SCALE).astype(np.int64)
    err = v_pair - coef / SCALE  # exact (see the module doc)
    err_max = float(sum(err[pj == j].max() for j in range(nf)))

    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x_{p}_{s}") for p, s in zip(pair_packet.tolist(), pair_slot.tolist(), strict=True)]
    for j in range(nf):  # one packet per free slot
        model.add_exactly_one([x[k] for k in np.flatnonzero(pj == j).tolist()])
    pmask = cmasks[pc].astype(np.int64)
    for bit in range(64):  # every free card exactly once
        if free_mask >> bit & 1:
            model.add_exactly_one([x[k] for k in np.flatnonzero(pmask >> bit & 1).tolist()])
    n_chain = 0
    for chain in chains:  # slot chains: c(p_a) ≤ c(p_b)
        for ja, jb in itertools.pairwise(chain):
            ka, kb = np.flatnonzero(pj == ja), np.flatnonzero(pj == jb)
            model.add(
                cp_model.LinearExpr.weighted_sum([x[k] for k in ka.tolist()], ccls[pc[ka]].tolist())
                <= cp_model.LinearExpr.weighted_sum([x[k] for k in kb.tolist()], ccls[pc[kb]].tolist())
            )
            n_chain += 1
    n_card = 0
    for ka, kb in card_rules:  # card a never in a later slot than b when both can exchange
        for j in range(1, nf):
            terms = [x[k] for k in ka[pj[ka] == j].tolist()] + [x[k] for k in kb[pj[kb] < j].tolist()]
            if len(terms) >= 2:
                model.add_at_most_one(terms)
                n_card += 1
    objective = cp_model.LinearExpr.weighted_sum(x, coef.tolist())
    cut = None
    if objective_cut:
        cut = int(np.floor(SCALE * (T - fixed_value - delta - err_max - FLOAT_SLACK))) - 1
        model.add(objective >= cut)
    model.maximize(objective)
    hint_set = {(int(hint[s]), s) for s in free}
    for k, (p, s) in enumerate(zip(pair_packet.tolist(), pair_slot.tolist(), strict=True)):
        model.add_hint(x[k], 1 if (p, s) in hint_set else 0)

    stats: dict[str, object] = {
        "variables": int(pc.size),
        "candidate_pairs": int(n_cand * nf),
        "pruned_pairs": int(n_cand * nf - pc.size),
        "pruning_rounds": rounds,
        "chain_constraints": n_chain,
        "card_constraints": n_card,
        "hint_value": float(problem.value_of(best_hint)),
    }
    return CpsatModel(
        model=model, free_slots=free, pair_packet=pair_packet, pair_slot=pair_slot, coef=coef, x=x,
        hint=hint, best_hint=best_hint, hint_value=T, fixed_value=fixed_value, err_max=err_max,
        delta=delta, bound0=float(bound0), chains=[[free[j] for j in c] for c in chains], stats=stats,
    )


# --------------------------------------------------------------------------------------
# 2. solve and 3. extract


def solve_cpsat(problem: BestResponseProblem, *, time_limit: float | None = 10.0, workers: int = 1,
                hint: tuple[int, ...] | None = None, seed: int = 0,
                stop_event: threading.Event | None = None, prune: bool = True,
                pair_level: bool = True, symmetry: bool = True, card_symmetry: bool = True,
                objective_cut: bool = True, linearization_level: int | None = None) -> EngineResult:
    """Best response by CP-SAT (the module doc has the model and every soundness argument).

    * ``time_limit`` — seconds for the whole call (model building included; CP-SAT gets
      what is left, at least 1 ms); ``None`` for no limit.
    * ``workers`` — CP-SAT ``num_workers``; ``seed`` — ``random_seed``.
    * ``hint`` — a legal arrangement (packet indices in slot order) or ``None`` for
      ``greedy_hint``; either way improved by local search first.
    * ``stop_event`` — when set (e.g. by Ctrl-C handling) the search stops and the best
      arrangement found so far is returned with its sound bound.
    * ``prune``, ``pair_level``, ``symmetry``, ``card_symmetry``, ``objective_cut`` —
      switch the model's strengthenings off (tests compare against the plain model).
    * ``linearization_level`` — CP-SAT's parameter; its default when ``None``.

    Returns ``EngineResult(packets, value=problem.value_of(packets), bound ≥ value (a proven
    upper bound on the optimum), optimal, seconds, "cpsat", stats)``; ``stats`` has
    ``variables``, ``pruned_pairs``, ``status`` (CP-SAT's status name, ``NOT_RUN`` when
    stopped before solving, ``TRIVIAL`` when at most one slot is free) and more.
    """
    t0 = time.perf_counter()
    free = _free_slots(problem)
    if hint is not None:
        hint = tuple(int(p) for p in hint)
        _check_arrangement(problem, hint, "hint")
    if len(free) <= 1:  # forced: the leftover cards fill the only free slot
        packets_l = [int(p) for p in problem.fixed]
        if free:
            packets_l[free[0]] = int(_Lookup(problem.tables.masks)(_free_mask(problem))[0])
        packets_t = tuple(packets_l)
        value = problem.value_of(packets_t)
        return EngineResult(packets_t, value, value, True, time.perf_counter() - t0, "cpsat",
                            {"variables": 0, "pruned_pairs": 0, "status": "TRIVIAL"})

    # 1. build
    built = build_model(problem, hint, prune=prune, pair_level=pair_level, symmetry=symmetry,
                        card_symmetry=card_symmetry, objective_cut=objective_cut)

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
                        # repeat: a StopSearch issued just before Solve starts could be lost
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
            # the canonical hint satisfies every constraint: this is a bug, not an answer
            raise RuntimeError(f"CP-SAT returned {status_name} on a model its hint satisfies")

    # 3. extract
    candidates = [built.best_hint, built.hint]
    cp_bound = np.inf
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        chosen = [int(p) for p in problem.fixed]
        for k in np.flatnonzero(np.array(solver.boolean_values(built.x), dtype=bool)).tolist():
            chosen[int(built.pair_slot[k])] = int(built.pair_packet[k])
        packets_cp = tuple(chosen)
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
    stats["status"] = status_name
    stats["chains"] = len(built.chains)
    return EngineResult(packets, value, bound, optimal, time.perf_counter() - t0, "cpsat", stats)  # type: ignore[arg-type]
