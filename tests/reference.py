"""A slow, obviously-correct pure-Python hand ranker, written from the rule book (docs/rules.md) alone.

It shares no code with ``quintet``: it reads cards as text (``"Ah"``, ``"Td"``, ``"10d"``)
or as ``(rank, suit)`` pairs with the natural rank values 7..14 (ace = 14), and returns an
*ordering tuple* ``(category strength, tie ranks...)``: comparing two tuples compares the
two hands (higher is stronger, equal is a tie).

docs/rules.md, highest first:

1. straight flush — the top card; suits never matter
2. four of a kind — the rank of the four, then the fifth card
3. full house — the rank of the three, then the pair
4. flush — all five cards, highest first
5. straight — the top card
6. three of a kind — the rank of the three, then the other two, highest first
7. two pair — the higher pair, the lower pair, the fifth card
8. one pair — the pair, then the other three, highest first
9. high card — all five cards, highest first

Options: ``flush_over_full_house`` swaps 3 and 4; ``ace_low_straight`` makes A-7-8-9-10 a
straight (the lowest: its top card is the 10, the ace playing low); ``tiebreak="group-only"``
drops the remaining cards for fours, threes and full-house triples (equal groups tie);
``tiebreak="no-kickers"`` drops them too, and compares a pair by the pair alone, two pair by
the two pairs alone and high card by its highest card alone (flushes keep all five cards).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

RANK_VALUES = {"7": 7, "8": 8, "9": 9, "T": 10, "10": 10, "J": 11, "Q": 12, "K": 13, "A": 14}
SUIT_LETTERS = "cdhs"  # the documented suit order of quintet.cards: clubs, diamonds, hearts, spades

# Category names lowest first, as docs/rules.md lists them (read bottom-up).
CATEGORIES = (
    "high card",
    "pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)


def category_order(flush_over_full_house: bool = False) -> tuple[str, ...]:
    order = list(CATEGORIES)
    if flush_over_full_house:
        i, j = order.index("flush"), order.index("full house")
        order[i], order[j] = order[j], order[i]
    return tuple(order)


def parse(text: str) -> list[tuple[int, str]]:
    """'Ah Td 10c' -> [(14, 'h'), (10, 'd'), (10, 'c')] (ASCII only; reference use)."""
    out = []
    for token in text.replace(",", " ").split():
        out.append((RANK_VALUES[token[:-1].upper()], token[-1].lower()))
    return out


def classify(
    cards: Sequence[tuple[int, str]],
    *,
    ace_low_straight: bool = False,
    tiebreak: str = "kickers",
) -> tuple[str, tuple[int, ...]]:
    """Category name and tie ranks (most significant first) of five (rank, suit) cards."""
    assert len(cards) == 5 and len(set(cards)) == 5, cards
    assert tiebreak in ("kickers", "group-only", "no-kickers")
    ranks = sorted((r for r, _ in cards), reverse=True)
    suits = {s for _, s in cards}
    counts = Counter(ranks)
    is_flush = len(suits) == 1

    straight_top = None
    if len(counts) == 5:
        if ranks[0] - ranks[4] == 4:
            straight_top = ranks[0]
        elif ace_low_straight and sorted(ranks) == [7, 8, 9, 10, 14]:
            straight_top = 10  # the ace plays low: A-7-8-9-10 is "ten high"

    # Groups: (count, rank), biggest group first, then higher rank first.
    groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
    shape = tuple(n for n, _ in groups)
    group_ranks = [r for _, r in groups]
    kickers_only = tiebreak == "kickers"  # the cards after a four, a three, a full house's three count
    all_kickers = tiebreak != "no-kickers"  # the cards after a pair, two pairs, a high card count

    if straight_top is not None and is_flush:
        return "straight flush", (straight_top,)
    if shape == (4, 1):
        quad, fifth = group_ranks
        return "four of a kind", (quad, fifth) if kickers_only else (quad,)
    if shape == (3, 2):
        trip, pair = group_ranks
        return "full house", (trip, pair) if kickers_only else (trip,)
    if is_flush:
        return "flush", tuple(ranks)
    if straight_top is not None:
        return "straight", (straight_top,)
    if shape == (3, 1, 1):
        trip = group_ranks[0]
        others = sorted(group_ranks[1:], reverse=True)
        return "three of a kind", (trip, *others) if kickers_only else (trip,)
    if shape == (2, 2, 1):
        high_pair, low_pair, fifth = group_ranks  # groups sorted: pairs by rank, then the single
        return "two pair", (high_pair, low_pair, fifth) if all_kickers else (high_pair, low_pair)
    if shape == (2, 1, 1, 1):
        pair = group_ranks[0]
        return "pair", (pair, *sorted(group_ranks[1:], reverse=True)) if all_kickers else (pair,)
    assert shape == (1, 1, 1, 1, 1)
    return "high card", tuple(ranks) if all_kickers else (ranks[0],)


def order_tuple(
    cards: Sequence[tuple[int, str]] | str,
    *,
    ace_low_straight: bool = False,
    flush_over_full_house: bool = False,
    tiebreak: str = "kickers",
) -> tuple[int, ...]:
    """(category strength, tie ranks...): compare tuples to compare hands."""
    if isinstance(cards, str):
        cards = parse(cards)
    name, ties = classify(cards, ace_low_straight=ace_low_straight, tiebreak=tiebreak)
    return (category_order(flush_over_full_house).index(name), *ties)


def category(cards: Sequence[tuple[int, str]] | str, *, ace_low_straight: bool = False) -> str:
    if isinstance(cards, str):
        cards = parse(cards)
    return classify(cards, ace_low_straight=ace_low_straight)[0]


# --- bridging to quintet's documented card ints (cards.py: card = 8*suit + rank index) ---


def card_from_int(card: int) -> tuple[int, str]:
    """The documented layout: rank index 0..7 = 7..A, suit 0..3 = c d h s."""
    return 7 + card % 8, SUIT_LETTERS[card // 8]


def cards_from_mask(mask: int) -> list[tuple[int, str]]:
    return [card_from_int(b) for b in range(32) if mask >> b & 1]


def dense_ranks(values: Iterable) -> list[int]:
    """Dense rank of each value (0 = smallest; equal values share a rank)."""
    values = list(values)
    index = {v: i for i, v in enumerate(sorted(set(values)))}
    return [index[v] for v in values]


def dense_rank_array(values):
    """Dense ranks of a 1-D numeric array (numpy), 0 = smallest, equal values equal."""
    import numpy as np

    _, inverse = np.unique(np.asarray(values), return_inverse=True)
    return inverse.reshape(-1)
