"""Hand evaluation: a validated Python API over the numba kernels in ``quintet.kernels``.

* ``evaluate(hand)`` — one hand: strength key, category and a human description;
* ``rank_packets(live)`` — every 5-card subset ("packet") of a card set, with masks, keys,
  categories and dense rank classes 0..R−1 (53,130 packets for a Quintet deal).

Keys are comparable within one rule set: higher is stronger, equal is a tie.

Rule sets of the five-card draw variants (``Rules.is_variant``: jokers, 36/52/54-card decks,
colour categories; RULES.md §2) are served by ``quintet.variants`` over 64-bit masks
(``masks`` uint64 there); the classic 32-bit path below is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

import numpy as np

from . import kernels, variants
from .cards import (
    CardError,
    CardNotInDeckError,
    WrongCardCountError,
    mask_of,
    parse_cards,
    popcount,
)
from .rules import CLASSIC, Category, Rules

__all__ = [
    "HandValue",
    "PacketTable",
    "evaluate",
    "hand_key",
    "hand_keys",
    "describe",
    "rank_packets",
    "category_of_key",
]


@dataclass(frozen=True)
class _Tables:
    strengths: np.ndarray  # int64[9]: strength of each category id
    straight_top: np.ndarray  # int64[256]: 1 + top rank of a straight, else 0
    group_only: int
    strength_to_category: tuple[Category, ...]
    multiset_class: np.ndarray  # uint16[5**8]: class of a non-flush hand by multiset index
    flush_class: np.ndarray  # uint16[256]: class of a one-suit hand by its rank set
    class_keys: np.ndarray  # uint32[G]: key of each class among all hands of the deck
    class_categories: np.ndarray  # uint8[G]: category id of each class


def _straight_top_table(rules: Rules) -> np.ndarray:
    n = rules.deck.n_ranks
    table = np.zeros(256, dtype=np.int64)
    for low in range(n - 4):
        table[0b11111 << low] = low + 4 + 1
    if rules.ace_low_straight:
        wheel = (1 << (n - 1)) | 0b1111  # ace + the deck's four lowest ranks
        table[wheel] = 3 + 1  # top card is the fourth-lowest rank (10 in the 32-card deck)
    return table


@cache
def _tables(rules: Rules) -> _Tables:
    if rules.deck.field != 8 or rules.hand_size != 5:
        raise ValueError(f"the 32-bit evaluator needs 5-card hands of at most 8 ranks, not {rules.deck.name}")
    strengths = np.array(rules.category_strengths(), dtype=np.int64)
    straight_top = _straight_top_table(rules)
    group_only = 1 if rules.tiebreak == "group-only" else 0
    multiset_keys, flush_keys = kernels.hand_table32(strengths, straight_top, group_only)
    class_keys = np.unique(np.concatenate([multiset_keys[multiset_keys >= 0], flush_keys[flush_keys >= 0]]))
    assert class_keys.size < 1 << 16

    def to_class(keys: np.ndarray) -> np.ndarray:
        return np.where(keys >= 0, np.searchsorted(class_keys, keys), 0).astype(np.uint16)

    strength_to_category = rules.categories
    class_categories = np.array([strength_to_category[k >> 20] for k in class_keys], dtype=np.uint8)
    return _Tables(
        strengths, straight_top, group_only, strength_to_category,
        to_class(multiset_keys), to_class(flush_keys), class_keys.astype(np.uint32), class_categories,
    )


def _as_mask(hand: int | str | Iterable[int], rules: Rules, size: int | None = None) -> int:
    if isinstance(hand, str):
        return mask_of(parse_cards(hand, rules.deck, count=size, what="cards in a hand"))
    if isinstance(hand, (int, np.integer)):
        mask = int(hand)
        if mask < 0 or mask & ~rules.deck.full_mask:
            raise CardNotInDeckError(f"mask {mask:#x} holds cards outside the {rules.deck.size}-card deck")
    else:
        cards = [int(c) for c in hand]
        mask = mask_of(cards)
        if len(cards) != popcount(mask):
            raise CardError("duplicate card in hand")
        if mask & ~rules.deck.full_mask:
            raise CardNotInDeckError(f"hand holds cards outside the {rules.deck.size}-card deck")
    if size is not None and popcount(mask) != size:
        raise WrongCardCountError(f"a hand has {size} cards, got {popcount(mask)}")
    return mask


def category_of_key(key: int, rules: Rules = CLASSIC) -> Category:
    if rules.is_variant:
        return variants.category_of_key(key, rules)
    return _tables(rules).strength_to_category[int(key) >> 20]


def hand_key(hand: int | str | Iterable[int], rules: Rules = CLASSIC) -> int:
    """Strength key of one 5-card hand (mask, card list or text)."""
    if rules.is_variant:
        return variants.key_of_mask(_as_mask(hand, rules, 5), rules)
    t = _tables(rules)
    key, _ = kernels.hand_key32(np.int64(_as_mask(hand, rules, 5)), t.strengths, t.straight_top, t.group_only)
    return int(key)


def hand_keys(masks: np.ndarray, rules: Rules = CLASSIC) -> tuple[np.ndarray, np.ndarray]:
    """Keys (uint32) and category ids (uint8) of an array of 5-card masks (validated)."""
    if rules.is_variant:
        return variants.keys_of_masks(masks, rules)
    raw = np.asarray(masks)
    if raw.ndim != 1 or raw.dtype.kind not in "iu":
        raise CardError("masks must be a 1-D array of integer card masks")
    wide = raw.astype(np.uint64) if raw.dtype.kind == "u" else raw.astype(np.int64)
    if wide.size and (np.any(wide < 0) or np.any(wide > rules.deck.full_mask)):
        raise CardNotInDeckError(f"a mask holds cards outside the {rules.deck.size}-card deck")
    arr = np.ascontiguousarray(wide, dtype=np.uint32)
    if arr.size and np.any(np.bitwise_count(arr) != 5):
        raise WrongCardCountError("every mask must hold exactly 5 cards of the deck")
    t = _tables(rules)
    return kernels.hand_keys32(arr, t.strengths, t.straight_top, t.group_only)


def describe(hand: int | str | Iterable[int], rules: Rules = CLASSIC) -> str:
    """Human description: 'full house, aces over eights', 'straight flush, king high'."""
    mask = _as_mask(hand, rules, 5)
    if rules.is_variant:
        return variants.describe_mask(mask, rules)
    kick_rules = rules if rules.tiebreak == "kickers" else rules.with_options(tiebreak="kickers")
    return variants.describe_key(hand_key(mask, kick_rules), kick_rules)  # groups named even in group-only


@dataclass(frozen=True)
class HandValue:
    mask: int
    key: int
    category: Category
    description: str


def evaluate(hand: int | str | Iterable[int], rules: Rules = CLASSIC) -> HandValue:
    """Evaluate one 5-card hand."""
    mask = _as_mask(hand, rules, 5)
    key = hand_key(mask, rules)
    return HandValue(mask, key, category_of_key(key, rules), describe(mask, rules))


@dataclass(frozen=True)
class PacketTable:
    """Every 5-card subset of ``live``, in lexicographic card order.

    ``masks``/``keys`` uint32, ``categories`` uint8 category ids, ``classes`` int32 dense
    rank classes 0..n_classes−1 (equal keys share a class; higher class is stronger).
    """

    live: int
    masks: np.ndarray
    keys: np.ndarray
    categories: np.ndarray
    classes: np.ndarray
    n_classes: int
    rules: Rules

    def __len__(self) -> int:
        return int(self.masks.shape[0])

    def class_keys(self) -> np.ndarray:
        """Key of each rank class (length n_classes, increasing)."""
        out = np.zeros(self.n_classes, dtype=np.uint32)
        out[self.classes] = self.keys
        return out


def rank_packets(live: int | str | Iterable[int], rules: Rules = CLASSIC) -> PacketTable:
    """Rank every 5-card subset of the card set ``live`` (mask, card list or text)."""
    mask = _as_mask(live, rules)
    if popcount(mask) < 5:
        raise WrongCardCountError(f"need at least 5 live cards, got {popcount(mask)}")
    if rules.is_variant:
        masks64, keys, categories, classes64, n_classes64 = variants.rank_subsets(mask, rules)
        return PacketTable(mask, masks64, keys, categories, classes64, n_classes64, rules)
    t = _tables(rules)
    masks, global_classes = kernels.packets32(np.int64(mask), t.multiset_class, t.flush_class)
    classes, n_classes = kernels.dense_classes(global_classes, t.class_keys.shape[0])
    return PacketTable(
        mask, masks, t.class_keys[global_classes], t.class_categories[global_classes],
        classes, int(n_classes), rules,
    )
