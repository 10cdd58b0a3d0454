"""Convergence benchmark: certified ε against CPU seconds, six methods at one CPU budget, paired.

    python benchmarks/bench_convergence.py --deals 100 --budget 10                   # resumable JSON lines
    python benchmarks/bench_convergence.py --deals 100 --budget 10 --start 50        # a shard
    python benchmarks/bench_convergence.py --population hardest --budget 10          # the hardest classes
    python benchmarks/bench_convergence.py --sensitivity --budget 10                 # the meta-solvers' settings
    python benchmarks/bench_convergence.py --deals 100 --budget 10 --report          # the section

Deals: ``Deal.random(seed)`` for ``--deals`` seeds from ``--seed`` (``--population dealt``), and
(``--population hardest``) the ``--hardest`` suit classes with the most CPU seconds in
``benchmarks/data/equilibrium-classes.jsonl`` (bench_equilibrium's class-uniform sample);
``--population both`` runs the one, then the other.  Both go into one JSON-lines file, each record
with ``population`` ``dealt`` or ``hardest``.  Every method starts from the same first strategy,
the best response to ``uniform`` (computed once per deal, outside the clocks), and every method
shares the exact oracle (``QuintetGame.best_response``) and the orbit expansion (a best response
joins with all 120 slot orders of its partition):

1. ``do-shipped`` — ``double_oracle`` with the default options and the game's cheap oracle;
2. ``do-exact-only`` — the same without the cheap oracle, ``exact_every=1``;
3. ``fp`` — fictitious play: PSRO with the ``uniform`` meta-solver (``research.psro``);
4. ``psro-rm+`` — PSRO with regret-matching+ as meta-solver;
5. ``psro-hedge`` — PSRO with Hedge as meta-solver;
6. ``odo`` — the online double oracle (``online_double_oracle``);

and, only with ``--pool-sizes``, ``lp-pool``: the LP over a fixed sampled pool (not a convergence
method: each pool size from scratch).

**One budget, one clock.**  Every method run gets ``--budget`` CPU seconds of this process
(``time.process_time``), enforced by ``analysis_common.CpuBudget``: its stop event is the solver's
``stop_event`` (a wall-clock limit is passed only as a safety net, far above the budget).  Each
iteration is recorded as (iteration, CPU seconds since the method's start, certified ε — the least
so far: an exact best response's value, or its proven bound when the search was stopped); an
iteration that finished past the budget does not count.  A method stops at ``--target`` ε.

``--sensitivity`` runs PSRO's regret-matching+ and Hedge at other settings (``SENSITIVITY``: inner
steps, Hedge's rate) on the hardest classes into ``--sensitivity-jsonl``; the report adds their table.

``--report`` writes the ``convergence`` section of RESULTS.md, ``benchmarks/convergence.png`` and
``benchmarks/data/convergence.json`` from the records (``--no-write``: print only).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections.abc import Sequence
from itertools import permutations
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from analysis_common import (  # noqa: E402
    DATA,
    CpuBudget,
    Run,
    add_shard_options,
    append_jsonl,
    bootstrap_ci,
    clopper_pearson,
    finish_shard,
    holm,
    provenance,
    read_jsonl,
    recorded_run,
    run_dealt_shard,
    save_data,
    savefig,
    sign_test_p,
    start_shard,
    warm_kernels,
)
from bench_best_response import random_good_arrangement  # noqa: E402
from benchmark_results import write_section  # noqa: E402
from research.psro import INNER_STEPS, PAYOFF_RANGE, PsroRecord, online_double_oracle, psro  # noqa: E402

from quintet.cliutil import OneLineParser, float_at_least, positive_float, positive_int, seed_int  # noqa: E402
from quintet.game import Deal  # noqa: E402
from solver.engines.base import DEFAULT_ENGINE, solve  # noqa: E402
from solver.games.double_oracle import DoubleOracleOptions, IterationRecord, double_oracle  # noqa: E402
from solver.games.lp import solve_symmetric_lp  # noqa: E402
from solver.games.quintet_game import QuintetGame, Strategy  # noqa: E402
from solver.problem.best_response import BestResponseProblem, slot_values  # noqa: E402
from solver.problem.deal_tables import DealTables  # noqa: E402
from solver.problem.opponents import Uniform  # noqa: E402

SECTION = ("convergence", "Convergence at one CPU budget: the double oracle against PSRO baselines (paired)")
METHODS = ["do-shipped", "do-exact-only", "fp", "psro-rm+", "psro-hedge", "odo"]
LABELS = {"do-shipped": "double oracle as shipped (cheap + exact oracle)",
          "do-exact-only": "double oracle, exact oracle only",
          "fp": "fictitious play (PSRO, uniform meta-solver)",
          "psro-rm+": "PSRO, regret-matching+ meta-solver",
          "psro-hedge": "PSRO, Hedge meta-solver",
          "odo": "online double oracle",
          "lp-pool": "LP over a fixed sampled pool (certified)"}
# The meta-solvers' settings checked by ``--sensitivity`` (psro's defaults: INNER_STEPS a PSRO
# iteration; Hedge's rate √(8 ln n / t) / PAYOFF_RANGE): name → (meta-solver, inner steps, rate × default)
SENSITIVITY = {"psro-rm+:inner=50": ("rm+", 50, 1.0), "psro-rm+:inner=1000": ("rm+", 1000, 1.0),
               "psro-hedge:inner=50": ("hedge", 50, 1.0), "psro-hedge:inner=1000": ("hedge", 1000, 1.0),
               "psro-hedge:rate×0.25": ("hedge", INNER_STEPS, 0.25), "psro-hedge:rate×4": ("hedge", INNER_STEPS, 4.0)}
REFERENCE = "do-shipped"
TARGETS = (0.05, 0.01)  # reported with --target (default 0.005)
FLOOR = 1e-4  # ε = 0 is drawn here on the log axis
TRIVIAL = 25.0  # no arrangement gains more than the sum of the slot weights
Trace = list[tuple[int, float, float]]  # (iteration, CPU seconds since the method's start, certified ε so far)


class ExactOnlyGame:
    """The Quintet game without its cheap oracle (``CheapOracle`` is not implemented)."""

    def __init__(self, game: QuintetGame) -> None:
        self.game = game

    def payoffs(self, rows: Sequence[Strategy], cols: Sequence[Strategy]) -> np.ndarray:
        return self.game.payoffs(rows, cols)

    def payoffs_against(self, rows: Sequence[Strategy], support: Sequence[Strategy], probabilities: np.ndarray
                        ) -> np.ndarray:
        return self.game.payoffs_against(rows, support, probabilities)

    def best_response(self, support, probabilities, *, time_limit, hint, stop_event):
        return self.game.best_response(support, probabilities, time_limit=time_limit, hint=hint,
                                       stop_event=stop_event)

    def orbit(self, strategy: Strategy) -> list[Strategy]:
        return self.game.orbit(strategy)


def uniform_start(tables: DealTables) -> Strategy:
    problem = BestResponseProblem(tables, slot_values(Uniform().marginals(tables), tables.rules.weights, "margin"))
    return solve(problem, DEFAULT_ENGINE, None, None).packets


def safety_wall(budget: float) -> float:
    """The wall-clock limit given to a solver: a safety net only (the CPU budget stops it first)."""
    return 10.0 * budget + 60.0


def run_method(method: str, tables: DealTables, first: Strategy, budget: float, target: float
               ) -> dict[str, Any]:
    """One method on one deal at ``budget`` CPU seconds: its trace, the population (pool) and the
    support of its mix at the end, the CPU seconds it used."""
    trace: Trace = []
    with CpuBudget(budget) as clock:
        game = QuintetGame(tables)

        def on_do(r: IterationRecord) -> None:
            trace.append((r.iteration, clock.spent(), max(r.exploitability, 0.0)))

        def on_psro(r: PsroRecord) -> None:
            trace.append((r.iteration, clock.spent(), max(r.best, 0.0)))

        if method in ("do-shipped", "do-exact-only"):
            exact_only = method == "do-exact-only"
            d = double_oracle(ExactOnlyGame(game) if exact_only else game, [first], epsilon=target,
                              time_limit=safety_wall(budget), stop_event=clock.event, trivial_bound=TRIVIAL,
                              progress=on_do, options=DoubleOracleOptions(exact_every=1) if exact_only
                              else DoubleOracleOptions())
            population, support = d.pool_size, len(d.support)
        elif method == "odo":
            p = online_double_oracle(game, [first], epsilon=target, stop_event=clock.event, progress=on_psro,
                                     response_time_limit=safety_wall(budget))
            population, support = p.population, len(p.support)
        else:
            meta, inner, rate = SENSITIVITY.get(method) or ({"fp": "uniform", "psro-rm+": "rm+",
                                                             "psro-hedge": "hedge"}[method], INNER_STEPS, 1.0)
            p = psro(game, [first], meta=meta, epsilon=target, stop_event=clock.event, progress=on_psro,
                     response_time_limit=safety_wall(budget), inner=inner, payoff_range=PAYOFF_RANGE / rate)
            population, support = p.population, len(p.support)
    return {"trace": trace, "population": population, "support": support, "cpu": clock.spent()}


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


def run_lp_pool(tables: DealTables, rng_key: Sequence[int], pool_sizes: list[int], budget: float
                ) -> list[tuple[int, float, float]]:
    """(partitions in the pool, CPU seconds for this pool size from scratch, certified ε); the
    certifying best response is stopped at ``budget`` CPU seconds (its bound then certifies)."""
    rng = np.random.default_rng(list(rng_key))
    game = QuintetGame(tables)
    partitions = []
    for _ in range(max(pool_sizes)):
        a = random_good_arrangement(tables, rng)
        partitions.append(tuple(tables.index_of(m) for m in a.packets))
    out = []
    for k in pool_sizes:
        with CpuBudget(budget) as clock:
            pool = list(dict.fromkeys(tuple(p) for part in partitions[:k] for p in permutations(part)))
            support, probs = pool_equilibrium(game, pool)
            r = game.best_response(support, probs, time_limit=safety_wall(budget), hint=None, stop_event=clock.event)
        out.append((k, clock.spent(), max(r.value if r.proven else r.bound, 0.0)))
    return out


def analyse(deal: Deal, args: argparse.Namespace, population: str, key: object) -> dict[str, Any]:
    tables = DealTables.build(deal)
    first = uniform_start(tables)
    rec: dict[str, Any] = {"key": key, "population": population, "exposed": deal.format(), "budget": args.budget,
                           "target": args.target, "methods": {}}
    for m in args.methods:
        rec["methods"][m] = run_method(m, tables, first, args.budget, args.target)
    if args.pool_sizes:
        rec["lp-pool"] = run_lp_pool(tables, [args.seed, deal.exposed % (2 ** 32), 7], args.pool_sizes, args.budget)
    return rec


def show(rec: dict[str, Any]) -> str:
    parts = []
    for m, r in rec["methods"].items():
        last = r["trace"][-1] if r["trace"] else (0, r["cpu"], TRIVIAL)
        parts.append(f"{m} ε {last[2]:.4f} ({last[0]} it, {r['cpu']:.1f} s)")
    return "; ".join(parts)


def hardest_classes(path: Path, n: int) -> list[str]:
    """The ``n`` classes with the most CPU seconds in bench_equilibrium's class records (without
    its example deal), slowest first."""
    _, records = read_jsonl(path)
    sample = [r for r in records if not r.get("example")]
    return [r["exposed"] for r in sorted(sample, key=lambda r: -r["cpu_seconds"])[:n]]


def run_hardest(args: argparse.Namespace, params: dict[str, Any]) -> None:
    """The hardest classes, as ``run_dealt_shard`` runs dealt deals (resumable; ``--start``/``--stop``
    are positions in the list, slowest first)."""
    classes = hardest_classes(args.classes, args.hardest)
    run = Run()
    done = start_shard(args.jsonl, run, params)
    warm_kernels()
    stop = len(classes) if args.stop is None else min(args.stop, len(classes))
    for i in range(args.start, stop):
        deal = Deal.from_exposed(classes[i])
        key = f"hardest:{deal.exposed}"
        if key in done:
            continue
        cpu = time.process_time()
        rec = analyse(deal, args, "hardest", key)
        rec.update(rank=i, cpu=time.process_time() - cpu, commit=run.commit)
        append_jsonl(args.jsonl, rec)
        print(f"{i + 1:4d}/{len(classes)} {deal.format():22s} {show(rec)}", flush=True)
    finish_shard(args.jsonl, run)


def parse_methods(text: str) -> list[str]:
    names = [m.strip() for m in text.split(",") if m.strip()]
    unknown = [m for m in names if m not in METHODS and m not in SENSITIVITY]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown method(s) {', '.join(unknown) or '(none)'}; "
                                         f"choose from {', '.join([*METHODS, *SENSITIVITY])}")
    return list(dict.fromkeys(names))


def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [int(x) for x in text.split(",") if x.strip()]
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError("pool sizes are positive integers, e.g. 10,30,100")
    return sizes


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive_int, default=100, help="dealt deals in the sample (default 100)")
    ap.add_argument("--seed", type=seed_int, default=4000,
                    help="first seed (Deal.random), default 4000")
    ap.add_argument("--population", choices=("dealt", "hardest", "both"), default="dealt",
                    help="dealt deals, the hardest classes, or both (one after the other); default dealt")
    ap.add_argument("--hardest", type=positive_int, default=10, help="how many of the hardest classes (default 10)")
    ap.add_argument("--classes", type=Path, default=DATA / "equilibrium-classes.jsonl",
                    help="bench_equilibrium's class records, ranked by CPU seconds for --population hardest")
    ap.add_argument("--methods", type=parse_methods, default=list(METHODS),
                    help=f"comma-separated subset of {','.join(METHODS)} (default all)")
    ap.add_argument("--target", type=float_at_least(0), default=0.005, help="stop at this certified ε (default 0.005)")
    ap.add_argument("--budget", type=positive_float, default=10.0,
                    help="CPU seconds (time.process_time) per method and deal, enforced (default 10)")
    ap.add_argument("--pool-sizes", type=parse_sizes, default=None,
                    help="also the LP over fixed sampled pools of these many partitions (× 120 slot orders), "
                         "e.g. 10,100,1000 (default: not run)")
    ap.add_argument("--no-write", action="store_true",
                    help="write no RESULTS section, plot or summary (the JSON lines are still written)")
    ap.add_argument("--sensitivity", action="store_true",
                    help="run the meta-solvers' other settings (SENSITIVITY) on the hardest classes into "
                         "--sensitivity-jsonl instead of the six methods")
    ap.add_argument("--sensitivity-jsonl", type=Path, default=DATA / "convergence-sensitivity.jsonl",
                    help="the sensitivity run's records (default benchmarks/data/convergence-sensitivity.jsonl); "
                         "--report adds their table when the file has records at the budget")
    add_shard_options(ap, "convergence")
    args = ap.parse_args()
    if args.sensitivity and not args.report:
        params = {k: str(v) for k, v in vars(args).items() if k not in ("jsonl", "sensitivity_jsonl")}
        run_hardest(argparse.Namespace(**{**vars(args), "methods": list(SENSITIVITY),
                                          "jsonl": args.sensitivity_jsonl}), params)
        report(args)
        return
    if not args.report:
        params = {k: str(v) for k, v in vars(args).items() if k != "jsonl"}
        if args.population in ("dealt", "both"):
            run_dealt_shard(args, params, lambda deal: analyse(deal, args, "dealt", deal.exposed), show)
        if args.population in ("hardest", "both"):
            run_hardest(args, params)
    report(args)


def population_records(records: list[dict[str, Any]], args: argparse.Namespace
                       ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(dealt records of the sample's seeds in seed order, hardest-class records by rank) at this budget."""
    dealt = sorted((r for r in records if r.get("population") == "dealt" and r.get("budget") == args.budget
                    and args.seed <= r["seed"] < args.seed + args.deals), key=lambda r: r["seed"])
    hardest = sorted((r for r in records if r.get("population") == "hardest" and r.get("budget") == args.budget),
                     key=lambda r: r["rank"])
    return dealt, hardest


def report(args: argparse.Namespace) -> None:
    runs, records = read_jsonl(args.jsonl)
    dealt, hardest = population_records(records, args)
    if not dealt and not hardest:
        print(f"{args.jsonl}: no records at budget {args.budget:g} CPU s yet")
        return
    text, summary = make_report(dealt, hardest, runs, args)
    s_runs, s_records = read_jsonl(args.sensitivity_jsonl)
    varied = sorted((r for r in s_records if r.get("population") == "hardest" and r.get("budget") == args.budget),
                    key=lambda r: r["rank"])
    if varied and hardest:
        table, summary["sensitivity"] = sensitivity_table(hardest, varied, s_runs, args.budget)
        text = text.replace("![convergence](convergence.png)", "\n".join(table) + "\n\n![convergence](convergence.png)")
    print(text)
    if args.no_write:
        return
    save_data("convergence", recorded_run(runs), summary)
    plot(dealt or hardest, args, "deals as dealt" if dealt else "hardest classes")
    write_section(*SECTION, text)


def sensitivity_table(hardest: list[dict[str, Any]], varied: list[dict[str, Any]], runs: list[dict[str, Any]],
                      budget: float) -> tuple[list[str], dict[str, Any]]:
    """The meta-solvers at other settings on the hardest classes: certified ε at the budget beside
    the default setting's and the shipped double oracle's, on the classes both files hold."""
    by_key = {r["key"]: r for r in hardest}
    pairs = [(by_key[r["key"]], r) for r in varied if r["key"] in by_key]
    ref = np.array([at_budget(h["methods"][REFERENCE]["trace"], budget) for h, _ in pairs])
    lines = [f"**Sensitivity of the meta-solvers** (the hardest classes, {len(pairs)} of them, {budget:g} CPU s each; "
             f"PSRO's defaults: {INNER_STEPS} self-play steps a PSRO iteration, Hedge's rate "
             f"√(8 ln n / t) / {PAYOFF_RANGE:g}). " + provenance(runs), "",
             "| meta-solver, setting | certified ε at the budget: median [IQR] | the shipped double oracle "
             "lower / higher / tied |", "|---|---|---|"]
    summary: dict[str, Any] = {}
    rows = [(LABELS[m] + " (default)", [h["methods"][m] for h, _ in pairs]) for m in ("psro-rm+", "psro-hedge")]
    rows += [(name, [v["methods"][name] for _, v in pairs]) for name in SENSITIVITY
             if all(name in v["methods"] for _, v in pairs)]
    for label, runs_ in rows:
        eps = np.array([at_budget(r["trace"], budget) for r in runs_])
        q1, med, q3 = np.quantile(eps, [0.25, 0.5, 0.75])
        lower, higher = int(np.sum(ref < eps - 1e-9)), int(np.sum(eps < ref - 1e-9))
        lines.append(f"| {label} | {med:.4f} [{q1:.4f}, {q3:.4f}] | {lower} / {higher} / {len(eps) - lower - higher} |")
        summary[label] = {"median": float(med), "iqr": [float(q1), float(q3)], "shipped_lower": lower,
                          "shipped_higher": higher}
    least = min(v["shipped_lower"] for v in summary.values())
    lines += ["", f"At every setting the shipped double oracle holds the lower certified ε on at least {least} of "
              f"the {len(pairs)} classes: the comparison above does not hinge on the meta-solvers' settings."
              if least * 2 > len(pairs) else
              f"At some setting the shipped double oracle holds the lower certified ε on only {least} of the "
              f"{len(pairs)} classes."]
    return lines, summary


def first_reach(trace: Trace, eps: float, budget: float) -> tuple[float, float]:
    """(iteration, CPU seconds) when the certified ε first reached ``eps`` within ``budget`` CPU
    seconds (inf if not: an iteration finished past the budget does not count)."""
    for it, cpu, e in trace:
        if cpu > budget:
            break
        if e <= eps + 1e-9:
            return float(it), cpu
    return float("inf"), float("inf")


def at_budget(trace: Trace, budget: float) -> float:
    """The least certified ε among the iterations finished within ``budget`` CPU seconds."""
    done = [e for _, cpu, e in trace if cpu <= budget]
    return min(done) if done else TRIVIAL


def _num(v: float, digits: int = 2) -> str:
    return f"{v:.{digits}f}" if np.isfinite(v) else ("∞" if v > 0 else "—")


def _median_cell(vals: np.ndarray) -> str:
    """Median [95% bootstrap CI] over deals, ∞ (not reached) counted as larger than any time."""
    big = 1e300  # ∞ stands in as a finite number: the bootstrap's quantiles interpolate
    m, lo, hi = (v if v < big / 2 else float("inf") for v in bootstrap_ci(np.minimum(vals, big), np.median))
    return f"{_num(m)} [{_num(lo)}, {_num(hi)}]" if vals.size else "—"


def paired(records: list[dict[str, Any]], a: str, b: str, eps: float, budget: float
           ) -> tuple[int, int, int, tuple[float, float, float]]:
    """``a`` against ``b`` at ``eps``: (deals both reached, a wins, b wins, median CPU ratio a / b on
    the deals both reached [bootstrap CI]); a deal only one reached is a win for it."""
    x = np.array([first_reach(r["methods"][a]["trace"], eps, budget)[1] for r in records])
    y = np.array([first_reach(r["methods"][b]["trace"], eps, budget)[1] for r in records])
    both = np.isfinite(x) & np.isfinite(y)
    wins = int(np.sum(both & (x < y)) + np.sum(np.isfinite(x) & ~np.isfinite(y)))
    losses = int(np.sum(both & (y < x)) + np.sum(np.isfinite(y) & ~np.isfinite(x)))
    return int(both.sum()), wins, losses, bootstrap_ci(x[both] / y[both], np.median)


def population_tables(records: list[dict[str, Any]], args: argparse.Namespace, name: str
                      ) -> tuple[list[str], dict[str, Any]]:
    """The per-method table and the paired table of one population, and its summary."""
    n, B = len(records), args.budget
    methods = [m for m in METHODS if all(m in r["methods"] for r in records)]
    targets = sorted({*TARGETS, args.target}, reverse=True)
    lines = [f"| method | target ε | reached within {B:g} CPU s [95% CI] | CPU s to reach: median [95% CI] | "
             f"certified ε at {B:g} CPU s: median [IQR] | population at the end: median |",
             "|---|---:|---|---|---|---:|"]
    summary: dict[str, Any] = {"deals": n, "methods": {}, "paired": []}
    for m in methods:
        final = np.array([at_budget(r["methods"][m]["trace"], B) for r in records])
        pop = np.median([r["methods"][m]["population"] for r in records])
        q1, med, q3 = np.quantile(final, [0.25, 0.5, 0.75])
        summary["methods"][m] = {"final_eps_median": float(med), "population_median": float(pop), "targets": {}}
        for eps in targets:
            cpu = np.array([first_reach(r["methods"][m]["trace"], eps, B)[1] for r in records])
            k = int(np.isfinite(cpu).sum())
            lo, hi = clopper_pearson(k, n)
            lines.append(f"| {LABELS[m]} | {eps:g} | {k}/{n} [{100 * lo:.0f}–{100 * hi:.0f}%] | {_median_cell(cpu)} | "
                         f"{med:.4f} [{q1:.4f}, {q3:.4f}] | {pop:.0f} |")
            summary["methods"][m]["targets"][str(eps)] = {"reached": k, "ci": [lo, hi],
                                                          "median_cpu": float(np.median(cpu))}
    others = [m for m in methods if m != REFERENCE]
    if REFERENCE not in methods or not others:
        return lines + ["", f"({name}: no paired comparison — `{REFERENCE}` and another method are needed.)"], summary
    rows = [(m, eps, *paired(records, REFERENCE, m, eps, B)) for m in others for eps in targets]
    pvalues = holm([sign_test_p(w, lo_) for _, _, _, w, lo_, _ in rows])
    lines += ["", f"Paired ({name}): {LABELS[REFERENCE]} against each other method, same deals, same budget. A win "
              "is reaching the target in less CPU time; a method that does not reach it within the budget loses "
              "(both not reaching: a tie, left out). Ratio = shipped CPU s / the other's, on the deals both reached "
              f"(< 1: shipped faster). Two-sided sign tests, Holm-adjusted over all {len(rows)} comparisons of this "
              "table.", "",
              "| against | target ε | both reached | shipped wins | shipped loses | median CPU ratio [95% CI] | "
              "sign test p (Holm) |", "|---|---:|---:|---:|---:|---|---:|"]
    for (m, eps, nb, w, lo_, (ratio, r_lo, r_hi)), p in zip(rows, pvalues, strict=True):
        lines.append(f"| {LABELS[m]} | {eps:g} | {nb} | {w} | {lo_} | {_num(ratio)} [{_num(r_lo)}, {_num(r_hi)}] | "
                     f"{p:.2g} |")
        summary["paired"].append({"against": m, "target": eps, "both": nb, "wins": w, "losses": lo_,
                                  "ratio": [ratio, r_lo, r_hi], "p_holm": p})
    return lines + [""] + anytime_table(records, others, B, name, summary), summary


def anytime_table(records: list[dict[str, Any]], others: list[str], budget: float, name: str,
                  summary: dict[str, Any]) -> list[str]:
    """The anytime comparison: the shipped method's certified ε at the budget against each other
    method's on the same deals (a win: a lower ε by more than 1e-9), sign tests Holm-adjusted over
    the table's rows; it decides where few deals reach any target within the budget."""
    ref = np.array([at_budget(r["methods"][REFERENCE]["trace"], budget) for r in records])
    rows = []
    for m in others:
        other = np.array([at_budget(r["methods"][m]["trace"], budget) for r in records])
        wins, losses = int(np.sum(ref < other - 1e-9)), int(np.sum(other < ref - 1e-9))
        rows.append((m, wins, losses, len(records) - wins - losses, float(np.median(other - ref))))
    pvalues = holm([sign_test_p(w, lo_) for _, w, lo_, _, _ in rows])
    lines = [f"Anytime ({name}): the certified ε each method holds at {budget:g} CPU s, {LABELS[REFERENCE]} "
             "against each other method on the same deals. A win is a lower certified ε (by more than 1e-9); "
             f"equal ε is a tie, left out. Two-sided sign tests, Holm-adjusted over the {len(rows)} rows.", "",
             "| against | shipped lower ε | shipped higher ε | ties | median of (other's ε − shipped's) | "
             "sign test p (Holm) |", "|---|---:|---:|---:|---:|---:|"]
    summary["anytime"] = []
    for (m, w, lo_, ties, diff), p in zip(rows, pvalues, strict=True):
        lines.append(f"| {LABELS[m]} | {w} | {lo_} | {ties} | {diff:.4f} | {p:.2g} |")
        summary["anytime"].append({"against": m, "wins": w, "losses": lo_, "ties": ties,
                                   "median_difference": diff, "p_holm": p})
    return lines


def make_report(dealt: list[dict[str, Any]], hardest: list[dict[str, Any]], runs: list[dict[str, Any]],
                args: argparse.Namespace) -> tuple[str, dict[str, Any]]:
    B = args.budget
    records = dealt + hardest
    used = max(r["methods"][m]["cpu"] for r in records for m in r["methods"])
    loads = [r["run"].get("load", float("nan")) for r in runs if not r["run"].get("closing")]
    load = ", ".join(f"{v:.2f}" for v in loads if v == v)
    lines = [provenance(runs) + (f" Load average at the start of each invocation: {load}." if load else ""), ""]
    if dealt and len(dealt) < args.deals:
        lines += [f"**Partial:** {len(dealt)} of the {args.deals} dealt deals so far (resumable).", ""]
    lines += [f"**One budget, one clock:** every method had the same {B:g} CPU seconds (`time.process_time` of the "
              "process, one method at a time), enforced by a watcher whose stop event the solver polls "
              f"(`analysis_common.CpuBudget`); the most CPU any run used was {used:.2f} s, and an iteration finished "
              "past the budget does not count. Every method starts from the best response to uniform (computed once "
              "per deal, outside the clocks) and shares the exact oracle and the orbit expansion (a best response "
              "joins with its partition's 120 slot orders): the double oracle as shipped (with its cheap oracle), "
              "the double oracle with the exact oracle only, and the PSRO baselines of `benchmarks/research/psro.py` — "
              "fictitious play (uniform meta-solver), regret-matching+ and Hedge as meta-solvers, the online double "
              "oracle. Every ε is certified (an exact best response's value, or its proven bound), the least so far. "
              f"Each method stops at ε ≤ {args.target:g}. Reached: Clopper–Pearson 95% intervals; CPU s to reach: "
              "median over deals with a 95% bootstrap interval, a deal not reached counting as ∞.", ""]
    summary: dict[str, Any] = {"budget": B, "target": args.target, "seed": args.seed}
    if dealt:
        seeds = f"seeds {args.seed}–{args.seed + args.deals - 1}"
        lines += [f"### {len(dealt)} deals as dealt (`Deal.random`, {seeds})", ""]
        tables, summary["dealt"] = population_tables(dealt, args, "deals as dealt")
        lines += tables + [""]
    if hardest:
        lines += [f"### The {len(hardest)} hardest classes (most CPU in `benchmarks/data/equilibrium-classes.jsonl`)",
                  "", "The classes of bench_equilibrium's class-uniform sample on which the shipped solver spent "
                  "the most CPU time: " + ", ".join(f"`{r['exposed']}`" for r in hardest) + ".", ""]
        tables, summary["hardest"] = population_tables(hardest, args, "hardest classes")
        lines += tables + [""]
    pools = [r for r in records if r.get("lp-pool")]
    if pools:
        lines += ["LP over a fixed sampled pool (not a convergence method: each pool size from scratch, its "
                  "certifying best response stopped at the budget; CPU s includes the pool's LP):", "",
                  "| partitions in the pool (× 120 orders) | CPU s: median | certified ε: median [95% CI] |",
                  "|---:|---:|---|"]
        for j, k in enumerate(r[0] for r in pools[0]["lp-pool"]):
            cpu = np.array([r["lp-pool"][j][1] for r in pools])
            eps = np.array([r["lp-pool"][j][2] for r in pools])
            med, lo, hi = bootstrap_ci(eps, np.median)
            lines.append(f"| {k:,} | {np.median(cpu):.2f} | {med:.3f} [{lo:.3f}, {hi:.3f}] |")
        lines.append("")
    lines.append("![convergence](convergence.png)")
    summary["per_deal"] = [{"population": r["population"], "exposed": r["exposed"], "seed": r.get("seed"),
                            **{m: at_budget(v["trace"], B) for m, v in r["methods"].items()}} for r in records]
    # the overview notebook's view (notebooks/src/build_overview.py): the dealt deals' traces under its names
    old_names = {"do-shipped": "do-shipped", "do-exact-only": "do-exact-only", "fictitious-play": "fp"}
    summary["params"] = {"budget": B, "target": args.target, "seed": args.seed,
                         "pool_sizes": [k for k, _, _ in dealt[0].get("lp-pool") or []] if dealt else []}
    summary["deals"] = [{"seed": r["seed"], "exposed": r["exposed"], "lp-pool": r.get("lp-pool") or [],
                         **{old: r["methods"][new]["trace"] for old, new in old_names.items()}}
                        for r in dealt if all(new in r["methods"] for new in old_names.values())]
    return "\n".join(lines), summary


def on_grid(trace: Trace, grid: np.ndarray, target: float) -> np.ndarray:
    """Best-so-far certified ε at each CPU-seconds grid point: before the first certificate the
    trivial bound; after the run ended its final ε if it reached ``target``, else NaN (a stopped
    run is not drawn on)."""
    out = np.full(grid.shape, TRIVIAL)
    if not trace:
        return out
    xs = np.array([t[1] for t in trace], dtype=float)
    es = np.array([t[2] for t in trace], dtype=float)
    for i, g in enumerate(grid):
        k = np.searchsorted(xs, g, side="right")
        if k:
            out[i] = es[:k].min()
    if es.min() > target + 1e-9:
        out[grid > xs[-1]] = np.nan
    return np.maximum(out, FLOOR)


def plot(records: list[dict[str, Any]], args: argparse.Namespace, name: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 5.2))
    full = np.logspace(-2, np.log10(args.budget), 80)
    methods = [m for m in METHODS if all(m in r["methods"] for r in records)]
    for j, m in enumerate(methods):
        traces = [[t for t in r["methods"][m]["trace"] if t[1] <= args.budget] for r in records]
        end = max((t[-1][1] for t in traces if t), default=0.0)
        grid = np.append(full[full < end], end)  # no line past the method's last iteration on any deal
        ys = np.array([on_grid(t, grid, args.target) for t in traces])
        ys[:, np.isnan(ys).sum(axis=0) > len(records) // 2] = np.nan  # drawn while most runs go on
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: not drawn
            q1, med, q3 = np.nanquantile(ys, [0.25, 0.5, 0.75], axis=0)
        ax.plot(grid, med, color=f"C{j}", label=LABELS[m])
        ax.fill_between(grid, q1, q3, color=f"C{j}", alpha=0.15)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(full[0], args.budget)
    ax.set_xlabel(f"CPU seconds since the method's start (time.process_time; the axis ends at the budget, "
                  f"{args.budget:g} s)")
    ax.set_ylabel("certified exploitability ε, least so far (points, log)")
    ax.axhline(args.target, color="black", lw=0.7, ls="--")
    ax.legend(fontsize=8, frameon=False)
    ax.set_title(f"Convergence on {len(records)} {name}: median and interquartile band; target ε {args.target:g} "
                 f"(dashed); ε = 0 drawn at {FLOOR:g}", fontsize=9)
    fig.tight_layout()
    savefig(fig, "convergence.png")


if __name__ == "__main__":
    main()
