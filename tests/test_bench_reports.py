"""The analysis reports read their committed records as the records say (no solving)."""

from __future__ import annotations

import argparse
import re

import pytest
from test_benchmarks import BENCHMARKS, load_benchmark


def test_fewest_support_counts_only_a_smaller_certified_mix(monkeypatch):
    """bench_structure: the fewest arrangements are the double oracle's support unless the MILP's mix is
    certified by the exact best response and smaller."""
    module = load_benchmark(BENCHMARKS / "bench_structure.py", "benchmark_structure_fewest", monkeypatch)

    def rec(found, fewest, certified):
        return {"support": {"found": found, "fewest": fewest, "fewest_certified": certified}}

    assert module.fewest_support(rec(40, 30, True)) == 30
    assert module.fewest_support(rec(40, 30, False)) == 40  # not an equilibrium: does not count
    assert module.fewest_support(rec(40, 41, True)) == 40  # larger than the support found
    assert module.fewest_support(rec(40, None, None)) == 40  # the MILP found nothing


def test_structure_report_on_the_committed_records(monkeypatch):
    """The Structure section from benchmarks/data/structure.jsonl: fewest found never above the support
    found, lower bounds only where the marginals are unique (re-derived from the recorded bounds), every
    MILP time limit the runs used named, the verdicts within the proofs."""
    module = load_benchmark(BENCHMARKS / "bench_structure.py", "benchmark_structure_report", monkeypatch)
    args = argparse.Namespace(jsonl=BENCHMARKS / "data" / "structure.jsonl", seed=2026, deals=100, cpu_limit=900.0,
                              milp_time_limit=15.0, no_write=True,
                              bounds_jsonl=BENCHMARKS / "data" / "structure-bounds.jsonl")
    runs, records = module.dealt_records(args)
    if not records:
        pytest.skip("no structure records committed")
    text, summary = module.make_report(records, runs, args)
    for d in summary["per_deal"]:
        assert d["fewest"] <= d["found"]
    limits = {r["run"]["params"]["milp_time_limit"] for r in runs if not r["run"].get("closing")}
    milp = re.search(r"a MILP \(SCIP, ([^)]*) s\)", text)
    assert milp is not None and {float(t) for t in milp.group(1).split(" or ")} == {float(t) for t in limits}
    n_unique = sum(1 for d in summary["per_deal"] if d["verdict"] == "unique")
    assert summary["unique"] == n_unique
    assert all(d["lower_bound"] is None for d in summary["per_deal"] if d["verdict"] != "unique")
    # a witness above the proven bound proves nothing beyond it: the deal the referee named is not "not unique"
    named = [d for d in summary["per_deal"] if d["exposed"] == "Ad Kd Qs Qd Qc Tc 8h"]
    assert [d["verdict"] for d in named] in ([], ["undecided"], ["unique"])
    assert all(d["radius"] < 0.01 for d in summary["per_deal"] if d["verdict"] == "unique")
    assert "0.000–" not in text  # a witness's TV of 2.5e-4 is not printed as 0.000


def test_machine_load_names_the_load_at_the_start(monkeypatch):
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import benchmark_results

    line = benchmark_results.machine_load()
    assert re.search(r"\d+ logical CPUs, load average \d+\.\d\d at the start$", line)
    assert "shared" not in line


def test_a_p_value_at_the_monte_carlo_floor_reads_as_a_bound(monkeypatch):
    """analysis_common.holm_text: a raw p of 1 / (1 + draws) (no draw as extreme) is printed '≤ …'."""
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    from analysis_common import holm_text

    assert holm_text([1 / 4001, 0.2], 4000) == ["≤ 0.0005", "0.2"]
    assert holm_text([2 / 4001], 4000) == ["0.0005"]  # one draw as extreme: an estimate, not the floor


def test_es_seeds_paragraph_reads_the_seeds_and_the_curves_own_seed(monkeypatch):
    """bench_cfr seeds: per checkpoint the seeds' least–greatest, the seeds whose curve rises, and
    whether the curve's own ES seed (read from its recorded command) repeats the curve's points."""
    module = load_benchmark(BENCHMARKS / "bench_cfr.py", "benchmark_cfr_seeds", monkeypatch)
    curve = {"run": {"command": "python benchmarks/bench_cfr.py curve --es-seconds 300 --seed 7"},
             "external_sampling": [{"walks": 40, "exploitability": 7.0}, {"walks": 80, "exploitability": 7.5}]}

    def pts(*es):
        return [{"walks": 40 * (i + 1), "exploitability": e} for i, e in enumerate(es)]

    seeds = {"run": {"command": "python benchmarks/bench_cfr.py seeds", "commit": "abc", "cpu_seconds": 60.0},
             "uniform": 7.1, "runs": [{"seed": 7, "points": pts(7.0, 7.5, 7.2)},
                                      {"seed": 8, "points": pts(6.9, 6.8, 6.5)}]}
    text = "\n".join(module.es_seeds_lines(curve, seeds))
    assert "40 walks: 6.900–7.000; 80 walks: 6.800–7.500; 120 walks: 6.500–7.200" in text
    assert "rises between two checkpoints on 1 of 2 seeds (7), and lies above the uniform strategy's at some " \
           "checkpoint on 1 of 2" in text
    assert "own seed (7) repeats its points exactly at 2 of 2 shared checkpoints" in text
    seeds["runs"][0]["points"][1]["exploitability"] = 7.4  # the curve's seed no longer reproduces one point
    assert "at 1 of 2 shared" in "\n".join(module.es_seeds_lines(curve, seeds))
    curve["run"]["command"] = "python benchmarks/bench_cfr.py curve"  # the default seed, 2026: not among them
    assert "own seed" not in "\n".join(module.es_seeds_lines(curve, seeds))
