"""Style models (``style:FILE``): the fit on synthetic records with a known habit, and records files."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from programs import run_main

from quintet.evaluator import evaluate
from quintet.game import Arrangement, Deal
from quintet.rules import get_rules
from solver.advisor.advice import best_response
from solver.apps.solve_cli import main as solve_main
from solver.apps.tournament import expected_margin
from solver.play.computer import Computer
from solver.play.session import GameSession
from solver.problem.deal_tables import DealTables
from solver.problem.opponent_spec import parse_opponent
from solver.problem.opponents import ArrangementMix, OpponentError, Uniform, greedy_arrangement
from solver.problem.style import fit_style, load_style
from solver.storage.records import RecordError, append_record, read_player_games

SWAP = 0.25  # the habit's noise: how often two slots are swapped


def habit_policy(deal: Deal) -> list[tuple[float, Arrangement]]:
    """The known habit, exactly: greedy packets, the strongest in the cheapest slot (slot 1);
    with probability SWAP two slots (each pair equally likely) are swapped."""
    strongest_first = tuple(reversed(greedy_arrangement(DealTables.build(deal)).packets))
    policy = [(1 - SWAP, Arrangement(strongest_first))]
    pairs = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    for i, j in pairs:
        packets = list(strongest_first)
        packets[i], packets[j] = packets[j], packets[i]
        policy.append((SWAP / len(pairs), Arrangement(tuple(packets))))
    return policy


def habit_records(n: int, seed: int) -> list[tuple[Deal, Arrangement]]:
    rng = np.random.default_rng(seed)
    games = []
    for deal in Deal.random_series(seed, n):
        policy = habit_policy(deal)
        games.append((deal, policy[int(rng.choice(len(policy), p=[p for p, _ in policy]))][1]))
    return games


def margin_against(tables: DealTables, arrangement: Arrangement, marginals: np.ndarray) -> float:
    """Exact expected margin of an arrangement against a player with these per-slot marginals."""
    mine = ArrangementMix((arrangement,), (1.0,)).marginals(tables)
    return expected_margin(mine, marginals, tables.rules.weights)


def write_records(path: Path, games: list[tuple[Deal, Arrangement]]) -> Path:
    path.write_text("".join(json.dumps({"exposed": deal.format().split(), "player": a.card_lists()}) + "\n"
                            for deal, a in games))
    return path


@pytest.fixture(scope="module")
def habit_games():
    return habit_records(40, seed=11)


@pytest.fixture(scope="module")
def habit_style(habit_games):
    return fit_style(habit_games)


def test_fit_counts_the_habit(habit_games, habit_style):
    """Order and category frequencies per slot are the records' (add-0.5 smoothed), recomputed here."""
    n = len(habit_games)
    orders = np.zeros((5, 5))
    categories = np.zeros((5, 12))
    for _, arrangement in habit_games:
        keys = [evaluate(p).key for p in arrangement.packets]
        ranked = sorted(range(5), key=lambda s: (-keys[s], s))
        for position, s in enumerate(ranked):
            orders[s, position] += 1
        for s, p in enumerate(arrangement.packets):
            categories[s, int(evaluate(p).category)] += 1
    np.testing.assert_allclose(habit_style.order_probabilities, (orders + 0.5) / (n + 2.5))
    np.testing.assert_allclose(habit_style.category_probabilities, (categories + 0.5) / (n + 6))
    assert all(habit_style.order_probabilities[s][s] > 0.6 for s in range(5))  # strongest in slot 1 …
    assert np.all(np.asarray(habit_style.profiles) == 0.0)  # greedy packets: nothing stronger was free


def test_style_marginals_follow_the_habit_on_new_deals(habit_style):
    for deal in Deal.random_series(99, 4):
        tables = DealTables.build(deal)
        m = habit_style.marginals(tables)
        assert m.shape == (5, tables.n_classes) and np.all(m >= 0)
        np.testing.assert_allclose(m.sum(axis=1), 1.0)
        truth = ArrangementMix(*zip(*[(a, p) for p, a in habit_policy(deal)], strict=True)).marginals(tables)
        # the habit's own packet class, slot by slot; the weakest packet is what is left over, and
        # greedy's choice among equal packets (table order) is not a style, so it may be less sure
        on_habit = [m[s, int(np.argmax(truth[s]))] for s in range(5)]
        assert np.mean(on_habit) > 0.7 and sum(p > 0.5 for p in on_habit) >= 4, (deal.format(), on_habit)
        assert sum(np.argmax(m[s]) == np.argmax(truth[s]) for s in range(5)) >= 4
        np.testing.assert_array_equal(m, habit_style.marginals(tables))  # deterministic


def test_best_response_to_the_style_exploits_the_habit(habit_style):
    """On new deals the best response to the fitted style wins nearly what the best response
    to the habit's true policy wins, far more than the best response to uniform.  (Deals whose
    exact searches are quick: against a style some deals take the search several seconds.)"""
    gained = possible = 0.0
    for deal in map(Deal.random, (2, 4, 5, 8)):
        tables = DealTables.build(deal)
        truth = ArrangementMix(*zip(*[(a, p) for p, a in habit_policy(deal)], strict=True))
        true_m = truth.marginals(tables)
        base = margin_against(tables, best_response(deal, Uniform(), tables=tables).arrangement, true_m)
        styled = margin_against(tables, best_response(deal, habit_style, tables=tables).arrangement, true_m)
        best = best_response(deal, truth, tables=tables)
        assert best.optimal and styled <= best.expected_margin + 1e-9
        gained += styled - base
        possible += best.expected_margin - base
    assert possible > 5 and gained >= 0.8 * possible


def test_style_spec_in_parse_opponent_api_and_quintet_solve(tmp_path, habit_games):
    path = write_records(tmp_path / "habit.jsonl", habit_games)
    deal = Deal.random(5)
    model = parse_opponent(f"style:{path}", deal)
    assert model.name == "style:habit.jsonl"
    direct = best_response(deal, fit_style(habit_games))
    via_api = best_response(deal, f"style:{path}")
    assert via_api.arrangement == direct.arrangement and via_api.opponent == "style:habit.jsonl"
    mixed = parse_opponent(f"style:{path}:0.5,uniform:0.5", deal)
    tables = DealTables.build(deal)
    np.testing.assert_allclose(mixed.marginals(tables),
                               0.5 * model.marginals(tables) + 0.5 * Uniform().marginals(tables))
    proc = run_main(solve_main, [deal.format(), "--opponent", f"style:{path}", "--json"])
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert d["opponent"] == "style:habit.jsonl" and d["optimal"]
    assert Arrangement.parse(d["arrangement"]) == direct.arrangement


def test_play_records_feed_a_style(tmp_path):
    """quintet-play's own records are style files; the computer best-responds to the style."""
    path = tmp_path / "games.jsonl"
    for seed in range(3):
        deal = Deal.random(seed)
        game = GameSession(deal, Computer.choose(deal, "uniform", seed=seed), seed=seed)
        game.confirm(greedy_arrangement(DealTables.build(deal)))
        while game.reveal().result.slot < 5:
            pass
        append_record(path, game.record())
    games = read_player_games(path, get_rules("classic"))
    assert [a for _, a in games] == [greedy_arrangement(DealTables.build(Deal.random(s))) for s in range(3)]
    deal = Deal.random(50)
    computer = Computer.choose(deal, f"style:{path}")
    assert computer.arrangement == best_response(deal, load_style(path, deal.rules)).arrangement
    assert "best response to style:games.jsonl" in computer.description
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:8]  # the record names the file, never its path
    assert computer.spec == f"br:style:games.jsonl@{digest}" and str(tmp_path) not in computer.spec
    game = GameSession(deal, computer, seed=1)
    game.play_out(greedy_arrangement(DealTables.build(deal)))
    assert game.record().opponent == computer.spec


@pytest.mark.parametrize("content, problem", [
    ("", "no records"),
    ("\n\n", "no records"),
    ("not json\n", "line 1: not valid JSON"),
    ('{"exposed": "8h 7h 9d Ts 7s Qc Jc"}\n', "line 1: no 'player' field"),
    ('[1, 2]\n', "line 1: expected a JSON object"),
    ('{"exposed": 7, "player": "x"}\n', "line 1: 'exposed' must be a string or a list"),
    ('{"exposed": "8h 7h 9d Ts 7s Qc", "player": "x"}\n', "line 1: expected 7 exposed cards"),
    ('\n{"exposed": "8h 7h 9d Ts 7s Qc Jc", "player": "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | '
     'Ad Kd Qd Jd Td | 7d 7c Kc Tc 8c"}\n', "line 2: illegal arrangement: 8c is duplicated"),
    ('{"exposed": "8h 7h 9d Ts 7s Qc Jc", "player": "As Ac", "rules": "other"}\n', "line 1: played under other rules"),
])
def test_bad_records_files_are_one_line_errors(tmp_path, content, problem):
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    with pytest.raises(RecordError, match=problem):
        read_player_games(path, get_rules("classic"))
    with pytest.raises(OpponentError, match=problem):
        parse_opponent(f"style:{path}", Deal.random(1))
    proc = run_main(solve_main, ["8h 7h 9d Ts 7s Qc Jc", "--opponent", f"style:{path}"])
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1
    assert problem.split(": ")[-1] in proc.stderr


def test_missing_records_file(tmp_path):
    with pytest.raises(OpponentError, match="not found"):
        parse_opponent(f"style:{tmp_path / 'none.jsonl'}", Deal.random(1))


_json = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                     lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
                         st.sampled_from(["exposed", "player", "rules", "x"]), inner, max_size=4), max_leaves=12)


@settings(max_examples=150, deadline=None)
@given(st.lists(_json, min_size=1, max_size=3))
def test_any_json_lines_are_read_or_refused_in_one_line(tmp_path_factory, entries):
    path = tmp_path_factory.mktemp("records") / "r.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries))
    try:
        games = read_player_games(path, get_rules("classic"))
    except RecordError as exc:
        assert "\n" not in str(exc) and str(path) in str(exc)
    else:
        for deal, arrangement in games:
            arrangement.validate(deal)


@pytest.mark.heavy  # three deals rechecked by the search without rule 6 and by CP-SAT
def test_best_response_to_a_style_is_quick_and_agrees_with_cpsat(habit_style):
    """A style's marginals are smooth (every packet of its partitions in every slot); the
    search's late card prices used to leave its open levels in class order (1–10 s).  The
    optimum is the one the search without rule 6 and CP-SAT prove."""
    from solver.advisor.advice import _problem
    from solver.engines.cpsat import solve_cpsat
    from solver.engines.search import SearchOptions, solve_search

    for deal in Deal.random_series(99, 3):
        tables = DealTables.build(deal)
        answer = best_response(deal, habit_style, tables=tables)
        problem = _problem(tables, habit_style.marginals(tables), "margin")
        unpriced = solve_search(problem, options=SearchOptions(card_prices=False))  # proven: no time limit
        assert answer.optimal and unpriced.optimal
        assert abs(answer.expected_margin - unpriced.value) <= 1e-9
        assert answer.stats["nodes"] < 100_000
        cpsat = solve_cpsat(problem, time_limit=60)
        assert cpsat.value <= answer.expected_margin + 1e-9
        if cpsat.optimal:
            assert abs(cpsat.value - answer.expected_margin) <= 1e-6
