"""The draw-poker engine (``quintet.draw.game``): scripted hands for every rule of the text, then
properties over random legal play (hypothesis): chips conserved, no negative stack, every show-down
pays the best hand(s) per the evaluator, a replayed history reaches the same state."""

from __future__ import annotations

import json
import re
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quintet.cards import cards_of, format_cards, parse_cards
from quintet.draw.game import (
    Action,
    ActionKind,
    AntePosting,
    Call,
    Demand,
    Exchange,
    Fold,
    FoldOut,
    IllegalActionError,
    Phase,
    Raise,
    ShowDown,
    State,
    Terms,
    TermsError,
    replay,
)
from quintet.draw.table import Table
from quintet.evaluator import evaluate
from quintet.rules import TIEBREAKS, get_rules

DRAW52 = get_rules("draw52")


def stacked(rules, hands: dict[int, str], *, dealer: int, n_seats: int, stock: str = "") -> list[int]:
    """A deck order that deals ``hands`` (seat -> five cards) from the dealer's left, then ``stock`` on top."""
    deck = rules.deck
    order: list[int] = []
    for i in range(1, n_seats + 1):
        seat = (dealer + i) % n_seats
        if seat in hands:
            order += parse_cards(hands[seat], deck, count=5)
    order += parse_cards(stock, deck) if stock else []
    order += [c for c in deck.cards() if c not in order]
    return order


def new_state(hands: dict[int, str], *, rules=DRAW52, stacks=None, dealer=None, stock="", **terms) -> State:
    n = len(stacks) if stacks else len(hands)
    dealer = n - 1 if dealer is None else dealer  # seat 0 acts first
    state = State(rules, Terms(**terms), stacks or [100] * n, dealer=dealer,
                  deck=stacked(rules, hands, dealer=dealer, n_seats=n, stock=stock))
    while state.phase is Phase.ANTES:
        state.post_ante()
    return state


def text(state: State, seat: int) -> str:
    return format_cards(state.hands[seat], state.rules.deck)


def call_circle(state: State) -> None:
    for _ in range(len(state.in_hand)):
        state.call()


# ------------------------------------------------------------------- antes and deal -------


def test_antes_then_five_cards_each_from_the_dealers_left():
    state = State(DRAW52, Terms(ante=2), [100, 100, 1, 100], dealer=1, seed=5)
    assert state.dealt_in == (True, True, False, True)  # seat 2 cannot pay the ante: sits out
    seats = []
    while state.phase is Phase.ANTES:
        seats.append(state.actor)
        assert state.post_ante() == AntePosting(seats[-1], 2)
    assert seats == [3, 0, 1]  # from the dealer's left, skipping the seat that sits out
    assert state.pot == 6 and state.stacks == [98, 98, 1, 98]
    assert state.phase is Phase.BETTING_BEFORE and state.actor == 3
    masks = [state.hands[s] for s in (0, 1, 3)]
    assert state.hands[2] == 0 and all(m.bit_count() == 5 for m in masks)
    assert masks[0] & masks[1] == masks[0] & masks[2] == masks[1] & masks[2] == 0
    assert not state.can_post_ante()
    assert state.history()["sitting_out"] == [{"seat": 2, "stack": 1}]
    assert new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c"}).history()["sitting_out"] == []  # always written


def test_the_deal_follows_a_stacked_deck():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c"})
    assert text(state, 0) == "As Ks Qs Js Ts" and text(state, 1) == "7c 5s 4h 3d 2c"


def test_same_seed_same_deal_and_different_seed_different_deal():
    a, b, c = (State(DRAW52, Terms(), [10] * 4, seed=s) for s in (1, 1, 2))
    for state in (a, b, c):
        while state.phase is Phase.ANTES:
            state.post_ante()
    assert a.hands == b.hands and a.hands != c.hands


# ------------------------------------------------------------------- betting --------------


def test_fold_out_win_takes_the_pot_unseen():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c", 2: "9c 9d 8h 8s 2d"})
    assert state.raise_to(4) == Raise(0, 4, Phase.BETTING_BEFORE, 1)
    assert state.fold() == Fold(1, Phase.BETTING_BEFORE, 1)
    assert not state.over
    state.fold()
    assert state.over and state.pot == 0
    assert state.records[-1] == FoldOut(0, 3 + 4)
    assert state.stacks == [99 - 4 + 7, 99, 99]
    history = state.history()
    assert history["showdown"] is False and history["winners"] == [0] and history["pot"] == 7
    with pytest.raises(IllegalActionError, match="over"):
        state.call()


def test_stakes_are_per_turn_never_below_the_previous_stake():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c", 2: "9c 9d 8h 8s 2d"}, limit=5)
    state.call()  # the agreed stake, 1
    state.raise_to(3)
    assert state.current_stake == 3
    with pytest.raises(IllegalActionError, match="more than the current stake 3"):
        state.raise_to(3)
    with pytest.raises(IllegalActionError, match="limit is 5"):
        state.raise_to(6)
    assert state.call() == Call(2, 3, Phase.BETTING_BEFORE, 1)
    # circle 2: seat 0 must now stake at least 3 although it staked 1 before
    assert state.circle == 2 and state.actor == 0
    assert state.call_amount == 3
    assert list(state.raise_range()) == [4, 5]
    assert state.contributions == [1 + 1, 1 + 3, 1 + 3]


def test_three_circles_before_the_exchange_then_the_exchange():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c", 2: "9c 9d 8h 8s 2d"})
    for circle in (1, 2, 3):
        assert state.phase is Phase.BETTING_BEFORE and state.circle == circle
        state.raise_to(circle + 1)  # a raise in every circle changes nothing: three circles at most
        state.call()
        state.call()
    assert state.phase is Phase.EXCHANGE and state.actor == 0
    assert not state.can_call() and not state.can_raise_to(5)


def test_no_raise_in_the_first_circle_after_the_exchange_shows_down_at_once():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c"})
    for _ in range(3):
        call_circle(state)
    state.exchange()
    state.exchange()
    assert state.phase is Phase.BETTING_AFTER and state.circle == 1
    call_circle(state)
    assert state.phase is Phase.SHOWDOWN and state.actor is None


def test_a_raise_in_the_first_circle_after_the_exchange_forces_all_three_circles():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c", 2: "9c 9d 8h 8s 2d"},
                      betting_before_exchange=False)
    assert state.phase is Phase.EXCHANGE  # the option: bet only after the exchange
    for _ in range(3):
        state.exchange()
    state.call()
    state.raise_to(2)
    state.call()
    assert state.phase is Phase.BETTING_AFTER and state.circle == 2
    call_circle(state)  # no raise in circle 2: still circle 3
    assert state.circle == 3
    call_circle(state)
    assert state.phase is Phase.SHOWDOWN
    record = state.show_down()
    assert state.history()["pot"] == 3 + 5 + 6 + 6
    assert record.winners == (0,) and state.stacks == [99 - 5 + 20, 99 - 6, 99 - 6]


def test_circles_option_one_circle():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c"}, circles=1)
    call_circle(state)
    assert state.phase is Phase.EXCHANGE
    state.exchange()
    state.exchange()
    state.raise_to(3)
    state.call()
    assert state.phase is Phase.SHOWDOWN  # one circle even after a raise


def test_demand_show_down_others_pay_to_see_or_fold():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c", 2: "9c 9d 8h 8s 2d"},
                      betting_before_exchange=False)
    for _ in range(3):
        state.exchange()
    state.call()
    with pytest.raises(IllegalActionError, match="below the current stake"):
        state.demand_show_down(0)
    assert state.demand_show_down() == Demand(1, 1, 1)
    assert state.phase is Phase.SEEING and state.actor == 2 and state.call_amount == 1
    assert not state.can_raise_to(5) and not state.can_demand_show_down()
    assert state.call() == Call(2, 1, Phase.SEEING, 1)
    state.fold()  # seat 0 will not buy the opening
    assert state.phase is Phase.SHOWDOWN
    record = state.show_down()
    assert [s for s, _, _ in record.hands] == [1, 2] and record.winners == (2,)


def test_demand_is_not_allowed_before_the_exchange_nor_during_it():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c"})
    assert not state.can_demand_show_down() and not state.demand_range()
    with pytest.raises(IllegalActionError, match="^no show-down demand before the exchange: the show-down is "
                                                 "demanded in the betting after the exchange$"):
        state.demand_show_down(2)
    for _ in range(3):
        call_circle(state)
    with pytest.raises(IllegalActionError, match="^no show-down demand during the exchange"):
        state.demand_show_down(2)


def after_the_exchange(**terms) -> State:
    """Three players, the exchange done (all stand pat): circle 1 of the betting after it, seat 0 to act."""
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c", 2: "9c 9d 8h 8s 2d"},
                      betting_before_exchange=False, **terms)
    for _ in range(3):
        state.exchange()
    assert state.phase is Phase.BETTING_AFTER and state.circle == 1 and state.actor == 0
    return state


FORCED = ("no show-down demand in circle {c} of 3: the stakes were raised in the first circle after the "
          "exchange, so the cards are shown only after all 3 circles (demand in circle 3)")


def test_after_a_raise_in_the_first_circle_the_demand_waits_for_the_last_circle():
    # «Но если ставки за это время повысились, то карты можно открывать лишь по проведении трех кругов игры»
    state = after_the_exchange()
    assert list(state.demand_range()) == [1]  # circle 1, nobody has raised yet: at the current stake
    state.raise_to(2)
    assert state.demand_range() == range(0) and not state.can_demand_show_down(3)
    with pytest.raises(IllegalActionError, match=re.escape(FORCED.format(c=1))):
        state.demand_show_down(3)
    state.call()
    state.call()
    assert state.circle == 2  # circle 2: no demand either
    assert not any(a.kind is ActionKind.DEMAND for a in state.legal_actions())
    with pytest.raises(IllegalActionError, match=re.escape(FORCED.format(c=2))):
        state.demand_show_down()
    call_circle(state)
    assert state.circle == 3 and list(state.demand_range()) == [2, 3, 4, 5]  # the last circle: it may
    assert state.demand_show_down(4) == Demand(0, 4, 3)
    assert state.phase is Phase.SEEING and state.call_amount == 4
    with pytest.raises(IllegalActionError, match="^the show-down is already demanded; pay 4 to see"):
        state.demand_show_down(5)
    with pytest.raises(IllegalActionError, match="^no raise now: the show-down is demanded; pay 4 to see"):
        state.raise_to(5)


def test_a_demand_in_the_first_circle_before_any_raise_ends_the_betting():
    # «Торги заканчиваются тогда, когда кто-нибудь в свой очередной ход ставит на кон требуемую
    # (или большую) сумму и требует раскрыть карты»
    state = after_the_exchange()
    state.call()
    state.call()
    assert state.demand_show_down() == Demand(2, 1, 1)  # the current stake: it ends the betting
    state.call()
    state.call()
    assert state.phase is Phase.SHOWDOWN and state.history()["pot"] == 3 + 1 + 1 + 1 + 1 + 1


RAISING = ("a demand above the current stake 1 raises it, and after a raise in the first circle after the exchange "
           "the cards are shown only after all 3 circles: demand 1 now, or raise and demand in circle 3")


def test_a_demand_above_the_stake_in_the_first_circle_is_a_raise_and_waits():
    # «Но если ставки за это время повысились, то карты можно открывать лишь по проведении трех кругов игры»:
    # a demand that raises the stake is a raise, so it waits for the last circle like any raise
    state = after_the_exchange()
    assert list(state.demand_range()) == [1] and not state.can_demand_show_down(2)
    assert state.demand_raise_waits()
    before = state.history()
    with pytest.raises(IllegalActionError, match=re.escape(RAISING)):
        state.demand_show_down(5)
    assert state.history() == before  # refused without a trace
    assert [a.amount for a in state.legal_actions() if a.kind is ActionKind.DEMAND] == [1]
    state.raise_to(5)  # what the demand meant: then all three circles
    call_circle(state)
    call_circle(state)
    assert state.circle == 3 and not state.demand_raise_waits() and list(state.demand_range()) == [5]


def test_a_demand_above_the_stake_with_one_circle_or_any_turn_or_the_earlier_reading():
    for terms in ({"circles": 1}, {"demand_any_turn": True}, {"raising_demand_ends": True}):
        state = after_the_exchange(**terms)
        assert list(state.demand_range()) == [1, 2, 3, 4, 5] and not state.demand_raise_waits(), terms
        state.call()
        assert state.demand_show_down(5) == Demand(1, 5, 1)  # ends the betting at once
        assert state.phase is Phase.SEEING and state.call_amount == 5
        assert state.history()["terms"]["raising_demand_ends"] is terms.get("raising_demand_ends", False)


def test_a_history_line_from_before_the_option_replays_under_the_earlier_reading():
    state = after_the_exchange(raising_demand_ends=True)
    state.demand_show_down(4)
    state.fold()
    line = state.history()
    del line["terms"]["raising_demand_ends"]  # as such lines were written
    assert replay(line).stacks == state.stacks
    line["terms"]["raising_demand_ends"] = False
    with pytest.raises(IllegalActionError, match="^a demand above the current stake 1 raises it"):
        replay(line)


def test_demand_any_turn_allows_the_demand_after_a_raise():
    state = after_the_exchange(demand_any_turn=True)
    state.raise_to(2)
    assert list(state.demand_range()) == [2, 3, 4, 5]
    state.call()
    state.call()
    assert state.circle == 2 and state.demand_show_down(3) == Demand(0, 3, 2)
    assert state.history()["terms"]["demand_any_turn"] is True


def test_one_circle_is_also_the_last_circle():
    state = after_the_exchange(circles=1)
    state.raise_to(2)
    assert state.demand_show_down(2) == Demand(1, 2, 1)


def test_demand_that_nobody_pays_for_wins_unseen():
    state = new_state({0: "2c 3d 4h 5s 7c", 1: "As Ks Qs Js Ts"}, betting_before_exchange=False)
    state.exchange()
    state.exchange()
    state.demand_show_down()  # a bluff with the worst hand
    state.fold()
    assert state.over and state.records[-1] == FoldOut(0, 2 + 1) and state.stacks == [99 - 1 + 3, 99]


# ------------------------------------------------------------------- no credit --------------


def test_no_credit_a_player_who_cannot_pay_must_fold():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c", 2: "9c 9d 8h 8s 2d"},
                      stacks=[100, 4, 100])
    state.raise_to(5)
    assert state.actor == 1 and state.stacks[1] == 3
    assert state.legal_actions() == [Action(ActionKind.FOLD)]
    with pytest.raises(IllegalActionError, match="no credit"):
        state.call()
    with pytest.raises(IllegalActionError):
        state.raise_to(3)
    state.fold()


def test_no_credit_when_paying_to_see():
    state = new_state({0: "As Ks Qs Js Ts", 1: "9c 9d 8h 8s 2d"}, stacks=[100, 3],
                      betting_before_exchange=False, circles=1)
    state.exchange()
    state.exchange()
    state.demand_show_down(5)  # seat 1 has 2 chips after the ante: it must fold, even holding cards
    assert not state.can_call()
    state.fold()
    assert state.records[-1] == FoldOut(0, 7)


def test_a_stake_cannot_exceed_the_stack():
    state = new_state({0: "As Ks Qs Js Ts", 1: "9c 9d 8h 8s 2d"}, stacks=[4, 100])
    assert list(state.raise_range()) == [2, 3]
    with pytest.raises(IllegalActionError, match="only 3 chips"):
        state.raise_to(4)


# ------------------------------------------------------------------- exchange ---------------


def test_exchange_replaces_the_discards_from_the_top_of_the_stock():
    state = new_state({0: "As Ks Qs Js 2d", 1: "9c 9d 8h 8s 2c"}, stock="Ts 3h 4h", betting_before_exchange=False)
    record = state.exchange(parse_cards("2d", DRAW52.deck))
    assert record == Exchange(0, tuple(parse_cards("2d", DRAW52.deck)), tuple(parse_cards("Ts", DRAW52.deck)),
                              0, False)
    assert text(state, 0) == "As Ks Qs Js Ts"
    assert state.drawn == [1, None]
    state.exchange(parse_cards("2c 8h", DRAW52.deck))
    assert text(state, 1) == "9d 9c 8s 4h 3h"
    with pytest.raises(IllegalActionError, match="no exchange now: it is the betting after the exchange"):
        state.exchange()


def test_exchange_rejects_cards_not_held_and_duplicates():
    state = new_state({0: "As Ks Qs Js 2d", 1: "9c 9d 8h 8s 2c"}, betting_before_exchange=False)
    deck = DRAW52.deck
    with pytest.raises(IllegalActionError, match="does not hold 9c"):
        state.exchange(parse_cards("9c", deck))
    with pytest.raises(IllegalActionError, match="twice"):
        state.exchange(parse_cards("As", deck) * 2)
    assert state.can_exchange(parse_cards("As Ks Qs Js 2d", deck))


def test_exchange_fee_is_paid_per_card_and_limited_by_the_stack():
    state = new_state({0: "As Ks Qs 3c 2d", 1: "9c 9d 8h 4s 2c"}, stacks=[100, 6], exchange_fee=2,
                      betting_before_exchange=False)
    record = state.exchange(parse_cards("3c 2d", DRAW52.deck))
    assert record.fee == 4 and state.stacks[0] == 99 - 4 and state.pot == 2 + 4
    assert state.max_exchange() == 2  # 5 chips after the ante pay for two cards
    assert len(state.legal_actions()) == 1 + 1 + 5 + 10  # fold, stand, one card, two cards
    with pytest.raises(IllegalActionError, match="costs 6 chips"):
        state.exchange(parse_cards("4s 2c 8h", DRAW52.deck))
    state.exchange(parse_cards("4s 2c", DRAW52.deck))
    assert state.stacks[1] == 1 and sum(state.stacks) + state.pot == 106


def test_stock_exhaustion_reshuffles_the_muck_but_never_the_players_own_discards():
    rules = get_rules("draw36")  # six players hold 30 of 36 cards: six left in the stock
    hands = {0: "As Ks Qs Js Ts", 1: "Ah Kh Qh Jh Th", 2: "Ad Kd Qd Jd Td",
             3: "Ac Kc Qc Jc Tc", 4: "9s 9h 9d 9c 8s", 5: "8h 8d 8c 7s 7h"}
    state = new_state(hands, rules=rules, betting_before_exchange=False)
    assert len(state.stock) == 6
    seen_reshuffle = False
    for seat in range(6):
        before = set(cards_of(state.hands[seat]))
        available = set(state.stock) | set(state.muck)
        record = state.exchange(state.hand(seat))  # everyone exchanges all five
        drawn = set(record.drawn)
        assert len(drawn) == 5 and not drawn & before and drawn <= available
        seen_reshuffle |= record.reshuffled
        masks = [state.hands[s] for s in range(6)]
        assert all(m.bit_count() == 5 for m in masks)
        assert all(a & b == 0 for a, b in combinations(masks, 2))
        assert len(state.stock) + len(state.muck) + 30 == 36
    assert seen_reshuffle
    assert [r.reshuffled for r in state.records if isinstance(r, Exchange)][:2] == [False, True]


def test_table_sizes_the_deck_cannot_serve():
    with pytest.raises(TermsError, match="at most 5 players"):
        State(get_rules("draw32"), Terms(), [10] * 6)
    State(get_rules("draw36-joker"), Terms(), [10] * 6)  # 36 = 6 * 5 + 6


def test_two_to_six_seats():
    # «Количество участников: от двух до шести человек»
    for n in (7, 9):
        with pytest.raises(TermsError, match=f"draw poker is for 2 to 6 players, got {n} seats"):
            State(get_rules("draw54"), Terms(), [10] * n)
    with pytest.raises(TermsError, match="2 to 6 players, got 1"):
        State(DRAW52, Terms(), [10])
    with pytest.raises(ValueError, match="2 to 6 players, got 7"):
        Table(get_rules("draw54"), Terms(), [str(i) for i in range(7)], 10)
    State(get_rules("draw54"), Terms(), [10] * 6)


def test_terms_are_validated():
    for bad, message in [({"limit": 0}, "limit"), ({"stake": 3, "limit": 2}, "below the stake"),
                         ({"ante": 0}, "ante"), ({"exchange_fee": -1}, "fee"), ({"circles": 0}, "circle"),
                         ({"ante": 1.5}, "whole number")]:
        with pytest.raises(TermsError, match=message):
            Terms(**bad)
    with pytest.raises(TermsError, match="two players"):
        State(DRAW52, Terms(ante=5), [10, 4, 3])


# ------------------------------------------------------------------- show-down --------------


def play_to_show_down(state: State) -> ShowDown:
    while state.phase is not Phase.SHOWDOWN:
        if state.phase is Phase.EXCHANGE:
            state.exchange()
        else:
            state.call()
    return state.show_down()


def test_split_pot_identical_hands_odd_chip_from_the_dealers_left():
    hands = {0: "2c 3d 4h 5s 7c", 1: "As Ks Qs Js 9h", 2: "Ad Kd Qd Jd 9c"}
    state = new_state(hands, dealer=1, betting_before_exchange=False)  # seat 2 acts first
    for _ in range(3):
        state.exchange()
    state.raise_to(2)  # seat 2
    state.fold()  # seat 0: its ante stays in the pot
    state.call()  # seat 1
    call_circle(state)
    call_circle(state)
    assert state.pot == 3 + 2 * (2 + 2 + 2)  # 15: odd
    record = state.show_down()
    # the odd chip goes to the first winner from the dealer's (seat 1) left: seat 2
    assert record.winners == (1, 2) and record.amounts == (7, 8)
    assert evaluate(state.hands[1], DRAW52).key == evaluate(state.hands[2], DRAW52).key


def test_split_pot_with_jokers():
    rules = get_rules("draw54")
    hands = {0: "Jk1 Kh Qh Jh Th", 1: "As Ks Qs Js Ts", 2: "Jk2 9c 9d 2s 3s"}
    state = new_state(hands, rules=rules, betting_before_exchange=False)
    record = play_to_show_down(state)
    # the joker plays the ace of hearts: a straight flush, ace high, equal to the natural one
    assert record.winners == (0, 1) and record.amounts == (3, 3)
    assert state.stacks == [101, 101, 98]


def test_split_pot_with_the_six_of_spades_joker():
    rules = get_rules("draw36-joker-11")
    hands = {0: "6s Ah Ad Kc Qc", 1: "As Ac 7h Ks Qs", 2: "9c 9d 8h 8s 7d"}
    state = new_state(hands, rules=rules, betting_before_exchange=False)
    record = play_to_show_down(state)
    assert record.winners == (0,)  # three aces (6s = ace) beat the pair of aces
    assert evaluate(state.hands[0], rules).description.startswith("three aces")


@pytest.mark.parametrize("tiebreak, winners", [("kickers", (0,)), ("group-only", (0,)), ("no-kickers", (0, 1))])
def test_equal_pairs_split_the_pot_only_under_no_kickers(tiebreak, winners):
    # «Если категории сходятся по всем, например, каждый имеет по одной равной двойке … то банк делится»
    rules = get_rules("draw36-joker-11", tiebreak=tiebreak)
    hands = {0: "Kh Kd 9c 8s 7h", 1: "Ks Kc 9d 8h 6c", 2: "Qs Qc Ad Jh 9h"}
    state = new_state(hands, rules=rules, betting_before_exchange=False)
    record = play_to_show_down(state)
    assert record.winners == winners and sum(record.amounts) == 6
    assert state.history()["rule_options"] == ({} if tiebreak == "kickers" else {"tiebreak": tiebreak})


def test_a_game_with_the_six_of_hearts_as_the_joker():
    # «роль джокера выполняет какая-либо младшая карта, чаще всего шестерка пик»
    rules = get_rules("draw36-joker-11", joker_card="6h")
    hands = {0: "6h Ah Ad Kc Qc", 1: "As Ac 7h Ks Qs", 2: "9c 9d 8h 8s 6s"}  # the 6s is an ordinary card
    state = new_state(hands, rules=rules, betting_before_exchange=False)
    record = play_to_show_down(state)
    assert record.winners == (0,) and evaluate(state.hands[0], rules).description == "three aces"
    history = json.loads(json.dumps(state.history()))
    assert history["rule_options"] == {"joker_card": "6h"} and "Jk" in history["deck"]
    assert replay(history).records == state.records
    with pytest.raises(TermsError, match="every card of the 36-card deck"):  # the 6h is the joker here, not a card
        State(rules, Terms(), [10, 10], deck=[c for c in get_rules("draw36-joker-11").deck.cards()])


def test_show_down_only_for_hands_still_in():
    hands = {0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c", 2: "9c 9d 8h 8s 2d"}
    state = new_state(hands)
    state.fold()  # the best hand folds
    record = play_to_show_down(state)
    assert [s for s, _, _ in record.hands] == [1, 2] and record.winners == (2,)
    assert not state.can_show_down()


# ------------------------------------------------------------------- records ---------------


def test_records_repr_paste_back_and_history_is_json():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c"})
    state.raise_to(2)
    state.call()
    namespace = {"Raise": Raise, "Call": Call, "Phase": Phase, "AntePosting": AntePosting}
    for record in state.records:
        assert eval(repr(record), namespace) == record  # noqa: S307 - our own reprs
    assert json.loads(json.dumps(state.history()))["actions"][-1] == {
        "seat": 1, "action": "call", "amount": 2, "phase": "betting before the exchange", "circle": 1}


def test_table_rotates_the_deal_and_broke_players_leave():
    table = Table(DRAW52, Terms(ante=2), ["a", "b", "c"], [10, 2, 10], seed=4)

    class Folder:
        def act(self, state):
            return Action(ActionKind.FOLD) if state.actor != 0 else Action(ActionKind.CALL)

    state = table.play_hand([Folder()] * 3)
    assert state.dealer == 0 and table.stacks == [8 + 6, 0, 8]  # seat 1 paid its last 2 chips as ante
    assert table.seated == [0, 2]
    state = table.play_hand([Folder()] * 3)
    assert state.dealer == 2 and not state.dealt_in[1]  # the deal skips the seat that left
    assert sum(table.stacks) == 22


# ------------------------------------------------------------------- properties ------------

RULE_NAMES = ["draw52", "draw54-11", "draw36-joker", "draw32", "draw53-9"]


@st.composite
def hands_to_play(draw):
    name = draw(st.sampled_from(RULE_NAMES))
    joker = {"joker_card": draw(st.sampled_from(["6c", "6d", "6h", "6s"]))} if name == "draw36-joker" else {}
    rules = get_rules(name, tiebreak=draw(st.sampled_from(TIEBREAKS)), **joker)
    most = min(6, (rules.deck.size - 5) // 5)
    n = draw(st.integers(2, most))
    ante = draw(st.integers(1, 3))
    stake = draw(st.integers(1, 2))
    terms = Terms(ante=ante, stake=stake, limit=draw(st.integers(stake, stake + 4)),
                  exchange_fee=draw(st.integers(0, 2)), circles=draw(st.integers(1, 3)),
                  betting_before_exchange=draw(st.booleans()), demand_any_turn=draw(st.booleans()))
    stacks = draw(st.lists(st.integers(0, 40), min_size=n, max_size=n).filter(
        lambda s: sum(x >= ante for x in s) >= 2))
    dealer = draw(st.integers(0, n - 1))
    seed = draw(st.integers(0, 2**32))
    return State(rules, terms, stacks, dealer=dealer, seed=seed)


def check_show_down(state: State, record: ShowDown, pot: int) -> None:
    rules = state.rules
    keys = {s: evaluate(state.hands[s], rules).key for s in state.in_hand}
    assert [s for s, _, _ in record.hands] == sorted(keys)
    best = max(keys.values())
    assert list(record.winners) == sorted(s for s, k in keys.items() if k == best)
    assert sum(record.amounts) == pot and max(record.amounts) - min(record.amounts) <= 1
    # odd chips: the winners from the dealer's left get them first
    n = state.n_seats
    order = sorted(record.winners, key=lambda s: (s - state.dealer - 1) % n)
    amounts = dict(zip(record.winners, record.amounts, strict=True))
    assert [amounts[s] for s in order] == sorted(amounts.values(), reverse=True)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=hands_to_play(), data=st.data())
def test_random_legal_play_keeps_every_invariant(state, data):
    total = sum(state.stacks)
    while not state.over:
        legal = state.legal_actions()
        assert legal, state
        action = legal[data.draw(st.integers(0, len(legal) - 1), label="action")]
        state.verify(action)
        pot_before = state.pot
        record = state.apply(action)
        assert sum(state.stacks) + state.pot == total
        assert min(state.stacks) >= 0
        if not state.over:
            assert state.pot == sum(state.contributions)
        held = [state.hands[s] for s in state.in_hand]  # a folded hand's cards may come back from the muck
        assert all(m.bit_count() == 5 for m in held) or state.phase is Phase.ANTES
        assert all(a & b == 0 for a, b in combinations(held, 2))
        if isinstance(record, ShowDown):
            check_show_down(state, record, pot_before)
        if isinstance(record, Demand) and not state.terms.demand_any_turn:  # the circle rule
            raised = any(isinstance(r, Raise) and r.phase is Phase.BETTING_AFTER and r.circle == 1
                         for r in state.records)
            assert record.circle == state.terms.circles or (record.circle == 1 and not raised)
    if isinstance(state.records[-1], FoldOut):
        assert len(state.in_hand) == 1 and state.records[-1].seat == state.in_hand[0]
    history = json.loads(json.dumps(state.history()))
    again = replay(history)
    assert again.records == state.records
    assert again.stacks == state.stacks and again.hands == state.hands and again.folded == state.folded
    assert history["winners"] == (list(state.records[-1].winners) if history["showdown"]
                                  else [state.records[-1].seat])


@settings(max_examples=60, deadline=None)
@given(state=hands_to_play(), data=st.data())
def test_illegal_actions_are_refused_without_changing_the_state(state, data):
    while not state.over:
        legal = state.legal_actions()
        probe = data.draw(st.sampled_from([
            Action(ActionKind.RAISE, state.terms.limit + 1), Action(ActionKind.RAISE, state.current_stake),
            Action(ActionKind.DEMAND, state.current_stake - 1), Action(ActionKind.CALL),
            Action(ActionKind.EXCHANGE, cards=(99,)), Action(ActionKind.ANTE), Action(ActionKind.SHOW_DOWN),
        ]))
        snapshot = (list(state.stacks), state.pot, list(state.hands), len(state.records), state.phase, state.actor)
        if probe in legal:
            state.verify(probe)
        else:
            with pytest.raises(IllegalActionError):
                state.apply(probe)
            assert snapshot == (list(state.stacks), state.pot, list(state.hands), len(state.records),
                                state.phase, state.actor)
        state.apply(legal[data.draw(st.integers(0, len(legal) - 1))])


def test_replay_rejects_a_history_with_an_illegal_action():
    state = new_state({0: "As Ks Qs Js Ts", 1: "2c 3d 4h 5s 7c"})
    state.call()
    history = state.history()
    history["actions"][-1]["action"] = "raise"
    history["actions"][-1]["amount"] = 99
    with pytest.raises(IllegalActionError, match="limit"):
        replay(history)


def test_replay_of_a_stacked_deck():
    state = new_state({0: "As Ks Qs Js 2d", 1: "9c 9d 8h 8s 2c"}, stock="Ts 3h 4h")
    play_to_show_down(state)
    again = replay(json.loads(json.dumps(state.history())))
    assert again.records == state.records and again.stacks == state.stacks
