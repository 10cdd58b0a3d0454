"""Best response as an OR-Tools CP-SAT model — the second, independent exact engine.

The problem (``problem.BestResponseProblem``): choose one packet per slot, the packets an
exact cover of the live cards, maximizing ``Σ_s V[c(p_s), s]`` where ``c`` is the packet's
rank class and every column ``V[:, s]`` is nondecreasing in the class.  Some slots may be
fixed to given packets.  ``value(A)`` below is the *exact* sum of the float64 table entries.

``solve_cpsat`` works in the three steps of the OR-Tools samples:

1. **build** (``build_model``) — a complete hint ``H`` (given, or ``greedy_hint``; improved
   by local search, then put in canonical form), sound pruning of (packet, slot) pairs,
   then the model:

   * a boolean ``x[p, s]`` for each surviving pair of a *free* slot ``s`` and a packet ``p``
     inside the free cards (live cards minus the fixed packets' cards).  Fixed slots get no
     variables: their packets are given, their cards are not in the model, and their value
     is a constant added back in real units;
   * ``AddExactlyOne`` over each free slot's variables (one packet per slot);
   * ``AddExactlyOne`` over each free card's variables (every card exactly once);
   * exchange-optimality constraints ``Σ d_ab(c(p))·x[p, a] ≤ Σ d_ab(c(p))·x[p, b]``;
   * symmetry breaking: ``Σ c(p)·x[p, a] ≤ Σ c(p)·x[p, b]`` along slot chains, and
     ``AddAtMostOne`` card-exchange constraints;
   * the objective cut ``Σ coef·x ≥ L`` (the hint's scaled value, less rounding slack);
   * objective ``maximize Σ coef[p, s]·x[p, s]``, ``coef = round(K·V)``;
   * ``AddHint`` on every variable: 1 on the hint's pairs, 0 elsewhere.

2. **solve** — ``CpSolver`` with ``max_time_in_seconds``, ``num_workers``, ``random_seed``
   set explicitly (and ``CPSAT_PARAMS``: presolve off — on these pruned models its probing
   costs seconds and buys nothing); a watcher thread calls ``StopSearch`` when
   ``stop_event`` is set.  The first solve gets ``RESTART_SLICE`` seconds: if it improves on
   the hint, the model is rebuilt around the better arrangement (a higher ``T`` prunes far
   more: on the example deal 6,184 pairs with a hint 0.4 below the optimum, 33 with the
   optimal one) and solved again; otherwise the same model gets the rest of the time.

3. **extract** — the packets of the best arrangement seen (hints included), their float64
   value ``problem.value_of``, and the smallest of the rounds' bounds (each is sound).

What the model must contain
---------------------------
Let ``T = value(H)`` for the canonical hint and ``ε = IMPROVE_EPS = 1e-10``.  The model is
only asked to hold *one* optimal arrangement, and only when the optimum ``OPT`` exceeds
``T + ε`` (otherwise the hint is optimal within ε and the bound says so).  Call ``A⁺`` the
canonical form of an optimal arrangement (below): it is optimal, exchange-stable,
chain-ordered and card-canonical.  Every pruning rule (P1–P6 below) removes only pairs that no optimal,
exchange-stable, chain-ordered arrangement worth ``≥ T + ε − PRUNE_TOL`` uses — so, when
``OPT > T + ε``, every pair of ``A⁺`` survives and ``A⁺`` satisfies every constraint.

Integer scaling, the bound and "optimal"
----------------------------------------
``K = 2**36``.  ``K·V`` is exact in float64 (a power-of-two scale, ``|K·V| < 2**53``), so
``coef = round(K·V)`` carries a rounding error ``e = V − coef/K``, ``|e| ≤ 0.5/K``, itself
computed exactly (Sterbenz).  For any arrangement ``A`` of the model with integer objective
``I(A)``: ``value(A) = fixed + I(A)/K + Σ_s e_s(A) ≤ fixed + I(A)/K + E⁺``,
``E⁺ = Σ_s max_p e[p, s]`` over the model's pairs.

* *Bound.*  CP-SAT's ``best_objective_bound`` ``B`` (used only when the status is OPTIMAL
  or FEASIBLE — with UNKNOWN CP-SAT reports 0) bounds ``I`` over the model.  If
  ``OPT > T + ε`` then ``A⁺`` is in the model and ``OPT ≤ fixed + B/K + E⁺``; so
  ``OPT ≤ max(T + ε, fixed + B/K + E⁺) (+ FLOAT_SLACK)``.  The pruning bound ``bound0``
  (P6) is an independent sound bound; the reported bound is
  ``max(value, min(bound0, cp_bound))`` — never below the value returned.
* *Optimal.*  CP-SAT's OPTIMAL proves the *integer* optimum; arrangements whose real values
  differ by less than about ``n_slots/K`` (< 1e-10) may be ordered differently by the
  integers, and the model only seeks improvements over ``T + ε``.  So ``optimal=True`` is
  reported only when CP-SAT says OPTIMAL **and** bound − value ``≤ VALUE_TOLERANCE``
  (``solver.problem.best_response``, 1e-9): nothing is better by more than that (the values themselves are
  float64 sums, exact to ~1e-15).  With ``K = 2**36`` the conversion gap is ``ε + 5/K + FLOAT_SLACK ≈ 2e-10``, so an
  integer OPTIMAL always passes.  With at most one free slot the arrangement is forced
  (CP-SAT is not run) and is reported optimal with ``bound = value``.

Exchange stability and exact ranks
----------------------------------
For free slots ``a < b`` let ``D_ab(r) = V[r, b] − V[r, a]``.  Exchanging the packets of
slots ``a`` and ``b`` changes the value by ``D_ab(c(p_a)) − D_ab(c(p_b))``; so in an optimal
arrangement ``D_ab(c(p_a)) ≤ D_ab(c(p_b))`` for every pair (*exchange-stable*; the search
(``solver.engines.search``) relies on the same property).  ``d_ab`` is the dense rank of ``D_ab`` over the classes,
computed **exactly**: ``D`` is kept as the unevaluated pair ``(hi, lo)`` of TwoSum
(``hi = fl(x − y)``, ``lo`` the exact error); rounding is monotone and ``hi`` of equal
values is equal, so ordering by ``(hi, lo)`` orders the exact differences.  The model
states ``d_ab(c(p_a)) ≤ d_ab(c(p_b))`` (linear, coefficients the ranks), and pruning uses it
as a filter (P4).

Symmetry breaking (``symmetry=True``)
-------------------------------------
*Slot chains.*  Call ``a → b`` an edge when ``D_ab`` is (exactly) nondecreasing in the
class over ``S``, the classes alive (after phase A) in ``a`` or ``b`` plus the hint's classes.
The engine picks vertex-disjoint chains ``s1 → s2 → … → sk`` of edges (most edges;
exhaustive over ≤ 6 free slots) and adds ``c(p_{s_i}) ≤ c(p_{s_{i+1}})``.  Soundness: in an
optimal arrangement, exchange two adjacent chain slots whenever the earlier holds the
strictly stronger class: the change ``D(c1) − D(c2)`` with ``c1 > c2`` is ``≥ 0`` by the edge
(both classes are in ``S`` because the arrangement, being optimal and stable, kept its pairs
through phase A), and ``≤ 0`` by optimality — so the result is again optimal (hence stable
and alive).  Bubble sort terminates: chain-ordered and optimal.  Against the uniform
opponent every column is ``w_s`` times one function, so all slots form one chain.

*Card exchanges.*  For two free cards ``a < b`` of the same rank (``a`` of the lower suit),
call a packet ``P ∋ a, ∌ b`` *exchangeable* if ``P − a + b`` has the same class (checked on
the class table, so flushes and every rule option are respected), and symmetrically for
``Q ∋ b``.  If ``a`` sits in slot ``s`` and ``b`` in an earlier slot ``t``, both packets
exchangeable, exchanging the two cards keeps every slot's class, hence the value, stability,
chain order and all pruning tests.  The model forbids that configuration (``AddAtMostOne``
over ``a``'s exchangeable pairs in slot ``s`` and ``b``'s in slots ``< s``).  Sound for all
card pairs at once: each such exchange raises ``Φ = Σ_cards suit·slot`` by
``(suit(b) − suit(a))(s − t) > 0``, so repeating them terminates in an arrangement that
violates none.  Skipped: suit permutations (a symmetry only when the exposed cards are
suit-symmetric, rare).

*Canonical hint.*  The hint is improved by strictly improving exchanges, chain-sorted and
card-exchanged (``(value, −inversions)`` rises at each step, so this ends) so that it
satisfies every constraint; its pairs are always kept.

Pruning rules P1–P6 (``prune=True``) and why each is sound
----------------------------------------------------------
(Named P1–P6 here: not the search's rules 1–7 of ``solver.engines.search``.)

P1. *Disjoint-maximum bound.*  If ``A`` holds ``p`` in free slot ``s``, every other free slot
   ``s'`` holds a packet inside the free cards, disjoint from ``p``, worth at most
   ``best(p, s') = max_{q ∩ p = ∅} V[c(q), s']``; so
   ``value(A) ≤ lhs(p, s) = fixed + V[c(p), s] + Σ_{s'≠s free} best(p, s')``, and a pair with
   ``lhs < T + ε − PRUNE_TOL`` serves no arrangement worth that much.  ``best``: candidates
   sorted by class, strongest first; the first one disjoint from ``p`` has the highest class
   among the disjoint ones, hence — every column being nondecreasing — the highest value in
   *every* slot at once (numba kernels ``first_disjoint``, ``level1_lhs``).
P2. *Iterated per slot.*  The same with ``q`` restricted to pairs ``(q, s')`` still alive (by
   induction ``A⁺``'s pairs are alive).  No alive partner in some slot: ``lhs = −∞``.
P3. *Pair level.*  For ``(p, s)`` and any other slot ``s2``: ``value(A) ≤ fixed + V[c(p), s] +
   max_{q alive in s2, q ∩ p = ∅} (V[c(q), s2] + Σ_{k ∉ {s, s2}} best(p ∪ q, k))``; if that is
   below the threshold for some ``s2`` the pair goes (kernel ``pair_prune``; the scan over
   the sorted ``q`` stops once even ``V[c(q), s2] + Σ_k best(p, k)`` falls short).
P4. *Windows.*  ``A⁺`` is exchange-stable and chain-ordered, so in P1–P3 the packet ``q``
   of slot ``k`` must satisfy ``d(q) ≥ d(p)`` in the orientation of ``(s, k)`` (a filter) and,
   on a chain, ``c(q) ≤ c(p)`` before ``s`` or ``c(q) ≥ c(p)`` after it (a window on the
   sorted list); likewise relative to ``q`` in P3.  Maximizing over fewer packets is
   still an upper bound for ``A⁺``.
P5. The canonical hint's pairs are always kept (so the hint is a solution of the model).
P6. ``bound0``: if ``OPT > T + ε``, ``A⁺``'s slot-``s`` pair is alive and bounds ``OPT`` by its
   ``lhs``; so ``OPT ≤ max(T + ε, min_s max_{(p,s) alive} lhs(p, s))``.

The float error of an ``lhs`` (a sum of ≤ 6 values of magnitude ≤ 7) is ~1e-14, far inside
``PRUNE_TOL = 2e-11``, so the comparisons lean the sound way.  Pruning stops early (soundly:
it only ever removes pairs) when the time limit is near.

*Objective cut.*  ``I(A) ≥ L``, ``L = floor(K·(T − fixed − E⁺ − FLOAT_SLACK)) − 1``: an
arrangement with ``I(A) < L`` is worth less than ``T``; the hint satisfies it.
"""

from __future__ import annotations

import itertools
import math
import threading
import time
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np
from numba import njit
from ortools.sat.python import cp_model

from solver.problem.best_response import FLOAT_NOISE, VALUE_TOLERANCE, BestResponseProblem, EngineResult
from solver.problem.deal_tables import DealTables

__all__ = [
    "CpsatOptions",
    "solve_cpsat",
    "build_model",
    "greedy_hint",
    "improve_hint",
    "exact_difference_rank",
    "first_disjoint",
    "PairLists",
    "level1_lhs",
    "pair_prune",
    "CpsatModel",
    "SCALE",
    "IMPROVE_EPS",
    "PRUNE_TOL",
]

SCALE = float(2**36)  # K: values are scaled by a power of two, so K·V is exact
IMPROVE_EPS = 1e-10  # the model need only hold arrangements beating the hint by more than this
PRUNE_TOL = 2e-11  # float guard: pairs serving arrangements worth ≥ T + ε − this stay
FLOAT_SLACK = 1e-11  # covers float error of the few sums that convert bounds to real units
MAX_ROUNDS = 30  # pruning rounds per phase (each only shrinks the pair set)
PLAIN_FIRST_ROUND = 20000  # first pruning round without the key filter above this many pairs
PAIR_CHUNK = 128  # candidates per pair_prune call (the deadline and the stop are checked between calls;
# rows are independent, so the chunk size changes nothing but how soon a check comes: ~0.1 s)
BUILD_CHUNK = 20_000  # variables (and hints) added between two checks of the stop event
RESTART_SLICE = 1.0  # seconds of CP-SAT before an improved solution restarts the build
MAX_REBUILDS = 20  # restarts with a better hint (each re-prunes with a higher T)
# Extra CP-SAT parameters.  Presolve off: on the pruned models its probing and clique
# merging cost seconds (13 s of a 20 s budget on a 25k-variable model) for no gain.
# No SIGINT handler: CP-SAT's own one, left behind after every solve, resets SIGINT to the
# system default, so the program's next Ctrl-C would kill it outright (no clean stop, no
# "interrupted"), and a worker process that ignores Ctrl-C would die of it.  Stops come
# through ``stop_event`` instead.
CPSAT_PARAMS: dict[str, object] = {"cp_model_presolve": False, "catch_sigint_signal": False}
_NO_LIMIT = 1 << 40
_B1 = 32  # block sizes of the key-filter skip structure (see _best_in)
_B2 = 1024


@dataclass(frozen=True)
class CpsatOptions:
    """The model's strengthenings (module doc), all on by default; the tests compare them off.

    ``prune``: P1–P4 (off: every pair of a free slot becomes a variable);
    ``pair_level``: P3; ``exchange``: exchange-stability constraints and filters;
    ``symmetry``: slot chains and card exchanges; ``card_symmetry``: card exchanges only;
    ``objective_cut``: the cut ``Σ coef·x ≥ L``; ``local_search``: improve the hint first
    (off in tests that make CP-SAT find the optimum itself); ``linearization_level``:
    CP-SAT's parameter (its default when None).
    """

    prune: bool = True
    pair_level: bool = True
    exchange: bool = True
    symmetry: bool = True
    card_symmetry: bool = True
    objective_cut: bool = True
    local_search: bool = True
    linearization_level: int | None = None


# --------------------------------------------------------------------------------------
# numba kernels (arrays in, arrays out)

PairLists = namedtuple("PairLists", "masks cls values lists lists_cls off rel keys fkey bm1 bm2")
PairLists.__doc__ = """One pruning round's candidates, read-only in the kernels.

masks, cls, values: per candidate packet p its card mask, rank class (int64) and
``values[p, j]`` in free slot j; ``lists[off[k]:off[k+1]]``: the candidates alive in slot k,
strongest class first (classes in ``lists_cls``); ``rel[j, k]`` = +1 / −1 / 0 when slot k
must hold a class ≥ / ≤ / anything relative to slot j (chains, P4); ``keys[j, k, c(q)] ≥
keys[j, k, c(p)]`` is required of q in slot k when p is in slot j (exchange keys, P2);
``fkey[j, i]`` is ``keys[j, k, c]`` of list position i in slot k's segment, ``bm1``/``bm2``
its maxima over aligned blocks of ``_B1``/``_B2`` positions."""


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
        if i % _B2 == 0 and i + _B2 <= hi:
            blk = i // _B2
            if bm2[j1, blk] < kmin1 or (j2 >= 0 and bm2[j2, blk] < kmin2):
                if lists_cls[i + _B2 - 1] < lb:
                    return -1
                i += _B2
                continue
        if i % _B1 == 0 and i + _B1 <= hi:
            blk = i // _B1
            if bm1[j1, blk] < kmin1 or (j2 >= 0 and bm1[j2, blk] < kmin2):
                if lists_cls[i + _B1 - 1] < lb:
                    return -1
                i += _B1
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


# --------------------------------------------------------------------------------------
# exact ranks of differences


def exact_difference_rank(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Dense rank (int64, 0 = smallest) of the *exact* differences ``x − y`` of float64
    arrays: equal exact differences get equal ranks, and ``rank[i] < rank[j]`` exactly when
    ``x[i] − y[i] < x[j] − y[j]`` in real arithmetic (TwoSum; see the module doc)."""
    x = np.asarray(x, dtype=np.float64)
    ny = -np.asarray(y, dtype=np.float64)
    hi = x + ny
    bb = hi - x
    lo = (x - (hi - bb)) + (ny - bb)
    hi = hi + 0.0  # −0.0 → 0.0
    order = np.lexsort((lo, hi))
    hs, ls = hi[order], lo[order]
    new = np.empty(order.size, dtype=bool)
    if order.size:
        new[0] = True
        new[1:] = (hs[1:] != hs[:-1]) | (ls[1:] != ls[:-1])
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.cumsum(new) - 1
    return rank


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


_C15 = np.array(list(itertools.combinations(range(15), 5)), dtype=np.int64)
_C10 = np.array(list(itertools.combinations(range(10), 5)), dtype=np.int64)
_C10_REST = np.array([[i for i in range(10) if i not in c] for c in _C10.tolist()], dtype=np.int64)
_BINOM = np.array([[math.comb(n, k) for k in range(6)] for n in range(65)], dtype=np.int64)


@njit(cache=True, nogil=True)
def _colex(pos, idx, binom):
    """Colex rank of the 5 sorted positions ``pos[idx[0..4]]``."""
    r = 0
    for t in range(5):
        r += binom[pos[idx[t]], t + 1]
    return r


@njit(cache=True, nogil=True)
def best_split(pos, n_parts, binom, colex_to_packet, classes, vcols, c15, c10, c10_rest):
    """Best split of the 5·n_parts cards at sorted live positions ``pos`` (n_parts 2 or 3)
    into packets for the value columns ``vcols[:, 0..n_parts-1]``.  Returns
    (value, packet indices); packets are found by colex rank of their positions."""
    best = -np.inf
    out = np.full(3, -1, dtype=np.int64)
    rest = np.empty(10, dtype=np.int64)
    used = np.zeros(15, dtype=np.bool_)
    vmax1 = -np.inf
    vmax2 = -np.inf
    for r in range(vcols.shape[0]):
        vmax1 = max(vmax1, vcols[r, n_parts - 2])
        vmax2 = max(vmax2, vcols[r, n_parts - 1])
    n_first = c15.shape[0] if n_parts == 3 else 1
    for i in range(n_first):
        v_first = 0.0
        p_first = -1
        if n_parts == 3:
            p_first = colex_to_packet[_colex(pos, c15[i], binom)]
            v_first = vcols[classes[p_first], 0]
            if v_first + vmax1 + vmax2 <= best:
                continue
            used[:] = False
            for t in range(5):
                used[c15[i, t]] = True
            n = 0
            for t in range(15):
                if not used[t]:
                    rest[n] = pos[t]
                    n += 1
        else:
            for t in range(10):
                rest[t] = pos[t]
        for j in range(c10.shape[0]):
            pb = colex_to_packet[_colex(rest, c10[j], binom)]
            pc = colex_to_packet[_colex(rest, c10_rest[j], binom)]
            v = v_first + vcols[classes[pb], n_parts - 2] + vcols[classes[pc], n_parts - 1]
            if v > best:
                best = v
                out[0] = p_first
                out[1] = pb
                out[2] = pc
    return best, out


class _Colex:
    """Packet index by colex rank of the packet's positions among the live cards."""

    def __init__(self, tables: DealTables) -> None:
        live = int(tables.deal.live)
        self.livepos = np.full(64, -1, dtype=np.int64)
        n = 0
        for c in range(64):
            if live >> c & 1:
                self.livepos[c] = n
                n += 1
        masks = tables.masks.astype(np.int64)
        bits = ((masks[:, None] >> np.arange(64)) & 1).astype(bool)
        _, cols = np.nonzero(bits)
        pos = self.livepos[cols].reshape(masks.size, 5)
        ranks = _BINOM[pos, np.arange(1, 6)].sum(axis=1)
        self.to_packet = np.empty(math.comb(n, 5), dtype=np.int64)
        self.to_packet[ranks] = np.arange(masks.size)

    def positions(self, mask: int) -> np.ndarray:
        return np.array([self.livepos[c] for c in range(64) if mask >> c & 1], dtype=np.int64)


_COLEX_CACHE: list[tuple[DealTables, _Colex]] = []  # (tables, index) of the last deal seen


def _colex_for(tables: DealTables) -> _Colex:
    if _COLEX_CACHE and _COLEX_CACHE[0][0] is tables:
        return _COLEX_CACHE[0][1]
    colex = _Colex(tables)
    _COLEX_CACHE[:] = [(tables, colex)]
    return colex


def improve_hint(problem: BestResponseProblem, packets: tuple[int, ...], *, triples: bool = True,
                 max_passes: int = 100, stop_event: threading.Event | None = None) -> tuple[int, ...]:
    """Local search from a legal arrangement, fixed slots kept: best order of the free
    packets (exhaustive), best re-split of every two free slots' ten cards (252 ordered
    splits) and, when those are stuck and ``triples``, of every three free slots' fifteen
    cards (756,756 ordered splits, numba); repeated until no move gains more than ``FLOAT_NOISE``
    or ``stop_event`` is set (the arrangement so far, legal, is returned)."""
    tables, V = problem.tables, problem.values
    free = _free_slots(problem)
    cur = [int(p) for p in packets]
    if len(free) < 2:
        return tuple(cur)
    colex = _colex_for(tables)
    classes = tables.classes
    masks = tables.masks
    perms = list(itertools.permutations(range(len(free))))

    def val(slots: tuple[int, ...]) -> float:
        return float(sum(V[classes[cur[s]], s] for s in slots))

    def resplit(slots: tuple[int, ...]) -> bool:
        union = 0
        for s in slots:
            union |= int(masks[cur[s]])
        vcols = np.ascontiguousarray(V[:, list(slots)])
        v, out = best_split(colex.positions(union), len(slots), _BINOM, colex.to_packet, classes,
                            vcols, _C15, _C10, _C10_REST)
        if v > val(slots) + FLOAT_NOISE:
            for s, p in zip(slots, out[3 - len(slots):].tolist(), strict=True):
                cur[s] = int(p)
            return True
        return False

    def stopped() -> bool:
        return stop_event is not None and stop_event.is_set()

    for _ in range(max_passes):
        if stopped():
            break
        improved = False
        ps = [cur[s] for s in free]
        cl = [int(classes[p]) for p in ps]
        base = sum(V[cl[i], free[i]] for i in range(len(free)))
        best_gain, best_perm = FLOAT_NOISE, None
        for perm in perms:
            v = sum(V[cl[perm[i]], free[i]] for i in range(len(free)))
            if v - base > best_gain:
                best_gain, best_perm = v - base, perm
        if best_perm is not None:
            for i, s in enumerate(free):
                cur[s] = ps[best_perm[i]]
            improved = True
        for pair in itertools.combinations(free, 2):
            improved |= resplit(pair)
        if not improved and triples and len(free) >= 3:
            for triple in itertools.combinations(free, 3):
                if stopped():
                    break
                improved |= resplit(triple)
        if not improved:
            break
    return tuple(cur)


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

    then (unless ``improve=False``) ``improve_hint`` on the strongest-first arrangement and on
    the ``n_improve`` best slot-by-slot ones (cut short once ``stop_event`` is set)."""
    tables, V = problem.tables, problem.values
    free = _free_slots(problem)
    packets = [int(p) for p in problem.fixed]
    if not free:
        return tuple(packets)
    nf = len(free)
    free_mask = _free_mask(problem)
    lookup = _Lookup(tables.masks)
    masks = tables.masks
    classes = tables.classes
    cand = np.flatnonzero((masks.astype(np.int64) & ~np.int64(free_mask)) == 0)

    def complete(taken: dict[int, int]) -> tuple[int, ...]:
        arr = list(packets)
        used = 0
        for s, p in taken.items():
            arr[s] = p
            used |= int(masks[p])
        rest = [s for s in free if s not in taken]
        if rest:
            arr[rest[0]] = int(lookup(free_mask & ~used)[0])
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
    taken.append(int(lookup(free_mask & ~used)[0]))
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
    return max((improve_hint(problem, a, stop_event=stop_event) for a in starts), key=problem.value_of)


# --------------------------------------------------------------------------------------
# exchange ranks, chains, canonical forms


def _exchange_keys(V: np.ndarray, free: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """``rank[a, b]`` (a < b, free positions): exact dense rank of ``V[:, free[b]] −
    V[:, free[a]]`` per class; ``keys[j, k]`` the filter of P4: ``rank[j, k]`` if
    ``j < k``, ``−rank[k, j]`` if ``j > k`` (so ``keys[j, k, c(q)] ≥ keys[j, k, c(p)]`` for p
    in slot j, q in slot k of an exchange-stable arrangement)."""
    nf, R = len(free), V.shape[0]
    rank = np.zeros((nf, nf, R), dtype=np.int64)
    keys = np.zeros((nf, nf, R), dtype=np.int64)
    for a in range(nf):
        for b in range(a + 1, nf):
            rank[a, b] = exact_difference_rank(V[:, free[b]], V[:, free[a]])
            keys[a, b] = rank[a, b]
            keys[b, a] = -rank[a, b]
    return rank, keys


def _edge(rank: np.ndarray, S: np.ndarray, a: int, b: int) -> bool:
    """D = V[:, b] − V[:, a] exactly nondecreasing in the class over the sorted classes S."""
    r = rank[a, b, S] if a < b else -rank[b, a, S]
    return bool(np.all(r[1:] >= r[:-1]))


def _best_chains(n: int, edge: np.ndarray) -> list[list[int]]:
    """Vertex-disjoint paths in the digraph ``edge`` (n × n bools) with the most edges."""
    if n <= 1:
        return []
    perms = itertools.permutations(range(n)) if n <= 6 else [tuple(range(n))]
    best: list[list[int]] = []
    best_edges = 0
    for perm in perms:
        chains, run, n_edges = [], [perm[0]], 0  # cut the permutation at missing edges
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


def _canonical_classes(packets: list[int], free: list[int], rank: np.ndarray | None,
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


def _canonical_cards(packets: list[int], free: list[int], swaps: list[tuple[int, int]],
                     lookup: _Lookup, classes: np.ndarray, masks: np.ndarray) -> list[int]:
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


# --------------------------------------------------------------------------------------
# pruning


def _key_blocks(keys: np.ndarray, flat_cls: np.ndarray, off: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``fkey[j, i] = keys[j, k, flat_cls[i]]`` for position i of slot k's segment, and its
    maxima over aligned blocks of ``_B1`` and ``_B2`` positions (for ``_best_in``)."""
    nf = keys.shape[0]
    total = flat_cls.size
    fkey = np.empty((nf, total), dtype=np.int64)
    for k in range(nf):
        seg = slice(off[k], off[k + 1])
        fkey[:, seg] = keys[:, k, flat_cls[seg]]
    low = np.iinfo(np.int64).min

    def blocks(size: int) -> np.ndarray:
        n_blk = -(-total // size) if total else 0
        padded = np.full((nf, n_blk * size), low, dtype=np.int64)
        padded[:, :total] = fkey
        return padded.reshape(nf, n_blk, size).max(axis=2) if n_blk else padded[:, :0]

    return fkey, blocks(_B1), blocks(_B2)


def _prune(cmasks: np.ndarray, ccls: np.ndarray, Vc: np.ndarray, alive: np.ndarray,
           hint_pos: np.ndarray, T: float, fixed_value: float, rel: np.ndarray, keys: np.ndarray,
           pair_level: bool, deadline: float, stop_event: threading.Event | None = None
           ) -> tuple[np.ndarray, float, int]:
    """P1–P4 to a fixed point from ``alive`` (or until ``deadline`` or ``stop_event``; at least
    one round unless stopped).  Returns (alive, bound, rounds), ``bound`` the best P6 bound of
    the rounds (inf after none: the trivial bound stands)."""

    def stopped() -> bool:
        return stop_event is not None and stop_event.is_set()

    def expired() -> bool:
        return time.perf_counter() >= deadline or stopped()

    n_cand, nf = Vc.shape
    desc = np.argsort(-ccls, kind="stable")
    cols = np.arange(nf)
    cls64 = ccls.astype(np.int64)
    alive = alive.copy()
    thresh = T + IMPROVE_EPS - PRUNE_TOL
    zero_keys = np.zeros_like(keys)
    bound = np.inf
    rounds = 0
    while rounds < MAX_ROUNDS and not stopped() and (rounds == 0 or not expired()):  # ≥ 1 round unless stopped
        rounds += 1
        lists = [desc[alive[desc, j]] for j in range(nf)]
        flat = np.concatenate(lists).astype(np.int64)
        flat_cls = cls64[flat]
        off = np.zeros(nf + 1, dtype=np.int64)
        off[1:] = np.cumsum([lst.size for lst in lists])
        # the key filter makes scans long; on the full first round the plain P1 (keys 0)
        # is much cheaper and already removes nearly everything
        k_round = zero_keys if rounds == 1 and alive.sum() > PLAIN_FIRST_ROUND else keys
        # (fkey, bm1, bm2 below and every kernel call of this round use k_round: consistent)
        fkey, bm1, bm2 = _key_blocks(k_round, flat_cls, off)
        pl = PairLists(cmasks, cls64, Vc, flat, flat_cls, off, rel, k_round, fkey, bm1, bm2)
        if k_round is zero_keys and not rel.any() and alive.all():
            # every slot's list is the same and unfiltered: one scan per packet (P1)
            pos = first_disjoint(cmasks[lists[0]], cmasks)
            best = np.where((pos >= 0)[:, None], Vc[lists[0][np.maximum(pos, 0)]], -np.inf)
            # (the strongest disjoint packet, in every slot; −inf: none)
            lhs = np.empty((n_cand, nf))
            for j in range(nf):
                others = np.zeros(n_cand)
                for k in range(nf):
                    if k != j:
                        others = others + best[:, k]
                lhs[:, j] = fixed_value + Vc[:, j] + others
        else:
            lhs = level1_lhs(pl, alive, fixed_value)
        new_alive = alive & (lhs >= thresh)
        new_alive[hint_pos, cols] = True
        bound = min(bound, max(T + IMPROVE_EPS, min(lhs[new_alive[:, j], j].max() for j in range(nf))))
        if np.array_equal(new_alive, alive):
            if k_round is zero_keys and keys.any():
                continue  # the next round applies the key filter before P3 runs
            if not pair_level or nf < 3:
                break
            rows = np.flatnonzero(alive.any(axis=1))
            new_alive = alive
            for lo in range(0, rows.size, PAIR_CHUNK):
                if expired():
                    break
                hi = min(lo + PAIR_CHUNK, rows.size)
                new_alive = pair_prune(pl, new_alive, thresh - fixed_value, rows[lo], rows[hi - 1] + 1)
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
    hint_value: float  # T
    prune_T: float  # max T of the pruning phases: OPT ≤ max(prune_T + ε, model bound)
    fixed_value: float
    err_max: float  # E⁺
    bound0: float  # pruning bound (real units)
    chains: list[list[int]]  # slot chains with c(p_a) ≤ c(p_b) along each
    stats: dict[str, object] = field(default_factory=dict)


def _maximize(model: cp_model.CpModel, x: list[cp_model.IntVar], coef: np.ndarray) -> None:
    """``model.maximize(Σ coef·x)``, written into the proto at once: the same objective
    (CP-SAT minimizes ``scaling_factor · Σ c'·x`` with ``c' = −coef``, ``scaling_factor = −1``,
    as ``CpModel.maximize`` writes it) without its loop of one call per variable, which takes
    over a second on a big deal."""
    model.clear_objective()
    objective = model.proto.objective
    objective.vars.extend([v.index for v in x])
    objective.coeffs.extend((-np.asarray(coef, dtype=np.int64)).tolist())
    objective.scaling_factor = -1.0
    objective.offset = 0


class BuildStopped(Exception):
    """``build_model`` was stopped after pruning: the (canonical, improved) ``hint`` — a legal
    arrangement —, the pruning bound ``bound0`` (P6: sound on its own) and the model's
    ``stats`` so far (no variables)."""

    def __init__(self, hint: tuple[int, ...], bound0: float, stats: dict[str, object]) -> None:
        super().__init__("stopped before the model was built")
        self.hint = hint
        self.bound0 = bound0
        self.stats = stats


def build_model(problem: BestResponseProblem, hint: tuple[int, ...] | None = None, *,
                options: CpsatOptions = CpsatOptions(), deadline: float = np.inf,
                stop_event: threading.Event | None = None) -> CpsatModel:
    """Build the CP-SAT model (step 1 of ``solve_cpsat``; the module doc has every rule, P1–P6).

    Needs at least two free slots.  ``options`` switches the strengthenings;
    ``deadline`` (``time.perf_counter()`` value) or a set ``stop_event`` stops pruning early;
    a ``stop_event`` set by the end of pruning raises ``BuildStopped`` (the model's variables
    and constraints take seconds to add on a big deal: a stopped solve does not wait for them).
    """
    st = _start_build(problem, hint, options, deadline, stop_event)
    if options.prune:  # phase A: P1, P2, P4 without chains (P3 too when no phase B)
        _prune_phase(st, np.zeros((st.nf, st.nf), dtype=np.int64), options.pair_level and not options.symmetry)
    _chain_slots(st)
    if options.prune and options.symmetry:  # phase B: P1–P4 with the chain windows (P3 runs here)
        _prune_phase(st, _relations(st.nf, st.chains), options.pair_level)
    st.checkpoint()
    swaps = _card_swaps(st)
    pc, pj = np.nonzero(st.alive)  # candidate position, free-slot position (slot order)
    card_rules = _card_rules(st, swaps, pc)

    pair_packet, pair_slot, coef, err_max = _pair_coefficients(st, pc, pj)
    model = cp_model.CpModel()
    pairs = list(zip(pair_packet.tolist(), pair_slot.tolist(), strict=True))
    x = _add_variables(model, st, pairs)
    slot_terms = _add_exactly_ones(model, st, x, pc, pj)
    st.checkpoint()
    n_exchange, n_chain = _add_orderings(model, st, x, pc, slot_terms)
    n_card = _add_card_constraints(model, st, x, pj, card_rules)
    _add_objective(model, st, x, coef, err_max)
    _add_full_hint(model, st, x, pairs)

    n_pairs = int(st.cand.size * st.nf)
    stats: dict[str, object] = {
        "variables": int(pc.size),
        "candidate_pairs": n_pairs,
        "pruned_pairs": int(n_pairs - pc.size),
        "pruning_rounds": st.rounds,
        "exchange_constraints": n_exchange,
        "chain_constraints": n_chain,
        "card_constraints": n_card,
        "hint_value": float(st.T),
    }
    return CpsatModel(
        model=model, free_slots=st.free, pair_packet=pair_packet, pair_slot=pair_slot, coef=coef, x=x,
        hint=st.hint, hint_value=st.T, prune_T=st.prune_T, fixed_value=st.fixed_value, err_max=err_max,
        bound0=float(st.bound0), chains=[[st.free[j] for j in c] for c in st.chains], stats=stats,
    )


@dataclass
class _BuildState:
    """What the steps of ``build_model`` share: the free slots and candidates (set once), the
    hint, the alive pairs and the pruning results (updated step by step).  Values in real units."""

    problem: BestResponseProblem
    options: CpsatOptions
    deadline: float  # ``time.perf_counter()`` value that stops pruning
    stop_event: threading.Event | None
    free: list[int]  # the free slots
    free_mask: int  # their cards
    lookup: _Lookup
    cand: np.ndarray  # candidate packets (indices, ascending): those inside the free cards
    cmasks: np.ndarray  # their card masks
    ccls: np.ndarray  # their classes
    Vc: np.ndarray  # Vc[i, j]: value of candidate i in free slot j
    fixed_value: float  # the fixed slots' value
    hint: tuple[int, ...]  # the canonical hint so far
    T: float  # its value
    prune_T: float  # the largest T any pruning phase used (the bound needs it)
    rank: np.ndarray | None  # exact ranks d_ab (``_exchange_keys``; None with exchange off)
    keys: np.ndarray  # exchange keys for ``_prune`` (zeros with exchange off)
    alive: np.ndarray  # bool (candidate, free slot): the pairs not pruned
    bound0: float  # pruning bound (P6)
    rounds: int = 0  # pruning rounds so far
    chains: list[list[int]] = field(default_factory=list)  # slot chains (free-slot positions)

    @property
    def nf(self) -> int:
        return len(self.free)

    def hint_pos(self) -> np.ndarray:
        """The hint's candidate positions, in free-slot order."""
        return np.searchsorted(self.cand, np.array([self.hint[s] for s in self.free], dtype=np.int64))

    def keep_hint(self, hint: tuple[int, ...]) -> None:
        """Make ``hint`` the hint and keep its pairs alive (P5)."""
        self.hint = hint
        self.alive[self.hint_pos(), np.arange(self.nf)] = True

    def checkpoint(self) -> None:
        """Raise ``BuildStopped`` if the stop event is set (the hint stays legal)."""
        if self.stop_event is not None and self.stop_event.is_set():
            n_pairs = int(self.cand.size * self.nf)
            raise BuildStopped(self.hint, float(self.bound0), {
                "variables": 0, "candidate_pairs": n_pairs, "pruned_pairs": int(n_pairs - self.alive.sum()),
                "pruning_rounds": self.rounds, "hint_value": float(self.T)})


def _start_build(problem: BestResponseProblem, hint: tuple[int, ...] | None, options: CpsatOptions,
                 deadline: float, stop_event: threading.Event | None) -> _BuildState:
    """The free slots, the hint (``_first_hint``), the candidate packets (inside the free cards)
    with their values per free slot, every pair alive and the trivial bound."""
    tables, V = problem.tables, problem.values
    free = _free_slots(problem)
    nf = len(free)
    if nf < 2:
        raise ValueError("build_model needs at least two free slots")
    lookup = _Lookup(tables.masks)
    hint, rank, keys = _first_hint(problem, hint, free, options, stop_event)
    fixed_value = float(sum(V[tables.classes[p], s] for s, p in enumerate(problem.fixed) if p >= 0))
    free_mask = _free_mask(problem)
    cand = np.flatnonzero((tables.masks.astype(np.int64) & ~np.int64(free_mask)) == 0)
    ccls = tables.classes[cand]
    Vc = np.ascontiguousarray(V[ccls][:, free])
    T = problem.value_of(hint)
    return _BuildState(
        problem=problem, options=options, deadline=deadline, stop_event=stop_event, free=free,
        free_mask=free_mask, lookup=lookup, cand=cand, cmasks=tables.masks[cand], ccls=ccls, Vc=Vc,
        fixed_value=fixed_value, hint=hint, T=T, prune_T=T, rank=rank,
        keys=keys if keys is not None else np.zeros((nf, nf, V.shape[0]), dtype=np.int64),
        alive=np.ones((cand.size, nf), dtype=bool), bound0=fixed_value + float(Vc.max(axis=0).sum()))


def _first_hint(problem: BestResponseProblem, hint: tuple[int, ...] | None, free: list[int],
                options: CpsatOptions, stop_event: threading.Event | None
                ) -> tuple[tuple[int, ...], np.ndarray | None, np.ndarray | None]:
    """The hint: ``hint`` (checked) or ``greedy_hint``, improved by local search
    (``options.local_search``, not once stopped), then sorted by strictly improving exchanges
    (``options.exchange``).  Returns (hint, rank, keys), ``_exchange_keys`` or None, None."""
    improve = options.local_search

    def stopped() -> bool:
        return stop_event is not None and stop_event.is_set()

    if hint is None:
        hint = greedy_hint(problem, improve=improve and not stopped(), stop_event=stop_event)
    else:
        hint = tuple(int(p) for p in hint)
        _check_arrangement(problem, hint, "hint")
        if improve and not stopped():
            hint = improve_hint(problem, hint, stop_event=stop_event)
    hint_in = problem.value_of(hint)
    rank = keys = None
    if options.exchange:
        rank, keys = _exchange_keys(problem.values, free)
        hint = tuple(_canonical_classes(list(hint), free, rank, [], problem.tables.classes))
    if problem.value_of(hint) < hint_in - FLOAT_NOISE:  # strictly improving exchanges only: fail loudly
        raise AssertionError("exchange canonicalization lost value on the hint")
    return hint, rank, keys


def _prune_phase(st: _BuildState, rel: np.ndarray, pair_level: bool) -> None:
    """One pruning phase (``_prune`` to a fixed point at the current hint value ``T``) with the
    slot relations ``rel`` (``_relations``; zeros: no chains) and P3 when ``pair_level``."""
    st.prune_T = max(st.prune_T, st.T)
    st.alive, bound, rounds = _prune(st.cmasks, st.ccls, st.Vc, st.alive, st.hint_pos(), st.T, st.fixed_value,
                                     rel, st.keys, pair_level, st.deadline, st.stop_event)
    st.bound0 = min(st.bound0, bound)
    st.rounds += rounds


def _chain_slots(st: _BuildState) -> None:
    """Slot chains (``options.symmetry``) on the alive pairs and the hint's classes; the hint is
    then chain-sorted (it never loses value)."""
    if not st.options.symmetry:
        return
    nf = st.nf
    rank = st.rank if st.rank is not None else _exchange_keys(st.problem.values, st.free)[0]
    hint_cls = st.ccls[st.hint_pos()]
    cls_sets = [np.union1d(st.ccls[st.alive[:, j]], hint_cls) for j in range(nf)]
    edge = np.zeros((nf, nf), dtype=bool)
    for a in range(nf):
        for b_ in range(nf):
            if a != b_:
                edge[a, b_] = _edge(rank, np.union1d(cls_sets[a], cls_sets[b_]), a, b_)
    st.chains = _best_chains(nf, edge)
    if st.chains:
        hint = tuple(_canonical_classes(list(st.hint), st.free, st.rank, st.chains, st.problem.tables.classes))
        T_new = st.problem.value_of(hint)
        if T_new < st.T - FLOAT_NOISE:  # exact Monge: sorting never loses value
            raise AssertionError("chain sorting lost value on the hint")
        st.T = T_new
        st.keep_hint(hint)


def _card_swaps(st: _BuildState) -> list[tuple[int, int]]:
    """The card exchanges (``options.symmetry`` and ``card_symmetry``): pairs ``a < b`` of free
    cards of one rank.  The hint is put in card-canonical form first (its classes unchanged)."""
    if not (st.options.symmetry and st.options.card_symmetry):
        return []
    tables = st.problem.tables
    deck = tables.rules.deck
    free_cards = [c for c in range(deck.size) if st.free_mask >> c & 1]
    swaps = [(a, b_) for a, b_ in itertools.combinations(free_cards, 2) if deck.rank_of(a) == deck.rank_of(b_)]
    if swaps:
        before = [int(tables.classes[p]) for p in st.hint]
        hint = tuple(_canonical_cards(list(st.hint), st.free, swaps, st.lookup, tables.classes, tables.masks))
        if [int(tables.classes[p]) for p in hint] != before:  # class-preserving by construction
            raise AssertionError("card exchange changed a class of the hint")
        st.keep_hint(hint)
    return swaps


def _card_rules(st: _BuildState, swaps: list[tuple[int, int]], pc: np.ndarray
                ) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per card exchange ``(a, b)``: the variables (indices into ``pc``) whose packet holds ``a``
    but not ``b`` and keeps its class when ``b`` replaces ``a``; then the same with ``b`` and ``a``."""
    if not swaps:
        return []
    classes = st.problem.tables.classes
    pmask = st.cmasks[pc].astype(np.int64)
    pcls = st.ccls[pc]
    card_rules = []
    for a, b_ in swaps:
        sides = []
        for c_in, c_out in ((a, b_), (b_, a)):
            rows = np.flatnonzero(((pmask >> c_in) & 1 == 1) & ((pmask >> c_out) & 1 == 0))
            other = (pmask[rows] & ~np.int64(1 << c_in)) | np.int64(1 << c_out)
            sides.append(rows[classes[st.lookup(other)] == pcls[rows]])
        card_rules.append((sides[0], sides[1]))
    return card_rules


def _pair_coefficients(st: _BuildState, pc: np.ndarray, pj: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Per variable (pair ``pc[k]``, ``pj[k]``): its packet, its slot and its objective coefficient
    ``round(K·V)`` (int64, scaled units); and ``E⁺`` (real units, module doc)."""
    pair_packet = st.cand[pc]
    pair_slot = np.array(st.free, dtype=np.int64)[pj]
    v_pair = st.Vc[pc, pj]
    coef = np.rint(v_pair * SCALE).astype(np.int64)
    err = v_pair - coef / SCALE  # exact (see the module doc)
    err_max = float(sum(err[pj == j].max() for j in range(st.nf)))
    return pair_packet, pair_slot, coef, err_max


def _add_variables(model: cp_model.CpModel, st: _BuildState, pairs: list[tuple[int, int]]
                   ) -> list[cp_model.IntVar]:
    """A boolean ``x_p_s`` per (packet, slot) pair, ``BUILD_CHUNK`` between two stop checks."""
    x: list[cp_model.IntVar] = []
    for lo in range(0, len(pairs), BUILD_CHUNK):
        st.checkpoint()
        x.extend(model.new_bool_var(f"x_{p}_{s}") for p, s in pairs[lo:lo + BUILD_CHUNK])
    return x


def _add_exactly_ones(model: cp_model.CpModel, st: _BuildState, x: list[cp_model.IntVar], pc: np.ndarray,
                      pj: np.ndarray) -> list[np.ndarray]:
    """``AddExactlyOne`` per free slot (one packet) and per free card (covered once).  Returns
    each free slot's variables (indices into ``x``)."""
    slot_terms = [np.flatnonzero(pj == j) for j in range(st.nf)]
    for j in range(st.nf):  # one packet per free slot
        model.add_exactly_one([x[k] for k in slot_terms[j].tolist()])
    pmask = st.cmasks[pc].astype(np.int64)
    for bit in range(64):  # every free card exactly once
        if st.free_mask >> bit & 1:
            model.add_exactly_one([x[k] for k in np.flatnonzero(pmask >> bit & 1).tolist()])
    return slot_terms


def _slot_expr(x: list[cp_model.IntVar], terms: np.ndarray, weights: np.ndarray) -> cp_model.LinearExpr:
    """``Σ weights[k]·x[k]`` over one slot's variables ``terms``."""
    return cp_model.LinearExpr.weighted_sum([x[k] for k in terms.tolist()], weights[terms].tolist())


def _add_orderings(model: cp_model.CpModel, st: _BuildState, x: list[cp_model.IntVar], pc: np.ndarray,
                   slot_terms: list[np.ndarray]) -> tuple[int, int]:
    """Exchange stability ``d_ab(c(p_a)) ≤ d_ab(c(p_b))`` for free slots ``a < b`` (with exchange
    on), then ``c(p_a) ≤ c(p_b)`` along the slot chains.  Returns the two constraint counts."""
    n_exchange = 0
    if st.rank is not None:
        for a in range(st.nf):
            for b_ in range(a + 1, st.nf):
                d = st.rank[a, b_, st.ccls[pc]]
                model.add(_slot_expr(x, slot_terms[a], d) <= _slot_expr(x, slot_terms[b_], d))
                n_exchange += 1
    n_chain = 0
    pcls_all = st.ccls[pc].astype(np.int64)
    for chain in st.chains:
        for ja, jb in itertools.pairwise(chain):
            model.add(_slot_expr(x, slot_terms[ja], pcls_all) <= _slot_expr(x, slot_terms[jb], pcls_all))
            n_chain += 1
    return n_exchange, n_chain


def _add_card_constraints(model: cp_model.CpModel, st: _BuildState, x: list[cp_model.IntVar], pj: np.ndarray,
                          card_rules: list[tuple[np.ndarray, np.ndarray]]) -> int:
    """Card exchanges: ``AddAtMostOne`` over card ``a``'s exchangeable pairs in slot ``j`` and
    ``b``'s in the slots before ``j`` (``a`` never later than ``b``).  Returns the count."""
    n_card = 0
    for ka, kb in card_rules:
        for j in range(1, st.nf):
            terms = [x[k] for k in ka[pj[ka] == j].tolist()] + [x[k] for k in kb[pj[kb] < j].tolist()]
            if len(terms) >= 2:
                model.add_at_most_one(terms)
                n_card += 1
        st.checkpoint()
    return n_card


def _add_objective(model: cp_model.CpModel, st: _BuildState, x: list[cp_model.IntVar], coef: np.ndarray,
                   err_max: float) -> None:
    """The objective cut ``Σ coef·x ≥ L`` (``options.objective_cut``; ``L`` in scaled units, from
    the hint value ``T``, module doc), then ``maximize Σ coef·x``."""
    objective = cp_model.LinearExpr.weighted_sum(x, coef.tolist())
    st.checkpoint()
    if st.options.objective_cut:
        model.add(objective >= int(np.floor(SCALE * (st.T - st.fixed_value - err_max - FLOAT_SLACK))) - 1)
    st.checkpoint()
    _maximize(model, x, coef)


def _add_full_hint(model: cp_model.CpModel, st: _BuildState, x: list[cp_model.IntVar],
                   pairs: list[tuple[int, int]]) -> None:
    """``AddHint`` on every variable: 1 on the hint's pairs, 0 elsewhere."""
    hint_set = {(int(st.hint[s]), s) for s in st.free}
    for k, (p, s) in enumerate(pairs):
        if k % BUILD_CHUNK == 0:
            st.checkpoint()
        model.add_hint(x[k], 1 if (p, s) in hint_set else 0)


# --------------------------------------------------------------------------------------
# 2. solve and 3. extract


def solve_cpsat(problem: BestResponseProblem, *, time_limit: float | None = 10.0, workers: int = 1,
                hint: tuple[int, ...] | None = None, seed: int = 0,
                stop_event: threading.Event | None = None, options: CpsatOptions = CpsatOptions()) -> EngineResult:
    """Best response by CP-SAT (the module doc has the model and every soundness argument).

    * ``time_limit`` — seconds for the whole call (model building included: pruning stops
      early when half of it is spent; CP-SAT gets what is left, at least 1 ms); ``None`` for
      no limit.
    * ``workers`` — CP-SAT ``num_workers``; ``seed`` — ``random_seed``.
    * ``hint`` — a legal arrangement (packet indices in slot order) or ``None`` for
      ``greedy_hint``; either way improved by local search first (unless switched off).
    * ``stop_event`` — when set (e.g. by Ctrl-C handling) the search stops and the best
      arrangement found so far is returned with its sound bound.
    * ``options`` — the model's strengthenings (``CpsatOptions``); tests compare the default
      model against the plain one.

    Returns ``EngineResult(packets, value=problem.value_of(packets), bound ≥ value (a proven
    upper bound on the optimum), optimal, seconds, "cpsat", stats)``; ``stats`` has
    ``variables``, ``pruned_pairs``, ``status`` (CP-SAT's status name; ``NOT_RUN`` when
    stopped before solving, ``TRIVIAL`` when at most one slot is free) and more.
    """
    t0 = time.perf_counter()
    free = _free_slots(problem)
    if hint is not None:
        hint = tuple(int(p) for p in hint)
        _check_arrangement(problem, hint, "hint")
    if len(free) <= 1:
        return _solve_forced(problem, free, t0)

    best: list[tuple[int, ...]] = [hint] if hint is not None else []
    bound = np.inf
    optimal_status = False
    status_name = "NOT_RUN"
    cur_hint = hint
    built: CpsatModel | None = None
    rebuilds = 0
    final = False

    def remaining() -> float:
        return np.inf if time_limit is None else t0 + float(time_limit) - time.perf_counter()

    while True:
        if built is None or not final:
            # 1. build (pruning may use half of the time left)
            deadline = time.perf_counter() + 0.5 * remaining()
            new, legal, bound0, stats = _build_round(problem, cur_hint, options, deadline, stop_event)
            best.append(legal)
            bound = min(bound, bound0 + FLOAT_SLACK)
            if new is None:  # stopped: as if CP-SAT did not run
                break
            built = new
        if stop_event is not None and stop_event.is_set():
            break
        # 2. solve: a short slice first; an improvement restarts with a stronger pruning
        final = final or rebuilds >= MAX_REBUILDS
        slice_s = remaining() if final else min(RESTART_SLICE, remaining())
        max_time = max(slice_s, 1e-3) if np.isfinite(slice_s) else None
        status, status_name, found, cp_bound = _solve_once(
            built, problem, max_time, workers, seed, stop_event, options.linearization_level)
        # 3. extract
        bound = min(bound, cp_bound)
        if found is not None:
            best.append(found)
        if status == cp_model.OPTIMAL:
            optimal_status = True
            break
        if remaining() <= 0 or (stop_event is not None and stop_event.is_set()) or final:
            break
        if found is not None and problem.value_of(found) > built.hint_value + VALUE_TOLERANCE:
            cur_hint = found
            rebuilds += 1
        else:
            final = True
            if found is not None:  # resume from the best solution of this same model
                _set_hint(built, found)

    stats = {**stats, "status": status_name, "chains": 0 if built is None else len(built.chains),
             "rebuilds": rebuilds}
    return _best_result(problem, best, bound, optimal_status, stats, t0)


def _solve_forced(problem: BestResponseProblem, free: list[int], t0: float) -> EngineResult:
    """At most one free slot: the leftover cards fill it (CP-SAT is not run); optimal, bound = value.
    ``t0``: the call's ``time.perf_counter()`` start."""
    packets_l = [int(p) for p in problem.fixed]
    if free:
        packets_l[free[0]] = int(_Lookup(problem.tables.masks)(_free_mask(problem))[0])
    packets_t = tuple(packets_l)
    value = problem.value_of(packets_t)
    trivial: dict[str, object] = {"variables": 0, "pruned_pairs": 0, "status": "TRIVIAL"}
    return EngineResult(packets_t, value, value, True, time.perf_counter() - t0, "cpsat", trivial)


def _build_round(problem: BestResponseProblem, hint: tuple[int, ...] | None, options: CpsatOptions,
                 deadline: float, stop_event: threading.Event | None
                 ) -> tuple[CpsatModel | None, tuple[int, ...], float, dict[str, object]]:
    """1. build: ``build_model`` (``deadline`` a ``time.perf_counter()`` value).  Returns (the
    model — None when stopped —, its legal hint, the pruning bound ``bound0`` in real units,
    a copy of the stats)."""
    try:
        built = build_model(problem, hint, options=options, deadline=deadline, stop_event=stop_event)
    except BuildStopped as stopped:  # the hint and the pruning bound stand
        return None, stopped.hint, stopped.bound0, dict(stopped.stats)
    return built, built.hint, built.bound0, dict(built.stats)


def _best_result(problem: BestResponseProblem, best: list[tuple[int, ...]], bound: float, optimal_status: bool,
                 stats: dict[str, object], t0: float) -> EngineResult:
    """3. extract: the best arrangement seen, its value, the bound (never below the value, real
    units) and ``optimal`` (CP-SAT's OPTIMAL with bound − value ≤ ``VALUE_TOLERANCE``)."""
    packets = max(best, key=problem.value_of)
    value = problem.value_of(packets)
    bound = max(value, bound)
    optimal = optimal_status and bound - value <= VALUE_TOLERANCE
    return EngineResult(packets, value, bound, optimal, time.perf_counter() - t0, "cpsat", stats)


def _set_hint(built: CpsatModel, packets: tuple[int, ...]) -> None:
    """Replace the model's hint by ``packets`` (a solution of this model)."""
    built.model.clear_hints()
    chosen = {(int(packets[s]), s) for s in built.free_slots}
    for k, (p, s) in enumerate(zip(built.pair_packet.tolist(), built.pair_slot.tolist(), strict=True)):
        built.model.add_hint(built.x[k], 1 if (p, s) in chosen else 0)


def _solve_once(built: CpsatModel, problem: BestResponseProblem, max_time: float | None, workers: int,
                seed: int, stop_event: threading.Event | None, linearization_level: int | None
                ) -> tuple[object, str, tuple[int, ...] | None, float]:
    """Solve the built model once.  Returns (status, status name, best arrangement found or
    None, bound in real units — inf when CP-SAT gave none)."""
    solver = cp_model.CpSolver()
    params = solver.parameters
    params.num_workers = max(1, int(workers))
    params.random_seed = int(seed)
    params.log_search_progress = False
    for _k, _v in CPSAT_PARAMS.items():
        setattr(params, _k, _v)
    if linearization_level is not None:
        params.linearization_level = int(linearization_level)
    if max_time is not None:
        params.max_time_in_seconds = float(max_time)

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
    name = solver.status_name(status)
    if status in (cp_model.MODEL_INVALID, cp_model.INFEASIBLE):
        # the canonical hint satisfies every constraint: this is a bug, not an answer
        raise RuntimeError(f"CP-SAT returned {name} on a model its hint satisfies")
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return status, name, None, np.inf  # UNKNOWN: CP-SAT reports a meaningless bound 0
    chosen = [int(p) for p in problem.fixed]
    for k in np.flatnonzero(np.array(solver.boolean_values(built.x), dtype=bool)).tolist():
        chosen[int(built.pair_slot[k])] = int(built.pair_packet[k])
    found = tuple(chosen)
    _check_arrangement(problem, found, "CP-SAT solution")
    # OPT ≤ max(T + ε, fixed + B/K + E⁺)  (module doc)
    b = float(solver.best_objective_bound)
    cp_bound = np.inf
    if np.isfinite(b):
        cp_bound = max(built.prune_T + IMPROVE_EPS, built.fixed_value + b / SCALE + built.err_max) + FLOAT_SLACK
    return status, name, found, cp_bound
