"""Exact best response by branch and bound (numba), with a proof of optimality.

The problem (``problem.BestResponseProblem``): choose one packet per slot, the packets an
exact cover of the live cards, maximizing ``Σ_s V[c(p_s), s]`` where ``c`` is the packet's
rank class and every column ``V[:, s]`` is nondecreasing in the class.

Search
------
Depth-first over slots.  A node has the cards ``U`` not yet used, the free slots ``F`` and
the value ``cur`` of the slots assigned so far.  At a node the engine picks one free slot
and branches on the packet it holds, strongest first; when two free slots remain the ten
cards left are split exhaustively (126 ways × 2 orders), so leaves are exact.

Soundness of every pruning rule
-------------------------------
Let ``LB`` be the incumbent's value; only arrangements worth more than ``LB + TOL``
(``problem.VALUE_TOLERANCE``) are sought, so the search proves that nothing beats the
incumbent by more than ``TOL``.  Every rule below removes only arrangements worth at most
``LB + TOL`` — or, for rule 4, arrangements that are not optimal — so when any arrangement
is worth more than ``LB + TOL``, an optimal one survives every rule and is found.  Each rule
can be switched off (``SearchOptions``); the tests and ``benchmarks/bench_soundness.py``
compare every combination against the plain search, CP-SAT and brute force.

1. *Best-packet bound.*  Let ``h`` be the strongest class of any packet inside ``U``.  Every
   completion puts in each free slot ``t`` a packet inside ``U``, worth at most ``V[h, t]``
   (monotonicity), so a completion is worth at most ``cur + Σ_{t∈F} V[h, t] =: cur + ΣM``.
   A node with ``cur + ΣM ≤ LB + TOL`` holds nothing better: pruned.
2. *Slot thresholds.*  In a completion worth more than ``LB + TOL`` slot ``t`` must be worth
   more than ``need_t = LB + TOL − cur − (ΣM − M_t)`` (the other free slots give at most
   ``ΣM − M_t``), i.e. its packet's class is at least ``k_t``, the least class with
   ``V[k_t, t] > need_t``.  Packets below ``min_t k_t`` can serve no free slot and are
   dropped from the node's candidate list; a node where some ``k_t`` exceeds ``h`` is pruned.
   Descending the tree only raises ``cur`` by at most what ``ΣM`` loses and only shrinks
   ``U``, and ``LB`` only rises, so every ``k_t`` of a descendant is at least its
   ancestor's: a child's list may be filtered from its parent's.
3. *Branch order.*  Candidates of the branching slot ``s`` are scanned strongest first; the
   completions under candidate ``q`` are worth at most ``cur + V[c(q), s] + (ΣM − M_s)``,
   nonincreasing along the scan, so the scan stops at the first candidate where that is
   ``≤ LB + TOL``.  The same quantity over the unscanned candidates of every open level is
   the global upper bound reported when the search is stopped early.
4. *Pairwise slot exchange.*  If an arrangement holds ``p`` in slot ``s`` and ``q`` in slot
   ``t`` with ``V[c(p), s] + V[c(q), t] < V[c(q), s] + V[c(p), t]``, swapping the two packets
   gives a strictly better arrangement, so it is not optimal.  Hence every optimal
   arrangement has no improving exchange between any two free slots, and candidates that
   create one with a packet already placed on the path are skipped (ties are kept).  This
   removes most slot permutations of the same partition.  Fixed slots take no part.
5. *Packing bounds.*  The m free slots hold m disjoint packets inside ``U``.  If no i+1
   pairwise disjoint packets of class ≥ θ exist, the (i+1)-th strongest packet of any
   completion is below θ; ``_class_bounds`` finds such θ's, giving ``H_1 ≥ … ≥ H_m`` with the
   i-th strongest packet ≤ ``H_i``.  By monotonicity a completion is worth at most the best
   assignment of ``H_1..H_m`` to the free slots (a 2^m dynamic program), and the other slots
   of a slot ``t`` at most the best assignment of ``H_1..H_{m−1}`` to them: these replace
   ``ΣM`` and ``ΣM − M_t`` in rules 1–3.  A child's packets are disjoint packets of its
   parent, so the parent's ``H`` also bound the child (used to pre-filter its list).
6. *Card prices (Lagrangian relaxation).*  For any prices ``λ`` on cards, a completion —
   one packet per free slot covering ``U`` exactly — is worth
   ``cur + λ(U) + Σ_t (V[c(p_t), t] − λ(p_t)) ≤ cur + λ(U) + Σ_t m_t``, ``m_t`` the max of
   ``V[c(q), t] − λ(q)`` over every packet ``q`` that may still serve slot ``t`` (inside
   ``U``, class ≥ ``k_t`` by rule 2).  A node whose bound is ``≤ LB + TOL`` is pruned; a
   candidate ``q`` for slot ``s`` is pruned when ``cur + λ(U) − λ(q) + V[c(q), s] +
   Σ_{t≠s} m_t ≤ LB + TOL`` (the same bound for the child, which covers ``U − q``).
   The prices (subgradient steps on the dual) are computed once, after ``card_prices_after``
   nodes (0: at the root); the search then starts again from the root, keeping its
   incumbent, so that every level is set up with prices.  Such a level meets its candidates
   in the slot's price order (``V − λ`` falling), so the candidate bound falls along the scan
   and ends it.  (Until December 2026 the levels already open when the prices arrived read
   zeros as their bound — a "bound" of ``V[c(q), s] − λ(q)`` without ``cur``, ``λ(U)`` or
   the other slots — and pruned optimal arrangements (docs/CHANGELOG.md); pricing them in place was
   sound but kept their scans in class order, up to 50× slower than the restart on smooth
   opponent models.)
7. *Card exchanges (symmetry).*  Let cards ``a`` and ``b`` have the same rank, ``a`` of the
   lower suit, ``a`` in the packet ``P`` of free slot ``s`` and ``b`` in the packet ``Q`` of
   free slot ``t``.  If ``P − a + b`` has the class of ``P`` and ``Q − b + a`` that of ``Q``
   (looked up, so flushes, colours and jokers are respected), exchanging the two cards keeps
   every slot's class — the value, and every class-based rule — and changes
   ``Φ = Σ_cards suit · slot`` by ``(suit(b) − suit(a))(s − t)``.  Repeating exchanges with
   ``s > t`` raises Φ, so it ends, in an arrangement with the same classes where no such
   pair has ``s > t``.  Applied to an optimal arrangement that gives an optimal one (so
   rule 4 keeps it), worth as much (so rules 1–3, 5, 6 keep it) — so candidates forming
   such a pair with a packet placed earlier on the path are skipped.

Excluded plans
--------------
``solve_search(…, banned=…)`` seeks the best arrangement whose *plan* (the hand category of
each slot) is none of the banned ones — the second-best plan, the third (``solver.advisor.advice``'s
``top``).  The bounds of rules 1–3, 5 and 6 bound a superset of those arrangements, so they stay
sound; rule 7 keeps every slot's class, so the arrangement it leads to has the same plan; rule 4
exchanges packets between slots — the better arrangement it points to may be banned — so it is
off while plans are banned.  A leaf (two free slots) keeps only the splits whose plan, with
the path's and the fixed slots', is not banned.  With nothing banned the kernel takes the
plain leaf, and the search runs as without the option.

The search is resumable: its stack lives in numpy arrays, each call of the kernel runs at
most ``budget`` nodes, and the Python driver checks the time limit and a stop event (Ctrl-C)
between calls, so a stopped search still returns its incumbent and a sound bound.

Kernel state is passed as named tuples of arrays: ``_Packets`` (the deal's packets sorted
strongest first, read-only), ``_Stack`` (one row per search level), ``_Prices`` (rule 6),
``_Incumbent``, ``_Switches`` (which rules are on) and ``_Scratch`` (the helpers' working arrays); a
level's node (free cards U, free slots F, value so far) is read from the stack, not passed.

Compilation is the first run's cost (numba caches it on disk after), so the kernels are laid
out to compile fast: helpers are functions of their own, not inlined into ``_run`` (the two
level set-ups would be compiled twice); kernels called only from kernels get no Python entry
point (``_inner``); integer constants passed to kernels are int64 values (``ZERO``, ``ONE``), not
literals, which numba would compile a second specialisation for; and arrays are copied by loops,
not slice assignment, whose shape-mismatch message alone compiles numba's string formatting.
"""

from __future__ import annotations

import threading
import time
from collections import namedtuple
from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np
from numba import njit

from quintet.kernels import NO_WRAPPERS
from solver.engines.base import HintError, check_hint
from solver.problem.best_response import VALUE_TOLERANCE, BestResponseProblem, EngineResult
from solver.problem.deal_tables import DealTables
from solver.problem.packet_index import build_packet_index, packet_index, specimen_index

# packet_index is compiled into these kernels, and numba re-checks only this file before using its cache: a
# change to packet_index.py (bit 63, draw54's second joker) goes with a change here
__all__ = ["SearchOptions", "PLAIN", "solve_search", "class_categories", "NoArrangementError"]

TOL = VALUE_TOLERANCE
NO_VALUE = -1e300  # below every arrangement's value
EXCHANGE_TOL = 1e-12  # rule 4 skips an exchange only if it improves by more than this (float noise)
PREFIX = 256  # members per level kept in class order for rule 5
PRICE_PROBES = 128  # positions of a slot's price order tried before scanning the members
# Integer constants passed to other kernels (a literal argument, ``f(0)``, is typed Literal[int](0)
# and compiles the callee once more for it).
ZERO = np.int64(0)
ONE = np.int64(1)
_PACKING_WORK = 13  # int64 scratch of rule 5's packing tests: a step count, 6 positions, 6 masks


@dataclass(frozen=True)
class SearchOptions:
    """Which pruning rules of the module doc the search applies (all on by default).

    Switching rules off never changes the answer, only the time: the soundness tests
    compare the combinations.  With rules 1 and 3 both off nothing is pruned by value —
    a brute force over every arrangement, usable only with few free slots.
    """

    best_packet_bound: bool = True  # rule 1
    slot_thresholds: bool = True  # rule 2
    branch_order: bool = True  # rule 3
    exchange: bool = True  # rule 4
    packing_bounds: bool = True  # rule 5
    card_prices: bool = True  # rule 6
    card_exchanges: bool = True  # rule 7
    card_prices_after: int = 1_000  # nodes searched before rule 6 starts (0: from the root)
    card_price_iters: int = 100  # subgradient steps for the prices
    packing_cap: int = 200  # steps per packing test of rule 5 (undecided tests bound softly)


PLAIN = SearchOptions(slot_thresholds=False, exchange=False, packing_bounds=False, card_prices=False,
                      card_exchanges=False)
"""Only the plain branch-and-bound rules (1 and 3): the reference the others are checked against."""

_Packets = namedtuple("_Packets", "masks cls orig cards ix card_rank card_suit contains class_end")
_Packets.__doc__ = """The deal's packets sorted strongest first, and lookups (read-only in the kernels).

masks, cls, orig, cards: per sorted packet its card mask, rank class, index in the packet table
and five card bits; ix: the deal's ``packet_index.PacketIndex`` (a mask of live cards → its table
index, and the class by table index: ``ix.table_cls``), the one the local search uses too, so that
``packet_index`` is compiled once;
card_rank, card_suit: per card bit (rule 7; jokers get ranks of their own); contains[b]: bit set
over sorted positions (64 per int64 word) of the packets holding card b; class_end[c]: how many
sorted packets have class ≥ c."""

_Stack = namedtuple("_Stack", "U F cur slot pos end k others pick cut H prefix depth member floor")
_Stack.__doc__ = """The search stack, one row per level d (a node and its candidate scan).

U, F, cur: the node's free cards, free slots (bit set) and value so far; slot: the slot it
branches on; member[d]: bit set of the sorted packets inside U (exact in the words below
class_end[floor[d]]; floor[d]: the least class that can help, rule 2); pos: where the scan of
candidates resumes — a sorted position (class order, up to end[d]) or, on a level with card
prices, an index into the slot's price order; k[d, t]: the least class free slot t can use (rule 2);
others: bound on the other free slots (rule 3); pick: the candidate being explored; cut: the
least class any free slot can use (rule 2); H[d]: class bounds of rule 5; prefix[d]: the first
members in class order (rule 5 reads them); depth[0]: the deepest open level (−2 before the root
is set up, −1 when done)."""

_Prices = namedtuple("_Prices", "on card packet level_on level_total level_max order order_len")
_Prices.__doc__ = """Rule 6: on[0] once prices exist; card[b], packet[q] = λ(q); per level d that
priced (level_on[d] = 1): level_total[d] = cur + λ(U) + Σ_t m_t and
level_max[d, t] = m_t; order[t, :order_len[t]]: the sorted packets that slot t may ever use
(class ≥ its threshold at the root, rule 2) by V[c(q), t] − λ(q), largest first (so m_t is the
first member of the node met in that order, and the rule-6 bound falls along it): a level set
up with prices scans its candidates in that order, the others by class."""

_Incumbent = namedtuple("_Incumbent", "value packets")
_Incumbent.__doc__ = "The best arrangement so far: value[0] and its table indices per slot."

_Scratch = namedtuple("_Scratch", "bounds dp packing thresholds leaf_pos leaf_bit")
_Scratch.__doc__ = """Working arrays of the helpers, allocated once per ``_run`` call: bounds — the class bounds
H_1..H_m of the node being set up (rule 5), copied to ``_Stack.H``; dp — ``_assign_best``'s 2^slots
table; packing — rule 5's packing tests (``_PACKING_WORK`` entries); thresholds — the least class
each free slot can use (rule 2); leaf_pos, leaf_bit — ``_leaf2``'s ten cards."""

_Ban = namedtuple("_Ban", "cat plans plan rows")
_Ban.__doc__ = """Excluded plans (the module doc): cat[c], the category id of rank class c; plans[i], the i-th banned
plan (a category id per slot; no rows: nothing banned); plan, rows: scratch — the categories of a leaf's
other slots, and the banned rows that match them."""

_Switches = namedtuple("_Switches", "best_packet thresholds branch_order exchange packing packing_cap card_exchanges")
_Switches.__doc__ = "SearchOptions as integers for the kernels (1 = rule on)."

STAT_NODES, STAT_LEAVES, STAT_IMPROVEMENTS = 0, 1, 2

# Kernels called only from other kernels: no Python entry point (see quintet.kernels.NO_WRAPPERS).
_inner = njit(cache=True, nogil=True, **NO_WRAPPERS)
_inner_inline = njit(cache=True, nogil=True, inline="always", **NO_WRAPPERS)


@_inner
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


_DEBRUIJN = np.int64(0x03F79D71B4CB0A89)
_DEBRUIJN_TABLE = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_TABLE[((1 << _i) * 0x03F79D71B4CB0A89 % (1 << 64)) >> 58] = _i


@_inner
def _lowest_bit(x):
    """Index of the lowest set bit of a nonzero int64 (de Bruijn multiplication)."""
    return _DEBRUIJN_TABLE[((x & -x) * _DEBRUIJN >> 58) & 63]


@_inner
def _two_slots(F, n_slots):
    """The two slots of a two-slot set ``F`` (lower first)."""
    s1 = -1
    s2 = -1
    for t in range(n_slots):
        if F >> t & 1:
            if s1 < 0:
                s1 = t
            else:
                s2 = t
    return s1, s2


@_inner
def _first_class_above(v_col, need):
    """Least class r with v_col[r] > need (len(v_col) when none); v_col nondecreasing."""
    lo = 0
    hi = v_col.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if v_col[mid] > need:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _split_patterns() -> np.ndarray:
    """The 126 ways to choose the other four of position 0's packet among ten positions."""
    rows = []
    for rest in combinations(range(1, 10), 4):
        a = (0, *rest)
        b = tuple(i for i in range(10) if i not in a)
        rows.append(a + b)
    return np.array(rows, dtype=np.int64)


_SPLITS = _split_patterns()


@_inner
def _leaf2(U, s1, s2, cur, V, ix, pos, bit):
    """Best split of the 10 cards ``U`` into slots s1, s2 (``ix``: the ``PacketIndex``; ``pos``,
    ``bit``: int64[10] scratch).  Returns (value, mask for s1)."""
    n = 0
    for b in range(64):
        if U >> b & 1:
            pos[n] = ix.live_pos[b]
            bit[n] = np.int64(1) << b
            n += 1
    best_val = NO_VALUE
    best_a = np.int64(0)
    for j in range(_SPLITS.shape[0]):
        ra = 0
        rb = 0
        ma = np.int64(0)
        for i in range(5):
            ra += ix.binom[pos[_SPLITS[j, i]], i + 1]
            rb += ix.binom[pos[_SPLITS[j, 5 + i]], i + 1]
            ma |= bit[_SPLITS[j, i]]
        ca = ix.table_cls[ix.colex_to_lex[ra]]
        cb = ix.table_cls[ix.colex_to_lex[rb]]
        v1 = V[ca, s1] + V[cb, s2]
        v2 = V[cb, s1] + V[ca, s2]
        if v1 >= v2:
            if v1 > best_val:
                best_val = v1
                best_a = ma
        elif v2 > best_val:
            best_val = v2
            best_a = U ^ ma
    return cur + best_val, best_a


@_inner
def _allowed(ban, n_rows, s1, c1, s2, c2):
    """Is class c1 in slot s1 and c2 in slot s2 outside the first ``n_rows`` of ``ban.rows``
    (the banned plans that match the leaf's other slots)?"""
    for i in range(n_rows):
        row = ban.plans[ban.rows[i]]
        if row[s1] == ban.cat[c1] and row[s2] == ban.cat[c2]:
            return False
    return True


@_inner
def _leaf2_banned(U, s1, s2, cur, V, ix, pos, bit, ban, n_rows):
    """``_leaf2`` keeping only the splits whose plan is not banned (``ban.rows[:n_rows]``: the
    banned plans matching the other slots).  Returns (NO_VALUE, 0) when every split is banned."""
    n = 0
    for b in range(64):
        if U >> b & 1:
            pos[n] = ix.live_pos[b]
            bit[n] = np.int64(1) << b
            n += 1
    best_val = NO_VALUE
    best_a = np.int64(0)
    for j in range(_SPLITS.shape[0]):
        ra = 0
        rb = 0
        ma = np.int64(0)
        for i in range(5):
            ra += ix.binom[pos[_SPLITS[j, i]], i + 1]
            rb += ix.binom[pos[_SPLITS[j, 5 + i]], i + 1]
            ma |= bit[_SPLITS[j, i]]
        ca = ix.table_cls[ix.colex_to_lex[ra]]
        cb = ix.table_cls[ix.colex_to_lex[rb]]
        v1 = V[ca, s1] + V[cb, s2]
        if v1 > best_val and _allowed(ban, n_rows, s1, ca, s2, cb):
            best_val = v1
            best_a = ma
        v2 = V[cb, s1] + V[ca, s2]
        if v2 > best_val and _allowed(ban, n_rows, s1, cb, s2, ca):
            best_val = v2
            best_a = U ^ ma
    if best_val == NO_VALUE:
        return NO_VALUE, np.int64(0)
    return cur + best_val, best_a


@_inner
def _leaf_banned(U, s1, s2, cur, V, pk, scratch, ban, d, st, fixed):
    """The best split of a leaf (``_leaf2``) whose plan is not banned; the leaf's other slots
    are the fixed ones and the picks of levels 0..d (d = −1: the root).  The plain ``_leaf2``
    when no banned plan matches those other slots."""
    for t in range(fixed.shape[0]):
        ban.plan[t] = -1 if fixed[t] < 0 else ban.cat[pk.ix.table_cls[fixed[t]]]
    for e in range(d + 1):
        ban.plan[st.slot[e]] = ban.cat[pk.cls[st.pick[e]]]
    n_rows = 0
    for i in range(ban.plans.shape[0]):
        match = True
        for t in range(fixed.shape[0]):
            if t != s1 and t != s2 and ban.plans[i, t] != ban.plan[t]:
                match = False
                break
        if match:
            ban.rows[n_rows] = i
            n_rows += 1
    if n_rows == 0:
        return _leaf2(U, s1, s2, cur, V, pk.ix, scratch.leaf_pos, scratch.leaf_bit)
    return _leaf2_banned(U, s1, s2, cur, V, pk.ix, scratch.leaf_pos, scratch.leaf_bit, ban, n_rows)


@_inner
def _is_banned(ban, classes):
    """Is the plan of a whole arrangement (its rank class per slot) banned?"""
    for i in range(ban.plans.shape[0]):
        match = True
        for t in range(classes.shape[0]):
            if ban.plans[i, t] != ban.cat[classes[t]]:
                match = False
                break
        if match:
            return True
    return False


@_inner
def _packing_exists(lst, n, count, base, masks, cap, steps, idx, used):
    """Are there ``count`` pairwise disjoint packets among ``lst[:n]``, all disjoint from
    the mask ``base``?  Returns 1 (yes), 0 (no) or −1 (undecided after ``cap`` steps, counted in
    ``steps[0]``).  ``idx``, ``used``: int64 scratch of at least ``count`` entries."""
    if count == 0:
        return 1
    idx[0] = 0
    depth = 0
    used[0] = base
    while depth >= 0:
        i = idx[depth]
        if i >= n:
            depth -= 1
            if depth >= 0:
                idx[depth] += 1
            continue
        steps[0] += 1
        if steps[0] > cap:
            return -1
        m = masks[lst[i]]
        if m & used[depth] == 0:
            if depth + 1 == count:
                return 1
            used[depth + 1] = used[depth] | m
            idx[depth + 1] = i + 1
            depth += 1
        else:
            idx[depth] = i + 1
    return 0


@_inner
def _class_bounds(lst, n, complete, masks, cls, m, floor, H, cap, work):
    """Upper bounds ``H[0] ≥ … ≥ H[m−1]`` on the classes, strongest first, of any m
    disjoint packets of the node (rule 5).

    ``lst[:n]`` holds, strongest first, the node's first packets of class ≥ ``floor`` — all
    of them when ``complete``.  For i+1 packets the scan looks for the first position j such
    that ``lst[j]`` and i earlier packets are pairwise disjoint.  Any i+1 disjoint packets of
    the node have a last one in list order, at some position j' ≥ j, whose class is their
    least (the list is sorted), so their (i+1)-th strongest class is ≤ ``class(lst[j]) =:
    H[i]``.  When the step budget ``cap`` runs out at j the same holds.  When no j < n
    exists, j' ≥ n: the (i+1)-th packet is below ``floor`` if the list is complete, else at
    most ``class(lst[n − 1])``.  The scan for i+1 resumes where the scan for i stopped: a
    position without i disjoint partners before it has no i+1 either.  ``work``: int64 scratch
    (``_PACKING_WORK`` entries).
    """
    steps = work[0:1]
    idx = work[1:7]
    used = work[7:13]
    steps[0] = 0
    low = max(floor - 1, 0) if complete else cls[lst[n - 1]]
    H[0] = cls[lst[0]]
    j = ONE
    for i in range(1, m):
        while j < n:
            res = _packing_exists(lst, j, i, masks[lst[j]], masks, cap, steps, idx, used)
            if res != 0:
                break
            j += 1
        H[i] = cls[lst[j]] if j < n else low


@_inner
def _assign_best(V, H, count, slots_mask, n_slots, dp):
    """max over injective maps j → slot ∈ slots_mask of Σ_{j<count} V[H[j], slot]
    (``dp``: float64 scratch of 2^n_slots entries)."""
    size = 1 << n_slots
    for mask in range(size):
        dp[mask] = NO_VALUE
    dp[0] = 0.0
    best = NO_VALUE
    for mask in range(size):
        if dp[mask] <= NO_VALUE or mask & ~slots_mask:
            continue
        j = _popcount(mask)
        if j == count:
            if dp[mask] > best:
                best = dp[mask]
            continue
        for t in range(n_slots):
            if slots_mask >> t & 1 and not mask >> t & 1:
                v = dp[mask] + V[H[j], t]
                if v > dp[mask | (1 << t)]:
                    dp[mask | (1 << t)] = v
    return best


@_inner_inline
def _remove_packet(member, out, pk, q, words):
    """out[:words] = the members of ``member`` disjoint from packet q."""
    c0 = pk.contains[pk.cards[q, 0]]
    c1 = pk.contains[pk.cards[q, 1]]
    c2 = pk.contains[pk.cards[q, 2]]
    c3 = pk.contains[pk.cards[q, 3]]
    c4 = pk.contains[pk.cards[q, 4]]
    for w in range(words):
        out[w] = member[w] & ~(c0[w] | c1[w] | c2[w] | c3[w] | c4[w])


@_inner
def _next_member(member, pos, end):
    """The first position ≥ pos and < end whose bit is set in ``member`` (end when none)."""
    w = pos >> 6
    if pos >= end:
        return end
    x = member[w] & (np.int64(-1) << (pos & 63))
    while True:
        if x != 0:
            i = (w << 6) + _lowest_bit(x)
            return i if i < end else end
        w += 1
        if w << 6 >= end:
            return end
        x = member[w]


@_inner
def _price_level(level, V, pk, st, pr):
    """Rule 6 at ``level`` (its node: free cards U, free slots F, value cur in ``st``): fills
    pr.level_max[level] and returns cur + λ(U) + Σ_t m_t, each m_t over the members that can
    serve slot t (class ≥ st.k[level, t])."""
    d = level
    U, F = st.U[d], st.F[d]
    total = st.cur[d]
    for b in range(64):
        if U >> b & 1:
            total += pr.card[b]
    for t in range(V.shape[1]):
        if F >> t & 1:
            kt = st.k[d, t]
            top = NO_VALUE
            found = False
            for j in range(min(PRICE_PROBES, pr.order_len[t])):  # the first member in t's price order
                q = pr.order[t, j]
                if pk.cls[q] >= kt and st.member[d, q >> 6] >> (q & 63) & 1:
                    top = V[pk.cls[q], t] - pr.packet[q]
                    found = True
                    break
            if not found:  # every member that can serve t, in class order
                kend = pk.class_end[kt]
                q = _next_member(st.member[d], ZERO, kend)
                while q < kend:
                    v = V[pk.cls[q], t] - pr.packet[q]
                    if v > top:
                        top = v
                    q = _next_member(st.member[d], q + 1, kend)
            pr.level_max[d, t] = top
            total += top
    return total


@_inner
def _setup_level(level, floor, V, pk, st, pr, sw, best, scratch):
    """Prepare ``level`` for its node (``st.U``, ``st.F``, ``st.cur`` at that level: the free
    cards, free slots and value so far) against the incumbent's value ``best``: bounds,
    thresholds, branching slot, candidates (``scratch``: ``_Scratch``).

    ``st.member[level]`` holds the packets inside U (exact for classes ≥ ``floor``), and no class
    below ``floor`` can help this node (rule 2).  Candidates are the members that can serve
    the branching slot, met strongest first (class order) or, once the level has card prices,
    in the slot's price order so that rule 6 ends the scan.  Returns False when the node is
    pruned (rules 1, 2, 5, 6).
    """
    d = level
    F, cur = st.F[d], st.cur[d]
    H, dp, k_of = scratch.bounds, scratch.dp, scratch.thresholds
    n_slots = V.shape[1]
    for t in range(n_slots):
        k_of[t] = 0
    out = st.prefix[d]
    limit = out.shape[0]
    end = pk.class_end[floor]
    n = 0
    pos = _next_member(st.member[d], ZERO, end)
    while pos < end and n < limit:
        out[n] = pos
        n += 1
        pos = _next_member(st.member[d], pos + 1, end)
    complete = pos >= end
    st.floor[d] = floor
    if n == 0:
        return False
    target = best + TOL
    m = _popcount(F)
    if sw.packing:
        _class_bounds(out, n, complete, pk.masks, pk.cls, m, floor, H, sw.packing_cap, scratch.packing)
    else:
        for i in range(m):
            H[i] = pk.cls[out[0]]
    if sw.best_packet and cur + _assign_best(V, H, m, F, n_slots, dp) <= target:
        return False
    h = H[0]
    cutoff = h + 1
    slot = -1
    slot_k = -1
    slot_others = 0.0
    for t in range(n_slots):
        if F >> t & 1:
            others = _assign_best(V, H, m - 1, F & ~(1 << t), n_slots, dp)
            k = _first_class_above(V[:, t], target - cur - others)
            if sw.thresholds:
                if k > h:
                    return False
                k_of[t] = k
            if k < cutoff:
                cutoff = k
            if k > slot_k or (k == slot_k and V[h, t] > V[h, slot]):
                slot_k = k
                slot = t
                slot_others = others
    if not sw.thresholds:
        cutoff = 0
    for t in range(n_slots):
        st.k[d, t] = max(k_of[t], floor)
    pr.level_on[d] = 0
    if pr.on[0]:  # rule 6
        total = _price_level(d, V, pk, st, pr)
        if total <= target:
            return False
        pr.level_total[d] = total
        pr.level_on[d] = 1
    st.slot[d] = slot
    st.end[d] = pk.class_end[max(cutoff, floor)]
    st.pos[d] = 0
    st.others[d] = slot_others
    st.cut[d] = cutoff
    for i in range(m):
        st.H[d, i] = H[i]
    return True


@_inner
def _card_order_broken(q, s, d, st, pk):
    """Rule 7: does candidate q in slot s form an exchangeable same-rank pair, lower suit in
    the higher slot, with a packet placed at levels 0..d−1?"""
    mq = pk.masks[q]
    cq = pk.cls[q]
    for e in range(d):
        t = st.slot[e]
        r = st.pick[e]
        for i in range(5):
            x = pk.cards[q, i]
            for j in range(5):
                y = pk.cards[r, j]
                if pk.card_rank[x] != pk.card_rank[y]:
                    continue
                if (pk.card_suit[x] < pk.card_suit[y]) != (s > t):
                    continue  # the lower suit already sits in the lower slot
                swap = (np.int64(1) << x) | (np.int64(1) << y)
                if (pk.ix.table_cls[packet_index(mq ^ swap, pk.ix)] == cq
                        and pk.ix.table_cls[packet_index(pk.masks[r] ^ swap, pk.ix)] == pk.cls[r]):
                    return True
    return False


@_inner
def _improve(inc, value, d, st, pk, fixed):
    """Record a new incumbent: the path's picks at levels 0..d plus the fixed slots."""
    inc.value[0] = value
    for t in range(fixed.shape[0]):
        inc.packets[t] = fixed[t]
    for e in range(d + 1):
        inc.packets[st.slot[e]] = pk.orig[st.pick[e]]


@_inner
def _solve_small_root(V, pk, st, inc, fixed, ban, scratch):
    """The root with at most two free slots: solved directly (its plan not banned)."""
    n_slots = V.shape[1]
    U = st.U[0]
    F = st.F[0]
    value = st.cur[0]
    chosen = fixed.copy()
    if _popcount(F) == 2:
        s1, s2 = _two_slots(F, n_slots)
        if ban.plans.shape[0] == 0:
            value, a = _leaf2(U, s1, s2, value, V, pk.ix, scratch.leaf_pos, scratch.leaf_bit)
        else:
            value, a = _leaf_banned(U, s1, s2, value, V, pk, scratch, ban, -ONE, st, fixed)
            if value == NO_VALUE:
                return
        chosen[s1] = packet_index(a, pk.ix)
        chosen[s2] = packet_index(U ^ a, pk.ix)
    elif _popcount(F) == 1:
        for t in range(n_slots):
            if F >> t & 1:
                chosen[t] = packet_index(U, pk.ix)
                value += V[pk.ix.table_cls[chosen[t]], t]
    if ban.plans.shape[0] > 0:
        classes = np.empty(n_slots, dtype=np.int64)
        for t in range(n_slots):
            classes[t] = pk.ix.table_cls[chosen[t]]
        if _is_banned(ban, classes):
            return
    if value > inc.value[0] + TOL:
        inc.value[0] = value
        for t in range(n_slots):
            inc.packets[t] = chosen[t]


@_inner_inline
def _next_candidate(d, s, V, pk, st, pr, target):
    """The next candidate of level d for slot s, or −1 when its scan is over (rules 3, 6)."""
    if pr.level_on[d]:  # price order: the rule-6 bound is nonincreasing, so it ends the scan
        base = pr.level_total[d] - pr.level_max[d, s]
        j = st.pos[d]
        n = pr.order_len[s]
        while j < n:
            q = pr.order[s, j]
            if base + V[pk.cls[q], s] - pr.packet[q] <= target:
                break
            j += 1
            if pk.cls[q] >= st.k[d, s] and st.member[d, q >> 6] >> (q & 63) & 1:
                st.pos[d] = j
                return q
        st.pos[d] = n
        return -1
    q = _next_member(st.member[d], st.pos[d], st.end[d])
    if q >= st.end[d]:
        st.pos[d] = q
        return -1
    st.pos[d] = q + 1
    return q


@njit(cache=True, nogil=True)
def _run(V, pk, fixed, st, pr, sw, inc, budget, stats, ban):
    """Run at most ``budget`` nodes of the search from the saved stack (``ban``: the excluded
    plans, ``_Ban``; no rows: none).

    Returns 0 when the search is complete (incumbent optimal), 1 when paused.
    """
    n_slots = V.shape[1]
    # scratch for the helpers, allocated once per call rather than at every node
    scratch = _Scratch(np.zeros(n_slots, dtype=np.int64), np.empty(1 << n_slots),
                       np.empty(_PACKING_WORK, dtype=np.int64), np.empty(n_slots, dtype=np.int64),
                       np.empty(10, dtype=np.int64), np.empty(10, dtype=np.int64))
    nodes = 0
    d = st.depth[0]
    if d == -2:  # fresh start: set up the root
        if _popcount(st.F[0]) <= 2:
            _solve_small_root(V, pk, st, inc, fixed, ban, scratch)
            st.depth[0] = -1
            return 0
        ok = _setup_level(ZERO, ZERO, V, pk, st, pr, sw, inc.value[0], scratch)
        d = 0 if ok else -1
    while d >= 0:
        if nodes >= budget:
            st.depth[0] = d
            stats[STAT_NODES] += nodes
            return 1
        s = st.slot[d]
        cur = st.cur[d]
        target = inc.value[0] + TOL
        q = _next_candidate(d, s, V, pk, st, pr, target)
        if q < 0:
            d -= 1
            continue
        c = pk.cls[q]
        if sw.branch_order and cur + V[c, s] + st.others[d] <= target:  # rule 3
            if pr.level_on[d]:
                continue  # price order: this one only
            st.pos[d] = st.end[d]  # class order: nothing further can help
            d -= 1
            continue
        if sw.exchange:  # rule 4: no improving exchange with a packet placed earlier on the path
            dominated = False
            for e in range(d):
                t = st.slot[e]
                ce = pk.cls[st.pick[e]]
                if V[c, s] + V[ce, t] < V[ce, s] + V[c, t] - EXCHANGE_TOL:
                    dominated = True
                    break
            if dominated:
                continue
        if sw.card_exchanges and _card_order_broken(q, s, d, st, pk):  # rule 7
            continue
        nodes += 1
        st.pick[d] = q
        U2 = st.U[d] & ~pk.masks[q]
        F2 = st.F[d] & ~(1 << s)
        cur2 = cur + V[c, s]
        if _popcount(F2) == 2:
            s1, s2 = _two_slots(F2, n_slots)
            if sw.best_packet or sw.thresholds:
                # the strongest useful packet left (rule 2: members below the level's end
                # cannot serve a free slot); rule 1: both slots at most its class
                end = st.end[d]
                h = -1
                for w in range((end + 63) >> 6):
                    x = st.member[d, w] & ~(pk.contains[pk.cards[q, 0], w] | pk.contains[pk.cards[q, 1], w]
                                            | pk.contains[pk.cards[q, 2], w] | pk.contains[pk.cards[q, 3], w]
                                            | pk.contains[pk.cards[q, 4], w])
                    if x != 0:
                        i = (w << 6) + _lowest_bit(x)
                        if i < end:
                            h = pk.cls[i]
                        break
                if h < 0 or (sw.best_packet and cur2 + V[h, s1] + V[h, s2] <= target):
                    continue
            if ban.plans.shape[0] == 0:
                value, a = _leaf2(U2, s1, s2, cur2, V, pk.ix, scratch.leaf_pos, scratch.leaf_bit)
            else:
                value, a = _leaf_banned(U2, s1, s2, cur2, V, pk, scratch, ban, d, st, fixed)
            stats[STAT_LEAVES] += 1
            if value > target:
                _improve(inc, value, d, st, pk, fixed)
                inc.packets[s1] = packet_index(a, pk.ix)
                inc.packets[s2] = packet_index(U2 ^ a, pk.ix)
                stats[STAT_IMPROVEMENTS] += 1
            continue
        floor = st.floor[d]
        if sw.thresholds:
            # rule 2 for the child with the parent's class bounds (the child's packets are
            # disjoint packets of the parent's node): no class below `low` can help it
            m2 = _popcount(F2)
            low = st.H[d, 0] + 1
            for t in range(n_slots):
                if F2 >> t & 1:
                    others = _assign_best(V, st.H[d], m2 - 1, F2 & ~(1 << t), n_slots, scratch.dp)
                    k = _first_class_above(V[:, t], target - cur2 - others)
                    if k < low:
                        low = k
            if low > st.H[d, 0]:
                continue
            floor = max(floor, low, st.cut[d])
        _remove_packet(st.member[d], st.member[d + 1], pk, q, (pk.class_end[floor] + 63) >> 6)
        st.U[d + 1] = U2
        st.F[d + 1] = F2
        st.cur[d + 1] = cur2
        if _setup_level(d + 1, floor, V, pk, st, pr, sw, inc.value[0], scratch):
            d += 1
    st.depth[0] = -1
    stats[STAT_NODES] += nodes
    return 0


@njit(cache=True, nogil=True)
def _open_bound(V, pk, st, pr):
    """Upper bound on every arrangement not yet examined (rules 3 and 6), NO_VALUE when none
    is open: per open level, the bound of its next position in its scan order."""
    bound = NO_VALUE
    for d in range(st.depth[0] + 1):
        s = st.slot[d]
        if pr.level_on[d]:
            if st.pos[d] < pr.order_len[s]:
                q = pr.order[s, st.pos[d]]
                b = pr.level_total[d] - pr.level_max[d, s] + V[pk.cls[q], s] - pr.packet[q]
                if b > bound:
                    bound = b
        elif st.pos[d] < st.end[d]:
            b = st.cur[d] + V[pk.cls[st.pos[d]], s] + st.others[d]
            if b > bound:
                bound = b
    return bound


@njit(cache=True, nogil=True)
def _card_prices(pk, lst, V, live, iters, pr):
    """Card prices λ for rule 6 by subgradient descent on the Lagrangian dual.

    For any prices, Σ_{c∈U} λ_c + Σ_{t∈F} max_p (V[c(p), t] − λ(p)) bounds every cover of
    U by one packet per free slot (weak duality), so the prices only need to be good, not
    optimal: the best prices seen over ``iters`` steps (over the packets ``lst``) are
    kept in ``pr.card``, and ``pr.packet[q] = λ(q)`` for every sorted packet q.
    """
    n_slots = V.shape[1]
    lam = np.zeros(64)
    g = np.zeros(64)
    n = lst.shape[0]
    # the packets' cards and classes gathered once, so that each step is one pass over them
    cards_l = np.empty((n, 5), dtype=np.int64)
    cls_l = np.empty(n, dtype=np.int64)
    for i in range(n):
        q = lst[i]
        cls_l[i] = pk.cls[q]
        for j in range(5):
            cards_l[i, j] = pk.cards[q, j]
    top = np.empty(n_slots)
    arg = np.empty(n_slots, dtype=np.int64)
    best_bound = 1e300
    scale = 0.0
    for t in range(n_slots):
        scale = max(scale, V[V.shape[0] - 1, t] - V[0, t])
    step0 = 0.04 * scale + 1e-12
    cards = pk.cards
    for it in range(iters):
        bound = 0.0
        for b in range(64):
            g[b] = 0.0
            if live >> b & 1:
                g[b] = 1.0
                bound += lam[b]
        for t in range(n_slots):
            top[t] = NO_VALUE
            arg[t] = -1
        for i in range(n):
            price = (lam[cards_l[i, 0]] + lam[cards_l[i, 1]] + lam[cards_l[i, 2]] + lam[cards_l[i, 3]]
                     + lam[cards_l[i, 4]])
            c = cls_l[i]
            for t in range(n_slots):
                v = V[c, t] - price
                if v > top[t]:
                    top[t] = v
                    arg[t] = i
        for t in range(n_slots):
            bound += top[t]
            for j in range(5):
                g[cards_l[arg[t], j]] -= 1.0
        if bound < best_bound:
            best_bound = bound
            for b in range(64):
                pr.card[b] = lam[b]
        step = step0 / np.sqrt(it + 1.0)
        for b in range(64):
            lam[b] -= step * g[b]
    for q in range(cards.shape[0]):
        pr.packet[q] = (pr.card[cards[q, 0]] + pr.card[cards[q, 1]] + pr.card[cards[q, 2]]
                        + pr.card[cards[q, 3]] + pr.card[cards[q, 4]])
    pr.on[0] = 1
    return best_bound


@njit(cache=True, nogil=True)
def _packet_cards(masks):
    """The five card bits of each 5-card mask, increasing: int64 (P, 5)."""
    out = np.empty((masks.shape[0], 5), dtype=np.int64)
    for i in range(masks.shape[0]):
        m = masks[i]
        j = 0
        for b in range(64):
            if m >> b & 1:
                out[i, j] = b
                j += 1
    return out


def _packets(tables: DealTables) -> _Packets:
    masks = tables.masks.astype(np.int64)
    order = np.argsort(-tables.classes, kind="stable").astype(np.int32)
    index = tables.derived("packet index", build_packet_index)
    sorted_masks = masks[order]
    deck = tables.rules.deck
    card_rank = np.array([deck.rank_of(b) for b in range(64)], dtype=np.int64)
    card_suit = np.array([deck.suit_of(b) for b in range(64)], dtype=np.int64)
    wild = list(deck.joker_cards) + ([deck.alias_card] if deck.joker_alias else [])
    for i, joker in enumerate(wild):
        card_rank[joker] = 100 + i
    sorted_cls = tables.classes[order].astype(np.int32)
    cards = _packet_cards(sorted_masks)
    n = len(order)
    contains = np.zeros((64, (n + 63) // 64), dtype=np.int64)
    _fill_contains(cards, contains)
    class_end = np.searchsorted(-sorted_cls, -np.arange(tables.n_classes + 2), side="right").astype(np.int64)
    return _Packets(sorted_masks, sorted_cls, order, cards, index, card_rank, card_suit, contains, class_end)


@njit(cache=True, nogil=True)
def _fill_contains(cards, contains):
    """contains[b]: bit i set iff sorted packet i holds card b."""
    for i in range(cards.shape[0]):
        for j in range(5):
            contains[cards[i, j], i >> 6] |= np.int64(1) << (i & 63)


def _price_order(pk: _Packets, V: np.ndarray, pr: _Prices, k_root: np.ndarray) -> None:
    """pr.order[t]: the packets of class ≥ k_root[t] by V[c(q), t] − λ(q), largest first."""
    for t in range(V.shape[1]):
        n = int(pk.class_end[k_root[t]])
        pr.order[t, :n] = np.argsort(pr.packet[:n] - V[pk.cls[:n], t], kind="stable")
        pr.order_len[t] = n


class NoArrangementError(LookupError):
    """Every arrangement's plan is banned (``solve_search``'s ``banned``): there is no next plan."""


def class_categories(tables: DealTables) -> np.ndarray:
    """The category id of each rank class of the deal (int64[n_classes]): a plan's words for a class."""
    cat = np.zeros(tables.n_classes, dtype=np.int64)
    cat[tables.classes] = tables.packets.categories
    return cat


def _ban(tables: DealTables, banned: tuple[tuple[int, ...], ...]) -> _Ban:
    n_slots = tables.n_slots
    if any(len(plan) != n_slots for plan in banned):
        raise ValueError(f"a banned plan names a category for each of the {n_slots} slots")
    plans = np.array(banned, dtype=np.int64).reshape(len(banned), n_slots)
    return _Ban(tables.derived("class categories", class_categories), plans, np.zeros(n_slots, dtype=np.int64),
                np.zeros(max(len(banned), 1), dtype=np.int64))


def _as_int64(mask: int) -> np.int64:
    """A 64-bit card mask as the kernels' signed int64 (bit 63 is the sign)."""
    return np.int64(mask - (1 << 64) if mask >= 1 << 63 else mask)


def _new_stack(problem: BestResponseProblem, V: np.ndarray, sorted_masks: np.ndarray) -> tuple[_Stack, np.ndarray]:
    """The stack with the root node, and the root's members (sorted positions)."""
    n_packets = len(sorted_masks)
    levels = max(problem.n_slots, 1)
    n_slots = problem.n_slots
    st = _Stack(
        U=np.zeros(levels, dtype=np.int64), F=np.zeros(levels, dtype=np.int64), cur=np.zeros(levels),
        slot=np.zeros(levels, dtype=np.int64), pos=np.zeros(levels, dtype=np.int64),
        end=np.zeros(levels, dtype=np.int64), k=np.zeros((levels, n_slots), dtype=np.int64), others=np.zeros(levels),
        pick=np.zeros(levels, dtype=np.int64),
        cut=np.zeros(levels, dtype=np.int64), H=np.zeros((levels, n_slots), dtype=np.int64),
        prefix=np.zeros((levels, min(PREFIX, n_packets)), dtype=np.int64), depth=np.array([-2], dtype=np.int64),
        member=np.zeros((levels, (n_packets + 63) // 64), dtype=np.int64), floor=np.zeros(levels, dtype=np.int64),
    )
    U = int(problem.tables.deal.live)
    F = 0
    cur = 0.0
    for s, p in enumerate(problem.fixed):
        if p >= 0:
            U &= ~int(problem.tables.masks[p])
            cur += float(V[problem.tables.classes[p], s])
        else:
            F |= 1 << s
    st.U[0], st.F[0], st.cur[0] = _as_int64(U), F, cur
    inside = np.flatnonzero((sorted_masks & ~_as_int64(U)) == 0)
    np.bitwise_or.at(st.member[0], inside >> 6, np.left_shift(np.int64(1), (inside & 63).astype(np.int64)))
    return st, inside


def solve_search(
    problem: BestResponseProblem,
    *,
    time_limit: float | None = None,
    hint: tuple[int, ...] | None = None,
    stop_event: threading.Event | None = None,
    options: SearchOptions = SearchOptions(),
    budget: int = 10_000,
    banned: tuple[tuple[int, ...], ...] = (),
) -> EngineResult:
    """Exact best response by branch and bound; see the module doc for the proof.

    ``hint`` (packet indices in slot order) seeds the incumbent; one that is not a legal
    arrangement respecting the fixed slots raises ``HintError`` (``solver.engines.base``: the
    engines' contract).  ``options`` switches pruning rules.  ``banned``: plans (a category id
    per slot, ``quintet.rules.Category``) the answer may not follow — the best arrangement of
    another plan (the module doc; rule 4 is off then); ``NoArrangementError`` when every
    arrangement's plan is banned, ``HintError`` for a banned hint.
    Stops at ``time_limit`` seconds or when ``stop_event`` is set — checked every ``budget``
    nodes (about 0.1 s; the search resumes where it paused, so the budget changes nothing
    else) — returning the incumbent and a sound upper bound (``optimal`` False).
    """
    start = time.perf_counter()
    hint = check_hint(problem, hint)
    tables = problem.tables
    ban = _ban(tables, banned)
    if banned:
        options = replace(options, exchange=False)
        if hint is not None and tuple(ban.cat[tables.classes[list(hint)]].tolist()) in set(banned):
            raise HintError("engine hint: its plan is banned")
    pk = tables.derived("search packets", _packets)
    V = np.ascontiguousarray(problem.values, dtype=np.float64)
    fixed = np.array(problem.fixed, dtype=np.int64)
    n_packets = len(pk.masks)
    st, root_members = _new_stack(problem, V, pk.masks)
    levels = st.U.shape[0]
    pr = _Prices(np.zeros(1, dtype=np.int64), np.zeros(64), np.zeros(n_packets), np.zeros(levels, dtype=np.int64),
                 np.zeros(levels), np.zeros((levels, problem.n_slots)),
                 np.zeros((problem.n_slots, n_packets), dtype=np.int64), np.zeros(problem.n_slots, dtype=np.int64))
    sw = _Switches(int(options.best_packet_bound), int(options.slot_thresholds), int(options.branch_order),
                   int(options.exchange), int(options.packing_bounds), int(options.packing_cap),
                   int(options.card_exchanges))
    inc = _Incumbent(np.array([NO_VALUE]), fixed.copy())
    if hint is not None:
        inc.value[0] = problem.value_of(hint)
        inc.packets[:] = hint
    stats = np.zeros(3, dtype=np.int64)
    live = _as_int64(int(tables.deal.live))  # as int64 always: numba types a call by its first (bit 63: draw54)
    status = 1
    stopped = False
    while status == 1:
        call_budget = budget
        if options.card_prices and not pr.on[0]:
            call_budget = max(0, min(budget, options.card_prices_after - int(stats[STAT_NODES])))
        status = _run(V, pk, fixed, st, pr, sw, inc, call_budget, stats, ban)
        # the limits are checked before the card prices too (they take a moment on a big deal)
        if status == 1 and inc.value[0] > NO_VALUE and (
            (time_limit is not None and time.perf_counter() - start >= time_limit)
            or (stop_event is not None and stop_event.is_set())
        ):
            stopped = True
            break
        if (status == 1 and options.card_prices and not pr.on[0]
                and stats[STAT_NODES] >= options.card_prices_after):
            # rule 6: price the cards over the root's candidates (the root is set up by now)
            _card_prices(pk, root_members[root_members < pk.class_end[st.cut[0]]], V, live,
                         options.card_price_iters, pr)
            _price_order(pk, V, pr, st.k[0])
            st.depth[0] = -2  # start again from the root, every level in price order (incumbent kept)
    packets = tuple(int(p) for p in inc.packets)
    if banned and inc.value[0] == NO_VALUE:
        raise NoArrangementError("every arrangement's plan is banned")
    if any(p < 0 for p in packets):
        raise RuntimeError("search stopped before finding any arrangement")  # pragma: no cover
    value = problem.value_of(packets)
    if stopped:
        bound = max(value, float(_open_bound(V, pk, st, pr))) + TOL
        optimal = bound - value <= TOL
    else:
        bound, optimal = value, True
    return EngineResult(
        packets=packets, value=value, bound=bound, optimal=optimal,
        seconds=time.perf_counter() - start, engine="search",
        stats={"nodes": int(stats[STAT_NODES]), "leaves": int(stats[STAT_LEAVES]),
               "improvements": int(stats[STAT_IMPROVEMENTS])},
    )


def kernel_specimens() -> list[tuple[object, tuple[object, ...]]]:
    """(kernel, arguments of the types ``solve_search`` calls it with; placeholder values), for
    ``solver.engines.precompile``: ``_run`` compiles every helper it calls."""
    i64, f64 = np.zeros(1, dtype=np.int64), np.zeros(1)
    i64_2, f64_2 = np.zeros((1, 1), dtype=np.int64), np.zeros((1, 1))
    i32 = np.zeros(1, dtype=np.int32)
    pk = _Packets(i64, i32, i32, i64_2, specimen_index(), i64, i64, i64_2, i64)
    st = _Stack(U=i64, F=i64, cur=f64, slot=i64, pos=i64, end=i64, k=i64_2, others=f64, pick=i64, cut=i64, H=i64_2,
                prefix=i64_2, depth=i64, member=i64_2, floor=i64)
    pr = _Prices(i64, f64, f64, i64, f64, f64_2, i64_2, i64)
    return [
        (_packet_cards, (i64,)),
        (_fill_contains, (i64_2, i64_2)),
        (_card_prices, (pk, i64, f64_2, 0, 0, pr)),
        (_run, (f64_2, pk, i64, st, pr, _Switches(*(1,) * 7), _Incumbent(f64, i64), 0, i64,
                _Ban(i64, i64_2, i64, i64))),
    ]
