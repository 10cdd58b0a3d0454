"""Where an equilibrium's time goes: a per-class profile of the double oracle at ε.

    python benchmarks/profile_equilibrium.py                          # the 300 classes of bench_equilibrium
    python benchmarks/profile_equilibrium.py --count 60 --no-write    # the first 60 of them, a quick look
    python benchmarks/profile_equilibrium.py --jsonl a.jsonl --first 0 --count 150   # a shard …
    python benchmarks/profile_equilibrium.py --report a.jsonl b.jsonl                # … and the table

The sample is ``bench_equilibrium.py``'s: ``solver.apps.batch.book_sample(--deals, --seed)``, suit-canonical
classes drawn uniformly (without replacement, in random order, so any stretch ``--first``/``--count``
of it is a uniform sample too).  Each class is solved from scratch by
``solver.advisor.equilibrium.equilibrium`` to certified ε, kernels compiled beforehand, in this one
process.  The parts are timed by wrappers installed here, around the module globals the double oracle
calls (nothing is added to the solver's own code):

* *exact BR* — every exact engine call (``solver.engines.base.solve``) of ``solver.advisor.equilibrium``
  (the first best response, to the uniform opponent: the double oracle's start) and of
  ``solver.games.quintet_game`` (the exact best responses to the mixes);
* *cheap* — the local search (``improving_partitions`` of ``solver.games.quintet_game``), the cheap oracle;
* *LP* — ``solve_symmetric_lp`` (GLOP) on the working set's payoff matrix;
* *payoffs* — ``QuintetGame.payoffs`` (the working set's matrix) and ``payoffs_against`` (the pool's
  gains against a mix, through its marginals);
* *other* — the rest (tables, bookkeeping).

All times are CPU seconds of this process (``time.process_time``).  Pool, working-set and support sizes
come from the double oracle's own history records.  Writes the "Equilibrium profile" section of
benchmarks/RESULTS.md: the ``--top`` slowest classes, and the shares over the whole sample.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from benchmark_results import machine_load, write_section

import solver.advisor.equilibrium as eq_module
import solver.games.double_oracle as do_module
import solver.games.quintet_game as game_module
from quintet.cards import format_cards
from quintet.cliutil import OneLineParser, float_at_least, int_at_least, positive_float, positive_int
from quintet.game import Deal
from quintet.rules import get_rules
from solver.advisor.equilibrium import QuintetGame, certified_within, equilibrium
from solver.apps.batch import book_sample

PARTS = ("exact", "cheap", "lp", "payoffs")


class Meter:
    """CPU seconds and calls per part, with a log of the exact best responses."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.cpu = dict.fromkeys(PARTS, 0.0)
        self.calls = dict.fromkeys(PARTS, 0)
        self.exact_log: list[dict[str, float]] = []  # one per exact engine call
        self.lp_max = 0
        self.depth = 0  # payoffs inside another timed part are not counted twice

    def timed(self, part: str, fn: Callable[..., Any], note: Callable[[Any, tuple, dict, float], None] | None = None
              ) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if self.depth:
                return fn(*args, **kwargs)
            self.depth += 1
            t0 = time.process_time()
            try:
                out = fn(*args, **kwargs)
            finally:
                dt = time.process_time() - t0
                self.depth -= 1
            self.cpu[part] += dt
            self.calls[part] += 1
            if note is not None:
                note(out, args, kwargs, dt)
            return out

        return wrapper


def install(meter: Meter) -> None:
    """Wrap the module globals and methods the double oracle reaches (this process only)."""

    def note_search(result: Any, args: tuple, kwargs: dict, dt: float) -> None:
        meter.exact_log.append({"cpu": dt, "nodes": float(result.stats.get("nodes", 0)),
                                "optimal": float(result.optimal)})

    def note_lp(result: Any, args: tuple, kwargs: dict, dt: float) -> None:
        meter.lp_max = max(meter.lp_max, int(args[0].shape[0]))

    eq_module.solve = meter.timed("exact", eq_module.solve, note_search)  # the first best response
    game_module.solve = meter.timed("exact", game_module.solve, note_search)  # the best responses to mixes
    game_module.improving_partitions = meter.timed("cheap", game_module.improving_partitions)
    do_module.solve_symmetric_lp = meter.timed("lp", do_module.solve_symmetric_lp, note_lp)
    QuintetGame.payoffs = meter.timed("payoffs", QuintetGame.payoffs)  # type: ignore[method-assign]
    QuintetGame.payoffs_against = meter.timed("payoffs", QuintetGame.payoffs_against)  # type: ignore[method-assign]


def profile_one(deal: Deal, meter: Meter, epsilon: float, time_limit: float) -> dict[str, Any]:
    meter.reset()
    t0 = time.process_time()
    r = equilibrium(deal, epsilon=epsilon, time_limit=time_limit)
    total = time.process_time() - t0
    history = list(r.history)
    first, *mixes = meter.exact_log or [{"cpu": 0.0, "nodes": 0.0, "optimal": 1.0}]
    return {
        "exposed": format_cards(deal.exposed), "cpu": total, "epsilon": r.exploitability,
        "converged": certified_within(r.exploitability, epsilon), "iterations": r.iterations,
        "exact_calls": len(mixes), "exact_cpu": sum(x["cpu"] for x in mixes),
        "exact_max": max((x["cpu"] for x in mixes), default=0.0),
        "exact_nodes": sum(x["nodes"] for x in mixes), "unproven": sum(1 for x in mixes if not x["optimal"]),
        "first_cpu": first["cpu"],
        "cheap_calls": meter.calls["cheap"], "cheap_cpu": meter.cpu["cheap"],
        "lp_calls": meter.calls["lp"], "lp_cpu": meter.cpu["lp"], "lp_max": meter.lp_max,
        "payoffs_cpu": meter.cpu["payoffs"],
        "other_cpu": total - sum(meter.cpu.values()),
        "pool": r.pool_size, "working_max": max((h.working_size for h in history), default=0),
        "support": len(r.mix), "support_max": max((h.support for h in history), default=0),
        "exact_support": [h.support for h in history if h.exact],
    }


def table(rows: list[dict[str, Any]], top: int) -> list[str]:
    lines = [
        "| exposed | CPU s | iterations (exact) | exact BRs: CPU s (max one) | first BR (uniform) s | "
        "cheap oracle: calls, CPU s | LP: solves, CPU s (largest) | payoffs CPU s | other CPU s | "
        "pool | working set (max) | support (max) | certified ε |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(rows, key=lambda r: -r["cpu"])[:top]:
        lines.append(
            f"| {r['exposed']} | {r['cpu']:.2f} | {r['iterations']} ({r['exact_calls']}) | "
            f"{r['exact_cpu']:.2f} ({r['exact_max']:.2f}) | {r['first_cpu']:.2f} | "
            f"{r['cheap_calls']}, {r['cheap_cpu']:.2f} | {r['lp_calls']}, {r['lp_cpu']:.2f} ({r['lp_max']}) | "
            f"{r['payoffs_cpu']:.2f} | {r['other_cpu']:.2f} | {r['pool']} | {r['working_max']} | "
            f"{r['support']} ({r['support_max']}) | {r['epsilon']:.5f} |")
    return lines


def summary(rows: list[dict[str, Any]], top: int) -> list[str]:
    total = sum(r["cpu"] for r in rows)

    def share(key: str, subset: list[dict[str, Any]]) -> str:
        whole = sum(r["cpu"] for r in subset)
        return f"{100 * sum(r[key] for r in subset) / whole:.0f}%" if whole else "—"

    slow = sorted(rows, key=lambda r: -r["cpu"])[:top]
    cpu = np.array([r["cpu"] for r in rows])
    q = np.quantile(cpu, [0.5, 0.9, 0.95]) if len(cpu) else [float("nan")] * 3
    per_call = [r["exact_cpu"] / r["exact_calls"] for r in rows if r["exact_calls"]]
    lines = [
        f"- {len(rows)} classes, {total:.0f} CPU s in all; per class median {q[0]:.2f}, p90 {q[1]:.2f}, "
        f"p95 {q[2]:.2f}, max {cpu.max():.2f}; converged {sum(r['converged'] for r in rows)} of {len(rows)}.",
        "- Share of the CPU time, whole sample / the slowest "
        f"{len(slow)}: exact best responses to mixes {share('exact_cpu', rows)} / {share('exact_cpu', slow)}, "
        f"the first best response (uniform) {share('first_cpu', rows)} / {share('first_cpu', slow)}, "
        f"cheap oracle {share('cheap_cpu', rows)} / {share('cheap_cpu', slow)}, "
        f"LP {share('lp_cpu', rows)} / {share('lp_cpu', slow)}, payoffs {share('payoffs_cpu', rows)} / "
        f"{share('payoffs_cpu', slow)}, other {share('other_cpu', rows)} / {share('other_cpu', slow)}.",
        f"- Iterations per class: median {statistics.median(r['iterations'] for r in rows):g}, the slowest {len(slow)} "
        f"median {statistics.median(r['iterations'] for r in slow):g}; exact best responses per class: median "
        f"{statistics.median(r['exact_calls'] for r in rows):g} (slowest: "
        f"{statistics.median(r['exact_calls'] for r in slow):g}); CPU s per exact best response: median "
        f"{statistics.median(per_call):.3f}, max {max(r['exact_max'] for r in rows):.2f}; unproven (time limit): "
        f"{sum(r['unproven'] for r in rows)}.",
    ]
    return lines


def commit() -> str:
    """The checkout's commit (short hash, ``+`` when the tree has changes), or ``?``."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=here, capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=here,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + ("+" if dirty else "")


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive_int, default=300,
                    help="the sample: book_sample(DEALS, SEED) (default 300)")
    ap.add_argument("--seed", type=int_at_least(0), default=2026)
    ap.add_argument("--first", type=int_at_least(0), default=0,
                    help="profile the sample from this position (default 0)")
    ap.add_argument("--count", type=positive_int, default=None, help="… this many classes (default: to the end)")
    ap.add_argument("--epsilon", type=float_at_least(0), default=0.01)
    ap.add_argument("--time-limit", type=positive_float, default=120.0, help="seconds per class (default 120)")
    ap.add_argument("--top", type=positive_int, default=10, help="rows of the table: the slowest classes (default 10)")
    ap.add_argument("--jsonl", metavar="FILE", help="append one JSON line per class as it finishes")
    ap.add_argument("--report", nargs="+", metavar="FILE", help="no solving: the table of these JSON-lines files")
    ap.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = ap.parse_args()

    command = "python benchmarks/profile_equilibrium.py " + " ".join(sys.argv[1:])
    if args.report:
        rows = [json.loads(line) for f in args.report for line in Path(f).read_text().splitlines() if line.strip()]
        runs = sorted({f"`{r.get('command', '?')}` (commit {r.get('commit', '?')}, {r.get('date', '?')})"
                       for r in rows})
        origin = f"`{command}`: the records of {', '.join(runs)}"
    else:
        origin = f"`{command}` (commit {commit()}, {datetime.now(UTC):%Y-%m-%d})"
        stamp = {"command": command, "commit": commit(), "date": f"{datetime.now(UTC):%Y-%m-%d}"}
        rules = get_rules("classic")
        keys = book_sample(args.deals, args.seed, rules)
        stop = None if args.count is None else args.first + args.count
        keys = keys[args.first:stop]
        meter = Meter()
        install(meter)
        equilibrium(Deal.from_exposed("As Ks Qs Js Ts Ah Kh"), epsilon=1.0)  # compile (or load) the kernels
        rows = []
        for i, key in enumerate(keys):
            row = profile_one(Deal(int(key), rules), meter, args.epsilon, args.time_limit)
            row["position"] = args.first + i
            row.update(stamp)
            rows.append(row)
            print(f"{args.first + i}: {row['exposed']} {row['cpu']:.2f} s cpu, {row['iterations']} iterations "
                  f"({row['exact_calls']} exact, {row['exact_cpu']:.2f} s), cheap {row['cheap_cpu']:.2f} s, "
                  f"LP {row['lp_cpu']:.2f} s, ε {row['epsilon']:.5f}", flush=True)
            if args.jsonl:
                with open(args.jsonl, "a") as f:
                    f.write(json.dumps(row) + "\n")
    positions = sorted(r.get("position", -1) for r in rows)
    span = (f"positions {positions[0]}–{positions[-1]} ({len(rows)} classes)" if positions else "no classes")
    lines = [
        f"{origin}, on {machine_load()} (one process, one core).  Sample: "
        f"`book_sample({args.deals}, seed {args.seed})` — the classes of bench_equilibrium.py — {span}; "
        f"each solved from scratch to certified ε ≤ {args.epsilon:g} (time limit {args.time_limit:g} s), kernels "
        "compiled beforehand.  **CPU seconds** (`time.process_time`) per part, measured by wrappers around the "
        "module globals the double oracle calls (see the script's doc).",
        "",
        *summary(rows, args.top),
        "",
        f"The {min(args.top, len(rows))} slowest classes:",
        "",
        *table(rows, args.top),
        "",
        "*exact BRs*: the exact best responses to the restricted equilibria (iterations with the exact oracle); "
        "*first BR*: the best response to the uniform opponent the double oracle starts from; *LP*: GLOP on the "
        "working set; *payoffs*: the working set's payoff matrix and the pool's gains against each mix; *pool*: "
        "arrangements found (every slot order of each partition); *support*: the returned mix (in brackets the "
        "largest restricted equilibrium on the way).",
    ]
    report = "\n".join(lines)
    print(report)
    if not args.no_write:
        write_section("equilibrium-profile", "Equilibrium profile", report)


if __name__ == "__main__":
    main()
