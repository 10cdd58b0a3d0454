"""Hand keys as people read them: the key layout both evaluators share, categories and names.

Both evaluators — the classic 32-bit one (``quintet.kernels``) and the draw-poker one
(``quintet.draw``) — give a five-card hand the same kind of strength key (int, higher is
stronger, equal is a tie)::

    key = strength(category) << 20 | t1 << 16 | t2 << 12 | t3 << 8 | t4 << 4 | t5

``strength`` is the category's place in the rule set's table (``Rules.categories``, 0 =
lowest); ``t1..t5`` are tie-break rank indices of the deck (0 = its lowest rank), most
significant first, unused trailing places 0: five of a kind — the rank; four — the four,
the fifth card; full house — the three, the pair; flush, colour and high card — all five
cards, highest first; straights — the top card; three — the three, then the other two; two
pair — high pair, low pair, fifth card; pair — the pair, then the other three.

``Rules.tiebreak`` drops trailing places (they become 0): ``group-only`` keeps only the
group of fours, threes and full houses (the rank of the four or the three);
``no-kickers`` does so too, and keeps only the pair of a pair, the two pairs of two pair and
the highest card of high card.  Flushes, colours and straights keep their places: every one
of their cards belongs to the category.  Both evaluators take the option as a
``tiebreak_code`` (``TIEBREAK_*``).

This module reads keys back (``category_of_key``, ``describe_key``; ``tie_break``: what decides
between two hands of one name), builds the one rank
table both evaluators need (``straight_top_table``) and gives their kernels the category ids
as plain ints (``PAIR``, ``FLUSH``, …).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .cards import RANK_NAMES
from .rules import CLASSIC, TIEBREAKS, Category, Rules

__all__ = ["STRENGTH_SHIFT", "TieBreak", "category_of_key", "describe_key", "tie_break", "straight_top_table",
           "tiebreak_code"]

STRENGTH_SHIFT = 20  # a key's category strength sits above five 4-bit tie-break places

# ``Category`` ids as plain ints, for the numba kernels of both evaluators (numba compiles a
# module global in as a constant, and a cached kernel keeps the value it was compiled with:
# ids never change, see test_category_ids_are_appended_not_renumbered).
HIGH_CARD = int(Category.HIGH_CARD)
PAIR = int(Category.PAIR)
TWO_PAIR = int(Category.TWO_PAIR)
THREE_OF_A_KIND = int(Category.THREE_OF_A_KIND)
STRAIGHT = int(Category.STRAIGHT)
FLUSH = int(Category.FLUSH)
FULL_HOUSE = int(Category.FULL_HOUSE)
FOUR_OF_A_KIND = int(Category.FOUR_OF_A_KIND)
STRAIGHT_FLUSH = int(Category.STRAIGHT_FLUSH)
FIVE_OF_A_KIND = int(Category.FIVE_OF_A_KIND)
COLOUR = int(Category.COLOUR)
STRAIGHT_COLOUR = int(Category.STRAIGHT_COLOUR)

# ``Rules.tiebreak`` as the kernels' int: each code ties more hands than the one before.
TIEBREAK_KICKERS = 0
TIEBREAK_GROUP_ONLY = 1  # equal fours, threes, full-house triples tie
TIEBREAK_NO_KICKERS = 2  # … and equal pairs, two pairs, highest cards of high card

_TOP_CARD_CATEGORIES = frozenset(
    {Category.STRAIGHT, Category.STRAIGHT_FLUSH, Category.STRAIGHT_COLOUR, Category.FLUSH, Category.COLOUR}
)


def tiebreak_code(rules: Rules) -> int:
    """``rules.tiebreak`` for the kernels: ``TIEBREAK_KICKERS``, ``_GROUP_ONLY`` or ``_NO_KICKERS``."""
    return TIEBREAKS.index(rules.tiebreak)


def category_of_key(key: int, rules: Rules = CLASSIC) -> Category:
    """The category of a key of ``rules`` (a key only means something under its rule set)."""
    return rules.categories[int(key) >> STRENGTH_SHIFT]


def describe_key(key: int, rules: Rules = CLASSIC) -> str:
    """Name a hand from its key: 'full house, aces over eights', 'five of a kind, aces'.

    The key must carry its tie-break places (computed with ``tiebreak="kickers"``): under
    ``group-only`` the pair of a full house is not in the key, so describe with kickers.
    """
    category = category_of_key(key, rules)
    ranks = rules.deck.ranks

    def place(i: int) -> tuple[str, str]:  # (singular, plural) name of tie-break place i
        return RANK_NAMES[ranks[(int(key) >> (16 - 4 * i)) & 0xF]]

    if category == Category.FIVE_OF_A_KIND:
        return f"five of a kind, {place(0)[1]}"
    if category in _TOP_CARD_CATEGORIES:
        return f"{rules.category_label(category)}, {place(0)[0]} high"
    if category == Category.FOUR_OF_A_KIND:
        return f"four {place(0)[1]}"
    if category == Category.FULL_HOUSE:
        return f"full house, {place(0)[1]} over {place(1)[1]}"
    if category == Category.THREE_OF_A_KIND:
        return f"three {place(0)[1]}"
    if category == Category.TWO_PAIR:
        return f"two pair, {place(0)[1]} and {place(1)[1]}"
    if category == Category.PAIR:
        return f"pair of {place(0)[1]}"
    return f"high card, {place(0)[0]}"


# The tie-break places a hand's name gives (``describe_key``) and what the later ones are called.
_FIVE_CARDS = ("highest card", "second-highest card", "third-highest card", "fourth-highest card", "lowest card")
_PLACES: dict[Category, tuple[int, tuple[str, ...]]] = {
    Category.FLUSH: (1, _FIVE_CARDS),
    Category.COLOUR: (1, _FIVE_CARDS),
    Category.HIGH_CARD: (1, _FIVE_CARDS),
    Category.FOUR_OF_A_KIND: (1, ("four", "fifth card")),
    Category.THREE_OF_A_KIND: (1, ("three", "higher kicker", "lower kicker")),
    Category.TWO_PAIR: (2, ("high pair", "low pair", "fifth card")),
    Category.PAIR: (1, ("pair", "highest kicker", "second kicker", "lowest kicker")),
}


@dataclass(frozen=True)
class TieBreak:
    """Why one of two hands of the same name is stronger: the first tie-break place where
    their keys differ (``place``, 1..4; ``what`` it is), and the rank each hand has there
    (rank indices of the deck, lowest 0)."""

    place: int
    what: str
    rank_a: int
    rank_b: int
    rules: Rules = CLASSIC

    def rank_name(self, rank: int) -> str:
        return RANK_NAMES[self.rules.deck.ranks[rank]][0]

    def __str__(self) -> str:
        """'second-highest card: queen over jack' (the stronger hand's rank first)."""
        high, low = sorted((self.rank_a, self.rank_b), reverse=True)
        return f"{self.what}: {self.rank_name(high)} over {self.rank_name(low)}"


def tie_break(key_a: int, key_b: int, rules: Rules = CLASSIC) -> TieBreak | None:
    """What decides between two hands whose names (``describe_key``) are the same but whose
    keys are not: a kicker, a flush's second-highest card…  None when the keys are equal (a
    tie), the categories differ, or a place the names give differs (the names say why).

    >>> from quintet.evaluator import hand_key
    >>> str(tie_break(hand_key("Kh Qh Jh 9h 7h"), hand_key("Kd Qd Td 9d 8d")))
    'third-highest card: jack over ten'
    >>> str(tie_break(hand_key("As Ad Kc 9h 8h"), hand_key("Ah Ac Qc Jh 9s")))
    'highest kicker: king over queen'
    >>> tie_break(hand_key("As Ad Kc 9h 8h"), hand_key("Ks Kd Ac 9h 8d")) is None  # the names differ
    True
    """
    category = category_of_key(key_a, rules)
    if key_a == key_b or category != category_of_key(key_b, rules) or category not in _PLACES:
        return None
    named, places = _PLACES[category]
    for place in range(5):
        shift = 16 - 4 * place
        rank_a, rank_b = (int(key_a) >> shift) & 0xF, (int(key_b) >> shift) & 0xF
        if rank_a != rank_b:
            return None if place < named else TieBreak(place, places[place], rank_a, rank_b, rules)
    return None


def straight_top_table(rules: Rules) -> np.ndarray:
    """For every set of the deck's ranks (bit r = rank r): 1 + the straight's top rank, else 0.

    int64[2 ** n_ranks]; five consecutive ranks make a straight, and with
    ``ace_low_straight`` so do the ace and the deck's four lowest ranks (A-7-8-9-10 in the
    32-card deck, A-2-3-4-5 in the 52-card deck), topped by the fourth-lowest rank.
    """
    n = rules.deck.n_ranks
    table = np.zeros(1 << n, dtype=np.int64)
    for low in range(n - 4):
        table[0b11111 << low] = low + 4 + 1
    if rules.ace_low_straight:
        table[(1 << (n - 1)) | 0b1111] = 3 + 1
    return table
