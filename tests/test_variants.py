"""Five-card draw variants (docs/draw-poker.md): decks, jokers, category tables, the 64-bit evaluator
(``quintet.draw``).

The exhaustive tests rank every hand of each deck under each table with the slow reference
in ``variant_reference.py`` (every stand-in card tried for every joker) and demand the same
order and the same category, hand by hand.  Fixed counts below were derived by hand or are
published (52 and 53 cards); they pin the reference itself.
"""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from collections import Counter
from math import comb

import numpy as np
import pytest
from variant_reference import reference_hands, reference_key_of_cards

import quintet.evaluator as ev
from quintet import draw, kernels
from quintet.cards import (
    CLASSIC_DECK,
    DECK_36,
    DECK_36_JOKER,
    DECK_52,
    DECK_53,
    DECK_54,
    CardNotInDeckError,
    DuplicateCardError,
    WrongCardCountError,
    format_card,
    format_cards,
    mask_of,
    parse_card,
    parse_cards,
    parse_mask,
)
from quintet.cli import main
from quintet.draw.tables import tables as variant_tables
from quintet.rules import CLASSIC, RULE_SETS, Category, UnknownRulesError, get_rules

ALL_DECKS = [CLASSIC_DECK, DECK_36, DECK_36_JOKER, DECK_52, DECK_53, DECK_54]
TABLE_SUFFIXES = ["", "-11", "-11-swap", "-9", "-7"]

# ----------------------------------------------------------------- notation ------------


def test_joker_card_ints_are_the_documented_top_bits():
    # cards.py: joker i is card 4*field - 2 + i, above every rank of the last suit field
    assert DECK_54.joker_cards == (62, 63)
    assert DECK_53.joker_cards == (62,)
    assert DECK_36_JOKER.joker_cards == (62,)
    assert parse_cards("Jk1 Jk2", DECK_54) == [62, 63]
    assert parse_card("Joker", DECK_53) == 62
    # ordinary cards: 16 bits per suit
    assert parse_card("2c", DECK_52) == 0 and parse_card("Ac", DECK_52) == 12
    assert parse_card("2d", DECK_52) == 16 and parse_card("As", DECK_54) == 60
    assert parse_card("6c", DECK_36) == 0 and parse_card("As", DECK_36) == 56
    for deck in ALL_DECKS:
        assert deck.full_mask < 1 << 64
        assert bin(deck.full_mask).count("1") == deck.size == len(deck.cards())


@pytest.mark.parametrize(
    "deck,size",
    [
        (CLASSIC_DECK, 32),
        (DECK_36, 36),
        (DECK_36_JOKER, 36),
        (DECK_52, 52),
        (DECK_53, 53),
        (DECK_54, 54),
    ],
)
def test_deck_sizes(deck, size):
    assert deck.size == size
    assert len(set(deck.cards())) == size


def test_joker_tokens():
    for text in ("Jk", "jk", "JK", "Joker", "JOKER", "🃏", "🃏\ufe0f"):
        assert parse_cards(text, DECK_53) == [62], text
    assert parse_cards("Jk Jk", DECK_54) == [62, 63]  # 'Jk' twice means both jokers
    assert parse_cards("Jk2 Jk", DECK_54) == [63, 62]
    assert parse_cards("🃏1, 🃏2", DECK_54) == [62, 63]
    assert parse_cards("Jk", DECK_54, taken=1 << 62) == [63]  # the other joker
    with pytest.raises(DuplicateCardError):
        parse_cards("Jk Jk Jk", DECK_54)
    with pytest.raises(DuplicateCardError):
        parse_cards("Jk1 Jk1", DECK_54)
    with pytest.raises(CardNotInDeckError):
        parse_cards("Jk3", DECK_54)
    with pytest.raises(CardNotInDeckError):
        parse_cards("Jk2", DECK_53)


@pytest.mark.parametrize("deck", [CLASSIC_DECK, DECK_36, DECK_52])
@pytest.mark.parametrize("token", ["Jk", "Joker", "🃏", "Jk1"])
def test_joker_in_a_deck_without_jokers_is_not_in_deck(deck, token):
    with pytest.raises(CardNotInDeckError) as info:
        parse_cards(f"Ah {token}", deck)
    assert token in str(info.value) and "no jokers" in str(info.value)


def test_six_of_spades_plays_as_the_joker_in_36_joker():
    assert parse_card("6s", DECK_36_JOKER) == 62 == parse_card("6♠", DECK_36_JOKER)
    assert parse_card("6s", DECK_36) == 48  # an ordinary card in the plain 36-card deck
    assert format_card(62, DECK_36_JOKER) == "Jk"
    assert format_card(62, DECK_36_JOKER, unicode=True) == "🃏"
    with pytest.raises(DuplicateCardError):
        parse_cards("6s Jk", DECK_36_JOKER)
    assert not (DECK_36_JOKER.full_mask >> 48) & 1  # the 6♠ bit itself is not a card


@pytest.mark.parametrize("deck", ALL_DECKS, ids=lambda d: d.name)
@pytest.mark.parametrize("unicode", [False, True])
def test_format_parse_round_trip_every_card(deck, unicode):
    cards = deck.cards()
    for c in cards:
        assert parse_card(format_card(c, deck, unicode=unicode), deck) == c
    text = format_cards(cards, deck, unicode=unicode, order="given")
    assert parse_cards(text, deck) == cards
    assert parse_mask(format_cards(deck.full_mask, deck, unicode=unicode), deck) == deck.full_mask


def test_format_puts_jokers_first():
    mask = parse_mask("2c Jk2 As Jk1 Kd", DECK_54)
    assert format_cards(mask, DECK_54) == "Jk1 Jk2 As Kd 2c"
    assert format_cards(mask, DECK_54, order="group") == "Jk1 Jk2 As Kd 2c"
    assert format_cards(parse_mask("Ah Jk Ad", DECK_53), DECK_53, order="group") == "Jk Ah Ad"


# ------------------------------------------------------------ rule sets ---------------


def test_category_ids_are_appended_not_renumbered():
    assert [(c.name, int(c)) for c in Category] == [
        ("HIGH_CARD", 0),
        ("PAIR", 1),
        ("TWO_PAIR", 2),
        ("THREE_OF_A_KIND", 3),
        ("STRAIGHT", 4),
        ("FLUSH", 5),
        ("FULL_HOUSE", 6),
        ("FOUR_OF_A_KIND", 7),
        ("STRAIGHT_FLUSH", 8),
        ("FIVE_OF_A_KIND", 9),
        ("COLOUR", 10),
        ("STRAIGHT_COLOUR", 11),
    ]
    assert (int(Category.FIVE_OF_A_KIND), int(Category.COLOUR), int(Category.STRAIGHT_COLOUR)) == (
        9,
        10,
        11,
    )
    assert Category(9) is Category.FIVE_OF_A_KIND and Category["COLOUR"] is Category.COLOUR
    assert len(Category.all()) == 12
    assert Category.STRAIGHT_COLOUR.label == "straight colour"
    assert Category.from_name("straight-color") is Category.STRAIGHT_COLOUR
    assert Category.from_name("Full House") is Category.FULL_HOUSE
    assert Category.from_name("trips") is Category.THREE_OF_A_KIND
    with pytest.raises(UnknownRulesError):
        Category.from_name("royal")


def labels(rules):
    return [c.label for c in rules.categories]


def test_the_7_category_table_calls_its_straight_flush_a_straight():
    seven = get_rules("draw36-7")
    assert [seven.category_label(c) for c in seven.categories] == [
        "high card", "pair", "two pair", "three of a kind", "full house", "straight", "four of a kind",
        "five of a kind"]
    assert seven.category_named("straight") is Category.STRAIGHT_FLUSH
    assert seven.category_named("straight-flush") is Category.STRAIGHT_FLUSH  # the id's name still works
    eleven = get_rules("draw36-11")
    assert eleven.category_named("straight") is Category.STRAIGHT
    assert eleven.category_label(Category.STRAIGHT_FLUSH) == "straight flush"
    assert str(draw.parse_objective("at-least:straight", seven)) == "at-least:straight"


def test_category_tables_follow_rules_md():
    assert labels(get_rules("draw54-11")) == [
        "high card",
        "pair",
        "two pair",
        "three of a kind",
        "full house",
        "colour",
        "flush",
        "straight",
        "straight colour",
        "straight flush",
        "four of a kind",
        "five of a kind",
    ]
    assert labels(get_rules("draw54-11-swap"))[-3:] == [
        "four of a kind",
        "straight flush",
        "five of a kind",
    ]
    assert labels(get_rules("draw36-9")) == [
        "high card",
        "pair",
        "two pair",
        "three of a kind",
        "straight",
        "full house",
        "four of a kind",
        "straight flush",
        "five of a kind",
    ]
    assert labels(get_rules("draw36-7")) == [
        "high card",
        "pair",
        "two pair",
        "three of a kind",
        "full house",
        "straight flush",
        "four of a kind",
        "five of a kind",
    ]
    assert labels(get_rules("draw52")) == [c.label for c in CLASSIC.categories] + ["five of a kind"]
    # the option works on any table and by name
    assert (
        get_rules("draw54-11", swap_four_straight_flush=True).categories
        == get_rules("draw54-11-swap").categories
    )
    assert labels(get_rules("draw52", swap_four_straight_flush=True))[-3:] == [
        "straight flush",
        "four of a kind",
        "five of a kind",
    ]


def test_the_joker_card_is_any_of_the_lowest_cards():
    # «роль джокера выполняет какая-либо младшая карта, чаще всего шестерка пик»
    default = get_rules("draw36-joker-11")
    hearts = get_rules("draw36-joker-11", joker_card="6♥")
    assert default.joker_card == "6s" and hearts.joker_card == "6h" and hearts.name == default.name
    assert hearts.deck.size == 36 and hearts.deck == DECK_36_JOKER.with_joker_alias("6h")
    assert parse_card("6h", hearts.deck) == 62 and parse_card("6s", hearts.deck) == 48
    assert ev.evaluate("6h Ah Ad Kc Qc", hearts).description == "three aces"
    assert ev.evaluate("6s 6c Ad Kc Qc", hearts).description == "pair of sixes"
    assert repr(hearts) == "get_rules('draw36-joker-11', joker_card='6h')"
    assert "the six of hearts (6h) plays as the joker" in hearts.describe()
    assert get_rules("draw36-joker", joker_card="6s") == get_rules("draw36-joker")
    assert get_rules("classic").joker_card == get_rules("draw54").joker_card == ""
    for name, card, message in [("draw36-joker", "7s", "one of the lowest cards"),
                                ("draw36-joker", "Ah", "one of the lowest cards"),
                                ("draw36-joker", "6x", "unknown suit"),
                                ("draw54", "2s", "36-card joker deck"), ("draw36", "6s", "36-card joker deck")]:
        with pytest.raises(ValueError, match=message):
            get_rules(name, joker_card=card)


def test_rule_set_names():
    for deck in ("32", "36", "36-joker", "52", "53", "54"):
        for suffix in TABLE_SUFFIXES:
            rules = get_rules(f"draw{deck}{suffix}")
            assert rules.name == f"draw{deck}{suffix}" and rules.is_variant
    assert get_rules("draw36-joker").deck is DECK_36_JOKER
    assert get_rules("draw54").deck is DECK_54
    assert not CLASSIC.is_variant and RULE_SETS["classic"] is CLASSIC
    with pytest.raises(UnknownRulesError):
        get_rules("draw55")
    with pytest.raises(UnknownRulesError):
        get_rules("draw54", jokers=3)


# ------------------------------------------------------------- exhaustive ------------

FAST_RULES = [f"draw{d}{t}" for d in ("32", "36", "36-joker", "52") for t in TABLE_SUFFIXES] + [
    "draw53"
]
SLOW_RULES = [f"draw53{t}" for t in TABLE_SUFFIXES[1:]] + [f"draw54{t}" for t in TABLE_SUFFIXES]
OPTION_CASES = [
    ("draw36-joker", {"ace_low_straight": True}),
    ("draw36-joker-11", {"tiebreak": "group-only"}),
    ("draw36-joker", {"flush_over_full_house": True}),
    ("draw52-9", {"ace_low_straight": True, "tiebreak": "group-only"}),
    ("draw36-joker-11", {"tiebreak": "no-kickers"}),
    ("draw36", {"tiebreak": "no-kickers", "flush_over_full_house": True}),
    ("draw53", {"tiebreak": "no-kickers", "ace_low_straight": True}),
    ("draw36-joker-11", {"joker_card": "6h"}),
]


def heavy_if_large(name: str, *rest: object) -> object:
    """The case as a parameter; a 52- or 53-card deck's (2.6 or 2.9 million hands through the slow
    reference) marked ``heavy``: run by ``pytest -m heavy`` (CI), not by the default run."""
    return pytest.param(name, *rest, marks=[pytest.mark.heavy] if get_rules(name).deck.size >= 52 else [])


def check_against_reference(rules):
    masks, ref_keys = reference_hands(rules)
    assert masks.shape[0] == comb(rules.deck.size, 5)
    keys, cats = ev.hand_keys(masks, rules)
    # the same order, ties included: dense ranks of both keys agree hand by hand
    _, ref_rank = np.unique(ref_keys, return_inverse=True)
    _, our_rank = np.unique(keys, return_inverse=True)
    bad = np.flatnonzero(ref_rank != our_rank)
    assert bad.size == 0, (
        f"{bad.size} hands ranked differently, e.g. {format_cards(int(masks[bad[0]]), rules.deck)}"
    )
    # the same category, hand by hand, and so the same counts
    ref_cats = np.array([int(c) for c in rules.categories], dtype=np.int64)[ref_keys >> 24]
    assert np.array_equal(ref_cats, cats.astype(np.int64))
    counts = Counter(Category(int(c)) for c in cats)
    table_counts = draw.hand_count_by_category(rules)
    assert {c: n for c, n in table_counts.items() if n} == dict(counts)
    return counts


@pytest.mark.parametrize("name", [heavy_if_large(name) for name in FAST_RULES])
def test_exhaustive_against_reference(name):
    check_against_reference(get_rules(name))


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW_RULES)
def test_exhaustive_against_reference_slow(name):
    check_against_reference(get_rules(name))


@pytest.mark.parametrize("name,options", [heavy_if_large(*case) for case in OPTION_CASES])
def test_exhaustive_options_against_reference(name, options):
    check_against_reference(get_rules(name, **options))


def counts_of(rules):
    return {c.label: n for c, n in draw.hand_count_by_category(rules).items() if n}


def test_known_counts_52_cards():
    # the textbook 52-card counts (the wheel A-2-3-4-5 counts: ace_low_straight)
    assert counts_of(get_rules("draw52", ace_low_straight=True)) == {
        "straight flush": 40,
        "four of a kind": 624,
        "full house": 3_744,
        "flush": 5_108,
        "straight": 10_200,
        "three of a kind": 54_912,
        "two pair": 123_552,
        "pair": 1_098_240,
        "high card": 1_302_540,
    }
    # without the wheel: 9 straights per suit pattern instead of 10
    plain = counts_of(get_rules("draw52"))
    assert plain["straight flush"] == 36 and plain["straight"] == 9 * 4**5 - 36
    assert plain["flush"] == 4 * comb(13, 5) - 36


def test_known_counts_53_cards_one_wild_joker():
    # the published counts of 52 cards + one fully wild joker (sum C(53, 5) = 2,869,685)
    expected = {
        "five of a kind": 13,
        "straight flush": 204,
        "four of a kind": 3_120,
        "full house": 6_552,
        "flush": 7_804,
        "straight": 20_532,
        "three of a kind": 137_280,
        "two pair": 123_552,
        "pair": 1_268_088,
        "high card": 1_302_540,
    }
    assert sum(expected.values()) == comb(53, 5)
    assert counts_of(get_rules("draw53", ace_low_straight=True)) == expected


def test_known_counts_36_cards_by_hand():
    sf = 5 * 4  # 5 windows 6-10 … 10-A, 4 suits
    expected = {
        "straight flush": sf,
        "four of a kind": 9 * 32,
        "full house": 9 * 4 * 8 * 6,
        "flush": 4 * comb(9, 5) - sf,
        "straight": 5 * 4**5 - sf,
        "three of a kind": 9 * 4 * comb(8, 2) * 16,
        "two pair": comb(9, 2) * 36 * 7 * 4,
        "pair": 9 * 6 * comb(8, 3) * 64,
        "high card": (comb(9, 5) - 5) * (4**5 - 4),
    }
    assert sum(expected.values()) == comb(36, 5)
    assert counts_of(get_rules("draw36")) == expected
    # the 11-category table: colour = one colour, not one suit, not a straight
    eleven = counts_of(get_rules("draw36-11"))
    one_colour = 2 * comb(18, 5)
    straight_colour = (
        2 * 5 * (2**5 - 2)
    )  # per colour, window: each rank in one of 2 suits, not one suit
    assert eleven["straight colour"] == straight_colour == 300
    assert eleven["colour"] == one_colour - 4 * comb(9, 5) - straight_colour == 16_332
    assert eleven["flush"] == expected["flush"] and eleven["straight flush"] == sf
    # the 9-category table has no flush: flushes fall to high card
    nine = counts_of(get_rules("draw36-9"))
    assert "flush" not in nine and nine["high card"] == expected["high card"] + expected["flush"]


def test_classic_counts_through_the_variant_engine():
    assert counts_of(get_rules("draw32")) == {
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


@pytest.mark.parametrize(
    "options",
    [{}, {"tiebreak": "group-only"}, {"tiebreak": "no-kickers"}, {"ace_low_straight": True},
     {"flush_over_full_house": True}],
)
def test_variant_engine_reproduces_the_classic_32_bit_keys(all_masks, options):
    # the generic 64-bit engine, pointed at the classic rules, gives the very keys of kernels32
    rules = get_rules("classic", **options)
    keys32, cats32 = ev.hand_keys(all_masks, rules)  # the untouched classic path
    keys64, cats64 = variant_tables(rules).keys(all_masks.astype(np.uint64))
    assert np.array_equal(keys32, keys64) and np.array_equal(cats32, cats64)


def test_classic_path_is_still_the_32_bit_kernels():
    t = ev._classic_tables(CLASSIC)
    mask = parse_mask("As Ah Ad 8c 8d")
    key, _ = kernels.hand_key32(np.int64(mask), t.strengths, t.straight_top, t.tiebreak)
    assert ev.hand_key(mask) == int(key)
    assert ev.evaluate("As Ah Ad 8c 8d").description == "full house, aces over eights"
    assert (
        ev.rank_packets(CLASSIC_DECK.full_mask & ~parse_mask("8h 7h 9d Ts 7s Qc Jc")).masks.dtype
        == np.uint32
    )


# ----------------------------------------------------------- named hands --------------


def ev_(text, name, **options):
    return ev.evaluate(text, get_rules(name, **options))


@pytest.mark.parametrize(
    "name,hand,description",
    [
        ("draw54", "As Ah Ad Ac Jk", "five of a kind, aces"),
        ("draw54", "Jk Jk 2c 2d 2h", "five of a kind, twos"),
        ("draw54", "Jk Kh Qh Jh Th", "straight flush, ace high"),
        ("draw54", "Jk 9c 8d 7h 6s", "straight, ten high"),
        ("draw54", "Jk Jk 7d 9h Kc", "three kings"),
        ("draw54", "Jk Ah Kh 9h 5h", "flush, ace high"),
        ("draw54", "Jk Ah Ad Kc Ks", "full house, aces over kings"),
        ("draw54", "Jk As Kd 7c 2h", "pair of aces"),
        ("draw53", "Jk 2c 2d 2h 2s", "five of a kind, twos"),
        ("draw36-joker", "6s Ah Kh Qh Jh", "straight flush, ace high"),
        ("draw36-joker", "Jk Ah Ad Ac Kd", "four aces"),
        ("draw36-11", "Kh Qd 9h 8d 6h", "colour, king high"),
        ("draw36-11", "Kh Kd 9h 8d 6h", "colour, king high"),
        ("draw36", "Kh Qd 9h 8d 6h", "high card, king"),
        ("draw36-11", "Th 9d 8h 7d 6h", "straight colour, ten high"),
        ("draw36-11", "Th 9d 8h 7s 6h", "straight, ten high"),
        ("draw54-11", "Jk Kh Qd 9h 5d", "colour, ace high"),
        ("draw36-9", "Ah Kh 9h 7h 6h", "high card, ace"),
        ("draw36-9", "Ah Kh Qh Jh Th", "straight flush, ace high"),
        ("draw36-7", "Ts 9h 8d 7c 6s", "high card, ten"),
        ("draw36-7", "Ts 9s 8s 7s 6s", "straight, ten high"),  # «выступает под названием просто стрит»
        ("draw54-7", "Jk Ks Qs Js Ts", "straight, ace high"),
        ("draw52", "Ah 2c 3d 4h 5s", "high card, ace"),
        ("draw52", "6h 2c 3d 4h 5s", "straight, six high"),
    ],
)
def test_named_hands(name, hand, description):
    assert ev_(hand, name).description == description


def test_ace_low_option_and_describe():
    assert (
        ev_("Ah 2c 3d 4h 5s", "draw52", ace_low_straight=True).description == "straight, five high"
    )
    assert (
        ev_("Ah 6c 7d 8h 9s", "draw36", ace_low_straight=True).description == "straight, nine high"
    )
    assert (
        ev_("Jk 2c 3d 4h 5s", "draw53", ace_low_straight=True).description == "straight, six high"
    )
    wheel = ev_("Ah 2c 3d 4h 5s", "draw52", ace_low_straight=True).key
    assert wheel < ev_("6h 2c 3d 4h 5s", "draw52", ace_low_straight=True).key


def key(text, name, **options):
    return ev.hand_key(text, get_rules(name, **options))


def test_category_orders_decide():
    five, sf, four = "As Ah Ad Ac Jk", "Ah Kh Qh Jh Th", "As Ah Ad Ac Kd"
    assert key(five, "draw54") > key(sf, "draw54") > key(four, "draw54")
    # the 11-category table ranks four of a kind above the straight flush; its variant swaps them
    assert key(five, "draw54-11") > key(four, "draw54-11") > key(sf, "draw54-11")
    assert key(five, "draw54-11-swap") > key(sf, "draw54-11-swap") > key(four, "draw54-11-swap")
    # 11-table: straight above flush above colour above full house
    assert (
        key("Td 9d 8h 7c 6s", "draw54-11")
        > key("Ah Kh 9h 7h 2h", "draw54-11")
        > key("Ah Kd 9h 7h 2d", "draw54-11")
        > key("As Ah Ad Kc Ks", "draw54-11")
    )
    # 9-table: full house above straight; standard: flush below full house
    assert key("As Ah Ad Kc Ks", "draw52-9") > key("Td 9d 8h 7c 6s", "draw52-9")
    assert key("As Ah Ad Kc Ks", "draw52") > key("Ah Kh 9h 7h 2h", "draw52")
    # a joker's duplicate counts in a flush (documented convention)
    assert key("Jk Ah Kh 9h 5h", "draw54") > key("Ah Kh Qh 9h 5h", "draw54")


def test_group_only_ties_groups_but_describes_the_pair():
    rules = get_rules("draw54", tiebreak="group-only")
    assert ev.hand_key("Jk Ah Ad Kc Ks", rules) == ev.hand_key("As Ah Ac 2c 2s", rules)
    assert ev.describe("Jk Ah Ad Kc Ks", rules) == "full house, aces over kings"


def test_no_kickers_splits_equal_pairs_whatever_the_side_cards():
    # the text: «каждый имеет по одной равной двойке … то банк делится»
    rules = get_rules("draw36-joker-11", tiebreak="no-kickers")
    assert ev.hand_key("Kh Kd 9c 8s 7h", rules) == ev.hand_key("Ks Kc 9d 8h 6c", rules)
    assert ev.hand_key("Kh Kd 9c 8s 7h", rules) > ev.hand_key("Qs Qc Ad Kh 9c", rules)
    assert ev.hand_key("Jk Kh 9c 8s 6c", rules) == ev.hand_key("Ks Kc 9d 8h 7c", rules)  # the joker: a king
    group_only = get_rules("draw36-joker-11", tiebreak="group-only")  # kickers still decide pairs
    assert ev.hand_key("Kh Kd 9c 8s 7h", group_only) > ev.hand_key("Ks Kc 9d 8h 6c", group_only)
    assert ev.describe("Kh Kd 9c 8s 7h", rules) == "pair of kings"


def test_stand_ins():
    rules = get_rules("draw54")
    got = draw.stand_ins(parse_mask("As Ah Ad Ac Jk", DECK_54), rules)
    assert list(got) == [62] and format_card(got[62], DECK_54)[0] == "A"  # a fifth ace: a duplicate
    got = draw.stand_ins(parse_mask("Jk 9c 8d 7h 6s", DECK_54), rules)
    assert format_card(got[62], DECK_54)[0] == "T"
    got = draw.stand_ins(parse_mask("Jk1 Jk2 Kh Qh Jh", DECK_54), rules)
    assert sorted(format_card(c, DECK_54) for c in got.values()) == ["Ah", "Th"]
    # the reference agrees the substituted hand is worth the hand's key
    cards = [(DECK_54.rank_of(c), DECK_54.suit_of(c)) for c in parse_cards("Kh Qh Jh", DECK_54)]
    subst = [(DECK_54.rank_of(c), DECK_54.suit_of(c)) for c in got.values()]
    assert reference_key_of_cards(cards + subst, rules) == reference_key_of_cards(
        cards + [None, None], rules
    )


# ----------------------------------------------------------- API dispatch -------------


def test_rank_packets_on_a_variant_deck_matches_hand_key():
    rules = get_rules("draw54-11")
    live = parse_mask("Jk1 Jk2 As Ah Kd Qh Jh Th 9c 2s", DECK_54)
    table = ev.rank_packets(live, rules)
    assert len(table) == comb(10, 5) and table.masks.dtype == np.uint64
    combos = list(
        itertools.combinations(sorted(parse_cards("Jk1 Jk2 As Ah Kd Qh Jh Th 9c 2s", DECK_54)), 5)
    )
    assert [int(m) for m in table.masks] == [mask_of(c) for c in combos]
    for m, k, cat in zip(table.masks, table.keys, table.categories, strict=True):
        value = ev.evaluate(int(m), rules)
        assert value.key == int(k) and int(value.category) == int(cat)
    order = np.argsort(table.keys, kind="stable")
    assert np.all(np.diff(table.classes[order]) >= 0)
    assert table.n_classes == len(np.unique(table.keys))


def test_hand_keys_validates_variant_masks():
    rules = get_rules("draw36-joker")
    good = np.array([parse_mask("Jk Ah Kh Qh Jh", DECK_36_JOKER)], dtype=np.uint64)
    assert ev.hand_keys(good, rules)[1][0] == int(Category.STRAIGHT_FLUSH)
    with pytest.raises(WrongCardCountError):
        ev.hand_keys(np.array([parse_mask("Ah Kh Qh Jh", DECK_36_JOKER)], dtype=np.uint64), rules)
    with pytest.raises(CardNotInDeckError):  # the 6♠ bit is not a card of this deck
        ev.hand_keys(
            np.array([parse_mask("Ah Kh Qh Jh", DECK_36_JOKER) | 1 << 48], dtype=np.uint64), rules
        )
    with pytest.raises(CardNotInDeckError):
        ev.hand_key(parse_mask("Ah Kh Qh Jh", DECK_36_JOKER) | 1 << 48, rules)
    with pytest.raises(WrongCardCountError):
        ev.evaluate("Jk Ah Kh Qh Jh Th", rules)


# ------------------------------------------------------------------- CLI -------------


def run_main(capsys, *args):
    try:
        rc = main(list(args))
    except SystemExit as exc:  # argparse's own errors (one line, status 2)
        rc = exc.code
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_hand_json(capsys):
    import json

    rc, out, err = run_main(capsys, "hand", "As Ah Ad Ac Jk", "--rules", "draw54", "--json")
    assert rc == 0 and err == ""
    data = json.loads(out)
    assert data["description"] == "five of a kind, aces" and data["category"] == "five_of_a_kind"
    assert data["kind"] == "hand"
    assert data["rules"] == "draw54" and data["hand"][0] == "Jk1"
    assert data["stand_ins"]["Jk1"][0] == "A"
    assert data["key"] == ev.hand_key("As Ah Ad Ac Jk", get_rules("draw54"))
    assert 0.999 < data["percentile"] < 1


def test_cli_names_the_7_category_straight(capsys):
    rc, out, _ = run_main(capsys, "hand", "Ts 9s 8s 7s 6s", "--rules", "draw36-7")
    assert rc == 0 and "straight, ten high" in out and "category 6 of 8 in draw36-7 (straight)" in out
    rc, out, _ = run_main(capsys, "draw", "Ts 9s 8s 7s 2c", "--rules", "draw52-7", "--objective", "at-least:straight")
    assert rc == 0 and "P(>=straight)" in out and "flush" not in out


def test_cli_joker_card_in_hand_compare_and_draw(capsys):
    rc, out, _ = run_main(capsys, "hand", "6h Ah Ad Kc Qc", "--rules", "draw36-joker", "--joker-card", "6h")
    assert rc == 0 and "three aces" in out and "joker: Jk = A" in out
    rc, out, _ = run_main(capsys, "compare", "6h Ah Ad Kc Qc", "6s As Kd Kh Qh", "--rules", "draw36-joker",
                          "--joker-card", "6h")
    assert rc == 0 and "three aces" in out and "Kh Kd As Qh 6s  pair of kings" in out  # the 6s is ordinary
    rc, out, _ = run_main(capsys, "draw", "6h Ah Ad Kc Qc", "--rules", "draw36-joker", "--joker-card", "6h",
                          "--top", "1")
    assert rc == 0 and "the six of hearts (6h) plays as the joker" in out and "unseen: 31 cards" in out
    for args, needle in [(["--rules", "draw54", "--joker-card", "6h"], "36-card joker deck"),
                         (["--rules", "draw36-joker", "--joker-card", "7h"], "lowest cards (6c, 6d, 6h, 6s)")]:
        rc, out, err = run_main(capsys, "hand", "Ah Ad Ac Kc Ks", *args)
        assert rc == 2 and out == "" and len(err.strip().splitlines()) == 1 and needle in err


def test_cli_hand_text_five_arguments(capsys):
    rc, out, _ = run_main(capsys, "hand", "Kh", "Qd", "9h", "8d", "6h", "--rules", "draw36-11")
    assert rc == 0 and "colour, king high" in out


def test_cli_compare_counts_typed_jokers_against_the_deck(capsys):
    rc, out, err = run_main(capsys, "compare", "Jk As Ad Ac Ah", "Jk Kd Kc Kh Ks", "--rules", "draw54")
    assert rc == 0 and err == "" and "five of a kind, aces" in out and "five of a kind, kings" in out


def test_cli_compare_ranks_and_ties(capsys):
    import json

    rc, out, _ = run_main(
        capsys,
        "compare",
        "Ah Kh Qh Jh Th",
        "Jk Jk 9s 9d 9c",
        "As Ks Qs Js Ts",
        "7c 5s 4h 3d 2c",
        "--rules",
        "draw54",
    )
    assert rc == 0
    lines = out.strip().splitlines()
    assert lines[1].split()[:2] == ["1", "2"] and "five of a kind, nines" in lines[1]
    assert lines[2].startswith("2=") and lines[3].startswith("2=")
    assert lines[4].split()[:2] == ["4", "4"]
    rc, out, _ = run_main(
        capsys, "compare", "Ah Kh Qh Jh Th | Jk Jk As Ad Ac", "--rules", "draw54", "--json"
    )
    data = json.loads(out)
    assert [h["index"] for h in data["hands"]] == [2, 1]
    assert [h["place"] for h in data["hands"]] == [1, 2] and not data["hands"][0]["tied"]


@pytest.mark.parametrize("tiebreak, places", [("kickers", ["1", "2"]), ("group-only", ["1", "2"]),
                                             ("no-kickers", ["1=", "1="])])
def test_cli_compare_equal_pairs_by_tiebreak(capsys, tiebreak, places):
    rc, out, _ = run_main(capsys, "compare", "Kh Kd 9c 8s 7h", "Ks Kc 9d 8h 6c", "--rules", "draw36-joker-11",
                          "--tiebreak", tiebreak)
    assert rc == 0
    assert [line.split()[0] for line in out.strip().splitlines()[1:]] == places


@pytest.mark.parametrize(
    "args,needle",
    [
        (["hand", "Jk Ah Ad Ac Kc", "--rules", "draw52"], "Jk"),
        (["hand", "Jk Ah Ad Ac Kc"], "Jk"),
        (["hand", "Ah Ad Ac Kc Ks Qs", "--rules", "draw52"], "got 6"),
        (["hand", "Ah Ad Ac Kc", "--rules", "draw52"], "got 4"),
        (["hand", "Ah Ad Ac Kc Ks", "--rules", "draw99"], "draw99"),
        (["hand", "Ah Ad Ac Kc 5s", "--rules", "draw36"], "5s"),
        (["hand", "Ah Ad Ac Kc Xs", "--rules", "draw52"], "Xs"),
        (["hand", "Jk Jk Jk Ac Kc", "--rules", "draw54"], "joker"),
        (["compare", "Ah Ad Ac Kc Ks", "--rules", "draw52"], "two hands"),
        (["compare", "Ah Ad Ac Kc Ks", "Jk Ad Ac Kc Ks", "--rules", "draw52"], "hand 2"),
        (["compare", "Ah Ad Ac Kc Ks", "Qh Qd Qc Jc Ks"], "Ks is in hand 1 and in hand 2"),
        (["compare", "Ah Kh Qh Jh Th", "Ah Ad Ac Kc Ks", "9c 9d 8c 8d 7c"], "Ah is in hand 1 and in hand 2"),
        (["compare", "Ac Ad 9c 8s 7h | Kc Kd 9d 8h 7c | Qc Qd 9h 8d 7d", "Jc Jd 9s 8c 7s | Tc Td Ts 8s 7s"],
         "7s is in hand 4 and in hand 5"),
        (["compare", "Jk Jk Ah Ad Ac", "Jk Kd Kc Kh Ks", "--rules", "draw54"], "hold 3 jokers; the 54-card deck has 2"),
    ],
)
def test_cli_errors_are_one_line_exit_2(capsys, args, needle):
    rc, out, err = run_main(capsys, *args)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and err.startswith("quintet")
    assert needle in err


@pytest.mark.subprocess
def test_cli_as_a_real_process():
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "quintet.cli", "hand", "6s Ah Kh Qh Jh", "--rules", "draw36-joker"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "straight flush, ace high" in proc.stdout and "Jk = Th" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "quintet.cli", "hand", "Jk Ah Kh Qh Jh", "--rules", "draw36"],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=120,
    )
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert "not in the 36-card deck" in proc.stderr
