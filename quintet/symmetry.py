"""Suit canonicalization: one representative per class of suit-equivalent deals.

All four suits are equal in play (docs/rules.md), so relabelling the suits maps a deal to an
equivalent deal and every arrangement to an equivalent arrangement: hand categories, keys
and therefore every show-down margin are unchanged.  The C(32,7) = 3,365,856 exposed sets
of the classic deck fall into ``count_canonical_deals()`` = 156,248 classes; a solver need
only solve one deal per class and map its answer to the suits asked about.

Conventions
-----------
* A suit permutation is a tuple ``perm`` with ``perm[old_suit] = new_suit``
  (suits 0..3 = clubs, diamonds, hearts, spades, as in ``quintet.cards``).
* ``permute_mask(mask, perm)`` relabels every card's suit: card (rank r, suit s) becomes
  (rank r, suit ``perm[s]``).  With ``deck.field`` bits per suit this moves whole suit
  fields: field ``s`` of the mask becomes field ``perm[s]``.
* The **canonical exposed mask** of an exposed set E is ``min(permute_mask(E, p))`` over the
  24 permutations, compared as ints.  ``canonical_exposed`` returns it together with the
  permutation ``pi`` that achieves it; when several do (E has a suit symmetry) the
  lexicographically smallest tuple is returned, so the result is deterministic.
* Storing and answering: an answer is stored for the canonical deal, in canonical suits.
  An asked deal E with ``canonical_exposed(E) == (C, pi)`` satisfies
  ``permute_mask(E, pi) == C``; a stored arrangement for C is mapped back to E with
  ``invert(pi)`` (``from_canonical_arrangement``), and an arrangement for E is mapped into
  canonical suits with ``pi`` (``to_canonical_arrangement``).

Variant decks (``quintet.cards``): jokers are not suited, so every permutation leaves them
in place.  A deck whose joker is an ordinary card in disguise (the 36-card deck's 6♠) is not
symmetric in all four suits; its symmetry group is the permutations that map the deck onto
itself (``suit_permutations(deck)``: 6 of them, those fixing spades), and canonical forms
and counts use that group.  Rules whose category table has a *colour* category (five cards
of one colour) are symmetric only under the 8 permutations that keep ♣♠ and ♦♥ together:
pass ``group=symmetry_group(rules)`` to the functions below.

Counting (``count_canonical_deals``) uses Burnside's lemma: the number of classes is the
average over the 24 permutations of the number of exposed sets each one fixes.  A set fixed
by ``perm`` is a union of orbits of ``perm`` on cards; for each rank the cards of that
rank are permuted exactly as the suits are, so a cycle of length L contributes ``n_ranks``
orbits of size L, and the number of fixed k-sets is the coefficient of x^k in
``prod over cycles (1 + x^L) ** n_ranks`` (in general: the product of ``1 + x^|orbit|`` over
the permutation's orbits on the deck's cards, which also covers jokers and an alias).  The
test suite recomputes the count by brute force over all C(32,7) sets.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from itertools import permutations
from math import comb

import numpy as np

from quintet.cards import CLASSIC_DECK, Deck
from quintet.game import Arrangement
from quintet.rules import Category, Rules

__all__ = [
    "N_SUITS",
    "IDENTITY",
    "suit_permutations",
    "symmetry_group",
    "invert",
    "compose",
    "permute_card",
    "permute_mask",
    "canonical_exposed",
    "canonical_mask",
    "is_canonical",
    "stabilizer",
    "map_arrangement",
    "to_canonical_arrangement",
    "from_canonical_arrangement",
    "cycle_type",
    "count_fixed_subsets",
    "count_canonical_deals",
    "canonical_masks_array",
    "all_canonical_exposed",
]

N_SUITS = 4
IDENTITY: tuple[int, ...] = (0, 1, 2, 3)


@lru_cache(maxsize=1)
def _perms() -> tuple[tuple[int, ...], ...]:
    return tuple(permutations(range(N_SUITS)))


def suit_permutations(deck: Deck | None = None) -> list[tuple[int, ...]]:
    """The suit permutations, lexicographically ordered (identity first).

    Each is a tuple ``perm`` with ``perm[old_suit] = new_suit``.  Without ``deck``: all 24.
    With a deck: its symmetry group, the permutations mapping the deck onto itself (all 24
    unless a joker alias removes a card from one suit).
    """
    if deck is None:
        return list(_perms())
    return list(_group(deck))


@lru_cache(maxsize=32)
def _group(deck: Deck) -> tuple[tuple[int, ...], ...]:
    full = deck.full_mask
    return tuple(p for p in _perms() if _permute_unchecked(full, p, deck) == full)


_BLACK, _RED = frozenset({0, 3}), frozenset({1, 2})  # ♣♠ and ♦♥


def _colour_categories() -> set[int]:
    return {
        int(getattr(Category, name))
        for name in ("COLOUR", "STRAIGHT_COLOUR")
        if hasattr(Category, name)
    }


def symmetry_group(rules_or_deck: Rules | Deck) -> tuple[tuple[int, ...], ...]:
    """The suit permutations under which the game is unchanged, lexicographically ordered.

    For a deck: those mapping the deck onto itself (``suit_permutations(deck)``).  For rules:
    the deck's, and when the category table has a colour category (five cards of one colour,
    docs/draw-poker.md) only those that keep the two colours (♣♠ / ♦♥) together — 8 of the 24.
    """
    if isinstance(rules_or_deck, Deck):
        return _group(rules_or_deck)
    rules = rules_or_deck
    group = _group(rules.deck)
    if _colour_categories() & {int(c) for c in rules.categories}:
        group = tuple(p for p in group if frozenset(p[s] for s in _BLACK) in (_BLACK, _RED))
    return group


@lru_cache(maxsize=64)
def _checked_group(deck: Deck, group: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    allowed = set(_group(deck))
    members = sorted({_check_perm(p) for p in group})
    if IDENTITY not in members:
        raise ValueError("a suit symmetry group must contain the identity")
    for p in members:
        if p not in allowed:
            raise ValueError(
                f"suit permutation {p} does not map the {deck.name!r} deck onto itself"
            )
    if any(compose(p, q) not in members for p in members for q in members):
        raise ValueError("the given suit permutations are not closed under composition")
    return tuple(members)


def _resolve(deck: Deck, group: Iterable[Sequence[int]] | None) -> tuple[tuple[int, ...], ...]:
    if group is None:
        return _group(deck)
    return _checked_group(deck, tuple(tuple(int(x) for x in p) for p in group))


def _check_perm(perm: Sequence[int]) -> tuple[int, ...]:
    p = tuple(int(x) for x in perm)
    if sorted(p) != list(range(N_SUITS)):
        raise ValueError(f"not a permutation of the 4 suits: {tuple(perm)!r}")
    return p


def invert(perm: Sequence[int]) -> tuple[int, ...]:
    """The inverse permutation: ``invert(perm)[perm[s]] == s`` for every suit ``s``."""
    p = _check_perm(perm)
    inv = [0] * N_SUITS
    for old, new in enumerate(p):
        inv[new] = old
    return tuple(inv)


def compose(first: Sequence[int], then: Sequence[int]) -> tuple[int, ...]:
    """The permutation applying ``first`` and then ``then``: ``s -> then[first[s]]``."""
    a, b = _check_perm(first), _check_perm(then)
    return tuple(b[a[s]] for s in range(N_SUITS))


def _check_mask(mask: int, deck: Deck) -> int:
    mask = int(mask)
    if mask < 0 or mask & ~deck.full_mask:
        raise ValueError(f"mask {mask:#x} holds cards outside the {deck.size}-card deck")
    return mask


def _check_symmetry(perm: tuple[int, ...], deck: Deck) -> None:
    if perm not in _group(deck):
        raise ValueError(f"suit permutation {perm} does not map the {deck.name!r} deck onto itself")


def permute_card(card: int, perm: Sequence[int], deck: Deck = CLASSIC_DECK) -> int:
    """The card with the same rank and suit ``perm[suit]`` (a joker stays itself)."""
    p = _check_perm(perm)
    card = int(card)
    if not 0 <= card < deck.mask_bits or not deck.full_mask >> card & 1:
        raise ValueError(f"card {card} is not in the {deck.size}-card deck")
    _check_symmetry(p, deck)
    if deck.is_joker(card):
        return card
    return deck.card(deck.rank_of(card), p[deck.suit_of(card)])


def _permute_unchecked(mask: int, perm: tuple[int, ...], deck: Deck) -> int:
    field = deck.field
    fmask = (1 << field) - 1
    jokers = mask & deck.joker_mask
    mask ^= jokers
    out = jokers
    for s in range(N_SUITS):
        out |= ((mask >> (field * s)) & fmask) << (field * perm[s])
    return out


def permute_mask(mask: int, perm: Sequence[int], deck: Deck = CLASSIC_DECK) -> int:
    """Relabel the suit of every card of ``mask``: (rank r, suit s) -> (rank r, suit perm[s]).

    Jokers stay in place.  ``perm`` must be a symmetry of the deck (``suit_permutations(deck)``).
    """
    p = _check_perm(perm)
    mask = _check_mask(mask, deck)
    _check_symmetry(p, deck)
    return _permute_unchecked(mask, p, deck)


def canonical_exposed(
    exposed_mask: int, deck: Deck = CLASSIC_DECK, *, group: Iterable[Sequence[int]] | None = None
) -> tuple[int, tuple[int, ...]]:
    """``(canonical mask, perm)``: the least ``permute_mask(exposed, perm)`` over the 24 perms.

    ``perm`` maps the asked suits to the canonical suits; among the permutations giving the
    least mask (several, when the set has a suit symmetry) it is the lexicographically
    smallest tuple.  The minimum is over ``group`` — by default the deck's symmetry group,
    all 24 permutations for the classic deck; pass ``group=symmetry_group(rules)`` for rules
    with a colour category.

    >>> from quintet.game import Deal
    >>> a = Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc").exposed
    >>> b = Deal.from_exposed("8s 7s 9c Th 7h Qd Jd").exposed  # the same deal, suits relabelled
    >>> canonical_exposed(a)[0] == canonical_exposed(b)[0]
    True
    """
    mask = _check_mask(exposed_mask, deck)
    best_mask = -1
    best_perm = IDENTITY
    for perm in _resolve(deck, group):  # lexicographic order: keep the first minimum
        m = _permute_unchecked(mask, perm, deck)
        if best_mask < 0 or m < best_mask:
            best_mask, best_perm = m, perm
    return best_mask, best_perm


def canonical_mask(
    exposed_mask: int, deck: Deck = CLASSIC_DECK, *, group: Iterable[Sequence[int]] | None = None
) -> int:
    """Only the canonical mask of ``canonical_exposed``."""
    return canonical_exposed(exposed_mask, deck, group=group)[0]


def is_canonical(
    exposed_mask: int, deck: Deck = CLASSIC_DECK, *, group: Iterable[Sequence[int]] | None = None
) -> bool:
    return canonical_exposed(exposed_mask, deck, group=group)[0] == int(exposed_mask)


def stabilizer(
    mask: int, deck: Deck = CLASSIC_DECK, *, group: Iterable[Sequence[int]] | None = None
) -> list[tuple[int, ...]]:
    """The permutations of ``group`` (default: the deck's) that map ``mask`` to itself."""
    mask = _check_mask(mask, deck)
    return [p for p in _resolve(deck, group) if _permute_unchecked(mask, p, deck) == mask]


def map_arrangement(
    arrangement: Arrangement, perm: Sequence[int], deck: Deck = CLASSIC_DECK
) -> Arrangement:
    """The arrangement with every packet's suits relabelled by ``perm`` (slot order kept)."""
    p = _check_perm(perm)
    return Arrangement(tuple(permute_mask(packet, p, deck) for packet in arrangement.packets))


def to_canonical_arrangement(
    arrangement: Arrangement, perm: Sequence[int], deck: Deck = CLASSIC_DECK
) -> Arrangement:
    """The asked deal's arrangement in canonical suits (``perm``: from ``canonical_exposed``)."""
    return map_arrangement(arrangement, perm, deck)


def from_canonical_arrangement(
    arrangement: Arrangement, perm: Sequence[int], deck: Deck = CLASSIC_DECK
) -> Arrangement:
    """A stored arrangement (canonical suits) mapped back to the asked deal's suits.

    ``perm`` is the asked deal's permutation from ``canonical_exposed`` (asked -> canonical);
    the mapping applies ``invert(perm)``.
    """
    return map_arrangement(arrangement, invert(perm), deck)


# --------------------------------------------------------------------------- counting


def cycle_type(perm: Sequence[int]) -> tuple[int, ...]:
    """The cycle lengths of ``perm``, longest first (e.g. ``(2, 1, 1)`` for a transposition)."""
    p = _check_perm(perm)
    seen = [False] * N_SUITS
    lengths = []
    for start in range(N_SUITS):
        if seen[start]:
            continue
        n, s = 0, start
        while not seen[s]:
            seen[s] = True
            s = p[s]
            n += 1
        lengths.append(n)
    return tuple(sorted(lengths, reverse=True))


def _poly_mul(a: list[int], b: list[int], limit: int) -> list[int]:
    out = [0] * (limit + 1)
    for i, x in enumerate(a):
        if not x:
            continue
        for j, y in enumerate(b):
            if i + j > limit:
                break
            out[i + j] += x * y
    return out


def _card_orbit_sizes(perm: tuple[int, ...], deck: Deck) -> list[int]:
    """Sizes of the orbits of ``perm`` acting on the deck's cards."""
    seen: set[int] = set()
    sizes = []
    for card in deck.cards():
        if card in seen:
            continue
        n, c = 0, card
        while c not in seen:
            seen.add(c)
            c = (_permute_unchecked(1 << c, perm, deck)).bit_length() - 1
            n += 1
        sizes.append(n)
    return sizes


def count_fixed_subsets(perm: Sequence[int], n_cards: int, deck: Deck = CLASSIC_DECK) -> int:
    """How many ``n_cards``-subsets of the deck ``perm`` maps to themselves.

    A fixed set is a union of orbits of ``perm`` on the cards: the coefficient of x^n_cards
    in the product of (1 + x^size) over the orbits — for the classic deck, the product over
    the cycles (length L) of (1 + x^L)^n_ranks.
    """
    p = _check_perm(perm)
    _check_symmetry(p, deck)
    if not 0 <= n_cards <= deck.size:
        return 0
    poly = [1] + [0] * n_cards
    for size in _card_orbit_sizes(p, deck):
        factor = [0] * (n_cards + 1)
        factor[0] = 1
        if size <= n_cards:
            factor[size] = 1
        poly = _poly_mul(poly, factor, n_cards)
    return poly[n_cards]


def count_canonical_deals(
    deck: Deck = CLASSIC_DECK, n_exposed: int = 7, *, group: Iterable[Sequence[int]] | None = None
) -> int:
    """The exact number of suit-equivalence classes of ``n_exposed``-card sets (Burnside):
    156,248 for 7 exposed cards of the classic deck."""
    group = _resolve(deck, group)
    total = sum(count_fixed_subsets(p, n_exposed, deck) for p in group)
    classes = Fraction(total, len(group))
    if classes.denominator != 1:  # impossible by Burnside's lemma
        raise ArithmeticError(f"Burnside average {classes} is not an integer")
    return int(classes)


# --------------------------------------------------------------------------- vectorized


def canonical_masks_array(
    masks: np.ndarray | Iterable[int],
    deck: Deck = CLASSIC_DECK,
    *,
    group: Iterable[Sequence[int]] | None = None,
) -> np.ndarray:
    """Canonical masks of many sets at once (numpy, uint64).

    With all 24 permutations in the deck's group this uses the sorting characterisation
    rather than trying them: relabelling suits permutes the suit fields, and the least
    resulting integer puts the largest field value in the lowest field, …, the smallest in
    the highest (jokers, fixed by every permutation, are set aside first).  Otherwise it
    takes the least image over the group.  The masks are not validated.  (The test suite
    checks this against ``canonical_exposed``.)
    """
    if deck.mask_bits > 64:
        raise ValueError(f"deck {deck.name!r}: masks of {deck.mask_bits} bits do not fit uint64")
    if isinstance(masks, np.ndarray):
        arr = masks.astype(np.uint64)
    else:
        arr = np.array([int(m) for m in masks], dtype=np.uint64)
    jokers = arr & np.uint64(deck.joker_mask)
    arr = arr ^ jokers
    field = np.uint64(deck.field)
    fmask = np.uint64((1 << deck.field) - 1)
    fields = [(arr >> (field * np.uint64(s))) & fmask for s in range(N_SUITS)]
    resolved = _resolve(deck, group)
    if len(resolved) == len(_perms()):
        ordered = -np.sort(-np.stack(fields, axis=-1).astype(np.int64), axis=-1)  # largest first
        out = jokers.copy()
        for s in range(N_SUITS):
            out |= ordered[..., s].astype(np.uint64) << (field * np.uint64(s))
        return out
    least = np.full(arr.shape, np.iinfo(np.uint64).max, dtype=np.uint64)
    for perm in resolved:
        image = jokers.copy()
        for s in range(N_SUITS):
            image |= fields[s] << (field * np.uint64(perm[s]))
        np.minimum(least, image, out=least)
    return least


def _subsets_array(n_cards: int, deck: Deck) -> np.ndarray:
    """Every ``n_cards``-subset of the deck as a uint64 mask array (order unspecified).

    Built card by card: the k-subsets of the first i+1 cards are the k-subsets of the first
    i cards plus the (k-1)-subsets with card i added.
    """
    if not 0 <= n_cards <= deck.size:
        return np.zeros(0, dtype=np.uint64)
    # level[k] = k-subsets of the cards seen so far
    level: list[np.ndarray] = [np.zeros(1, dtype=np.uint64)] + [
        np.zeros(0, dtype=np.uint64)
    ] * n_cards
    for card in deck.cards():
        bit = np.uint64(1 << card)
        for k in range(n_cards, 0, -1):
            if level[k - 1].size:
                level[k] = np.concatenate([level[k], level[k - 1] | bit])
    return level[n_cards]


def all_canonical_exposed(
    deck: Deck = CLASSIC_DECK, n_exposed: int = 7, *, group: Iterable[Sequence[int]] | None = None
) -> np.ndarray:
    """Every canonical exposed mask, sorted ascending (uint64; 156,248 for the classic deal).

    Enumerates all subsets (a few seconds for C(32,7)); meant for batch solving the book.
    """
    if not 0 <= n_exposed <= deck.size:
        raise ValueError(f"cannot expose {n_exposed} cards of the {deck.size}-card deck")
    if comb(deck.size, n_exposed) > 50_000_000:
        raise ValueError(f"C({deck.size},{n_exposed}) sets are too many to enumerate")
    masks = _subsets_array(n_exposed, deck)
    canon = canonical_masks_array(masks, deck, group=group)
    found = canon[canon == masks]
    if deck.full_mask < 1 << 63:  # numpy sorts int64 far faster than uint64
        return np.unique(found.astype(np.int64)).astype(np.uint64)
    return np.unique(found)
