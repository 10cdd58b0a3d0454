"""The draw advisor (`quintet.draw.advise`, `quintet draw`): exact odds, checked by hand and by brute force."""

from __future__ import annotations

import json
import time
from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
import pytest
from variant_reference import reference_category, reference_hands, reference_key_of_cards

from quintet.cards import CardError, WrongCardCountError, format_cards, parse_cards
from quintet.cli import main
from quintet.draw import advise, parse_objective
from quintet.rules import Category, UnknownRulesError, get_rules

# ------------------------------------------------------------- odds by hand ------------


def p_flush(hand, name, known=None, keep="Ah Kh 9h 5h"):
    advice = advise(hand, get_rules(name), known=known, objective="at-least:flush")
    return advice.option(keep).p_at_least


def test_four_flush_52_cards():
    # 13 hearts − 4 held = 9 outs among 47 unseen cards
    assert p_flush("Ah Kh 9h 5h 2c", "draw52") == Fraction(9, 47)


def test_four_flush_with_jokers_in_the_stock():
    # 53 cards: 9 hearts + the joker among 48 unseen
    assert p_flush("Ah Kh 9h 5h 2c", "draw53") == Fraction(10, 48)
    # 54 cards: 9 hearts + 2 jokers among 49; one joker known elsewhere: 10 of 48
    assert p_flush("Ah Kh 9h 5h 2c", "draw54") == Fraction(11, 49)
    assert p_flush("Ah Kh 9h 5h 2c", "draw54", known="Jk") == Fraction(10, 48)
    # a known club changes the denominator only
    assert p_flush("Ah Kh 9h 5h 2c", "draw54", known="Jk 3c") == Fraction(10, 47)
    # 36-card deck, the 6♠ is the joker: 9 − 4 = 5 hearts + the joker among 31
    assert p_flush("Ah Kh 9h 7h 6c", "draw36-joker", keep="Ah Kh 9h 7h") == Fraction(6, 31)


def test_open_ended_straight_draw():
    rules52, rules54 = get_rules("draw52"), get_rules("draw54")
    a52 = advise("9s 8h 7d 6c Ks", rules52, objective="at-least:straight")
    assert a52.option("9s 8h 7d 6c").p_at_least == Fraction(8, 47)  # four tens, four fives
    a54 = advise("9s 8h 7d 6c Ks", rules54, objective="at-least:straight")
    assert a54.option("9s 8h 7d 6c").p_at_least == Fraction(10, 49)  # … and two jokers


def test_pair_drawing_three_reaches_three_of_a_kind():
    # keep A A, draw 3 of 47: at least one of the 2 aces, or three of a kind among the draw
    # (ranks with 3 left: K, 7, 2 -> 1 way each; 9 untouched ranks -> C(4,3) = 4 ways each)
    advice = advise("As Ad Kd 7c 2s", get_rules("draw52"), objective="at-least:three")
    total = comb(47, 3)
    hits = total - comb(45, 3) + 3 * 1 + 9 * 4
    assert advice.option("As Ad").p_at_least == Fraction(hits, total) == Fraction(2064, 16215)


def test_classic_deck_open_straight_flush_draw():
    # 32 cards, A K Q J of hearts: any ten (4) or another heart (9h 8h 7h) -> straight or better
    advice = advise("Ah Kh Qh Jh 7c", get_rules("classic"), objective="at-least:straight")
    assert advice.option("Ah Kh Qh Jh").p_at_least == Fraction(7, 27)


def test_every_option_enumerates_every_draw():
    advice = advise("Jk Ah Kh 9d 2c", get_rules("draw54-11"), known="Jk 7s 7c")
    assert len(advice.options) == 32
    assert len({tuple(sorted(o.keep)) for o in advice.options}) == 32
    n = len(advice.unseen)
    assert n == 54 - 5 - 3
    for o in advice.options:
        assert o.n_outcomes == comb(n, o.n_draw)
        assert int(o.class_counts.sum()) == o.n_outcomes
        assert sum(o.category_counts.values()) == o.n_outcomes
    pat = advice.option("Jk Ah Kh 9d 2c")
    assert pat.n_outcomes == 1 and pat.category_counts[Category.PAIR] == 1


# ------------------------------------------------------------ brute force ---------------


def rank_suit(card, deck):
    return None if deck.is_joker(card) else (deck.rank_of(card), deck.suit_of(card))


@pytest.fixture(scope="module")
def deck_keys_36_joker():
    rules = get_rules("draw36-joker-11")
    _, keys = reference_hands(rules)
    return rules, np.sort(keys)


@pytest.mark.parametrize(
    "hand",
    ["Jk Ah Kh 9d 7c", "Ah Kd Qh 8h 8s", "Ts 9s 8d 7d Qc"],  # joker in hand / in stock / in stock
)
def test_distributions_and_measures_match_brute_force(deck_keys_36_joker, hand):
    """Small stock (12 unseen cards): enumerate with the reference, compare exactly."""
    rules, all_keys = deck_keys_36_joker
    deck = rules.deck
    hand_cards = parse_cards(hand, deck)
    rest = [c for c in deck.cards() if c not in hand_cards]
    rng = np.random.default_rng(len(hand))
    unseen = sorted(int(c) for c in rng.choice(rest, size=12, replace=False))
    if deck.joker_cards[0] not in hand_cards and deck.joker_cards[0] not in unseen:
        unseen[0] = deck.joker_cards[0]
        unseen.sort()
    known = [c for c in rest if c not in unseen]
    advice = advise(hand_cards, rules, known=known, objective="at-least:colour")
    assert sorted(advice.unseen) == unseen

    def ref(cards):
        return reference_key_of_cards([rank_suit(c, deck) for c in cards], rules)

    def pct(k):
        lo, hi = np.searchsorted(all_keys, k, "left"), np.searchsorted(all_keys, k, "right")
        return Fraction(2 * int(lo) + int(hi - lo), 2 * len(all_keys))

    opp = sorted(ref(c) for c in combinations(unseen, 5))
    colour = rules.categories.index(Category.COLOUR)
    for o in advice.options:
        finals = [ref(list(o.keep) + list(d)) for d in combinations(unseen, o.n_draw)]
        assert len(finals) == o.n_outcomes
        cats = Counter(reference_category(k, rules) for k in finals)
        assert {c: n for c, n in o.category_counts.items() if n} == dict(cats)
        assert o.expected == sum(pct(k) for k in finals) / len(finals)
        wins = sum(int(np.searchsorted(opp, k, "left")) for k in finals)
        ties = sum(
            int(np.searchsorted(opp, k, "right") - np.searchsorted(opp, k, "left")) for k in finals
        )
        assert o.p_win == Fraction(wins, len(finals) * len(opp))
        assert o.p_tie == Fraction(ties, len(finals) * len(opp))
        assert o.at_least_count == sum(1 for k in finals if (k >> 24) >= colour)


# ------------------------------------------------------------ recommendations ---------


def test_recommendations_maximize_their_measure():
    advice = advise("Ah Kh 9h 5h 2c", get_rules("draw54"), objective="at-least:flush")
    rec = advice.recommendations()
    assert set(rec) == {"expected", "beat-random", "at-least:flush"}
    assert rec["expected"].expected == max(o.expected for o in advice.options)
    assert rec["beat-random"].equity == max(o.equity for o in advice.options)
    assert rec["at-least:flush"].keep == tuple(parse_cards("Ah Kh 9h 5h", get_rules("draw54").deck))
    ranked = advice.ranked()
    assert [o.p_at_least for o in ranked] == sorted((o.p_at_least for o in ranked), reverse=True)


def test_a_pat_straight_flush_keeps_everything():
    advice = advise("Kh Qh Jh Th 9h", get_rules("draw52"))
    best = advice.best()
    assert best.n_draw == 0 and best.category_counts[Category.STRAIGHT_FLUSH] == 1
    assert advice.best(parse_objective("beat-random", get_rules("draw52"))).n_draw == 0


def test_objectives_are_validated():
    rules = get_rules("draw54")
    assert parse_objective("at-least:full-house", rules).target is Category.FULL_HOUSE
    with pytest.raises(UnknownRulesError):
        parse_objective("at-least:colour", rules)  # not in the standard table
    assert parse_objective("at-least:color", get_rules("draw54-11")).target is Category.COLOUR
    with pytest.raises(UnknownRulesError):
        parse_objective("best", rules)
    with pytest.raises(CardError):
        advise("Ah Kh 9h 5h 2c", rules, known="Ah")  # a known card in the hand
    with pytest.raises(WrongCardCountError):
        advise("Ah Kh 9h 5h 2c 3c", rules)
    deck = get_rules("draw36").deck
    many = format_cards([c for c in deck.cards()][:28], deck)
    with pytest.raises(WrongCardCountError):
        advise("As Ks Qs Js 9s", get_rules("draw36"), known=many)  # only 3 unseen cards left


def test_all_32_options_of_a_54_card_deck_within_a_second():
    rules = get_rules("draw54")
    advise("Jk 7d 4c Qs 2h", rules)  # warm-up: JIT (cache) and the rule set's tables
    times = []  # in CPU seconds (one thread): the wall clock would count the machine's load
    for hand in ("Jk 7d 4c Qs 2h", "Ah Kh 9h 5h 2c", "As Ad Kd 7c 2s"):
        start = time.process_time()
        advice = advise(hand, rules, objective="at-least:straight")
        times.append(time.process_time() - start)
        assert sum(o.n_outcomes for o in advice.options) == sum(
            comb(5, d) * comb(49, d) for d in range(6)
        )
    assert min(times) <= 1.0, times


# ------------------------------------------------------------------- CLI -------------


def run_main(capsys, *args):
    try:
        rc = main(list(args))
    except SystemExit as exc:
        rc = exc.code
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_draw_text(capsys):
    rc, out, err = run_main(
        capsys,
        "draw",
        "Ah",
        "Kh",
        "9h",
        "5h",
        "2c",
        "--rules",
        "draw54",
        "--objective",
        "at-least:flush",
    )
    assert rc == 0 and err == ""
    assert "Recommended:" in out and "11/49" in out
    table = out.splitlines()[3]
    assert table.split()[:5] == ["1", "Ah", "Kh", "9h", "5h"]


def test_cli_draw_json(capsys):
    rc, out, _ = run_main(
        capsys,
        "draw",
        "Ah Kh 9h 5h 2c",
        "--rules",
        "draw54",
        "--known",
        "Jk",
        "--objective",
        "at-least:flush",
        "--json",
    )
    assert rc == 0
    data = json.loads(out)
    assert data["known"] == ["Jk1"] and data["unseen"] == 48 and len(data["options"]) == 32
    best = data["recommended"]["at-least:flush"]
    assert (
        best["keep"] == ["Ah", "Kh", "9h", "5h"]
        and best["at_least_count"] == 10
        and best["outcomes"] == 48
    )
    assert data["options"][0]["keep"] == best["keep"]
    for o in data["options"]:
        assert sum(o["categories"].values()) == o["outcomes"]
        assert o["at_least"]["high card"] == pytest.approx(1.0)


@pytest.mark.parametrize(
    "args,needle",
    [
        (["draw", "Ah Kh 9h 5h 2c", "--rules", "draw54", "--known", "Ah"], "in the hand"),
        (["draw", "Ah Kh 9h 5h 2c 3c", "--rules", "draw54"], "got 6"),
        (["draw", "Ah Kh 9h 5h Jk", "--rules", "draw52"], "Jk"),
        (
            ["draw", "Ah Kh 9h 5h 2c", "--rules", "draw54", "--objective", "at-least:colour"],
            "colour",
        ),
        (["draw", "Ah Kh 9h 5h 2c", "--rules", "draw54", "--objective", "most"], "most"),
        (["draw", "Ah Kh 9h 5h 2c", "--rules", "nope"], "nope"),
        (["draw", "Ah Kh 9h 5h 2c", "--rules", "draw54", "--top", "0"], "--top"),
    ],
)
def test_cli_draw_errors_are_one_line_exit_2(capsys, args, needle):
    rc, out, err = run_main(capsys, *args)
    assert rc == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and needle in err
