"""Packet table lookups for numba kernels: the table index of a 5-card mask of live cards.

A packet's *colex rank* is ``Σ_i C(pos_i, i+1)`` over the positions ``pos_0 < … < pos_4`` of
its cards among the live cards; ``colex_to_lex`` maps that rank to the packet's index in
``DealTables.masks``.  Kernels take a ``PacketIndex`` named tuple.
"""

from __future__ import annotations

from collections import namedtuple
from math import comb

import numpy as np
from numba import njit

from solver.problem.deal_tables import DealTables

__all__ = ["PacketIndex", "build_packet_index", "packet_index"]

PacketIndex = namedtuple("PacketIndex", "live_pos binom colex_to_lex table_cls")
PacketIndex.__doc__ = """live_pos[b]: position of card bit b among the live cards (−1 if not live);
binom[n, k] = C(n, k); colex_to_lex[rank]: table index; table_cls[i]: class of table packet i."""


@njit(cache=True, nogil=True)
def packet_index(mask, ix):
    """Index in the packet table of a 5-card mask of live cards."""
    r = 0
    i = 1
    m = mask
    while m:
        low = m & -m
        b = 0
        while not (low >> b) & 1:  # not ``!= 1``: card bit 63 (draw54's second joker) is the sign bit
            b += 1
        r += ix.binom[ix.live_pos[b], i]
        i += 1
        m ^= low
    return ix.colex_to_lex[r]


@njit(cache=True, nogil=True)
def _colex_to_lex(masks, live_pos, binom):
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


def build_packet_index(tables: DealTables) -> PacketIndex:
    live_pos = np.full(64, -1, dtype=np.int64)
    bits = [b for b in range(64) if tables.deal.live >> b & 1]
    for i, b in enumerate(bits):
        live_pos[b] = i
    binom = np.array([[comb(a, k) for k in range(6)] for a in range(len(bits) + 1)], dtype=np.int64)
    colex_to_lex = _colex_to_lex(tables.masks.astype(np.int64), live_pos, binom)
    return PacketIndex(live_pos, binom, colex_to_lex, tables.classes)


def kernel_specimens() -> list[tuple[object, tuple[object, ...]]]:
    """(kernel, arguments of the types ``build_packet_index`` calls it with), for
    ``solver.engines.precompile``."""
    i64 = np.zeros(1, dtype=np.int64)
    return [(_colex_to_lex, (i64, i64, np.zeros((1, 1), dtype=np.int64)))]


def specimen_index() -> PacketIndex:
    """A ``PacketIndex`` of the kernels' types (placeholder values), for other modules' specimens."""
    i64 = np.zeros(1, dtype=np.int64)
    i32 = np.zeros(1, dtype=np.int32)
    return PacketIndex(i64, np.zeros((1, 1), dtype=np.int64), i32, i32)
