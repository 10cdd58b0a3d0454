"""Numba kernels of the draw-poker evaluator (five-card draw poker, docs/draw-poker.md): 64-bit masks.

Quintet's classic rule set keeps its 32-bit kernels (``quintet.kernels``); these serve every
rule set with jokers, a 36/52/53/54-card deck or the colour categories.

Cards
-----
A hand is five card ints (see ``quintet.cards``: ``suit * field + rank``; jokers are the
cards ``4*field - 2 + i``).  Per-card tables built by ``quintet.draw.tables`` describe the
deck to the kernels, so the kernels never hard-code a layout:

* ``card_rank[c]`` — rank index 0..n-1, ``JOKER`` (31) for a joker, -1 for a bit that is
  not a card of the deck;
* ``card_suitbit[c]`` — ``1 << suit`` for an ordinary card, 0 for a joker.

Cells: the exact best substitution for jokers, by table
-------------------------------------------------------
A joker stands for *any* card of the deck's ranks and suits — even one already in the hand
(four aces and a joker are five aces).  Then a hand's value depends only on

* ``j``, its number of jokers (0, 1 or 2);
* the **rank multiset** of its ``k = 5 - j`` ordinary cards;
* its **suit state**: 2 = the ordinary cards share one suit, 1 = they share one colour but
  not one suit, 0 = both colours (red = ♦♥, black = ♣♠).

Why the suit state is enough: suits matter only for flush, colour, straight colour and
straight flush, and every one of those needs all five cards in one suit / one colour.  Giving
every stand-in the ordinary cards' common suit (state 2) or a suit of their common colour
(state 1) keeps every rank-based category and only adds suit-based ones, so it is never
worse; in state 0 no suit-based category is reachable whatever the stand-ins are.  So the
best substitution is a maximum over the stand-ins' *ranks* only (n**j choices), taken once
per rule set at table-build time (``build_cell_keys``), never per hand at run time.

A hand's **cell** is ``offsets[j] + 3 * colex(ranks) + state``, where ``colex`` is the
combinatorial index of the sorted multiset ``r0 <= … <= r(k-1)``:
``sum_i C(r_i + i, i + 1)`` (a multiset of size k over n ranks is the k-subset
``{r_i + i}`` of n + k - 1 items).  Tables: 3 · (C(n+4,5) + C(n+3,4) + C(n+2,3)) cells —
25,389 for 13 ranks.

Keys (int64; higher is stronger, equal is a tie) have the layout of ``quintet.hands``,
as in the classic evaluator (a joker's duplicate counts: a joker with A♥ K♥ 9♥ 5♥ is the
flush A A K 9 5).  ``tiebreak`` (``quintet.hands.tiebreak_code``) zeroes what follows the
group of fours, threes and full houses (1, ``group-only``), and also what follows the pair of
a pair, the two pairs of two pair and the top card of high card (2, ``no-kickers``).  A
hand's key is the **maximum over every category whose pattern it shows** that the rule set's
table holds (``strengths[category] >= 0``); categories absent from a table (flush in the
9-category table) simply never apply.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..hands import (
    COLOUR,
    FIVE_OF_A_KIND,
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    STRAIGHT,
    STRAIGHT_COLOUR,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TIEBREAK_NO_KICKERS,
    TWO_PAIR,
)

JOKER = 31  # card_rank of a joker: sorts after every rank
N_STATES = 3
RED_SUITS = 0b0110  # suit bits of diamonds and hearts
BLACK_SUITS = 0b1001  # clubs and spades


# ---------------------------------------------------------------- table building ------


@njit(cache=True, nogil=True)
def _pack(values, count):
    out = np.int64(0)
    for i in range(count):
        out |= np.int64(values[i]) << (16 - 4 * i)
    return out


@njit(cache=True, nogil=True)
def eval_multiset(ranks, flush, colour, strengths, straight_top, tiebreak):
    """Key of five ranks (any order, duplicates allowed) with the given suit facts.

    ``flush``: the five cards share one suit; ``colour``: they share one colour.
    The key is the best over every category whose pattern the cards show (module doc).
    """
    r = np.sort(ranks)[::-1]  # highest first
    # groups of equal ranks: counts and ranks, by count then rank, highest first
    gc = np.zeros(5, dtype=np.int64)
    gr = np.zeros(5, dtype=np.int64)
    ng = 0
    i = 0
    while i < 5:
        j = i
        while j < 5 and r[j] == r[i]:
            j += 1
        gc[ng] = j - i
        gr[ng] = r[i]
        ng += 1
        i = j
    for a in range(1, ng):  # stable insertion sort by count, descending
        c, q = gc[a], gr[a]
        b = a - 1
        while b >= 0 and gc[b] < c:
            gc[b + 1] = gc[b]
            gr[b + 1] = gr[b]
            b -= 1
        gc[b + 1] = c
        gr[b + 1] = q

    best = np.int64(-1)
    tb = np.zeros(5, dtype=np.int64)
    rest = np.zeros(5, dtype=np.int64)
    desc5 = _pack(r, 5)
    no_kickers = tiebreak >= TIEBREAK_NO_KICKERS

    # high card (all five cards, or its highest card), flush, colour: all five, highest first
    if strengths[HIGH_CARD] >= 0:
        best = max(best, (np.int64(strengths[HIGH_CARD]) << 20) | (_pack(r, 1) if no_kickers else desc5))
    if flush and strengths[FLUSH] >= 0:
        best = max(best, (np.int64(strengths[FLUSH]) << 20) | desc5)
    if (colour or flush) and strengths[COLOUR] >= 0:
        best = max(best, (np.int64(strengths[COLOUR]) << 20) | desc5)

    # straights: five distinct ranks in a window (straight_top: 1 + top rank, else 0)
    if ng == 5:
        bits = 0
        for a in range(5):
            bits |= 1 << r[a]
        top = straight_top[bits]
        if top > 0:
            t = np.int64(top - 1) << 16
            if strengths[STRAIGHT] >= 0:
                best = max(best, (np.int64(strengths[STRAIGHT]) << 20) | t)
            if (colour or flush) and strengths[STRAIGHT_COLOUR] >= 0:
                best = max(best, (np.int64(strengths[STRAIGHT_COLOUR]) << 20) | t)
            if flush and strengths[STRAIGHT_FLUSH] >= 0:
                best = max(best, (np.int64(strengths[STRAIGHT_FLUSH]) << 20) | t)

    top_count = gc[0]
    q0 = gr[0]
    # the cards left after taking m copies of q0, highest first
    if top_count >= 2:
        for m in range(2, top_count + 1):
            n_rest = 0
            skipped = 0
            for a in range(5):
                if r[a] == q0 and skipped < m:
                    skipped += 1
                else:
                    rest[n_rest] = r[a]
                    n_rest += 1
            tb[0] = q0
            for a in range(n_rest):
                tb[1 + a] = rest[a]
            if m == 2 and strengths[PAIR] >= 0:
                k = _pack(tb, 1) if no_kickers else _pack(tb, 1 + n_rest)
                best = max(best, (np.int64(strengths[PAIR]) << 20) | k)
            if m == 3 and strengths[THREE_OF_A_KIND] >= 0:
                k = _pack(tb, 1) if tiebreak else _pack(tb, 1 + n_rest)
                best = max(best, (np.int64(strengths[THREE_OF_A_KIND]) << 20) | k)
            if m == 4 and strengths[FOUR_OF_A_KIND] >= 0:
                k = _pack(tb, 1) if tiebreak else _pack(tb, 1 + n_rest)
                best = max(best, (np.int64(strengths[FOUR_OF_A_KIND]) << 20) | k)
            if m == 5 and strengths[FIVE_OF_A_KIND] >= 0:
                best = max(best, (np.int64(strengths[FIVE_OF_A_KIND]) << 20) | _pack(tb, 1))
    if ng >= 2 and gc[1] >= 2:
        # two pair: the two highest ranks held at least twice, then the best other card
        hi = max(gr[0], gr[1])
        lo = min(gr[0], gr[1])
        kick = -1
        skipped_hi = 0
        skipped_lo = 0
        for a in range(5):
            if r[a] == hi and skipped_hi < 2:
                skipped_hi += 1
            elif r[a] == lo and skipped_lo < 2:
                skipped_lo += 1
            elif kick < 0:
                kick = r[a]
        tb[0] = hi
        tb[1] = lo
        tb[2] = kick
        if strengths[TWO_PAIR] >= 0:
            best = max(best, (np.int64(strengths[TWO_PAIR]) << 20) | _pack(tb, 2 if no_kickers else 3))
        if gc[0] == 3 and gc[1] == 2 and strengths[FULL_HOUSE] >= 0:
            tb[0] = gr[0]
            tb[1] = gr[1]
            k = _pack(tb, 1) if tiebreak else _pack(tb, 2)
            best = max(best, (np.int64(strengths[FULL_HOUSE]) << 20) | k)
    return best


@njit(cache=True, nogil=True)
def build_cell_keys(n_ranks, max_jokers, strengths, straight_top, tiebreak, binom):
    """Key of every cell (module doc): the best over the jokers' stand-in ranks.

    Returns (keys int64[n_cells], offsets int64[max_jokers + 2]); ``offsets[j]`` is the
    first cell of hands with ``j`` jokers.
    """
    offsets = np.zeros(max_jokers + 2, dtype=np.int64)
    for j in range(max_jokers + 1):
        k = 5 - j
        offsets[j + 1] = offsets[j] + N_STATES * binom[n_ranks + k - 1, k]
    keys = np.full(offsets[max_jokers + 1], -1, dtype=np.int64)
    hand = np.zeros(5, dtype=np.int64)
    for j in range(max_jokers + 1):
        k = 5 - j
        a = np.zeros(k, dtype=np.int64)  # the ordinary ranks, non-decreasing
        while True:
            idx = 0
            for i in range(k):
                idx += binom[a[i] + i, i + 1]
            for state in range(N_STATES):
                flush = state == 2
                colour = state >= 1
                best = np.int64(-1)
                s = np.zeros(max(j, 1), dtype=np.int64)  # stand-in ranks, non-decreasing
                while True:
                    for i in range(k):
                        hand[i] = a[i]
                    for i in range(j):
                        hand[k + i] = s[i]
                    key = eval_multiset(hand, flush, colour, strengths, straight_top, tiebreak)
                    if key > best:
                        best = key
                    if j == 0:
                        break
                    i = j - 1
                    while i >= 0 and s[i] == n_ranks - 1:
                        i -= 1
                    if i < 0:
                        break
                    s[i] += 1
                    for t in range(i + 1, j):
                        s[t] = s[i]
                keys[offsets[j] + N_STATES * idx + state] = best
            i = k - 1
            while i >= 0 and a[i] == n_ranks - 1:
                i -= 1
            if i < 0:
                break
            a[i] += 1
            for t in range(i + 1, k):
                a[t] = a[i]
    return keys, offsets


# ---------------------------------------------------------------- run time ------------


@njit(cache=True, nogil=True, inline="always")
def cell_of(c0, c1, c2, c3, c4, card_rank, card_suitbit, binom, offsets):
    """Cell of the hand of five card ints (module doc); no search over stand-ins."""
    r0 = card_rank[c0]
    r1 = card_rank[c1]
    r2 = card_rank[c2]
    r3 = card_rank[c3]
    r4 = card_rank[c4]
    suits = (
        card_suitbit[c0] | card_suitbit[c1] | card_suitbit[c2] | card_suitbit[c3] | card_suitbit[c4]
    )
    j = (r0 == JOKER) + (r1 == JOKER) + (r2 == JOKER) + (r3 == JOKER) + (r4 == JOKER)
    # sorting network for five values (jokers, rank 31, go last)
    if r0 > r1:
        r0, r1 = r1, r0
    if r3 > r4:
        r3, r4 = r4, r3
    if r2 > r4:
        r2, r4 = r4, r2
    if r2 > r3:
        r2, r3 = r3, r2
    if r1 > r4:
        r1, r4 = r4, r1
    if r0 > r3:
        r0, r3 = r3, r0
    if r0 > r2:
        r0, r2 = r2, r0
    if r1 > r3:
        r1, r3 = r3, r1
    if r1 > r2:
        r1, r2 = r2, r1
    idx = binom[r0, 1] + binom[r1 + 1, 2] + binom[r2 + 2, 3]
    if j < 2:
        idx += binom[r3 + 3, 4]
        if j == 0:
            idx += binom[r4 + 4, 5]
    if suits & (suits - 1) == 0:
        state = 2
    elif suits & RED_SUITS == 0 or suits & BLACK_SUITS == 0:
        state = 1
    else:
        state = 0
    return offsets[j] + N_STATES * idx + state


_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN_INDEX = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DEBRUIJN_INDEX[(((1 << _i) * 0x03F79D71B4CB0A89) & 0xFFFF_FFFF_FFFF_FFFF) >> 58] = _i


@njit(cache=True, nogil=True, inline="always")
def _low_card(m):
    """Index of the lowest set bit of the uint64 ``m`` (m != 0)."""
    low = m & (np.uint64(0) - m)
    return _DEBRUIJN_INDEX[np.int64((low * _DEBRUIJN) >> np.uint64(58))]


@njit(cache=True, nogil=True)
def mask_cells(masks, card_rank, card_suitbit, binom, offsets, cell_map):
    """``cell_map[cell]`` of every 5-card uint64 mask (e.g. ``cell_map`` = cell → class)."""
    n = masks.shape[0]
    out = np.empty(n, dtype=cell_map.dtype)
    one = np.uint64(1)
    for i in range(n):
        m = np.uint64(masks[i])
        c0 = _low_card(m)
        m &= m - one
        c1 = _low_card(m)
        m &= m - one
        c2 = _low_card(m)
        m &= m - one
        c3 = _low_card(m)
        m &= m - one
        c4 = _low_card(m)
        out[i] = cell_map[cell_of(c0, c1, c2, c3, c4, card_rank, card_suitbit, binom, offsets)]
    return out


@njit(cache=True, nogil=True)
def subset_cells(cards, card_rank, card_suitbit, binom, offsets, cell_map):
    """Every 5-subset of ``cards`` (increasing card ints), in lexicographic order.

    Returns (masks uint64, ``cell_map[cell]``) of length C(len(cards), 5).
    """
    n = cards.shape[0]
    total = 0
    if n >= 5:
        total = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) // 120
    masks = np.empty(total, dtype=np.uint64)
    out = np.empty(total, dtype=cell_map.dtype)
    one = np.uint64(1)
    i = 0
    for a in range(n - 4):
        ca = cards[a]
        ma = one << np.uint64(ca)
        for b in range(a + 1, n - 3):
            cb = cards[b]
            mb = ma | (one << np.uint64(cb))
            for c in range(b + 1, n - 2):
                cc = cards[c]
                mc = mb | (one << np.uint64(cc))
                for d in range(c + 1, n - 1):
                    cd = cards[d]
                    md = mc | (one << np.uint64(cd))
                    for e in range(d + 1, n):
                        ce = cards[e]
                        masks[i] = md | (one << np.uint64(ce))
                        out[i] = cell_map[
                            cell_of(ca, cb, cc, cd, ce, card_rank, card_suitbit, binom, offsets)
                        ]
                        i += 1
    return masks, out


@njit(cache=True, nogil=True)
def subset_histogram(cards, card_rank, card_suitbit, binom, offsets, cell_map, n_out):
    """Histogram of ``cell_map[cell]`` over every 5-subset of ``cards`` (int64[n_out])."""
    hist = np.zeros(n_out, dtype=np.int64)
    n = cards.shape[0]
    for a in range(n - 4):
        ca = cards[a]
        for b in range(a + 1, n - 3):
            cb = cards[b]
            for c in range(b + 1, n - 2):
                cc = cards[c]
                for d in range(c + 1, n - 1):
                    cd = cards[d]
                    for e in range(d + 1, n):
                        cell = cell_of(ca, cb, cc, cd, cards[e], card_rank, card_suitbit, binom, offsets)
                        hist[cell_map[cell]] += 1
    return hist


@njit(cache=True, nogil=True)
def draw_histograms(hand, unseen, card_rank, card_suitbit, binom, offsets, cell_class, n_classes):
    """Exact distribution of the final hand for each of the 32 ways to keep cards of ``hand``.

    ``hand``: five card ints; ``unseen``: the stock's possible cards.  Row ``s`` (bit ``i`` of
    ``s`` set = keep ``hand[i]``) counts, over every draw of ``5 - popcount(s)`` cards from
    ``unseen``, the final hands in each class.  Returns int64[32, n_classes].
    """
    hist = np.zeros((32, n_classes), dtype=np.int64)
    n = unseen.shape[0]
    final = np.empty(5, dtype=np.int64)
    idx = np.empty(5, dtype=np.int64)
    for s in range(32):
        k = 0
        for i in range(5):
            if (s >> i) & 1:
                final[k] = hand[i]
                k += 1
        d = 5 - k
        row = hist[s]
        if d > n:
            continue
        for i in range(d):
            idx[i] = i
        while True:  # every d-subset of the unseen cards (once, the empty one, when d = 0)
            for i in range(d):
                final[k + i] = unseen[idx[i]]
            cell = cell_of(
                final[0], final[1], final[2], final[3], final[4], card_rank, card_suitbit, binom, offsets
            )
            row[cell_class[cell]] += 1
            i = d - 1
            while i >= 0 and idx[i] == n - d + i:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for t in range(i + 1, d):
                idx[t] = idx[t - 1] + 1
    return hist


# ---------------------------------------------------------------- exchange values -----
#
# The exact expected value of every exchange without enumerating draws (``quintet.draw.policy``).
# Give every 5-card hand h of the deck a value v(h).  For a set J of at most four cards let
# F(J) = sum of v(h) over the hands h that contain J ("superset sums").  Keeping K of a hand H
# and drawing d = 5 - |K| cards from the unseen cards U = deck - H, the draws are the d-sets T
# of deck - K that miss the discards D = H - K, so by inclusion-exclusion over S ⊆ D
#     sum over draws of v(K ∪ T) = sum over S ⊆ D of (-1)^|S| F(K ∪ S),
# with F(H) = v(H).  The 32 options of a hand need the 32 values F(t), t ⊆ H, and one Möbius
# inversion.  Sets are indexed by deck position (0..N-1, increasing card ints); a k-set
# ``a_0 < … < a_(k-1)`` lives at ``set_offsets[k] + sum_i C(a_i, i + 1)``.


@njit(cache=True, nogil=True)
def superset_sums(cards, card_rank, card_suitbit, binom, offsets, cell_value, big_binom, set_offsets):
    """F(J) for every set J of at most four deck positions (comment above), int64.

    ``cards``: the deck's card ints, increasing (position i is ``cards[i]``);
    ``cell_value[cell]``: v of a hand in that cell; ``big_binom[n, k]`` = C(n, k) for n ≤ N.
    Four-card sets first, from every hand; then each level from the one above, since
    Σ over x ∉ J of F(J ∪ {x}) counts every hand containing J (5 - |J|) times.
    """
    n = cards.shape[0]
    sums = np.zeros(set_offsets[5], dtype=np.int64)
    base = set_offsets[4]
    for a in range(n - 4):
        for b in range(a + 1, n - 3):
            for c in range(b + 1, n - 2):
                for d in range(c + 1, n - 1):
                    for e in range(d + 1, n):
                        v = cell_value[
                            cell_of(cards[a], cards[b], cards[c], cards[d], cards[e],
                                    card_rank, card_suitbit, binom, offsets)
                        ]
                        ca, cb, cc, cd = big_binom[a, 1], big_binom[b, 2], big_binom[c, 3], big_binom[d, 4]
                        sums[base + ca + cb + cc + cd] += v  # without e
                        sums[base + ca + cb + cc + big_binom[e, 4]] += v  # without d
                        sums[base + ca + cb + big_binom[d, 3] + big_binom[e, 4]] += v
                        sums[base + ca + big_binom[c, 2] + big_binom[d, 3] + big_binom[e, 4]] += v
                        sums[base + big_binom[b, 1] + big_binom[c, 2] + big_binom[d, 3] + big_binom[e, 4]] += v
    subset = np.zeros(4, dtype=np.int64)
    for k in range(3, -1, -1):
        for i in range(k):
            subset[i] = i
        index = 0
        while True:  # every k-subset, in colex-index order (index counts them)
            total = np.int64(0)
            below = 0  # elements of the subset below x
            partial = np.int64(0)  # colex terms of those elements
            above = np.int64(0)  # colex terms of the others, shifted one place up
            for i in range(k):
                above += big_binom[subset[i], i + 2]
            for x in range(n):
                if below < k and subset[below] == x:
                    partial += big_binom[x, below + 1]
                    above -= big_binom[x, below + 2]
                    below += 1
                    continue
                total += sums[set_offsets[k + 1] + partial + big_binom[x, below + 1] + above]
            sums[set_offsets[k] + index] = total // (5 - k)
            index += 1
            # next subset in colex order: bump the lowest element that can move up
            i = 0
            while i < k - 1 and subset[i] + 1 == subset[i + 1]:
                i += 1
            if k == 0 or (i == k - 1 and subset[i] + 1 >= n):
                break
            subset[i] += 1
            for j in range(i):
                subset[j] = j
    return sums


@njit(cache=True, nogil=True)
def exchange_totals(hand, position_of, hand_value, sums, big_binom, set_offsets):
    """For each keep-mask s (bit i = keep ``hand[i]``), the sum of v over every draw.

    ``hand``: five card ints (any order); ``position_of[card]``: its deck position;
    ``hand_value``: v of the hand.  Returns int64[32]; divide by C(N - 5, 5 - popcount(s)).
    """
    g = np.zeros(32, dtype=np.int64)
    chosen = np.empty(5, dtype=np.int64)
    for t in range(31):
        k = 0
        for i in range(5):
            if (t >> i) & 1:
                chosen[k] = position_of[hand[i]]
                k += 1
        for i in range(1, k):  # insertion sort: the colex index needs increasing positions
            x = chosen[i]
            j = i - 1
            while j >= 0 and chosen[j] > x:
                chosen[j + 1] = chosen[j]
                j -= 1
            chosen[j + 1] = x
        index = 0
        for i in range(k):
            index += big_binom[chosen[i], i + 1]
        g[t] = sums[set_offsets[k] + index]
    g[31] = hand_value
    # Möbius inversion over supersets: total[s] = sum over t ⊇ s of (-1)^|t - s| g[t]
    for i in range(5):
        bit = 1 << i
        for s in range(32):
            if not s & bit:
                g[s] -= g[s | bit]
    return g


@njit(cache=True, nogil=True, inline="always")
def _ratio_less(a, x, b, y):
    """a / x < b / y exactly, for 0 <= a, b < 2**52 and 0 < x, y < 2**24 (a·y may pass 2**63)."""
    lo_mask = np.int64(0xFFFFFFFF)
    ay_lo = (a & lo_mask) * y
    bx_lo = (b & lo_mask) * x
    ay_hi = (a >> 32) * y + (ay_lo >> 32)
    bx_hi = (b >> 32) * x + (bx_lo >> 32)
    if ay_hi != bx_hi:
        return ay_hi < bx_hi
    return (ay_lo & lo_mask) < (bx_lo & lo_mask)


@njit(cache=True, nogil=True)
def best_exchanges(hands, max_draw, position_of, card_rank, card_suitbit, binom, offsets, cell_value,
                   sums, big_binom, set_offsets, n_draws):
    """The best keep-mask of each hand (rows of five card ints) drawing at most ``max_draw`` cards.

    Best = the highest mean value over every draw (exact), then fewer cards drawn, then the
    lower mask.  ``n_draws[d]`` = C(N - 5, d).  Returns int64[len(hands)].
    """
    m = hands.shape[0]
    out = np.empty(m, dtype=np.int64)
    for h in range(m):
        hand = hands[h]
        value = cell_value[cell_of(hand[0], hand[1], hand[2], hand[3], hand[4],
                                   card_rank, card_suitbit, binom, offsets)]
        totals = exchange_totals(hand, position_of, value, sums, big_binom, set_offsets)
        best = 31
        best_draw = 0
        for s in range(30, -1, -1):  # downward, so that the lower mask wins a full tie
            d = 5
            for i in range(5):
                d -= (s >> i) & 1
            if d > max_draw:
                continue
            if _ratio_less(totals[best], n_draws[best_draw], totals[s], n_draws[d]):
                best, best_draw = s, d
            elif not _ratio_less(totals[s], n_draws[d], totals[best], n_draws[best_draw]) and d <= best_draw:
                best, best_draw = s, d
        out[h] = best
    return out


@njit(cache=True, nogil=True)
def exchanged_hands(deals, keeps):
    """Final hand masks: row i keeps ``deals[i, :5]`` by ``keeps[i]`` and draws ``deals[i, 5:]`` in order."""
    m = deals.shape[0]
    masks = np.empty(m, dtype=np.uint64)
    drawn = np.empty(m, dtype=np.int64)
    one = np.uint64(1)
    for h in range(m):
        mask = np.uint64(0)
        k = 0
        for i in range(5):
            if (keeps[h] >> i) & 1:
                mask |= one << np.uint64(deals[h, i])
                k += 1
        for i in range(5 - k):
            mask |= one << np.uint64(deals[h, 5 + i])
        masks[h] = mask
        drawn[h] = 5 - k
    return masks, drawn
