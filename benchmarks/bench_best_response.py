"""Best-response benchmark: time to a proven optimum, per engine and opponent model.

    python benchmarks/bench_best_response.py                 # full run (example + 100 deals)
    python benchmarks/bench_best_response.py --deals 10      # quicker
    python benchmarks/bench_best_response.py --cpsat-deals 3 --cpsat-limit 30

Deals: the worked example and N seeded random deals.  Opponents: uniform, greedy, a 50/50
mix of the two, and mixes of 10 and 100 random good arrangements (each a random partition
built from the strongest packets — a random pick among the 30 strongest packets still
free, four times, plus the leftover — laid in a random slot order, with random weights:
the kind of opponent the equilibrium solver asks about).  One worker.  For each engine:
median, p90 and max seconds, and how many were proven optimal.  CP-SAT does not prove
these in minutes (benchmarks/RESULTS.md, Best response), so it runs on a few deals with a time limit, and its
value is checked against the search's optimum.  Finally the whole CLI
(``quintet-solve … --json``), process start to exit, warm cache, median of several runs.
Figures go to benchmarks/RESULTS.md between markers.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

import numpy as np
from analysis_common import Run
from benchmark_results import write_section

from quintet.cards import CLASSIC_DECK, format_cards
from quintet.cliutil import OneLineParser, int_at_least, positive_float, positive_int
from quintet.game import Arrangement, Deal
from solver.engines.search import solve_search
from solver.problem.best_response import BestResponseProblem, slot_values
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import ArrangementMix, Greedy, Mixture, OpponentModel, Uniform

EXAMPLE = "8h 7h 9d Ts 7s Qc Jc"


def random_good_arrangement(tables: DealTables, rng: np.random.Generator, top: int = 30) -> Arrangement:
    order = np.argsort(-tables.classes, kind="stable")
    masks = tables.masks[order].astype(np.int64)
    used = 0
    picks = []
    for _ in range(tables.n_slots - 1):
        free = np.flatnonzero((masks & used) == 0)[:top]
        m = int(masks[free[rng.integers(len(free))]])
        picks.append(m)
        used |= m
    picks.append(tables.deal.live & ~used)
    return Arrangement(tuple(picks[i] for i in rng.permutation(len(picks))))


def random_mix(tables: DealTables, n: int, rng: np.random.Generator) -> ArrangementMix:
    arrangements = tuple(random_good_arrangement(tables, rng) for _ in range(n))
    return ArrangementMix(arrangements, tuple(rng.random(n) + 0.05), name=f"mix{n}")


def deals(n: int, seed: int) -> list[Deal]:
    rng = np.random.default_rng(seed)
    cards = CLASSIC_DECK.cards()
    out = [Deal.from_exposed(EXAMPLE)]
    for _ in range(n):
        out.append(Deal.from_exposed([int(c) for c in rng.choice(cards, 7, replace=False)]))
    return out


def opponents(tables: DealTables, rng: np.random.Generator) -> dict[str, OpponentModel]:
    return {
        "uniform": Uniform(),
        "greedy": Greedy(),
        "uniform+greedy": Mixture((Uniform(), Greedy()), (0.5, 0.5)),
        "mix10": random_mix(tables, 10, rng),
        "mix100": random_mix(tables, 100, rng),
    }


def summarize(times: list[float]) -> tuple[float, float, float]:
    arr = np.array(times)
    return float(np.median(arr)), float(np.percentile(arr, 90)), float(arr.max())


def time_cli(runs: int) -> tuple[float, float, float]:
    """(median wall s, max wall s, median CPU s of the child process) of the CLI, warm cache."""
    cmd = [sys.executable, "-m", "solver.apps.solve_cli", EXAMPLE, "--opponent", "uniform", "--json"]
    subprocess.run(cmd, check=True, capture_output=True)  # warm the numba cache
    times, cpus = [], []
    for _ in range(runs):
        t, c = time.perf_counter(), os.times()
        subprocess.run(cmd, check=True, capture_output=True)
        c2 = os.times()
        times.append(time.perf_counter() - t)
        cpus.append((c2.children_user - c.children_user) + (c2.children_system - c.children_system))
    return statistics.median(times), max(times), statistics.median(cpus)


def target_lines(search_times: dict[str, list[float]], proven: dict[str, int], n: int, cli_median: float,
                 cli_cpu: float) -> list[str]:
    """Each target with the measured figure and met / MISSED, computed (not written by hand)."""
    mixes = [k for k in search_times if k != "uniform"]
    every = [t for ts in search_times.values() for t in ts]
    checks = [
        ("every best response proven optimal", sum(proven.values()) == n * len(proven),
         f"{sum(proven.values())}/{n * len(proven)}"),
        ("median ≤ 0.1 s against uniform", summarize(search_times["uniform"])[0] <= 0.1,
         f"{summarize(search_times['uniform'])[0]:.4f} s"),
        ("median ≤ 0.5 s against each other model", all(summarize(search_times[k])[0] <= 0.5 for k in mixes),
         ", ".join(f"{k} {summarize(search_times[k])[0]:.4f} s" for k in mixes)),
        ("max ≤ 2 s", max(every) <= 2.0, f"{max(every):.3f} s"),
        ("CLI median ≤ 1.5 s (wall, process start to exit)", cli_median <= 1.5,
         f"{cli_median:.3f} s wall ({cli_cpu:.3f} s CPU)"),
    ]
    missed = [name for name, ok, _ in checks if not ok]
    return ["Targets (each computed from the figures above):", ""] + [
        f"- {name}: {figure} — {'met' if ok else '**MISSED**'}" for name, ok, figure in checks] + [
        "", f"Targets missed: {', '.join(missed) if missed else 'none'}."]


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int_at_least(0), default=100, help="random deals besides the example (default 100)")
    ap.add_argument("--seed", type=int_at_least(0), default=2026)
    ap.add_argument("--time-limit", type=positive_float, default=60.0, help="per solve, search engine")
    ap.add_argument("--cpsat-deals", type=int_at_least(0), default=3,
                    help="deals (from the start of the list) for CP-SAT")
    ap.add_argument("--cpsat-limit", type=positive_float, default=20.0, help="CP-SAT time limit per solve")
    ap.add_argument("--cli-runs", type=positive_int, default=5)
    ap.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = ap.parse_args()
    run = Run()

    all_deals = deals(args.deals, args.seed)
    rng = np.random.default_rng(args.seed + 1)
    # warm-up (JIT compile or load from cache) outside the timings
    warm_tables = DealTables.build(all_deals[0])
    warm = BestResponseProblem(warm_tables, slot_values(Uniform().marginals(warm_tables), (3, 4, 5, 6, 7)))
    solve_search(warm)

    names = ["uniform", "greedy", "uniform+greedy", "mix10", "mix100"]
    search_times: dict[str, list[float]] = {n: [] for n in names}
    proven: dict[str, int] = {n: 0 for n in names}
    cpsat_rows: list[tuple[str, str, float, bool, float, float]] = []
    for i, deal in enumerate(all_deals):
        tables = DealTables.build(deal)
        for name, model in opponents(tables, rng).items():
            values = slot_values(model.marginals(tables), deal.rules.weights)
            problem = BestResponseProblem(tables, values)
            t = time.process_time()
            result = solve_search(problem, time_limit=args.time_limit)
            search_times[name].append(time.process_time() - t)
            proven[name] += result.optimal
            if i < args.cpsat_deals:
                from solver.engines.cpsat import solve_cpsat

                c = solve_cpsat(problem, time_limit=args.cpsat_limit, workers=1)
                cpsat_rows.append((format_cards(deal.exposed), name, c.seconds, c.optimal,
                                   result.value - c.value, c.bound - result.value))
        if i % 10 == 0:
            print(f"  {i + 1}/{len(all_deals)} deals", file=sys.stderr)

    lines = [
        run.line(), "",
        f"Deals: the example + {args.deals} random (seed {args.seed}); one worker; search time limit "
        f"{args.time_limit:g} s. CPU seconds (time.process_time) to a proven optimum (table build excluded).",
        "",
        "| opponent | engine | proven | median s | p90 s | max s |",
        "|---|---|---|---|---|---|",
    ]
    for name in names:
        med, p90, mx = summarize(search_times[name])
        lines.append(f"| {name} | search | {proven[name]}/{len(all_deals)} | {med:.4f} | {p90:.4f} | {mx:.4f} |")
    if cpsat_rows:
        lines += [
            "",
            f"CP-SAT on the first {args.cpsat_deals} deals, time limit {args.cpsat_limit:g} s, one worker:",
            "",
            "| exposed | opponent | seconds | proven | search optimum − CP-SAT value | CP-SAT bound − optimum |",
            "|---|---|---|---|---|---|",
        ]
        for exposed, name, secs, opt, short, over in cpsat_rows:
            lines.append(f"| {exposed} | {name} | {secs:.2f} | {opt} | {short:.4f} | {over:.4f} |")
    cli_med, cli_max, cli_cpu = time_cli(args.cli_runs)
    lines += ["", f"CLI `quintet-solve {EXAMPLE} --opponent uniform --json`, process start to exit, warm cache: "
              f"median {cli_med:.3f} s wall (max {cli_max:.3f} s), {cli_cpu:.3f} s CPU of the child, over "
              f"{args.cli_runs} runs. (The Start-up and quintet-serve sections time the same command under their own "
              "conditions — cold and warm caches, a loaded server — so their figures differ from this one.)", ""]
    lines += target_lines(search_times, proven, len(all_deals), cli_med, cli_cpu)
    report = "\n".join(lines)
    print(report)
    if not args.no_write:
        write_section("best-response", "Best response", report)


if __name__ == "__main__":
    main()
