"""Bots and the exact exchange table (``quintet.draw.bots``, ``quintet.draw.policy``)."""

from __future__ import annotations

import random
import statistics
from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
import pytest

from quintet.cards import cards_of, parse_cards
from quintet.draw import advise
from quintet.draw.advisor_bot import AdvisorBot
from quintet.draw.bots import RandomBot, make_bot
from quintet.draw.game import Action, ActionKind, Exchange, Phase, State, Terms
from quintet.draw.policy import exchange_policy, strength_model
from quintet.draw.table import Table
from quintet.evaluator import hand_keys
from quintet.rules import get_rules

# ------------------------------------------------------------------- the exact table ----------


@pytest.mark.parametrize("name, hands", [
    ("draw52", ["Ah Kh 9h 5h 2c", "9s 8h 7d 6c Ks", "As Ad Kd 7c 2s", "2c 7d 9h Js 4c"]),
    ("draw54-11", ["Jk Ah Kh 9d 2c", "Jk Jk 7c 7d 2s", "Ah Kh 9h 5h 2c"]),
    ("draw36-joker-11", ["6s Ah Kd 9c 7s", "Ac Kc Qc Jc 9d"]),
    ("draw32", ["Ah Kh Qh Jh 7c"]),
])
def test_table_equals_the_exact_advisor_option_by_option(name, hands):
    rules = get_rules(name)
    policy = exchange_policy(rules)
    for text in hands:
        hand = parse_cards(text, rules.deck, count=5)
        advice = advise(hand, rules)  # enumerates every draw
        expected = policy.expected(hand)
        assert [o.expected for o in advice.options] == expected
        best = policy.best(hand)
        assert tuple(c for i, c in enumerate(hand) if best >> i & 1) == advice.best().keep
        assert policy.ranked(hand)[0] == best


def test_table_best_matches_the_advisor_on_random_hands():
    rules = get_rules("draw53")
    policy = exchange_policy(rules)
    rng = random.Random(11)
    for _ in range(4):
        hand = rng.sample(rules.deck.cards(), 5)
        advice = advise(hand, rules)
        assert policy.expected(hand) == [o.expected for o in advice.options]
        keep = policy.best(hand)
        assert tuple(c for i, c in enumerate(hand) if keep >> i & 1) == advice.best().keep


def test_table_by_brute_force_on_the_32_card_deck():
    # every draw enumerated here, with the evaluator's keys: the mean percentile of each option
    rules = get_rules("draw32")
    policy = exchange_policy(rules)
    deck = rules.deck.cards()
    masks = np.array([sum(1 << c for c in h) for h in combinations(deck, 5)], dtype=np.uint64)
    keys, _ = hand_keys(masks, rules)
    order = np.sort(keys)
    value2 = {int(k): int(np.searchsorted(order, k, "left") + np.searchsorted(order, k, "right"))
              for k in set(keys.tolist())}
    key_of = dict(zip(masks.tolist(), keys.tolist(), strict=True))
    hand = parse_cards("Ah Kh Qh Jh 7c", rules.deck)
    unseen = [c for c in deck if c not in hand]
    expected = policy.expected(hand)
    for keep in (0b01111, 0b00011, 0b10000, 0):
        kept = [c for i, c in enumerate(hand) if keep >> i & 1]
        d = 5 - len(kept)
        draws = list(combinations(unseen, d))
        total = sum(value2[key_of[sum(1 << c for c in kept + list(t))]] for t in draws)
        assert expected[keep] == Fraction(total, 2 * len(masks) * len(draws)) and len(draws) == comb(27, d)


def test_best_respects_the_most_cards_the_stack_pays_for():
    rules = get_rules("draw52")
    policy = exchange_policy(rules)
    hand = parse_cards("2c 7d 9h Js 4c", rules.deck)
    assert (5 - policy.best(hand).bit_count()) > 2
    for most in range(6):
        keep = policy.best(hand, max_draw=most)
        assert 5 - keep.bit_count() <= most
        assert keep == next(s for s in policy.ranked(hand) if 5 - s.bit_count() <= most)
    with pytest.raises(ValueError, match="five distinct cards"):
        policy.best(hand[:4])


def test_strength_model_is_a_distribution_by_cards_drawn():
    model = strength_model(get_rules("draw52"))
    assert sum(s.size for s in model.by_drawn) == model.everyone.size == 20_000
    assert model.beat(0.0) == 0.0 and model.beat(1.0) == 1.0
    # standing pat means a strong hand; drawing five, a weak one
    assert np.median(model.by_drawn[0]) > np.median(model.by_drawn[3]) > np.median(model.by_drawn[5])
    p = 0.8
    assert model.beat(p, 0) < model.beat(p, 3)


# ------------------------------------------------------------------- bots ---------------------


def play(rules_name: str, kinds: list[str], hands: int, seed: int, chips: int = 10**6, **terms):
    rules = get_rules(rules_name)
    table = Table(rules, Terms(**terms), [f"{k}{i}" for i, k in enumerate(kinds)], chips, seed=seed)
    bots = [make_bot(k, rules, seed=seed * 100 + i) for i, k in enumerate(kinds)]
    lines = []
    while table.hands_played < hands and not table.over:
        state = table.play_hand(bots)  # State.apply refuses any illegal action
        lines.append(table.history_line(state))
    return table, lines


def test_bots_are_reproducible_by_seed():
    _, a = play("draw54-11", ["advisor", "random", "advisor"], 30, seed=3)
    _, b = play("draw54-11", ["advisor", "random", "advisor"], 30, seed=3)
    _, c = play("draw54-11", ["advisor", "random", "advisor"], 30, seed=4)
    assert a == b and a != c


def test_bots_play_legally_under_every_option():
    for terms in ({"exchange_fee": 2, "limit": 8, "stake": 2}, {"betting_before_exchange": False, "circles": 1},
                  {"ante": 3, "circles": 2}):
        table, lines = play("draw36-joker-11", ["advisor", "random", "advisor", "random"], 40, seed=5,
                            chips=60, **terms)
        assert sum(table.stacks) == 4 * 60 and len(lines) == table.hands_played > 5
        assert all(line["pot"] >= 2 * terms.get("ante", 1) for line in lines)


def test_random_bot_is_uniform_over_legal_actions():
    rules = get_rules("draw52")
    state = State(rules, Terms(limit=4), [50, 50], seed=1)
    state.post_ante()
    state.post_ante()
    bot = RandomBot(seed=9)
    legal = state.legal_actions()
    counts = {a: 0 for a in legal}
    for _ in range(4000):
        counts[bot.act(state)] += 1
    assert len(legal) == 5  # fold, call, raise to 2, 3, 4
    assert all(abs(n - 800) < 120 for n in counts.values()), counts


def test_advisor_exchanges_by_the_table():
    rules = get_rules("draw54-11")
    policy = exchange_policy(rules)
    state = State(rules, Terms(betting_before_exchange=False), [50, 50, 50], seed=2)
    while state.phase is Phase.ANTES:
        state.post_ante()
    bot = AdvisorBot(rules, seed=1)
    while state.phase is Phase.EXCHANGE:
        hand = state.hand(state.actor)
        keep = policy.best(hand)
        action = bot.act(state)
        assert action == Action(ActionKind.EXCHANGE, cards=tuple(c for i, c in enumerate(hand) if not keep >> i & 1))
        state.apply(action)


def test_advisor_pays_no_fee_it_cannot_afford():
    rules = get_rules("draw52")
    state = State(rules, Terms(exchange_fee=3, betting_before_exchange=False), [5, 50], seed=8)
    state.post_ante()
    state.post_ante()
    assert state.actor == 1
    state.apply(Action(ActionKind.EXCHANGE))
    record = state.apply(AdvisorBot(rules, seed=0).act(state))
    assert isinstance(record, Exchange) and len(record.discarded) <= 1  # 4 chips pay for one card


def test_advisor_equity_rises_with_the_hand():
    rules = get_rules("draw52")
    bot = AdvisorBot(rules, seed=0, bluff=0.0)
    equities = []
    for text in ("7c 5d 4h 3s 2c", "9c 9d 5h 3s 2c", "Ac Ad As 3s 2c", "Ac Kc Qc Jc Tc"):
        state = State(rules, Terms(betting_before_exchange=False), [50, 50, 50],
                      deck=parse_cards(text, rules.deck) + [c for c in rules.deck.cards()
                                                           if c not in parse_cards(text, rules.deck)])
        while state.phase is Phase.ANTES:
            state.post_ante()
        for _ in range(3):
            state.exchange()
        assert set(cards_of(state.hands[1])) == set(parse_cards(text, rules.deck))  # the dealer's left: seat 1
        equities.append(bot.equity(state, 1))
    assert equities == sorted(equities) and equities[0] < 0.1 and equities[-1] > 0.99


def test_advisor_beats_random_bots():
    table, lines = play("draw52", ["advisor", "random", "random", "random"], 400, seed=1)
    won = [next(s for s in line["seats"] if s["seat"] == 0) for line in lines]
    results = [s["stack_after"] - s["stack_before"] for s in won]
    mean = statistics.mean(results)
    half_width = 3 * statistics.stdev(results) / len(results) ** 0.5
    assert mean - half_width > 0, (mean, half_width)


def test_bluff_rate_is_validated():
    with pytest.raises(ValueError, match="bluff"):
        AdvisorBot(get_rules("draw52"), bluff=1.5)
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("shark", get_rules("draw52"), 0)
