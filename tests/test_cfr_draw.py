"""The abstract game of heads-up draw poker (``quintet.draw.cfr``): its hand classes, its betting rules
replayed on ``quintet.draw.game.State``, the navigator against the tree, a small draw game solved and its
best response against brute force, the strategy file, and the CFR bot at a real table."""

from __future__ import annotations

import random
from itertools import combinations

import numpy as np
import pytest
from cfr_brute import history_best_response, history_value

from quintet.draw.advisor_bot import AdvisorBot
from quintet.draw.bots import make_bot
from quintet.draw.cfr import betting as B
from quintet.draw.cfr.betting import Betting, End, Navigator, Spot, action_text, build_game, parse_action
from quintet.draw.cfr.bot import INDIFFERENT, CfrBot, action_of, line, line_advice, spot_advice, strategy_summary
from quintet.draw.cfr.classes import best_draw, draw_values, hand_classes
from quintet.draw.cfr.solve import CFRPlus, best_response, exploitability
from quintet.draw.cfr.strategy import Strategy, StrategyError, finish, quantise, strategy_for, strategy_key, train
from quintet.draw.cfr.tree import DECISION, TRANSITION
from quintet.draw.game import Action, ActionKind, Phase, State, Terms
from quintet.draw.policy import exchange_policy
from quintet.draw.table import Table
from quintet.rules import get_rules

RULES = get_rules("draw36-joker-11")
SMALL = get_rules("draw32")


@pytest.fixture(scope="module")
def classes():
    return hand_classes(RULES)


@pytest.fixture(scope="module")
def small_classes():
    return hand_classes(SMALL, pre=3, post=3)


# ------------------------------------------------------------------- hand classes --------------


def test_classes_are_distributions_and_exact_at_the_two_ends(classes):
    t = exchange_policy(RULES).tables
    assert classes.prior.sum() == pytest.approx(1.0) and np.all(classes.prior > 0)
    assert np.allclose(classes.transitions.sum(axis=2), 1.0)
    # standing pat and drawing five both end in a hand dealt uniformly: the deck's share of each final class
    dealt = np.bincount(np.searchsorted(classes.post_cuts, t.percentiles, side="left"), weights=t.class_counts,
                        minlength=classes.n_post) / t.n_hands
    for d in (0, 5):
        assert np.allclose(classes.prior @ classes.transitions[d], dealt, atol=1e-12)
    # final classes are unions of whole rank classes, in order: a higher class always wins
    assert np.all(np.diff(classes.post_cuts) > 0) and np.all(np.diff(classes.post_range[:, 0]) > 0)


def test_a_class_before_the_exchange_is_the_best_exchange_and_its_mean(classes):
    rng = random.Random(5)
    for _ in range(200):
        hand = rng.sample(RULES.deck.cards(), 5)
        d, value = best_draw(RULES, hand)
        x = classes.pre_class(hand)
        assert classes.group_of(x) == d
        low, high = classes.pre_range[x]
        assert low <= value <= high
        keep = exchange_policy(RULES).best(hand)
        assert draw_values(RULES, hand)[0][d] == keep  # draw d* keeps what the policy keeps


def test_transitions_of_a_class_by_every_draw_of_every_hand(small_classes):
    # draw32: the pat hands (best exchange: stand pat) are one class; count its draws of 1 and 2 cards by brute force
    classes, policy = small_classes, exchange_policy(SMALL)
    t = policy.tables
    hands = np.array(list(combinations(SMALL.deck.cards(), 5)))
    keeps = policy.best_many(hands)
    pat = hands[keeps == 31]
    assert classes.group_first[1] == 1 and all(classes.pre_class(h.tolist()) == 0 for h in pat[:50])
    deck = np.array(SMALL.deck.cards())
    for d in (1, 2):
        counts = np.zeros(classes.n_post)
        for hand in pat.tolist():
            keep = draw_values(SMALL, hand)[0][d]
            kept = sum(1 << c for i, c in enumerate(hand) if keep >> i & 1)
            unseen = deck[~np.isin(deck, hand)]
            draws = np.array(list(combinations(unseen.tolist(), d)), dtype=np.uint64)
            masks = np.uint64(kept) | np.bitwise_or.reduce(np.left_shift(np.uint64(1), draws), axis=1)
            final = np.searchsorted(classes.post_cuts, t.percentiles[t.classes(masks)], side="left")
            counts += np.bincount(final, minlength=classes.n_post)
        assert np.allclose(counts / counts.sum(), classes.transitions[d, 0], atol=1e-12)


def test_draw_values_are_the_exact_means_of_every_draw():
    policy = exchange_policy(SMALL)
    hand = SMALL.deck.cards()[3:8]
    keeps, values = draw_values(SMALL, hand)
    unseen = [c for c in SMALL.deck.cards() if c not in hand]
    for d in (1, 2):
        kept = [c for i, c in enumerate(hand) if keeps[d] >> i & 1]
        assert len(kept) == 5 - d
        mean = np.mean([policy.percentile(sum(1 << c for c in kept + list(drawn)))
                        for drawn in combinations(unseen, d)])
        assert mean == pytest.approx(values[d], abs=1e-12)
        assert values[d] == max(float(e) for s, e in enumerate(policy.expected(hand)) if 5 - s.bit_count() == d)


# ------------------------------------------------------------------- the betting rules -----------


def real_code(action: Action) -> int:
    if action.kind is ActionKind.FOLD:
        return B.FOLD
    if action.kind is ActionKind.CALL:
        return B.CALL
    if action.kind is ActionKind.RAISE:
        return B.RAISE + action.amount
    if action.kind is ActionKind.DEMAND:
        return B.DEMAND + action.amount
    return B.DRAW + len(action.cards)


TERMS = [Terms(), Terms(betting_before_exchange=False), Terms(demand_any_turn=True), Terms(raising_demand_ends=True),
         Terms(circles=1), Terms(circles=2, stake=2, limit=3), Terms(exchange_fee=1, ante=2, limit=4)]


@pytest.mark.parametrize("terms", TERMS, ids=lambda t: ",".join(f"{k}={v}" for k, v in t.to_dict().items()
                                                                  if v != getattr(Terms(), k)) or "default")
def test_abstract_histories_replay_on_the_real_game(terms, classes):
    rules = RULES
    betting = Betting(terms)
    rng = random.Random(hash(terms) % 1000)
    shown = 0
    for walk in range(150):
        state = State(rules, terms, [1000, 1000], dealer=1, seed=walk)  # seat 0 is on the dealer's left
        while state.phase is Phase.ANTES:
            state.post_ante()
        spot: Spot | End = betting.root()
        while isinstance(spot, Spot):
            assert state.actor == spot.turn
            moves = betting.moves(spot)
            codes = [c for c, _ in moves]
            real = {real_code(a) for a in state.legal_actions()}
            if spot.phase == B.EXCHANGE:
                assert real - set(codes) == {B.FOLD}  # the abstract game leaves folding at the exchange out
                assert set(codes) <= real
            else:
                assert sorted(real) == sorted(codes), (spot, sorted(real), sorted(codes))
            code, spot = moves[rng.randrange(len(moves))]
            state.apply(action_of(code, state, state.actor))
        paid = tuple(state.contributions)
        assert spot.paid == paid
        before = state.stacks_before[0]
        sign, constant = spot.payoff()
        if spot.folder >= 0:
            assert state.over and state.stacks[0] - before == constant
        else:
            assert state.phase is Phase.SHOWDOWN
            state.show_down()
            mine, theirs = classes.post_class(state.hands[0]), classes.post_class(state.hands[1])
            if mine != theirs:  # a higher class always wins the real show-down
                shown += 1
                assert state.stacks[0] - before == sign * np.sign(mine - theirs) + constant
    assert shown > 0


def tree_paths(game):
    """The action codes leading to every decision node (a draw's transition and the node below share one)."""
    tree = game.tree
    paths = {0: ()}
    for node in range(1, tree.n_nodes):
        parent = int(tree.parent[node])
        if tree.kind[parent] == TRANSITION:
            paths[node] = paths[parent]
        else:
            paths[node] = paths[parent] + (int(tree.action[node]),)
    return paths


@pytest.mark.parametrize("terms", [Terms(circles=2, limit=3), Terms(betting_before_exchange=False, circles=2),
                                   Terms(demand_any_turn=True, circles=1, limit=4)])
def test_the_navigator_finds_every_node_of_the_tree(terms, small_classes):
    game = build_game(terms, small_classes)
    tree = game.tree
    nav = Navigator(game.betting, small_classes.n_pre, small_classes.n_post)
    assert nav.entries(game.betting.root()) == tree.size
    paths = tree_paths(game)
    for node in tree.decisions().tolist():
        spot, offset = game.betting.root(), 0
        for code in paths[node]:
            spot, offset = nav.follow(spot, offset, code)
        assert offset == tree.offset[node] and spot.turn == tree.player[node]
        assert nav.block(spot) == tree.types[node, tree.player[node]] * tree.count[node]


def test_the_default_tree_has_the_whole_betting(classes):
    game = build_game(Terms(), classes)
    tree = game.tree
    nav = Navigator(game.betting, classes.n_pre, classes.n_post)
    assert nav.entries(game.betting.root()) == tree.size
    root = game.betting.root()
    assert [c for c, _ in game.betting.moves(root)] == [B.FOLD, B.CALL] + [B.RAISE + k for k in range(2, 6)]
    assert int((tree.kind == DECISION).sum()) > 150_000  # every stake of every turn, not a selection
    paths = tree_paths(game)
    rng = random.Random(1)
    for node in rng.sample(tree.decisions().tolist(), 300):
        spot, offset = root, 0
        for code in paths[node]:
            spot, offset = nav.follow(spot, offset, code)
        assert offset == tree.offset[node]


# ------------------------------------------------------------------- a small draw game solved ----


@pytest.fixture(scope="module")
def small_game(small_classes):
    return build_game(Terms(circles=1, limit=2, betting_before_exchange=False), small_classes)


def test_best_response_history_by_history_on_a_small_draw_game(small_game):
    tree = small_game.tree
    rng = np.random.default_rng(3)
    strategy = np.empty(tree.size)
    for node in tree.decisions().tolist():
        k, n = int(tree.count[node]), int(tree.types[node, tree.player[node]])
        block = rng.random((n, k)) ** 2
        strategy[tree.offset[node]: tree.offset[node] + n * k] = (block / block.sum(1, keepdims=True)).ravel()
    assert exploitability(tree, strategy).value == pytest.approx(history_value(tree, strategy), abs=1e-10)
    for p in (0, 1):
        assert best_response(tree, strategy, p)[0] == pytest.approx(history_best_response(tree, strategy, p),
                                                                    abs=1e-10)


def test_cfr_plus_solves_the_small_draw_game(small_game):
    tree = small_game.tree
    solver = CFRPlus(tree)
    solver.iterate(300)
    e = exploitability(tree, solver.average())
    assert e.total < 1e-3
    stored = quantise(tree, finish(tree, solver.average())) / 255.0
    assert exploitability(tree, stored).total < 5e-3  # storing costs little


def test_finishing_unreached_information_sets_changes_nothing(small_game):
    tree = small_game.tree
    solver = CFRPlus(tree)
    solver.iterate(50)
    average = solver.average()
    finished = finish(tree, average)
    before, after = exploitability(tree, average), exploitability(tree, finished)
    assert after.value == pytest.approx(before.value, abs=1e-3)
    assert after.total == pytest.approx(before.total, abs=2e-3)


# ------------------------------------------------------------------- the strategy file -----------


@pytest.fixture(scope="module")
def small_strategy(tmp_path_factory):
    terms = Terms(circles=1, limit=2)
    strategy = train(SMALL, terms, iterations=30, pre=3, post=3)
    path = tmp_path_factory.mktemp("cfr") / f"{strategy_key(SMALL, terms, 3, 3)}.npz"
    strategy.save(path)
    return strategy, path, terms


def test_a_strategy_file_round_trips_and_refuses_other_games(small_strategy, tmp_path):
    strategy, path, terms = small_strategy
    again = Strategy.load(path, SMALL, terms)
    assert np.array_equal(again.steps, strategy.steps) and again.info == strategy.info
    assert np.array_equal(again.classes.transitions, strategy.classes.transitions)
    assert strategy.info["exploitability"]["stored"] >= 0 and strategy.info["iterations"] == 30
    with pytest.raises(StrategyError, match="another game"):
        Strategy.load(path, SMALL, Terms(circles=1, limit=3))
    with pytest.raises(StrategyError, match="another game"):
        Strategy.load(path, get_rules("draw32", tiebreak="no-kickers"), terms)
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a strategy")
    with pytest.raises(StrategyError, match="not a strategy file"):
        Strategy.load(bad, SMALL, terms)
    assert strategy_key(SMALL, terms) != strategy_key(SMALL, Terms())


# ------------------------------------------------------------------- the bot at a real table -----


def test_the_bot_plays_legal_reproducible_heads_up_hands(small_strategy):
    strategy, _, terms = small_strategy
    histories = []
    for _ in range(2):
        bots = [CfrBot(SMALL, terms, 7, strategy=strategy), make_bot("random", SMALL, 8)]
        table = Table(SMALL, terms, ["cfr", "random"], 30, seed=4)  # short stacks: no credit comes into play
        lines = []
        while not table.over and table.hands_played < 60:
            state = table.play_hand(bots)
            lines.append(state.history())
        histories.append(lines)
    assert histories[0] == histories[1]
    assert any(a["action"] == "exchange" for h in histories[0] for a in h["actions"] if a["seat"] == 0)


def test_the_bot_maps_every_step_of_a_hand(small_strategy):
    strategy, _, terms = small_strategy
    bot = CfrBot(SMALL, terms, 1, strategy=strategy)
    state = State(SMALL, terms, [100, 100], dealer=0, seed=3)
    while not state.over:
        if state.phase is Phase.ANTES:
            state.post_ante()
            continue
        if state.phase is Phase.SHOWDOWN:
            state.show_down()
            continue
        hand = line(strategy, state)
        assert isinstance(hand.spot, Spot) and hand.seats == (1, 0) and hand.seats[hand.spot.turn] == state.actor
        _, codes, probs = bot.probabilities(state, state.actor)
        assert probs.sum() == pytest.approx(1.0) and len(codes) == len(probs)
        state.apply(bot.act(state))


def test_at_three_players_the_bot_plays_as_the_advisor(small_strategy):
    strategy, _, terms = small_strategy
    bot = CfrBot(SMALL, terms, 5, strategy=strategy)
    advisor = AdvisorBot(SMALL, 5)
    state = State(SMALL, terms, [100] * 3, seed=2)
    while state.phase is Phase.ANTES:
        state.post_ante()
    assert bot.act(state) == advisor.act(state)
    with pytest.raises(ValueError, match="heads-up"):
        line(strategy, state)


def test_advice_explains_a_spot(small_strategy):
    strategy, _, terms = small_strategy
    state = State(SMALL, terms, [100, 100], dealer=0, seed=11)
    while state.phase is Phase.ANTES:
        state.post_ante()
    advice = spot_advice(strategy, state, state.actor)
    assert advice.phase == "before" and sum(a.probability for a in advice.actions) == pytest.approx(1.0)
    assert advice.why.startswith(advice.best.text) and sum(advice.opponent) == pytest.approx(1.0)
    state.call()
    state.call()
    assert state.phase is Phase.EXCHANGE
    advice = spot_advice(strategy, state, state.actor)
    assert [o.drawn for o in advice.exchanges] == list(range(6)) and advice.exchanges[0].keep == state.hand(1)
    out = advice.to_model(strategy).model_dump(mode="json")
    assert out["kind"] == "draw_strategy" and out["phase"] == "exchange" and out["player"] == "first"
    assert [e["draw"] for e in out["exchanges"]] == list(range(6)) and len(out["exchanges"][5]["keep"]) == 0
    assert all("chips" in a for a in out["actions"])  # values counted from now in every phase
    assert out["strategy"]["summary"].startswith(f"an equilibrium of an abstraction with {strategy.classes.n_pre} ")
    assert out["strategy"]["iterations"] == 30 and sum(out["opponent_classes"]) == pytest.approx(1.0)
    state.exchange()
    state.exchange()
    advice = spot_advice(strategy, state, state.actor)
    assert advice.phase == "after" and all(a.value is not None for a in advice.actions)
    fold = next(a for a in advice.actions if a.code == B.FOLD)
    assert fold.value == 0.0  # counted from now: what is in the pot is gone either way


def test_values_counted_from_now_add_up_to_the_games_value(small_strategy):
    # at the root, each class's values weighted by the strategy and the prior, less the ante paid, are the value
    # of the game the solver measured (an independent walk of the whole tree)
    from quintet.draw.cfr.bot import _action_values

    strategy, _, terms = small_strategy
    root = strategy.betting.root()
    prior = strategy.classes.prior
    total = 0.0
    for x in range(strategy.classes.n_pre):
        values = np.array(_action_values(strategy, root, 0, x, prior))
        total += prior[x] * float(strategy.block(root, 0)[x] @ values)
    assert total - terms.ante == pytest.approx(strategy.info["exploitability"]["value"], abs=1e-9)


def _sampled_spots(strategy, rules, terms, count, deviate):
    """``count`` spots of hands played by two cfr bots (each move, with chance ``deviate``, a uniform legal move
    instead), alternating dealers and seeds: the coach's advice at each."""
    bots = [CfrBot(rules, terms, seed, strategy=strategy) for seed in range(2)]
    rng = random.Random(3)
    out, seed = [], 0
    while len(out) < count:
        seed += 1
        state = State(rules, terms, [1000, 1000], dealer=seed % 2, seed=seed)
        while state.can_post_ante():
            state.post_ante()
        while state.actor is not None and len(out) < count:
            seat = state.actor
            out.append(spot_advice(strategy, state, seat))
            legal = state.legal_actions()
            state.apply(rng.choice(legal) if rng.random() < deviate else bots[seat].act(state))
            if state.can_show_down():
                state.show_down()
    return out


def _check_reasons(advice):
    """The coach's reason follows from the values it shows: the move advised is worth the most (within
    ``INDIFFERENT``), and a tie is called indifferent."""
    high = max(a.value for a in advice.actions)
    best = advice.best
    assert best.value >= high - INDIFFERENT and advice.why.startswith(f"{best.text} ")
    tied = [a for a in advice.actions if a.value >= high - INDIFFERENT]
    if len(tied) > 1:
        assert "indifferent" in advice.why and all(a.text in advice.why for a in tied)
    else:
        assert f"{best.text} is worth {best.value:+.2f} chips, the most" in advice.why
    assert next(a for a in advice.actions if a.code == B.FOLD).value == 0.0 if advice.spot is not Phase.EXCHANGE \
        else True
    assert "pot odds" not in advice.why and f"class {advice.hand_class + 1} of {advice.classes} (" in advice.why
    assert ("best response against this bot's strategy" in advice.why) == advice.left_line


def test_the_coachs_reasons_follow_from_its_values_on_200_spots(small_strategy):
    strategy, _, terms = small_strategy
    spots = _sampled_spots(strategy, SMALL, terms, 200, deviate=0.3)
    assert {a.spot for a in spots} == {Phase.BETTING_BEFORE, Phase.EXCHANGE, Phase.BETTING_AFTER, Phase.SEEING}
    assert {a.player for a in spots} == {0, 1} and any(a.left_line for a in spots)
    for advice in spots:
        _check_reasons(advice)


@pytest.mark.slow
def test_the_shipped_strategy_never_argues_against_itself_on_200_spots():
    # the shipped strategy's likeliest move is worth the most at every spot of its own play (within INDIFFERENT):
    # the coach's advice is the strategy's, and its reasons agree with its values
    strategy = strategy_for(RULES, Terms(), build=False)
    spots = _sampled_spots(strategy, RULES, Terms(), 200, deviate=0.0)
    assert {a.spot for a in spots} >= {Phase.BETTING_BEFORE, Phase.EXCHANGE, Phase.BETTING_AFTER}
    for advice in spots:
        _check_reasons(advice)
        assert advice.likeliest in advice.top and not advice.left_line
    summary = strategy_summary(strategy)
    assert f"{strategy.classes.n_pre} hand classes before the exchange and {strategy.classes.n_post} after" in summary


def test_actions_as_text_round_trip_and_refuse_what_is_not_one():
    betting = Betting(Terms())
    spot, codes = betting.root(), []
    rng = random.Random(2)
    while isinstance(spot, Spot):
        moves = betting.moves(spot)
        for code, _ in moves:
            assert parse_action(action_text(code)) == code
        code, spot = moves[rng.randrange(1, len(moves))]  # never fold
        codes.append(code)
    assert parse_action("stand") == parse_action("Stand Pat") == B.DRAW
    for bad in ("check", "raise", "raise two", "draw 6", "raise 12345", ""):
        with pytest.raises(ValueError):
            parse_action(bad)


def test_advice_for_a_position_given_as_actions(small_strategy):
    strategy, _, terms = small_strategy
    hand = SMALL.deck.cards()[:5]
    first = line_advice(strategy, hand, [], 0)
    assert first.player == 0 and first.pot == 2 * terms.ante and first.to_call == terms.stake
    with pytest.raises(ValueError, match="it is the first player's turn, not yours"):
        line_advice(strategy, hand, [], 1)
    with pytest.raises(ValueError, match=r"action 1 \(raise 5\) is not allowed there \(allowed: fold, call, raise 2\)"):
        line_advice(strategy, hand, [B.RAISE + 5], 0)
    with pytest.raises(ValueError, match="the hand is over"):
        line_advice(strategy, hand, [B.FOLD], 1)
    after = line_advice(strategy, hand, [B.CALL, B.CALL, B.DRAW + 1], 1)
    assert after.spot is Phase.EXCHANGE and len(after.exchanges) == 6
