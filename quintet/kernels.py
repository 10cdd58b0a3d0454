"""Numba kernels of the 32-bit evaluator: arrays and ints in, arrays out.

Masks are classic-deck masks: one byte per suit, bit ``8*suit + rank`` (see ``cards``).

Strength keys (uint32, higher is stronger, equal is a tie) have the layout of
``quintet.hands``: ``strength(category) << 20`` above five 4-bit tie-break ranks (rank
indices 0..7).  ``strength`` comes from the rule set's category table, so the kernels never
hard-code the category order; category ids are ``quintet.rules.Category``'s.

Tables passed in (built by ``quintet.evaluator`` from the rule set):

* ``strengths[category_id]`` — category strength (``Rules.category_strengths``);
* ``straight_top[ranks]`` — for an 8-bit set of five distinct ranks, 1 + the straight's top
  rank index, or 0 when the ranks are not a straight (``quintet.hands.straight_top_table``:
  this is where ``ace_low_straight`` lives);
* ``tiebreak`` — ``quintet.hands.tiebreak_code``: 0 every card decides (``kickers``); 1 equal
  fours/threes/full-house triples tie (``group-only``); 2 as 1, and a pair is decided by its
  pair, two pair by its two pairs, high card by its highest card (``no-kickers``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from .hands import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TIEBREAK_NO_KICKERS,
    TWO_PAIR,
)


def _desc_table() -> np.ndarray:
    """For every 8-bit rank set: its ranks, highest first, packed left-aligned in nibbles."""
    table = np.zeros(256, dtype=np.int64)
    for bits in range(256):
        packed, shift = 0, 16
        for r in range(7, -1, -1):
            if bits >> r & 1 and shift >= 0:
                packed |= r << shift
                shift -= 4
        table[bits] = packed
    return table


NO_WRAPPERS: dict[str, Any] = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}
"""numba options for a kernel called only from other kernels: no Python entry point, whose
wrapper (unboxing every argument from Python objects) is compiled for nothing otherwise (about
0.3 s per kernel taking named tuples of arrays).  ``@njit(cache=True, nogil=True, **NO_WRAPPERS)``."""

_POP8 = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
_HIGH8 = np.array([max(i.bit_length() - 1, 0) for i in range(256)], dtype=np.int64)
_DESC8 = _desc_table()


@njit(cache=True, nogil=True)
def hand_key32(mask, strengths, straight_top, tiebreak):
    """Strength key (see module doc) and category id of a 5-card classic mask."""
    m = np.int64(mask)
    s0 = m & 0xFF
    s1 = (m >> 8) & 0xFF
    s2 = (m >> 16) & 0xFF
    s3 = (m >> 24) & 0xFF
    ranks = s0 | s1 | s2 | s3
    n = _POP8[ranks]
    no_kickers = tiebreak >= TIEBREAK_NO_KICKERS
    if n == 5:
        flush = s0 == ranks or s1 == ranks or s2 == ranks or s3 == ranks
        top = straight_top[ranks]
        if top > 0:
            cat = STRAIGHT_FLUSH if flush else STRAIGHT
            return (strengths[cat] << 20) | ((top - 1) << 16), cat
        if flush:
            return (strengths[FLUSH] << 20) | _DESC8[ranks], FLUSH
        high = (_HIGH8[ranks] << 16) if no_kickers else _DESC8[ranks]
        return (strengths[HIGH_CARD] << 20) | high, HIGH_CARD
    # Multiplicity sets: ones ⊇ twos ⊇ threes ⊇ fours (ranks held at least k times).
    twos = (s0 & s1) | (s0 & s2) | (s0 & s3) | (s1 & s2) | (s1 & s3) | (s2 & s3)
    threes = (s0 & s1 & s2) | (s0 & s1 & s3) | (s0 & s2 & s3) | (s1 & s2 & s3)
    fours = s0 & s1 & s2 & s3
    singles = ranks & ~twos
    if n == 4:  # one pair
        kick = 0 if no_kickers else _DESC8[singles] >> 4
        return (strengths[PAIR] << 20) | (_HIGH8[twos] << 16) | kick, PAIR
    if n == 3:
        if threes:
            kick = 0 if tiebreak else _DESC8[singles] >> 4
            return (strengths[THREE_OF_A_KIND] << 20) | (_HIGH8[threes] << 16) | kick, THREE_OF_A_KIND
        kick = 0 if no_kickers else _DESC8[singles] >> 8
        return (strengths[TWO_PAIR] << 20) | _DESC8[twos] | kick, TWO_PAIR
    # n == 2: four of a kind or full house
    if fours:
        kick = 0 if tiebreak else _HIGH8[singles] << 12
        return (strengths[FOUR_OF_A_KIND] << 20) | (_HIGH8[fours] << 16) | kick, FOUR_OF_A_KIND
    pair = twos & ~threes
    kick = 0 if tiebreak else _HIGH8[pair] << 12
    return (strengths[FULL_HOUSE] << 20) | (_HIGH8[threes] << 16) | kick, FULL_HOUSE


@njit(cache=True, nogil=True)
def hand_keys32(masks, strengths, straight_top, tiebreak):
    """Keys (uint32) and category ids (uint8) of an array of 5-card masks."""
    n = masks.shape[0]
    keys = np.empty(n, dtype=np.uint32)
    cats = np.empty(n, dtype=np.uint8)
    for i in range(n):
        k, c = hand_key32(np.int64(masks[i]), strengths, straight_top, tiebreak)  # one specialisation: int64
        keys[i] = k
        cats[i] = c
    return keys, cats


@njit(cache=True, nogil=True, **NO_WRAPPERS)
def _card_bits(live):
    """Bit masks, rank weights 5**rank and suits of the cards of ``live``, increasing."""
    bits = np.empty(32, dtype=np.int64)
    weights = np.empty(32, dtype=np.int64)
    suits = np.empty(32, dtype=np.int64)
    n = 0
    for b in range(32):
        if (live >> b) & 1:
            bits[n] = np.int64(1) << b
            weights[n] = 5 ** (b & 7)
            suits[n] = b >> 3
            n += 1
    return bits[:n], weights[:n], suits[:n]


@njit(cache=True, nogil=True)
def hand_table32(strengths, straight_top, tiebreak):
    """Key of every rank multiset and every flush rank set, by table index.

    A hand's *multiset index* is sum(5**rank) over its cards (injective: a rank occurs at
    most 4 times), < 5**8.  Returns (multiset_keys int64[5**8], flush_keys int64[256]),
    -1 where no hand maps; both filled by ``hand_key32`` over all hands of the deck.
    """
    multiset_keys = np.full(5 ** 8, -1, dtype=np.int64)
    flush_keys = np.full(256, -1, dtype=np.int64)
    bits, weights, suits = _card_bits(np.int64(0xFFFFFFFF))
    n = bits.shape[0]
    for a in range(n - 4):
        for b in range(a + 1, n - 3):
            for c in range(b + 1, n - 2):
                for d in range(c + 1, n - 1):
                    for e in range(d + 1, n):
                        m = bits[a] | bits[b] | bits[c] | bits[d] | bits[e]
                        k, _ = hand_key32(m, strengths, straight_top, tiebreak)
                        if suits[a] == suits[e]:
                            flush_keys[(m >> (8 * suits[a])) & 0xFF] = k
                        else:
                            idx = weights[a] + weights[b] + weights[c] + weights[d] + weights[e]
                            multiset_keys[idx] = k
    return multiset_keys, flush_keys


@njit(cache=True, nogil=True)
def packets32(live, multiset_class, flush_class):
    """Every 5-card subset of the card mask ``live``, in lexicographic order of cards.

    ``multiset_class``/``flush_class`` map a hand's multiset index / flush rank set to its
    class among all hands of the deck (see ``hand_table32``).  Returns (masks uint32,
    global classes int32), each of length C(|live|, 5).
    """
    bits, weights, suits = _card_bits(live)
    n = bits.shape[0]
    total = 0
    if n >= 5:
        total = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) // 120
    masks = np.empty(total, dtype=np.uint32)
    classes = np.empty(total, dtype=np.int32)
    out = 0
    for a in range(n - 4):
        ma = bits[a]
        wa = weights[a]
        sa = suits[a]
        for b in range(a + 1, n - 3):
            mb = ma | bits[b]
            wb = wa + weights[b]
            for c in range(b + 1, n - 2):
                mc = mb | bits[c]
                wc = wb + weights[c]
                for d in range(c + 1, n - 1):
                    md = mc | bits[d]
                    wd = wc + weights[d]
                    for e in range(d + 1, n):
                        m = md | bits[e]
                        if suits[e] == sa:  # cards are in suit order: all five share a suit
                            g = flush_class[(m >> (8 * sa)) & 0xFF]
                        else:
                            g = multiset_class[wd + weights[e]]
                        masks[out] = m
                        classes[out] = g
                        out += 1
    return masks, classes


@njit(cache=True, nogil=True)
def dense_classes(global_classes, n_global):
    """Renumber classes densely: 0..R-1 over the classes present, order kept.

    Returns (classes int32, R).
    """
    n = global_classes.shape[0]
    present = np.zeros(n_global + 1, dtype=np.int32)
    for i in range(n):
        present[global_classes[i]] = 1
    running = 0
    for j in range(n_global):
        p = present[j]
        present[j] = running
        running += p
    out = np.empty(n, dtype=np.int32)
    for i in range(n):
        out[i] = present[global_classes[i]]
    return out, running


def kernel_specimens() -> list[tuple[Any, tuple[Any, ...]]]:
    """(kernel, arguments of the types the evaluator calls it with): ``solver.engines.precompile``
    compiles these ahead of a command on a cold cache (the values are placeholders)."""
    i64 = np.zeros(1, dtype=np.int64)
    u16 = np.zeros(1, dtype=np.uint16)
    return [
        (hand_key32, (np.int64(0), i64, i64, 0)),
        (hand_keys32, (np.zeros(1, dtype=np.uint32), i64, i64, 0)),
        (hand_table32, (i64, i64, 0)),
        (packets32, (np.int64(0), u16, u16)),
        (dense_classes, (np.zeros(1, dtype=np.int32), 0)),
    ]
