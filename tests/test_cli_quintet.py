"""`quintet showdown` in this process (``programs.run_main``; the installed entry point once as a real
process): table, --json, and one-line input errors."""

from __future__ import annotations

import gc
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from deals import EXAMPLE as EXPOSED
from programs import Ran, run_main

from quintet.cli import main
from quintet.cliutil import UsageError, run_cli
from quintet.evaluator import hand_key

A_TEXT = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"
B_PRINTED = "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc 8c"
B_FIXED = "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc 9c"

EXPECTED_SLOTS = [  # docs/rules.md's worked example: (points, A's hand name, B's hand name, winner)
    (3, "two pair, nines and eights", "full house, aces over eights", "B"),
    (4, "three kings", "flush, king high", "B"),
    (5, "flush, queen high", "straight flush, king high", "B"),
    (6, "four aces", "straight flush, ace high", "B"),
    (7, "straight flush, king high", "pair of sevens", "A"),
]
CATEGORIES = [  # machine names, as the JSON writes them
    ("two_pair", "full_house"),
    ("three_of_a_kind", "flush"),
    ("flush", "straight_flush"),
    ("four_of_a_kind", "straight_flush"),
    ("straight_flush", "pair"),
]


def run(*args: str) -> Ran:
    return run_main(main, args)


def showdown_args(exposed=EXPOSED, a=A_TEXT, b=B_FIXED, *extra: str) -> list[str]:
    return ["showdown", "--exposed", exposed, "--a", a, "--b", b, *extra]


# ------------------------------------------------------------------- output -----------


def test_table_output():
    proc = run(*showdown_args())
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1 + 5 + 1
    assert "slot" in lines[0] and "winner" in lines[0]
    for line, (points, name_a, name_b, winner) in zip(lines[1:6], EXPECTED_SLOTS, strict=True):
        fields = line.split()
        assert fields[1] == str(points)
        assert fields[-1] == winner
        assert f"({name_a})" in line and f"({name_b})" in line
        assert line.index(name_a) < line.index(name_b)
    assert lines[1].split()[0] == "1" and lines[5].split()[0] == "5"
    last = lines[-1]
    assert "A 7" in last and "B 18" in last and "B wins by 11" in last


def test_table_output_unicode():
    proc = run(*showdown_args(), "--unicode")
    assert proc.returncode == 0, proc.stderr
    assert "K♥ Q♥ J♥ 10♥ 9♥" in proc.stdout
    assert "B wins by 11" in proc.stdout


def test_table_columns_align_with_long_hand_names():
    # B's full houses with 10s are wider than any column width guessed in advance
    b = "Th Td Tc 7d 7c | Js Jh Jd 8s 8d | Qs Qh Qd 9s 9h | Ks Kh Kd Kc 8c | As Ah Ad Ac 9c"
    proc = run(*showdown_args(b=b), "--unicode")
    assert proc.returncode == 0, proc.stderr
    header, *rows, _ = proc.stdout.strip().splitlines()
    column_b, winner = header.index("B "), header.index("winner")
    assert len(rows) == 5 and "10♥ 10♦ 10♣ 7♦ 7♣ (full house, tens over sevens)" in rows[0]
    for row in rows:
        assert row[column_b - 2:column_b] == "  " and row[column_b] != " ", row
        assert row[winner - 2:winner] == "  " and row[winner:] in ("A", "B", "tie"), row


def test_json_output():
    proc = run(*showdown_args(), "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["kind"] == "showdown"
    assert sorted(data["exposed"]) == sorted(EXPOSED.split())
    assert "classic" in data["rules"] and "kickers" in data["rules_description"]
    assert data["points_a"] == 7 and data["points_b"] == 18
    assert data["margin"] == -11 and data["winner"] == "B"
    packets_a = [p.split() for p in A_TEXT.split("|")]
    packets_b = [p.split() for p in B_FIXED.split("|")]
    assert len(data["slots"]) == 5
    for i, s in enumerate(data["slots"]):
        points, name_a, name_b, winner = EXPECTED_SLOTS[i]
        assert s["slot"] == i + 1 and s["points"] == points
        assert s["winner"] == winner
        assert (s["points_a"], s["points_b"]) == ((points, 0) if winner == "A" else (0, points))
        assert sorted(s["a"]["cards"]) == sorted(packets_a[i])
        assert sorted(s["b"]["cards"]) == sorted(packets_b[i])
        assert (s["a"]["hand"], s["b"]["hand"]) == (name_a, name_b)
        assert (s["a"]["category"], s["b"]["category"]) == CATEGORIES[i]
        assert s["a"]["key"] == hand_key(" ".join(packets_a[i]))
        assert s["b"]["key"] == hand_key(" ".join(packets_b[i]))
        assert (s["a"]["key"] > s["b"]["key"]) == (winner == "A")


def test_json_rule_options():
    same = run(
        *showdown_args(EXPOSED, A_TEXT, A_TEXT.replace("|", "/")),
        "--json",
        "--tie-points",
        "0.5",
        "--tiebreak",
        "group-only",
    )
    assert same.returncode == 0, same.stderr
    data = json.loads(same.stdout)
    assert "group-only" in data["rules_description"]
    assert data["points_a"] == data["points_b"] == 12.5
    assert data["margin"] == 0 and data["winner"] is None
    assert all(s["winner"] is None for s in data["slots"])


def test_json_reports_rule_options():
    # No slot of the example changes under these options (B's flush still beats three kings,
    # B's full house still beats two pair): the rules text names them and 18:7 stands.
    proc = run(*showdown_args(), "--json", "--flush-over-full-house", "--ace-low-straight")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert "flush > full house" in data["rules_description"] and "A-low straight" in data["rules_description"]
    assert (data["points_a"], data["points_b"]) == (7, 18)


def test_help_documents_the_packet_separator():
    proc = run("showdown", "--help")
    assert proc.returncode == 0
    assert "'|'" in proc.stdout and "'/'" in proc.stdout


@pytest.mark.subprocess
def test_console_script_entry_point():
    script = Path(sys.executable).with_name("quintet")
    exe = str(script) if script.exists() else shutil.which("quintet")
    if exe is None:
        pytest.skip("the quintet console script is not installed next to this python")
    proc = subprocess.run(
        [exe, *showdown_args()], capture_output=True, text=True, encoding="utf-8", timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "B wins by 11" in proc.stdout


# ---------------------------------------------------------------- bad input -----------

BAD_INPUTS = {
    "malformed exposed card": (showdown_args("8h 7h 9d Ts 7s Qc J"), ["'J'"]),
    "unknown suit": (showdown_args("8h 7h 9d Ts 7s Qc Jx"), ["Jx"]),
    "unknown rank": (showdown_args("8h 7h 9d Ts 7s Qc 1c"), ["1c"]),
    "duplicate exposed card": (showdown_args("8h 7h 9d Ts 7s Qc 8h"), ["8h", "duplicate"]),
    "six exposed cards": (showdown_args("8h 7h 9d Ts 7s Qc"), ["7", "6"]),
    "eight exposed cards": (showdown_args("8h 7h 9d Ts 7s Qc Jc Ac"), ["7", "8"]),
    "2h not in the deck": (showdown_args("8h 7h 9d Ts 7s Qc 2h"), ["2h"]),
    "2h in an arrangement": (showdown_args(b=B_FIXED.replace("9c", "2h")), ["2h"]),
    "malformed card in an arrangement": (showdown_args(a=A_TEXT.replace("Qd", "Q")), ["'Q'"]),
    "illegal arrangement": (showdown_args(b=B_PRINTED), ["8c", "9c", "duplicated", "missing"]),
    "exposed card in an arrangement": (showdown_args(a=A_TEXT.replace("9h", "8h")), ["8h", "9h"]),
    "four packets": (showdown_args(a=A_TEXT.rsplit("|", 1)[0]), ["packets"]),
    "six packets": (showdown_args(a=A_TEXT + " | 9c"), ["packets"]),
    "packet of six cards": (
        showdown_args(a=A_TEXT.replace("Ac Qs | Kh", "Ac | Qs Kh")),
        ["packet 4", "packet 5"],
    ),
    "unknown option": (showdown_args() + ["--bogus"], ["--bogus"]),
    "missing --b": (["showdown", "--exposed", EXPOSED, "--a", A_TEXT], ["--b"]),
    "unknown subcommand": (["solve"], ["solve"]),
    "bad tiebreak": (showdown_args() + ["--tiebreak", "suits"], ["suits"]),
    "tie points out of range": (showdown_args() + ["--tie-points", "0.9"], ["0.9"]),
    "tie points not a number": (showdown_args() + ["--tie-points", "half"], ["half"]),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_input_one_line_exit_2(case):
    args, must_mention = BAD_INPUTS[case]
    proc = run(*args)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].strip(), "empty error line"
    assert proc.stdout == ""
    for word in must_mention:
        assert word in lines[0], (word, lines[0])


@pytest.mark.parametrize(
    "player,flag_args",
    [
        ("B", showdown_args(b=B_FIXED.replace("9c", "2h"))),
        ("A", showdown_args(a=A_TEXT.rsplit("|", 1)[0])),
    ],
)
def test_arrangement_notation_error_names_the_player(player, flag_args):
    # Both --a and --b take arrangements: a notation error must say whose it is, as the
    # validation errors do ("player B: illegal arrangement: ...").
    proc = run(*flag_args)
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert f"player {player}" in line or f"--{player.lower()}" in line, line


def test_only_a_process_own_command_line_freezes_its_objects_for_the_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    """run_cli freezes the objects out of the collector (a faster exit) when it runs the process's
    own command line (argv None), whatever the outcome, and never when called with arguments (the
    tests, an embedding program: their garbage must still be collected)."""
    calls: list[int] = []
    monkeypatch.setattr(gc, "freeze", lambda: calls.append(1))

    def bad(argv: object) -> int:
        raise UsageError("no such card 'Zz'")

    assert run_cli("quintet", lambda argv: 0, []) == 0
    assert run_cli("quintet", bad, ["Zz"]) == 2
    assert calls == []
    assert run_cli("quintet", lambda argv: 3, None) == 3
    assert run_cli("quintet", bad, None) == 2
    assert calls == [1, 1]


@pytest.mark.subprocess
def test_the_text_advice_does_not_load_the_response_models() -> None:
    """pydantic and the JSON response models are a large part of the imports: the
    command line loads them only for ``--json`` (``solver.advisor.schema`` is imported where the
    JSON is built)."""
    code = ("import sys, solver.apps.solve_cli; "
            "print(sorted(m for m in sys.modules if m == 'pydantic' or m == 'solver.advisor.schema'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
