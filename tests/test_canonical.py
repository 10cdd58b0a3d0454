"""Suit canonicalization: permutations, canonical keys, mapping answers back, and the count."""

from __future__ import annotations

import random
from collections import Counter
from itertools import permutations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quintet.cards import CLASSIC_DECK, Deck, cards_of, mask_of, parse_mask, popcount
from quintet.evaluator import evaluate
from quintet.game import Arrangement, Deal, IllegalArrangementError, showdown
from quintet.rules import CLASSIC, Category
from quintet.symmetry import (
    IDENTITY,
    all_canonical_exposed,
    canonical_exposed,
    canonical_masks_array,
    compose,
    count_canonical_deals,
    count_fixed_subsets,
    cycle_type,
    from_canonical_arrangement,
    invert,
    is_canonical,
    map_arrangement,
    permute_card,
    permute_mask,
    stabilizer,
    suit_permutations,
    symmetry_group,
    to_canonical_arrangement,
)

DECK = CLASSIC_DECK
# The exact number of suit classes of 7-card exposed sets of the 32-card deck, by Burnside
# (3,365,856 + 6·62,960 + 8·792) / 24; test_burnside_equals_brute_force recomputes it.
CANONICAL_DEALS = 156_248

exposed_sets = st.sets(st.integers(0, 31), min_size=7, max_size=7).map(mask_of)
any_sets = st.sets(st.integers(0, 31), min_size=0, max_size=32).map(mask_of)
perms = st.sampled_from(list(permutations(range(4))))


def suit_counts(mask: int) -> list[int]:
    return [sum(1 for c in cards_of(mask) if c // 8 == s) for s in range(4)]


def rank_counts(mask: int) -> Counter[int]:
    return Counter(c % 8 for c in cards_of(mask))


def random_arrangement(deal: Deal, rng: random.Random) -> Arrangement:
    live = list(cards_of(deal.live))
    rng.shuffle(live)
    return Arrangement.from_cards(live[i : i + 5] for i in range(0, 25, 5))


# ------------------------------------------------------------------ permutations


def test_suit_permutations_are_the_24_in_lexicographic_order():
    ps = suit_permutations()
    assert len(ps) == 24 == len(set(ps))
    assert all(sorted(p) == [0, 1, 2, 3] for p in ps)
    assert ps == sorted(ps)
    assert ps[0] == IDENTITY


def test_permute_mask_relabels_suits_as_documented():
    # perm[old] = new: clubs -> spades, diamonds -> hearts, hearts -> diamonds, spades -> clubs
    perm = (3, 2, 1, 0)
    assert permute_mask(parse_mask("Ah 7c Td Ks"), perm) == parse_mask("Ad 7s Th Kc")
    # a 3-cycle: clubs -> diamonds -> hearts -> clubs, spades fixed
    perm = (1, 2, 0, 3)
    assert permute_mask(parse_mask("7c 8d 9h Ts"), perm) == parse_mask("7d 8h 9c Ts")
    assert (
        permute_card(parse_mask("Jc").bit_length() - 1, perm) == parse_mask("Jd").bit_length() - 1
    )


@pytest.mark.parametrize("perm", suit_permutations())
def test_permute_mask_is_a_bijection_on_cards(perm):
    images = [permute_mask(1 << c, perm) for c in range(32)]
    assert all(popcount(m) == 1 for m in images)
    assert mask_of(m.bit_length() - 1 for m in images) == DECK.full_mask  # onto the deck
    for c, m in enumerate(images):
        card = m.bit_length() - 1
        assert card == permute_card(c, perm)
        assert card % 8 == c % 8 and card // 8 == perm[c // 8]


@given(any_sets, perms)
def test_permute_mask_preserves_counts_and_ranks(mask, perm):
    image = permute_mask(mask, perm)
    assert popcount(image) == popcount(mask)
    assert rank_counts(image) == rank_counts(mask)
    before, after = suit_counts(mask), suit_counts(image)
    assert all(after[perm[s]] == before[s] for s in range(4))


@given(any_sets, perms, perms)
def test_invert_undoes_and_compose_composes(mask, p, q):
    assert permute_mask(permute_mask(mask, p), invert(p)) == mask
    assert permute_mask(permute_mask(mask, invert(p)), p) == mask
    assert invert(invert(p)) == p
    assert compose(p, invert(p)) == IDENTITY == compose(invert(p), p)
    assert permute_mask(permute_mask(mask, p), q) == permute_mask(mask, compose(p, q))


def test_bad_arguments_are_rejected():
    with pytest.raises(ValueError):
        permute_mask(1, (0, 1, 2, 2))
    with pytest.raises(ValueError):
        permute_mask(1, (0, 1, 2))
    with pytest.raises(ValueError):
        permute_mask(1 << 32, IDENTITY)
    with pytest.raises(ValueError):
        canonical_exposed(-1)
    with pytest.raises(ValueError):
        invert((1, 1, 2, 3))


# ------------------------------------------------------------------ canonical form


@settings(max_examples=200)
@given(exposed_sets)
def test_every_suit_permutation_maps_to_the_same_canonical_mask(exposed):
    canonical, pi = canonical_exposed(exposed)
    assert permute_mask(exposed, pi) == canonical
    for perm in suit_permutations():
        assert canonical_exposed(permute_mask(exposed, perm))[0] == canonical


@settings(max_examples=200)
@given(any_sets)
def test_canonical_is_the_least_image_with_the_least_permutation(mask):
    images = {perm: permute_mask(mask, perm) for perm in permutations(range(4))}
    least = min(images.values())
    canonical, pi = canonical_exposed(mask)
    assert canonical == least
    assert pi == min(p for p, m in images.items() if m == least)
    assert is_canonical(canonical)
    assert canonical_exposed(canonical) == (canonical, stabilizer(canonical)[0])
    assert is_canonical(mask) == (mask == least)


def test_canonical_form_of_a_symmetric_deal_is_deterministic():
    # spades and hearts hold the same ranks: two permutations reach the minimum
    exposed = parse_mask("7h 8h 7s 8s 9c Tc Jd")
    canonical, pi = canonical_exposed(exposed)
    achieving = [p for p in suit_permutations() if permute_mask(exposed, p) == canonical]
    assert len(achieving) == 2
    assert pi == achieving[0]
    assert len(stabilizer(exposed)) == 2
    assert canonical_exposed(exposed) == canonical_exposed(exposed)


@given(st.lists(any_sets, min_size=1, max_size=30))
def test_vectorized_canonical_masks_agree(masks):
    got = canonical_masks_array(np.array(masks, dtype=np.uint64))
    assert [int(x) for x in got] == [canonical_exposed(m)[0] for m in masks]
    group = colour_group()
    got = canonical_masks_array(masks, group=group)
    assert [int(x) for x in got] == [canonical_exposed(m, group=group)[0] for m in masks]


# ------------------------------------------------------------------ answers mapped back


@settings(max_examples=60, deadline=None)
@given(exposed_sets, st.integers(0, 2**32 - 1))
def test_mapped_back_arrangements_are_legal_and_keep_every_margin(exposed, seed):
    rng = random.Random(seed)
    canonical, pi = canonical_exposed(exposed)
    asked, canon = Deal(exposed), Deal(canonical)
    a, b = random_arrangement(canon, rng), random_arrangement(canon, rng)
    a2, b2 = from_canonical_arrangement(a, pi), from_canonical_arrangement(b, pi)
    a2.validate(asked)
    b2.validate(asked)
    original, mapped = showdown(a, b, canon), showdown(a2, b2, asked)
    assert mapped.margin == original.margin
    for s, t in zip(original.slots, mapped.slots, strict=True):
        assert (s.winner, s.hand_a.category, s.hand_b.category) == (
            t.winner,
            t.hand_a.category,
            t.hand_b.category,
        )
        assert s.hand_a.key == t.hand_a.key and s.hand_b.key == t.hand_b.key
    # and back again into canonical suits
    assert to_canonical_arrangement(a2, pi) == a
    assert map_arrangement(a2, pi) == a


def test_mapping_in_the_wrong_direction_is_illegal():
    """Guards the convention: pi maps asked -> canonical, answers go back by invert(pi)."""
    rng = random.Random(7)
    for _ in range(200):
        exposed = mask_of(rng.sample(range(32), 7))
        canonical, pi = canonical_exposed(exposed)
        if permute_mask(canonical, pi) != exposed:  # pi is not its own inverse on this deal
            break
    else:  # pragma: no cover
        pytest.fail("no deal with a non-involutive canonical permutation found")
    a = random_arrangement(Deal(canonical), rng)
    from_canonical_arrangement(a, pi).validate(Deal(exposed))
    with pytest.raises(IllegalArrangementError):
        map_arrangement(a, pi).validate(Deal(exposed))


@given(st.sets(st.integers(0, 31), min_size=5, max_size=5).map(mask_of), perms)
def test_suits_never_change_a_hand_key(hand, perm):
    assert evaluate(permute_mask(hand, perm)).key == evaluate(hand).key


# ------------------------------------------------------------------ counting


def test_cycle_types_and_fixed_subsets_by_hand():
    types = Counter(cycle_type(p) for p in suit_permutations())
    assert types == {(1, 1, 1, 1): 1, (2, 1, 1): 6, (2, 2): 3, (3, 1): 8, (4,): 6}
    # transposition: 16 fixed cards and 8 swapped pairs
    assert count_fixed_subsets((1, 0, 2, 3), 7) == sum(
        comb(8, j) * comb(16, 7 - 2 * j) for j in range(4)
    )
    # 3-cycle: 8 fixed cards and 8 triples
    assert count_fixed_subsets((1, 2, 0, 3), 7) == sum(
        comb(8, j) * comb(8, 7 - 3 * j) for j in range(3)
    )
    # double transposition / 4-cycle: orbits of even size only, so no odd set is fixed
    assert count_fixed_subsets((1, 0, 3, 2), 7) == 0 == count_fixed_subsets((1, 2, 3, 0), 7)
    assert count_fixed_subsets((1, 0, 3, 2), 8) == comb(16, 4)
    assert count_fixed_subsets(IDENTITY, 7) == comb(32, 7)


def test_canonical_deal_count():
    assert count_canonical_deals() == CANONICAL_DEALS
    assert count_canonical_deals(DECK, 0) == 1 == count_canonical_deals(DECK, 32)
    assert count_canonical_deals(DECK, 1) == 8  # one per rank


SMALL_DECKS = [
    Deck(name="2x4", ranks="KA", field=8),
    Deck(name="3x4", ranks="QKA", field=4),
    Deck(name="2x4+2", ranks="KA", field=4, jokers=2),
    Deck(name="3x4-alias", ranks="QKA", field=5, jokers=1, joker_alias="Qs"),
]


def image_of_card(card: int, perm, deck: Deck) -> int:
    """Written independently of the module: jokers stay, other cards change suit."""
    if card in deck.joker_cards:
        return card
    return (card % deck.field) + deck.field * perm[card // deck.field]


def deck_group(deck: Deck) -> list[tuple[int, ...]]:
    cards = set(deck.cards())
    return [
        p for p in permutations(range(4)) if {image_of_card(c, p, deck) for c in cards} == cards
    ]


def colour_group() -> list[tuple[int, ...]]:
    return [p for p in permutations(range(4)) if {p[0], p[3]} in ({0, 3}, {1, 2})]


def brute_force_classes(deck: Deck, group) -> dict[int, set[int]]:
    by_size: dict[int, set[int]] = {}
    cards = deck.cards()
    for bits in range(1 << len(cards)):
        chosen = [c for i, c in enumerate(cards) if bits >> i & 1]
        least = min(mask_of(image_of_card(c, p, deck) for c in chosen) for p in group)
        by_size.setdefault(len(chosen), set()).add(least)
    return by_size


@pytest.mark.parametrize("deck", SMALL_DECKS, ids=lambda d: d.name)
def test_burnside_equals_brute_force_on_small_decks(deck):
    group = deck_group(deck)
    assert suit_permutations(deck) == group
    by_size = brute_force_classes(deck, group)
    for n in range(deck.size + 1):
        assert count_canonical_deals(deck, n) == len(by_size[n]), n
    sample = sorted(by_size[3])[:20]
    assert all(is_canonical(m, deck) for m in sample)


def test_burnside_with_the_colour_group_equals_brute_force():
    deck = SMALL_DECKS[1]
    group = colour_group()
    assert len(group) == 8
    by_size = brute_force_classes(deck, group)
    for n in range(deck.size + 1):
        assert count_canonical_deals(deck, n, group=group) == len(by_size[n]), n


def test_the_joker_alias_deck_is_symmetric_only_in_three_suits():
    deck = SMALL_DECKS[3]
    group = suit_permutations(deck)
    assert len(group) == 6 and all(p[3] == 3 for p in group)
    with pytest.raises(ValueError, match="onto itself"):
        permute_mask(1, (3, 1, 2, 0), deck)
    joker = deck.joker_cards[0]
    for p in group:
        assert permute_card(joker, p, deck) == joker


def test_symmetry_group_of_rules():
    colour = getattr(Category, "COLOUR", None)
    if colour is None:  # pragma: no cover - the variant categories are another module's
        pytest.skip("no colour category in this rule module")
    assert symmetry_group(CLASSIC) == tuple(permutations(range(4)))
    rules = CLASSIC.with_options(category_order=CLASSIC.category_order + (colour,))
    assert list(symmetry_group(rules)) == colour_group()
    assert symmetry_group(SMALL_DECKS[3]) == tuple(deck_group(SMALL_DECKS[3]))


def test_bad_groups_are_rejected():
    with pytest.raises(ValueError, match="identity"):
        canonical_exposed(1, group=[(1, 0, 2, 3)])
    with pytest.raises(ValueError, match="closed"):
        canonical_exposed(1, group=[IDENTITY, (1, 2, 0, 3)])
    with pytest.raises(ValueError, match="onto itself"):
        canonical_exposed(1, SMALL_DECKS[3], group=[IDENTITY, (3, 1, 2, 0)])
    assert canonical_exposed(1 << 8, group=[IDENTITY, (1, 0, 2, 3)]) == (1, (1, 0, 2, 3))


DECK_54 = Deck(name="54", ranks="23456789TJQKA", field=16, jokers=2)
sets_54 = st.sets(st.sampled_from(DECK_54.cards()), min_size=0, max_size=20).map(mask_of)


@settings(max_examples=100)
@given(sets_54, perms)
def test_64_bit_decks_with_jokers(mask, perm):
    image = permute_mask(mask, perm, DECK_54)
    assert image & DECK_54.joker_mask == mask & DECK_54.joker_mask  # jokers never move
    assert popcount(image) == popcount(mask)
    assert permute_mask(image, invert(perm), DECK_54) == mask
    canonical, pi = canonical_exposed(mask, DECK_54)
    assert canonical_exposed(image, DECK_54)[0] == canonical
    assert permute_mask(mask, pi, DECK_54) == canonical
    assert int(canonical_masks_array([mask, image], DECK_54)[0]) == canonical


def _all_7_subsets_of_32() -> np.ndarray:
    """Every 32-bit mask with 7 bits set, by Gosper's hack (independent of the module)."""
    from numba import njit

    @njit(cache=False)
    def gosper(k: int, n_bits: int, out):  # pragma: no cover - compiled
        x = (1 << k) - 1
        limit = 1 << n_bits
        i = 0
        while x < limit:
            out[i] = x
            i += 1
            c = x & -x
            r = x + c
            x = (((r ^ x) >> 2) // c) | r
        return i

    out = np.zeros(comb(32, 7), dtype=np.int64)
    assert gosper(7, 32, out) == out.size
    assert np.all(np.diff(out) > 0)  # strictly increasing, hence all distinct
    return out.astype(np.uint64)


def test_burnside_equals_brute_force_over_all_deals():
    """All C(32,7) exposed sets: the least of the 24 relabelled masks, counted."""
    masks = _all_7_subsets_of_32()
    assert masks.size == comb(32, 7)
    assert np.all(np.bitwise_count(masks) == 7)
    eight, byte = np.uint64(8), np.uint64(0xFF)
    fields = [(masks >> (eight * np.uint64(s))) & byte for s in range(4)]
    least = np.full(masks.shape, np.iinfo(np.uint64).max, dtype=np.uint64)
    for perm in permutations(range(4)):
        image = fields[0] << (eight * np.uint64(perm[0]))
        for s in range(1, 4):
            image |= fields[s] << (eight * np.uint64(perm[s]))
        np.minimum(least, image, out=least)
    classes = np.unique(least.astype(np.int64)).astype(np.uint64)  # int64 sorts faster
    assert classes.size == count_canonical_deals() == CANONICAL_DEALS
    # the module's own list of canonical deals is exactly these classes
    assert np.array_equal(all_canonical_exposed(), classes)
