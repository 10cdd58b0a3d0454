"""Convergence benchmark: certified ε against iterations and CPU seconds, four algorithms, fixed deals.

    python benchmarks/bench_convergence.py                          # 30 dealt deals, 60 CPU s per method
    python benchmarks/bench_convergence.py --deals 3 --budget 10 --no-write

Deals: ``Deal.random(seed)`` for ``--deals`` seeds from ``--seed`` (as dealt).  Each method
starts from the best response to ``uniform`` and every ε it reports is *certified*: an exact
best response's value against the mix (its proven bound when the search stops early), the
best so far.  Methods:

1. **double oracle as shipped** — ``solver.games.double_oracle.double_oracle`` with the
   default ``DoubleOracleOptions`` and the Quintet game's cheap oracle (local search);
2. **double oracle, exact oracle only** — the same, through a game wrapper without
   ``improving_responses`` and ``exact_every=1``: every iteration one exact best response;
3. **fictitious play** (Brown 1951) over the same exact oracle — each iteration adds the exact
   best response to the *empirical* mix (the average of all responses so far); that best
   response's value is the certified ε of the average it answered;
4. **LP over a fixed sampled pool** — ``--pool-sizes`` partitions drawn at random from the
   deal's strong packets (at each of the first four packets a uniformly random one of the 30
   strongest still free, as ``bench_best_response`` builds its opponents), each in all 120
   slot orders; the pool game's equilibrium (LP with constraint generation over the pool),
   then one exact best response certifies it.  Nested pools (the smaller is a prefix).

Every method stops at ``--target`` ε or after ``--budget`` CPU seconds (time.process_time of
this process, one thread).  Writes the ``convergence`` section of RESULTS.md,
``benchmarks/data/convergence.json`` and ``benchmarks/convergence.png`` (median over deals,
interquartile band; one clock: CPU seconds).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from collections.abc import Sequence
from itertools import permutations
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from analysis_common import (  # noqa: E402
    DATA,
    Run,
    bootstrap_ci,
    holm,
    save_data,
    savefig,
    sign_test_p,
    warm_kernels,
)
from bench_best_response import random_good_arrangement  # noqa: E402
from benchmark_results import write_section  # noqa: E402

from quintet.game import Deal  # noqa: E402
from solver.engines.base import DEFAULT_ENGINE, solve  # noqa: E402
from solver.games.double_oracle import DoubleOracleOptions, IterationRecord, double_oracle  # noqa: E402
from solver.games.lp import solve_symmetric_lp  # noqa: E402
from solver.games.quintet_game import QuintetGame, Strategy  # noqa: E402
from solver.problem.best_response import BestResponseProblem, slot_values  # noqa: E402
from solver.problem.deal_tables import DealTables  # noqa: E402
from solver.problem.opponents import Uniform  # noqa: E402

METHODS = ["do-shipped", "do-exact-only", "fictitious-play", "lp-pool"]
LABELS = {"do-shipped": "double oracle as shipped (cheap + exact oracle)",
          "do-exact-only": "double oracle, exact oracle only",
          "fictitious-play": "fictitious play over the exact oracle",
          "lp-pool": "LP over a fixed sampled pool (certified)"}
FLOOR = 1e-4  # ε = 0 is drawn here on the log axis
TRIVIAL = 25.0  # no arrangement gains more than the sum of the slot weights


class ExactOnlyGame:
    """The Quintet game without its cheap oracle (``CheapOracle`` is not implemented)."""

    def __init__(self, game: QuintetGame) -> None:
        self.game = game

    def payoffs(self, rows: Sequence[Strategy], cols: Sequence[Strategy]) -> np.ndarray:
        return self.game.payoffs(rows, cols)

    def payoffs_against(self, rows: Sequence[Strategy], support: Sequence[Strategy], probabilities: np.ndarray
                        ) -> np.ndarray:
        return self.game.payoffs_against(rows, support, probabilities)

    def best_response(self, support, probabilities, *, time_limit, hint, stop_event):  # type: ignore[no-untyped-def]
        return self.game.best_response(support, probabilities, time_limit=time_limit, hint=hint,
                                       stop_event=stop_event)

    def orbit(self, strategy: Strategy) -> list[Strategy]:
        return self.game.orbit(strategy)


def uniform_start(tables: DealTables) -> Strategy:
    problem = BestResponseProblem(tables, slot_values(Uniform().marginals(tables), tables.rules.weights, "margin"))
    return solve(problem, DEFAULT_ENGINE, None, None).packets


def run_double_oracle(tables: DealTables, exact_only: bool, args: argparse.Namespace) -> list[tuple[int, float, float]]:
    cpu0 = time.process_time()
    game = QuintetGame(tables)
    first = uniform_start(tables)
    trace: list[tuple[int, float, float]] = []

    def progress(r: IterationRecord) -> None:
        trace.append((r.iteration, time.process_time() - cpu0, max(r.exploitability, 0.0)))

    options = DoubleOracleOptions(exact_every=1) if exact_only else DoubleOracleOptions()
    g = ExactOnlyGame(game) if exact_only else game
    double_oracle(g, [first], epsilon=args.target, time_limit=args.budget * args.wall_factor,  # type: ignore[arg-type]
                  trivial_bound=TRIVIAL, progress=progress, options=options)
    return trace


def run_fictitious_play(tables: DealTables, args: argparse.Namespace) -> list[tuple[int, float, float]]:
    cpu0 = time.process_time()
    game = QuintetGame(tables)
    counts: dict[Strategy, int] = {uniform_start(tables): 1}
    best = TRIVIAL
    trace = []
    hint: Strategy | None = None
    for t in range(1, args.fp_iterations + 1):
        support = list(counts)
        probs = np.array([counts[s] for s in support], dtype=np.float64)
        probs /= probs.sum()
        left = args.budget - (time.process_time() - cpu0)
        r = game.best_response(support, probs, time_limit=max(1.0, left * args.wall_factor), hint=hint,
                               stop_event=None)
        best = min(best, r.value if r.proven else r.bound)
        trace.append((t, time.process_time() - cpu0, max(best, 0.0)))
        if best <= args.target or time.process_time() - cpu0 >= args.budget:
            break
        counts[r.strategy] = counts.get(r.strategy, 0) + 1
        hint = r.strategy
    return trace


def pool_equilibrium(game: QuintetGame, pool: list[Strategy],
                     max_added: int = 120) -> tuple[list[Strategy], np.ndarray]:
    """The equilibrium of the game restricted to ``pool``: LP on a working set, adding the pool
    strategies that gain against its mix (most first) until none gains."""
    working = list(range(min(120, len(pool))))
    while True:
        ws = [pool[i] for i in working]
        x, _ = solve_symmetric_lp(game.payoffs(ws, ws))
        keep = x > 1e-9
        support = [s for s, k in zip(ws, keep, strict=True) if k]
        probs = x[keep] / x[keep].sum()
        gains = game.payoffs_against(pool, support, probs)
        gains[working] = -np.inf
        cand = np.flatnonzero(gains > 1e-9)
        if cand.size == 0:
            return support, probs
        working += cand[np.argsort(-gains[cand])][:max_added].tolist()


def run_lp_pool(tables: DealTables, deal_seed: int, args: argparse.Namespace) -> list[tuple[int, float, float]]:
    """(partitions in the pool, CPU seconds for this pool size from scratch, certified ε)."""
    rng = np.random.default_rng([args.seed, deal_seed, 7])
    game = QuintetGame(tables)
    partitions = []
    for _ in range(max(args.pool_sizes)):
        a = random_good_arrangement(tables, rng)
        partitions.append(tuple(tables.index_of(m) for m in a.packets))
    out = []
    for k in args.pool_sizes:
        cpu0 = time.process_time()
        pool = list(dict.fromkeys(tuple(p) for part in partitions[:k] for p in permutations(part)))
        support, probs = pool_equilibrium(game, pool)
        r = game.best_response(support, probs, time_limit=args.budget * args.wall_factor, hint=None, stop_event=None)
        out.append((k, time.process_time() - cpu0, max(r.value if r.proven else r.bound, 0.0)))
    return out


def first_reach(trace: list[tuple[int, float, float]], eps: float, budget: float) -> tuple[float, float]:
    """(iteration, CPU seconds) when the certified ε first reached ``eps`` within ``budget`` CPU
    seconds (inf if not: an iteration finished past the budget does not count)."""
    for it, cpu, e in trace:
        if cpu > budget:
            break
        if e <= eps + 1e-9:
            return float(it), cpu
    return float("inf"), float("inf")


def at_budget(trace: list[tuple[int, float, float]], budget: float) -> float:
    """The least certified ε among the iterations finished within ``budget`` CPU seconds."""
    done = [e for _, cpu, e in trace if cpu <= budget]
    return min(done) if done else TRIVIAL


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=30, help="dealt deals (default 30)")
    ap.add_argument("--seed", type=int, default=4000, help="first seed (Deal.random), default 4000")
    ap.add_argument("--target", type=float, default=0.005, help="stop at this certified ε (default 0.005)")
    ap.add_argument("--budget", type=float, default=60.0, help="CPU seconds per method and deal (default 60)")
    ap.add_argument("--wall-factor", type=float, default=4.0,
                    help="wall-clock limits given to the solvers = budget × this (they count wall time)")
    ap.add_argument("--fp-iterations", type=int, default=2000, help="fictitious play's iteration cap (default 2000)")
    ap.add_argument("--pool-sizes", default="10,30,100,300,1000",
                    help="partitions in the sampled pools (each × 120 slot orders)")
    ap.add_argument("--report", action="store_true",
                    help="only rewrite the RESULTS section and the plot from benchmarks/data/convergence.json")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.report:
        saved = json.loads((DATA / "convergence.json").read_text())
        args = argparse.Namespace(**{**saved["params"], "report": True, "no_write": args.no_write})
        deals = saved["deals"]
        reread = Run()
        report = make_report(deals, Run.from_dict(saved["run"]), args, reread=f"`{reread.command}` at commit "
                             f"`{reread.commit}` on {reread.date}")
        print(report)
        if args.no_write:
            return
        plot(deals, args)
        write_section("convergence", "Convergence: double oracle, fictitious play, a sampled-pool LP", report)
        return
    args.pool_sizes = [int(x) for x in str(args.pool_sizes).split(",")]
    run = Run()
    warm_kernels()
    deals = []
    for i in range(args.deals):
        seed = args.seed + i
        deal = Deal.random(seed)
        tables = DealTables.build(deal)
        rec: dict[str, object] = {"seed": seed, "exposed": deal.format()}
        rec["do-shipped"] = run_double_oracle(tables, False, args)
        rec["do-exact-only"] = run_double_oracle(tables, True, args)
        rec["fictitious-play"] = run_fictitious_play(tables, args)
        rec["lp-pool"] = run_lp_pool(tables, seed, args)
        deals.append(rec)
        print(f"{i + 1:3d}/{args.deals} {deal.format():22s} " + "  ".join(
            f"{m}: ε {rec[m][-1][2]:.4f} in {rec[m][-1][0]} it / {rec[m][-1][1]:.1f} s"  # type: ignore[index]
            for m in METHODS), flush=True)
        if not args.no_write:
            save_data("convergence", run, {"params": vars(args), "deals": deals, "complete": False})
    report = make_report(deals, run, args)
    print(report)
    if args.no_write:
        return
    save_data("convergence", run, {"params": vars(args), "deals": deals, "complete": True})
    plot(deals, args)
    write_section("convergence", "Convergence: double oracle, fictitious play, a sampled-pool LP", report)


def make_report(deals: list[dict], run: Run, args: argparse.Namespace,  # type: ignore[type-arg]
                reread: str | None = None) -> str:
    n = len(deals)
    B = args.budget
    used = {m: [d[m][-1][1] for d in deals] for m in METHODS[:3]}
    lines = [run.line(), ""]
    if reread:
        lines += [f"*This section re-reads the data of that run (`benchmarks/data/convergence.json`): {reread}.*", ""]
    lines += [f"{n} deals as dealt (`Deal.random`, seeds {args.seed}–{args.seed + n - 1}); each method from the best "
              f"response to uniform. **Budgets as run:** fictitious play stopped at {B:g} CPU s; the double oracles "
              f"had a wall-clock limit of {B:g} × {args.wall_factor:g} = {B * args.wall_factor:g} s (their best "
              "responses count wall time), so they could run past the CPU budget (most CPU s in one run: "
              + ", ".join(f"{LABELS[m]} {max(used[m]):.1f}" for m in METHODS[:3]) + "). **Every figure below "
              f"cuts each trace at {B:g} CPU s** (only iterations finished within it count), so each method has "
              "the same budget on the same clock (`time.process_time`). Every ε is certified by the exact best "
              "response (the best so far). Medians with 95% bootstrap intervals over deals (a deal that did not "
              "reach the target within the budget counts as ∞: an interval reaching ∞ is shown as such). "
              "Fictitious play adds one best response (with its slot orders) per iteration, as the double "
              "oracles do, but plays the empirical mix of the responses instead of the restricted game's "
              f"equilibrium; it stopped after {min(len(d['fictitious-play']) for d in deals)}–"
              f"{max(len(d['fictitious-play']) for d in deals)} iterations. It is the only baseline run here.", "",
              "| method | reached ε ≤ 0.05 | CPU s to ε ≤ 0.05: median [95% CI] | iterations to ε ≤ 0.05 (median) | "
              f"reached ε ≤ {args.target:g} | CPU s to ε ≤ {args.target:g}: median [95% CI] | "
              f"certified ε at {B:g} CPU s: median |",
              "|---|---:|---|---:|---:|---|---:|"]

    def _count(v: float) -> str:
        return f"{v:.0f}" if np.isfinite(v) else "∞"

    def cell(vals: np.ndarray) -> str:
        with np.errstate(invalid="ignore"):
            m, lo, hi = bootstrap_ci(vals, np.median)
        return " ".join(f"{v:.2f}" if np.isfinite(v) else "∞" for v in (m,)) + " [" + ", ".join(
            f"{v:.2f}" if np.isfinite(v) else "∞" for v in (lo, hi)) + "]"

    for m in METHODS[:3]:
        r05 = np.array([first_reach(d[m], 0.05, B) for d in deals])
        rt = np.array([first_reach(d[m], args.target, B) for d in deals])
        final = np.array([at_budget(d[m], B) for d in deals])
        lines.append(f"| {LABELS[m]} | {int(np.isfinite(r05[:, 1]).sum())}/{n} | {cell(r05[:, 1])} | "
                     f"{_count(np.median(r05[:, 0]))} | {int(np.isfinite(rt[:, 1]).sum())}/{n} | {cell(rt[:, 1])} | "
                     f"{np.median(final):.4f} |")
    lines += ["", "Paired, the double oracle as shipped against the exact oracle only, same deals, same budget "
              "(ratio = shipped CPU s / exact-only CPU s to the target on the deals both reached; a deal only one "
              "reached is a win for that one; two-sided sign tests, Holm-adjusted over the two targets):", "",
              "| target ε | both reached | shipped faster | exact-only faster | median ratio [95% bootstrap CI] | "
              "sign test p (Holm) |", "|---:|---:|---:|---:|---|---:|"]
    rows, pvalues = [], []
    for eps in (0.05, args.target):
        a = np.array([first_reach(d["do-shipped"], eps, B)[1] for d in deals])
        b = np.array([first_reach(d["do-exact-only"], eps, B)[1] for d in deals])
        both = np.isfinite(a) & np.isfinite(b)
        wins = int(np.sum(both & (a < b)) + np.sum(np.isfinite(a) & ~np.isfinite(b)))
        losses = int(np.sum(both & (b < a)) + np.sum(np.isfinite(b) & ~np.isfinite(a)))
        rows.append((eps, int(both.sum()), wins, losses, bootstrap_ci(a[both] / b[both], np.median)))
        pvalues.append(sign_test_p(wins, losses))
    for (eps, nb, w, lo_, (ratio, r_lo, r_hi)), p in zip(rows, holm(pvalues), strict=True):
        lines.append(f"| {eps:g} | {nb} | {w} | {lo_} | {ratio:.2f} [{r_lo:.2f}, {r_hi:.2f}] | {p:.2g} |")
    lines += ["", "Fictitious play reached neither target within the budget on any deal, so it gives no ratio. "
              "The baselines that share the double oracle's exact oracle and orbit expansion but pick the mix "
              "differently (PSRO with regret-matching+ or Hedge as meta-solver, the online double oracle: "
              "`solver/games/psro.py`, tested) have not been run on these deals yet.", "",
              "LP over a fixed sampled pool (each pool size solved from scratch; CPU s includes the pool's LP "
              "and the exact best response that certifies it):", "",
              "| partitions in the pool (× 120 orders) | CPU s: median | certified ε: median [95% CI] | best deal | "
              "worst deal |", "|---:|---:|---|---:|---:|"]
    for j, k in enumerate(args.pool_sizes):
        cpu = np.array([d["lp-pool"][j][1] for d in deals])
        eps = np.array([d["lp-pool"][j][2] for d in deals])
        med, lo, hi = bootstrap_ci(eps, np.median)
        lines.append(f"| {k:,} | {np.median(cpu):.2f} | {med:.3f} [{lo:.3f}, {hi:.3f}] | {eps.min():.3f} | "
                     f"{eps.max():.3f} |")
    lines += ["", "![convergence](convergence.png)"]
    return "\n".join(lines)


def on_grid(trace: list[tuple[int, float, float]], grid: np.ndarray, col: int, target: float) -> np.ndarray:
    """Best-so-far certified ε at each grid point of iterations (col 0) or CPU seconds (col 1);
    before the first certificate the trivial bound; after the run ended its final ε if it reached
    ``target``, else NaN (a stopped run is not drawn on)."""
    xs = np.array([t[col] for t in trace], dtype=float)
    es = np.array([t[2] for t in trace], dtype=float)
    out = np.full(grid.shape, TRIVIAL)
    for i, g in enumerate(grid):
        k = np.searchsorted(xs, g, side="right")
        if k:
            out[i] = es[:k].min()
    if es.min() > target + 1e-9:
        out[grid > xs[-1]] = np.nan
    return np.maximum(out, FLOOR)


def plot(deals: list[dict], args: argparse.Namespace) -> None:  # type: ignore[type-arg]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    max_it = max(t[0] for d in deals for m in METHODS[:3] for t in d[m])
    it_grid = np.unique(np.round(np.logspace(0, np.log10(max(2, max_it)), 60)))
    cpu_grid = np.logspace(-1, np.log10(args.budget), 60)
    for j, m in enumerate(METHODS[:3]):
        for ax, grid, col in ((axes[0], it_grid, 0), (axes[1], cpu_grid, 1)):
            ys = np.array([on_grid(d[m], grid, col, args.target) for d in deals])
            ys[:, np.isnan(ys).sum(axis=0) > len(deals) // 2] = np.nan  # drawn while most runs go on
            with np.errstate(invalid="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: not drawn
                q1, med, q3 = np.nanquantile(ys, [0.25, 0.5, 0.75], axis=0)
            ax.plot(grid, med, color=f"C{j}", label=LABELS[m])
            ax.fill_between(grid, q1, q3, color=f"C{j}", alpha=0.18)
    cpu = np.array([[d["lp-pool"][k][1] for k in range(len(args.pool_sizes))] for d in deals])
    eps = np.maximum(np.array([[d["lp-pool"][k][2] for k in range(len(args.pool_sizes))] for d in deals]), FLOOR)
    med_c, med_e = np.median(cpu, axis=0), np.median(eps, axis=0)
    q = np.quantile(eps, [0.25, 0.75], axis=0)
    axes[1].errorbar(med_c, med_e, yerr=[med_e - q[0], q[1] - med_e], fmt="s-", color="C3", capsize=3,
                     label=LABELS["lp-pool"] + f": {', '.join(map(str, args.pool_sizes))} partitions")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_ylabel("certified exploitability ε (points, log)")
        ax.axhline(args.target, color="black", lw=0.7, ls="--")
    axes[0].set_xlabel("iterations (one exact best response each for the exact-only and FP; log)")
    axes[1].set_xlabel("CPU seconds (time.process_time, one thread; log)")
    fig.legend(*axes[1].get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.suptitle(f"Convergence on {len(deals)} deals as dealt (seeds {args.seed}–{args.seed + len(deals) - 1}): "
                 f"median and interquartile band; target ε {args.target:g} (dashed), budget {args.budget:g} CPU s; "
                 f"ε = 0 drawn at {FLOOR:g}",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    savefig(fig, "convergence.png")


if __name__ == "__main__":
    main()
