"""The tables of a draw-poker rule set, and hand ranking over them (64-bit masks).

**Jokers are wild**: a joker stands for whatever card of the deck's ranks and suits makes the
hand best, even a card already in the hand (that is how four aces and a joker make five of a
kind; the same rule lets a joker make a second ace in a flush).  The best substitution is
exact and comes from tables built once per rule set (``quintet.draw.kernels``): a hand maps
to a *cell* (number of jokers, rank multiset of its ordinary cards, one-suit / one-colour /
mixed), and each cell's key was computed by trying every stand-in rank at build time.

``tables(rules)`` builds those tables; the ``VariantTables`` it returns is the ranker
``quintet.evaluator`` uses for a variant rule set (``evaluate``, ``hand_key``,
``hand_keys``, ``describe``, ``rank_packets`` are the public API).  Here besides:
``stand_ins`` (which card each joker plays), ``percentile`` (a hand's strength among all
hands of the deck) and ``hand_count_by_category``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import product

import numpy as np

from ..cards import binomial_table, cards_of
from ..hands import category_of_key, straight_top_table, tiebreak_code
from ..rules import Category, Rules
from . import kernels

__all__ = [
    "VariantTables",
    "tables",
    "stand_ins",
    "percentile",
    "hand_count_by_category",
    "card_arrays",
]


@dataclass(frozen=True, eq=False)
class VariantTables:
    """Everything the kernels need for one rule set, and the classes of its hands.

    The ranker of a variant rule set (``quintet.evaluator.HandRanker``: ``key``, ``keys``,
    ``packets`` take masks validated by the evaluator).

    * ``strengths``, ``straight_top``, ``tiebreak`` — the rule set for the kernels (as in
      ``quintet.kernels``, ``straight_top`` over every set of the deck's ranks);
    * ``card_rank``/``card_suitbit`` — per card int (64 entries), see ``quintet.draw.kernels``;
    * ``cell_keys`` — key of each cell; ``cell_class`` — its class (-1: no hand of the deck);
    * ``class_keys`` (uint32, increasing), ``class_categories`` (uint8 ids),
      ``class_counts`` — number of hands of the whole deck in each class, ``n_hands`` their
      total (C(deck size, 5)), ``percentiles`` — (hands below + half the hands equal) / all.
    """

    rules: Rules
    strengths: np.ndarray
    straight_top: np.ndarray
    tiebreak: int
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

    def classes(self, masks: np.ndarray) -> np.ndarray:
        """Class (int32) of each 5-card mask of the deck (uint64 array)."""
        arr = np.ascontiguousarray(masks, dtype=np.uint64)
        return kernels.mask_cells(arr, self.card_rank, self.card_suitbit, self.binom, self.offsets, self.cell_class)

    def key(self, mask: int) -> int:
        return int(self.class_keys[self.classes(np.array([mask], dtype=np.uint64))[0]])

    def keys(self, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        cls = self.classes(masks)
        return self.class_keys[cls], self.class_categories[cls]

    def packets(self, live: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        cards = np.array(sorted(cards_of(live)), dtype=np.int64)
        masks, global_classes = kernels.subset_cells(
            cards, self.card_rank, self.card_suitbit, self.binom, self.offsets, self.cell_class
        )
        present = np.zeros(self.n_classes, dtype=np.int64)
        present[global_classes] = 1
        dense_of = np.cumsum(present) - 1
        classes = dense_of[global_classes].astype(np.int32)
        return (
            masks,
            self.class_keys[global_classes],
            self.class_categories[global_classes],
            classes,
            int(present.sum()),
        )


def card_arrays(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``card_rank`` and ``card_suitbit`` (int64[64]) of the rule set's deck."""
    deck = rules.deck
    rank = np.full(64, -1, dtype=np.int64)
    suitbit = np.zeros(64, dtype=np.int64)
    for c in deck.cards():
        if deck.is_joker(c):
            rank[c] = kernels.JOKER
        else:
            rank[c] = deck.rank_of(c)
            suitbit[c] = 1 << deck.suit_of(c)
    return rank, suitbit


BINOMIAL_ROWS = 40  # C(n, k) rows for the cells' colex indices: above any rank index + 5


@cache
def tables(rules: Rules) -> VariantTables:
    """Build (once per rule set) the cell keys, the classes and their counts over the deck."""
    if rules.hand_size != 5:
        raise ValueError("the variant evaluator ranks five-card hands only")
    deck = rules.deck
    strengths = np.array(rules.category_strengths(), dtype=np.int64)
    tiebreak = tiebreak_code(rules)
    straight_top = straight_top_table(rules)
    binom = binomial_table(BINOMIAL_ROWS, 6)
    cell_keys, offsets = kernels.build_cell_keys(
        deck.n_ranks, deck.jokers, strengths, straight_top, tiebreak, binom
    )
    card_rank, card_suitbit = card_arrays(rules)
    identity = np.arange(cell_keys.shape[0], dtype=np.int64)
    all_cards = np.array(deck.cards(), dtype=np.int64)
    cell_counts = kernels.subset_histogram(
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
    class_categories = np.array([category_of_key(k, rules) for k in class_keys], dtype=np.uint8)
    return VariantTables(
        rules,
        strengths,
        straight_top,
        tiebreak,
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


# ---------------------------------------------------------------- draw-poker facts -----


def percentile(key: int, rules: Rules) -> float:
    """Share of all hands of the deck weaker than ``key``, plus half the equal ones (0..1)."""
    t = tables(rules)
    i = int(np.searchsorted(t.class_keys, np.uint32(key)))
    below = int(t.class_counts[:i].sum())
    equal = int(t.class_counts[i]) if i < t.n_classes and int(t.class_keys[i]) == int(key) else 0
    return (below + 0.5 * equal) / t.n_hands


def _eval_cards(cards: list[tuple[int, int]], t: VariantTables) -> int:
    """Key of five explicit (rank, suit) cards, duplicates allowed (no jokers)."""
    ranks = np.array([r for r, _ in cards], dtype=np.int64)
    suits = {s for _, s in cards}
    flush = len(suits) == 1
    colour = suits <= {1, 2} or suits <= {0, 3}
    return int(kernels.eval_multiset(ranks, flush, colour, t.strengths, t.straight_top, t.tiebreak))


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
    target = t.key(mask)
    ordinary = [(deck.rank_of(c), deck.suit_of(c)) for c in hand if not deck.is_joker(c)]
    candidates = sorted(((r, s) for r in range(deck.n_ranks) for s in range(4)), reverse=True)
    best_dup: tuple[tuple[int, int], ...] | None = None
    for choice in product(candidates, repeat=len(jokers)):
        if len(jokers) == 2 and choice[0] < choice[1]:
            continue
        if _eval_cards(ordinary + list(choice), t) != target:
            continue
        if len(set(choice)) == len(choice) and not set(choice) & set(ordinary):
            best_dup = choice
            break
        if best_dup is None:
            best_dup = choice
    assert best_dup is not None, "the table's key is reachable by construction"
    return {j: deck.card(r, s) for j, (r, s) in zip(jokers, best_dup, strict=True)}


def hand_count_by_category(rules: Rules) -> dict[Category, int]:
    """Number of hands of the deck in each category of the table (exact)."""
    t = tables(rules)
    out = {c: 0 for c in rules.categories}
    for cat, n in zip(t.class_categories, t.class_counts, strict=True):
        out[Category(int(cat))] += int(n)
    return out
