"""The review of a finished game, the session statistics and the training puzzles: the modules
(``solver.play.review``, ``statistics``, ``puzzle``), the records read back, and ``quintet-play
review``, ``stats`` and ``puzzle`` through stdin.  The terminals in tmux: tests/test_play.py."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from brute import direct_value
from programs import run_main

from quintet.cards import format_cards, parse_cards
from quintet.evaluator import evaluate
from quintet.fingerprint import rules_fingerprint
from quintet.game import Arrangement, Deal, SlotResult
from quintet.rules import get_rules
from quintet.symmetry import canonical_exposed
from quintet.trend import Trend
from solver.advisor.advice import best_response, grade
from solver.advisor.equilibrium import STORE_KIND, EquilibriumResult
from solver.advisor.schema import PuzzleResultOut, ReviewOut, StatsOut
from solver.apps.play_cli import main as play_main
from solver.play.computer import Computer
from solver.play.puzzle import Puzzle, PuzzleError, load_puzzle, pick_puzzle
from solver.play.review import REVIEW_TOP, review, slot_reason
from solver.play.session import GameSession, Person
from solver.play.statistics import statistics
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import Greedy, greedy_arrangement
from solver.storage.records import (
    GameRecord,
    RecordError,
    append_record,
    is_resigned,
    read_records,
    records_from_json,
    resigned_record,
)
from solver.storage.store import SolutionStore

SEED = 7  # game 1 of --seed 7: exposed As Ks Th 9s 8h 7s 7h
MINE = "Js Jh 8s 8d 8c | Qs Qh 9h 9d 9c | Ac Kc Qc Jc Tc | Ah Kh Ts 7d 7c | Ad Kd Qd Jd Td"


def played(opponent: str = "greedy", seed: int = SEED, mine: str | Arrangement | None = None) -> GameRecord:
    deal = Deal.random(seed)
    game = GameSession(deal, Computer.choose(deal, opponent, seed=seed), seed=seed)
    game.play_out(mine if mine is not None else best_response(deal, "uniform").arrangement)
    return game.record()


def made_up_equilibrium(deal: Deal) -> EquilibriumResult:
    """A certified-looking mix for ``deal`` (greedy 3/4, the best response to uniform 1/4): the
    review and the puzzles grade against whatever mix they are given."""
    tables = DealTables.build(deal)
    mix = (greedy_arrangement(tables), best_response(deal, "uniform", tables=tables).arrangement)
    return EquilibriumResult(deal=deal, mix=((0.75, mix[0]), (0.25, mix[1])), exploitability=0.5, proven=True,
                             converged=False, epsilon=0.05, iterations=1, seconds=0.0)


def store_with(path: Path, seeds: list[int]) -> list[Deal]:
    """A store holding a made-up equilibrium for the canonical deal of each seed."""
    deals = []
    with SolutionStore(path) as store:
        for seed in seeds:
            canonical, _ = canonical_exposed(Deal.random(seed).exposed)
            deal = Deal(canonical)
            store.put(rules_fingerprint(deal.rules), STORE_KIND, canonical, made_up_equilibrium(deal).to_record(), 0.5)
            deals.append(deal)
    return deals


def mix_of(eq: EquilibriumResult) -> list[tuple[object, float]]:
    return [(a, p) for p, a in eq.mix]


# ----------------------------------------------------------------------------- records read back


def test_a_resigned_game_is_recorded_and_the_readers_skip_it(tmp_path):
    """docs/rules.md, a game resigned: its record says so, has no arrangement of the resigner's,
    gives the other side every slot's points; reading records skips it, and a review of it is
    refused in one line (there is no show-down to replay)."""
    record = played(mine=MINE)
    rules = record.deal.rules
    gave = resigned_record(game=2, seed=SEED + 1, time=record.time, opponent="greedy", deal=record.deal,
                           player=record.player, computer=record.computer, by="player", hints=("hint",))
    assert gave["resigned"] == "player" and gave["player"] is None and gave["regret"] is None
    assert gave["computer"] == record.computer.card_lists(rules) and gave["slots"] == []
    assert gave["points"] == {"player": 0.0, "computer": float(sum(rules.weights))} and is_resigned(gave)
    took = resigned_record(game=2, seed=SEED + 1, time=record.time, opponent="friend", deal=record.deal,
                           player=None, computer=None, by="computer")
    assert took["points"] == {"player": float(rules.game_points), "computer": 0.0} and took["computer"] is None
    path = tmp_path / "r.jsonl"
    append_record(path, record)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(gave) + "\n")
    assert read_records(path, rules) == [record]
    assert records_from_json([gave, record.to_dict(), took], rules) == [record]
    assert statistics(records_from_json([gave], rules)).games == 0
    with pytest.raises(RecordError, match="game 2 was resigned before its show-down"):
        GameRecord.from_dict(gave, rules)


def test_a_record_reads_back_as_written_and_a_forged_one_is_refused(tmp_path):
    record = played(mine=MINE)
    again = GameRecord.from_dict(json.loads(json.dumps(record.to_dict())), record.deal.rules)
    assert again == record
    path = tmp_path / "r.jsonl"
    append_record(path, record)
    append_record(path, played("uniform", seed=SEED + 1))
    assert [r.seed for r in read_records(path, record.deal.rules)] == [SEED, SEED + 1]
    forged = record.to_dict() | {"points": {"player": 25.0, "computer": 0.0}}
    bad = [(forged, "'points' {'player': 25.0, 'computer': 0.0} are not the show-down's (12 : 6)"),
           (record.to_dict() | {"seed": -1}, "'seed' must be a whole number"),
           (record.to_dict() | {"regret": "none"}, "'regret' must be null or a number"),
           (record.to_dict() | {"slot_regret": [0.0, 1.0]}, "'slot_regret' must be null or a number of points"),
           (record.to_dict() | {"mix": "/home/me/x"}, "'mix' must be null or a mix's hash (16 hex digits)"),
           ({k: v for k, v in record.to_dict().items() if k != "computer"}, "no 'computer' field"),
           (record.to_dict() | {"rules": "other"}, "played under other rules")]
    for entry, problem in bad:
        with pytest.raises(RecordError, match=re.escape(problem)):
            records_from_json([entry], record.deal.rules)
    path.write_text(path.read_text() + json.dumps(forged) + "\n")
    with pytest.raises(RecordError, match=f"{path}: line 3: 'points'"):
        read_records(path, record.deal.rules)
    kept = tmp_path / "mixed.jsonl"
    append_record(kept, record)
    kept.write_text(kept.read_text() + json.dumps(record.to_dict() | {"rules": "another"}) + "\n")
    assert len(read_records(kept, record.deal.rules, skip_other_rules=True)) == 1


# ----------------------------------------------------------------------------- the review


def result(a: str, b: str, weight: int = 5, tie: float = 0.0) -> SlotResult:
    rules = get_rules("classic", tie_points=tie)
    ha, hb = evaluate(a, rules), evaluate(b, rules)
    winner = None if ha.key == hb.key else "A" if ha.key > hb.key else "B"
    pa = weight if winner == "A" else tie * weight if winner is None else 0.0
    pb = weight if winner == "B" else tie * weight if winner is None else 0.0
    return SlotResult(1, weight, ha, hb, winner, pa, pb)


@pytest.mark.parametrize("a, b, tie, reason", [
    ("As Ah Ad 8c 8d", "Ks Kh 9s 9d 7c", 0.0, "full house beats two pair"),
    ("7s 7h 9s 9d Ac", "Js Jh Jd 8c 8d", 0.0, "full house beats two pair"),
    ("Js Jh Jd Tc Td", "8s 8h 8d Tc Td", 0.0, "both full house: jacks over tens beats eights over tens"),
    ("Ks Kh As Qc 9d", "Kd Kc Ah Jc 9h", 0.0, "both pair of kings; second kicker: queen over jack"),
    ("Kh Qh Jh 9h 7h", "Kd Qd Td 9d 8d", 0.0, "both flush, king high; third-highest card: jack over ten"),
    ("As Ks Qs Js 9s", "Ah Kh Qh Jh 9h", 0.0, "equal hands (flush, ace high): nobody scores"),
    ("As Ks Qs Js 9s", "Ah Kh Qh Jh 9h", 0.5, "equal hands (flush, ace high): each scores 2.5"),
])
def test_a_slot_s_reason_names_what_decided_it(a, b, tie, reason):
    assert slot_reason(result(a, b, tie=tie), get_rules("classic", tie_points=tie)) == reason


def test_the_review_grades_the_arrangement_exactly_against_the_model_and_the_equilibrium():
    record = played("greedy", mine=MINE)
    deal = record.deal
    eq = made_up_equilibrium(deal)
    r = review(record, equilibrium=eq)
    assert [s.winner for s in r.slots] == ["player", "player", "player", "computer", None]
    assert r.slots[0].reason == "full house beats pair" and r.notes == ()
    assert r.model is not None and r.model.model == "greedy" and r.model.against == "model"
    assert r.model.grade.regret == pytest.approx(record.regret) == pytest.approx(
        grade(deal, record.player, Greedy()).regret)
    assert r.equilibrium is not None and r.equilibrium.exploitability == 0.5
    g = r.equilibrium.grade
    assert g.given.value == pytest.approx(direct_value(deal, mix_of(eq), record.player.packets))  # brute force
    assert g.best.optimal and g.best.value == pytest.approx(direct_value(deal, mix_of(eq), g.best.arrangement.packets))
    assert g.regret == pytest.approx(g.best.value - g.given.value)
    spoilt = "Js Jh 8s 8d 9c | Qs Qh 9h 9d 8c" + MINE[MINE.index(" | Ac"):]  # 8c and 9c swapped
    worse = review(played("greedy", mine=spoilt), equilibrium=eq)
    w = worse.equilibrium.grade
    assert w.regret == pytest.approx(g.best.value - direct_value(deal, mix_of(eq), worse.record.player.packets))
    assert w.regret > 0.1 and w.best_swap is not None
    assert w.best_swap.value == pytest.approx(direct_value(deal, mix_of(eq), w.best_swap.arrangement.packets))
    out = ReviewOut.model_validate(r.to_dict())
    assert out.kind == "review" and out.slots[3].winner == "computer" and out.points == {"player": 12, "computer": 6}
    assert out.slots[0].player.cards == ["8s", "8d", "8c", "Js", "Jh"] and out.slots[0].player.category == "full_house"
    # without the equilibrium: said, not guessed
    alone = review(record)
    assert alone.equilibrium is None and "not graded against the equilibrium" in alone.notes[0]


def test_the_review_says_where_the_expected_points_went_and_the_luck_apart():
    """Per slot: your expected margin beside the best's (by brute force); their differences sum to
    the regret; the slot that lost most is named; luck = the result minus your expected margin."""
    deal = Deal.random(SEED)
    eq = made_up_equilibrium(deal)
    spoilt = "Js Jh 8s 8d 9c | Qs Qh 9h 9d 8c" + MINE[MINE.index(" | Ac"):]  # 8c and 9c swapped
    for r in (review(played("greedy", mine=spoilt), equilibrium=eq), review(played("greedy", mine=MINE))):
        m = r.model
        result = r.record.showdown.points_a - r.record.showdown.points_b
        greedy = [(greedy_arrangement(DealTables.build(deal)), 1.0)]
        assert m.result == result
        assert m.luck == pytest.approx(result - direct_value(deal, greedy, r.record.player.packets))
        assert [s.yours for s in m.slots] == pytest.approx([a.expected_margin for a in m.grade.given.per_slot])
        assert [s.best for s in m.slots] == pytest.approx([a.expected_margin for a in m.grade.best.per_slot])
        assert sum(s.lost for s in m.slots) == pytest.approx(m.regret)
        if m.regret < 0.005:
            assert m.worst_slot is None
        else:
            assert m.worst_slot == max(m.slots, key=lambda s: s.lost).slot
        out = ReviewOut.model_validate(r.to_dict()).model
        assert out.luck == pytest.approx(m.luck) and out.worst_slot == m.worst_slot
        assert [s.lost for s in out.slots] == pytest.approx([s.lost for s in m.slots])
        assert (m.worst_slot is None) == (r.record.player.packets == played("greedy", mine=MINE).player.packets)
        # the best arrangements of the best plans (REVIEW_TOP), each a plan none before it follows
        alternatives = m.grade.best.alternatives
        assert alternatives is not None and len(alternatives) == REVIEW_TOP - 1
        assert len({m.grade.best.plan, *(a.plan for a in alternatives)}) == REVIEW_TOP
        values = [m.grade.best.value, *(a.value for a in alternatives)]
        assert values == sorted(values, reverse=True) and all(a.optimal for a in alternatives)
        assert [a.rank for a in out.grade.best.alternatives] == [2, 3]


def test_the_review_of_a_game_against_the_equilibrium_or_a_person():
    deal = Deal.random(SEED)
    eq = made_up_equilibrium(deal)
    game = GameSession(deal, Computer.resume(deal, "equilibrium", eq.mix[0][1], "", equilibrium=lambda d, s: eq),
                       seed=SEED)
    game.play_out(MINE)
    r = review(game.record(), equilibrium=eq)
    assert r.model is not None and r.equilibrium is not None and r.model.grade is r.equilibrium.grade
    assert game.record().mix is None and not any("drew from" in n for n in r.notes)  # a mix not kept names none
    kept = replace(eq, mix_hash="0123456789abcdef")  # the mix the game drew from, kept for play
    drawn = GameSession(deal, Computer.resume(deal, "equilibrium", eq.mix[0][1], "", equilibrium=lambda d, s: kept),
                        seed=SEED)
    drawn.play_out(MINE)
    assert drawn.record().mix == "0123456789abcdef"
    assert GameRecord.from_dict(drawn.record().to_dict(), deal.rules).mix == "0123456789abcdef"
    assert not any("drew from" in n for n in review(drawn.record(), equilibrium=kept).notes)
    other = replace(eq, mix_hash="fedcba9876543210")  # the store keeps another mix: the review says so
    assert any("the mix this game drew from (0123456789abcdef) is not the one given (fedcba9876543210)" in n
               for n in review(drawn.record(), equilibrium=other).notes)
    with pytest.raises(ValueError, match="another deal"):
        review(game.record(), equilibrium=made_up_equilibrium(Deal.random(SEED + 1)))
    friendly = GameSession(deal, Person(), seed=SEED)
    friendly.play_out(MINE, greedy_arrangement(DealTables.build(deal)))
    r = review(friendly.record(), equilibrium=eq)
    assert r.model is None and r.equilibrium is not None and "a game against a person" in r.notes[0]


# ----------------------------------------------------------------------------- statistics


def test_trend_is_a_mean_a_least_squares_slope_and_blocks():
    rng = np.random.default_rng(5)
    values = list(rng.normal(size=37))
    t = Trend.of(values, window=10)
    assert t.count == 37 and t.mean == pytest.approx(np.mean(values))
    assert t.slope == pytest.approx(np.polyfit(np.arange(37), values, 1)[0])
    assert t.recent == pytest.approx(np.mean(values[-10:])) and t.earlier == pytest.approx(np.mean(values[:-10]))
    assert [pytest.approx(b) for b in t.blocks] == [np.mean(values[i:i + 10]) for i in range(0, 37, 10)]
    assert Trend.of([1.0] * 5, window=10).direction is None and Trend.of([], 3).mean is None
    assert Trend.of([2.0] * 10 + [1.0] * 10, 10).direction == "down"
    assert Trend.of([1.0] * 10 + [1.0] * 10, 10).direction == "steady"


def test_one_opponent_s_regret_does_not_move_another_s_trend():
    """A deliberate regret of 15 against greedy after twenty steady games against uniform: the
    mixed trend reads "up"; uniform's own stays steady, greedy's has no trend yet."""
    base = played("uniform", seed=100)
    records = [GameRecord(**{**base.__dict__, "time": f"2026-12-01T10:{k:02d}:00Z", "regret": 1.0})
               for k in range(20)]
    records.append(GameRecord(**{**played("greedy", seed=101).__dict__, "time": "2026-12-01T11:00:00Z",
                                 "regret": 15.0}))
    s = statistics(records, window=10)
    assert s.regret.direction == "up"
    uniform, greedy = sorted(s.opponents, key=lambda o: o.opponent != "uniform")
    assert (uniform.opponent, uniform.games, uniform.regret.direction) == ("uniform", 20, "steady")
    assert (greedy.games, greedy.regret.mean, greedy.regret.direction) == (1, 15.0, None)


def test_statistics_add_up_over_random_games():
    rng = np.random.default_rng(11)
    records = []
    for k in range(23):
        record = played("uniform" if k % 2 else "greedy", seed=100 + k,
                        mine=None if k % 3 else greedy_arrangement(DealTables.build(Deal.random(100 + k))))
        time = f"2026-12-{1 + k // 10:02d}T10:{k % 60:02d}:00Z"
        records.append(GameRecord(**{**record.__dict__, "time": time, "regret": float(rng.uniform(0, 3))}))
    shuffled = [records[i] for i in rng.permutation(len(records))]
    s = statistics(shuffled, window=10)  # taken by time, whatever the order given
    assert s.games == 23 and s.won + s.lost + s.drawn == 23
    assert s.points_player == sum(r.showdown.points_a for r in records)
    assert s.points_computer == sum(r.showdown.points_b for r in records)
    assert s.regret.mean == pytest.approx(np.mean([r.regret for r in records]))
    assert s.regret.recent == pytest.approx(np.mean([r.regret for r in records[-10:]]))
    for slot in s.slots:
        results = [r.showdown.slots[slot.slot - 1] for r in records]
        assert slot.won + slot.lost + slot.tied == 23 and slot.points == [3, 4, 5, 6, 7][slot.slot - 1]
        assert slot.points_lost == sum(x.points_b for x in results)
        assert slot.won == sum(x.winner == "A" for x in results)
        assert slot.regret == pytest.approx(np.mean([r.slot_regret[slot.slot - 1] for r in records]))
    assert s.worst_slot is not None and s.worst_slot.regret == max(x.regret for x in s.slots)
    assert [(o.opponent, o.games) for o in s.opponents] == [("greedy", 12), ("uniform", 11)]
    for o in s.opponents:
        theirs = [r for r in records if r.opponent == o.opponent]
        assert o.regret.mean == pytest.approx(np.mean([r.regret for r in theirs]))
        assert o.won + o.lost + o.drawn == o.games and o.won == sum(r.showdown.margin > 0 for r in theirs)
    assert s.first.startswith("2026-12-01")
    out = StatsOut.model_validate(s.to_dict())
    assert out.kind == "stats" and out.regret.blocks == pytest.approx(list(s.regret.blocks))
    assert out.opponents == {"greedy": 12, "uniform": 11} and [o.opponent for o in out.per_opponent] == [
        "greedy", "uniform"]
    empty = statistics([])
    assert empty.games == 0 and empty.regret.mean is None and empty.worst_slot is None


# ----------------------------------------------------------------------------- puzzles


def test_puzzles_come_from_the_store_and_are_graded_exactly(tmp_path):
    path = tmp_path / "s.sqlite"
    with SolutionStore(path) as store:
        with pytest.raises(PuzzleError, match="holds no solved deal"):
            pick_puzzle(store, get_rules("classic"), 1)
    deals = store_with(path, [3, 4, 5])
    with SolutionStore(path) as store:
        rules = deals[0].rules
        picked = [pick_puzzle(store, rules, seed) for seed in range(12)]
        assert {p.deal for p in picked} == set(deals)  # every solved deal comes up
        assert pick_puzzle(store, rules, 7) == picked[7]  # a seed, a puzzle
        pz = picked[0]
        assert pz.count == 3 and pz.opponent == "equilibrium" and pz.exploitability == 0.5
        assert load_puzzle(store, pz.deal) == Puzzle(pz.deal, "equilibrium", pz.model, 0.5, pz.number, 3, None)
        with pytest.raises(PuzzleError, match="not a puzzle"):
            load_puzzle(store, Deal.random(99))
        with pytest.raises(PuzzleError, match="a puzzle's opponent"):
            pick_puzzle(store, rules, 1, "bogus")
        greedy = pick_puzzle(store, rules, 0, "greedy")
        assert greedy.deal == pz.deal and greedy.model.name == "greedy"
    eq = made_up_equilibrium(pz.deal)
    best = pz.solve()
    solved = pz.grade(best.arrangement)
    assert solved.solved and solved.stars == 3 and solved.grade.regret <= 1e-9
    assert best.value == pytest.approx(direct_value(pz.deal, mix_of(eq), best.arrangement.packets))
    worse = Arrangement(best.arrangement.packets[::-1])  # the same packets, slots reversed
    answer = pz.grade(worse.format())
    given = direct_value(pz.deal, mix_of(eq), worse.packets)
    assert answer.grade.given.value == pytest.approx(given)
    assert answer.grade.regret == pytest.approx(best.value - given) and not answer.solved
    assert answer.stars == (2 if answer.grade.regret <= 0.1 else 1 if answer.grade.regret <= 0.5 else 0)
    out = PuzzleResultOut.model_validate(answer.to_dict())
    assert out.kind == "puzzle-result" and out.puzzle.kind == "puzzle" and out.puzzle.number == pz.number


# ----------------------------------------------------------------------------- the command lines


def play(tmp_path: Path, argv: list[str], stdin: str = ""):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
        patch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        patch.setenv("QUINTET_STORE", str(tmp_path / "store.sqlite"))
        return run_main(play_main, argv, stdin)


def test_quintet_play_review_and_stats_of_a_records_file(tmp_path):
    path = tmp_path / "games.jsonl"
    for k in range(3):
        append_record(path, played("greedy", seed=SEED + k))
    canonical_store = tmp_path / "store.sqlite"
    with SolutionStore(canonical_store) as store:  # the last game's equilibrium, stored (a made-up mix)
        deal = Deal.random(SEED + 2)
        canonical, _ = canonical_exposed(deal.exposed)
        store.put(rules_fingerprint(deal.rules), STORE_KIND, canonical, made_up_equilibrium(Deal(canonical))
                  .to_record(), 0.5)
    ran = play(tmp_path, ["review", str(path), "--epsilon", "1"])
    assert ran.returncode == 0, ran.stderr
    out = ran.stdout
    assert out.startswith(f"Review of game 1 (seed {SEED + 2}, against greedy")
    assert "Against the computer's model (greedy): your expected margin" in out
    assert "Against the equilibrium (certified exploitability 0.5000): your expected margin" in out
    luck = re.findall(r"Result ([+-][\d.]+) = your expected margin ([+-][\d.]+) \+ luck ([+-][\d.]+)\.", out)
    assert len(luck) == 2 and all(float(r) == pytest.approx(float(e) + float(k), abs=0.011) for r, e, k in luck)
    assert out.count("← the regret was made here") == 2 and "Per slot, your expected margin beside" in out
    assert out.count("Your plan beside the best plans") == 2
    plans = re.findall(r"^ {4}(yours|1\. best|2\.|3\.) +([+-][\d.]+) +(\S.*)$", out, re.MULTILINE)
    assert [p[0] for p in plans] == ["yours", "1. best", "2.", "3."] * 2
    assert all(len(p[2].split(" | ")) == 5 for p in plans)
    ran = play(tmp_path, ["review", str(path), "--game", "1", "--no-equilibrium", "--json"])
    assert ran.returncode == 0, ran.stderr
    data = ReviewOut.model_validate(json.loads(ran.stdout))
    assert data.seed == SEED and data.equilibrium is None and data.model is not None
    assert data.model.regret == pytest.approx(read_records(path, deal.rules)[0].regret)
    ran = play(tmp_path, ["stats", str(path)])
    assert ran.returncode == 0 and ran.stdout.startswith(f"Your games ({path}): 3 games since "), ran.stdout
    assert "Per slot (the mean regret made there a game" in ran.stdout and "  greedy: 3 games (won " in ran.stdout
    stats = StatsOut.model_validate(json.loads(play(tmp_path, ["stats", str(path), "--json"]).stdout))
    assert stats.games == 3 and stats.opponents == {"greedy": 3}
    none_yet = play(tmp_path, ["stats"])  # the default records file, not made yet
    assert none_yet.returncode == 0 and "No games recorded yet" in none_yet.stdout
    for argv, problem in [(["review", str(path), "--game", "4"], "--game 4: "),
                          (["review", str(tmp_path / "none.jsonl")], "not found"),
                          (["review"], "no games recorded yet"),
                          (["stats", str(path), "--window", "0"], "window must be an integer from 1 to 1000, got 0"),
                          (["review", str(path), "--game", "1", "--all"], "not allowed with argument")]:
        ran = play(tmp_path, argv)
        assert ran.returncode == 2 and problem in ran.stderr and len(ran.stderr.strip().splitlines()) == 1, \
            (argv, ran.stderr)


def test_quintet_play_puzzle_through_stdin(tmp_path):
    deals = store_with(tmp_path / "store.sqlite", [3, 4, 5])
    with SolutionStore(tmp_path / "store.sqlite") as store:
        first, second = (pick_puzzle(store, deals[0].rules, seed) for seed in (20, 21))
    best = first.solve().arrangement
    worse = Arrangement(best.packets[::-1])
    live = format_cards(second.deal.live).split()
    mine = format_cards(first.deal.live).split()[:5]
    script = "\n".join(["help", "hint", "grade", f"slot 1 {' '.join(mine)}", "undo", f"play {best.format()}",
                        f"swap {live[0]} {live[1]}", "answer", ""])
    ran = play(tmp_path, ["puzzle", "--from", "store", "--seed", "20", "--count", "3"], script)
    assert ran.returncode == 0, ran.stderr
    out = ran.stdout
    assert out.count("play ARRANGEMENT") == 1  # the help names it once
    assert "Training: 3 puzzles, seed 20." in out and f"Puzzle 1 of 3, seed 20: solved deal {first.number} of 3" in out
    errors = [line for line in out.splitlines() if line.startswith("error: ")]
    assert errors == ["error: no 'hint' in a puzzle: place your packets and 'play' them ('answer' gives up and "
                      "shows the best arrangement)", "error: no 'grade' in a puzzle: place your packets and 'play' "
                      "them ('answer' gives up and shows the best arrangement)",
                      f"error: neither {live[0]} nor {live[1]} is in a slot"]
    assert "Solved 3/3 stars: no arrangement does better" in out
    assert "The best arrangement: expected margin" in out  # puzzle 2 given up
    assert out.rstrip().endswith("Puzzles: 2, solved 1, 1 given up; stars 3 of 6, mean regret 0.00.")
    ran = play(tmp_path, ["puzzle", "--from", "store", "--seed", "20", "--count", "1"], f"play {worse.format()}\n")
    assert "Regret " in ran.stdout and "Try again" in ran.stdout and "The best arrangement:" not in ran.stdout
    ran = play(tmp_path, ["puzzle", "--from", "store", "--seed", "20", "--count", "1"],
               f"play {worse.format()}\nanswer\n")  # a miss, then the answer shown
    assert "The best arrangement:" in ran.stdout and "Puzzles: 1, solved 0; stars" in ran.stdout
    empty = tmp_path / "empty"
    empty.mkdir()
    ran = play(tmp_path, ["puzzle", "--from", "store", "--store", str(empty / "s.sqlite")])
    assert ran.returncode == 2 and "holds no solved deal" in ran.stderr and ran.stdout == ""
    assert parse_cards(live[0])  # the deal's cards are the puzzle's
