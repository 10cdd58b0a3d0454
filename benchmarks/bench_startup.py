"""Start-up benchmark: what the first run costs (numba compilation) and what later runs cost.

    python benchmarks/bench_startup.py                        # cold and warm, 3 warm repeats
    python benchmarks/bench_startup.py --baseline /tmp/old    # and the same for another checkout, A/B

Runs the README's first command (``quintet-solve 8h 7h 9d Ts 7s Qc Jc --no-store``, the
equilibrium), the uniform advice (``--opponent uniform``) and the other quick answers (``QUICK``:
a grade, a completion, a stored equilibrium; warm, each in its own process and then through the
resident process, ``quintet-solve --daemon``) as separate processes:

* cold — ``NUMBA_CACHE_DIR`` pointing to an empty directory, so every kernel is compiled, as on
  a fresh machine (a fresh virtualenv has no cache either);
* warm — the same cache directory again: kernels load from the cache.

Wall and CPU seconds of each process (children included), and, for the cold run, where the
compilation goes: the numba compile events of each phase, and per kernel of the README's first
command (CPU seconds of the kernel's own compilation, its callees' excluded, and how many
specialisations were compiled).  The children may write Python's bytecode cache (a user's Python
does, so a warm process reads it); ``--no-bytecode-cache`` keeps ``PYTHONDONTWRITEBYTECODE`` as the
environment has it.

The warm uniform advice is also split into its parts (``SPLIT``, in one process: the imports, the
command's own work, and what is left of the process's wall time — the interpreter's start and
teardown), and set against two floors measured the same way: ``python -c pass``, and a process
that imports numba, calls one trivial cached kernel and exits as the commands do (``gc.freeze``):
the least any command that runs a numba kernel pays, before any of the project's own work.

The equilibrium is also run with ``NUMBA_CPU_NAME=generic`` (its own empty cache, then warm):
numba then keys its cache on a generic x86-64 target, not on this CPU, so a cache built once can
serve other machines; the warm run says what that costs in speed (``--no-generic`` skips it).

``--baseline DIR``: the same measurements with ``PYTHONPATH=DIR`` (another checkout of the
project, e.g. ``git worktree add`` or ``git archive`` of an earlier commit), run in turn with this
tree's (each with its own empty cache), and the ratios new / old.  Figures go to the
Start-up section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from benchmark_results import cpu_name, git_commit, write_section

from quintet.cliutil import OneLineParser, positive_int

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
KERNELS = r"""
import sys, time
from collections import defaultdict
import numba.core.event as ev
stack, own, specs = [], defaultdict(float), defaultdict(int)
class Compiles(ev.Listener):
    def on_start(self, event):
        stack.append([time.process_time(), 0.0])
    def on_end(self, event):
        t0, inner = stack.pop()
        dt = time.process_time() - t0
        f = event.data["dispatcher"].py_func
        name = f.__module__ + "." + f.__qualname__
        own[name] += dt - inner
        specs[name] += 1
        if stack:
            stack[-1][1] += dt
ev.register("numba:compile", Compiles())
from solver.apps.solve_cli import main
main(sys.argv[1:])
for name, secs in own.items():
    print(f"KERNEL\t{name}\t{secs:.3f}\t{specs[name]}", file=sys.stderr)
"""

SPLIT = r"""
import sys, time
t0 = time.perf_counter()
from solver.apps.solve_cli import main
t1 = time.perf_counter()
main()  # the command line of the process (sys.argv), as the installed script runs it
t2 = time.perf_counter()
print(f"SPLIT\t{t1 - t0:.4f}\t{t2 - t1:.4f}", file=sys.stderr)
"""
FLOOR_KERNEL = """from numba import njit


@njit(cache=True)
def one(x):
    return x + 1
"""
# frozen out of the collector at exit, as the commands are (quintet.cliutil.run_cli)
FLOOR = "import gc\nimport numba\nfrom floor_kernel import one\none(1)\ngc.freeze()\n"


def child_env(cache: str, tree: str | None, bytecode: bool) -> dict[str, str]:
    # no resident process unless one is started on purpose (``measure``), and a store of the run's own
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, QUINTET_SOCKET=str(Path(cache, "run", "solve.sock")),
               QUINTET_STORE=str(Path(cache, "store.sqlite")))
    if tree is not None:
        env["PYTHONPATH"] = tree + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def run_capture(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the child, its stderr) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, cwd=env["NUMBA_CACHE_DIR"], check=True, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stderr


def run(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(wall seconds, CPU seconds of the child) of one process."""
    wall, cpu, _ = run_capture(cmd, env)
    return wall, cpu


Run = tuple[float, float]  # (wall s, CPU s)


@dataclass
class Figures:
    """Every figure of one source tree."""

    cold_eq: Run = (0.0, 0.0)
    cold_uni: Run = (0.0, 0.0)
    warm_eq: list[Run] = field(default_factory=list)
    warm_uni: list[Run] = field(default_factory=list)
    cold_eq_generic: Run | None = None  # the same with NUMBA_CPU_NAME=generic (a cache not tied to this CPU)
    warm_eq_generic: list[Run] = field(default_factory=list)
    phases: list[tuple[str, float]] = field(default_factory=list)
    kernels: list[tuple[str, float, int]] = field(default_factory=list)  # (name, own CPU s, specialisations)
    split: list[tuple[float, float, float]] = field(default_factory=list)  # warm uniform: (imports, work, wall) s
    floor_python: list[Run] = field(default_factory=list)  # `python -c pass`
    floor_numba: list[Run] = field(default_factory=list)  # import numba, call one trivial cached kernel
    quick: dict[str, tuple[list[Run], list[Run]]] = field(default_factory=dict)  # name: (in-process, resident)


def measure(tree: str | None, repeat: int, bytecode: bool, generic: bool, quick: bool = True) -> Figures:
    """Every figure of one source tree (None: the installed project); ``quick``: the quick answers
    too (a baseline may predate the resident process)."""
    script = Path(sys.executable).with_name("quintet-solve")  # this interpreter's install
    solve = [str(script)] if script.exists() else [sys.executable, "-m", "solver.apps.solve_cli"]
    equilibrium_cmd = [*solve, *EXAMPLE, "--no-store", "--quiet"]
    uniform_cmd = [*solve, *EXAMPLE, "--opponent", "uniform"]
    out = Figures()
    with tempfile.TemporaryDirectory() as cold:
        env = child_env(cold, tree, bytecode)
        out.cold_eq = run(equilibrium_cmd, env)
        out.warm_eq = [run(equilibrium_cmd, env) for _ in range(repeat)]
        out.warm_uni = [run(uniform_cmd, env) for _ in range(repeat)]
        for _ in range(repeat):
            wall, _, err = run_capture([sys.executable, "-c", SPLIT, *EXAMPLE, "--opponent", "uniform"], env)
            imports, work = next(line.split("\t")[1:] for line in err.splitlines() if line.startswith("SPLIT\t"))
            out.split.append((float(imports), float(work), wall))
        if quick:
            out.quick = quick_answers(solve, env, repeat)
    with tempfile.TemporaryDirectory() as cold:
        env = child_env(cold, tree, bytecode)
        Path(cold, "floor_kernel.py").write_text(FLOOR_KERNEL, encoding="utf-8")
        run([sys.executable, "-c", FLOOR], env)  # compiles the kernel into the cache
        out.floor_numba = [run([sys.executable, "-c", FLOOR], env) for _ in range(repeat)]
        out.floor_python = [run([sys.executable, "-c", "pass"], env) for _ in range(repeat)]
    with tempfile.TemporaryDirectory() as cold:
        out.cold_uni = run(uniform_cmd, child_env(cold, tree, bytecode))
    if generic:
        with tempfile.TemporaryDirectory() as cold:
            env = dict(child_env(cold, tree, bytecode), NUMBA_CPU_NAME="generic")
            out.cold_eq_generic = run(equilibrium_cmd, env)
            out.warm_eq_generic = [run(equilibrium_cmd, env) for _ in range(repeat)]
    with tempfile.TemporaryDirectory() as cold:
        text = subprocess.run([sys.executable, "-c", PHASES], env=child_env(cold, tree, bytecode), cwd=cold,
                              check=True, capture_output=True, text=True).stdout
        out.phases = [(name, float(secs)) for name, secs in (line.split("\t") for line in text.strip().splitlines())]
    with tempfile.TemporaryDirectory() as cold:
        err = subprocess.run([sys.executable, "-c", KERNELS, *EXAMPLE, "--no-store", "--quiet"],
                             env=child_env(cold, tree, bytecode), cwd=cold, check=True, capture_output=True,
                             text=True).stderr
        kernels = [line.split("\t")[1:] for line in err.splitlines() if line.startswith("KERNEL\t")]
        out.kernels = [(name, float(secs), int(n)) for name, secs, n in kernels]
    return out


QUICK = {
    "`--opponent uniform`": ["--opponent", "uniform"],
    "`--grade ARRANGEMENT`": ["--opponent", "uniform", "--grade", "Th Td Tc 7d 7c | Js Jh Jd 8s 8d | Qs Qh Qd 9h 9c | "
                              "Ks Kh Kd Kc 8c | As Ah Ad Ac 9s"],
    "`--fix \"5=As Ah Ad Ac 9s\"`": ["--opponent", "uniform", "--fix", "5=As Ah Ad Ac 9s"],
    "the stored equilibrium": ["--quiet"],
}
"""The quick answers of the example deal: warm, each in a process of its own, then through the resident process."""


def quick_answers(solve: list[str], env: dict[str, str], repeat: int) -> dict[str, tuple[list[Run], list[Run]]]:
    """Each ``QUICK`` command ``repeat`` times in its own process (warm cache), then as many times
    through a resident process (``quintet-solve --daemon``, started first and stopped after)."""
    run([*solve, *EXAMPLE, "--quiet"], env)  # solves and stores the example's equilibrium
    own = {name: [run([*solve, *EXAMPLE, *args], env) for _ in range(repeat)] for name, args in QUICK.items()}
    run([*solve, "--daemon"], env)
    try:
        for args in QUICK.values():  # untimed: the first waits for the resident process's warm-up
            run([*solve, *EXAMPLE, *args], env)
        resident = {name: [run([*solve, *EXAMPLE, *args], env) for _ in range(repeat)] for name, args in QUICK.items()}
    finally:
        run([*solve, "--stop-daemon"], env)
    return {name: (own[name], resident[name]) for name in QUICK}


def median(runs: list[Run], k: int) -> float:
    return statistics.median(r[k] for r in runs)


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=positive_int, default=3, help="warm runs (default 3)")
    ap.add_argument("--baseline", metavar="DIR", help="another checkout to compare with (PYTHONPATH=DIR)")
    ap.add_argument("--top", type=positive_int, default=12, help="kernels listed (default 12)")
    ap.add_argument("--no-bytecode-cache", action="store_true", help="keep PYTHONDONTWRITEBYTECODE as it is")
    ap.add_argument("--no-generic", action="store_true", help="skip the NUMBA_CPU_NAME=generic runs")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    bytecode = not args.no_bytecode_cache
    load, commit = os.getloadavg()[0], git_commit()
    new = measure(None, args.repeat, bytecode, not args.no_generic)
    old = measure(args.baseline, args.repeat, bytecode, False, quick=False) if args.baseline else None

    def commands(f: Figures) -> list[tuple[str, Run, list[Run]]]:
        return [("`quintet-solve 8h 7h 9d Ts 7s Qc Jc --no-store` (the equilibrium)", f.cold_eq, f.warm_eq),
                ("`quintet-solve 8h 7h 9d Ts 7s Qc Jc --opponent uniform`", f.cold_uni, f.warm_uni)]

    rebuilt = "" if bytecode else ", PYTHONDONTWRITEBYTECODE kept"
    lines = [
        f"`python {' '.join(sys.argv)}` at commit `{commit}` on {cpu_name()}, 2 logical CPUs (load average "
        f"{load:.2f} at the start): each command a "
        "process of its own; cold = an empty numba cache (every kernel compiled, as on a fresh machine), warm = "
        f"the cache filled by the cold run{rebuilt}.  Wall seconds and CPU seconds (user + system, "
        "`getrusage`) of the process.",
        "",
        "| command | cold: wall s | cold: CPU s | warm: wall s (median) | warm: CPU s (median) |",
        "|---|---|---|---|---|",
    ]
    rows = commands(new)
    if new.cold_eq_generic is not None:
        rows.append(("the same equilibrium, the cache built with `NUMBA_CPU_NAME=generic`", new.cold_eq_generic,
                     new.warm_eq_generic))
    for name, (cw, cc), warm in rows:
        lines.append(f"| {name} | {cw:.1f} | {cc:.1f} | {median(warm, 0):.2f} | {median(warm, 1):.2f} |")
    if new.cold_eq_generic is not None:
        ratio = median(new.warm_eq_generic, 1) / median(new.warm_eq, 1)
        lines += ["", f"Generic-CPU kernels against this CPU's (warm equilibrium, CPU s): ×{ratio:.2f}."]
    imports, work, wall = (statistics.median(s[k] for s in new.split) for k in range(3))
    lines += ["", "The warm uniform advice in parts (wall seconds, medians of the same number of runs, "
              "measured inside the process): the imports "
              f"{imports:.2f}, the command's own work {work:.2f}, the rest of the process (interpreter start and "
              f"teardown) {wall - imports - work:.2f}; {wall:.2f} in all.  Floors, wall / CPU s: `python -c pass` "
              f"{median(new.floor_python, 0):.2f} / {median(new.floor_python, 1):.2f}; a process that imports numba "
              f"and calls one trivial cached kernel {median(new.floor_numba, 0):.2f} / "
              f"{median(new.floor_numba, 1):.2f}."]
    lines += ["", "Warm quick answers of the example deal (`quintet-solve 8h 7h 9d Ts 7s Qc Jc …`), medians of "
              f"{args.repeat} runs: each a process of its own, then the same command through the resident process "
              "(`quintet-solve --daemon` started first: the command hands itself over a UNIX socket to a process "
              "that has the kernels loaded and forks one child per command).  The goal is ≤ 0.3 s wall.", "",
              "| command | own process: wall s | CPU s | through the resident process: wall s | CPU s (client) |",
              "|---|---|---|---|---|"]
    for name, (own, resident) in new.quick.items():
        lines.append(f"| {name} | {median(own, 0):.2f} | {median(own, 1):.2f} | {median(resident, 0):.3f} | "
                     f"{median(resident, 1):.3f} |")
    if old is not None:
        lines += ["", f"Against `--baseline` ({args.baseline}), measured right after in the same run (ratio "
                  "new / old):", "",
                  "| command | cold CPU s: new / old (ratio) | warm CPU s: new / old (ratio) | "
                  "warm wall s: new / old (ratio) |", "|---|---|---|---|"]
        for (name, (_, nc), nwarm), (_, (_, oc), owarm) in zip(commands(new), commands(old), strict=True):
            nw, ow = median(nwarm, 1), median(owarm, 1)
            nww, oww = median(nwarm, 0), median(owarm, 0)
            lines.append(f"| {name} | {nc:.1f} / {oc:.1f} ({nc / oc:.2f}) | {nw:.2f} / {ow:.2f} ({nw / ow:.2f}) | "
                         f"{nww:.2f} / {oww:.2f} ({nww / oww:.2f}) |")
    lines += ["", "Where the cold run's time goes (CPU seconds, compilation included, in one process"
              + (", new / old" if old else "") + "):", ""]
    old_phases = dict(old.phases) if old else {}
    for name, secs in new.phases:
        lines.append(f"- {name}: {secs:.1f}" + (f" / {old_phases[name]:.1f}" if name in old_phases else ""))
    for label, result in [("", new)] + ([(" (baseline)", old)] if old is not None else []):
        kernels = sorted(result.kernels, key=lambda k: -k[1])
        ours = [k for k in kernels if not k[0].startswith("numba.")]
        numba_own = sum(k[1] for k in kernels if k[0].startswith("numba."))
        total = sum(k[1] for k in kernels)
        lines += ["", f"Kernels compiled by the cold README command{label}: {total:.1f} CPU s of compilation in "
                  f"{sum(k[2] for k in kernels)} compilations of {len(kernels)} functions ({numba_own:.1f} s in "
                  "numba's own helpers, e.g. array constructors); each kernel's own CPU seconds, its callees "
                  "excluded (inlined callees count in the caller):", "",
                  "| kernel | CPU s | specialisations |", "|---|---|---|"]
        lines += [f"| `{name}` | {secs:.2f} | {n} |" for name, secs, n in ours[:args.top]]
        if len(ours) > args.top:
            rest = ours[args.top:]
            lines.append(f"| {len(rest)} more | {sum(k[1] for k in rest):.2f} | {sum(k[2] for k in rest)} |")
    report = "\n".join(lines)
    print(report)
    if not args.no_write:
        write_section("startup", "Start-up", report)


if __name__ == "__main__":
    main()
