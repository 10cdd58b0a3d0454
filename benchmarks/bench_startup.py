"""Start-up benchmark: what the first run costs (numba compilation) and what later runs cost.

    python benchmarks/bench_startup.py            # cold and warm, 3 warm repeats

Runs the README's first command (``quintet-solve 8h 7h 9d Ts 7s Qc Jc --no-store``, the
equilibrium) and the uniform advice (``--opponent uniform``) as separate processes:

* cold — ``NUMBA_CACHE_DIR`` pointing to an empty directory, so every kernel is compiled, as on
  a fresh machine (a fresh virtualenv has no cache either);
* warm — the same cache directory again: kernels load from the cache.

Wall and CPU seconds of each process (children included), and, for the cold run, where the
compilation goes (the numba compile events of each phase).  Figures go to the Start-up
section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmark_results import cpu_name, write_section

EXAMPLE = ["8h", "7h", "9d", "Ts", "7s", "Qc", "Jc"]
PHASES = r"""
import time
t0 = time.process_time()
def lap(name):
    global t0
    t = time.process_time(); print(f"{name}\t{t - t0:.2f}", flush=True); t0 = t
from quintet.game import Deal
from solver.problem.deal_tables import DealTables
deal = Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc")
tables = DealTables.build(deal); lap("the evaluator (packet table)")
from solver.advisor.advice import best_response_problem
from solver.engines.search import solve_search
solve_search(best_response_problem(deal, "uniform", tables=tables)); lap("the exact search")
from solver.advisor.equilibrium import equilibrium
equilibrium(Deal.from_exposed("Kc Qh Qd Js 9d 8s 7d"), epsilon=0.5); lap("local search, double oracle (a quick deal)")
"""


def run(cmd: list[str], cache: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one process with NUMBA_CACHE_DIR=cache."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="warm runs (default 3)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    script = Path(sys.executable).with_name("quintet-solve")  # this interpreter's install
    solve = [str(script)] if script.exists() else [sys.executable, "-m", "solver.apps.solve_cli"]
    equilibrium_cmd = [*solve, *EXAMPLE, "--no-store", "--quiet"]
    uniform_cmd = [*solve, *EXAMPLE, "--opponent", "uniform"]
    rows = []
    with tempfile.TemporaryDirectory() as cold:
        cold_eq = run(equilibrium_cmd, cold)
        warm_eq = [run(equilibrium_cmd, cold) for _ in range(args.repeat)]
        warm_uni = [run(uniform_cmd, cold) for _ in range(args.repeat)]
    with tempfile.TemporaryDirectory() as cold:
        cold_uni = run(uniform_cmd, cold)
    with tempfile.TemporaryDirectory() as cold:
        out = subprocess.run([sys.executable, "-c", PHASES], env=dict(os.environ, NUMBA_CACHE_DIR=cold),
                             check=True, capture_output=True, text=True).stdout
        phases = [line.split("\t") for line in out.strip().splitlines()]
    rows.append(("`quintet-solve 8h 7h 9d Ts 7s Qc Jc --no-store` (the equilibrium)", cold_eq, warm_eq))
    rows.append(("`quintet-solve 8h 7h 9d Ts 7s Qc Jc --opponent uniform`", cold_uni, warm_uni))
    lines = [
        f"`python benchmarks/bench_startup.py --repeat {args.repeat}` on {cpu_name()}: each command a process of "
        "its own; cold = an empty numba cache (every kernel compiled, as on a fresh machine), warm = the cache "
        "filled by the cold run.",
        "",
        "| command | cold: wall s | cold: CPU s | warm: wall s (median) | warm: CPU s (median) |",
        "|---|---|---|---|---|",
    ]
    for name, (cw, cc), warm in rows:
        lines.append(f"| {name} | {cw:.1f} | {cc:.1f} | {statistics.median(w for w, _ in warm):.2f} | "
                     f"{statistics.median(c for _, c in warm):.2f} |")
    lines += ["", "Where the cold run's time goes (CPU seconds, compilation included, in one process):", ""]
    lines += [f"- {name}: {float(secs):.1f}" for name, secs in phases]
    report = "\n".join(lines)
    print(report)
    if not args.no_write:
        write_section("startup", "Start-up", report)


if __name__ == "__main__":
    main()
