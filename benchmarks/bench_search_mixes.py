"""The exact search against the mixes a double oracle really asks about, on fixed problems (A/B).

    python benchmarks/bench_search_mixes.py                              # capture, time, write RESULTS
    python benchmarks/bench_search_mixes.py --save mixes.pkl --no-write  # capture once …
    python benchmarks/bench_search_mixes.py --load mixes.pkl --baseline /tmp/old   # … time against a checkout

Capture: ``solver.advisor.equilibrium.equilibrium`` runs on each deal (``--deals``; by default the
rules' example deal and six classes of ``bench_equilibrium.py``'s sample, from quick to among the
slowest) to ε 0.01, and every best-response problem it hands to ``solve_search`` is kept: the value
table and the hint (the double oracle is deterministic, so the same code captures the same problems).
Timing: each problem is solved ``--repeat`` times in a fresh process (kernels loaded beforehand) and
its least CPU time (``time.process_time``) kept; the report gives the sum per deal and in all, and
checks that every solve returns the same value and arrangement as the capture.

``--baseline DIR``: the same problems timed with ``PYTHONPATH=DIR`` (another checkout), the two
processes alternating ``--rounds`` times; the ratio new / old of the sums, per round.  The Search
section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import os
import pickle
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmark_results import machine_load, write_section

from quintet.cliutil import OneLineParser, positive_int

DEALS = ["8h 7h 9d Ts 7s Qc Jc", "Qc Jh Jd Jc Ts Td 9h", "Kc Qd Qc Jd Th Td 8c", "Ac Kh Kd Js Jd 9h 8s",
         "Qh Qd Qc Jc Th Td 7d", "Kc Jd Tc 9s 9h 8c 7c", "Ac Kd Jh 9d 8c 7s 7d"]

TIME = r"""
import pickle, sys, time
from quintet.game import Deal
from solver.engines.search import solve_search
from solver.problem.best_response import BestResponseProblem
from solver.problem.deal_tables import DealTables
problems = pickle.load(open(sys.argv[1], "rb"))
repeat = int(sys.argv[2])
tables = {}
for p in problems:
    if p["exposed"] not in tables:
        tables[p["exposed"]] = DealTables.build(Deal.from_exposed(p["exposed"]))
built = [BestResponseProblem(tables[p["exposed"]], p["values"]) for p in problems]
solve_search(built[0])  # load (or compile) the kernels
best = [float("inf")] * len(built)
nodes = [0] * len(built)
same = 0
for _ in range(repeat):
    for i, (p, problem) in enumerate(zip(problems, built)):
        t0 = time.process_time()
        r = solve_search(problem, hint=p["hint"])
        best[i] = min(best[i], time.process_time() - t0)
        nodes[i] = r.stats["nodes"]
        same += r.value == p["value"] and tuple(r.packets) == tuple(p["packets"])
print(repr((best, nodes, same / repeat)))
"""


def capture(deals: list[str]) -> list[dict[str, object]]:
    import numpy as np

    import solver.advisor.equilibrium as eq
    from quintet.game import Deal

    problems: list[dict[str, object]] = []
    current = {"exposed": ""}
    original = eq.solve_search

    def keep(problem, **kwargs):
        r = original(problem, **kwargs)
        problems.append({"exposed": current["exposed"], "values": np.array(problem.values),
                         "hint": kwargs.get("hint"), "value": r.value, "packets": tuple(r.packets)})
        return r

    eq.solve_search = keep
    try:
        for exposed in deals:
            current["exposed"] = exposed
            eq.equilibrium(Deal.from_exposed(exposed), epsilon=0.01, time_limit=120)
            print(f"captured {exposed}: {sum(p['exposed'] == exposed for p in problems)} problems", file=sys.stderr)
    finally:
        eq.solve_search = original
    return problems


def time_problems(path: str, repeat: int, tree: str | None) -> tuple[list[float], list[int], float]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = tree + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    with tempfile.TemporaryDirectory() as cwd:  # so that '' on sys.path is not this checkout
        out = subprocess.run([sys.executable, "-c", TIME, path, str(repeat)], env=env, cwd=cwd, check=True,
                             capture_output=True, text=True).stdout
    best, nodes, same = eval(out.strip().splitlines()[-1])  # our own child's repr
    return best, nodes, same


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", nargs="+", default=DEALS, metavar="EXPOSED", help="deals to capture from")
    ap.add_argument("--save", metavar="FILE", help="keep the captured problems in FILE")
    ap.add_argument("--load", metavar="FILE", help="time the problems of FILE (no capture)")
    ap.add_argument("--repeat", type=positive_int, default=2,
                    help="solves per problem, the least CPU time kept (default 2)")
    ap.add_argument("--baseline", metavar="DIR", help="another checkout to time the same problems with")
    ap.add_argument("--rounds", type=positive_int, default=2, help="with --baseline: alternations (default 2)")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        path = args.load or args.save or str(Path(tmp) / "problems.pkl")
        if not args.load:
            with open(path, "wb") as f:
                pickle.dump(capture(args.deals), f)
        with open(path, "rb") as f:
            problems = pickle.load(f)
        rounds = args.rounds if args.baseline else 1
        new, old = [], []
        for _ in range(rounds):
            new.append(time_problems(path, args.repeat, None))
            if args.baseline:
                old.append(time_problems(path, args.repeat, args.baseline))
    deals = list(dict.fromkeys(p["exposed"] for p in problems))
    best, nodes, same = min(new, key=lambda r: sum(r[0]))
    lines = [
        f"`python benchmarks/bench_search_mixes.py {' '.join(sys.argv[1:])}` on {machine_load()}: "
        f"{len(problems)} best-response problems captured from the double oracle on "
        f"{len(deals)} deals (ε 0.01), each solved {args.repeat} times in one process, the least CPU time kept "
        "(`time.process_time`); the best of the rounds.",
        "",
        "| deal | problems | CPU s (sum) | nodes (sum) |",
        "|---|---|---|---|",
    ]
    for exposed in deals:
        idx = [i for i, p in enumerate(problems) if p["exposed"] == exposed]
        lines.append(f"| {exposed} | {len(idx)} | {sum(best[i] for i in idx):.2f} | {sum(nodes[i] for i in idx):,} |")
    lines.append(f"| all | {len(problems)} | {sum(best):.2f} | {sum(nodes):,} |")
    lines += ["", f"Same value and arrangement as the capture: {same:.0f} of {len(problems)}"
              + (f" (the baseline: {min(o[2] for o in old):.0f})." if old else ".")]
    if old:
        ratios = [sum(n[0]) / sum(o[0]) for n, o in zip(new, old, strict=True)]
        lines += [f"Against `--baseline` ({args.baseline}), alternating, CPU s new / old per round: "
                  + ", ".join(f"{sum(n[0]):.2f} / {sum(o[0]):.2f} (×{r:.2f})"
                              for (n, o, r) in zip(new, old, ratios, strict=True))
                  + f"; median ×{statistics.median(ratios):.2f}."]
    report = "\n".join(lines)
    print(report)
    if not args.no_write:
        write_section("search-mixes", "Search against double-oracle mixes", report)


if __name__ == "__main__":
    main()
