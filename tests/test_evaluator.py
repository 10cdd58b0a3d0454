"""The evaluator: exhaustive checks over all 201,376 hands, a reference ranker, a peer
library, ordering spot checks, tie-break options, straight edges and descriptions."""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from math import comb

import numpy as np
import pytest
import reference as ref
from deals import EXAMPLE as EXAMPLE_EXPOSED
from reference import dense_rank_array

from quintet import kernels
from quintet.cards import CLASSIC_DECK, WrongCardCountError, parse_mask
from quintet.evaluator import (
    HandValue,
    category_of_key,
    describe,
    evaluate,
    hand_key,
    hand_keys,
    rank_packets,
)
from quintet.hands import tie_break
from quintet.rules import CLASSIC, Category, get_rules

FULL = CLASSIC_DECK.full_mask
N_HANDS = comb(32, 5)

# docs/rules.md: category counts over all C(32,5) hands.
RULES_COUNTS = {
    "straight flush": 16,
    "four of a kind": 224,
    "full house": 1_344,
    "flush": 208,
    "straight": 4_080,
    "three of a kind": 10_752,
    "two pair": 24_192,
    "pair": 107_520,
    "high card": 53_040,
}
# quintet's Category ids named like the reference's categories.
REF_NAME = {
    Category.HIGH_CARD: "high card",
    Category.PAIR: "pair",
    Category.TWO_PAIR: "two pair",
    Category.THREE_OF_A_KIND: "three of a kind",
    Category.STRAIGHT: "straight",
    Category.FLUSH: "flush",
    Category.FULL_HOUSE: "full house",
    Category.FOUR_OF_A_KIND: "four of a kind",
    Category.STRAIGHT_FLUSH: "straight flush",
}

OPTION_SETS = {
    "default": {},
    "group-only": {"tiebreak": "group-only"},
    "no-kickers": {"tiebreak": "no-kickers"},
    "flush-over-full-house": {"flush_over_full_house": True},
    "ace-low-straight": {"ace_low_straight": True},
}


def rules_for(name: str):
    return get_rules("classic", **OPTION_SETS[name])


@pytest.fixture(scope="module")
def full_table():
    return rank_packets(FULL)


@pytest.fixture(scope="module")
def ref_cards(all_combos):
    return [[ref.card_from_int(c) for c in hand] for hand in all_combos]


# ---------------------------------------------------------------- exhaustive ----------


def test_sum_of_rules_counts_is_all_hands():
    assert sum(RULES_COUNTS.values()) == N_HANDS == 201_376


def test_category_counts_batch_kernel(full_table):
    counts = Counter(Category(int(c)).label for c in full_table.categories)
    labels = {REF_NAME[c]: c.label for c in CLASSIC.categories}
    assert counts == Counter({labels[name]: n for name, n in RULES_COUNTS.items()})


def test_category_counts_scalar_kernel(all_masks):
    _, cats = hand_keys(all_masks)
    counts = Counter(REF_NAME[Category(int(c))] for c in cats)
    assert counts == Counter(RULES_COUNTS)


def test_reference_ranker_reproduces_rules_counts(ref_cards):
    # The reference is itself checked against the docs/rules.md table, so it can be trusted below.
    assert Counter(ref.category(h) for h in ref_cards) == Counter(RULES_COUNTS)


def test_full_deck_packets_are_all_hands_in_lexicographic_order(full_table, all_masks):
    assert len(full_table) == N_HANDS
    assert full_table.masks.dtype == np.uint32
    np.testing.assert_array_equal(full_table.masks, all_masks)


@pytest.mark.parametrize("option_set", list(OPTION_SETS))
def test_scalar_kernel_agrees_with_batch_kernel_on_every_hand(option_set, all_masks):
    rules = rules_for(option_set)
    table = rank_packets(FULL, rules)
    np.testing.assert_array_equal(table.masks, all_masks)
    keys, cats = hand_keys(all_masks, rules)  # kernels.hand_keys32: the scalar kernel in a loop
    np.testing.assert_array_equal(table.keys, keys)
    np.testing.assert_array_equal(table.categories, cats)


def test_raw_scalar_kernel_hand_key32_agrees_with_batch_on_every_hand(full_table, all_masks):
    from quintet.evaluator import _classic_tables

    t = _classic_tables(CLASSIC)
    keys = np.empty(len(all_masks), dtype=np.int64)
    cats = np.empty(len(all_masks), dtype=np.int64)
    for i, m in enumerate(all_masks.tolist()):
        keys[i], cats[i] = kernels.hand_key32(m, t.strengths, t.straight_top, t.tiebreak)
    np.testing.assert_array_equal(keys, full_table.keys.astype(np.int64))
    np.testing.assert_array_equal(cats, full_table.categories.astype(np.int64))


def _check_dense_classes(table):
    classes = np.asarray(table.classes)
    assert classes.dtype.kind == "i"
    # classes 0..R-1, all used
    assert table.n_classes == len(np.unique(classes))
    assert classes.min() == 0 and classes.max() == table.n_classes - 1
    # equal keys <=> same class; higher key <=> higher class
    np.testing.assert_array_equal(classes, dense_rank_array(table.keys))
    order = np.argsort(table.keys, kind="stable")
    assert np.all(np.diff(classes[order]) >= 0)
    ck = table.class_keys()
    assert len(ck) == table.n_classes and np.all(np.diff(ck.astype(np.int64)) > 0)
    np.testing.assert_array_equal(ck[classes], table.keys)


@pytest.mark.parametrize("option_set", list(OPTION_SETS))
def test_dense_classes_consistent_with_keys_full_deck(option_set):
    _check_dense_classes(rank_packets(FULL, rules_for(option_set)))




def test_rank_packets_of_25_live_cards_are_exactly_the_5_subsets():
    live = FULL & ~parse_mask(EXAMPLE_EXPOSED)
    table = rank_packets(live)
    assert len(table) == comb(25, 5) == 53_130
    live_cards = [b for b in range(32) if live >> b & 1]
    assert len(live_cards) == 25
    expected = [sum(1 << c for c in s) for s in combinations(live_cards, 5)]
    assert table.masks.tolist() == expected  # exactly the 5-subsets, lexicographic order
    assert len(set(table.masks.tolist())) == 53_130
    keys, cats = hand_keys(table.masks)
    np.testing.assert_array_equal(table.keys, keys)
    np.testing.assert_array_equal(table.categories, cats)
    _check_dense_classes(table)
    assert table.live == live


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_rank_packets_random_live_sets(seed):
    rng = np.random.default_rng(seed)
    for n in (5, 6, 12, 25):
        cards = sorted(rng.choice(32, size=n, replace=False).tolist())
        live = sum(1 << c for c in cards)
        table = rank_packets(live, get_rules(tiebreak="group-only") if seed == 2 else CLASSIC)
        assert table.masks.tolist() == [sum(1 << c for c in s) for s in combinations(cards, 5)]
        keys, _ = hand_keys(table.masks, table.rules)
        np.testing.assert_array_equal(table.keys, keys)
        _check_dense_classes(table)


def test_rank_packets_rejects_too_few_cards():
    with pytest.raises(WrongCardCountError):
        rank_packets(parse_mask("Ah Kh Qh Jh"))


# ---------------------------------------------------------- reference ranker ----------


@pytest.mark.heavy  # every hand through the slow reference ranker, per option set
@pytest.mark.parametrize("option_set", list(OPTION_SETS))
def test_order_equals_reference_on_every_hand(option_set, ref_cards):
    rules = rules_for(option_set)
    opts = OPTION_SETS[option_set]
    table = rank_packets(FULL, rules)  # same order as all_combos (checked above)
    tuples = [ref.order_tuple(h, **opts) for h in ref_cards]
    ref_dense = np.array(ref.dense_ranks(tuples))
    ours = np.asarray(table.classes)
    mismatch = np.flatnonzero(ref_dense != ours)
    if mismatch.size:
        i = int(mismatch[0])
        pytest.fail(
            f"{mismatch.size} hands disagree; first: {ref_cards[i]} ref rank {ref_dense[i]} "
            f"tuple {tuples[i]}, ours class {ours[i]} key {int(table.keys[i]):#x}"
        )
    assert table.n_classes == ref_dense.max() + 1
    # and the categories agree (ace-low straights are straights under the option)
    names = [REF_NAME[Category(int(c))] for c in table.categories]
    ref_names = [
        ref.category(h, ace_low_straight=opts.get("ace_low_straight", False)) for h in ref_cards
    ]
    assert names == ref_names


# -------------------------------------------------------------- peer library ----------


EVAL7_TYPES = {
    "Straight Flush": "straight flush",
    "Quads": "four of a kind",
    "Full House": "full house",
    "Flush": "flush",
    "Straight": "straight",
    "Trips": "three of a kind",
    "Two Pair": "two pair",
    "Pair": "pair",
    "High Card": "high card",
}


def _eval7_card(card: int):
    eval7 = pytest.importorskip("eval7")
    return eval7.Card("789TJQKA"[card % 8] + "cdhs"[card // 8])


def test_default_order_agrees_with_eval7_on_every_hand(all_combos, full_table):
    eval7 = pytest.importorskip("eval7")
    deck = [_eval7_card(c) for c in range(32)]
    values = np.array(
        [eval7.evaluate([deck[c] for c in hand]) for hand in all_combos], dtype=np.int64
    )
    # eval7: higher is stronger, like our keys
    np.testing.assert_array_equal(dense_rank_array(values), full_table.classes)
    ours = [REF_NAME[Category(int(c))] for c in full_table.categories]
    theirs = [EVAL7_TYPES[eval7.handtype(int(v))] for v in values]
    assert ours == theirs


def test_default_order_agrees_with_phevaluator_on_every_hand(all_combos, full_table):
    phe = pytest.importorskip("phevaluator")
    # phevaluator card id = rank * 4 + suit, rank 0 = deuce, suits c d h s = 0..3
    ids = [(5 + c % 8) * 4 + c // 8 for c in range(32)]
    values = np.array(
        [phe.evaluate_cards(*(ids[c] for c in hand)) for hand in all_combos], dtype=np.int64
    )
    # phevaluator: 1 is the strongest (lower is better) -> invert
    np.testing.assert_array_equal(dense_rank_array(-values), full_table.classes)


def test_peer_calls_a7_8_9_10_no_straight_and_full_house_over_flush():
    eval7 = pytest.importorskip("eval7")

    def peer(text):
        v = eval7.evaluate([eval7.Card(t) for t in text.split()])
        return v, eval7.handtype(v)

    wheelish, kind = peer("As 7d 8h 9c Td")
    assert kind == "High Card"
    assert evaluate("As 7d 8h 9c Td").category == Category.HIGH_CARD
    fh, kind_fh = peer("7c 7d 7h 8c 8d")
    fl, kind_fl = peer("Ac Kc Qc Jc 9c")
    assert (kind_fh, kind_fl) == ("Full House", "Flush") and fh > fl
    assert hand_key("7c 7d 7h 8c 8d") > hand_key("Ac Kc Qc Jc 9c")


# ------------------------------------------------------------ ordering spots ----------

# Ascending within each category; (a, b) pairs are equal hands.
ASCENDING = {
    Category.STRAIGHT_FLUSH: [
        "Js Ts 9s 8s 7s",
        "Qh Jh Th 9h 8h",
        "Kd Qd Jd Td 9d",
        "Ac Kc Qc Jc Tc",
    ],
    Category.FOUR_OF_A_KIND: [
        "7c 7d 7h 7s 8c",
        "7c 7d 7h 7s Ac",
        "8c 8d 8h 8s 7c",
        "Kc Kd Kh Ks Ac",
        "Ac Ad Ah As 7c",
        "Ac Ad Ah As Kc",
    ],
    Category.FULL_HOUSE: [
        "7c 7d 7h 8c 8d",
        "7c 7d 7h Ac Ad",
        "8c 8d 8h 7c 7d",
        "Kc Kd Kh Ac Ad",
        "Ac Ad Ah 7c 7d",
        "Ac Ad Ah Kc Kd",
    ],
    Category.FLUSH: [
        "Qc Tc 9c 8c 7c",
        "Qd Jd 9d 8d 7d",
        "Qh Jh Th 8h 7h",
        "Kc Tc 9c 8c 7c",
        "Ac Kc Qc Jc 7c",
        "Ac Kc Qc Jc 8c",
        "Ac Kc Qc Jc 9c",
    ],
    Category.STRAIGHT: ["Jc Td 9h 8s 7c", "Qc Jd Th 9s 8c", "Kc Qd Jh Ts 9c", "Ac Kd Qh Js Tc"],
    Category.THREE_OF_A_KIND: [
        "7c 7d 7h 9c 8d",
        "7c 7d 7h Ac 8d",
        "7c 7d 7h Ac 9d",
        "7c 7d 7h Ac Kd",
        "8c 8d 8h 9c 7d",
        "Ac Ad Ah 8c 7d",
        "Ac Ad Ah Kc Qd",
    ],
    Category.TWO_PAIR: [
        "8c 8d 7c 7d 9h",
        "8c 8d 7c 7d Ah",
        "9c 9d 7c 7d 8h",
        "9c 9d 8c 8d 7h",
        "Kc Kd Qc Qd Jh",
        "Ac Ad 7c 7d 8h",
        "Ac Ad Kc Kd Qh",
    ],
    Category.PAIR: [
        "7c 7d Th 9c 8d",
        "7c 7d Jh 9c 8d",
        "7c 7d Ah Kc 8d",
        "7c 7d Ah Kc 9d",
        "7c 7d Ah Kc Qd",
        "8c 8d 9h Tc Jd",
        "8c 8d Ah Kc Qd",
        "Ac Ad 9h 8c 7d",
        "Ac Ad Kh Qc Jd",
    ],
    Category.HIGH_CARD: [
        "Qc Td 9h 8s 7c",
        "Qc Jd 9h 8s 7c",
        "Qc Jd Th 8s 7c",
        "Kc Td 9h 8s 7c",
        "Ac 7d 8h 9s Tc",
        "Ac Kd Qh Js 7c",
        "Ac Kd Qh Js 8c",
        "Ac Kd Qh Js 9c",
    ],
}
EQUAL = [
    ("Kd Qd Jd Td 9d", "Ks Qs Js Ts 9s"),
    ("7c 7d 7h 7s Ac", "7c 7d 7h 7s As"),
    ("Kc Kd Kh 9c 9d", "Ks Kd Kh 9s 9h"),
    ("Ac Kc Qc Jc 9c", "As Ks Qs Js 9s"),
    ("Ac Kd Qh Js Tc", "As Kc Qd Jh Ts"),
    ("7c 7d 7h Ac Kd", "7s 7d 7h As Kh"),
    ("Ac Ad Kc Kd Qh", "Ah As Kh Ks Qc"),
    ("8c 8d Ah Kc Qd", "8h 8s As Kd Qc"),
    ("Ac Kd Qh Js 9c", "Ad Kh Qs Jc 9h"),
]
CLASSIC_CATEGORY_ORDER = [
    Category.HIGH_CARD,
    Category.PAIR,
    Category.TWO_PAIR,
    Category.THREE_OF_A_KIND,
    Category.STRAIGHT,
    Category.FLUSH,
    Category.FULL_HOUSE,
    Category.FOUR_OF_A_KIND,
    Category.STRAIGHT_FLUSH,
]


@pytest.mark.parametrize("category", list(ASCENDING), ids=lambda c: c.label)
def test_ordering_inside_category(category):
    hands = ASCENDING[category]
    values = [evaluate(h) for h in hands]
    assert all(v.category == category for v in values), [
        (h, v.category) for h, v in zip(hands, values, strict=True)
    ]
    keys = [v.key for v in values]
    for lo, hi, klo, khi in zip(hands[:-1], hands[1:], keys[:-1], keys[1:], strict=True):
        assert klo < khi, f"{lo} should rank below {hi}"


@pytest.mark.parametrize("a,b", EQUAL)
def test_equal_hands_have_equal_keys(a, b):
    assert hand_key(a) == hand_key(b)
    assert hand_key(a, get_rules(tiebreak="group-only")) == hand_key(
        b, get_rules(tiebreak="group-only")
    )


def test_ordering_across_categories():
    # The best hand of each category is below the worst hand of the next one up.
    for lower, upper in zip(CLASSIC_CATEGORY_ORDER[:-1], CLASSIC_CATEGORY_ORDER[1:], strict=True):
        assert hand_key(ASCENDING[lower][-1]) < hand_key(ASCENDING[upper][0]), (lower, upper)
    # category strengths follow docs/rules.md
    keys = [hand_key(ASCENDING[c][0]) for c in CLASSIC_CATEGORY_ORDER]
    assert keys == sorted(keys)


def test_full_house_beats_flush_by_default_and_option_swaps_them():
    worst_full, best_full = ASCENDING[Category.FULL_HOUSE][0], ASCENDING[Category.FULL_HOUSE][-1]
    worst_flush, best_flush = ASCENDING[Category.FLUSH][0], ASCENDING[Category.FLUSH][-1]
    assert hand_key(worst_full) > hand_key(best_flush)
    swapped = get_rules(flush_over_full_house=True)
    assert hand_key(worst_flush, swapped) > hand_key(best_full, swapped)
    # the neighbours are unchanged
    assert hand_key(worst_flush, swapped) > hand_key(ASCENDING[Category.STRAIGHT][-1], swapped)
    assert hand_key(best_full, swapped) < hand_key(ASCENDING[Category.FOUR_OF_A_KIND][0], swapped)
    # and inside the categories the order stays
    for cat in (Category.FLUSH, Category.FULL_HOUSE):
        keys = [hand_key(h, swapped) for h in ASCENDING[cat]]
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert category_of_key(hand_key(worst_flush, swapped), swapped) == Category.FLUSH


# ----------------------------------------------------------- tie-break option ---------

GROUP_PAIRS = [  # (stronger by kickers, weaker by kickers), same group
    ("As Ah Ad Ac Ks", "As Ah Ad Ac Qs"),  # four aces, K vs Q kicker
    ("7c 7d 7h 7s Ac", "7c 7d 7h 7s 8c"),  # four sevens
    ("Ks Kd Kh Qs 7c", "Ks Kd Kc Js Tc"),  # three kings, Q vs J
    ("9c 9d 9h Ac 8d", "9c 9d 9h Kc Qd"),  # three nines, A beats K-Q
    ("Ac Ad Ah 9c 7d", "Ac Ad Ah 8d 7c"),  # three aces, second kicker 9 vs 8
    ("As Ah Ac Kd Kh", "As Ah Ad 8c 8h"),  # full house aces: kings vs eights
    ("Tc Td Th 9c 9d", "Tc Td Ts 7c 7d"),
]


@pytest.mark.parametrize("strong,weak", GROUP_PAIRS)
def test_tiebreak_kickers_vs_group_only(strong, weak):
    assert hand_key(strong) > hand_key(weak)  # default: kickers
    assert hand_key(strong, get_rules(tiebreak="kickers")) > hand_key(
        weak, get_rules(tiebreak="kickers")
    )
    group_only = get_rules(tiebreak="group-only")
    assert hand_key(strong, group_only) == hand_key(weak, group_only)


def test_group_only_still_orders_groups_and_other_categories():
    g = get_rules(tiebreak="group-only")
    assert hand_key("Ac Ad Ah 7c 8d", g) > hand_key("Kc Kd Kh Ac Qd", g)
    assert hand_key("8c 8d 8h 8s 7c", g) > hand_key("7c 7d 7h 7s Ac", g)
    assert hand_key("8c 8d 8h 7c 7d", g) > hand_key("7c 7d 7h Ac Ad", g)
    # kickers still decide two pair, pair, flush and high card
    for strong, weak in [
        ("Ac Ad Kc Kd Qh", "Ac Ad Kc Kd Jh"),
        ("7c 7d Ah Kc 9d", "7c 7d Ah Kc 8d"),
        ("Ac Kc Qc Jc 9c", "Ac Kc Qc Jc 8c"),
        ("Ac Kd Qh Js 9c", "Ac Kd Qh Js 8c"),
    ]:
        assert hand_key(strong, g) > hand_key(weak, g)
    # categories keep their order
    assert hand_key("7c 7d 7h 8c 8d", g) > hand_key("Ac Kc Qc Jc 9c", g)
    assert hand_key("7c 7d 7h 7s 8c", g) > hand_key("Ac Ad Ah Kc Kd", g)


KICKER_PAIRS = [  # (stronger by kickers, weaker by kickers): the same pair, two pairs, highest card
    ("Ac Ad Kc Kd Qh", "As Ah Ks Kh Jh"),  # aces and kings: Q vs J
    ("7c 7d Ah Kc 9d", "7h 7s Ad Kd 8c"),  # pair of sevens, third kicker 9 vs 8
    ("Kh Kd Tc 8s 7h", "Ks Kc 9d 8h 7c"),  # pair of kings, first kicker T vs 9
    ("Ac Kd Qh Js 9c", "As Qd Jh Tc 8s"),  # high card ace: K vs Q
]


@pytest.mark.parametrize("strong,weak", KICKER_PAIRS)
def test_no_kickers_ties_equal_pairs_two_pairs_and_highest_cards(strong, weak):
    no_kickers = get_rules(tiebreak="no-kickers")
    assert hand_key(strong) > hand_key(weak)
    group_only = get_rules(tiebreak="group-only")  # the kickers of these categories still decide
    assert hand_key(strong, group_only) == hand_key(strong) and hand_key(weak, group_only) == hand_key(weak)
    assert hand_key(strong, no_kickers) == hand_key(weak, no_kickers)


def test_no_kickers_keeps_what_makes_the_category():
    n = get_rules(tiebreak="no-kickers")
    for strong, weak in [
        ("Ac Ad 7c 8d 9h", "Kc Kd Ah Qd Jh"),  # the pair's rank
        ("Ac Ad Kc Kd 7h", "Ac Ad Qc Qd Kh"),  # the lower pair of two pair
        ("Ac 9d 8h 7s Jc", "Kc Qd Jh 9s 8c"),  # the highest card
        ("Ac Kc Qc Jc 9c", "Ac Kc Qc Jc 8c"),  # a flush: all five cards belong to it
        ("Ac Kd Qh Js Tc", "Kc Qd Jh Ts 9c"),  # straights: the top card
        ("8c 8d 8h 7c 7d", "7c 7d 7h Ac Ad"),  # full house: the three
    ]:
        assert hand_key(strong, n) > hand_key(weak, n), (strong, weak)
    for a, b in GROUP_PAIRS:  # every tie of group-only is a tie here
        assert hand_key(a, n) == hand_key(b, n)
    assert describe("Ac Ad Kc Kd 7h", n) == "two pair, aces and kings"


# ------------------------------------------------------------- straight edges ---------


def test_straight_edges_default():
    top, bottom = hand_key("Ac Kd Qh Js Tc"), hand_key("Jc Td 9h 8s 7c")
    straights = [hand_key(h) for h in ASCENDING[Category.STRAIGHT]]
    assert top == max(straights) and bottom == min(straights)
    assert evaluate("Ac Kd Qh Js Tc").category == Category.STRAIGHT
    assert evaluate("Jc Td 9h 8s 7c").category == Category.STRAIGHT
    # A-7-8-9-10 is not a straight: ace-high high card, below A-K-Q-J-9
    ace_low = evaluate("As 7d 8h 9c Td")
    assert ace_low.category == Category.HIGH_CARD
    assert ace_low.key < hand_key("Ac Kd Qh Js 9c")
    assert ace_low.key > hand_key("Kc Qd Jh Ts 8c")
    # and suited it is a flush, not a straight flush
    assert evaluate("As 7s 8s 9s Ts").category == Category.FLUSH
    # straights never wrap: K-A-7-8-9 is nothing
    assert evaluate("Kc Ad 7h 8s 9c").category == Category.HIGH_CARD


def test_straight_edges_ace_low_option():
    r = get_rules(ace_low_straight=True)
    ace_low = evaluate("As 7d 8h 9c Td", r)
    assert ace_low.category == Category.STRAIGHT
    assert ace_low.key < hand_key("Jc Td 9h 8s 7c", r)  # lowest straight
    assert ace_low.key > hand_key("Ac Ad Ah Kc Qd", r)  # still above any three of a kind
    assert hand_key("As 7h 8h 9c Td", r) == ace_low.key  # suits don't matter
    sf = evaluate("As 7s 8s 9s Ts", r)
    assert sf.category == Category.STRAIGHT_FLUSH
    assert sf.key < hand_key("Jh Th 9h 8h 7h", r)
    assert sf.key > hand_key("Ac Ad Ah As Kc", r)
    assert ace_low.description == "straight, ten high"
    assert sf.description == "straight flush, ten high"
    # the top straight is unaffected; no wrap-around either
    assert hand_key("Ac Kd Qh Js Tc", r) > hand_key("Kc Qd Jh Ts 9c", r)
    assert evaluate("Kc Ad 7h 8s 9c", r).category == Category.HIGH_CARD


# --------------------------------------------------------------- descriptions ---------

DESCRIPTIONS = [
    ("As Ah Ad 8c 8h", "full house, aces over eights"),
    ("8s 8h 8d Ac Ah", "full house, eights over aces"),
    ("Ks Qs Js Ts 9s", "straight flush, king high"),
    ("Ah Kh Qh Jh Th", "straight flush, ace high"),
    ("Js Ts 9s 8s 7s", "straight flush, jack high"),
    ("As Ah Ad Ac Qs", "four aces"),
    ("7s 7h 7d 7c Qs", "four sevens"),
    ("Qd Jd Td 8d 7d", "flush, queen high"),
    ("Ac Kd Qh Js Tc", "straight, ace high"),
    ("Jc Td 9h 8s 7c", "straight, jack high"),
    ("Ks Kd Kc Js Tc", "three kings"),
    ("9s 9c 8s 8c 7c", "two pair, nines and eights"),
    ("7c 7d Ac Kd Th", "pair of sevens"),
    ("Tc Td Ac Kd 9h", "pair of tens"),
    ("Qc Td 9h 8s 7c", "high card, queen"),
    ("As 7d 8h 9c Td", "high card, ace"),
]


@pytest.mark.parametrize("hand,text", DESCRIPTIONS)
def test_describe(hand, text):
    assert describe(hand) == text
    assert evaluate(hand).description == text


def test_tie_break_names_the_first_place_the_reference_orders_by(all_masks, full_table):
    """Pairs of hands of the same name (40,000 drawn, every name with two keys or more): the
    tie-break is the reference ranker's first differing place after the category, and the
    ranks there; a tie or two names, no tie-break."""
    rng = np.random.default_rng(30)
    by_name: dict[str, list[int]] = {}
    names = {}
    for i in rng.permutation(len(all_masks))[:60_000].tolist():
        mask = int(all_masks[i])
        names[mask] = describe(mask)
        by_name.setdefault(names[mask], []).append(mask)
    tried = decided = 0
    for group in by_name.values():
        for _ in range(min(400, len(group) * 2)):
            a, b = (group[j] for j in rng.integers(0, len(group), 2))
            order_a, order_b = ref.order_tuple(ref.cards_from_mask(a)), ref.order_tuple(ref.cards_from_mask(b))
            tb = tie_break(hand_key(a), hand_key(b))
            tried += 1
            if order_a == order_b:
                assert tb is None
                continue
            place = next(i for i, (x, y) in enumerate(zip(order_a, order_b, strict=True)) if x != y) - 1
            assert tb is not None and tb.place == place, (names[a], tb)
            assert (7 + tb.rank_a, 7 + tb.rank_b) == (order_a[place + 1], order_b[place + 1])
            decided += 1
    assert tried > 10_000 and decided > 5_000
    pair, kings = hand_key("As Ad Kc 9h 8h"), hand_key("Ks Kd Ac 9h 8d")
    assert tie_break(pair, kings) is None and tie_break(pair, pair) is None  # two names; a tie
    group_only = get_rules("classic", tiebreak="group-only")  # the kickers do not count: a tie
    assert tie_break(hand_key("Ks Kd Kc Ad 7h", group_only), hand_key("Ks Kh Kc Qd Jh", group_only), group_only) is None
    assert str(tie_break(hand_key("Ks Kd Kc Ad 7h"), hand_key("Ks Kh Kc Qd Jh"))) == "higher kicker: ace over queen"


# ---------------------------------------------------------------- API checks ----------


def test_evaluate_accepts_text_mask_and_card_list_alike():
    text = "Ah Kh Qh Jh Th"
    mask = parse_mask(text)
    cards = [b for b in range(32) if mask >> b & 1]
    a, b, c = evaluate(text), evaluate(mask), evaluate(cards)
    assert isinstance(a, HandValue)
    assert a == b == c
    assert a.mask == mask and a.category == Category.STRAIGHT_FLUSH


@pytest.mark.parametrize("bad", ["Ah Kh Qh Jh", "Ah Kh Qh Jh Th 9h", 0b1111, (1 << 6) - 1])
def test_wrong_card_count_is_rejected(bad):
    with pytest.raises(WrongCardCountError):
        evaluate(bad)


def test_hand_keys_rejects_masks_without_five_cards():
    with pytest.raises(WrongCardCountError):
        hand_keys(np.array([0b11111, 0b1111], dtype=np.uint32))
    keys, cats = hand_keys(np.array([], dtype=np.uint32))
    assert len(keys) == len(cats) == 0


def test_keys_are_higher_for_stronger_hands_only_through_category_then_ties():
    # category_of_key inverts the category placement for every rule option
    for name in OPTION_SETS:
        r = rules_for(name)
        for cat, hands in ASCENDING.items():
            for h in hands:
                if r.ace_low_straight and h == "Ac 7d 8h 9s Tc":
                    assert category_of_key(hand_key(h, r), r) == Category.STRAIGHT
                    continue
                assert category_of_key(hand_key(h, r), r) == cat


# ------------------------------------------------------- validation (bugs found) ------


def test_hand_keys_rejects_cards_outside_the_32_bit_deck():
    # Bit 33 is no card of the 32-card deck; the mask must be rejected, not truncated to
    # 0x1f (a jack-high straight flush) and silently evaluated.
    bad = np.array([(1 << 33) | 0b1111, 0b11111], dtype=np.int64)
    with pytest.raises(ValueError):
        hand_keys(bad)
    with pytest.raises(ValueError):  # a Python list: must be a ValueError too, not OverflowError
        hand_keys([(1 << 33) | 0b11111])


def test_negative_card_ints_are_card_errors():
    from quintet.cards import CardError

    with pytest.raises(CardError):
        evaluate([0, 1, 2, 3, -1])
