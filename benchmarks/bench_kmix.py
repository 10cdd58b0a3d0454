"""K-mix frontier: how much randomisation is worth — certified exploitability against K, deals as dealt.

    python benchmarks/bench_kmix.py --deals 100                    # resumable: JSON lines per deal
    python benchmarks/bench_kmix.py --deals 100 --start 50         # a shard
    python benchmarks/bench_kmix.py --deals 100 --report           # the section from the records

Deals: ``Deal.random(seed)`` from ``--seed`` (as dealt: the deals of ``bench_structure`` and
``bench_security``).  For each: its exact equilibrium (from ``bench_structure``'s records when
present, else solved here at ε = 0), then for each K (``--ks``, increasing):

* **search** — the least exploitable mix of at most K arrangements found
  (``solver.games.sparse_mix.SparseMixSearch`` over the equilibrium's support, K in increasing
  order, each from the previous answer), within ``--cpu-per-k`` CPU seconds per K (enforced:
  ``analysis_common.CpuBudget``), the *anytime budget* of the result;
* **with the sparse equilibrium** — the same, also started from the fewest-arrangement exact
  equilibrium found (``quintet_structure.fewest_arrangements`` over the equilibrium's best
  responses): once K reaches its size the frontier is 0 (the old frontier stalled above 0 where
  such mixes exist);
* **baselines** from the equilibrium: its K likeliest arrangements renormalised (*rounded*) and the
  same K with their best weights (*reweighted*, the fixed-support LP certified by the exact
  best response).

Every value is a certified exploitability (an exact best response's value against the mix, or
its proven bound).  The K-mixes are the best *found*, not proven the best of all K-mixes; the
K = 1 row is compared with the proven pure security level (``bench_security``).
``--report`` writes the ``kmix`` section of RESULTS.md, ``benchmarks/kmix_frontier.png`` and
``benchmarks/data/kmix.json``.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from analysis_common import (  # noqa: E402
    DATA,
    CpuBudget,
    add_shard_options,
    clopper_pearson,
    comma_list,
    dealt_records,
    median_ci,
    orbit_size,
    provenance,
    read_jsonl,
    recorded_run,
    recorded_values,
    run_dealt_shard,
    save_data,
    savefig,
)
from bench_structure import structure_mixes  # noqa: E402
from bench_uniqueness import sparse_resolve  # noqa: E402
from benchmark_results import write_section  # noqa: E402
from research.quintet_structure import best_responses_in_orbits, fewest_arrangements  # noqa: E402

from quintet.cliutil import OneLineParser, float_at_least, int_at_least, positive_float, positive_int, seed_int  # noqa: E402
from quintet.game import Arrangement, Deal  # noqa: E402
from solver.advisor.equilibrium import equilibrium  # noqa: E402
from solver.advisor.limits import SOLVE_TIME_LIMIT  # noqa: E402
from solver.engines.base import EngineOptions  # noqa: E402
from solver.games.quintet_game import QuintetGame, Strategy  # noqa: E402
from solver.games.sparse_mix import CertifiedMix, SparseMixSearch  # noqa: E402
from solver.problem.deal_tables import DealTables  # noqa: E402

SECTION = ("kmix", "K-mixes: how much randomisation is worth (deals as dealt)")


def certify(game: QuintetGame, support: list[Strategy], probs: np.ndarray, time_limit: float) -> tuple[float, bool]:
    r = game.best_response(support, probs, time_limit=time_limit, hint=None, stop_event=None)
    return (r.value if r.proven else r.bound), r.proven


def analyse(deal: Deal, mix: list[tuple[float, Arrangement]] | None, ks: list[int],
            args: argparse.Namespace, rechecked: bool = False) -> dict[str, object]:
    """The deal's record; ``rechecked``: CP-SAT also re-solves each K's best mix (``--recheck-every``)."""
    tables = DealTables.build(deal)
    game = QuintetGame(tables)
    cpu = time.process_time()
    if mix is None:
        with CpuBudget(args.cpu_limit) as budget:
            eq = equilibrium(deal, epsilon=0.0, time_limit=None, tables=tables, stop_event=budget.event)
        mix = list(eq.mix)
    support = [tuple(tables.index_of(m) for m in a.packets) for _, a in mix]
    probs = np.array([p for p, _ in mix])
    eq_x, _ = certify(game, support, probs, args.br_time_limit)
    # sparse near-equilibria: few arrangements, certified — the exact one with the fewest found (same
    # marginals), and re-weighted ℓ1 re-solves at looser targets (the old frontier stalled where these exist)
    union = support + best_responses_in_orbits(game, support, probs)
    sparse: list[dict[str, object]] = []
    m0 = game.marginals(support, probs)
    fewest = fewest_arrangements(game, m0, union, time_limit=args.milp_time_limit)
    if fewest is not None:
        x, proven = certify(game, fewest[0], fewest[1], args.br_time_limit)
        sparse.append({"target": 0.0, "support": fewest[0], "probabilities": fewest[1], "exploitability": x})
    for target in args.sparse_targets:
        r = sparse_resolve(game, union, argparse.Namespace(epsilon=target, reweight=5, rounds=4,
                                                          time_limit=args.br_time_limit), keep_mix=True)
        if r.get("mix") is not None:
            sup, p = r["mix"]  # type: ignore[misc]
            sparse.append({"target": target, "support": sup, "probabilities": p, "exploitability": r["certified"]})
    setup_cpu = time.process_time() - cpu
    recheck = EngineOptions(engine="cpsat") if rechecked else None
    stop = threading.Event()
    search = SparseMixSearch(game, support, prior=list(probs), stop_event=stop)
    baseline = SparseMixSearch(game, support, prior=list(probs), stop_event=stop)  # its own rows
    rows = []
    previous: CertifiedMix[Strategy] | None = None
    for K in ks:
        with CpuBudget(args.cpu_per_k, event=stop) as budget:
            r = search.solve(K, initial=previous, time_limit=None)
        previous = CertifiedMix(tuple(r.support), r.probabilities, r.exploitability, r.proven)
        # every candidate K-mix with its certified exploitability; the least is the row's "best"
        found: list[tuple[float, list[Strategy], np.ndarray]] = [(r.exploitability, list(r.support),
                                                                  np.asarray(r.probabilities))]
        found += [(float(m["exploitability"]), list(m["support"]), np.asarray(m["probabilities"]))  # type: ignore
                  for m in sparse if len(m["support"]) <= K]  # type: ignore[arg-type]
        row: dict[str, object] = {
            "k": K, "search": {"exploitability": r.exploitability, "proven": r.proven, "support": len(r.support),
                               "method": r.method, "cpu": budget.spent(), "interrupted": r.interrupted}}
        cpu = time.process_time()
        if K >= len(support):
            row["rounded"] = row["reweighted"] = eq_x
            found.append((eq_x, support, probs))
        else:
            top = probs[:K] / probs[:K].sum()
            row["rounded"] = certify(game, support[:K], top, args.br_time_limit)[0]
            with CpuBudget(args.cpu_per_k, event=stop):
                reweighted, _ = baseline.certify(support[:K], "reweighted")
            row["reweighted"] = reweighted.exploitability
            found += [(float(row["rounded"]), support[:K], top),  # type: ignore[arg-type]
                      (reweighted.exploitability, list(reweighted.support), np.asarray(reweighted.probabilities))]
        row["baselines_cpu"] = time.process_time() - cpu
        value, members, weights = min(found, key=lambda f: f[0])
        row["best"] = value
        row["best_mix"] = [[float(p), tables.arrangement_of(list(a)).format()] for a, p in zip(members, weights,
                                                                                            strict=True)]
        if recheck is not None:  # the independent engine's exact best response against the same mix
            cpu = time.process_time()
            again, proven = certify(game, members, weights, args.br_time_limit)  # the search's, on this mix
            row["best_certificate"] = {"value": again, "proven": proven}
            x = QuintetGame(tables, recheck).best_response(members, weights, time_limit=args.recheck_time_limit,
                                                          hint=None, stop_event=None)
            row["recheck"] = {"engine": "cpsat", "value": x.value, "bound": x.bound, "proven": x.proven,
                              "cpu": time.process_time() - cpu}
        rows.append(row)
    return {"key": deal.exposed, "exposed": deal.format(), "orbit": orbit_size(deal.exposed),
            "equilibrium": {"exploitability": eq_x, "support": len(support)},
            "sparse": [{"target": m["target"], "support": len(m["support"]),  # type: ignore[arg-type]
                        "exploitability": m["exploitability"]} for m in sparse],
            "setup_cpu": setup_cpu, "kmix": rows}


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive_int, default=100, help="dealt deals in the sample (default 100)")
    ap.add_argument("--seed", type=seed_int, default=2026,
                    help="first seed (Deal.random), default 2026")
    ap.add_argument("--ks", type=comma_list(positive_int), default="1,2,3,5,10,20",
                    help="the K (arrangements), comma-separated")
    ap.add_argument("--cpu-per-k", type=positive_float, default=30.0,
                    help="CPU seconds of search per K (the anytime budget)")
    ap.add_argument("--sparse-targets", type=comma_list(float_at_least(0), skip_empty=True),
                    default="0.01,0.1,0.5",
                    help="certified targets of the re-weighted ℓ1 re-solves (sparse near-equilibria), comma-separated")
    ap.add_argument("--structure", type=Path, default=DATA / "structure.jsonl",
                    help="bench_structure's records: their exact equilibria are reused")
    ap.add_argument("--security", type=Path, default=DATA / "security.jsonl",
                    help="bench_security's records: the K = 1 row beside the proven pure security level")
    ap.add_argument("--br-time-limit", type=positive_float, default=60.0, help="seconds per exact best response")
    ap.add_argument("--milp-time-limit", type=positive_float, default=15.0,
                    help="seconds for the fewest-arrangements MILP")
    ap.add_argument("--cpu-limit", type=positive_float, default=900.0,
                    help="CPU seconds for an equilibrium solved here")
    ap.add_argument("--recheck-every", type=int_at_least(0), default=3,
                    help="CP-SAT re-solves the exact best response against every K's best mix on every k-th deal "
                         "of the sample (0: none; default 3)")
    ap.add_argument("--recheck-time-limit", type=positive_float, default=120.0,
                    help="seconds for each CP-SAT recheck (default 120)")
    ap.add_argument("--no-write", action="store_true", help="with --report: print, write nothing")
    add_shard_options(ap, "kmix")
    args = ap.parse_args()
    ks = sorted({int(k) for k in args.ks.split(",")})
    args.sparse_targets = [float(t) for t in str(args.sparse_targets).split(",") if t]
    if not args.report:
        mixes = structure_mixes(args.structure)
        position = {Deal.random(args.seed + i).exposed: i for i in range(args.deals)}
        run_dealt_shard(args, {k: str(v) for k, v in vars(args).items() if k != "jsonl"},
                        lambda deal: analyse(deal, mixes.get(deal.exposed), ks, args,
                                             rechecked=bool(args.recheck_every)
                                             and position[deal.exposed] % args.recheck_every == 0), show)
    report(args, ks)


def show(rec: dict) -> str:  # type: ignore[type-arg]
    sparse = " ".join(f"{m['support']}@{m['exploitability']:.3f}" for m in rec["sparse"])
    return (f"equilibrium {rec['equilibrium']['support']} (sparse {sparse}) | "
            + " ".join(f"K{r['k']} {r['best']:.3f}" for r in rec["kmix"]) + f" | {rec['cpu']:.0f} CPU s")


def report(args: argparse.Namespace, ks: list[int]) -> None:
    runs, records = dealt_records(args)
    if not records:
        print(f"{args.jsonl}: no records yet")
        return
    _, security = read_jsonl(args.security)
    levels = {r["seed"]: r["level"] for r in security}
    text, summary = make_report(records, runs, levels, ks, args)
    print(text)
    if not args.no_write:
        save_data("kmix", recorded_run(runs), summary)
        plot(records, ks, args)
        write_section(*SECTION, text)


def column(records: list[dict], k: int, key: str) -> np.ndarray:  # type: ignore[type-arg]
    out = []
    for r in records:
        row = next(x for x in r["kmix"] if x["k"] == k)
        v = row[key]
        out.append(v["exploitability"] if isinstance(v, dict) else v)  # "search" is a record, the rest values
    return np.array(out, dtype=float)


def interrupted(records: list[dict], k: int) -> int:  # type: ignore[type-arg]
    """The deals whose search at K stopped at its CPU budget (the record's flag)."""
    return sum(1 for r in records for x in r["kmix"] if x["k"] == k and x["search"].get("interrupted"))


def make_report(records: list[dict], runs: list[dict], levels: dict[int, dict], ks: list[int],  # type: ignore[type-arg]
                args: argparse.Namespace) -> tuple[str, dict]:  # type: ignore[type-arg]
    n = len(records)
    budget = recorded_values(runs, "cpu_per_k", args.cpu_per_k)  # the runs' budget, not this command's
    partial = "" if n >= args.deals else f"**Partial:** {n} of the {args.deals} deals so far (resumable). "
    lines = [provenance(runs), "", partial +
             f"{n} deals **as dealt** (`Deal.random`, seeds {args.seed}–{args.seed + args.deals - 1}: the deals of "
             "the Structure and Security sections), each with its exact equilibrium. Per K, *best found*: the "
             "least exploitable mix of at most K arrangements among those the K-mix search found within "
             f"{budget} CPU s per K, the baselines and the sparse near-equilibria that fit in K (the "
             "fewest-arrangement exact equilibrium found, re-weighted ℓ1 re-solves), and the equilibrium's K "
             "likeliest arrangements renormalised (*rounded*) or with their best weights (*reweighted*). Every "
             "value is a certified exploitability (points); a K-mix is the best *found*, not proven the best, so "
             "*best found* is an **upper envelope** of the frontier: no lower bound is computed for K ≥ 2. Such a "
             "bound needs the least exploitability over every K arrangements and every weighting of them — a "
             "non-convex problem over all arrangements (the opponent answers the mix, so no single opponent mix "
             "bounds it); K = 1 needed the tie-structure proof of the Security section, and we have no such "
             "argument for K ≥ 2. Proven at every K: the frontier is at least 0 and never rises with K, and at K = 1 "
             "it is the Security section's pure level. The "
             "search alone is not reported: at this budget it stopped unfinished ("
             + ", ".join(f"K = {k}: {interrupted(records, k)} of {n}" for k in ks if k > 1)
             + "), so its column would measure the budget, and it was not run at the command line's budget. "
             "`quintet-solve --max-support K` runs that search under the command's own time limit (--time-limit, "
             f"{SOLVE_TIME_LIMIT:g} s by default) and answers with the best mix it found, its certified "
             "exploitability and, unless the search finished, the words \"not proven the best\". "
             "*Deals ≤ 0.5* counts the deals whose best found is at most 0.5 points; the re-weighted ℓ1 re-solve "
             "with target 0.5 stops as soon as it certifies 0.5, so near 0.5 the column counts mixes built to reach "
             "0.5, not how far below 0.5 a K-mix can go. Medians with exact 95% intervals (order statistics); the "
             "share of deals with Clopper–Pearson intervals.", "",
             "| K | best found (upper envelope): median [95% CI] | p90 | "
             "worst | rounded: median | reweighted: median | deals ≤ 0.5 (best found) | deals at 0 |",
             "|---:|---|---:|---:|---:|---:|---|---:|"]
    rows = []
    for k in ks:
        h = column(records, k, "best")
        rd = column(records, k, "rounded")
        rw = column(records, k, "reweighted")
        hm, hlo, hhi = median_ci(h)
        c = int((h <= 0.5 + 1e-9).sum())
        clo, chi = clopper_pearson(c, n)
        zero = int((h <= 1e-7).sum())
        lines.append(f"| {k} | {hm:.3f} [{hlo:.3f}, {hhi:.3f}] | "
                     f"{np.quantile(h, 0.9):.3f} | {h.max():.3f} | {np.median(rd):.3f} | {np.median(rw):.3f} | "
                     f"{c} of {n} ({100 * clo:.0f}–{100 * chi:.0f}%) | {zero} |")
        rows.append({"k": k, "best": [hm, hlo, hhi], "rounded": float(np.median(rd)),
                     "reweighted": float(np.median(rw)), "at_most_half": c, "zero": zero})
    eqs = np.array([r["equilibrium"]["support"] for r in records])
    sp = np.array([min([m["support"] for m in r["sparse"] if m["target"] == 0.0] or [r["equilibrium"]["support"]])
                   for r in records])
    lines.append(f"| full equilibrium (median {np.median(eqs):.0f} arrangements; the fewest found for the same "
                 f"marginals: median {np.median(sp):.0f}) | 0 | 0 | "
                 f"{max(r['equilibrium']['exploitability'] for r in records):.1e} | | | | |")
    for target in args.sparse_targets:
        got = [m for r in records for m in r["sparse"] if m["target"] == target]
        if got:
            sizes = np.median([m["support"] for m in got])
            within = sum(m["exploitability"] <= target + 1e-9 for m in got)
            lines.append(f"| re-weighted ℓ1 re-solve, target {target:g}: median {sizes:.0f} arrangements, certified "
                         f"≤ target on {within} of {len(got)} | | | | | | | |")
    k1 = column(records, 1, "best")
    matched = [(k1[i], levels[r["seed"]]) for i, r in enumerate(records) if r["seed"] in levels]
    if matched:
        at_level = sum(1 for v, lv in matched if v <= lv["upper"] + 1e-9)
        proved = sum(1 for v, lv in matched if lv["exact"] and v <= lv["lower"] + 1e-9)
        lines += ["", f"K = 1 against the Security section: the search's single arrangement is as good as the best "
                  f"found there on {at_level} of {len(matched)} deals, and proved the least exploitable on {proved} "
                  "(where the level is proved)."]
    rechecks = recheck_counts(records, ks)
    lines += recheck_lines(rechecks)
    same = [row["k"] for row in rows if row["k"] > 1 and abs(row["best"][0] - row["reweighted"]) < 1e-9]
    if same:
        lines += ["", "The envelope's median is the re-weighted top K's at K = " + ", ".join(str(k) for k in same)
                  + ": there the envelope is that baseline."]
    lines += ["",
              "![K-mix frontier](kmix_frontier.png)"]
    summary = {"ks": ks, "deals": n, "rows": rows, "cpu_per_k": args.cpu_per_k, "recheck": rechecks,
               "per_deal": [{"seed": r["seed"], "exposed": r["exposed"], "orbit": r["orbit"],
                             "equilibrium_support": r["equilibrium"]["support"],
                             "sparse": r["sparse"],
                             **{f"K{k}": float(column([r], k, "best")[0]) for k in ks},
                             **{f"K{k}_rounded": float(column([r], k, "rounded")[0]) for k in ks},
                             **{f"K{k}_reweighted": float(column([r], k, "reweighted")[0]) for k in ks}}
                            for r in records]}
    return "\n".join(lines), summary


def recheck_counts(records: list[dict], ks: list[int]) -> list[dict[str, float]]:  # type: ignore[type-arg]
    """The CP-SAT recheck of the best mixes (the rows with a ``recheck``), per K: mixes rechecked,
    proven by CP-SAT, equal to the search's exact value (1e-6 points), below a bound of the search
    (legitimate: an unproven certificate is an upper bound), disagreeing, median CPU s."""
    out = []
    for k in ks:
        rows = [x for r in records for x in r["kmix"] if x["k"] == k and "recheck" in x]
        if not rows:
            continue
        proven = [x for x in rows if x["recheck"]["proven"]]
        equal = sum(1 for x in proven if abs(x["recheck"]["value"] - x["best_certificate"]["value"]) <= 1e-6)
        below = sum(1 for x in proven if x["recheck"]["value"] < x["best_certificate"]["value"] - 1e-6
                    and not x["best_certificate"]["proven"])
        out.append({"k": k, "rechecked": len(rows), "proven": len(proven), "equal": equal, "below_bound": below,
                    "disagree": len(proven) - equal - below,
                    "cpu_median": float(np.median([x["recheck"]["cpu"] for x in rows]))})
    return out


def recheck_lines(counts: list[dict[str, float]]) -> list[str]:
    if not counts:
        return []
    return ["", "**The CP-SAT recheck** (a sample: every deal at a position divisible by --recheck-every): CP-SAT, an "
            "engine independent of the search, re-solves the exact best response against each K's best mix; its "
            "proven value must equal the search's exact best response against the same mix (or lie below it where "
            "the search stopped at its limit and its value is a bound). *Disagree* counts any other outcome.", "",
            "| K | mixes rechecked | proven by CP-SAT | equal (1e-6) | below a bound | disagree | median CPU s |",
            "|---:|---:|---:|---:|---:|---:|---:|",
            *(f"| {c['k']} | {c['rechecked']} | {c['proven']} | {c['equal']} | {c['below_bound']} | {c['disagree']} | "
              f"{c['cpu_median']:.2f} |" for c in counts)]


def plot(records: list[dict], ks: list[int], args: argparse.Namespace) -> None:  # type: ignore[type-arg]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    floor = 1e-3
    fig, ax = plt.subplots(figsize=(8, 4.8))
    for r in records:
        ax.plot(ks, [max(float(column([r], k, "best")[0]), floor) for k in ks], color="0.85", lw=0.7, zorder=1)
    for j, (key, label, style) in enumerate((("best", "best found: upper envelope (search, baselines, re-solves)",
                                              "o-"),
                                             ("reweighted", "equilibrium's top K, best weights", "s:"),
                                             ("rounded", "equilibrium's top K, renormalised", "d:"))):
        med = np.array([median_ci(column(records, k, key)) for k in ks])
        ax.plot(ks, np.maximum(med[:, 0], floor), style, color=f"C{j}", label=label, zorder=3)
        if key == "best":
            ax.fill_between(ks, np.maximum(med[:, 1], floor), np.maximum(med[:, 2], floor), color=f"C{j}", alpha=0.2)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("K: arrangements in the mix (log)")
    ax.set_ylabel(f"certified exploitability (points, log; 0 drawn at {floor:g})")
    ax.set_title(f"K-mix upper envelope, {len(records)} dealt deals (seeds {args.seed}…): medians, 95% band; "
                 "grey: each deal", fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    savefig(fig, "kmix_frontier.png")


if __name__ == "__main__":
    main()
