"""Every benchmark script under benchmarks/ imports cleanly and parses its options (the scripts
run for minutes, so the suite only loads them: a renamed or moved helper shows here first)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
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


@pytest.mark.subprocess
@pytest.mark.parametrize(("script", "argv"), [
    ("bench_kmix.py", ["--recheck-time-limit", "0"]),
    ("bench_kmix.py", ["--ks", "1,2,x"]),
    ("bench_structure.py", ["--deals", "0"]),
    ("bench_security.py", ["--close-cpu", "-1"]),
    ("bench_book.py", ["--strata", "0"]),
    ("bench_convergence.py", ["--budget", "nan"]),
    ("bench_style_robustness.py", ["--records", "1,5,3"]),
    ("bench_soundness.py", ["--report", "no-such-sweep.jsonl"]),
], ids=lambda v: v if isinstance(v, str) else " ".join(v))
def test_a_bad_number_is_one_line_and_exit_2_before_any_work(script, argv):
    """The script run as a program: a bad value of a numeric option (or a missing input file) is
    one line on stderr naming the option, exit status 2, nothing on stdout and no traceback
    (before the run starts)."""
    env = dict(os.environ, PYTHONPATH=str(BENCHMARKS.parent))  # this tree's quintet, not an installed one
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), *argv], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and f"argument {argv[0]}: " in done.stderr, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


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


def test_convergence_counts_only_what_the_budget_allows(monkeypatch):
    """bench_convergence: a target reached after the CPU budget is not reached; the ε at the budget
    is the least certified within it."""
    module = load_benchmark(BENCHMARKS / "bench_convergence.py", "benchmark_convergence_budget", monkeypatch)
    trace = [(1, 0.5, 3.0), (2, 4.0, 0.04), (3, 30.0, 0.001)]
    assert module.first_reach(trace, 0.05, 20.0) == (2.0, 4.0)
    assert module.first_reach(trace, 0.005, 20.0) == (float("inf"), float("inf"))
    assert module.first_reach(trace, 0.005, 60.0) == (3.0, 30.0)
    assert module.at_budget(trace, 20.0) == 0.04
    assert module.at_budget(trace, 0.1) == module.TRIVIAL


def test_convergence_anytime_table_counts_lower_certified_eps(monkeypatch):
    """The anytime comparison: a win is the shipped method's lower ε at the budget (an ε reached
    after the budget does not count), equal ε a tie; the sign test sees wins and losses only."""
    module = load_benchmark(BENCHMARKS / "bench_convergence.py", "benchmark_convergence_anytime", monkeypatch)
    shipped = [[(1, 1.0, 0.02)], [(1, 1.0, 0.5)], [(1, 1.0, 0.1)], [(1, 1.0, 0.3)]]
    other = [[(1, 2.0, 0.05)], [(1, 2.0, 0.4), (2, 11.0, 0.0)], [(1, 1.0, 0.1)], [(1, 3.0, 0.9)]]
    records = [{"methods": {module.REFERENCE: {"trace": a}, "fp": {"trace": b}}}
               for a, b in zip(shipped, other, strict=True)]
    summary: dict = {}
    lines = module.anytime_table(records, ["fp"], 10.0, "test", summary)
    row = summary["anytime"][0]
    assert (row["wins"], row["losses"], row["ties"]) == (2, 1, 1), row
    assert row["p_holm"] == pytest.approx(1.0) and any("| 2 | 1 | 1 |" in line for line in lines)


def test_convergence_sensitivity_settings_reach_the_meta_solver(monkeypatch):
    """Each ``SENSITIVITY`` setting runs its meta-solver with its inner steps and Hedge's rate."""
    module = load_benchmark(BENCHMARKS / "bench_convergence.py", "benchmark_convergence_settings", monkeypatch)
    seen = []

    def fake_psro(game, initial, *, meta, inner, payoff_range, **_):
        seen.append((meta, inner, payoff_range))
        return SimpleNamespace(population=1, support=[0])

    monkeypatch.setattr(module, "psro", fake_psro)
    monkeypatch.setattr(module, "QuintetGame", lambda tables: None)
    for name, (meta, inner, rate) in module.SENSITIVITY.items():
        module.run_method(name, None, None, 1.0, 0.01)
        assert seen[-1] == (meta, inner, module.PAYOFF_RANGE / rate), name
    module.run_method("psro-hedge", None, None, 1.0, 0.01)
    assert seen[-1] == ("hedge", module.INNER_STEPS, module.PAYOFF_RANGE)


def test_convergence_gives_every_method_the_same_cpu_budget(monkeypatch, capsys, tmp_path):
    """bench_convergence at toy size (one deal, 1 CPU s per method): every method is stopped by the
    CPU budget (at most one iteration, the one running when it ran out, finishes past it), its
    certified ε never rises, and the report from the JSON lines pairs the shipped double oracle
    with every other method."""
    module = load_benchmark(BENCHMARKS / "bench_convergence.py", "benchmark_convergence_run", monkeypatch)
    jsonl, budget = tmp_path / "convergence.jsonl", 1.0
    monkeypatch.setattr(sys, "argv", ["bench_convergence.py", "--deals", "1", "--budget", str(budget),
                                      "--pool-sizes", "2", "--jsonl", str(jsonl), "--no-write"])
    module.main()
    capsys.readouterr()
    records = [r for r in map(json.loads, jsonl.read_text().splitlines()) if "methods" in r]
    assert len(records) == 1 and records[0]["population"] == "dealt" and records[0]["seed"] == 4000
    methods = records[0]["methods"]
    assert list(methods) == module.METHODS
    for name, run in methods.items():
        trace = run["trace"]
        assert trace, name
        cpus = [cpu for _, cpu, _ in trace]
        eps = [e for _, _, e in trace]
        assert cpus == sorted(cpus) and [it for it, _, _ in trace] == sorted({it for it, _, _ in trace}), name
        assert all(b <= a + 1e-12 for a, b in zip(eps, eps[1:], strict=False)) and min(eps) >= 0.0, (name, eps)
        assert run["cpu"] <= budget + 1.5 and cpus[-1] <= run["cpu"] + 1e-6, (name, run["cpu"])
        assert sum(cpu > budget + 0.1 for cpu in cpus) <= 1, (name, cpus)  # stopped by the budget
        converged = eps[-1] <= 0.005 + 1e-9
        assert converged or cpus[-1] >= budget - 0.05, (name, cpus[-1])  # not stopped before it
        assert run["population"] >= 120 and run["support"] >= 1, name
    assert [k for k, _, _ in records[0]["lp-pool"]] == [2]
    monkeypatch.setattr(sys, "argv", ["bench_convergence.py", "--report", "--deals", "1", "--budget", str(budget),
                                      "--jsonl", str(jsonl), "--no-write"])
    module.main()
    out = capsys.readouterr().out
    assert f"every method had the same {budget:g} CPU seconds" in out
    assert "| against | target ε | both reached | shipped wins | shipped loses |" in out
    for name in module.METHODS[1:]:
        for eps in ("0.05", "0.01", "0.005"):
            assert re.search(rf"^\| {re.escape(module.LABELS[name])} \| {eps} \| \d+ \| \d \| \d \|", out,
                             re.MULTILINE), (name, eps)


def test_convergence_options_and_hardest_classes(monkeypatch, tmp_path):
    """An unknown method is an argparse error (exit 2); the hardest classes are the slowest of
    bench_equilibrium's class records, its example deal left out."""
    module = load_benchmark(BENCHMARKS / "bench_convergence.py", "benchmark_convergence_options", monkeypatch)
    for methods in ("do-shipped,bogus", ""):
        monkeypatch.setattr(sys, "argv", ["bench_convergence.py", "--methods", methods, "--report",
                                          "--jsonl", str(tmp_path / "none.jsonl"), "--no-write"])
        with pytest.raises(SystemExit) as stop:
            module.main()
        assert stop.value.code == 2
    assert module.parse_methods("odo, fp,odo") == ["odo", "fp"]
    classes = tmp_path / "classes.jsonl"
    classes.write_text("".join(json.dumps(r) + "\n" for r in (
        {"exposed": "Qc Jc Ts 9d 8h 7s 7h", "example": True, "cpu_seconds": 99.0},
        {"exposed": "Ad Ac Qc Jc Th 9s 7d", "example": False, "cpu_seconds": 0.4},
        {"exposed": "Kc Qh Qd Qc 9c 8c 7s", "example": False, "cpu_seconds": 3.0},
        {"exposed": "Ah Ad Ac Kc Td 9c 7d", "example": False, "cpu_seconds": 1.7})))
    assert module.hardest_classes(classes, 2) == ["Kc Qh Qd Qc 9c 8c 7s", "Ah Ad Ac Kc Td 9c 7d"]


def test_marginal_fp_certificate_is_an_exact_best_response_to_a_realisable_mix(monkeypatch):
    """bench_marginal_baseline: the ε marginal FP reports is the exact best response's value against
    the uniform mix over the vertices it returns (recomputed from that mix, not from its running
    average), the average it returns is that mix's marginals, and its certified ε never rises."""
    module = load_benchmark(BENCHMARKS / "bench_marginal_baseline.py", "benchmark_marginal_cert", monkeypatch)
    from quintet.game import Deal
    from solver.games.quintet_game import QuintetGame
    from solver.problem.deal_tables import DealTables

    tables = DealTables.build(Deal.random(2026))
    first = module.uniform_start(tables)
    fp = module.marginal_fp(tables, first, budget=600.0, target=0.0, max_iterations=12)  # budget: a hang cap
    assert fp["iterations"] == 12 and len(fp["support"]) <= 12
    eps = [e for _, _, e in fp["trace"]]
    assert all(b <= a for a, b in zip(eps, eps[1:], strict=False)) and eps[-1] == fp["epsilon"] < eps[0]
    game = QuintetGame(tables)
    mix = np.full(len(fp["support"]), 1.0 / len(fp["support"]))
    np.testing.assert_allclose(game.marginals(fp["support"], mix), fp["average"], atol=1e-12)
    again = game.best_response(fp["support"], mix, time_limit=None, hint=None, stop_event=None)
    assert again.proven and abs(again.value - fp["epsilon"]) <= 1e-9
    assert max(game.payoffs_against(fp["support"], fp["support"], mix)) <= again.value + 1e-9


def test_marginal_fp_reaches_the_target_on_a_reduced_deal_and_the_relaxation_is_larger(monkeypatch):
    """On a two-slot deal (10 live cards) marginal FP reaches ε ≤ 0.01 and stops there; the compact
    relaxation's LP is never below the exact best response (L contains M) and here exceeds it."""
    module = load_benchmark(BENCHMARKS / "bench_marginal_baseline.py", "benchmark_marginal_small", monkeypatch)
    from quintet.game import Deal
    from quintet.rules import Rules
    from solver.problem.deal_tables import DealTables

    tables = DealTables.build(Deal.random(2026, rules=Rules(weights=(3, 4))))
    fp = module.marginal_fp(tables, module.uniform_start(tables), budget=120.0, target=0.01)  # budget: a hang cap
    assert fp["epsilon"] <= 0.01 < fp["trace"][-2][2] and fp["cpu_s"] == fp["trace"][-1][1]
    gap = module.relaxation_gap(tables, fp["average"])
    assert gap["proven"] and abs(gap["exact"] - fp["epsilon"]) <= 1e-9 and gap["lp"] > gap["exact"] + 1.0
    a, cpu = module.fp_rate(fp["trace"], 0.001)
    assert 0.5 < a < 1.5 and cpu > fp["cpu_s"]


def test_marginal_baseline_writes_its_schema_and_quick_writes_nothing(monkeypatch, capsys):
    """One deal at 1 CPU s per method: the data file has the paper's schema; ``--quick --no-write``
    runs at toy size and writes nothing."""
    module = load_benchmark(BENCHMARKS / "bench_marginal_baseline.py", "benchmark_marginal_run", monkeypatch)
    saved: dict[str, object] = {}
    monkeypatch.setattr(module, "save_data", lambda name, run, payload: saved.update(name=name, payload=payload))
    monkeypatch.setattr(module, "write_section", lambda tag, title, body: saved.update(tag=tag, body=body))
    monkeypatch.setattr(sys, "argv", ["bench_marginal_baseline.py", "--deals", "1", "--budget", "1"])
    module.main()
    payload = saved["payload"]
    assert saved["name"] == "marginal_baseline" and saved["tag"] == "marginal"
    assert isinstance(payload, dict)
    assert isinstance(payload["command"], str) and isinstance(payload["commit"], str)
    assert payload["target_epsilon"] == 0.01 and payload["cpu_budget"] == 1.0
    deal = json.loads(json.dumps(payload["deals"]))[0]
    assert deal["seed"] == 2026 and isinstance(deal["exposed"], str)
    for method in ("double_oracle", "marginal"):
        r = deal[method]
        assert isinstance(r["cpu_s"], float) and isinstance(r["epsilon"], float) and isinstance(r["iterations"], int)
        assert 0.0 <= r["epsilon"] <= 25.0 and r["cpu_s"] <= 1.0 + 1.5
    assert "sign test p =" in str(saved["body"])
    saved.clear()
    monkeypatch.setattr(sys, "argv", ["bench_marginal_baseline.py", "--quick", "--no-write"])
    module.main()
    assert saved == {} and "| deal (seed) | DO CPU s |" in capsys.readouterr().out


def test_reread_statistics(monkeypatch):
    """bench_reread: average ranks for ties, Spearman against a direct computation, a permutation
    p-value that separates a monotone relation from noise, cross-validated R² near 1 on a line."""
    module = load_benchmark(BENCHMARKS / "bench_reread.py", "benchmark_reread", monkeypatch)
    assert module.ranks(np.array([3.0, 1.0, 2.0, 2.0])).tolist() == [4.0, 1.0, 2.5, 2.5]
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, 60).astype(float)
    y = x + rng.normal(0, 1, 60)
    rx, ry = module.ranks(x), module.ranks(y)
    assert module.spearman(x, y) == pytest.approx(float(np.corrcoef(rx, ry)[0, 1]))
    assert module.spearman_p(x, x ** 3, n=500) < 0.01
    assert module.spearman_p(x, rng.permutation(60).astype(float), n=500) > 0.001
    X = rng.normal(size=(50, 2))
    assert module.cv_r2(X, X @ np.array([1.0, -2.0]) + 0.01 * rng.normal(size=50), seed=1) > 0.99
    assert module.cv_r2(X, rng.normal(size=50), seed=1) < 0.2


def _no_writes(module, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("--no-write wrote something")

    for name in ("save_data", "write_section", "savefig"):
        monkeypatch.setattr(module, name, refuse)


def test_style_robustness_toy_run_end_to_end(monkeypatch, capsys):
    """bench_style_robustness at toy size: two draws, counts from 1, one real equilibrium; with
    --no-write it prints the report and writes no data, section or plot."""
    module = load_benchmark(BENCHMARKS / "bench_style_robustness.py", "benchmark_style_toy", monkeypatch)
    _no_writes(module, monkeypatch)
    monkeypatch.setattr(module, "warm_kernels", lambda: None)  # the kernels compile on first use anyway
    monkeypatch.setattr(sys, "argv", ["bench_style_robustness.py", "--deals", "1", "--draws", "2", "--records",
                                      "1,2", "--bots", "habit-0.5,br-uniform", "--epsilon", "0.2", "--no-store",
                                      "--no-write"])
    module.main()
    out = capsys.readouterr().out
    assert "| share, 1 record | share, 2 records |" in out
    assert "2 draws per bot" in out
    rows = re.findall(r"^\| (habit-0\.5|br-uniform) \|.*\|$", out, re.MULTILINE)
    assert rows == ["habit-0.5", "br-uniform"]
    # each row: two cells "S% [lo, hi] (min to max)" with numbers, not a failed share
    for line in (ln for ln in out.splitlines() if ln.startswith(("| habit-0.5", "| br-uniform"))):
        assert len(re.findall(r"-?\d+% \[-?\d+, -?\d+\] \(-?\d+ to -?\d+\)", line)) == 2, line


def test_style_robustness_draws_use_different_records(monkeypatch):
    """Each draw fits on its own record set (other deals, the bot's own random stream), nested over
    the counts; the fits and so (b) are per draw while (a) and (c) are computed once."""
    from quintet.game import Deal
    from solver.problem.deal_tables import DealTables
    from solver.problem.opponents import Uniform

    module = load_benchmark(BENCHMARKS / "bench_style_robustness.py", "benchmark_style_draws", monkeypatch)
    new = Deal.random_series(2026, 2)
    tables = [DealTables.build(d) for d in new]
    eq_m = [Uniform().marginals(t) for t in tables]  # any opponent stands in for the equilibrium here
    bots = [module.Bot("habit-0.5"), module.Bot("slot5-random")]
    results, records = module.learning_curves(bots, [1, 3], 3, 900000, new, tables, eq_m)
    for bot in bots:
        draws = records[bot.name]
        assert len(draws) == 3 and all(len(games) == 3 for games in draws)
        exposed = [tuple(d.exposed for d, _ in games) for games in draws]
        assert len(set(exposed)) == 3  # three different sets of recorded deals
        assert not set(exposed[0]) & set(exposed[1]) and not set(exposed[1]) & set(exposed[2])
        assert exposed[0] == tuple(d.exposed for d in Deal.random_series(900000, 3))  # draw 0: the record seed's
        r = results[bot.name]
        assert len(r["a"]) == len(r["c"]) == 2
        assert [len(row) for row in r["b"]["1"]] == [2, 2, 2] and len(r["b"]["3"]) == 3
        assert r["record_seeds"] == [900000, 1000000, 1100000]
    # with one record a habit bot's fits differ between draws, so (b) does
    b1 = np.array(results["habit-0.5"]["b"]["1"])
    assert len({tuple(row) for row in b1}) > 1


def test_style_robustness_report_and_plot_from_data_with_counts_from_1(monkeypatch, tmp_path, capsys):
    """--report rewrites the section and plot from saved data with counts 1, 2, 3, 5: the share of the
    means over deals and draws, a bootstrap interval that resamples the draws, the draws' range,
    and one x tick per count."""
    module = load_benchmark(BENCHMARKS / "bench_style_robustness.py", "benchmark_style_report", monkeypatch)
    # three deals; the gap (c − a) is 10 on each; draw 0 gains 2, draw 1 gains 4 on every deal
    curve = {str(n): [[2.0, 2.0, 2.0], [4.0, 4.0, 4.0]] for n in (1, 2, 3, 5)}
    curve["5"] = [[10.0, 10.0, 10.0], [10.0, 10.0, 10.0]]
    results = {"habit-0.2": {"a": [0.0, 0.0, 0.0], "c": [10.0, 10.0, 10.0], "b": curve,
                             "record_seeds": [900000, 1000000]}}
    params = {"deals": 3, "seed": 2026, "record_seed": 900000, "records": "1,2,3,5", "draws": 2,
              "bots": "habit-0.2", "epsilon": 0.05, "time_limit": 300.0, "store": None, "no_store": False,
              "report": False, "no_write": False}
    run = {"command": "python benchmarks/bench_style_robustness.py", "commit": "0" * 10, "machine": "test",
           "date": "2026-12-03 00:00 UTC", "cpu_seconds": 1.0, "wall_seconds": 1.0}
    (tmp_path / "style_robustness.json").write_text(json.dumps(
        {"run": run, "params": params, "epsilon": [0.01, 0.02, 0.03], "results": results, "deals": []}))
    monkeypatch.setattr(module, "DATA", tmp_path)
    sections: list[str] = []
    figures = []
    monkeypatch.setattr(module, "write_section", lambda key, title, text: sections.append(text))
    monkeypatch.setattr(module, "savefig", lambda fig, name: figures.append(fig))
    monkeypatch.setattr(sys, "argv", ["bench_style_robustness.py", "--report"])
    module.main()
    (report,) = sections
    assert "| share, 1 record | share, 2 records | share, 3 records | share, 5 records |" in report
    row = next(line for line in report.splitlines() if line.startswith("| habit-0.2 |"))
    # mean 3 / 10; resampling the draws gives 20, 30 or 40 %; the draws' own shares 20 and 40 %
    assert row.count("30% [20, 40] (20 to 40)") == 3 and row.endswith("| 100% [100, 100] (100 to 100) |")
    assert "2 draws per bot" in report and "at 5 records, the bots whose interval reaches below 90%: none" in report
    (fig,) = figures
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3", "5"]
    assert ax.get_xscale() == "log"


def _analysis_steps() -> list[str]:
    return subprocess.run(["bash", str(BENCHMARKS / "run_analysis.sh"), "--steps"], capture_output=True, text=True,
                          check=True).stdout.split()


def _analysis_commands(*options: str) -> list[list[str]]:
    out = subprocess.run(["bash", str(BENCHMARKS / "run_analysis.sh"), *options, "--print"], capture_output=True,
                         text=True, check=True).stdout
    return [shlex.split(line) for line in out.splitlines()]


@pytest.mark.parametrize("mode", [(), ("--quick",)], ids=["full", "quick"])
def test_run_analysis_steps_call_options_their_scripts_have(mode, monkeypatch, capsys):
    """Every step of run_analysis.sh names a benchmark and options its ``--help`` lists (a renamed
    option fails here, not hours into a run); ``--quick`` writes nothing under benchmarks/."""
    commands = _analysis_commands(*mode)
    assert len(commands) == len(_analysis_steps()) >= 20
    for argv in commands:
        script = next((a for a in argv if a.startswith("benchmarks/")), None)
        if script is None:
            continue  # the notebook's step
        module = load_benchmark(BENCHMARKS.parent / script, f"analysis_{Path(script).stem}", monkeypatch)
        monkeypatch.setattr(sys, "argv", [script, "--help"])
        with pytest.raises(SystemExit):
            module.main()
        usage = capsys.readouterr().out
        for option in (a for a in argv if a.startswith("--")):
            assert re.search(rf"{re.escape(option)}\b", usage), f"{script} has no {option}"
        if mode:
            assert "--no-write" in argv, argv
            assert not any(a.startswith(str(BENCHMARKS)) or a.startswith("benchmarks/data") for a in argv[2:]), argv


def test_run_analysis_refuses_an_unknown_step_or_option():
    for args in (["no-such-step"], ["--fast"]):
        done = subprocess.run(["bash", str(BENCHMARKS / "run_analysis.sh"), "--print", *args], capture_output=True,
                              text=True)
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and args[0] in done.stderr


def test_the_manual_names_sections_results_has():
    """Each section docs/benchmarks.md names is a heading of RESULTS.md (or is said not to exist yet)."""
    headings = re.findall(r"^## (.+)$", (BENCHMARKS / "RESULTS.md").read_text(encoding="utf-8"), re.MULTILINE)
    rows = re.findall(r"^\| `[\w.]+\.py` \|.*\| ([^|]+) \|$", (BENCHMARKS.parent / "docs" / "benchmarks.md").read_text(
        encoding="utf-8"), re.MULTILINE)
    assert len(rows) == len(SCRIPTS)
    for cell in rows:
        if "(not run yet" in cell:
            continue
        for name in cell.split(";"):
            assert any(h.startswith(name.strip()) for h in headings), f"RESULTS.md has no section {name.strip()!r}"


def test_a_section_is_replaced_and_says_its_commit(monkeypatch, tmp_path):
    """write_section replaces its own section only, and ends it with the script, the commit and the date."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import benchmark_results

    path = tmp_path / "RESULTS.md"
    benchmark_results.write_section("a", "A", "first", path)
    benchmark_results.write_section("b", "B", "other", path)
    benchmark_results.write_section("a", "A", "second", path)
    text = path.read_text()
    assert "first" not in text and text.index("second") < text.index("other")
    commit = benchmark_results.git_commit()
    assert re.fullmatch(r"[0-9a-f]{10}(\+dirty)?", commit)
    assert text.count(f"at commit `{commit}` on ") == 2


@pytest.mark.slow
@pytest.mark.subprocess
def test_run_analysis_quick_runs_every_step(tmp_path):
    """``run_analysis.sh --quick``: every analysis benchmark end to end at toy size (about five
    minutes), writing nothing under benchmarks/ (the notebook's step is test_notebooks')."""
    scripts = [argv for argv in _analysis_commands("--quick") if any(a.startswith("benchmarks/") for a in argv)]

    def outputs() -> dict[Path, int]:  # sections, plots, data (a sweep's JSON lines may grow meanwhile)
        return {p: p.stat().st_mtime_ns for p in BENCHMARKS.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".jsonl"}

    before = outputs()
    env = dict(os.environ, TMPDIR=str(tmp_path), PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    step_names = [s for s in _analysis_steps() if s != "notebook"]  # the notebook's step is test_notebooks'
    assert len(step_names) == len(scripts)
    done = subprocess.run(["bash", str(BENCHMARKS / "run_analysis.sh"), "--quick", *step_names], env=env,
                          capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.count("== ") == len(step_names)
    assert outputs() == before  # no section, data file or plot rewritten


def test_book_stratified_estimator_and_neyman_allocation(monkeypatch):
    """bench_book's pure parts: under proportional allocation the stratified mean is the plain
    mean (and under another allocation it is not); Neyman gives draws ∝ share × sd, within the caps."""
    module = load_benchmark(BENCHMARKS / "bench_book.py", "benchmark_book_units", monkeypatch)
    rng = np.random.default_rng(3)
    values = [rng.lognormal(h, 1.0, size=n) for h, n in enumerate((10, 20, 30, 40))]
    plain = float(np.concatenate(values).mean())
    proportional = np.array([10, 20, 30, 40]) / 100
    est, se = module.stratified_mean(values, proportional)
    assert est == pytest.approx(plain) and se > 0
    assert module.stratified_mean(values, np.full(4, 0.25))[0] != pytest.approx(plain)
    # the two-phase term only widens the interval
    assert module.stratified_mean(values, proportional, 50)[1] > se
    alloc = module.neyman(np.full(4, 0.25), np.array([1.0, 1.0, 2.0, 4.0]), 80, np.array([100, 100, 100, 100]))
    assert alloc.tolist() == [10, 10, 20, 40]
    capped = module.neyman(np.full(4, 0.25), np.array([1.0, 1.0, 1.0, 100.0]), 40, np.array([100, 100, 100, 5]))
    assert capped.sum() == 40 and capped[3] == 5 and capped.min() >= 2
    cuts = module.strata_cuts(np.arange(8.0), 4)
    assert module.stratum_of(np.arange(8.0), cuts).tolist() == [0, 0, 1, 1, 2, 2, 3, 3]


@pytest.mark.slow
def test_book_end_to_end_at_toy_size(monkeypatch, capsys, tmp_path):
    """bench_book on a frame of 4 and a sample of 2 into scratch files: the frame's predictors, the
    solves' records, strata from the predictors only (the solves' CPU times changed, the design and
    each class's stratum are the same), a record whose stratum disagrees refused, and ``--report
    --no-write`` printing the estimate and the reconciling table."""
    module = load_benchmark(BENCHMARKS / "bench_book.py", "benchmark_book_toy", monkeypatch)
    common = ["--frame", "4", "--sample", "2", "--strata", "2", "--pilot-classes", "30", "--repeats", "5",
              "--jsonl-dir", str(tmp_path), "--no-write"]
    assert module.main(common) == 0
    frame = [json.loads(s) for s in (tmp_path / "book-frame.jsonl").read_text().splitlines()]
    records = [r for r in frame if "run" not in r]
    assert sorted(r["set"] for r in records).count("pilot") == 30 and len(records) == 34
    pilot = {r["key"] for r in records if r["set"] == "pilot"}
    for r in records:
        assert r["predictors"]["greedy_exploitability"] >= 0 and r["predictors"]["top_key_ties"] >= 1
        assert 1 <= r["predictors"]["orbit"] <= 24 and r["cpu_seconds"] > 0 and r["book"] == 156_248
    sample_path = tmp_path / "book-sample.jsonl"
    solved = [json.loads(s) for s in sample_path.read_text().splitlines()]
    solved = [r for r in solved if "run" not in r]
    assert len(solved) == 2 and {r["stratum"] for r in solved} == {0, 1}
    for r in solved:
        assert r["key"] not in pilot and r["converged"] and r["cpu_seconds"] > 0 and r["wall_seconds"] > 0
        assert r["exploitability"] <= 0.01 + 1e-9 and r["load"] >= 0
    args = module.argparse.Namespace(frame=4, frame_seed=7000, sample=2, sample_seed=11, strata=2,
                                     pilot=module.DATA / "equilibrium-classes.jsonl", pilot_classes=30,
                                     jsonl_dir=tmp_path)
    plan = module.design(args)
    assert [(r["key"], r["stratum"]) for r in solved] == plan["sample"]
    assert all(plan["frame_strata"][r["key"]] == r["stratum"] for r in solved)
    # the solves' times do not move a class between strata: the design reads the frame and the pilot only
    sample_path.write_text("\n".join(json.dumps({**r, "cpu_seconds": r["cpu_seconds"] * 1000}) for r in solved))
    again = module.design(args)
    assert again["sample"] == plan["sample"] and again["frame_strata"] == plan["frame_strata"]
    capsys.readouterr()
    assert module.main([*common, "--report"]) == 0
    out = capsys.readouterr().out
    assert "### Reconciling the figures" in out and "| the pilot (`equilibrium-classes.jsonl`" in out
    assert "156,248 classes ×" in out and "CPU-hours [" in out and "| source | sample | ε |" in out
    mean = sum(r["cpu_seconds"] * 1000 for r in solved) / 2  # one per stratum, equal shares of a frame of 4
    assert f"{mean:.3f} CPU s" in out
    with pytest.raises(SystemExit, match="solved at ε 0.01"):  # records of another ε are not this report's
        module.main([*common, "--report", "--epsilon", "0.02"])
    sample_path.write_text("\n".join(json.dumps({**r, "stratum": 1 - r["stratum"]}) for r in solved))
    with pytest.raises(SystemExit, match="design says"):
        module.main([*common, "--report"])


def test_book_measurement_term_pairs_the_same_classes(monkeypatch, tmp_path):
    """The calibration's ratio is the ratio of sums over the classes both runs solved; the work is
    counted equal only where iterations and exact best responses agree; no calibration, no term."""
    module = load_benchmark(BENCHMARKS / "bench_book.py", "benchmark_book_measure", monkeypatch)
    args = module.argparse.Namespace(jsonl_dir=tmp_path, sample_seed=11)
    sample = {k: {"cpu_seconds": c, "iterations": 5, "exact": 3} for k, c in (("a", 2.0), ("b", 4.0), ("c", 6.0))}
    cpu_v, shares = [np.array([2.0, 4.0]), np.array([6.0])], np.array([0.5, 0.5])
    assert module.measurement(args, sample, cpu_v, shares, 4.0, 10.0) is None
    cal = [{"key": "a", "cpu_seconds": 1.0, "iterations": 5, "exact": 3, "load": 0.1, "running": 1},
           {"key": "b", "cpu_seconds": 2.0, "iterations": 6, "exact": 3, "load": 0.1, "running": 1},
           {"key": "z", "cpu_seconds": 9.0, "iterations": 5, "exact": 3, "load": 0.1, "running": 1}]  # not sampled
    (tmp_path / "book-calibration.jsonl").write_text("\n".join(json.dumps(r) for r in cal))
    lines, summary = module.measurement(args, sample, cpu_v, shares, 4.0, 10.0)
    assert summary["classes"] == 2 and summary["same_work"] == 1
    assert summary["ratio"] == pytest.approx(3.0 / 6.0) and summary["cpu_hours"] == pytest.approx(4.0 * 0.5 * 10.0)
    assert summary["ratio_ci"][0] <= 0.5 <= summary["ratio_ci"][1] and summary["running_median"] == 1
    assert any("partly the work" in s for s in lines)  # one class did other work: said, not hidden


def test_kmix_recheck_counts_a_certificate_below_the_truth_as_a_disagreement(monkeypatch):
    """CP-SAT's proven value equal to the search's counts as equal; below a bound (the search
    stopped) is legitimate; above the certificate, or below an exact value, is a disagreement."""
    module = load_benchmark(BENCHMARKS / "bench_kmix.py", "benchmark_kmix_recheck", monkeypatch)

    def row(k, certified, exact, value, proven=True):
        return {"k": k, "best_certificate": {"value": certified, "proven": exact},
                "recheck": {"value": value, "proven": proven, "cpu": 1.0}}

    records = [{"kmix": [row(2, 3.0, True, 3.0), row(3, 2.0, False, 1.5)]},
               {"kmix": [row(2, 3.0, True, 3.5), row(3, 2.0, True, 1.0)]},
               {"kmix": [row(2, 1.0, True, 9.0, proven=False), {"k": 3}]}]
    counts = {c["k"]: c for c in module.recheck_counts(records, [1, 2, 3])}
    assert 1 not in counts
    assert (counts[2]["rechecked"], counts[2]["proven"], counts[2]["equal"], counts[2]["disagree"]) == (3, 2, 1, 1)
    assert (counts[3]["rechecked"], counts[3]["below_bound"], counts[3]["disagree"]) == (2, 1, 1)


def test_security_level_shares_bracket_every_deal():
    """Each proved level's count over all deals lies between the deals proved at it and those plus
    the open deals whose bracket contains it — checked against a direct count on every small case."""
    sys.path.insert(0, str(BENCHMARKS))
    import itertools

    from bench_security import deals_text, level_shares

    assert (deals_text(30, 30), deals_text(30, 32)) == ("30", "30–32")  # one number once every bracket is closed
    brackets = [(2, 2), (6, 6), (11, 11), (6, 11), (2, 6), (2, 11)]
    for deals in itertools.product(brackets, repeat=3):
        lower = np.array([lo for lo, _ in deals])
        upper = np.array([hi for _, hi in deals])
        exact = lower == upper
        for v, least, most in level_shares(lower, upper, exact):
            assert least == sum(1 for lo, hi in deals if lo == hi == v)
            assert most == least + sum(1 for lo, hi in deals if lo < hi and lo <= v <= hi)


def test_soundness_names_engine_code_that_differs_between_its_commits(monkeypatch):
    """A sweep pooled over commits says whether the code under test differs, and in which files."""
    sys.path.insert(0, str(BENCHMARKS))
    import bench_soundness

    assert bench_soundness.commits_note(["abc"]) == ""
    same = bench_soundness.commits_note(["HEAD", "HEAD"])  # git here: identical; no history: not checked
    assert "identical" in same or "not checked" in same

    def numstat(*args, **kwargs):
        return SimpleNamespace(returncode=0, stdout="6\t0\tquintet/rules.py\n1\t2\tsolver/engines/search.py\n")

    monkeypatch.setattr(bench_soundness.subprocess, "run", numstat)
    note = bench_soundness.commits_note(["a", "b"])
    assert "**the code under test differs between them: quintet/rules.py (6 lines), " \
           "solver/engines/search.py (3 lines)**" in note
    monkeypatch.setattr(bench_soundness.subprocess, "run", lambda *a, **k: SimpleNamespace(returncode=128, stdout=""))
    assert "not checked" in bench_soundness.commits_note(["a", "b"])


def test_a_run_read_back_keeps_its_recorded_times():
    """A data file's provenance, rewritten by a report, keeps the CPU and wall time it recorded."""
    sys.path.insert(0, str(BENCHMARKS))
    from analysis_common import Run

    saved = {"command": "python benchmarks/b.py", "commit": "c", "machine": "m", "date": "d",
             "cpu_seconds": 12.5, "wall_seconds": 30.0, "load": 1.0}
    run = Run.from_dict(saved)
    sum(range(200_000))  # some CPU time passes
    assert run.to_dict() == saved


def test_security_recheck_counts_every_disagreement(tmp_path):
    """CP-SAT's recheck of the upper bounds: a proven value other than the recorded E, or an unproven
    bound below it, is a disagreement; a record outside the sample is not counted."""
    sys.path.insert(0, str(BENCHMARKS))
    from bench_security import recheck_lines

    records = [{"key": k, "level": {"upper": u}} for k, u in ((1, 11.0), (2, 6.0), (3, 6.0), (4, 11.0))]
    lines = [{"run": {"command": "python b.py", "commit": "c", "machine": "m", "date": "d", "params": {}}},
             {"key": 1, "value": 11.0, "bound": 11.0, "proven": True, "cpu": 1.0},   # equal
             {"key": 2, "value": 7.0, "bound": 7.0, "proven": True, "cpu": 1.0},     # proven, other: disagree
             {"key": 3, "value": 5.0, "bound": 5.5, "proven": False, "cpu": 1.0},    # bound below E: disagree
             {"key": 4, "value": 10.0, "bound": 12.0, "proven": False, "cpu": 1.0},  # open, consistent
             {"key": 9, "value": 0.0, "bound": 0.0, "proven": True, "cpu": 1.0}]     # not in the sample
    jsonl = tmp_path / "security.jsonl"
    (tmp_path / "security-recheck.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    text, summary = recheck_lines(SimpleNamespace(jsonl=jsonl), records)
    assert (summary["rechecked"], summary["proven"], summary["equal"], summary["disagree"]) == (4, 2, 1, 2)
    assert "**2 disagree**" in " ".join(text)
    assert recheck_lines(SimpleNamespace(jsonl=tmp_path / "none.jsonl"), records) == ([], None)


def test_provenance_says_when_a_section_pools_commits_or_settings():
    sys.path.insert(0, str(BENCHMARKS))
    from analysis_common import provenance

    def run(commit, **params):
        return {"run": {"command": "python b.py", "commit": commit, "machine": "m", "date": "d",
                        "params": {"start": 0, "jsonl": "x", **params}}}

    one = provenance([run("aaa", milp=5), run("aaa", milp=5)])
    assert "Not one commit" not in one and "differ" not in one
    pooled = provenance([run("aaa", milp=5), run("bbb", milp=15)])
    assert "**Not one commit: 2.**" in pooled and "parameters differ: milp." in pooled
    assert "differ" not in provenance([run("aaa", milp=5, start=0), run("aaa", milp=5, start=50)])


def test_safe_and_style_share_one_estimator(monkeypatch):
    """The Safe section's share is gap_share's mean gain over mean gap, not a mean of per-deal ratios."""
    module = load_benchmark(BENCHMARKS / "bench_safe.py", "benchmark_safe_share", monkeypatch)

    def deal(eq, here, br):
        return {"models": {"greedy": [{"vs": {"greedy": eq}}, {"vs": {"greedy": here}}, {"vs": {"greedy": br}}]}}

    s = module.shares([deal(0.0, 1.0, 2.0), deal(0.0, 0.0, 8.0)], "greedy", 1)
    assert s.mean == pytest.approx(0.5 / 5.0)  # mean gain / mean gap; per-deal ratios would give 0.25
