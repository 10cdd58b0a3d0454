"""K-mix frontier: how much randomisation is worth — certified exploitability against K.

    python benchmarks/bench_kmix.py                          # the example deal and 30 canonical deals
    python benchmarks/bench_kmix.py --deals 3 --ks 1,2,3 --no-write
    python benchmarks/bench_kmix.py --first 16 > b.log        # a shard: classes 16.. of the same sample
    cat a.log b.log > all.log && python benchmarks/bench_kmix.py --report-log all.log   # … joined

Deals: the rules' example deal, then ``--deals`` suit-canonical classes drawn uniformly
(``solver.apps.batch.book_sample``).  For each deal: its equilibrium to ``--epsilon`` (no store),
then for each K the least exploitable mix of at most K arrangements found
(``solver.advisor.sparse.DealSparseSearch``: K in increasing order, each from the previous answer),
and two baselines from the same equilibrium: its K most likely arrangements with their
probabilities renormalised (*rounded*), and the same K with their best weights (*reweighted*, the
fixed-support LP by row generation with the exact best response).  Every number is a certified
exploitability (an exact best response's value against the mix).  Times are CPU seconds of this
one process (``time.process_time``).  ``--verify N``: the K-mixes of the first N deals are
rechecked by CP-SAT (``verify_mix``).

Writes ``benchmarks/kmix_frontier.json`` (every figure, read by the notebook),
``benchmarks/kmix_frontier.png`` and the K-mix section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import re
import subprocess
import time
from pathlib import Path

import numpy as np
from benchmark_results import cpu_name, write_section

from quintet.cards import format_cards
from quintet.game import Deal
from quintet.rules import get_rules
from solver.advisor.equilibrium import equilibrium
from solver.advisor.plans import plans
from solver.advisor.sparse import DealSparseSearch
from solver.advisor.verify import verify_mix
from solver.apps.batch import book_sample
from solver.games.quintet_game import QuintetGame
from solver.games.sparse_mix import SparseMixSearch
from solver.problem.deal_tables import DealTables

HERE = Path(__file__).parent
EXAMPLE = "8h 7h 9d Ts 7s Qc Jc"
DATA = HERE / "kmix_frontier.json"
PLOT = HERE / "kmix_frontier.png"


def baselines(deal: Deal, eq, ks: list[int]) -> dict[int, tuple[float, float]]:
    """Per K: (rounded, reweighted) certified exploitabilities of the equilibrium's top K."""
    tables = DealTables.build(deal)
    game = QuintetGame(tables)
    support = [tuple(tables.index_of(m) for m in a.packets) for _, a in eq.mix]
    probs = np.array([p for p, _ in eq.mix])
    search = SparseMixSearch(game, support, prior=list(probs))
    out = {}
    for K in ks:
        if K >= len(support):
            out[K] = (eq.exploitability, eq.exploitability)
            continue
        top = probs[:K] / probs[:K].sum()
        r = game.best_response(support[:K], top, time_limit=None, hint=None, stop_event=None)
        rounded = r.value if r.proven else r.bound
        reweighted, _ = search.certify(support[:K], "reweighted")
        out[K] = (float(rounded), float(reweighted.exploitability))
    return out


def _git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=HERE, timeout=10).stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=30, help="canonical deals drawn uniformly (default 30)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--ks", default="1,2,3,5,10,20", help="the K (arrangements), comma-separated")
    ap.add_argument("--epsilon", type=float, default=0.0, help="the full equilibrium's target (default 0: exact)")
    ap.add_argument("--time-limit", type=float, default=600.0, help="seconds per equilibrium and per K")
    ap.add_argument("--verify", type=int, default=1, help="recheck the K-mixes of this many deals with CP-SAT")
    ap.add_argument("--verify-time-limit", type=float, default=600.0)
    ap.add_argument("--first", type=int, default=0, metavar="N", help=(
        "a shard: start at the sample's N-th class (1-based; the example deal is 0) and only print the per-deal "
        "lines, to be joined with the other shards' for --report-log"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--report-log", type=Path, metavar="LOG", help=(
        "no solving: the section, plot and JSON from the per-deal lines a run printed (a run stopped "
        "before its end); the baselines' columns are then absent"))
    ap.add_argument("--log-command", default=None, help="with --report-log: the command that printed LOG")
    args = ap.parse_args()
    if args.report_log is not None:
        report_log(args)
        return
    ks = sorted({int(k) for k in args.ks.split(",")})
    rules = get_rules("classic")
    deals = [Deal.from_exposed(EXAMPLE)] + [Deal(int(k), rules) for k in book_sample(args.deals, args.seed, rules)]
    equilibrium(Deal.from_exposed("As Ks Qs Js Ts Ah Kh"), epsilon=1.0)  # compile (or load) the kernels
    start = time.perf_counter()
    cpu_start = time.process_time()
    records = []
    checks = {"confirmed": 0, "refuted": 0, "inconclusive": 0}
    if not 0 <= args.first <= args.deals:
        raise SystemExit(f"--first must be from 0 to --deals ({args.deals}), got {args.first}")
    for i, deal in enumerate(deals):
        if i < args.first:
            continue
        t0 = time.process_time()
        eq = equilibrium(deal, epsilon=args.epsilon, time_limit=args.time_limit)
        eq_cpu = time.process_time() - t0
        t0 = time.process_time()
        base = baselines(deal, eq, ks)
        base_cpu = time.process_time() - t0
        rows = []
        search = DealSparseSearch.for_deal(deal, equilibrium=eq)
        results = []
        previous = None
        total_cpu = 0.0
        for k in ks:
            t0 = time.process_time()
            previous = search.solve(k, previous, args.time_limit)
            cpu = time.process_time() - t0
            total_cpu += cpu
            results.append((previous, cpu))
        for r, cpu in results:
            rows.append({"k": r.max_support, "exploitability": r.exploitability, "proven": r.proven,
                         "optimal": r.optimal, "support": len(r.mix), "method": r.method,
                         "best_responses": r.best_responses, "cpu": cpu,
                         "plans": len(plans(r.mix, rules)),
                         "rounded": base[r.max_support][0], "reweighted": base[r.max_support][1]})
        line = (f"{i}/{len(deals) - 1} {format_cards(deal.exposed)}: equilibrium {eq.exploitability:.4f} "
                f"({len(eq.mix)} arrangements, {eq_cpu:.1f} s) | "
                + " ".join(f"K{row['k']} {row['exploitability']:.3f}" for row in rows)
                + f" | {total_cpu:.0f} s cpu (baselines {base_cpu:.0f} s)")
        if i < args.verify:
            for r, _ in results:
                if r.method == "equilibrium":
                    continue
                check = verify_mix(deal, r.mix, r.exploitability, time_limit=args.verify_time_limit)
                checks[check.status] += 1
            line += f"; CP-SAT {checks}"
        print(line, flush=True)
        records.append({"exposed": format_cards(deal.exposed), "example": i == 0,
                        "equilibrium": {"exploitability": eq.exploitability, "support": len(eq.mix),
                                        "partitions": len({frozenset(a.packets) for _, a in eq.mix}),
                                        "plans": len(plans(eq.mix, rules)), "cpu": eq_cpu},
                        "cpu": total_cpu, "kmix": rows})

    if args.first:
        return  # a shard: its lines are its output
    wall = time.perf_counter() - start
    cpu_total = time.process_time() - cpu_start
    sample = [r for r in records if not r["example"]]
    example = records[0]
    command = (f"python benchmarks/bench_kmix.py --deals {args.deals} --seed {args.seed} --ks {args.ks} "
               f"--epsilon {args.epsilon:g} --time-limit {args.time_limit:g} --verify {args.verify}")
    meta = {"date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"), "commit": _git_commit(),
            "machine": f"{cpu_name()}, Python {platform.python_version()}", "command": command, "ks": ks,
            "epsilon": args.epsilon, "seed": args.seed, "cpu_seconds": cpu_total, "wall_seconds": wall,
            "checks": checks}

    def column(k: int, key: str, which: list[dict] = sample) -> np.ndarray:
        return np.array([next(row[key] for row in r["kmix"] if row["k"] == k) for r in which])

    lines = [
        f"Run: `{command}` on {meta['date']}, commit {meta['commit']}.",
        "",
        f"Machine: {meta['machine']}; one process, one core (shared with other work); {cpu_total:.0f} CPU s, "
        f"{wall:.0f} s wall.",
        "",
        f"Deals: the example deal and {len(sample)} suit-canonical classes drawn uniformly (seed {args.seed}). "
        f"For each, its equilibrium to ε = {args.epsilon:g} (no store), then the least exploitable mix of at most "
        "K arrangements found (`DealSparseSearch`, K in increasing order, each from the previous answer). "
        "Every value is a certified exploitability (points; the exact best response's value against the mix). "
        "*Rounded*: the equilibrium's K most likely arrangements, probabilities renormalised; *reweighted*: the "
        "same K with their best weights. "
        "The search's values are the best found, not proven the best K-mixes (no lower bound above 0 is known).",
        "",
        "| K | median | p90 | worst | example deal | median, rounded | median, reweighted | worst, rounded | "
        "deals ≤ 0.5 | median CPU s (this K) |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for k in ks:
        v = column(k, "exploitability")
        secs = column(k, "cpu")
        ex = next(row for row in example["kmix"] if row["k"] == k)
        lines.append(f"| {k} | {np.median(v):.3f} | {np.percentile(v, 90):.3f} | {v.max():.3f} | "
                     f"{ex['exploitability']:.4f} | {np.median(column(k, 'rounded')):.3f} | "
                     f"{np.median(column(k, 'reweighted')):.3f} | {column(k, 'rounded').max():.3f} | "
                     f"{int((v <= 0.5 + 1e-9).sum())} of {len(v)} | {np.median(secs):.1f} |")
    eqv = np.array([r["equilibrium"]["exploitability"] for r in sample])
    eqs = np.array([r["equilibrium"]["support"] for r in sample])
    lines.append(f"| full (median {np.median(eqs):.0f}, max {eqs.max()} arrangements) | {np.median(eqv):.4f} | "
                 f"{np.percentile(eqv, 90):.4f} | {eqv.max():.4f} | {example['equilibrium']['exploitability']:.4f} "
                 f"({example['equilibrium']['support']}) | | | | | |")
    winners: dict[str, int] = {}
    for r in sample:
        for row in r["kmix"]:
            if row["k"] > 1 and row["method"] != "equilibrium":
                winners[row["method"]] = winners.get(row["method"], 0) + 1
    lines += [
        "",
        "Which start of the search found the answer (K ≥ 2, over the sample): "
        + ", ".join(f"{m} {n}" for m, n in sorted(winners.items(), key=lambda kv: -kv[1]))
        + " (`initial`: the (K−1)-answer improved; `top`/`backward`/`greedy`/`random`/`kick`: see "
          "`solver.games.sparse_mix`).",
        f"Equilibria: median {np.median(eqs):.0f} arrangements in median "
        f"{np.median([r['equilibrium']['partitions'] for r in sample]):.0f} partitions and "
        f"{np.median([r['equilibrium']['plans'] for r in sample]):.0f} plans (hand category per slot).",
        f"CP-SAT rechecks of the K-mixes of the first {args.verify} deal(s): {checks['confirmed']} confirmed, "
        f"{checks['inconclusive']} inconclusive, **{checks['refuted']} refuted**.",
        "",
        "![K-mix frontier](kmix_frontier.png)",
    ]
    publish("\n".join(lines), meta, records, no_write=args.no_write)


_LINE = re.compile(r"^(\d+)/(\d+) (.+?): equilibrium ([0-9.]+) \((\d+) arrangements, ([0-9.]+) s\) \| (.+?) \| "
                   r"([0-9.]+) s cpu")


def publish(report: str, meta: dict, records: list[dict], *, no_write: bool) -> None:  # type: ignore[type-arg]
    """Print the section; unless ``no_write``, write it with the data JSON and the plot."""
    print(report)
    if no_write:
        return
    DATA.write_text(json.dumps({"meta": meta, "deals": records}, indent=1) + "\n")
    plot(records, meta, PLOT)
    write_section("kmix", "K-mixes: how much randomisation is worth", report)


def report_log(args: argparse.Namespace) -> None:
    """The frontier from a run's per-deal lines (``--report-log``): per K the median, p90 and worst
    over the deals the run finished, the example deal, the full equilibria."""
    records = []
    for line in args.report_log.read_text().splitlines():
        m = _LINE.match(line)
        if m is None:
            continue
        kmix = [{"k": int(k), "exploitability": float(v)} for k, v in re.findall(r"K(\d+) ([0-9.]+)", m[7])]
        records.append({"exposed": m[3], "example": m[1] == "0", "cpu": float(m[8]), "kmix": kmix,
                        "equilibrium": {"exploitability": float(m[4]), "support": int(m[5]), "cpu": float(m[6])}})
    if not records or not records[0]["example"]:
        raise SystemExit(f"{args.report_log}: no per-deal lines of bench_kmix (the example deal first)")
    ks = [row["k"] for row in records[0]["kmix"]]
    sample = records[1:]
    planned = int(_LINE.match(next(line for line in args.report_log.read_text().splitlines()
                                   if _LINE.match(line)))[2])
    command = args.log_command or "python benchmarks/bench_kmix.py …"
    meta = {"date": dt.datetime.fromtimestamp(args.report_log.stat().st_mtime, dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
            "commit": _git_commit(), "machine": f"{cpu_name()}, Python {platform.python_version()}",
            "command": command, "ks": ks, "epsilon": args.epsilon, "seed": args.seed, "partial": len(sample) < planned}

    def column(k: int) -> np.ndarray:
        return np.array([next(row["exploitability"] for row in r["kmix"] if row["k"] == k) for r in sample])

    ran = (f"run in shards (`--first`) over all {planned} classes" if len(sample) >= planned
           else f"stopped after {len(sample)} of its {planned} classes (the session's time)")
    lines = [
        f"Run: `{command}`, {ran}; this section is "
        f"`python benchmarks/bench_kmix.py --report-log LOG` over the lines it printed, {meta['date']}, "
        f"commit {meta['commit']}; {meta['machine']}, one process (the machine shared with other work).",
        "",
        f"Deals: the example deal and the first {len(sample)} suit-canonical classes drawn uniformly (seed "
        f"{args.seed}). For each, its equilibrium to ε = {args.epsilon:g} (no store), then the least exploitable mix "
        "of at most K arrangements found (`DealSparseSearch`, K in increasing order, each from the previous answer). "
        "Every value is a certified exploitability (points; the exact best response's value against the mix). "
        "The search's values are the best found, not proven the best K-mixes (no lower bound above 0 is known). "
        "The baselines (the equilibrium's top K rounded or reweighted) are not in the printed lines: a complete run "
        "adds them.",
        "",
        "| K | median | p90 | worst | example deal | deals ≤ 0.5 |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for k in ks:
        v = column(k)
        ex = next(row for row in records[0]["kmix"] if row["k"] == k)
        lines.append(f"| {k} | {np.median(v):.3f} | {np.percentile(v, 90):.3f} | {v.max():.3f} | "
                     f"{ex['exploitability']:.3f} | {int((v <= 0.5 + 1e-9).sum())} of {len(v)} |")
    eqv = np.array([r["equilibrium"]["exploitability"] for r in sample])
    eqs = np.array([r["equilibrium"]["support"] for r in sample])
    lines += [f"| full (median {np.median(eqs):.0f}, max {eqs.max()} arrangements) | {np.median(eqv):.4f} | "
              f"{np.percentile(eqv, 90):.4f} | {eqv.max():.4f} | {records[0]['equilibrium']['exploitability']:.4f} "
              f"({records[0]['equilibrium']['support']}) | |", ""]
    checks = re.findall(r"CP-SAT (\{.*\})", args.report_log.read_text())
    if checks:  # the run's CP-SAT rechecks (the counts its last line printed)
        lines += [f"CP-SAT rechecks of the K-mixes the run verified: {checks[-1]}.", ""]
    lines.append("![K-mix frontier](kmix_frontier.png)")
    publish("\n".join(lines), meta, records, no_write=args.no_write)


def plot(records: list[dict], meta: dict, path: Path) -> None:
    """The frontier: certified exploitability against K (log-log), per deal and summarised."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ks = meta["ks"]
    floor = 1e-3  # exact equilibria (exploitability 0) are drawn here on the log scale
    full_x = ks[-1] * 3
    sample = [r for r in records if not r["example"]]
    baselines = "rounded" in sample[0]["kmix"][0]  # absent in a report from a run's lines
    fig, axes = plt.subplots(1, 2 if baselines else 1, figsize=(12 if baselines else 7, 4.6), squeeze=False)
    axes = axes[0]
    ax = axes[0]
    for r in sample:
        xs = [row["k"] for row in r["kmix"]] + [full_x]
        ys = [max(row["exploitability"], floor) for row in r["kmix"]] + [max(r["equilibrium"]["exploitability"],
                                                                             floor)]
        ax.plot(xs, ys, color="0.75", lw=0.8, zorder=1)
    values = np.array([[max(row["exploitability"], floor) for row in r["kmix"]] for r in sample])
    eq_values = np.array([max(r["equilibrium"]["exploitability"], floor) for r in sample])
    ax.plot(ks + [full_x], list(np.median(values, axis=0)) + [np.median(eq_values)], "o-", color="C0", lw=2,
            label="median over the sample", zorder=3)
    ax.plot(ks + [full_x], list(values.max(axis=0)) + [eq_values.max()], "s--", color="C3", lw=1.5,
            label="worst deal of the sample", zorder=3)
    ex = records[0]
    ax.plot(ks + [full_x], [max(row["exploitability"], floor) for row in ex["kmix"]]
            + [max(ex["equilibrium"]["exploitability"], floor)], "^-", color="C2", lw=1.5,
            label=f"example deal ({ex['exposed']})", zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ks + [full_x])
    ax.set_xticklabels([str(k) for k in ks] + ["full"])
    ax.set_xlabel("K: arrangements in the mix (log scale; full = the whole equilibrium)")
    ax.set_ylabel(f"certified exploitability (points, log scale; 0 drawn at {floor:g})")
    ax.set_title(f"Best K-mix found — {len(sample)} deals, equilibria at ε = {meta['epsilon']:g}, "
                 f"seed {meta['seed']}", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    if not baselines:
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        return
    ax = axes[1]
    for key, label, style in [("rounded", "equilibrium's top K, renormalised", "o:"),
                              ("reweighted", "equilibrium's top K, best weights", "s--"),
                              ("exploitability", "search (DealSparseSearch)", "^-")]:
        med = [np.median([max(next(row[key] for row in r["kmix"] if row["k"] == k), floor) for r in sample])
               for k in ks]
        ax.plot(ks, med, style, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ks)
    ax.set_xticklabels([str(k) for k in ks])
    ax.set_xlabel("K: arrangements in the mix (log scale)")
    ax.set_ylabel("median certified exploitability (points, log scale)")
    ax.set_title("What the search adds over rounding the equilibrium", fontsize=10)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
