"""Equilibrium benchmark: time to a certified ε on canonical deals drawn uniformly, the
book's cost, and independent rechecks of the certificates.

    python benchmarks/bench_equilibrium.py                        # 300 canonical deals, ε 0.01
    python benchmarks/bench_equilibrium.py --deals 30 --verify 10 # quicker, CP-SAT on 10
    python benchmarks/bench_equilibrium.py --population dealt     # 300 deals as a player meets them

Deals: the rules' example deal, then ``--deals`` suit-canonical classes drawn uniformly from
the 156,248 (``solver.apps.batch.book_sample``) — so the sample's mean CPU time per deal, times the
number of classes, estimates the whole book's cost.  ``--population dealt``: ``--deals`` deals dealt
at random instead (``Deal.random_series``, each exposed set equally likely: what a player meets),
written to their own section and plot.  Each deal is solved from scratch (no store) by
``solver.advisor.equilibrium.equilibrium`` until its certified exploitability is ≤ ε or the time
limit, in this one process.  Times are wall seconds and CPU seconds of the process
(``time.process_time``) per deal, kernels compiled beforehand.  One line per deal goes to
``benchmarks/data/equilibrium-classes.jsonl`` (or ``-dealt``), the run's provenance last.
``--verify K``: the certificates of the first K deals are rechecked by CP-SAT
(``solver.advisor.verify.verify_equilibrium``): each must be confirmed, never refuted.  Writes
the Equilibrium section of benchmarks/RESULTS.md and ``benchmarks/equilibrium_times.png`` (the
distribution of solve times, and ε against time).
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
from analysis_common import DATA, Run, append_jsonl
from benchmark_results import write_section

from quintet.cards import format_cards
from quintet.cliutil import OneLineParser, float_at_least, int_at_least, positive_float, positive_int, seed_int
from quintet.game import Deal
from quintet.rules import get_rules
from solver.advisor.equilibrium import certified_within, equilibrium
from solver.advisor.stats import mean_ci95
from solver.advisor.verify import verify_equilibrium
from solver.apps.batch import book_sample

HERE = Path(__file__).parent
EXAMPLE = "8h 7h 9d Ts 7s Qc Jc"
BOOK = 156_248  # suit-canonical classes of exposed sets (quintet-batch --book-size)


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive_int, default=300, help="deals in the sample (default 300)")
    ap.add_argument("--seed", type=seed_int, default=2026)
    ap.add_argument("--epsilon", type=float_at_least(0), default=0.01)
    ap.add_argument("--time-limit", type=positive_float, default=120.0, help="seconds per deal (default 120)")
    ap.add_argument("--verify", type=int_at_least(0), default=20, help="recheck this many certificates with CP-SAT")
    ap.add_argument("--verify-time-limit", type=positive_float, default=600.0)
    ap.add_argument("--population", choices=("classes", "dealt"), default="classes",
                    help="classes drawn uniformly (the book's cost; default) or deals as dealt")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    dealt = args.population == "dealt"
    run = Run()

    rules = get_rules("classic")
    if dealt:
        sampled = Deal.random_series(args.seed, args.deals, rules)
    else:
        sampled = [Deal(int(k), rules) for k in book_sample(args.deals, args.seed, rules)]
    deals = [Deal.from_exposed(EXAMPLE), *sampled]
    equilibrium(Deal.from_exposed("As Ks Qs Js Ts Ah Kh"), epsilon=1.0)  # compile (or load) the kernels
    start = time.perf_counter()
    data = DATA / f"equilibrium-{args.population}.jsonl"
    if not args.no_write:
        data.write_text("")
    rows = []
    curves = []
    checks = {"confirmed": 0, "refuted": 0, "inconclusive": 0}
    refuted = []
    for i, deal in enumerate(deals):
        t0, w0 = time.process_time(), time.perf_counter()
        cpu_at: list[float] = []  # CPU seconds at each iteration (the history's own clock is wall time)
        r = equilibrium(deal, epsilon=args.epsilon, time_limit=args.time_limit,
                        progress=lambda _rec, t0=t0, cpu_at=cpu_at: cpu_at.append(time.process_time() - t0))
        cpu, wall = time.process_time() - t0, time.perf_counter() - w0
        exact_calls = sum(1 for h in r.history if h.exact)
        converged = certified_within(r.exploitability, args.epsilon)
        rows.append((format_cards(deal.exposed), cpu, r.exploitability, converged, r.iterations, exact_calls,
                     len(r.mix), i == 0, wall))
        curves.append((cpu_at, [max(h.exploitability, 1e-4) for h in r.history], i == 0))
        if not args.no_write:
            append_jsonl(data, {"exposed": rows[-1][0], "example": i == 0, "cpu_seconds": cpu, "wall_seconds": wall,
                                "exploitability": r.exploitability, "converged": converged,
                                "iterations": r.iterations, "exact": exact_calls, "support": len(r.mix)})
        line = (f"{i}/{len(deals) - 1} {rows[-1][0]}: ε {r.exploitability:.5f} in {cpu:.2f} s cpu ({wall:.2f} s wall), "
                f"{r.iterations} iterations ({exact_calls} exact)")
        if i < args.verify:  # the example deal and the first verify − 1 sampled deals
            check = verify_equilibrium(r, time_limit=args.verify_time_limit)
            checks[check.status] += 1
            if check.status == "refuted":
                refuted.append(f"{rows[-1][0]}: {check.describe()}")
            line += f"; CP-SAT {check.status} ({check.seconds:.1f} s)"
        print(line, flush=True)

    sample = [row for row in rows if not row[7]]  # the uniform sample, without the example deal
    cpu = np.array([row[1] for row in sample])
    converged = sum(row[3] for row in sample)
    mean, half = mean_ci95(cpu.tolist())
    hardest = sorted(sample, key=lambda row: -row[1])[:5]
    example = rows[0]
    q = np.quantile(cpu, [0.5, 0.9, 0.95, 0.99])
    wall = np.array([row[8] for row in sample])
    qw = np.quantile(wall, [0.5, 0.95])
    if dealt:
        population = (f"{len(sample)} deals **dealt at random** (`Deal.random_series`, seed {args.seed}: every "
                      "exposed set equally likely, so a class weighs its orbit size — the deals a player meets; "
                      "see Populations)")
    else:
        population = (f"{len(sample)} suit-canonical deals drawn **uniformly over the classes** (`book_sample`, "
                      f"seed {args.seed}) of the {BOOK:,} — the population of the book's cost, not of deals as "
                      "dealt (which weigh a class by its orbit size; see Populations)")
    lines = [
        run.line(),
        "",
        f"{population} — each solved from scratch (no store) to certified ε ≤ {args.epsilon:g}, "
        f"time limit {args.time_limit:g} s; wall and CPU seconds per deal (one process; kernels compiled "
        f"beforehand; data `benchmarks/data/{data.name}`; {time.perf_counter() - start:.0f} s wall in all).",
        "",
        f"- converged: {converged} of {len(sample)}; within 20 s: {int((cpu <= 20).sum())} of {len(sample)}",
        f"- **wall seconds per deal: median {qw[0]:.2f}, p95 {qw[1]:.2f}, max {wall.max():.2f}** (the speed goals: "
        "a median ≤ 1, a p95 ≤ 5 and every deal ≤ 20)",
        f"- CPU seconds per deal: median {q[0]:.2f}, p90 {q[1]:.2f}, p95 {q[2]:.2f}, p99 {q[3]:.2f}, "
        f"max {cpu.max():.2f}, mean {mean:.2f} (95% CI {mean - half:.2f}–{mean + half:.2f}) — one core's work, "
        "the book's cost",
    ]
    if not dealt:
        lines.append(
            f"- the book at ε ≤ {args.epsilon:g}: {BOOK:,} classes × the mean = **{BOOK * mean / 3600:.1f} "
            f"CPU-hours** (95% CI {BOOK * (mean - half) / 3600:.1f}–{BOOK * (mean + half) / 3600:.1f}; solve "
            "times are heavy-tailed, so treat the interval as indicative; the goal is ≤ 30)")
    lines += [
        f"- the rules' example deal ({example[0]}): {example[1]:.2f} s, ε {example[2]:.5f}, "
        f"{example[4]} iterations ({example[5]} with the exact best response)",
        f"- certificates rechecked by CP-SAT (`--verify {args.verify}`: the example and the first "
        f"{max(0, args.verify - 1)} sampled deals): {checks['confirmed']} confirmed, "
        f"{checks['refuted']} refuted, {checks['inconclusive']} inconclusive (CP-SAT out of time: not rechecked)",
        "",
        "Hardest deals of the sample:",
        "",
        "| exposed | CPU s | certified ε | iterations | exact best responses | support |",
        "|---|---|---|---|---|---|",
    ]
    for exposed, secs, eps, _, it, exact, support, _, _ in hardest:
        lines.append(f"| {exposed} | {secs:.2f} | {eps:.5f} | {it} | {exact} | {support} |")
    if refuted:
        lines += ["", "Refuted:", ""] + [f"- {r}" for r in refuted]
    plot = "equilibrium_times_dealt.png" if dealt else "equilibrium_times.png"
    lines += ["", f"![solve times]({plot})"]
    report = "\n".join(lines)
    print(report)
    if args.no_write:
        return
    append_jsonl(data, {"run": run.to_dict()})
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    xs = np.sort(cpu)
    a1.plot(xs, 1 - np.arange(len(xs)) / len(xs), drawstyle="steps-post")
    a1.set_xscale("log")
    a1.set_yscale("log")
    a1.set_xlabel(f"CPU seconds to certified ε ≤ {args.epsilon:g}")
    a1.set_ylabel("share of deals taking at least that long")
    sampled = [c for c in curves if not c[2]]
    slowest = sorted(sampled, key=lambda c: -(c[0][-1] if c[0] else 0.0))[:10]
    for ts, eps, _ in sampled:
        a2.step(ts, eps, where="post", lw=0.5, color="grey", alpha=0.25)
    for k, (ts, eps, _) in enumerate(slowest):
        a2.step(ts, eps, where="post", lw=1.2, color=f"C{k}")
    a2.set_xscale("log")
    a2.set_yscale("log")
    a2.set_xlabel("CPU seconds (log)")
    a2.set_ylabel("certified ε (points, log; 0 drawn at 1e-4)")
    a2.axhline(args.epsilon, color="black", ls=":", lw=0.8)
    a2.set_title(f"ε against CPU time: all {len(sampled)} deals (grey), the 10 slowest in colour", fontsize=9)
    drawn = "deals as dealt" if dealt else "classes uniformly"
    a1.set_title(f"The tail of solve times ({len(sampled)} {drawn}, seed {args.seed})", fontsize=9)
    fig.suptitle(f"Equilibrium solves to certified ε ≤ {args.epsilon:g}, one CPU clock", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))  # room for the suptitle above the panels' titles
    fig.savefig(HERE / plot, dpi=110)
    if dealt:
        write_section("equilibrium-dealt", "Equilibrium, deals as dealt", report)
    else:
        write_section("equilibrium", "Equilibrium", report)


if __name__ == "__main__":
    main()
