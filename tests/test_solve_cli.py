"""`quintet-solve` (solver.apps.solve_cli) end to end, in this process (``programs.run_main``); the
installed entry point in a subprocess once."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import brute
import numpy as np
import pytest
from deals import EXAMPLE
from programs import Ran, run_main

from quintet.cards import parse_cards
from quintet.game import Arrangement, Deal
from quintet.rules import get_rules
from solver.apps.solve_cli import main
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import greedy_arrangement

ROOT = Path(__file__).resolve().parent.parent
TOL = 1e-9
ARR_A = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"
ARR_B_PRINTED = "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc 8c"
CARD_RE = re.compile(r"^[789TJQKA][cdhs]$")


def run(*args: str) -> Ran:
    """quintet-solve with ``args``; these tests are about best responses, so the opponent is
    ``uniform`` unless given (the CLI's default is the equilibrium)."""
    if "--opponent" not in args:
        args = (*args, "--opponent", "uniform")
    return run_main(main, args)


def run_json(*args: str) -> dict:
    proc = run(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def packets_of(card_lists) -> tuple[int, ...]:
    return tuple(brute.mask_of_cards(parse_cards(" ".join(p))) for p in card_lists)


def check_solution_json(d: dict, deal: Deal, opponent, objective: str) -> tuple[int, ...]:
    for key in (
        "exposed",
        "live",
        "opponent",
        "objective",
        "arrangement",
        "hands",
        "expected_margin",
        "expected_points",
        "per_slot",
        "optimal",
        "bound",
        "seconds",
    ):
        assert key in d, key
    assert d["objective"] == objective
    assert set(parse_cards(" ".join(d["exposed"]))) == set(brute.cards_of_mask(deal.exposed))
    assert set(parse_cards(" ".join(d["live"]))) == set(brute.cards_of_mask(deal.live))
    assert len(d["arrangement"]) == 5
    for packet in d["arrangement"]:
        assert len(packet) == 5
        assert all(isinstance(c, str) and CARD_RE.match(c) for c in packet), packet
    packets = packets_of(d["arrangement"])
    assert brute.is_legal(packets, deal)
    assert len(d["hands"]) == 5 and all(isinstance(h, str) and h for h in d["hands"])
    margin = brute.direct_value(deal, opponent, packets, "margin")
    points = brute.direct_value(deal, opponent, packets, "points")
    assert d["expected_margin"] == pytest.approx(margin, abs=TOL)
    assert d["expected_points"] == pytest.approx(points, abs=TOL)
    value = d["expected_margin"] if objective == "margin" else d["expected_points"]
    assert d["bound"] >= value - 1e-12
    assert isinstance(d["optimal"], bool)
    assert d["seconds"] >= 0
    assert len(d["per_slot"]) == 5
    for s, slot in enumerate(d["per_slot"]):
        assert slot["p_win"] + slot["p_tie"] + slot["p_loss"] == pytest.approx(1.0, abs=1e-12)
        assert min(slot["p_win"], slot["p_tie"], slot["p_loss"]) >= 0
        assert packets_of([slot["cards"]])[0] == packets[s]
    return packets


@pytest.fixture(scope="module")
def example_json() -> dict:
    return run_json(EXAMPLE)


def test_one_argument_and_seven_arguments_agree(example_json):
    seven = run_json(*EXAMPLE.split())
    other_order = run_json(*reversed(EXAMPLE.split()))
    for d in (seven, other_order):
        for key in ("seconds", "stats"):
            d.pop(key, None)
    one = dict(example_json)
    for key in ("seconds", "stats"):
        one.pop(key, None)
    assert one == seven == other_order


def test_example_json_is_legal_and_its_value_is_true(example_json):
    deal = Deal.from_exposed(EXAMPLE)
    check_solution_json(example_json, deal, [(brute.UNIFORM, 1.0)], "margin")
    assert example_json["optimal"] is True
    assert example_json["opponent"] == "uniform"
    assert example_json["bound"] == pytest.approx(example_json["expected_margin"], abs=TOL)
    # CP-SAT's best on this deal against uniform, first measured: 24.8669 (bound 24.9683)
    assert example_json["expected_margin"] >= 24.8669 - 1e-4


@pytest.mark.parametrize("seed", [91, 92])
def test_random_deal_greedy_points_with_half_ties(seed):
    deal = brute.random_deal(np.random.default_rng(seed), get_rules("classic", tie_points=0.5))
    exposed = " ".join(deal.format().split())
    d = run_json(
        exposed,
        "--opponent",
        "uniform:0.3,greedy:0.7",
        "--objective",
        "points",
        "--tie-points",
        "0.5",
    )
    g = greedy_arrangement(DealTables.build(deal))
    check_solution_json(d, deal, [(brute.UNIFORM, 0.3), (g, 0.7)], "points")
    assert d["optimal"] is True


@pytest.mark.subprocess
def test_the_installed_entry_point_runs():
    script = Path(sys.executable).with_name("quintet-solve")
    exe = str(script) if script.exists() else shutil.which("quintet-solve")
    assert exe is not None, "the quintet-solve console script is not installed next to this python"
    proc = subprocess.run([exe, EXAMPLE, "--opponent", "uniform", "--json"], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["optimal"] is True


def test_text_output():
    proc = run(EXAMPLE)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    out = proc.stdout
    assert "optimal" in out and "uniform" in out
    for hand in ("four aces", "four kings"):
        assert hand in out


def test_a_grade_signs_its_values_and_words_the_swap_as_the_terminal_does():
    """One signed formatter (no -0.0000) and one way to word a swap's worth (``Swap.change``):
    quintet-solve's four digits, the game's two."""
    from quintet.terminal import Terminal
    from solver.advisor.advice import grade
    from solver.apps.play_views import swap_text

    out = run(EXAMPLE, "--grade", ARR_A).stdout
    assert "Value +23.3783; optimum +24.8669; regret 1.4887" in out
    assert "Best two-card swap: Tc (slot 2) ↔ Qs (slot 4) → +23.4022 (+0.0239)" in out
    g = grade(Deal.from_exposed(EXAMPLE), ARR_A, "uniform")
    assert g.best_swap is not None
    term = Terminal(colour=False, unicode=False, line_editing=False)
    with term.console.capture() as captured:
        term.console.print(swap_text(term, g.best_swap, g.given.value, g.given.deal.rules, command=False))
    assert captured.get().strip().endswith("(slot 4) -> +23.40 (+0.02).")


def test_fix_keeps_the_packet_and_is_optimal():
    deal = Deal.from_exposed(EXAMPLE)
    fixes = {5: "Ah Kh Qh Jh Th", 1: "As Ad Ac Ks 7c", 3: "9s 9c 9h 8s 8d"}
    args = [EXAMPLE]
    for slot, packet in fixes.items():
        args += ["--fix", f"{slot}={packet}"]
    d = run_json(*args)
    packets = check_solution_json(d, deal, [(brute.UNIFORM, 1.0)], "margin")
    fixed = [None] * 5
    for slot, packet in fixes.items():
        mask = brute.mask_of_cards(parse_cards(packet))
        assert packets[slot - 1] == mask
        fixed[slot - 1] = mask
    masks, pv = brute.packet_values(deal, [(brute.UNIFORM, 1.0)], "margin")
    best, _ = brute.brute_best(deal, masks, pv, fixed)
    assert d["optimal"] is True
    assert d["expected_margin"] == pytest.approx(best, abs=TOL)


def test_grade_json():
    deal = Deal.from_exposed(EXAMPLE)
    d = run_json(EXAMPLE, "--grade", ARR_A)
    for key in ("value", "optimum", "regret", "best_swap"):
        assert key in d
    value = brute.direct_value(deal, [(brute.UNIFORM, 1.0)], Arrangement.parse(ARR_A))
    assert d["value"] == pytest.approx(value, abs=TOL)
    assert d["regret"] == pytest.approx(d["optimum"] - d["value"], abs=TOL)
    assert d["regret"] > 0
    solve = run_json(EXAMPLE)
    assert d["optimum"] == pytest.approx(solve["expected_margin"], abs=TOL)
    if d["best_swap"] is not None:
        sw = d["best_swap"]
        new = packets_of(sw["arrangement"])
        assert brute.is_legal(new, deal)
        assert sw["value"] == pytest.approx(
            brute.direct_value(deal, [(brute.UNIFORM, 1.0)], new), abs=TOL
        )
        assert sw["value"] > d["value"]


def test_tiny_time_limit_still_answers():
    deal = brute.random_deal(np.random.default_rng(93))
    d = run_json(deal.format(), "--time-limit", "1e-6")
    check_solution_json(d, deal, [(brute.UNIFORM, 1.0)], "margin")


def test_population_opponent(tmp_path):
    deal = Deal.from_exposed(EXAMPLE)
    path = tmp_path / "pop.json"
    path.write_text(json.dumps([{"arrangement": ARR_A, "weight": 3}]), encoding="utf-8")
    d = run_json(EXAMPLE, "--opponent", f"population:{path}")
    check_solution_json(d, deal, [(Arrangement.parse(ARR_A), 1.0)], "margin")
    assert d["optimal"] is True


# --------------------------------------------------------------------------------------
# bad input: one line on stderr, exit 2, no traceback
# --------------------------------------------------------------------------------------


def _illegal_population(tmp_path: Path) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps([ARR_A, ARR_B_PRINTED]), encoding="utf-8")
    return path


BAD_INPUTS = {
    "six cards": ["8h 7h 9d Ts 7s Qc"],
    "eight cards": ["8h 7h 9d Ts 7s Qc Jc Ac"],
    "six args": EXAMPLE.split()[:6],
    "duplicate": ["8h 7h 9d Ts 7s Qc 8h"],
    "two of hearts": ["8h 7h 9d Ts 7s Qc 2h"],
    "garbage": ["hello world"],
    "garbage token": ["8h 7h 9d Ts 7s Qc ??"],
    "no cards": [],
    "unknown opponent": [EXAMPLE, "--opponent", "smart"],
    "bad weight": [EXAMPLE, "--opponent", "uniform:0,greedy:1"],
    "empty opponent": [EXAMPLE, "--opponent", ""],
    "missing population": [EXAMPLE, "--opponent", "population:/nonexistent/pop.json"],
    "unknown option": [EXAMPLE, "--frobnicate"],
    "bogus objective": [EXAMPLE, "--objective", "bogus"],
    "negative time limit": [EXAMPLE, "--time-limit", "-1"],
    "zero time limit": [EXAMPLE, "--time-limit", "0"],
    "text time limit": [EXAMPLE, "--time-limit", "soon"],
    "zero threads": [EXAMPLE, "--threads", "0"],
    "the old name of --threads": [EXAMPLE, "--workers", "2"],
    "fix slot 6": [EXAMPLE, "--fix", "6=Ah Kh Qh Jh Th"],
    "fix slot 0": [EXAMPLE, "--fix", "0=Ah Kh Qh Jh Th"],
    "fix no slot": [EXAMPLE, "--fix", "Ah Kh Qh Jh Th"],
    "fix exposed card": [EXAMPLE, "--fix", "1=Ah Kh Qh Jh 8h"],
    "fix four cards": [EXAMPLE, "--fix", "1=Ah Kh Qh Jh"],
    "fix twice": [EXAMPLE, "--fix", "1=Ah Kh Qh Jh Th", "--fix", "1=As Ks Qs Js 9s"],
    "fix overlap": [EXAMPLE, "--fix", "1=Ah Kh Qh Jh Th", "--fix", "2=Ah As Ad Ac Kc"],
    "grade illegal": [EXAMPLE, "--grade", ARR_B_PRINTED],
    "grade four packets": [
        EXAMPLE,
        "--grade",
        "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs",
    ],
    "grade with fix": [EXAMPLE, "--grade", ARR_A, "--fix", "1=9s 9c 8s 8c 7c"],
    "bad tie points": [EXAMPLE, "--tie-points", "0.7"],
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS) + ["illegal population"])
def test_bad_input_one_line_exit_2(case, tmp_path):
    if case == "illegal population":
        args = [EXAMPLE, "--opponent", f"population:{_illegal_population(tmp_path)}"]
    else:
        args = BAD_INPUTS[case]
    proc = run(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].strip()
    assert proc.stdout == ""
    if case == "illegal population":
        assert "arrangement 2" in lines[0] and "8c" in lines[0]
    if case == "two of hearts":
        assert "2h" in lines[0]
