"""Five-card draw poker variants (RULES.md §2): jokers, 36/52/53/54-card decks, colours.

Rule sets ``draw<deck>[-<table>]`` (``quintet.rules.RULE_SETS``):

==================  =====================================================================
deck                ``32`` (7–A), ``36`` (6–A), ``36-joker`` (6–A; the 6♠ is the joker),
                    ``52``, ``53`` (52 + one joker), ``54`` (52 + two jokers)
table (suffix)      *(none)* standard poker order, five of a kind on top;
                    ``-11`` the 11-category table (pair … colour, flush, straight, straight
                    colour, straight flush, four, five of a kind); ``-11-swap`` the same
                    with four of a kind and straight flush swapped; ``-9`` the 9-category
                    table (no flush; full house above straight); ``-7`` the 11-category
                    table without colour, flush, straight and straight colour
==================  =====================================================================

High card ("no category") is the bottom of every table.  Options of ``Rules`` apply as in
Quintet: ``ace_low_straight`` (A with the deck's four lowest ranks: A-2-3-4-5, A-6-7-8-9),
``flush_over_full_house``, ``tiebreak``, and ``swap_four_straight_flush``.

**Jokers are wild**: a joker stands for whatever card of the deck's ranks and suits makes the
hand best, even a card already in the hand (that is how four aces and a joker make five of a
kind; the same rule lets a joker make a second ace in a flush).  The best substitution is
exact and comes from tables built once per rule set (``quintet.kernels64``): a hand maps to
a *cell* (number of jokers, rank multiset of its ordinary cards, one-suit / one-colour /
mixed), and each cell's key was computed by trying every stand-in rank at build time.

This module builds those tables (``tables(rules)``) and evaluates validated masks; the public
API is ``quintet.evaluator`` (``evaluate``, ``hand_key``, ``hand_keys``, ``describe``,
``rank_packets`` dispatch here for variant rule sets), plus ``stand_ins`` (which card each
joker plays) and ``percentile`` (a hand's strength among all hands of the deck).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product

import numpy as np

from . import kernels64 as k64
from .cards import (
    RANK_NAMES,
    CardNotInDeckError,
    WrongCardCountError,
    cards_of,
    popcount,
)
from .rules import Category, Rules

__all__ = [
    "VariantTables",
    "tables",
    "key_of_mask",
    "keys_of_masks",
    "category_of_key",
    "describe_key",
    "describe_mask",
    "stand_ins",
    "percentile",
    "rank_subsets",
    "card_arrays",
]


@dataclass(frozen=True, eq=False)
class VariantTables:
    """Everything the kernels need for one rule set, and the classes of its hands.

    * ``card_rank``/``card_suitbit`` — per card int (64 entries), see ``kernels64``;
    * ``cell_keys`` — key of each cell; ``cell_class`` — its class (-1: no hand of the deck);
    * ``class_keys`` (uint32, increasing), ``class_categories`` (uint8 ids),
      ``class_counts`` — number of hands of the whole deck in each class, ``n_hands`` their
      total (C(deck size, 5)), ``percentiles`` — (hands below + half the hands equal) / all.
    """

    rules: Rules
    card_rank: np.ndarray
    card_suitbit: np.ndarray
    binom: np.ndarray
    offsets: np.ndarray
    cell_keys: np.ndarray
    cell_class: np.ndarray
    class_keys: np.ndarray
    class_categories: np.ndarray
    class_counts: np.ndarray
    n_hands: int
    percentiles: np.ndarray

    @property
    def n_classes(self) -> int:
        return int(self.class_keys.shape[0])

    @property
    def deck_cards(self) -> np.ndarray:
        return np.array(self.rules.deck.cards(), dtype=np.int64)


def card_arrays(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``card_rank`` and ``card_suitbit`` (int64[64]) of the rule set's deck."""
    deck = rules.deck
    rank = np.full(64, -1, dtype=np.int64)
    suitbit = np.zeros(64, dtype=np.int64)
    for c in deck.cards():
        if deck.is_joker(c):
            rank[c] = k64.JOKER
        else:
            rank[c] = deck.rank_of(c)
            suitbit[c] = 1 << deck.suit_of(c)
    return rank, suitbit


def straight_top_table(rules: Rules) -> np.ndarray:
    """For every set of ranks (bit r = rank r): 1 + the top rank of a straight, else 0."""
    n = rules.deck.n_ranks
    table = np.zeros(1 << n, dtype=np.int64)
    for low in range(n - 4):
        table[0b11111 << low] = low + 4 + 1
    if rules.ace_low_straight:
        table[(1 << (n - 1)) | 0b1111] = 3 + 1  # the ace plays low: top is the fourth-lowest rank
    return table


@cache
def tables(rules: Rules) -> VariantTables:
    """Build (once per rule set) the cell keys, the classes and their counts over the deck."""
    if rules.hand_size != 5:
        raise ValueError("the variant evaluator ranks five-card hands only")
    deck = rules.deck
    strengths = np.array(rules.category_strengths(), dtype=np.int64)
    group_only = 1 if rules.tiebreak == "group-only" else 0
    binom = k64.binomial_table()
    cell_keys, offsets = k64.build_cell_keys(
        deck.n_ranks, deck.jokers, strengths, straight_top_table(rules), group_only, binom
    )
    card_rank, card_suitbit = card_arrays(rules)
    identity = np.arange(cell_keys.shape[0], dtype=np.int64)
    all_cards = np.array(deck.cards(), dtype=np.int64)
    cell_counts = k64.subset_histogram(
        all_cards, card_rank, card_suitbit, binom, offsets, identity, cell_keys.shape[0]
    )
    reachable = cell_counts > 0
    class_keys = np.unique(cell_keys[reachable])
    pos = np.searchsorted(class_keys, cell_keys)
    pos_clipped = np.minimum(pos, class_keys.shape[0] - 1)
    cell_class = np.where(class_keys[pos_clipped] == cell_keys, pos_clipped, -1).astype(np.int32)
    class_counts = (
        np.bincount(
            cell_class[reachable], weights=cell_counts[reachable], minlength=class_keys.shape[0]
        )
        .round()
        .astype(np.int64)
    )
    n_hands = int(cell_counts.sum())
    below = np.cumsum(class_counts) - class_counts
    percentiles = (below + 0.5 * class_counts) / n_hands
    order = rules.categories
    class_categories = np.array([int(order[int(k) >> 20]) for k in class_keys], dtype=np.uint8)
    return VariantTables(
        rules,
        card_rank,
        card_suitbit,
        binom,
        offsets,
        cell_keys,
        cell_class,
        class_keys.astype(np.uint32),
        class_categories,
        class_counts,
        n_hands,
        percentiles,
    )


# ---------------------------------------------------------------- evaluation ----------


def classes_of_masks(masks: np.ndarray, rules: Rules) -> np.ndarray:
    """Class (int32) of each validated 5-card mask (uint64 array)."""
    t = tables(rules)
    arr = np.ascontiguousarray(masks, dtype=np.uint64)
    return k64.mask_cells(arr, t.card_rank, t.card_suitbit, t.binom, t.offsets, t.cell_class)


def key_of_mask(mask: int, rules: Rules) -> int:
    """Key of one validated 5-card mask."""
    t = tables(rules)
    cls = classes_of_masks(np.array([mask], dtype=np.uint64), rules)[0]
    return int(t.class_keys[cls])


def validate_masks(masks: np.ndarray, rules: Rules) -> np.ndarray:
    raw = np.asarray(masks)
    if raw.ndim != 1 or raw.dtype.kind not in "iu":
        raise CardNotInDeckError("masks must be a 1-D array of integer card masks")
    if raw.dtype.kind == "i" and raw.size and np.any(raw < 0):
        raise CardNotInDeckError("a mask is negative")
    arr = np.ascontiguousarray(raw.astype(np.uint64))
    outside = np.uint64(~rules.deck.full_mask & 0xFFFF_FFFF_FFFF_FFFF)
    if arr.size and np.any(arr & outside):
        raise CardNotInDeckError(f"a mask holds cards outside the {rules.deck.size}-card deck")
    if arr.size and np.any(np.bitwise_count(arr) != 5):
        raise WrongCardCountError("every mask must hold exactly 5 cards of the deck")
    return arr


def keys_of_masks(masks: np.ndarray, rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """Keys (uint32) and category ids (uint8) of an array of 5-card masks (validated here)."""
    arr = validate_masks(masks, rules)
    t = tables(rules)
    cls = classes_of_masks(arr, rules)
    return t.class_keys[cls], t.class_categories[cls]


def category_of_key(key: int, rules: Rules) -> Category:
    return rules.categories[int(key) >> 20]


def _tb(key: int, place: int) -> int:
    return (int(key) >> (16 - 4 * place)) & 0xF


def describe_key(key: int, rules: Rules) -> str:
    """Human description of a key (computed with kickers): 'five of a kind, aces', 'colour, king high'."""
    category = category_of_key(key, rules)
    ranks = rules.deck.ranks

    def one(place: int) -> str:
        return RANK_NAMES[ranks[_tb(key, place)]][0]

    def many(place: int) -> str:
        return RANK_NAMES[ranks[_tb(key, place)]][1]

    if category == Category.FIVE_OF_A_KIND:
        return f"five of a kind, {many(0)}"
    if category in (
        Category.STRAIGHT,
        Category.STRAIGHT_FLUSH,
        Category.STRAIGHT_COLOUR,
        Category.FLUSH,
        Category.COLOUR,
    ):
        return f"{category.label}, {one(0)} high"
    if category == Category.FOUR_OF_A_KIND:
        return f"four {many(0)}"
    if category == Category.FULL_HOUSE:
        return f"full house, {many(0)} over {many(1)}"
    if category == Category.THREE_OF_A_KIND:
        return f"three {many(0)}"
    if category == Category.TWO_PAIR:
        return f"two pair, {many(0)} and {many(1)}"
    if category == Category.PAIR:
        return f"pair of {many(0)}"
    return f"high card, {one(0)}"


def describe_mask(mask: int, rules: Rules) -> str:
    """Description of a validated 5-card mask (the groups are named even under group-only)."""
    kick_rules = rules if rules.tiebreak == "kickers" else rules.with_options(tiebreak="kickers")
    return describe_key(key_of_mask(mask, kick_rules), kick_rules)


def percentile(key: int, rules: Rules) -> float:
    """Share of all hands of the deck weaker than ``key``, plus half the equal ones (0..1)."""
    t = tables(rules)
    i = int(np.searchsorted(t.class_keys, np.uint32(key)))
    below = int(t.class_counts[:i].sum())
    equal = int(t.class_counts[i]) if i < t.n_classes and int(t.class_keys[i]) == int(key) else 0
    return (below + 0.5 * equal) / t.n_hands


def _eval_cards(cards: list[tuple[int, int]], rules: Rules, t: VariantTables) -> int:
    """Key of five explicit (rank, suit) cards, duplicates allowed (no jokers)."""
    ranks = np.array([r for r, _ in cards], dtype=np.int64)
    suits = {s for _, s in cards}
    flush = len(suits) == 1
    colour = suits <= {1, 2} or suits <= {0, 3}
    strengths = np.array(rules.category_strengths(), dtype=np.int64)
    return int(
        k64.eval_multiset(
            ranks,
            flush,
            colour,
            strengths,
            straight_top_table(rules),
            1 if rules.tiebreak == "group-only" else 0,
        )
    )


def stand_ins(mask: int, rules: Rules) -> dict[int, int]:
    """A best substitution: {joker card: the ordinary card it plays} for a validated hand.

    Among the substitutions that reach the hand's key, prefers cards not already in the hand
    (and different from each other), then the highest.  Five of a kind needs a duplicate.
    """
    deck = rules.deck
    hand = list(cards_of(mask))
    jokers = [c for c in hand if deck.is_joker(c)]
    if not jokers:
        return {}
    t = tables(rules)
    target = key_of_mask(mask, rules)
    ordinary = [(deck.rank_of(c), deck.suit_of(c)) for c in hand if not deck.is_joker(c)]
    candidates = sorted(((r, s) for r in range(deck.n_ranks) for s in range(4)), reverse=True)
    best_dup: tuple[tuple[int, int], ...] | None = None
    for choice in product(candidates, repeat=len(jokers)):
        if len(jokers) == 2 and choice[0] < choice[1]:
            continue
        if _eval_cards(ordinary + list(choice), rules, t) != target:
            continue
        if len(set(choice)) == len(choice) and not set(choice) & set(ordinary):
            best_dup = choice
            break
        if best_dup is None:
            best_dup = choice
    assert best_dup is not None, "the table's key is reachable by construction"
    return {j: deck.card(r, s) for j, (r, s) in zip(jokers, best_dup, strict=True)}


def rank_subsets(
    live: int, rules: Rules
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """Every 5-subset of the validated card mask ``live``, in lexicographic card order.

    Returns (masks uint64, keys uint32, categories uint8, dense classes int32, n_classes).
    """
    t = tables(rules)
    cards = np.array(sorted(cards_of(live)), dtype=np.int64)
    masks, global_classes = k64.subset_cells(
        cards, t.card_rank, t.card_suitbit, t.binom, t.offsets, t.cell_class
    )
    present = np.zeros(t.n_classes, dtype=np.int64)
    present[global_classes] = 1
    dense_of = np.cumsum(present) - 1
    classes = dense_of[global_classes].astype(np.int32)
    return (
        masks,
        t.class_keys[global_classes],
        t.class_categories[global_classes],
        classes,
        int(present.sum()),
    )


def hand_count_by_category(rules: Rules) -> dict[Category, int]:
    """Number of hands of the deck in each category of the table (exact)."""
    t = tables(rules)
    out = {c: 0 for c in rules.categories}
    for cat, n in zip(t.class_categories, t.class_counts, strict=True):
        out[Category(int(cat))] += int(n)
    return out


def check_hand_size(mask: int) -> None:
    if popcount(mask) != 5:
        raise WrongCardCountError(f"a hand has 5 cards, got {popcount(mask)}")
