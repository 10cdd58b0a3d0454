"""Hand evaluation: a validated Python API over the numba kernels in ``quintet.kernels``.

* ``evaluate(hand)`` — one hand: strength key, category and a human description;
* ``rank_packets(live)`` — every 5-card subset ("packet") of a card set, with masks, keys,
  categories and dense rank classes 0..R−1 (53,130 packets for a Quintet deal).

Keys are comparable within one rule set: higher is stronger, equal is a tie (layout:
``quintet.hands``).

Rule sets of five-card draw poker (``Rules.is_variant``: jokers, 36/52/54-card decks,
colour categories; docs/draw-poker.md) are ranked by ``quintet.draw`` over 64-bit masks
(``masks`` uint64 there).  ``_ranker`` is the one place that tells the two apart and the
only import of ``quintet.draw`` from here, done on first use of such a rule set: the
classic 32-bit path never loads the draw-poker code.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Protocol

import numpy as np

from . import kernels
from .cards import (
    CardError,
    CardNotInDeckError,
    WrongCardCountError,
    mask_of,
    parse_cards,
    popcount,
)
from .hands import category_of_key, describe_key, straight_top_table, tiebreak_code
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


class HandRanker(Protocol):
    """What the evaluator asks of a rule set's kernels; every input is validated already.

    ``key(mask)`` — key of one 5-card mask; ``keys(masks)`` — keys (uint32) and category
    ids (uint8) of an array of 5-card masks; ``packets(live)`` — every 5-card subset of the
    mask ``live`` in lexicographic card order: (masks, keys uint32, category ids uint8,
    dense classes int32, number of classes).
    """

    def key(self, mask: int) -> int: ...

    def keys(self, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...

    def packets(self, live: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]: ...


@cache
def _ranker(rules: Rules) -> HandRanker:
    """The kernels that rank hands of ``rules``: the seam between Quintet and draw poker."""
    if rules.is_variant:
        from .draw.tables import tables  # the only import of quintet.draw on the evaluation path

        return tables(rules)
    return _classic_tables(rules)


@dataclass(frozen=True, eq=False)
class _ClassicTables:
    """The classic 32-bit ranker (``HandRanker``): the rule set's tables for ``quintet.kernels``."""

    strengths: np.ndarray  # int64[12]: strength of each category id (-1: not in the table)
    straight_top: np.ndarray  # int64[256]: 1 + top rank of a straight, else 0 (by rank set)
    tiebreak: int  # quintet.hands.tiebreak_code
    multiset_class: np.ndarray  # uint16[5**8]: class of a non-flush hand by multiset index
    flush_class: np.ndarray  # uint16[256]: class of a one-suit hand by its rank set
    class_keys: np.ndarray  # uint32[G]: key of each class among all hands of the deck
    class_categories: np.ndarray  # uint8[G]: category id of each class

    def key(self, mask: int) -> int:
        key, _ = kernels.hand_key32(np.int64(mask), self.strengths, self.straight_top, self.tiebreak)
        return int(key)

    def keys(self, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        arr = np.ascontiguousarray(masks, dtype=np.uint32)
        return kernels.hand_keys32(arr, self.strengths, self.straight_top, self.tiebreak)

    def packets(self, live: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
        masks, global_classes = kernels.packets32(np.int64(live), self.multiset_class, self.flush_class)
        classes, n_classes = kernels.dense_classes(global_classes, self.class_keys.shape[0])
        return (masks, self.class_keys[global_classes], self.class_categories[global_classes], classes,
                int(n_classes))


@cache
def _classic_tables(rules: Rules) -> _ClassicTables:
    if rules.deck.field != 8 or rules.hand_size != 5:
        raise ValueError(f"the 32-bit evaluator needs 5-card hands of at most 8 ranks, not {rules.deck.name}")
    strengths = np.array(rules.category_strengths(), dtype=np.int64)
    straight_top = straight_top_table(rules)
    tiebreak = tiebreak_code(rules)
    multiset_keys, flush_keys = kernels.hand_table32(strengths, straight_top, tiebreak)
    class_keys = np.unique(np.concatenate([multiset_keys[multiset_keys >= 0], flush_keys[flush_keys >= 0]]))
    assert class_keys.size < 1 << 16

    def to_class(keys: np.ndarray) -> np.ndarray:
        return np.where(keys >= 0, np.searchsorted(class_keys, keys), 0).astype(np.uint16)

    class_categories = np.array([category_of_key(k, rules) for k in class_keys], dtype=np.uint8)
    return _ClassicTables(
        strengths, straight_top, tiebreak,
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


def _as_masks(masks: np.ndarray, rules: Rules) -> np.ndarray:
    """An array of 5-card masks of the deck, validated, as uint64."""
    raw = np.asarray(masks)
    if raw.ndim != 1 or raw.dtype.kind not in "iu":
        raise CardError("masks must be a 1-D array of integer card masks")
    if raw.dtype.kind == "i" and raw.size and np.any(raw < 0):
        raise CardNotInDeckError("a mask is negative")
    arr = np.ascontiguousarray(raw, dtype=np.uint64)
    if arr.size and np.any(arr & np.uint64(~rules.deck.full_mask & 0xFFFF_FFFF_FFFF_FFFF)):
        raise CardNotInDeckError(f"a mask holds cards outside the {rules.deck.size}-card deck")
    if arr.size and np.any(np.bitwise_count(arr) != 5):
        raise WrongCardCountError("every mask must hold exactly 5 cards of the deck")
    return arr


def hand_key(hand: int | str | Iterable[int], rules: Rules = CLASSIC) -> int:
    """Strength key of one 5-card hand (mask, card list or text)."""
    return _ranker(rules).key(_as_mask(hand, rules, 5))


def hand_keys(masks: np.ndarray, rules: Rules = CLASSIC) -> tuple[np.ndarray, np.ndarray]:
    """Keys (uint32) and category ids (uint8) of an array of 5-card masks (validated)."""
    return _ranker(rules).keys(_as_masks(masks, rules))


def describe(hand: int | str | Iterable[int], rules: Rules = CLASSIC) -> str:
    """Human description: 'full house, aces over eights', 'straight flush, king high'.

    Groups are named in full whatever ``tiebreak`` says (the key is taken with kickers).
    """
    kick_rules = rules if rules.tiebreak == "kickers" else rules.with_options(tiebreak="kickers")
    return describe_key(hand_key(hand, kick_rules), kick_rules)


@dataclass(frozen=True)
class HandValue:
    mask: int
    key: int
    category: Category
    description: str


def evaluate(hand: int | str | Iterable[int], rules: Rules = CLASSIC) -> HandValue:
    """Evaluate one 5-card hand (mask, card list or text).

    >>> hand = evaluate("As Ah Ad 8c 8d")
    >>> hand.category, hand.description
    (Category.FULL_HOUSE, 'full house, aces over eights')
    >>> evaluate("As Ah Ad 8c 8d").key > evaluate("Ks Kh Kd Qc Qd").key
    True
    """
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
    """Rank every 5-card subset of the card set ``live`` (mask, card list or text).

    >>> from quintet.game import Deal
    >>> table = rank_packets(Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc").live)
    >>> len(table), table.n_classes
    (53130, 749)
    """
    mask = _as_mask(live, rules)
    if popcount(mask) < 5:
        raise WrongCardCountError(f"need at least 5 live cards, got {popcount(mask)}")
    return PacketTable(mask, *_ranker(rules).packets(mask), rules)
