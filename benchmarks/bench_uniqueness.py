"""Uniqueness benchmark: is "the" equilibrium of a deal one object?  Same deals, other runs.

    python benchmarks/bench_uniqueness.py                          # 30 dealt deals, ε 0.01, 5 runs each
    python benchmarks/bench_uniqueness.py --deals 3 --no-write

A zero-sum game's equilibria form a convex set, so support sizes, "the" mix and its
likeliest arrangement describe the solution the solver found, not the game, unless every
run finds the same one.  Deals: ``Deal.random(seed)`` (as dealt).  Per deal, certified
ε ≤ ``--epsilon`` from scratch (no store) by these runs:

* ``shipped`` — ``equilibrium(deal)`` as shipped;
* ``shuffled-1``, ``shuffled-2`` — other pool orders: the double oracle warm-started from the
  best response to uniform plus 3 random strong arrangements (seeded), in a shuffled order;
* ``options-small`` — ``DoubleOracleOptions(cheap_starts=4, cheap_limit=1, max_added=30)``;
* ``options-exact`` — ``DoubleOracleOptions(exact_every=1, cheap_limit=8)``.

Reported: the total-variation distance between two runs' slot marginals (per slot,
½ Σ_r |p_r − q_r| over rank classes; the max over slots), between their distributions over
*partitions* (which five packets) and over *arrangements* (packets in slot order); support
sizes; the **smallest support found by a sparse re-solve** — over the union U of every run's
support, minimize Σ w_i x_i subject to no strategy of the pool (every slot order of every
partition in U, plus each certifying best response found) gaining more than ε against x,
with iteratively re-weighted ℓ1 (w_i = 1 / (x_i + 10⁻⁴), ``--reweight`` rounds; Candès,
Wakin & Boyd 2008), then certified by the exact best response (rows added and re-solved
until certified ≤ ε or ``--rounds``); and how often a slot is **conceded on purpose**: the
mix's probability that the packet it lays in slot s has an expected score share below 10%
(P(win) + ½ P(tie) against the mix's own slot-s marginal: a sacrificed slot), per run.

Writes the ``uniqueness`` section of RESULTS.md, ``benchmarks/data/uniqueness.json`` and
``benchmarks/uniqueness.png``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from itertools import combinations, permutations
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from analysis_common import DATA, Run, git_commit, partial_note, save_data, savefig, warm_kernels  # noqa: E402
from bench_best_response import random_good_arrangement  # noqa: E402
from bench_convergence import uniform_start  # noqa: E402
from bench_heuristics import describe_mix  # noqa: E402
from benchmark_results import write_section  # noqa: E402

from quintet.cliutil import OneLineParser, float_at_least, positive_float, positive_int, seed_int  # noqa: E402
from quintet.game import Deal  # noqa: E402
from solver.advisor.equilibrium import EquilibriumResult, equilibrium  # noqa: E402
from solver.games.double_oracle import DoubleOracleOptions, double_oracle  # noqa: E402
from solver.games.lp import solve_lp  # noqa: E402
from solver.games.quintet_game import QuintetGame, Strategy  # noqa: E402
from solver.problem.deal_tables import DealTables  # noqa: E402

RUNS = ["shipped", "shuffled-1", "shuffled-2", "options-small", "options-exact"]
INF = float("inf")


def solve_run(name: str, deal: Deal, tables: DealTables, args: argparse.Namespace) -> EquilibriumResult:
    if name == "shipped":
        return equilibrium(deal, epsilon=args.epsilon, time_limit=args.time_limit, tables=tables)
    if name.startswith("shuffled"):
        rng = np.random.default_rng([args.seed, deal.exposed % (2**32), int(name[-1])])
        initial = [random_good_arrangement(tables, rng) for _ in range(3)]
        order = rng.permutation(len(initial))
        return equilibrium(deal, epsilon=args.epsilon, time_limit=args.time_limit, tables=tables,
                           initial=[initial[i] for i in order])
    options = (DoubleOracleOptions(cheap_starts=4, cheap_limit=1, max_added=30) if name == "options-small"
               else DoubleOracleOptions(exact_every=1, cheap_limit=8))
    game = QuintetGame(tables)
    r = double_oracle(game, [uniform_start(tables)], epsilon=args.epsilon, time_limit=args.time_limit,
                      trivial_bound=25.0, options=options)
    order = np.argsort(-r.probabilities, kind="stable")
    mix = tuple((float(r.probabilities[i]), tables.arrangement_of(r.support[i])) for i in order)
    return EquilibriumResult(deal=deal, mix=mix, exploitability=r.exploitability, proven=r.proven,
                             converged=r.converged, epsilon=args.epsilon, iterations=r.iterations,
                             seconds=r.seconds, pool_size=r.pool_size)


def strategies_of(eq: EquilibriumResult, tables: DealTables) -> dict[Strategy, float]:
    return {tuple(tables.index_of(m) for m in a.packets): p for p, a in eq.mix}


def tv(p: dict, q: dict) -> float:  # type: ignore[type-arg]
    return 0.5 * sum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in set(p) | set(q))


def sparse_resolve(game: QuintetGame, union: list[Strategy], args: argparse.Namespace,
                   keep_mix: bool = False) -> dict[str, object]:
    """Least support over the union of supports (re-weighted ℓ1, row generation, certified);
    ``keep_mix``: the answer also holds the mix (``mix``: support, probabilities)."""
    rows = list(dict.fromkeys(tuple(o) for s in union for o in permutations(s)))
    cols = union
    x = np.full(len(cols), 1.0 / len(cols))
    certified, rounds = INF, 0
    best: tuple[int, float, float] | None = None  # (support, certified ε, probability floor)
    best_mix: tuple[list[Strategy], np.ndarray] | None = None
    for rounds in range(1, args.rounds + 1):  # noqa: B007 (reported)
        A = game.payoffs(rows, cols)
        w = np.ones(len(cols))
        for _ in range(args.reweight):
            A_full = np.vstack([A, np.ones((1, len(cols)))])
            lower = np.append(np.full(len(rows), -INF), 1.0)
            upper = np.append(np.full(len(rows), args.epsilon), 1.0)
            x, _, _ = solve_lp(w, A_full, lower, upper, var_lower=np.zeros(len(cols)),
                               var_upper=np.ones(len(cols)), maximize=False, what="sparse re-solve")
            x = np.clip(x, 0.0, None)
            w = 1.0 / (x + 1e-4)
        keep = x > 1e-7
        support = [c for c, k in zip(cols, keep, strict=True) if k]
        probs = x[keep] / x[keep].sum()
        r = game.best_response(support, probs, time_limit=args.time_limit, hint=None, stop_event=None)
        certified = r.value if r.proven else r.bound
        ok = certified <= args.epsilon + 1e-6
        if best is None or (ok and (best[1] > args.epsilon + 1e-6 or len(support) < best[0])):
            best = (len(support), certified, float(probs.min()))
            best_mix = (support, probs)
        if certified <= args.epsilon + 1e-6:
            break
        rows += [tuple(o) for o in permutations(r.strategy) if tuple(o) not in set(rows)]
    assert best is not None
    out: dict[str, object] = {"support": best[0], "certified": best[1], "min_probability": best[2], "rounds": rounds,
                              "rows": len(rows), "union": len(union)}
    if keep_mix:
        out["mix"] = best_mix
    return out


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive_int, default=30, help="dealt deals (default 30)")
    ap.add_argument("--seed", type=seed_int, default=4000,
                    help="first seed (Deal.random), default 4000")
    ap.add_argument("--epsilon", type=float_at_least(0), default=0.01, help="certified ε of every run (default 0.01)")
    ap.add_argument("--time-limit", type=positive_float, default=300.0, help="seconds per run (default 300)")
    ap.add_argument("--reweight", type=positive_int, default=5, help="re-weighted ℓ1 rounds (default 5)")
    ap.add_argument("--rounds", type=positive_int, default=6,
                    help="row-generation rounds of the sparse re-solve (default 6)")
    ap.add_argument("--report", action="store_true",
                    help="only rewrite the RESULTS section and the plot from benchmarks/data/uniqueness.json")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.report:
        saved = json.loads((DATA / "uniqueness.json").read_text())
        args = argparse.Namespace(**{**saved["params"], "report": True, "no_write": args.no_write})
        deals = saved["deals"]
        report = make_report(deals, Run.from_dict(saved["run"]), args)
        print(report)
        if args.no_write:
            return
        plot(deals, args)
        write_section("uniqueness", "Uniqueness: the same deals, other runs", report)
        return
    run = Run()
    warm_kernels()
    deals = []
    for i in range(args.deals):
        seed = args.seed + i
        deal = Deal.random(seed)
        tables = DealTables.build(deal)
        game = QuintetGame(tables)
        runs: dict[str, dict[str, object]] = {}
        strategies: dict[str, dict[Strategy, float]] = {}
        marginals: dict[str, np.ndarray] = {}
        for name in RUNS:
            cpu = time.process_time()
            eq = solve_run(name, deal, tables, args)
            cpu = time.process_time() - cpu
            strategies[name] = strategies_of(eq, tables)
            marginals[name] = eq.opponent().marginals(tables)
            look = describe_mix(eq, tables, marginals[name])
            runs[name] = {"epsilon": eq.exploitability, "converged": eq.converged, "cpu": cpu,
                          "iterations": eq.iterations, "support": len(eq.mix), "partitions": look["partitions"],
                          "concede": look["concede"], "top_arrangement": look["top_arrangement"]}
        pairs = []
        for a, b in combinations(RUNS, 2):
            slot_tv = [0.5 * float(np.abs(marginals[a][s] - marginals[b][s]).sum()) for s in range(5)]
            part_a: Counter[frozenset[int]] = Counter()
            part_b: Counter[frozenset[int]] = Counter()
            for s, p in strategies[a].items():
                part_a[frozenset(s)] += p
            for s, p in strategies[b].items():
                part_b[frozenset(s)] += p
            pairs.append({"a": a, "b": b, "slot_tv": slot_tv, "partition_tv": tv(part_a, part_b),
                          "arrangement_tv": tv(strategies[a], strategies[b])})
        union = list(dict.fromkeys(s for name in RUNS for s in strategies[name]))
        cpu = time.process_time()
        sparse = sparse_resolve(game, union, args)
        sparse["cpu"] = time.process_time() - cpu
        rec = {"seed": seed, "exposed": deal.format(), "runs": runs, "pairs": pairs, "sparse": sparse}
        deals.append(rec)
        print(f"{i + 1:3d}/{args.deals} {deal.format():22s} supports "
              + " ".join(str(runs[n]["support"]) for n in RUNS)
              + f"; max slot TV {max(max(p['slot_tv']) for p in pairs):.3f}; partition TV "
              f"{max(p['partition_tv'] for p in pairs):.3f}; sparse support {sparse['support']} "
              f"(ε {sparse['certified']:.4f})", flush=True)
        if not args.no_write:
            save_data("uniqueness", run, {"params": vars(args), "deals": deals, "complete": False})
    report = make_report(deals, run, args)
    print(report)
    if args.no_write:
        return
    save_data("uniqueness", run, {"params": vars(args), "deals": deals, "complete": True})
    plot(deals, args)
    write_section("uniqueness", "Uniqueness: the same deals, other runs", report)


def cluster_median(deals: list[dict], value: Callable[[dict, dict], float], n: int = 4000,  # type: ignore[type-arg]
                   seed: int = 0) -> tuple[float, float, float]:
    """(median over all pairs, 95% interval) by a bootstrap that resamples *deals* (each with its
    ten pairs): the pairs of one deal are not independent draws."""
    per_deal = [np.array([value(d, p) for p in d["pairs"]]) for d in deals]
    point = float(np.median(np.concatenate(per_deal)))
    rng = np.random.default_rng(seed)
    boots = [float(np.median(np.concatenate([per_deal[i] for i in rng.integers(0, len(deals), len(deals))])))
             for _ in range(n)]
    return point, float(np.quantile(boots, 0.025)), float(np.quantile(boots, 0.975))


def make_report(deals: list[dict], run: Run, args: argparse.Namespace) -> str:  # type: ignore[type-arg]
    n = len(deals)
    exact = 1e-9

    def is_exact(d: dict, name: str) -> bool:  # type: ignore[type-arg]
        return bool(d["runs"][name]["epsilon"] <= exact)

    slot = np.array([max(p["slot_tv"]) for d in deals for p in d["pairs"]])
    arr = np.array([p["arrangement_tv"] for d in deals for p in d["pairs"]])
    both = np.array([is_exact(d, p["a"]) and is_exact(d, p["b"]) for d in deals for p in d["pairs"]])
    same = slot <= 1e-9
    sup = np.array([[d["runs"][r]["support"] for r in RUNS] for d in deals])
    eps = np.array([[d["runs"][r]["epsilon"] for r in RUNS] for d in deals])
    sparse = np.array([d["sparse"]["support"] for d in deals])
    sparse_ok = sum(d["sparse"]["certified"] <= args.epsilon + 1e-6 for d in deals)
    differing = sorted({d["exposed"] for d in deals for p in d["pairs"]
                        if is_exact(d, p["a"]) and is_exact(d, p["b"]) and max(p["slot_tv"]) > 1e-9})
    worst_exact = max((max(p["slot_tv"]) for d in deals for p in d["pairs"]
                       if is_exact(d, p["a"]) and is_exact(d, p["b"])), default=0.0)
    identical = int((sup.max(1) == sup.min(1)).sum())
    lines = [run.line(), "", *partial_note(n, args.deals),
             "*This section re-reads the data of the run above (`python benchmarks/bench_uniqueness.py --report` "
             f"at commit `{git_commit()}`); the Structure section asks its questions at ε = 0, with proofs, on "
             "other dealt deals.*", "",
             f"{n} deals as dealt (`Deal.random`, seeds {args.seed}–{args.seed + n - 1}), {len(RUNS)} runs each "
             f"({', '.join(RUNS)}), every run certified ε ≤ {args.epsilon:g} from scratch ({int((eps <= exact).sum())} "
             f"of {eps.size} runs ended at an exact equilibrium, ε ≤ 10⁻⁹). Pairs: {len(slot)} (10 per deal). Medians "
             "with 95% intervals from a bootstrap over **deals** (a deal's ten pairs resampled together).", "",
             "| distance between two runs | median [95% CI] | 90th pct | max | pairs at 0 (≤ 10⁻⁹) |",
             "|---|---|---:|---:|---:|"]
    for label, fn in (("slot marginals, TV, worst slot", lambda d, p: max(p["slot_tv"])),
                      ("distribution over partitions, TV", lambda d, p: p["partition_tv"]),
                      ("distribution over arrangements, TV", lambda d, p: p["arrangement_tv"])):
        v = np.array([fn(d, p) for d in deals for p in d["pairs"]])
        m, lo, hi = cluster_median(deals, fn)
        lines.append(f"| {label} | {m:.3f} [{lo:.3f}, {hi:.3f}] | {np.quantile(v, 0.9):.3f} | {v.max():.3f} | "
                     f"{int((v <= 1e-9).sum())} |")
    lines += ["",
              f"- **The marginals agree exactly (TV ≤ 10⁻⁹) in {int(same.sum())} of {len(slot)} pairs**; two mixes "
              "with the same marginals earn the same against every opponent, so in those pairs the arrangement "
              "distance "
              f"(median {np.median(arr[same]):.2f}) measures two *decompositions* of one payoff-relevant object, not "
              f"a disagreement. Where the marginals differ (median arrangement TV {np.median(arr[~same]):.2f}) at "
              "least one run is usually an ε-equilibrium with ε > 0, which may differ from an exact one by design.",
              f"- Among the {int(both.sum())} pairs of two *exact* equilibria, {int((both & same).sum())} have equal "
              f"marginals; the rest come from {len(differing)} deal(s) ({'; '.join(differing) or 'none'}; worst "
              f"slot TV {worst_exact:.3f}): equilibria certified at ≤ 10⁻⁹ with different marginals — not unique at "
              "the certificate's precision, which is not a proof about the exact equilibria (the Structure section "
              "says why, and which dealt deals are proven unique to a certified radius).",
              f"- **Support sizes are identical across the five runs on {identical} of {n} deals** (median range "
              f"{np.median(sup.max(1) - sup.min(1)):.0f}; range over all runs {sup.min()}–{sup.max()}); where they "
              "differ, the support is a vertex of the restricted program a run happened to build.",
              "- The sparse re-solve (re-weighted ℓ1 over the union of the runs' supports) certifies ≤ "
              f"{args.epsilon:g} on {sparse_ok} of {n} deals with median {np.median(sparse):.0f} arrangements (range "
              f"{sparse.min()}–"
              f"{sparse.max()}) against {np.median(sup.min(1)):.0f} for the smallest run — but it spends the whole "
              f"ε = {args.epsilon:g} while {int((eps <= exact).sum())} runs were exact, so it compares mixes of "
              "different quality; the Structure section bounds the support of exact equilibria.",
              "- The old table of 'slots conceded on purpose' is withdrawn: its statistic (share below 10% against the "
              "mix's own marginal) is a property of the transform, about 10% for any mix; the Structure section "
              "replaces it with statistics against fixed references and their baselines.",
              "", "![uniqueness](uniqueness.png)"]
    return "\n".join(lines)


def plot(deals: list[dict], args: argparse.Namespace) -> None:  # type: ignore[type-arg]
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(13, 4.6))
    series = [("slot marginals (worst slot)", [max(p["slot_tv"]) for d in deals for p in d["pairs"]]),
              ("partitions", [p["partition_tv"] for d in deals for p in d["pairs"]]),
              ("arrangements", [p["arrangement_tv"] for d in deals for p in d["pairs"]])]
    bins = np.linspace(0, 1, 26)
    for j, (label, v) in enumerate(series):
        axes[0].hist(v, bins=bins, histtype="step", lw=2.4 - 0.6 * j, ls=("-", "--", ":")[j], color=f"C{j}",
                     label=f"{label} (n = {len(v)} pairs)")
    axes[0].set_xlabel("total-variation distance between two runs' mixes (0 = identical, 1 = disjoint)")
    axes[0].set_ylabel("pairs of runs (count)")
    axes[0].legend(fontsize=8)
    axes[0].set_title("How different are two ε-equilibria of one deal?", fontsize=10)
    sup = np.array([[d["runs"][r]["support"] for r in RUNS] for d in deals])
    sparse = np.array([d["sparse"]["support"] for d in deals])
    x = np.arange(len(deals))
    order = np.argsort(sup[:, 0])
    axes[1].vlines(x, sup[order].min(1), sup[order].max(1), color="C0", lw=3, alpha=0.5,
                   label="range over the 5 runs (double oracle)")
    axes[1].plot(x, sup[order, 0], "o", color="C0", ms=4, label="shipped run")
    axes[1].plot(x, sparse[order], "v", color="C3", ms=6, label="sparse re-solve (re-weighted ℓ1, certified)")
    axes[1].set_ylim(0, None)
    axes[1].xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    axes[1].set_xlabel("deal (sorted by the shipped run's support)")
    axes[1].set_ylabel("arrangements in the support (count)")
    axes[1].legend(fontsize=8)
    axes[1].set_title("Support size is a property of the run", fontsize=10)
    fig.suptitle(f"{len(deals)} deals as dealt (seeds {args.seed}–{args.seed + len(deals) - 1}), every run certified "
                 f"ε ≤ {args.epsilon:g}", fontsize=10)
    fig.tight_layout()
    savefig(fig, "uniqueness.png")


if __name__ == "__main__":
    main()
