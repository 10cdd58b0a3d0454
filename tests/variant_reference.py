"""A slow, obviously-correct reference for the draw-poker variants (docs/draw-poker.md).

Independent of ``quintet.draw`` (its tables and kernels): no cells, no tables, no suit
states.  A hand is five (rank, suit) cards; a joker is tried as **every** card of the deck's
ranks and suits (duplicates of cards in the hand included: that is what makes four aces
and a joker five aces), and the best result wins.  The category of five concrete cards is
read the textbook way — the rank *pattern* (5 / 4+1 / 3+2 / 3+1+1 / 2+2+1 / 2+1+1+1 /
1+1+1+1+1) gives one category, and flush / colour / straight add the suit-based ones —
and the hand takes the highest of them that the rule set's table holds.

``Rules.tiebreak``: ``group-only`` keeps only the group of a four, a three or a full house
(the rank of the four or the three); ``no-kickers`` as well, and keeps only the pair of a
pair, the two pairs of two pair and the highest card of high card.

The reference key is ``strength << 24 | tie-break ranks, 4 bits each, most significant
first``; it is comparable only with itself (tests compare *orders*, not numbers).

numba (no cache) keeps C(54, 5) hands × 52² stand-ins within reach.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from quintet.rules import Category, Rules

# ``Rules.tiebreak`` as an int for the kernels below (each ties more hands than the one before)
TIEBREAK_CODES = {"kickers": 0, "group-only": 1, "no-kickers": 2}
# category ids (quintet.rules.Category values, asserted below)
HIGH, PAIR, TWO, THREE, STRAIGHT, FLUSH, FULL, FOUR, SF, FIVE, COLOUR, SC = range(12)
assert [int(c) for c in Category.all()] == list(range(12))
assert (Category.FIVE_OF_A_KIND, Category.COLOUR, Category.STRAIGHT_COLOUR) == (FIVE, COLOUR, SC)


@njit
def _pack(cat_strength, tb, n):
    key = np.int64(cat_strength) << 24
    for i in range(n):
        key |= np.int64(tb[i]) << (20 - 4 * i)
    return key


@njit
def concrete_key(r, s, n_ranks, strengths, ace_low, tiebreak):
    """Reference key of five concrete cards (rank r[i], suit s[i]); duplicates allowed."""
    counts = np.zeros(n_ranks, dtype=np.int64)
    for i in range(5):
        counts[r[i]] += 1
    flush = True
    red = True
    black = True
    for i in range(5):
        if s[i] != s[0]:
            flush = False
        if not (s[i] == 1 or s[i] == 2):
            red = False
        if not (s[i] == 0 or s[i] == 3):
            black = False
    colour = red or black
    # grouped ranks: by count (5..1), then rank (high..low); each rank once
    groups = np.zeros(5, dtype=np.int64)
    gcount = np.zeros(5, dtype=np.int64)
    ng = 0
    for c in range(5, 0, -1):
        for rank in range(n_ranks - 1, -1, -1):
            if counts[rank] == c:
                groups[ng] = rank
                gcount[ng] = c
                ng += 1
    # all five ranks, highest first, with duplicates
    desc = np.zeros(5, dtype=np.int64)
    k = 0
    for rank in range(n_ranks - 1, -1, -1):
        for _ in range(counts[rank]):
            desc[k] = rank
            k += 1
    # pattern category
    if gcount[0] == 5:
        pattern, n_tb = FIVE, 1
    elif gcount[0] == 4:
        pattern, n_tb = FOUR, 2
    elif gcount[0] == 3 and gcount[1] == 2:
        pattern, n_tb = FULL, 2
    elif gcount[0] == 3:
        pattern, n_tb = THREE, 3
    elif gcount[0] == 2 and gcount[1] == 2:
        pattern, n_tb = TWO, 3
    elif gcount[0] == 2:
        pattern, n_tb = PAIR, 4
    else:
        pattern, n_tb = HIGH, 5
    if tiebreak >= 1 and (pattern == FOUR or pattern == FULL or pattern == THREE):
        n_tb = 1  # group-only and no-kickers: the group alone
    if tiebreak == 2 and (pattern == PAIR or pattern == HIGH):
        n_tb = 1  # no-kickers: the pair alone, the highest card alone
    if tiebreak == 2 and pattern == TWO:
        n_tb = 2  # no-kickers: the two pairs alone
    best = np.int64(-1)
    if strengths[pattern] >= 0:
        best = max(best, _pack(strengths[pattern], groups, n_tb))
    if flush and strengths[FLUSH] >= 0:
        best = max(best, _pack(strengths[FLUSH], desc, 5))
    if colour and strengths[COLOUR] >= 0:
        best = max(best, _pack(strengths[COLOUR], desc, 5))
    if ng == 5:
        top = -1
        if desc[0] - desc[4] == 4:
            top = desc[0]
        elif ace_low and desc[0] == n_ranks - 1 and desc[1] == 3 and desc[4] == 0:
            top = 3  # A + the four lowest ranks: the ace plays low
        if top >= 0:
            tb = np.zeros(1, dtype=np.int64)
            tb[0] = top
            if strengths[STRAIGHT] >= 0:
                best = max(best, _pack(strengths[STRAIGHT], tb, 1))
            if colour and strengths[SC] >= 0:
                best = max(best, _pack(strengths[SC], tb, 1))
            if flush and strengths[SF] >= 0:
                best = max(best, _pack(strengths[SF], tb, 1))
    return best


@njit
def hand_key_with_jokers(ranks, suits, jokers, n_ranks, strengths, ace_low, tiebreak):
    """Best reference key over every stand-in card (n_ranks × 4 suits) for each joker."""
    r = ranks.copy()
    s = suits.copy()
    pos = np.zeros(2, dtype=np.int64)
    nj = 0
    for i in range(5):
        if jokers[i]:
            pos[nj] = i
            nj += 1
    if nj == 0:
        return concrete_key(r, s, n_ranks, strengths, ace_low, tiebreak)
    best = np.int64(-1)
    n_cards = 4 * n_ranks
    for a in range(n_cards):
        r[pos[0]] = a % n_ranks
        s[pos[0]] = a // n_ranks
        if nj == 1:
            best = max(best, concrete_key(r, s, n_ranks, strengths, ace_low, tiebreak))
            continue
        for b in range(n_cards):
            r[pos[1]] = b % n_ranks
            s[pos[1]] = b // n_ranks
            best = max(best, concrete_key(r, s, n_ranks, strengths, ace_low, tiebreak))
    return best


@njit
def all_hands(
    card_ids, card_ranks, card_suits, card_jokers, n_ranks, strengths, ace_low, tiebreak
):
    """Every 5-subset of the deck (lexicographic in the given card order): masks and reference keys."""
    n = card_ids.shape[0]
    total = n * (n - 1) * (n - 2) * (n - 3) * (n - 4) // 120
    masks = np.empty(total, dtype=np.uint64)
    keys = np.empty(total, dtype=np.int64)
    idx = np.zeros(5, dtype=np.int64)
    r = np.zeros(5, dtype=np.int64)
    s = np.zeros(5, dtype=np.int64)
    j = np.zeros(5, dtype=np.bool_)
    out = 0
    for a in range(n - 4):
        for b in range(a + 1, n - 3):
            for c in range(b + 1, n - 2):
                for d in range(c + 1, n - 1):
                    for e in range(d + 1, n):
                        idx[0], idx[1], idx[2], idx[3], idx[4] = a, b, c, d, e
                        m = np.uint64(0)
                        for i in range(5):
                            m |= np.uint64(1) << np.uint64(card_ids[idx[i]])
                            r[i] = card_ranks[idx[i]]
                            s[i] = card_suits[idx[i]]
                            j[i] = card_jokers[idx[i]]
                        masks[out] = m
                        keys[out] = hand_key_with_jokers(
                            r, s, j, n_ranks, strengths, ace_low, tiebreak
                        )
                        out += 1
    return masks, keys


def deck_arrays(rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Card ints, ranks, suits and joker flags of the deck, from the documented layout.

    Layout (``quintet.cards`` docs): card = field * suit + rank; jokers are 4*field - 2 + i;
    the 36-card joker deck's 6♠ is not an ordinary card (it is the joker).
    """
    deck = rules.deck
    f = deck.field
    ids, ranks, suits, jokers = [], [], [], []
    for suit in range(4):
        for rank in range(deck.n_ranks):
            if deck.joker_alias == deck.ranks[rank] + "cdhs"[suit]:
                continue
            ids.append(f * suit + rank)
            ranks.append(rank)
            suits.append(suit)
            jokers.append(False)
    for i in range(deck.jokers):
        ids.append(4 * f - 2 + i)
        ranks.append(0)
        suits.append(0)
        jokers.append(True)
    return (
        np.array(ids, dtype=np.int64),
        np.array(ranks, dtype=np.int64),
        np.array(suits, dtype=np.int64),
        np.array(jokers, dtype=np.bool_),
    )


def strengths_of(rules: Rules) -> np.ndarray:
    """Strength of each category id (-1: not in the table), read from ``rules.categories``."""
    out = np.full(12, -1, dtype=np.int64)
    for strength, cat in enumerate(rules.categories):
        out[int(cat)] = strength
    return out


def reference_hands(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """(masks uint64, reference keys int64) of every 5-card hand of the rule set's deck."""
    ids, ranks, suits, jokers = deck_arrays(rules)
    return all_hands(
        ids,
        ranks,
        suits,
        jokers,
        rules.deck.n_ranks,
        strengths_of(rules),
        rules.ace_low_straight,
        TIEBREAK_CODES[rules.tiebreak],
    )


def reference_category(key: int, rules: Rules) -> Category:
    return rules.categories[int(key) >> 24]


def reference_key_of_cards(cards: list[tuple[int, int] | None], rules: Rules) -> int:
    """Reference key of five (rank, suit) cards, ``None`` for a joker."""
    r = np.array([c[0] if c else 0 for c in cards], dtype=np.int64)
    s = np.array([c[1] if c else 0 for c in cards], dtype=np.int64)
    j = np.array([c is None for c in cards], dtype=np.bool_)
    return int(
        hand_key_with_jokers(
            r,
            s,
            j,
            rules.deck.n_ranks,
            strengths_of(rules),
            rules.ace_low_straight,
            TIEBREAK_CODES[rules.tiebreak],
        )
    )
