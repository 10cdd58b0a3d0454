"""Cards, decks and card sets.

Bit layout
----------
A card is a small int ``card = suit * deck.field + rank``:

* ``rank`` is the rank's index in the deck's own rank list, lowest first
  (classic deck: 7=0, 8=1, 9=2, 10=3, J=4, Q=5, K=6, A=7);
* ``suit`` is 0=clubs, 1=diamonds, 2=hearts, 3=spades (all suits are equal in play);
* ``deck.field`` is 8 for decks of at most 8 ranks (the classic 32-card deck), so a set
  of classic cards is a **32-bit mask** with one byte per suit: bit ``8*suit + rank``.

A set of cards is an ``int`` bit mask (``1 << card`` per card).  Masks of the classic
deck fit in ``numpy.uint32``; that is the evaluator's fast path.

Variant decks (docs/draw-poker.md: 36, 52, 53 and 54 cards) have up to 13 ranks, so they use
``field = 16``: bit ``16*suit + rank``, and a mask fits in ``numpy.uint64``.

Jokers
------
A deck may hold ``jokers`` = 1 or 2 jokers: distinct cards that take the **two top bits of
the last suit field**, above every rank: joker ``i`` (0-based) is card
``4*field - 2 + i``.  With ``field = 16`` that is card 62 (``Jk1``) and card 63 (``Jk2``);
the bits never collide with a rank because such decks hold at most ``field - 2`` ranks.
``rank_of``/``suit_of`` mean nothing for a joker: test ``Deck.is_joker`` first.

In the 36-card joker deck the 6♠ *plays as* the joker (``joker_alias = "6s"``): the deck has
35 ordinary cards and the joker card 62; ``6s``/``6♠`` parse to the joker, which prints as
``Jk``.  The text allows «какая-либо младшая карта», any of the lowest cards:
``Deck.with_joker_alias("6h")`` makes the 6♥ the joker instead (the 6♠ is then ordinary).

Joker notation: ``Jk``, ``Joker`` or ``🃏`` (any case) is "a joker": in a list of cards each
such token takes the next joker not yet given, so ``"Jk Jk"`` means both jokers of the
54-card deck.  ``Jk1``/``Jk2`` (``Joker1``, ``🃏1``…) name one joker.  A deck with one joker
prints it as ``Jk`` (``🃏``), a deck with two as ``Jk1``/``Jk2`` (``🃏1``/``🃏2``), so
formatting and parsing round-trip.  A joker in a deck without jokers is a
``CardNotInDeckError``.

Notation
--------
``parse_cards`` reads what players and other libraries write: ``Ah``, ``Td``, ``10d``,
``7s``, upper or lower case, Unicode suits (``A♥``, ``10♣``), tokens separated by spaces
and/or commas.  ``format_cards`` writes two-character ASCII (``Ah Td 7s``) or, with
``unicode=True``, ``A♥ 10♦ 7♠``; parsing what it writes gives the same cards back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from math import comb

import numpy as np

from .faults import InputError
from .text import quote

__all__ = [
    "CardError",
    "MalformedCardError",
    "UnknownRankError",
    "UnknownSuitError",
    "CardNotInDeckError",
    "DuplicateCardError",
    "WrongCardCountError",
    "Deck",
    "CLASSIC_DECK",
    "DECK_36",
    "DECK_36_JOKER",
    "DECK_52",
    "DECK_53",
    "DECK_54",
    "DECKS",
    "SUITS",
    "SUIT_SYMBOLS",
    "SUIT_NAMES",
    "RANK_NAMES",
    "parse_card",
    "parse_cards",
    "parse_mask",
    "format_card",
    "format_cards",
    "order_cards",
    "mask_of",
    "cards_of",
    "popcount",
    "binomial_table",
]


class CardError(InputError):
    """Base class of every card-notation error; the message quotes the bad token."""


class MalformedCardError(CardError):
    """A token that is not a card at all (empty, no suit, stray characters)."""


class UnknownRankError(CardError):
    """A token whose rank is not a rank of any deck (e.g. ``1h``, ``Xh``)."""


class UnknownSuitError(CardError):
    """A token whose suit is not one of c d h s ♣ ♦ ♥ ♠."""


class CardNotInDeckError(CardError):
    """A real card that this rule set's deck does not hold (``2h`` in the 32-card deck)."""


class DuplicateCardError(CardError):
    """The same card given twice where a set of distinct cards is expected."""


class WrongCardCountError(CardError):
    """A card list of the wrong length (e.g. six exposed cards instead of seven)."""


SUITS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
_SUIT_ALIASES = {
    "c": 0, "d": 1, "h": 2, "s": 3,
    "♣": 0, "♦": 1, "♥": 2, "♠": 3,
    "♧": 0, "♢": 1, "♡": 2, "♤": 3,
}
# All ranks of the full 52-card deck, lowest first, as written in two-character ASCII.
_ALL_RANKS = "23456789TJQKA"
_RANK_ALIASES = {r: r for r in _ALL_RANKS} | {"10": "T"}
RANK_NAMES = {
    "2": ("two", "twos"), "3": ("three", "threes"), "4": ("four", "fours"),
    "5": ("five", "fives"), "6": ("six", "sixes"), "7": ("seven", "sevens"),
    "8": ("eight", "eights"), "9": ("nine", "nines"), "T": ("ten", "tens"),
    "J": ("jack", "jacks"), "Q": ("queen", "queens"), "K": ("king", "kings"),
    "A": ("ace", "aces"),
}

_TOKEN_SPLIT = re.compile(r"[\s,;]+")


@dataclass(frozen=True)
class Deck:
    """A deck as data: its ranks (lowest first, ASCII letters) and the suit field width.

    ``field`` is the number of bits per suit in a mask; ``size`` the number of cards.
    ``jokers`` (0, 1 or 2) jokers are cards ``4*field - 2 + i``; ``joker_alias`` names an
    ordinary card that plays as the (single) joker and is not an ordinary card of the deck
    (``"6s"`` in the 36-card joker deck).  See the module doc.
    """

    name: str
    ranks: str
    field: int
    jokers: int = 0
    joker_alias: str = ""

    def __post_init__(self) -> None:
        if len(self.ranks) > self.field:
            raise ValueError(f"deck {self.name!r}: {len(self.ranks)} ranks exceed field {self.field}")
        if any(r not in _ALL_RANKS for r in self.ranks):
            raise ValueError(f"deck {self.name!r}: unknown rank letters in {self.ranks!r}")
        if not 0 <= self.jokers <= 2:
            raise ValueError(f"deck {self.name!r}: {self.jokers} jokers (0, 1 or 2)")
        if self.jokers and len(self.ranks) > self.field - 2:
            raise ValueError(f"deck {self.name!r}: no free bits for jokers with field {self.field}")
        if self.joker_alias:
            if self.jokers != 1:
                raise ValueError(f"deck {self.name!r}: a joker alias needs exactly one joker")
            if (len(self.joker_alias) != 2 or self.joker_alias[0] not in self.ranks
                    or self.joker_alias[1] not in SUITS):
                raise ValueError(f"deck {self.name!r}: bad joker alias {self.joker_alias!r}")

    @property
    def n_ranks(self) -> int:
        return len(self.ranks)

    @property
    def size(self) -> int:
        return 4 * len(self.ranks) + self.jokers - (1 if self.joker_alias else 0)

    @property
    def full_mask(self) -> int:
        """Mask of every card in the deck."""
        per_suit = (1 << len(self.ranks)) - 1
        mask = sum(per_suit << (self.field * s) for s in range(4))
        if self.joker_alias:
            mask &= ~(1 << self.alias_card)
        return mask | self.joker_mask

    @property
    def joker_cards(self) -> tuple[int, ...]:
        """The jokers' card ints, increasing (``Jk1``, ``Jk2``)."""
        return tuple(4 * self.field - 2 + i for i in range(self.jokers))

    @property
    def joker_mask(self) -> int:
        return sum(1 << c for c in self.joker_cards)

    @property
    def alias_card(self) -> int:
        """The ordinary card int of ``joker_alias`` (the 6♠ of the 36-card joker deck), or -1."""
        if not self.joker_alias:
            return -1
        return self.card(self.ranks.index(self.joker_alias[0]), SUITS.index(self.joker_alias[1]))

    @property
    def joker_note(self) -> str:
        """The ordinary card that plays as the joker, in words and as typed — ``'the six of spades
        (6s) plays as the joker'`` (``6s`` alone reads as "sixes") — or ``''`` (no such card)."""
        if not self.joker_alias:
            return ""
        rank, suit = self.joker_alias[0], self.joker_alias[1]
        return f"the {RANK_NAMES[rank][0]} of {SUIT_NAMES[SUITS.index(suit)]} ({self.joker_alias}) plays as the joker"

    def with_joker_alias(self, card: str) -> Deck:
        """This deck with another of its lowest cards playing as the joker (``"6h"``: the 6♥ in
        36 cards, the 6♠ then an ordinary card); only for a deck whose joker is one of its cards."""
        if not self.joker_alias:
            raise CardNotInDeckError(
                f"the joker card can be chosen only in a deck where one of the lowest cards plays the joker "
                f"(the 36-card joker deck), not the {_deck_label(self)}")
        index = _parse_token(card, replace(self, joker_alias=""))
        lowest = [self.ranks[0] + suit for suit in SUITS]
        if self.rank_of(index) != 0:
            raise CardNotInDeckError(f"the joker must be one of the lowest cards ({', '.join(lowest)}), "
                                     f"not {quote(card)}")
        return replace(self, joker_alias=lowest[self.suit_of(index)])

    def is_joker(self, card: int) -> bool:
        return bool(self.jokers) and card in self.joker_cards

    @property
    def mask_bits(self) -> int:
        """Bits needed for a mask of this deck (32 for the classic deck)."""
        return 4 * self.field

    def card(self, rank: int, suit: int) -> int:
        return suit * self.field + rank

    def rank_of(self, card: int) -> int:
        return card % self.field

    def suit_of(self, card: int) -> int:
        return card // self.field

    def cards(self) -> list[int]:
        """Every card of the deck, in increasing card order."""
        ordinary = [self.card(r, s) for s in range(4) for r in range(len(self.ranks))]
        if self.joker_alias:
            ordinary.remove(self.alias_card)
        return ordinary + list(self.joker_cards)


CLASSIC_DECK = Deck(name="32", ranks="789TJQKA", field=8)
# Variant decks of five-card draw poker (docs/draw-poker.md); 16 bits per suit, 64-bit masks.
DECK_36 = Deck(name="36", ranks="6789TJQKA", field=16)
DECK_36_JOKER = Deck(name="36-joker", ranks="6789TJQKA", field=16, jokers=1, joker_alias="6s")
DECK_52 = Deck(name="52", ranks="23456789TJQKA", field=16)
DECK_53 = Deck(name="53", ranks="23456789TJQKA", field=16, jokers=1)
DECK_54 = Deck(name="54", ranks="23456789TJQKA", field=16, jokers=2)
DECKS = {d.name: d for d in (CLASSIC_DECK, DECK_36, DECK_36_JOKER, DECK_52, DECK_53, DECK_54)}

_JOKER_TOKEN = re.compile(r"^(?:jk|joker|🃏)(\d*)$", re.IGNORECASE)


def popcount(mask: int) -> int:
    return int(mask).bit_count()


def binomial_table(rows: int, cols: int) -> np.ndarray:
    """``C(n, k)`` at ``[n, k]`` for n < rows, k < cols (int64; 0 where k > n).

    The combinatorial number system for kernels: the k-subset ``a_0 < … < a_(k-1)`` of
    cards (or of ranks) has the colex index ``sum_i C(a_i, i + 1)``.
    """
    return np.array([[comb(n, k) for k in range(cols)] for n in range(rows)], dtype=np.int64)


def _deck_label(deck: Deck) -> str:
    return f"{deck.size}-card deck"


def _parse_joker(text: str, token: str, deck: Deck) -> tuple[int, bool] | None:
    """(joker card, generic?) for a joker token, ``None`` for any other token."""
    match = _JOKER_TOKEN.match(text)
    if match is None:
        return None
    if not deck.jokers:
        raise CardNotInDeckError(f"joker {quote(token)} is not in the {_deck_label(deck)} (it has no jokers)")
    number = match.group(1)
    if not number:
        return deck.joker_cards[0], True
    if not 1 <= int(number) <= deck.jokers:
        raise CardNotInDeckError(
            f"joker {quote(token)} is not in the {_deck_label(deck)} (it has {deck.jokers} joker)"
        )
    return deck.joker_cards[int(number) - 1], False


def _parse_token_ex(token: str, deck: Deck) -> tuple[int, bool]:
    """(card, generic joker?) of one token: jokers and a joker alias first, then ``_parse_token``."""
    joker = _parse_joker(token.strip().replace("\ufe0f", "").replace("\ufe0e", ""), token, deck)
    if joker is not None:
        return joker
    card = _parse_token(token, deck)
    if deck.joker_alias and card == deck.alias_card:
        return deck.joker_cards[0], False
    return card, False


def _parse_token(token: str, deck: Deck) -> int:
    text = token.strip().replace("\ufe0f", "").replace("\ufe0e", "")  # emoji variation selectors
    if len(text) < 2:
        raise MalformedCardError(f"malformed card {quote(token)}: expected a rank then a suit, like 'Ah'")
    suit_ch = text[-1]
    rank_text = text[:-1].upper()
    suit = _SUIT_ALIASES.get(suit_ch.lower())
    if suit is None:
        if suit_ch.upper() in _ALL_RANKS or suit_ch.isdigit():
            raise MalformedCardError(f"malformed card {quote(token)}: missing suit (c, d, h, s)")
        raise UnknownSuitError(f"unknown suit {quote(suit_ch)} in card {quote(token)} (use c d h s or ♣ ♦ ♥ ♠)")
    rank_letter = _RANK_ALIASES.get(rank_text)
    if rank_letter is None:
        raise UnknownRankError(f"unknown rank {quote(text[:-1])} in card {quote(token)} (use 2-9, T or 10, J, Q, K, A)")
    index = deck.ranks.find(rank_letter)
    if index < 0:
        raise CardNotInDeckError(
            f"card {quote(token)} is not in the {deck.size}-card deck (ranks {' '.join(deck.ranks)})"
        )
    return deck.card(index, suit)


def parse_card(token: str, deck: Deck = CLASSIC_DECK) -> int:
    """Parse one card (``Ah``, ``td``, ``10♦``) into its card int."""
    if not isinstance(token, str):
        raise MalformedCardError(f"malformed card {quote(token)}: expected text")
    return _parse_token_ex(token, deck)[0]


def _tokens(text: str) -> list[str]:
    return [t for t in _TOKEN_SPLIT.split(text.strip()) if t]


def parse_cards(
    text: str | Iterable[str],
    deck: Deck = CLASSIC_DECK,
    *,
    count: int | None = None,
    what: str = "cards",
    taken: int = 0,
) -> list[int]:
    """Parse distinct cards separated by spaces/commas (or an iterable of such strings).

    >>> parse_cards("Ah, 10d 7♠")
    [23, 11, 24]
    >>> format_cards(mask_of(parse_cards("Ah, 10d 7♠")))
    'Ah Td 7s'
    >>> parse_cards("Ah Ah")
    Traceback (most recent call last):
    ...
    quintet.cards.DuplicateCardError: duplicate card 'Ah' in cards (already given as 'Ah')

    Raises a ``CardError`` subclass naming the bad token, a duplicate, or — when ``count``
    is given — the wrong number of cards.  A generic joker token (``Jk``) takes the next
    joker of the deck not given earlier in the list and, if possible, not in the mask
    ``taken`` (e.g. the hand, when parsing other known cards).
    """
    if isinstance(text, str):
        tokens = _tokens(text)
    else:
        tokens = [t for part in text for t in _tokens(str(part))]
    cards: list[int] = []
    seen: dict[int, str] = {}
    for token in tokens:
        card, generic = _parse_token_ex(token, deck)
        if generic:  # "Jk": the next joker not given yet (nor taken elsewhere)
            free = [j for j in deck.joker_cards if j not in seen and not (taken >> j) & 1]
            if free:
                card = free[0]
            elif any(j not in seen for j in deck.joker_cards):
                card = next(j for j in deck.joker_cards if j not in seen)
            else:
                raise DuplicateCardError(
                    f"one joker too many: {quote(token)} in {what} (the {_deck_label(deck)} has {deck.jokers})"
                )
        if card in seen:
            raise DuplicateCardError(f"duplicate card {quote(token)} in {what} (already given as {quote(seen[card])})")
        seen[card] = token
        cards.append(card)
    if count is not None and len(cards) != count:
        raise WrongCardCountError(f"expected {count} {what}, got {len(cards)}")
    return cards


def parse_mask(text: str | Iterable[str], deck: Deck = CLASSIC_DECK, *, count: int | None = None,
               what: str = "cards") -> int:
    """Like ``parse_cards`` but returns the set as a bit mask."""
    return mask_of(parse_cards(text, deck, count=count, what=what))


def format_card(card: int, deck: Deck = CLASSIC_DECK, *, unicode: bool = False) -> str:
    """Two-character ASCII (``Ah``, ``Td``) or Unicode (``A♥``, ``10♦``); jokers ``Jk``/``Jk1``."""
    if deck.is_joker(card):
        name = "🃏" if unicode else "Jk"
        return name if deck.jokers == 1 else name + str(deck.joker_cards.index(card) + 1)
    rank = deck.ranks[deck.rank_of(card)]
    suit = deck.suit_of(card)
    if unicode:
        return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[suit]
    return rank + SUITS[suit]


def cards_of(mask: int) -> Iterator[int]:
    """The cards of a mask, increasing."""
    m = int(mask)
    while m:
        low = m & -m
        yield low.bit_length() - 1
        m ^= low


def mask_of(cards: Iterable[int]) -> int:
    """The mask of a collection of card ints (duplicates collapse)."""
    m = 0
    for c in cards:
        card = int(c)
        if card < 0:
            raise CardNotInDeckError(f"card int {card} is negative, not a card")
        m |= 1 << card
    return m


def format_cards(cards: int | Iterable[int], deck: Deck = CLASSIC_DECK, *, unicode: bool = False,
                 sep: str = " ", order: str = "rank") -> str:
    """Format a mask or a card list.

    ``order``: ``'rank'`` (highest rank first), ``'group'`` (largest rank group first, as a
    hand reads: ``9s 9h 9c Td Tc``) or ``'given'``.
    """
    return sep.join(format_card(c, deck, unicode=unicode) for c in order_cards(cards, deck, order))


def order_cards(cards: int | Iterable[int], deck: Deck = CLASSIC_DECK, order: str = "rank") -> list[int]:
    """The cards of a mask or list in ``format_cards``' order (``rank``, ``group`` or ``given``)."""
    if isinstance(cards, int):
        items = list(cards_of(cards))
    else:
        items = [int(c) for c in cards]
    jokers = [c for c in items if deck.is_joker(c)] if order != "given" else []
    if jokers:  # jokers first, Jk1 before Jk2; the ordinary cards as below
        items = [c for c in items if not deck.is_joker(c)]
    if order == "rank":
        items.sort(key=lambda c: (deck.rank_of(c), deck.suit_of(c)), reverse=True)
    elif order == "group":
        count: dict[int, int] = {}
        for c in items:
            count[deck.rank_of(c)] = count.get(deck.rank_of(c), 0) + 1
        items.sort(key=lambda c: (count[deck.rank_of(c)], deck.rank_of(c), deck.suit_of(c)), reverse=True)
    elif order != "given":
        raise ValueError(f"unknown card order {quote(order)}")
    return sorted(jokers) + items
