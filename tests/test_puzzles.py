"""The shipped puzzle set, the player's rating and the progress kept (``solver.play.puzzle_set``,
``solver.play.puzzle``): entries re-graded by the exact engine (a sample here; in the slow tier
every one checked against its mix and a seeded sample of 60 proven again), the rating's formula
over a grid of its inputs, the set served by ``GET /api/puzzles`` near the player's rating with
an empty store (the themes only with the answer), a rated answer over HTTP, and ``quintet-play
puzzle`` on a fresh install — through stdin and in tmux (a miss, a retry, the
progress kept)."""

from __future__ import annotations

import collections
import itertools
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import pytest
from programs import child_pids, run_main, still_running
from test_play import ROOT, env_for, fits
from tmux_pane import Pane

from quintet.game import Arrangement, Deal
from quintet.rules import get_rules
from quintet.symmetry import canonical_exposed
from solver.advisor.advice import best_response, best_response_problem
from solver.advisor.limits import DEFAULTS, RANGES, RATING_MAX, RATING_MIN, START_RATING
from solver.advisor.schema import PuzzleProgressOut, PuzzleResultOut, PuzzleSetOut
from solver.apps.play_cli import main as play_main
from solver.play.make_puzzles import main as make_puzzles
from solver.play.puzzle import NEAREST, PuzzleError, draw_puzzle, load_puzzle, pick_set_puzzle
from solver.play.puzzle_set import (
    GREEDY_MARGIN,
    MISTAKE_MARGIN,
    SET_FILE,
    THEMES_BY_NAME,
    Progress,
    ProgressError,
    analyse,
    elo_ratings,
    entry_mix,
    expected_score,
    k_factor,
    puzzle_set,
    rate,
    score_of,
)
from solver.problem.best_response import VALUE_TOLERANCE
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import greedy_arrangement

CLASSIC = get_rules("classic")
SHIPPED = puzzle_set()


# ----------------------------------------------------------------------------- the set


def test_the_set_ships_as_package_data_in_one_shape():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "data/*.json" in pyproject["tool"]["setuptools"]["package-data"]["solver.play"]
    path = ROOT / "solver" / "play" / "data" / SET_FILE
    assert PuzzleSetOut.model_validate_json(path.read_text()) == SHIPPED  # the one shape, nothing else
    assert len(SHIPPED.puzzles) >= 200 and SHIPPED.rules == "classic"  # 208 made in the time the machine gave
    for run in SHIPPED.runs:  # every run that wrote it, at a clean commit, continuing the last
        assert run.command.startswith("python -m solver.play.make_puzzles") and "dirty" not in run.commit
    assert all(r.first_seed == q.next_seed and "--resume" in r.command for q, r in itertools.pairwise(SHIPPED.runs))
    assert sum(r.kept for r in SHIPPED.runs) == len(SHIPPED.puzzles)
    seeds = [r for r in SHIPPED.runs if r.scanned]
    assert all(any(r.first_seed <= p.seed < r.next_seed for r in seeds) for p in SHIPPED.puzzles)
    assert SHIPPED.greedy_margin == GREEDY_MARGIN and SHIPPED.mistake_margin == MISTAKE_MARGIN
    assert [p.number for p in SHIPPED.puzzles] == list(range(1, len(SHIPPED.puzzles) + 1))
    assert len({p.exposed for p in SHIPPED.puzzles}) == len(SHIPPED.puzzles)  # each deal once
    for p in SHIPPED.puzzles:
        assert p.proven and p.themes and 800 <= p.rating <= 2200, p.number
        assert all(t in THEMES_BY_NAME for t in p.themes) and len(set(p.themes)) == len(p.themes), p.number
        assert p.optimum - p.greedy >= GREEDY_MARGIN - 1e-6 and p.optimum - p.mistake.value >= MISTAKE_MARGIN - 1e-6
    ratings = sorted(p.rating for p in SHIPPED.puzzles)
    assert ratings[0] < START_RATING < ratings[-1]  # a scale around a new player's rating
    main = collections.Counter(p.themes[0] for p in SHIPPED.puzzles)  # the teaching points vary
    assert len(main) >= 6 and max(main.values()) <= 0.4 * len(SHIPPED.puzzles), main


def test_every_theme_is_named_in_the_manual():
    manual = " ".join((ROOT / "docs" / "play.md").read_text().split())  # lines joined: a name may wrap
    for name in THEMES_BY_NAME:
        assert f'"{name}"' in manual or name.startswith("sacrifice slot"), name
    assert '"sacrifice slot 2" to "sacrifice slot 5"' in manual


def regraded(number: int, *, prove: bool = True) -> None:
    """The set's puzzle ``number`` re-solved: the exact engine proves the shipped optimum (unless
    not ``prove``: the cheap check), the shipped answer reaches it, and the analysis (greedy's
    value, the miss, the themes) is the data's."""
    entry = SHIPPED.puzzles[number - 1]
    deal = Deal.from_exposed(entry.exposed)
    assert deal.exposed == canonical_exposed(Deal.random(entry.seed).exposed)[0]  # the seed's deal
    mix = entry_mix(entry)
    if prove:
        best = best_response(deal, mix)
        assert best.optimal and best.value == pytest.approx(entry.optimum, abs=1e-6), number
    problem = best_response_problem(deal, mix)
    tables = problem.tables
    shipped = Arrangement.parse(entry.best)
    assert problem.value_of([tables.index_of(p) for p in shipped.packets]) == pytest.approx(entry.optimum, abs=1e-6)
    mistake = Arrangement.parse(entry.mistake.arrangement)
    assert problem.value_of([tables.index_of(p) for p in mistake.packets]) == pytest.approx(entry.mistake.value,
                                                                                             abs=1e-6)
    greedy = greedy_arrangement(DealTables.build(deal))
    assert problem.value_of([tables.index_of(p) for p in greedy.packets]) == pytest.approx(entry.greedy, abs=1e-6)
    a = analyse(deal, mix, shipped)
    assert list(a.themes) == entry.themes and a.teaches and a.near == entry.near, number


@pytest.mark.parametrize("number", sorted({1, 2, len(SHIPPED.puzzles) // 2, len(SHIPPED.puzzles)}))
def test_a_sample_of_the_set_regrades_to_its_shipped_answer(number):
    regraded(number)


SLOW_SAMPLE = 60
"""The puzzles the slow tier proves again (a fixed, seeded sample: all of them take minutes)."""


@pytest.mark.slow
def test_every_puzzle_of_the_set_checks_and_a_sample_regrades_to_its_shipped_answer():
    numbers = [e.number for e in SHIPPED.puzzles]
    sample = set(random.Random(20261205).sample(numbers, min(SLOW_SAMPLE, len(numbers))))
    for number in numbers:
        regraded(number, prove=number in sample)


# ----------------------------------------------------------------------------- the rating


def test_the_rating_moves_as_elo_says_over_a_grid_of_its_inputs():
    players = [RATING_MIN, 600.0, 1200.0, 1500.0, 1499.9, 1900.0, 2600.0, RATING_MAX]
    puzzles = [800, 1100, 1500, 1800, 2200]
    for player in players:
        for puzzle in puzzles:
            e = expected_score(player, puzzle)
            assert 0 < e < 1 and e + expected_score(puzzle, player) == pytest.approx(1)
            for games in (0, 1, 5, 8, 40, 1000):
                k = k_factor(games)
                assert 16 < k <= 64 and (games == 0 or k < k_factor(games - 1))
                moves = [rate(player, games, puzzle, score) for score in (0.0, 0.5, 1.0)]
                for score, r in zip((0.0, 0.5, 1.0), moves, strict=True):
                    assert RATING_MIN <= r.after <= RATING_MAX and r.games == games + 1 and r.before == player
                    unclamped = player + k * (score - e)
                    assert r.after == pytest.approx(min(max(unclamped, RATING_MIN), RATING_MAX), abs=0.5)
                    assert r.after.is_integer() and r.change == round(r.after - r.before)  # whole points
                assert moves[0].after <= moves[1].after <= moves[2].after  # a better score, a higher rating
                assert moves[0].change <= 0 <= moves[2].change
    assert rate(1500.0, 0, 1500, 1.0).after == 1532.0 and rate(1500.0, 0, 1500, 0.0).after == 1468.0
    assert rate(1500.0, 100, 1500, 1.0).change < rate(1500.0, 0, 1500, 1.0).change  # settles with games
    assert [score_of(s, False) for s in (0, 1, 2, 3)] == [0, 0, 0.5, 1] and score_of(3, True) == 0
    assert DEFAULTS["START_RATING"].value == START_RATING and RANGES["rating"].check(START_RATING) == START_RATING


def test_a_resume_keeps_the_set_and_records_its_run(tmp_path):
    out = tmp_path / SET_FILE
    out.write_text((ROOT / "solver" / "play" / "data" / SET_FILE).read_text())
    ran = run_main(make_puzzles, ["--resume", "--budget", "0", "--allow-dirty", "--out", str(out)])
    assert ran.returncode == 0, ran.stderr
    again = PuzzleSetOut.model_validate_json(out.read_text())
    assert again.puzzles == SHIPPED.puzzles  # re-analysed and re-ranked: the same
    assert again.complete == (len(SHIPPED.puzzles) >= 300)  # complete when it holds --count (300) puzzles
    assert again.runs[:-1] == SHIPPED.runs
    run = again.runs[-1]
    assert run.first_seed == run.next_seed == SHIPPED.runs[-1].next_seed and run.scanned == run.kept == 0
    assert run.command == f"python -m solver.play.make_puzzles --resume --budget 0 --allow-dirty --out {out}"
    bad = run_main(make_puzzles, ["--resume", "--seed", "5", "--allow-dirty", "--out", str(out)])
    assert bad.returncode == 2 and "--seed starts a new set" in bad.stderr
    missing = run_main(make_puzzles, ["--resume", "--allow-dirty", "--out", str(tmp_path / "none.json")])
    assert missing.returncode == 2 and "no set at" in missing.stderr


def test_elo_ratings_follow_the_difficulty_order():
    difficulties = [3.0, 1.0, 2.0, 2.0, 5.0, 0.5, 4.0, 9.0]
    ratings = elo_ratings(difficulties)
    for a, ra in zip(difficulties, ratings, strict=True):
        for b, rb in zip(difficulties, ratings, strict=True):
            assert (a < b) <= (ra <= rb) and (a == b) <= (ra == rb)
    assert all(r % 10 == 0 and 800 <= r <= 2200 for r in ratings) and elo_ratings([1.0]) == [1500]


def test_the_progress_is_kept_in_a_file(tmp_path):
    path = tmp_path / "sub" / "puzzles.json"
    assert Progress.load(path) == Progress(START_RATING, 0, (), ())
    p = Progress().after(7, rate(1500.0, 0, 1600, 1.0)).after(3, rate(1500.0, 1, 1400, 0.0))
    assert p.solved == (7,) and p.missed == (3,) and p.games == 2
    p = p.after(3, rate(p.rating, p.games, 1400, 1.0))  # solved later: moved to the solved
    assert p.solved == (3, 7) and p.missed == () and p.games == 3
    p.save(path)
    assert Progress.load(path) == p
    assert PuzzleProgressOut.model_validate_json(path.read_text()).kind == "puzzle-progress"
    path.write_text('{"kind": "puzzle-progress", "rating": "high"}')
    with pytest.raises(ProgressError, match="not a puzzle progress file"):
        Progress.load(path)


# ----------------------------------------------------------------------------- drawing and grading


def test_a_set_puzzle_is_drawn_near_the_rating_and_graded_with_it():
    for rating in (900.0, START_RATING, 2100.0):
        nearest = sorted(abs(p.rating - rating) for p in SHIPPED.puzzles)[min(NEAREST, len(SHIPPED.puzzles)) - 1]
        for seed in range(5):
            pz = pick_set_puzzle(CLASSIC, seed, rating=rating)
            assert pz.source == "set" and abs(pz.rating - rating) <= nearest
            assert pz == pick_set_puzzle(CLASSIC, seed, rating=rating)  # a seed, a puzzle
    picked = {pick_set_puzzle(CLASSIC, s).number for s in range(30)}
    left = pick_set_puzzle(CLASSIC, 0, exclude=frozenset(picked))
    assert left.number not in picked  # the solved are left out while others remain
    with pytest.raises(PuzzleError, match="shipped puzzles are of the rules 'classic'"):
        pick_set_puzzle(get_rules("draw36"), 1)
    with pytest.raises(PuzzleError, match="source is set or store"):
        draw_puzzle(None, CLASSIC, 1, source="bogus")
    pz = pick_set_puzzle(CLASSIC, 3)
    entry = SHIPPED.puzzles[pz.number - 1]
    assert pz.themes == tuple(entry.themes) and pz.exploitability == entry.optimum and pz.count == len(SHIPPED.puzzles)
    solved = pz.grade(entry.best, player=(1500.0, 0))
    assert solved.solved and solved.rating is not None and solved.rating.after > 1500
    miss = pz.grade(entry.mistake.arrangement, player=(1500.0, 0))
    assert not miss.solved and miss.grade.regret >= MISTAKE_MARGIN - VALUE_TOLERANCE and miss.rating.after < 1500
    assert pz.grade(entry.mistake.arrangement).rating is None  # a retry: no player, no rating
    out = PuzzleResultOut.model_validate(miss.to_dict())
    assert out.rating.puzzle == entry.rating and "rating" not in pz.grade(entry.best).to_dict()
    greedy = pick_set_puzzle(CLASSIC, 3, "greedy")
    assert greedy.deal == pz.deal and greedy.rating is None and greedy.themes == ()  # unrated against another model
    assert greedy.grade(entry.best, player=(1500.0, 0)).rating is None


def test_a_set_puzzle_loads_by_its_deal_without_a_store(tmp_path):
    from solver.storage.store import SolutionStore
    entry = SHIPPED.puzzles[0]
    with SolutionStore(tmp_path / "empty.sqlite") as store:
        pz = load_puzzle(store, Deal.from_exposed(entry.exposed))
    assert pz.source == "set" and pz.number == 1 and pz.rating == entry.rating and pz.seed is None


# ----------------------------------------------------------------------------- over HTTP


@pytest.mark.server  # the application with its worker
def test_the_set_over_http_with_an_empty_store(tmp_path):
    from fastapi.testclient import TestClient

    from solver.apps.serve.app import create_app
    from solver.apps.serve.state import ServeConfig
    with TestClient(create_app(ServeConfig(workers=1, store=tmp_path / "empty.sqlite", warm_up=False)),
                    base_url="http://localhost") as c:
        out = c.get("/api/puzzles?seed=4&rating=2000").json()
        assert out == pick_set_puzzle(CLASSIC, 4, rating=2000.0).to_dict()
        entry = SHIPPED.puzzles[out["number"] - 1]
        assert "themes" not in out and not any(t in json.dumps(out) for t in THEMES_BY_NAME)  # no spoiler
        body = {"exposed": out["exposed"], "arrangement": entry.mistake.arrangement}
        graded = c.post("/api/puzzles/grade", json=body | {"player": {"rating": 2000, "games": 3}})
        assert graded.status_code == 200, graded.text
        change = graded.json()["rating"]
        assert change == rate(2000.0, 3, entry.rating, 0.0).to_model().model_dump()
        assert graded.json()["themes"] == [{"name": t, "about": THEMES_BY_NAME[t].about} for t in entry.themes]
        assert "rating" not in c.post("/api/puzzles/grade", json=body).json()  # a retry
        given_up = c.post("/api/puzzles/grade", json={**body, "arrangement": None,
                                                      "player": {"rating": 1500, "games": 0}}).json()
        assert given_up["given_up"] and given_up["rating"]["score"] == 0
        assert given_up["grade"]["best"]["expected_margin"] == pytest.approx(entry.optimum, abs=1e-6)
        excluded = ",".join(str(n) for n in range(2, len(SHIPPED.puzzles) + 1))
        assert c.get(f"/api/puzzles?seed=1&exclude={excluded}").json()["number"] == 1
        for query, status in [("source=bogus", 422), ("rating=5000", 422), ("exclude=1;2", 422)]:
            assert c.get(f"/api/puzzles?{query}").status_code == status, query
        store = c.post("/api/puzzles/grade", json=body | {"source": "store"})  # the set's deal, not the store's
        assert store.status_code == 400 and "not one of the store's solved deals" in store.json()["error"]
        bad = c.post("/api/puzzles/grade", json=body | {"player": {"rating": 1500, "games": -1}})
        assert bad.status_code == 422 and "games" in bad.json()["error"]


# ----------------------------------------------------------------------------- the terminal


def play(tmp_path: Path, argv: list[str], stdin: str = ""):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
        patch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        patch.setenv("QUINTET_STORE", str(tmp_path / "store.sqlite"))
        return run_main(play_main, argv, stdin)


def test_quintet_play_puzzle_on_a_fresh_install_is_rated_and_kept(tmp_path):
    pz = pick_set_puzzle(CLASSIC, 11)
    entry = SHIPPED.puzzles[pz.number - 1]
    ran = play(tmp_path, ["puzzle", "--seed", "11", "--count", "1"],
               f"play {entry.mistake.arrangement}\nplay {entry.best}\n")  # a miss, then a retry that solves
    assert ran.returncode == 0, ran.stderr
    out = ran.stdout
    assert "Training: 1 puzzle, seed 11; your rating 1500." in out
    assert f"Puzzle 1 of 1, seed 11: puzzle {pz.number} of the {pz.count} shipped, rated {pz.rating} (you: 1500)." \
        in out
    miss = rate(1500.0, 0, pz.rating, 0.0)
    assert f"Rating 1500 → {miss.after:.0f} ({miss.change:+.0f}; the puzzle {pz.rating}" in out
    assert "Try again: change your packets and answer" in out and "puzzle 1, try 2 (0/5 placed)>" in out
    assert out.index("Try again") < out.index("Solved") and "The best arrangement:" not in out
    themes = "; ".join(f"{t} — {THEMES_BY_NAME[t].about}" for t in entry.themes)
    assert f"Themes: {themes}." in out and not any(t in out[:out.index("Solved")] for t in THEMES_BY_NAME)
    first = pz.grade(entry.mistake.arrangement)
    assert out.rstrip().endswith(f"Puzzles: 1, solved 0 (and 1 on a retry); stars {first.stars} of 3, mean regret "
                                 f"{first.grade.regret:.2f}. Rating 1500 → {miss.after:.0f}.")
    assert not re.search(r"[Rr]ating \d+\.\d|→ \d+\.\d|\(you: \d+\.", out)  # whole points only
    kept = tmp_path / "data" / "quintet" / "puzzles.json"
    assert Progress.load(kept) == Progress(miss.after, 1, (), (pz.number,))
    again = play(tmp_path, ["puzzle", "--seed", "11", "--count", "1"], "answer\n")  # the rating read back
    assert f"your rating {miss.after:.0f}." in again.stdout and "The best arrangement:" in again.stdout
    assert Progress.load(kept).games == 2
    Progress(1512.34, 2).save(kept)  # a rating kept with decimals (an older version's) shows whole
    legacy = play(tmp_path, ["puzzle", "--seed", "11", "--count", "1"], "answer\n").stdout
    assert "your rating 1512." in legacy and "(you: 1512)" in legacy and "Rating 1512 → " in legacy
    assert not re.search(r"[Rr]ating \d+\.\d|→ \d+\.\d|\(you: \d+\.", legacy)
    none = play(tmp_path, ["puzzle", "--seed", "11", "--count", "1", "--no-progress"], "answer\n")
    assert "your rating 1500." in none.stdout and Progress.load(kept).games == 3
    kept.write_text("{}")
    bad = play(tmp_path, ["puzzle", "--count", "1"])
    assert bad.returncode == 2 and "not a puzzle progress file" in bad.stderr and bad.stdout == ""
    assert len(bad.stderr.strip().splitlines()) == 1


@pytest.mark.tmux
def test_a_rated_puzzle_in_tmux_on_a_fresh_install(tmp_path):
    pz = pick_set_puzzle(CLASSIC, 5)
    entry = SHIPPED.puzzles[pz.number - 1]
    env = env_for(tmp_path)
    with Pane(tmp_path, [sys.executable, "-m", "solver.apps.play_cli", "puzzle", "--seed", "5", "--count", "1"],
              width=80, height=40, cwd=ROOT, env={k: env[k] for k in ("XDG_CACHE_HOME", "XDG_DATA_HOME",
                                                                       "QUINTET_STORE")}) as pane:
        pane.wait_for(f"rated {pz.rating} (you: 1500)")
        pane.wait_for("puzzle 1 (0/5 placed)>")
        pane.enter(f"play {entry.mistake.arrangement}")
        pane.wait_for("Try again: change your packets and answer")
        missed = pane.wait_for("puzzle 1, try 2 (0/5 placed)>")
        assert "Themes" not in missed and entry.themes[0] not in missed  # not before the answer
        pane.enter("answer")
        shown = pane.wait_for(f"Themes: {entry.themes[0]} — ")
        assert "The best arrangement: expected margin" in shown and "Rating 1500 → " in shown
        fits(pane, 80)
        assert "EXIT=0" in pane.wait_for("EXIT=")
    kept = json.loads((Path(env["XDG_DATA_HOME"]) / "quintet" / "puzzles.json").read_text())
    assert kept["games"] == 1 and kept["missed"] == [pz.number]


@pytest.mark.subprocess
def test_ctrl_c_keeps_the_puzzles_found_and_resume_goes_on(tmp_path):
    """Ctrl-C (SIGINT to the process group, as a terminal sends it) once a deal has been solved:
    the set so far is written (marked incomplete, its run ending after the last deal scanned),
    exit 130 without a traceback, no worker left behind; ``--resume`` then continues that file."""
    out = tmp_path / SET_FILE
    cmd = [sys.executable, "-m", "solver.play.make_puzzles", "--seed", "5", "--eq-time", "5", "--br-time", "5",
           "--allow-dirty", "--out", str(out)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            cwd=ROOT)
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline()]
        assert "dealing from seed 5" in lines[0], lines
        while not lines[-1].startswith("seed "):  # a worker has solved a deal
            lines.append(proc.stdout.readline())
            assert lines[-1], (lines, proc.stderr.read() if proc.stderr else "")
        workers = child_pids(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        rest, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130 and "Traceback" not in err, err
    stored = PuzzleSetOut.model_validate_json(out.read_text())
    assert not stored.complete and len(stored.runs) == 1
    run = stored.runs[0]
    assert run.first_seed == 5 and run.kept == len(stored.puzzles) <= run.scanned <= run.next_seed - 5
    assert f"interrupted: --resume deals on from seed {run.next_seed}" in rest.splitlines()[-1]
    time.sleep(1)
    assert not still_running(workers)
    again = run_main(make_puzzles, ["--resume", "--budget", "0", "--allow-dirty", "--out", str(out)])
    assert again.returncode == 0, again.stderr
    resumed = PuzzleSetOut.model_validate_json(out.read_text())
    assert resumed.puzzles == stored.puzzles and resumed.runs[-1].first_seed == run.next_seed


def test_make_puzzles_refuses_a_bad_command_line_in_one_line(tmp_path):
    for argv, named in ((["--workers", "0"], "--workers"), (["--count", "-1"], "--count"),
                        (["--eq-time", "nan"], "--eq-time"), (["--seed", "x"], "--seed"),
                        (["--budget", "-1"], "--budget")):
        ran = run_main(make_puzzles, [*argv, "--allow-dirty", "--out", str(tmp_path / SET_FILE)])
        assert ran.returncode == 2 and named in ran.stderr and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert not (tmp_path / SET_FILE).exists()
