"""Equilibrium benchmark: certified exploitability ε against time, per deal.

    python benchmarks/bench_equilibrium.py                  # example deal + 10 seeded deals
    python benchmarks/bench_equilibrium.py --deals 3 --time-limit 120

For each deal: the double oracle (``solver.equilibrium.equilibrium``) runs until its
certified ε is ≤ the target (0.01 by default) or the time limit (600 s); one process, the
search single-threaded.  Reports the time to certified ε ≤ 0.05 and ≤ 0.01, iterations,
pool and support sizes, and plots ε(t) for every deal (log scale) to
``benchmarks/equilibrium_eps.png``.  Figures go to benchmarks/RESULTS.md between markers.
Needs matplotlib for the plot (``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

import numpy as np

from quintet.cards import CLASSIC_DECK, format_cards
from quintet.game import Deal
from solver.equilibrium import equilibrium
from solver.search import solve_search  # noqa: F401  (import compiles/loads the kernels up front)

HERE = Path(__file__).parent
EXAMPLE = "8h 7h 9d Ts 7s Qc Jc"


def first_time(history: list[dict[str, float]], eps: float) -> float | None:
    return next((h["seconds"] for h in history if h["best_exploitability"] <= eps), None)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=10, help="seeded random deals besides the example")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--epsilon", type=float, default=0.01)
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--no-write", action="store_true", help="do not update RESULTS.md or the plot")
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    deals = [Deal.from_exposed(EXAMPLE)] + [
        Deal.from_exposed([int(c) for c in rng.choice(CLASSIC_DECK.cards(), 7, replace=False)])
        for _ in range(args.deals)
    ]
    equilibrium(Deal.from_exposed("As Ks Qs Js Ts Ah Kh"), epsilon=1.0, time_limit=60)  # warm-up (JIT)

    rows, curves = [], []
    for deal in deals:
        r = equilibrium(deal, epsilon=args.epsilon, time_limit=args.time_limit)
        t05, t01 = first_time(list(r.history), 0.05), first_time(list(r.history), 0.01)
        rows.append((format_cards(deal.exposed), r.exploitability, r.proven, t05, t01, r.iterations,
                     r.pool_size, len(r.mix), r.seconds))
        curves.append((format_cards(deal.exposed), [h["seconds"] for h in r.history],
                       [max(h["best_exploitability"], 1e-4) for h in r.history]))
        print(f"{rows[-1][0]}: ε {r.exploitability:.5f} after {r.seconds:.1f} s, {r.iterations} iterations", flush=True)

    def fmt(t: float | None) -> str:
        return "—" if t is None else f"{t:.1f}"

    lines = [
        f"The example deal and {args.deals} seeded random deals (seed {args.seed}); target ε {args.epsilon:g}, "
        f"time limit {args.time_limit:g} s, 2 cores (search single-threaded).",
        "",
        "| exposed | certified ε | exact BR | s to ε≤0.05 | s to ε≤0.01 | iterations | pool | support | seconds |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for exposed, eps, proven, t05, t01, it, pool, support, secs in rows:
        lines.append(f"| {exposed} | {eps:.5f} | {proven} | {fmt(t05)} | {fmt(t01)} | {it} | {pool} | {support} "
                     f"| {secs:.1f} |")
    t01s = [r[4] if r[4] is not None else float("inf") for r in rows]
    all05 = all(r[3] is not None and r[3] <= 600 for r in rows)
    lines += [
        "",
        f"Every deal certified ε ≤ 0.05 within 10 minutes: {'yes' if all05 else 'no'}. "
        f"Median time to certified ε ≤ 0.01: {statistics.median(t01s):.1f} s "
        f"(targets: all ≤ 0.05 within 600 s; median ≤ 120 s).",
        "",
        "![certified ε against time](equilibrium_eps.png)",
    ]
    report = "\n".join(lines)
    print(report)
    if args.no_write:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    for label, ts, eps in curves:
        ax.step(ts, eps, where="post", label=label)
    ax.set_yscale("log")
    ax.set_xlabel("seconds")
    ax.set_ylabel("certified exploitability ε (points, floor 1e-4)")
    ax.axhline(0.05, color="grey", ls="--", lw=0.8)
    ax.axhline(0.01, color="grey", ls=":", lw=0.8)
    ax.set_title("Double oracle: certified ε(t)")
    ax.legend(fontsize=6, ncol=2)
    fig.tight_layout()
    fig.savefig(HERE / "equilibrium_eps.png", dpi=110)
    from benchmark_results import write_section

    write_section("equilibrium", "Equilibrium", report)


if __name__ == "__main__":
    main()
