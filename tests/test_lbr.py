"""The local best response in the real game (``quintet.draw.cfr.lbr``): its values exact against the abstract
best response, its win against toy strategies of known exploitability, legal actions only, and no read of the
other player's hidden cards."""

from __future__ import annotations

import copy
import dataclasses
import random
import statistics

import numpy as np
import pytest

from quintet.cards import parse_cards
from quintet.draw.cfr.betting import AFTER, CALL, DRAW, FOLD, Spot, build_subtree
from quintet.draw.cfr.bot import CfrBot, Line, follow, opponent_range
from quintet.draw.cfr.lbr import LocalBestResponse, _values, edge
from quintet.draw.cfr.solve import best_response
from quintet.draw.cfr.strategy import Strategy, strategy_for
from quintet.draw.game import Exchange, Phase, State, Terms
from quintet.draw.table import play_out
from quintet.rules import get_rules

RULES = get_rules("draw36-joker-11")


@pytest.fixture(scope="module")
def strategy() -> Strategy:
    return strategy_for(RULES, Terms(), build=False)


@pytest.fixture(scope="module")
def responder(strategy) -> LocalBestResponse:
    return LocalBestResponse(strategy, 1)


def toy(strategy: Strategy, code: int) -> Strategy:
    """The strategy with every betting decision replaced by the action ``code`` (its exchange kept)."""
    tree = strategy.game.tree
    steps = strategy.steps.copy()
    for node in tree.decisions().tolist():
        actions = tree.action[tree.child_list(node)]
        if actions[0] >= DRAW:
            continue
        n_types, k = int(tree.types[node, tree.player[node]]), len(actions)
        block = np.zeros((n_types, k), dtype=np.uint8)
        block[:, int(np.flatnonzero(actions == code)[0])] = 255
        steps[tree.offset[node]: tree.offset[node] + n_types * k] = block.ravel()
    out = dataclasses.replace(strategy, steps=steps)
    out.__dict__["game"] = strategy.game  # the same tree
    return out


def match(responder: LocalBestResponse, bot: CfrBot, deals: int, seed: int, stacks: int = 100) -> list[int]:
    """The responder's chips over each deck played twice, the seats swapped."""
    rng = random.Random(seed)
    deck = RULES.deck.cards()
    out = []
    for i in range(deals):
        order = rng.sample(deck, len(deck))
        total = 0
        for seat in (0, 1):
            bots = [responder, bot] if seat == 0 else [bot, responder]
            state = play_out(State(RULES, Terms(), [stacks, stacks], dealer=i % 2, deck=order), bots)
            total += state.stacks[seat] - stacks
        out.append(total)
    return out


def test_values_equal_the_abstract_best_response_when_the_real_hand_is_a_class(strategy, responder):
    """With the show-down edge of a class x (sign(x - q)), the expectimax is the abstract game's best response
    of class x on the subtree below the spot, against the strategy's range there."""
    t, probs, nodes, offsets = responder._tree
    classes = strategy.classes
    for codes in ([CALL, CALL, CALL, CALL, CALL, CALL, DRAW + 1, DRAW + 2],
                  [CALL, 1003, CALL, CALL, CALL, CALL, DRAW, DRAW + 3, 1004]):
        steps, spot, offset = follow(strategy, codes)
        assert isinstance(spot, Spot) and spot.phase == AFTER
        me = spot.turn
        hand = Line((0, 1), steps, spot, offset)
        reach = opponent_range(strategy, hand, 1 - me)
        node = int(nodes[np.searchsorted(offsets, offset)])
        assert offsets[np.searchsorted(offsets, offset)] == offset
        size = strategy.navigator.entries(spot)
        for x in (0, 7, classes.n_post - 1):
            mine = np.zeros(classes.n_post)
            mine[x] = 1.0
            sub = build_subtree(strategy.betting, classes, spot, mine if me == 0 else reach, reach if me == 0 else mine)
            expected, _ = best_response(sub, strategy.steps[offset: offset + size] / 255.0, me)
            got = _values(t, node, me, reach, np.sign(x - np.arange(classes.n_post)).astype(np.float64), probs)
            assert got[0] == pytest.approx(expected, abs=1e-9)


def test_edge_is_win_minus_loss_against_each_class(strategy):
    def mask(text: str) -> int:
        return sum(1 << c for c in parse_cards(text, RULES.deck, count=5, what="cards"))

    top, low = edge(strategy, mask("As Ah Ad Ac Kh")), edge(strategy, mask("7c 8d 9h Js Kd"))
    for e in (top, low):
        assert e.shape == (strategy.classes.n_post,) and np.all(np.abs(e) <= 1.0)
        assert np.all(np.diff(e) <= 1e-12)  # a stronger class is beaten no more often
    assert np.all(top >= low) and top[0] == 1.0 and low[-1] == -1.0
    inside = strategy.classes.post_class(mask("7c 8d 9h Js Kd"))
    assert -1.0 < low[inside] < 1.0  # within its own class the real hand wins some and loses some


def test_against_always_fold_it_wins_the_ante_every_hand(strategy):
    folder = toy(strategy, FOLD)
    totals = match(LocalBestResponse(folder, 3), CfrBot(RULES, Terms(), 4, strategy=folder), 30, seed=5)
    assert totals == [2 * Terms().ante] * 30  # exploitability 1 ante a hand: found exactly


def test_against_always_call_it_wins_clearly(strategy):
    caller = toy(strategy, CALL)
    totals = match(LocalBestResponse(caller, 3), CfrBot(RULES, Terms(), 4, strategy=caller), 150, seed=6)
    mean = statistics.fmean(totals) / 2
    half = 1.96 * statistics.stdev(totals) / len(totals) ** 0.5 / 2
    assert mean - half > 0.5  # a calling station pays off every value bet


def test_only_legal_actions_even_with_short_stacks(strategy, responder):
    """``State.apply`` refuses an illegal action: whole hands played, stacks short enough to bind."""
    bot = CfrBot(RULES, Terms(), 8, strategy=strategy)
    for stacks in (3, 6, 100):
        assert len(match(responder, bot, 15, seed=stacks, stacks=stacks)) == 15


def test_it_never_reads_the_other_players_hidden_cards(strategy, responder):
    """At every decision: the other player's cards, the cards he discarded and drew, and the stock replaced by
    others — the same decision and, after the exchange, the same values."""
    bot = CfrBot(RULES, Terms(), 9, strategy=strategy)
    rng = random.Random(10)
    checked = after = 0
    for deal in range(40):
        state = State(RULES, Terms(), [100, 100], dealer=deal % 2, seed=deal)
        seat_lbr = deal % 2
        while not state.over:
            if state.phase is Phase.ANTES:
                state.post_ante()
                continue
            if state.phase is Phase.SHOWDOWN:
                state.show_down()
                continue
            if state.actor != seat_lbr:
                state.apply(bot.act(state))
                continue
            other = 1 - seat_lbr
            mine = state.hands[seat_lbr]
            known = mine | sum(1 << c for r in state.records if isinstance(r, Exchange) and r.seat == seat_lbr
                               for c in r.discarded)
            unseen = [c for c in RULES.deck.cards() if not known >> c & 1]
            twin = copy.deepcopy(state)
            rng.shuffle(unseen)
            twin.hands[other] = sum(1 << c for c in unseen[:5])
            twin.stock = unseen[5:]
            twin.records = [dataclasses.replace(r, discarded=tuple(unseen[5: 5 + len(r.discarded)]),
                                                drawn=tuple(unseen[10: 10 + len(r.drawn)]))
                            if isinstance(r, Exchange) and r.seat == other else r for r in state.records]
            assert responder.act(twin) == responder.act(state)
            if None not in state.drawn:
                codes, worth = responder.values(state, seat_lbr)
                codes2, worth2 = responder.values(twin, seat_lbr)
                assert codes == codes2 and np.array_equal(worth, worth2)
                after += 1
            checked += 1
            state.apply(responder.act(state))
    assert checked > 100 and after > 20
