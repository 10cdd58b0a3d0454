"""Slow, obviously-correct reference computations for the solver tests.

Nothing here uses the solver's rank classes, marginals or value tables.  Hands are compared
only through ``quintet.evaluator.hand_key`` (one hand at a time), straight from the
definitions (docs/rules.md, docs/architecture.md):

* margin of my packet against theirs in slot s: ``+w_s`` if mine is stronger, ``−w_s`` if
  weaker, 0 if equal (both score the same tie share);
* points: ``w_s`` if mine is stronger, ``tie_points · w_s`` if equal, 0 if weaker;
* a uniformly random arrangement puts a uniformly random 5-subset of the live cards in each
  slot, so against it a packet's win/tie/loss probabilities are counts over all
  C(25, 5) = 53,130 subsets (enumerated with ``itertools.combinations``).

Contents
--------
(a) ``brute_best`` — best ordered exact cover by full enumeration when at most three slots
    are free (2 free: 252 ordered splits; 3 free: C(15,5)·C(10,5) = 756,756, vectorized).
(b) ``direct_value`` — the expected margin/points of my arrangement against an opponent given
    as ``[(component, weight), …]`` (component: an ``Arrangement`` or ``"uniform"``),
    computed slot by slot by comparing hand keys.
(c) ``uniform_counts`` — for a key, how many of the 53,130 packets are below / equal / above.

``packet_values`` tabulates (b) for every packet and slot (for brute force and for local
optimality checks).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations, permutations
from math import comb

import numpy as np

from quintet.evaluator import hand_key
from quintet.game import Arrangement, Deal
from quintet.rules import Rules

UNIFORM = "uniform"


# --------------------------------------------------------------------------------------
# Deals, arrangements, random helpers
# --------------------------------------------------------------------------------------


def cards_of_mask(mask: int) -> list[int]:
    return [b for b in range(64) if int(mask) >> b & 1]


def mask_of_cards(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def random_deal(rng: np.random.Generator, rules: Rules | None = None) -> Deal:
    exposed = mask_of_cards(rng.choice(32, 7, replace=False))
    return Deal(exposed) if rules is None else Deal(exposed, rules)


def random_arrangement(rng: np.random.Generator, deal: Deal) -> Arrangement:
    cards = rng.permutation(cards_of_mask(deal.live))
    return Arrangement(tuple(mask_of_cards(cards[5 * i : 5 * i + 5]) for i in range(5)))


def is_legal(packets: Sequence[int], deal: Deal) -> bool:
    """Five disjoint 5-card packets whose union is exactly the live cards."""
    if len(packets) != 5:
        return False
    union = 0
    for p in packets:
        p = int(p)
        if bin(p).count("1") != 5 or p & union:
            return False
        union |= p
    return union == deal.live


# --------------------------------------------------------------------------------------
# (c) all packets of a deal, keyed one by one with hand_key
# --------------------------------------------------------------------------------------


@lru_cache(maxsize=32)
def all_packets(live: int, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """Every 5-subset of the live cards: (masks int64 sorted increasing, keys int64)."""
    live_cards = cards_of_mask(live)
    masks = np.array([mask_of_cards(c) for c in combinations(live_cards, 5)], dtype=np.int64)
    assert len(masks) == comb(len(live_cards), 5)
    masks.sort()
    keys = np.array([hand_key(int(m), rules) for m in masks], dtype=np.int64)
    masks.setflags(write=False)
    keys.setflags(write=False)
    return masks, keys


@lru_cache(maxsize=32)
def _sorted_keys(live: int, rules: Rules) -> np.ndarray:
    return np.sort(all_packets(live, rules)[1])


def uniform_counts(deal: Deal, key: int) -> tuple[int, int, int]:
    """(below, equal, above): packets of the deal weaker than / equal to / stronger than ``key``."""
    keys = _sorted_keys(deal.live, deal.rules)
    below = int(np.searchsorted(keys, key, side="left"))
    upto = int(np.searchsorted(keys, key, side="right"))
    return below, upto - below, len(keys) - upto


def packet_lookup(deal: Deal, masks: np.ndarray) -> np.ndarray:
    """Index in ``all_packets`` of each given packet mask (must be 5 live cards)."""
    table = all_packets(deal.live, deal.rules)[0]
    masks = np.asarray(masks, dtype=np.int64)
    idx = np.searchsorted(table, masks)
    idx = np.minimum(idx, len(table) - 1)
    if not np.all(table[idx] == masks):
        raise ValueError("not a packet of this deal")
    return idx


# --------------------------------------------------------------------------------------
# (b) direct expected values
# --------------------------------------------------------------------------------------


def _normalized(opponent) -> list[tuple[object, float]]:
    total = float(sum(w for _, w in opponent))
    assert total > 0
    return [(c, float(w) / total) for c, w in opponent]


def slot_outcomes(deal: Deal, opponent, key: int, slot: int) -> tuple[float, float, float]:
    """P(win), P(tie), P(loss) of a packet with strength ``key`` in ``slot`` (0-based)."""
    win = tie = loss = 0.0
    for component, p in _normalized(opponent):
        if isinstance(component, str):
            assert component == UNIFORM
            below, equal, above = uniform_counts(deal, key)
            n = below + equal + above
            win += p * below / n
            tie += p * equal / n
            loss += p * above / n
        else:
            theirs = hand_key(int(component.packets[slot]), deal.rules)
            if key > theirs:
                win += p
            elif key == theirs:
                tie += p
            else:
                loss += p
    return win, tie, loss


def direct_value(
    deal: Deal, opponent, arrangement: Arrangement | Sequence[int], objective: str = "margin"
) -> float:
    """Expected margin (my points − theirs) or points (mine) of ``arrangement``.

    For an opponent that is a list of arrangements this is literally
    ``Σ_i p_i Σ_s (my result in slot s against arrangement i)``.
    """
    packets = arrangement.packets if isinstance(arrangement, Arrangement) else tuple(arrangement)
    rules = deal.rules
    total = 0.0
    for s, packet in enumerate(packets):
        w = rules.weights[s]
        key = hand_key(int(packet), rules)
        win, tie, loss = slot_outcomes(deal, opponent, key, s)
        if objective == "margin":
            total += w * (win - loss)
        elif objective == "points":
            total += w * (win + rules.tie_points * tie)
        else:
            raise ValueError(objective)
    return total


def packet_values(deal: Deal, opponent, objective: str = "margin") -> tuple[np.ndarray, np.ndarray]:
    """(masks, pv): ``pv[i, s]`` is the expected result of packet ``masks[i]`` in slot ``s``.

    Same definition as ``direct_value`` (which sums it over slots), vectorized over packets.
    """
    rules = deal.rules
    masks, keys = all_packets(deal.live, rules)
    n_slots = rules.n_slots
    win = np.zeros((len(keys), n_slots))
    tie = np.zeros((len(keys), n_slots))
    loss = np.zeros((len(keys), n_slots))
    sorted_keys = _sorted_keys(deal.live, rules)
    n = len(keys)
    for component, p in _normalized(opponent):
        if isinstance(component, str):
            assert component == UNIFORM
            below = np.searchsorted(sorted_keys, keys, side="left")
            upto = np.searchsorted(sorted_keys, keys, side="right")
            win += p * (below / n)[:, None]
            tie += p * ((upto - below) / n)[:, None]
            loss += p * ((n - upto) / n)[:, None]
        else:
            for s in range(n_slots):
                theirs = hand_key(int(component.packets[s]), rules)
                win[:, s] += p * (keys > theirs)
                tie[:, s] += p * (keys == theirs)
                loss[:, s] += p * (keys < theirs)
    w = np.asarray(rules.weights, dtype=np.float64)[None, :]
    if objective == "margin":
        pv = w * (win - loss)
    elif objective == "points":
        pv = w * (win + rules.tie_points * tie)
    else:
        raise ValueError(objective)
    return masks, pv


def table_value(deal: Deal, masks: np.ndarray, pv: np.ndarray, packets: Sequence[int]) -> float:
    """Σ_s pv[packet_s, s] for packets given as masks (``masks`` sorted increasing)."""
    idx = np.searchsorted(masks, np.asarray([int(p) for p in packets], dtype=np.int64))
    assert np.all(masks[idx] == np.asarray([int(p) for p in packets], dtype=np.int64))
    return float(sum(pv[i, s] for s, i in enumerate(idx)))


# --------------------------------------------------------------------------------------
# (a) brute-force best response with some slots fixed
# --------------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def position_splits(n: int) -> np.ndarray:
    """Every ordered split of positions 0..n−1 into n/5 groups of five, as position masks.

    Shape ``(n! / (5!)^(n/5), n/5)``; row ``j`` holds the groups in order.
    """
    assert n % 5 == 0 and n > 0
    k = n // 5
    if k == 1:
        return np.array([[(1 << n) - 1]], dtype=np.int64)
    sub = position_splits(n - 5)  # over positions 0..n−6
    blocks = []
    for first in combinations(range(n), 5):
        rest = [i for i in range(n) if i not in first]
        mapped = np.zeros_like(sub)
        for j, pos in enumerate(rest):  # bit j of a sub-mask is position rest[j]
            mapped |= ((sub >> j) & 1) << pos
        head = np.full((sub.shape[0], 1), sum(1 << i for i in first), dtype=np.int64)
        blocks.append(np.hstack([head, mapped]))
    out = np.vstack(blocks)
    out.setflags(write=False)
    return out


def ordered_splits(cards: Sequence[int], k: int) -> np.ndarray:
    """Every ordered split of ``cards`` (5k of them) into k packets: card masks (M, k)."""
    cards = list(cards)
    n = len(cards)
    assert n == 5 * k
    if k == 0:
        return np.zeros((1, 0), dtype=np.int64)
    pos = position_splits(n)
    lut = np.zeros(1 << n, dtype=np.int64)
    ar = np.arange(1 << n, dtype=np.int64)
    for j, c in enumerate(cards):
        lut |= ((ar >> j) & 1) << c
    return lut[pos]


def brute_best(
    deal: Deal, masks: np.ndarray, pv: np.ndarray, fixed: Sequence[int | None]
) -> tuple[float, tuple[int, ...]]:
    """Best total ``Σ_s pv[p_s, s]`` over every arrangement keeping ``fixed`` slots.

    ``fixed[s]`` is a packet mask or None (free).  ``masks`` sorted increasing, ``pv`` rows
    aligned with it.  Returns (best value, one best arrangement as masks in slot order).
    Feasible for up to three free slots.
    """
    n_slots = len(fixed)
    used = 0
    base = 0.0
    for s, p in enumerate(fixed):
        if p is not None:
            p = int(p)
            assert bin(p).count("1") == 5 and p & ~deal.live == 0 and p & used == 0
            used |= p
            base += pv[int(np.searchsorted(masks, p)), s]
    free = [s for s in range(n_slots) if fixed[s] is None]
    if len(free) > 3:
        raise ValueError("brute force is limited to three free slots")
    rest = cards_of_mask(deal.live & ~used)
    splits = ordered_splits(rest, len(free))  # (M, k)
    total = np.full(splits.shape[0], base)
    for j, s in enumerate(free):
        idx = np.searchsorted(masks, splits[:, j])
        assert np.all(masks[idx] == splits[:, j])
        total += pv[idx, s]
    best = int(np.argmax(total))
    arrangement = [int(p) if p is not None else 0 for p in fixed]
    for j, s in enumerate(free):
        arrangement[s] = int(splits[best, j])
    return float(total[best]), tuple(arrangement)


# --------------------------------------------------------------------------------------
# neighbourhoods (necessary conditions for optimality)
# --------------------------------------------------------------------------------------


def two_card_swaps(packets: Sequence[int]):
    """Every arrangement obtained by exchanging one card of slot s with one card of slot t.

    Yields (s, card_a, t, card_b, new packets) with s < t (0-based slots).
    """
    packets = [int(p) for p in packets]
    for s in range(len(packets)):
        for t in range(s + 1, len(packets)):
            for a in cards_of_mask(packets[s]):
                for b in cards_of_mask(packets[t]):
                    new = list(packets)
                    new[s] = packets[s] & ~(1 << a) | (1 << b)
                    new[t] = packets[t] & ~(1 << b) | (1 << a)
                    yield s, a, t, b, tuple(new)


def slot_orders(packets: Sequence[int]):
    """All orders of the same packets (120 for five)."""
    return [tuple(p) for p in permutations([int(x) for x in packets])]
