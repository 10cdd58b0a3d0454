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
Let ``LB`` be the incumbent's value; only arrangements worth more than ``LB + EPS`` are
sought, so the search proves that nothing beats the incumbent by more than ``EPS``.

1. *Best-packet bound.*  Let ``h`` be the strongest class of any packet inside ``U``.  Every
   completion puts in each free slot ``t`` a packet inside ``U``, worth at most ``V[h, t]``
   (monotonicity), so a completion is worth at most ``cur + Σ_{t∈F} V[h, t] =: cur + ΣM``.
   A node with ``cur + ΣM ≤ LB + EPS`` holds nothing better: pruned.
2. *Slot thresholds.*  In a completion worth more than ``LB + EPS`` slot ``t`` must be worth
   more than ``need_t = LB + EPS − cur − (ΣM − M_t)`` (the other free slots give at most
   ``ΣM − M_t``), i.e. its packet's class is at least ``k_t``, the least class with
   ``V[k_t, t] > need_t``.  Packets below ``min_t k_t`` can serve no free slot and are
   dropped from the node's candidate list.  Descending the tree only raises ``cur`` by at
   most what ``ΣM`` loses and only shrinks ``U``, so every ``need_t`` (hence ``k_t``) of a
   child is at least its parent's: the child's list may be filtered from the parent's.
3. *Branch order.*  Candidates of the branching slot ``s`` are scanned strongest first; the
   completions under candidate ``q`` are worth at most ``cur + V[c(q), s] + (ΣM − M_s)``,
   nonincreasing along the scan, so the scan stops at the first candidate where that is
   ``≤ LB + EPS``.  The same quantity over the unscanned candidates of every open level is
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
   ``Σ_t (V[c(p_t), t] − λ(p_t)) + λ(U) ≤ λ(U) + Σ_t max_q (V[c(q), t] − λ(q))`` (weak
   duality), the max over the node's candidates for slot t.  A node or a candidate whose
   bound is ≤ ``LB + EPS`` is pruned.  Prices come from subgradient steps at the root and
   are switched on only when the search has not finished after its first ``budget`` nodes.

The search is resumable: its stack lives in numpy arrays, each call of the kernel runs at
most ``budget`` nodes, and the Python driver checks the time limit and a stop event (Ctrl-C)
between calls, so a stopped search still returns its incumbent and a sound bound.
"""

from __future__ import annotations

import threading
import time
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit

from .problem import BestResponseProblem, EngineResult

__all__ = ["solve_search", "EPS"]

EPS = 1e-9


@njit(cache=True, nogil=True)
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
def _packet_index(mask, live_pos, binom, colex_to_lex):
    """Index in the packet table of a 5-card mask (cards inside the live set)."""
    r = 0
    i = 1
    m = mask
    while m:
        low = m & -m
        b = 0
        while (low >> b) != 1:
            b += 1
        r += binom[live_pos[b], i]
        i += 1
        m ^= low
    return colex_to_lex[r]


@njit(cache=True, nogil=True)
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
    from itertools import combinations

    rows = []
    for rest in combinations(range(1, 10), 4):
        a = (0, *rest)
        b = tuple(i for i in range(10) if i not in a)
        rows.append(a + b)
    return np.array(rows, dtype=np.int64)


_SPLITS = _split_patterns()


@njit(cache=True, nogil=True)
def _leaf2(U, s1, s2, cur, packet_cls, V, live_pos, binom, colex_to_lex):
    """Best split of the 10 cards ``U`` into slots s1, s2.  Returns (value, mask for s1)."""
    pos = np.empty(10, dtype=np.int64)
    bit = np.empty(10, dtype=np.int64)
    n = 0
    for b in range(64):
        if U >> b & 1:
            pos[n] = live_pos[b]
            bit[n] = np.int64(1) << b
            n += 1
    best_val = -1e300
    best_a = np.int64(0)
    for j in range(_SPLITS.shape[0]):
        ra = 0
        rb = 0
        ma = np.int64(0)
        for i in range(5):
            ra += binom[pos[_SPLITS[j, i]], i + 1]
            rb += binom[pos[_SPLITS[j, 5 + i]], i + 1]
            ma |= bit[_SPLITS[j, i]]
        ca = packet_cls[colex_to_lex[ra]]
        cb = packet_cls[colex_to_lex[rb]]
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


@njit(cache=True, nogil=True)
def _packing_exists(lst, n, count, base, sorted_masks, cap, steps):
    """Are there ``count`` pairwise disjoint packets among ``lst[:n]``, all disjoint from
    the mask ``base``?  Returns 1 (yes), 0 (no) or −1 (undecided after ``cap`` steps)."""
    if count == 0:
        return 1
    idx = np.zeros(6, dtype=np.int64)
    used = np.zeros(6, dtype=np.int64)
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
        m = sorted_masks[lst[i]]
        if m & used[depth] == 0:
            if depth + 1 == count:
                return 1
            used[depth + 1] = used[depth] | m
            idx[depth + 1] = i + 1
            depth += 1
        else:
            idx[depth] = i + 1
    return 0


@njit(cache=True, nogil=True)
def _class_bounds(lst, n, sorted_masks, sorted_cls, m, floor, H, cap):
    """Upper bounds ``H[0] ≥ … ≥ H[m−1]`` on the classes, strongest first, of any m
    disjoint packets of the node (rule 5).

    ``lst[:n]`` holds, strongest first, every packet of the node with class ≥ ``floor``.
    For i+1 packets the scan looks for the first position j such that ``lst[j]`` and i
    earlier packets are pairwise disjoint; every earlier position was proven impossible,
    so no i+1 disjoint packets all stronger than ``lst[j]`` exist and ``H[i] =
    class(lst[j])`` is an upper bound.  When the step budget ``cap`` runs out at j the
    same holds.  When no j exists, the (i+1)-th packet is below ``floor``.
    """
    steps = np.zeros(1, dtype=np.int64)
    low = max(floor - 1, 0)
    H[0] = sorted_cls[lst[0]] if n > 0 else low
    j = 1
    for i in range(1, m):
        while j < n:
            res = _packing_exists(lst, j, i, sorted_masks[lst[j]], sorted_masks, cap, steps)
            if res != 0:
                break
            j += 1
        H[i] = sorted_cls[lst[j]] if j < n else low


@njit(cache=True, nogil=True)
def _assign_best(V, H, count, slots_mask, n_slots):
    """max over injective maps j → slot ∈ slots_mask of Σ_{j<count} V[H[j], slot]."""
    size = 1 << n_slots
    dp = np.full(size, -1e300)
    dp[0] = 0.0
    best = -1e300
    for mask in range(size):
        if dp[mask] <= -1e299 or mask & ~slots_mask:
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


@njit(cache=True, nogil=True)
def _setup_level(d, U, F, cur, parent, parent_len, floor, lists, sorted_masks, sorted_cls, V, best_val,
                 st_slot, st_len, st_pos, st_msum, st_cut, st_H, H, cap, lag):
    """Prepare level d for node (U, F, cur): bounds, thresholds, branching slot, candidates.

    ``parent[:parent_len]`` holds, strongest first, every packet inside U's parent with
    class ≥ ``floor``, and no class below ``floor`` can help this node (rule 2).
    Returns False when the node is pruned (rules 1, 2 and 5 of the module doc).
    """
    n_slots = V.shape[1]
    st_k = np.empty(n_slots, dtype=np.int64)
    out = lists[d]
    n = 0
    for i in range(parent_len):
        q = parent[i]
        if sorted_cls[q] < floor:
            break
        if sorted_masks[q] & ~U == 0:
            out[n] = q
            n += 1
    if n == 0:
        return False
    target = best_val + 1e-9
    m = _popcount(F)
    _class_bounds(out, n, sorted_masks, sorted_cls, m, floor, H, cap)
    if cur + _assign_best(V, H, m, F, n_slots) <= target:
        return False
    h = H[0]
    cutoff = h + 1
    slot = -1
    slot_k = -1
    slot_others = 0.0
    for t in range(n_slots):
        if F >> t & 1:
            others = _assign_best(V, H, m - 1, F & ~(1 << t), n_slots)
            k = _first_class_above(V[:, t], target - cur - others)
            st_k[t] = k
            if k > h:
                return False
            if k < cutoff:
                cutoff = k
            if k > slot_k or (k == slot_k and V[h, t] > V[h, slot]):
                slot_k = k
                slot = t
                slot_others = others
    while n > 0 and sorted_cls[out[n - 1]] < cutoff:
        n -= 1
    if lag.on[0]:  # rule 6, each slot over the packets that can serve it (class ≥ k_t)
        lam_u = 0.0
        for b in range(64):
            if U >> b & 1:
                lam_u += lag.card[b]
        total = cur + lam_u
        for t in range(n_slots):
            if F >> t & 1:
                kt = st_k[t]
                best = -1e300
                for i in range(n):
                    q = out[i]
                    if sorted_cls[q] < kt:
                        break
                    v = V[sorted_cls[q], t] - lag.packet[q]
                    if v > best:
                        best = v
                lag.st_m[d, t] = best
                total += best
        lag.st_u[d] = lam_u
        lag.st_total[d] = total
        if total <= target:
            return False
    lag.level_on[d] = lag.on[0]
    st_slot[d] = slot
    st_len[d] = n
    st_pos[d] = 0
    st_msum[d] = slot_others
    st_cut[d] = cutoff
    for i in range(m):
        st_H[d, i] = H[i]
    return True


@njit(cache=True, nogil=True)
def _run(sorted_masks, sorted_cls, sorted_orig, packet_cls, V, live_pos, binom, colex_to_lex,
         fixed_slots, st_U, st_F, st_cur, st_slot, st_pos, st_len, st_msum, st_pick, st_cut, st_H, lists, root_list,
         depth, best_val, best_pk, budget, stats, cap, lag):
    """Run at most ``budget`` nodes of the search from the saved stack.

    Returns 0 when the search is complete (incumbent optimal), 1 when paused.
    ``best_pk`` holds the incumbent's packet indices (table order) per slot.
    """
    n_slots = V.shape[1]
    H = np.zeros(n_slots, dtype=np.int64)
    nodes = 0
    d = depth[0]
    if d == -2:  # fresh start: set up the root
        U = st_U[0]
        F = st_F[0]
        cur = st_cur[0]
        if _popcount(F) <= 2:
            # degenerate: at most two free slots, solved directly
            if _popcount(F) == 2:
                s1, s2 = _two_slots(F, n_slots)
                val, a = _leaf2(U, s1, s2, cur, packet_cls, V, live_pos, binom, colex_to_lex)
                if val > best_val[0] + 1e-9:
                    best_val[0] = val
                    for t in range(n_slots):
                        best_pk[t] = fixed_slots[t]
                    best_pk[s1] = _packet_index(a, live_pos, binom, colex_to_lex)
                    best_pk[s2] = _packet_index(U ^ a, live_pos, binom, colex_to_lex)
            elif _popcount(F) == 1:
                for t in range(n_slots):
                    if F >> t & 1:
                        pi = _packet_index(U, live_pos, binom, colex_to_lex)
                        val = cur + V[packet_cls[pi], t]
                        if val > best_val[0] + 1e-9:
                            best_val[0] = val
                            for u in range(n_slots):
                                best_pk[u] = fixed_slots[u]
                            best_pk[t] = pi
            else:
                if cur > best_val[0] + 1e-9:
                    best_val[0] = cur
                    for u in range(n_slots):
                        best_pk[u] = fixed_slots[u]
            depth[0] = -1
            return 0
        ok = _setup_level(0, U, F, cur, root_list, root_list.shape[0], 0, lists, sorted_masks, sorted_cls,
                          V, best_val[0], st_slot, st_len, st_pos, st_msum, st_cut, st_H, H, cap, lag)
        d = 0 if ok else -1
    while d >= 0:
        if nodes >= budget:
            depth[0] = d
            stats[0] += nodes
            return 1
        s = st_slot[d]
        pos = st_pos[d]
        if pos >= st_len[d]:
            d -= 1
            continue
        q = lists[d, pos]
        c = sorted_cls[q]
        cur = st_cur[d]
        if cur + V[c, s] + st_msum[d] <= best_val[0] + 1e-9:
            st_pos[d] = st_len[d]  # rule 3: nothing further in this list can help
            d -= 1
            continue
        st_pos[d] = pos + 1
        # rule 6 for this candidate: prices of U, minus q's, plus the other slots' best
        if lag.level_on[d] and lag.st_total[d] - lag.st_m[d, s] + V[c, s] - lag.packet[q] <= best_val[0] + 1e-9:
            continue
        # rule 4: no improving exchange with a packet placed earlier on the path
        dominated = False
        for e in range(d):
            t = st_slot[e]
            ce = sorted_cls[st_pick[e]]
            if V[c, s] + V[ce, t] < V[ce, s] + V[c, t] - 1e-12:
                dominated = True
                break
        if dominated:
            continue
        nodes += 1
        st_pick[d] = q
        U2 = st_U[d] & ~sorted_masks[q]
        F2 = st_F[d] & ~(1 << s)
        cur2 = cur + V[c, s]
        if _popcount(F2) == 2:
            s1, s2 = _two_slots(F2, n_slots)
            # rule 1 on the leaf: both slots at most the strongest packet left
            h = -1
            for i in range(st_len[d]):
                if sorted_masks[lists[d, i]] & ~U2 == 0:
                    h = sorted_cls[lists[d, i]]
                    break
            if h < 0 or cur2 + V[h, s1] + V[h, s2] <= best_val[0] + 1e-9:
                continue
            val, a = _leaf2(U2, s1, s2, cur2, packet_cls, V, live_pos, binom, colex_to_lex)
            stats[1] += 1
            if val > best_val[0] + 1e-9:
                best_val[0] = val
                for t in range(n_slots):
                    best_pk[t] = fixed_slots[t]
                for e in range(d + 1):
                    best_pk[st_slot[e]] = sorted_orig[st_pick[e]]
                best_pk[s1] = _packet_index(a, live_pos, binom, colex_to_lex)
                best_pk[s2] = _packet_index(U2 ^ a, live_pos, binom, colex_to_lex)
                stats[2] += 1
            continue
        # rule 2 for the child with the parent's class bounds (the child's packets are
        # disjoint packets of the parent's node): no class below `floor` can help it
        m2 = _popcount(F2)
        floor = st_H[d, 0] + 1
        for t in range(n_slots):
            if F2 >> t & 1:
                others = _assign_best(V, st_H[d], m2 - 1, F2 & ~(1 << t), n_slots)
                k = _first_class_above(V[:, t], best_val[0] + 1e-9 - cur2 - others)
                if k < floor:
                    floor = k
        if floor > st_H[d, 0]:
            continue
        if floor < st_cut[d]:
            floor = st_cut[d]
        st_U[d + 1] = U2
        st_F[d + 1] = F2
        st_cur[d + 1] = cur2
        if _setup_level(d + 1, U2, F2, cur2, lists[d], st_len[d], floor, lists, sorted_masks, sorted_cls,
                        V, best_val[0], st_slot, st_len, st_pos, st_msum, st_cut, st_H, H, cap, lag):
            d += 1
    depth[0] = -1
    stats[0] += nodes
    return 0


@njit(cache=True, nogil=True)
def _open_bound(V, sorted_cls, lists, st_cur, st_slot, st_pos, st_len, st_msum, depth):
    """Upper bound on every arrangement not yet examined (rule 3), −inf when none is open."""
    bound = -1e300
    for d in range(depth + 1):
        if st_pos[d] < st_len[d]:
            c = sorted_cls[lists[d, st_pos[d]]]
            b = st_cur[d] + V[c, st_slot[d]] + st_msum[d]
            if b > bound:
                bound = b
    return bound


@njit(cache=True, nogil=True)
def _colex_to_lex(masks, live_pos, binom):
    """Inverse of the colex rank over the packet table (see ``_packet_index``)."""
    out = np.empty(masks.shape[0], dtype=np.int32)
    for idx in range(masks.shape[0]):
        m = masks[idx]
        r = 0
        i = 1
        for b in range(64):
            if m >> b & 1:
                r += binom[live_pos[b], i]
                i += 1
        out[r] = idx
    return out


@njit(cache=True, nogil=True)
def _lagrange_prices(sorted_cards, sorted_cls, lst, n, V, live, iters, card, packet):
    """Card prices λ for rule 6 by subgradient descent on the Lagrangian dual.

    For any prices, Σ_{c∈U} λ_c + Σ_{t∈F} max_p (V[c(p), t] − λ(p)) bounds every cover of
    U by one packet per free slot (weak duality), so the prices only need to be good, not
    optimal: the best prices seen over ``iters`` steps are kept.  ``packet[q]`` = λ(q).
    ``sorted_cards[q]`` are the five card bits of packet q.
    """
    n_slots = V.shape[1]
    lam = np.zeros(64)
    g = np.zeros(64)
    price = np.zeros(n)
    best_bound = 1e300
    scale = 0.0
    for t in range(n_slots):
        scale = max(scale, V[V.shape[0] - 1, t] - V[0, t])
    step0 = 0.04 * scale + 1e-12
    for it in range(iters):
        bound = 0.0
        for b in range(64):
            g[b] = 0.0
            if live >> b & 1:
                g[b] = 1.0
                bound += lam[b]
        for i in range(n):
            q = lst[i]
            price[i] = (lam[sorted_cards[q, 0]] + lam[sorted_cards[q, 1]] + lam[sorted_cards[q, 2]]
                        + lam[sorted_cards[q, 3]] + lam[sorted_cards[q, 4]])
        for t in range(n_slots):
            best = -1e300
            arg = -1
            for i in range(n):
                v = V[sorted_cls[lst[i]], t] - price[i]
                if v > best:
                    best = v
                    arg = lst[i]
            bound += best
            for j in range(5):
                g[sorted_cards[arg, j]] -= 1.0
        if bound < best_bound:
            best_bound = bound
            card[:] = lam
        step = step0 / np.sqrt(it + 1.0)
        for b in range(64):
            lam[b] -= step * g[b]
    for q in range(sorted_cards.shape[0]):
        packet[q] = (card[sorted_cards[q, 0]] + card[sorted_cards[q, 1]] + card[sorted_cards[q, 2]]
                     + card[sorted_cards[q, 3]] + card[sorted_cards[q, 4]])
    return best_bound


_Lagrange = namedtuple("_Lagrange", "on card packet st_u st_m st_total level_on")
_Lagrange.__doc__ = "Rule 6 state: on-flag, card and packet prices, per-level sums (arrays)."


def _new_lagrange(levels: int, n_slots: int, n_packets: int) -> _Lagrange:
    return _Lagrange(np.zeros(1, dtype=np.int64), np.zeros(64), np.zeros(n_packets), np.zeros(levels),
                     np.zeros((levels, n_slots)), np.zeros(levels), np.zeros(levels, dtype=np.int64))


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


@dataclass
class _Prepared:
    sorted_masks: np.ndarray
    sorted_cls: np.ndarray
    sorted_orig: np.ndarray
    live_pos: np.ndarray
    binom: np.ndarray
    colex_to_lex: np.ndarray
    sorted_cards: np.ndarray  # int64 (P, 5): the card bits of each packet, in sorted order


def _prepare(problem: BestResponseProblem) -> _Prepared:
    tables = problem.tables
    masks = tables.masks.astype(np.int64)
    cls = tables.classes
    order = np.argsort(-cls, kind="stable").astype(np.int32)
    live = tables.deal.live
    live_pos = np.full(64, -1, dtype=np.int64)
    bits = [b for b in range(64) if live >> b & 1]
    for i, b in enumerate(bits):
        live_pos[b] = i
    n = len(bits)
    binom = np.zeros((n + 1, 6), dtype=np.int64)
    for a in range(n + 1):
        for k in range(6):
            binom[a, k] = _comb(a, k)
    colex_to_lex = _colex_to_lex(masks, live_pos, binom)
    sorted_masks = masks[order]
    return _Prepared(sorted_masks, cls[order].astype(np.int32), order, live_pos, binom, colex_to_lex,
                     _packet_cards(sorted_masks))


def _comb(n: int, k: int) -> int:
    from math import comb

    return comb(n, k) if 0 <= k <= n else 0


def _hint_fits(problem: BestResponseProblem, hint: tuple[int, ...]) -> bool:
    """Is ``hint`` a legal arrangement (exact cover of the live cards) respecting fixed slots?"""
    if len(hint) != problem.n_slots:
        return False
    masks = problem.tables.masks
    if any(not 0 <= p < len(masks) for p in hint):
        return False
    if any(f >= 0 and f != p for f, p in zip(problem.fixed, hint, strict=True)):
        return False
    union = 0
    for p in hint:
        m = int(masks[p])
        if union & m:
            return False
        union |= m
    return union == problem.tables.deal.live


def solve_search(
    problem: BestResponseProblem,
    *,
    time_limit: float | None = None,
    hint: tuple[int, ...] | None = None,
    stop_event: threading.Event | None = None,
    budget: int = 50_000,
    packing_cap: int = 200,
    lagrangian_iters: int = 100,
) -> EngineResult:
    """Exact best response by branch and bound; see the module doc for the proof.

    ``hint`` (packet indices in slot order) seeds the incumbent; a hint that is not a legal
    arrangement respecting the fixed slots is ignored.
    Stops at ``time_limit`` seconds or when ``stop_event`` is set, returning the incumbent
    and a sound upper bound (``optimal`` False).
    """
    start = time.perf_counter()
    tables = problem.tables
    n_slots = problem.n_slots
    prep = _prepare(problem)
    V = np.ascontiguousarray(problem.values, dtype=np.float64)
    fixed = np.array(problem.fixed, dtype=np.int64)
    U = int(tables.deal.live)
    F = 0
    cur = 0.0
    for s, p in enumerate(problem.fixed):
        if p >= 0:
            U &= ~int(tables.masks[p])
            cur += float(V[tables.classes[p], s])
        else:
            F |= 1 << s
    levels = max(n_slots, 1)
    P = len(prep.sorted_masks)
    st_U = np.zeros(levels, dtype=np.int64)
    st_F = np.zeros(levels, dtype=np.int64)
    st_cur = np.zeros(levels, dtype=np.float64)
    st_slot = np.zeros(levels, dtype=np.int64)
    st_pos = np.zeros(levels, dtype=np.int64)
    st_len = np.zeros(levels, dtype=np.int64)
    st_msum = np.zeros(levels, dtype=np.float64)
    st_pick = np.zeros(levels, dtype=np.int64)
    st_cut = np.zeros(levels, dtype=np.int64)
    st_H = np.zeros((levels, n_slots), dtype=np.int64)
    lists = np.zeros((levels, P), dtype=np.int32)
    root_list = np.arange(P, dtype=np.int32)
    st_U[0], st_F[0], st_cur[0] = U, F, cur
    depth = np.array([-2], dtype=np.int64)
    best_val = np.array([-1e300])
    best_pk = fixed.copy()
    if hint is not None and _hint_fits(problem, hint):
        best_val[0] = problem.value_of(hint)
        best_pk[:] = hint
    stats = np.zeros(4, dtype=np.int64)
    lag = _new_lagrange(levels, n_slots, P)
    status = 1
    stopped = False
    while status == 1:
        status = _run(prep.sorted_masks, prep.sorted_cls, prep.sorted_orig, tables.classes, V, prep.live_pos,
                      prep.binom, prep.colex_to_lex, fixed, st_U, st_F, st_cur, st_slot, st_pos, st_len,
                      st_msum, st_pick, st_cut, st_H, lists, root_list, depth, best_val, best_pk, budget, stats,
                      packing_cap, lag)
        if status == 1 and not lag.on[0] and lagrangian_iters > 0 and depth[0] >= 0:
            # a hard instance: price the cards (rule 6); levels set up before stay valid
            _lagrange_prices(prep.sorted_cards, prep.sorted_cls, lists[0], st_len[0], V, tables.deal.live,
                             lagrangian_iters, lag.card, lag.packet)
            lag.on[0] = 1
        if status == 1 and best_val[0] > -1e299 and (
            (time_limit is not None and time.perf_counter() - start >= time_limit)
            or (stop_event is not None and stop_event.is_set())
        ):
            stopped = True
            break
    packets = tuple(int(p) for p in best_pk)
    if any(p < 0 for p in packets):
        raise RuntimeError("search stopped before finding any arrangement")  # pragma: no cover
    value = problem.value_of(packets)
    if stopped:
        open_bound = _open_bound(V, prep.sorted_cls, lists, st_cur, st_slot, st_pos, st_len, st_msum,
                                 int(depth[0]))
        bound = max(value, float(open_bound)) + EPS
        optimal = bound - value <= EPS
    else:
        bound, optimal = value, True
    return EngineResult(
        packets=packets, value=value, bound=bound, optimal=optimal,
        seconds=time.perf_counter() - start, engine="search",
        stats={"nodes": int(stats[0]), "leaves": int(stats[1]), "improvements": int(stats[2])},
    )
