"""Reprs paste back as code: ``eval(repr(x)) == x`` for deals, arrangements, rule sets,
categories, decks and hand values (as python-chess does for its boards and moves)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from quintet.cards import DECKS, Deck
from quintet.evaluator import HandValue, evaluate
from quintet.game import Arrangement, Deal
from quintet.rules import RULE_SETS, Category, Rules, get_rules

NAMESPACE = {"Deal": Deal, "Arrangement": Arrangement, "Rules": Rules, "Category": Category, "Deck": Deck,
             "HandValue": HandValue, "get_rules": get_rules}


def round_trip(x: object) -> object:
    return eval(repr(x), dict(NAMESPACE))  # noqa: S307 — the point of the test


rule_set_names = st.sampled_from(sorted(RULE_SETS))
options = st.fixed_dictionaries({}, optional={
    "tie_points": st.sampled_from([0.0, 0.25, 0.5]),
    "ace_low_straight": st.booleans(),
    "flush_over_full_house": st.booleans(),
    "tiebreak": st.sampled_from(["kickers", "group-only", "no-kickers"]),
    "weights": st.sampled_from([(3, 4, 5, 6, 7), (1, 1, 1, 1, 1), (7, 6, 5, 4, 3)]),
})


@given(rule_set_names, options)
def test_rules(name, opts):
    rules = get_rules(name, **opts)
    assert round_trip(rules) == rules
    assert repr(rules).startswith(f"get_rules({name!r}")


def test_rules_with_another_joker_card():
    for card in ("6c", "6d", "6h"):
        rules = get_rules("draw36-joker-11", joker_card=card, tiebreak="no-kickers")
        assert round_trip(rules) == rules and f"joker_card={card!r}" in repr(rules)


def test_rules_outside_the_named_sets_use_the_constructor():
    rules = Rules(name="mine", weights=(1, 2, 3))
    assert repr(rules).startswith("Rules(name='mine'") and round_trip(rules) == rules
    renamed = Rules(name="classic", hand_size=4)  # not reachable through get_rules
    assert repr(renamed).startswith("Rules(") and round_trip(renamed) == renamed


def test_categories_and_decks():
    for category in Category:
        assert repr(category) == f"Category.{category.name}" and round_trip(category) is category
    for deck in DECKS.values():
        assert round_trip(deck) == deck


@settings(max_examples=60)
@given(rule_set_names, st.integers(0, 2**32 - 1))
def test_deals(name, seed):
    rules = get_rules(name)
    rng = np.random.default_rng(seed)
    deal = Deal.from_exposed([int(c) for c in rng.choice(rules.deck.cards(), rules.n_exposed, replace=False)], rules)
    assert round_trip(deal) == deal
    assert repr(deal).startswith("Deal.from_exposed('")
    assert ("get_rules" in repr(deal)) == (name != "classic")


def test_a_mask_that_is_not_a_deal_still_pastes_back():
    for deal in (Deal(0), Deal(0b111, get_rules("draw36"))):
        assert repr(deal).startswith("Deal(exposed=") and round_trip(deal) == deal


@settings(max_examples=60)
@given(st.integers(0, 2**32 - 1))
def test_classic_arrangements(seed):
    rng = np.random.default_rng(seed)
    deal = Deal.from_exposed([int(c) for c in rng.choice(32, 7, replace=False)])
    cards = rng.permutation([c for c in range(32) if deal.live >> c & 1])
    arrangement = Arrangement.from_cards(cards[5 * i: 5 * i + 5] for i in range(5))
    assert repr(arrangement).startswith("Arrangement.parse('") and round_trip(arrangement) == arrangement


def test_arrangements_of_other_decks_paste_back_as_masks():
    rules = get_rules("draw54")
    deal = Deal.from_exposed([int(c) for c in np.random.default_rng(0).choice(rules.deck.cards(), 29, False)], rules)
    cards = [c for c in range(64) if deal.live >> c & 1]
    arrangement = Arrangement.from_cards(cards[5 * i: 5 * i + 5] for i in range(5))
    assert repr(arrangement).startswith("Arrangement(packets=") and round_trip(arrangement) == arrangement


def test_hand_values():
    for text, rules in (("As Ah Ad 8c 8d", get_rules("classic")), ("As Ah Ad Ac Jk", get_rules("draw54"))):
        hand = evaluate(text, rules)
        assert round_trip(hand) == hand
