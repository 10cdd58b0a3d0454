"""Every benchmark script under benchmarks/ imports cleanly and parses its options (the scripts
run for minutes, so the suite only loads them: a renamed or moved helper shows here first)."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SCRIPTS = sorted(BENCHMARKS.glob("bench_*.py")) + sorted(BENCHMARKS.glob("profile_*.py"))


def load_benchmark(path: Path, name: str, monkeypatch: pytest.MonkeyPatch):
    """The script at ``path`` as a module (its helpers beside it importable)."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, module)  # dataclasses look their module up
    spec.loader.exec_module(module)  # the imports resolve
    return module


def test_there_are_benchmarks():
    assert len(SCRIPTS) >= 10


def test_the_manual_lists_every_benchmark():
    """docs/benchmarks.md has a row for every script (what it measures, its RESULTS section)."""
    listed = set(re.findall(r"^\| `([\w.]+\.py)` \|", (BENCHMARKS.parent / "docs" / "benchmarks.md").read_text(
        encoding="utf-8"), re.MULTILINE))
    assert {p.name for p in SCRIPTS} - listed == set()
    assert listed - {p.name for p in SCRIPTS} == set()  # and no row for a script that is gone


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_benchmark_loads_and_answers_help(path, monkeypatch, capsys):
    module = load_benchmark(path, f"benchmark_{path.stem}", monkeypatch)
    assert callable(module.main), f"{path.name} has no main()"
    monkeypatch.setattr(sys, "argv", [path.name, "--help"])
    with pytest.raises(SystemExit) as stop:
        module.main()
    assert stop.value.code == 0
    assert "usage:" in capsys.readouterr().out


def test_kmix_report_from_a_stopped_runs_lines(monkeypatch, capsys, tmp_path):
    """bench_kmix --report-log: the frontier table from the per-deal lines a run printed — per K
    the median and the worst over the classes (the example deal apart), nothing solved."""
    module = load_benchmark(BENCHMARKS / "bench_kmix.py", "benchmark_kmix_report", monkeypatch)
    log = tmp_path / "kmix.log"
    log.write_text(
        "0/3 Qc Jc Ts 9d 8h 7s 7h: equilibrium 0.0000 (105 arrangements, 9.4 s) | K1 6.000 K3 3.000 | 123 s cpu "
        "(baselines 2 s); CP-SAT {'confirmed': 3}\n"
        "a line of something else\n"
        "1/3 Ad Ac Kh Kc 9h 8s 8d: equilibrium 0.0000 (19 arrangements, 0.3 s) | K1 11.000 K3 1.205 | 35 s cpu "
        "(baselines 0 s)\n"
        "2/3 Kc Jh Jd Ts 9d 7s 7d: equilibrium 0.0010 (61 arrangements, 1.3 s) | K1 9.000 K3 3.417 | 110 s cpu "
        "(baselines 1 s)\n")
    monkeypatch.setattr(sys, "argv", ["bench_kmix.py", "--report-log", str(log), "--no-write"])
    module.main()
    out = capsys.readouterr().out
    assert "stopped after 2 of its 3 classes" in out
    assert "| 1 | 10.000 | 10.800 | 11.000 | 6.000 | 0 of 2 |" in out  # median of 11 and 9; the example apart
    assert "| 3 | 2.311 | 3.196 | 3.417 | 3.000 | 0 of 2 |" in out
    assert "| full (median 40, max 61 arrangements) | 0.0005 |" in out
    # the last class from another shard (``--first 3``): the joined lines make the whole run
    with log.open("a") as f:
        f.write("3/3 Ac Kd Jd Td 9d 8c 7c: equilibrium 0.0000 (13 arrangements, 0.3 s) | K1 6.000 K3 0.956 | 33 s cpu "
                "(baselines 0 s)\n")
    module.main()
    out = capsys.readouterr().out
    assert "run in shards (`--first`) over all 3 classes" in out and "stopped after" not in out
    assert "| 1 | 9.000 | 10.600 | 11.000 | 6.000 | 0 of 3 |" in out


def test_equilibrium_benchmark_on_deals_as_dealt(monkeypatch, capsys):
    """bench_equilibrium --population dealt: the deals of ``Deal.random_series`` after the
    example deal, reported as dealt, without the book's estimate (a cost of classes)."""
    from quintet.cards import format_cards
    from quintet.game import Deal

    module = load_benchmark(BENCHMARKS / "bench_equilibrium.py", "benchmark_equilibrium_dealt", monkeypatch)
    monkeypatch.setattr(sys, "argv", ["bench_equilibrium.py", "--population", "dealt", "--deals", "2", "--seed", "5",
                                      "--epsilon", "1", "--verify", "0", "--no-write"])
    module.main()
    out = capsys.readouterr().out
    for i, deal in enumerate(Deal.random_series(5, 2), start=1):
        assert f"{i}/2 {format_cards(deal.exposed)}: ε" in out
    assert "2 deals **dealt at random** (`Deal.random_series`, seed 5" in out
    assert "converged: 2 of 2" in out and "CPU-hours" not in out


def test_equilibrium_profile_times_every_part(monkeypatch, capsys, tmp_path):
    """profile_equilibrium's wrappers reach the globals the double oracle calls now: a moved
    engine call would leave its part at zero (or fail to install)."""
    import solver.advisor.equilibrium as eq_module
    import solver.games.double_oracle as do_module
    import solver.games.quintet_game as game_module
    from solver.games.quintet_game import QuintetGame

    for owner, name in ((eq_module, "solve"), (game_module, "solve"), (game_module, "improving_partitions"),
                        (do_module, "solve_symmetric_lp"), (QuintetGame, "payoffs"), (QuintetGame, "payoffs_against")):
        monkeypatch.setattr(owner, name, getattr(owner, name))  # the script wraps them: restored afterwards
    module = load_benchmark(BENCHMARKS / "profile_equilibrium.py", "benchmark_profile", monkeypatch)
    jsonl = tmp_path / "profile.jsonl"
    monkeypatch.setattr(sys, "argv", ["profile_equilibrium.py", "--deals", "2", "--epsilon", "0.5",
                                      "--jsonl", str(jsonl), "--no-write"])
    module.main()
    assert "The 2 slowest classes:" in capsys.readouterr().out
    rows = [json.loads(line) for line in jsonl.read_text().splitlines()]
    assert len(rows) == 2
    for row in rows:
        assert row["converged"] and row["iterations"] >= 2, row
        assert row["first_cpu"] > 0 and row["exact_calls"] >= 1 and row["exact_cpu"] > 0, row
        assert row["lp_calls"] >= row["iterations"] and row["lp_cpu"] > 0 and row["payoffs_cpu"] > 0, row
        assert row["cheap_calls"] >= 1 and row["working_max"] >= row["support_max"] >= 1, row
        parts = row["first_cpu"] + row["exact_cpu"] + row["cheap_cpu"] + row["lp_cpu"] + row["payoffs_cpu"]
        assert parts <= row["cpu"] + 1e-6, row
