"""Shared by the analysis benchmarks (bench_population, bench_heuristics, bench_convergence,
bench_uniqueness, bench_style_robustness, bench_safe): the provenance line of every RESULTS
section (commit, machine, command, date), the saved data under ``benchmarks/data/``, the
store of solved equilibria they share, orbit sizes, and the intervals they report.

Populations: a deal *as dealt* is ``Deal.random(seed)`` — a uniformly random
7-card exposed set; its suit class has probability ∝ its orbit size (24 / |stabilizer|).
A *class-uniform* sample (``solver.apps.batch.book_sample``) draws the suit classes
uniformly, which is right for the book's cost (one solve per class) and over-weights
suit-symmetric deals for anything about play.  Weighting a dealt sample by 1 / orbit gives
the class-uniform view back, and the reverse.
"""

from __future__ import annotations

import json
import math
import os
import platform
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
DEFAULT_STORE = DATA / "equilibria.sqlite"  # git-ignored: the equilibria shared by the analysis runs

from benchmark_results import cpu_name, git_commit  # noqa: E402

from quintet.cliutil import int_at_least  # noqa: E402
from quintet.game import Deal  # noqa: E402
from quintet.symmetry import stabilizer  # noqa: E402


def machine() -> str:
    import numba

    return (f"{cpu_name()}, {os.cpu_count()} logical CPUs; Python "
            f"{platform.python_version()}, numpy {np.__version__}, numba {numba.__version__}")


class Run:
    """Provenance of one benchmark run: commit, machine, command, date, and its CPU clock."""

    def __init__(self, argv: Sequence[str] | None = None) -> None:
        argv = list(sys.argv if argv is None else argv)
        script = Path(argv[0]).name if argv else "?"
        self.command = "python benchmarks/" + " ".join([script] + [shlex.quote(a) for a in argv[1:]])
        self.commit = git_commit()
        self.machine = machine()
        self.date = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        self.cpu0 = time.process_time()
        self.wall0 = time.perf_counter()
        self.load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        self.saved: tuple[float, float] | None = None  # (CPU, wall) seconds of a run read back: fixed

    @classmethod
    def from_dict(cls, saved: dict[str, Any]) -> Run:
        """The run that wrote a saved data file (to rewrite its report without recomputing)."""
        run = cls.__new__(cls)
        run.command, run.commit, run.machine, run.date = (saved["command"], saved["commit"], saved["machine"],
                                                          saved["date"])
        run.cpu0 = run.wall0 = 0.0
        run.saved = (saved["cpu_seconds"], saved["wall_seconds"])
        run.load = saved.get("load", float("nan"))
        return run

    def cpu(self) -> float:
        return self.saved[0] if self.saved else time.process_time() - self.cpu0

    def wall(self) -> float:
        return self.saved[1] if self.saved else time.perf_counter() - self.wall0

    def line(self) -> str:
        """The provenance paragraph every RESULTS section starts with."""
        load = "" if math.isnan(self.load) else f" (load average {self.load:.2f} at the start)"
        return (f"Run: `{self.command}` at commit `{self.commit}` on {self.date}; {self.machine}{load}. "
                f"This process: {self.cpu() / 60:.1f} CPU-minutes ({self.wall() / 60:.1f} min wall). Times below "
                "are CPU time (`time.process_time`) unless they say wall; CPU time too grows when the machine is "
                "loaded, so times are compared within one run only.")

    def to_dict(self) -> dict[str, object]:
        return {"command": self.command, "commit": self.commit, "machine": self.machine, "date": self.date,
                "cpu_seconds": self.cpu(), "wall_seconds": self.wall(), "load": self.load}


def save_data(name: str, run: Run, payload: dict[str, Any]) -> Path:
    """Write ``benchmarks/data/NAME.json`` (the notebook reads these) with the run's provenance."""
    DATA.mkdir(exist_ok=True)
    path = DATA / f"{name}.json"
    path.write_text(json.dumps({"run": run.to_dict(), **payload}, indent=1, default=_json_default) + "\n")
    return path


def partial_note(done: int, asked: int) -> list[str]:
    """The lines that open a section of a run stopped before its end (none for a whole run)."""
    if done >= asked:
        return []
    return [f"**Partial:** the run was stopped after {done} of the {asked} deals it was asked for; the figures are "
            "those of the deals it finished.", ""]


def _json_default(x: object) -> object:
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    raise TypeError(f"not JSON: {type(x)}")


def orbit_size(exposed: int) -> int:
    """Suit relabellings of the exposed set that differ: 24 / |stabilizer| (1, 2, … 24)."""
    return 24 // len(stabilizer(exposed))


def bootstrap_ci(values: Sequence[float] | np.ndarray, stat: Callable[[np.ndarray], float] = np.mean, *,
                 weights: Sequence[float] | np.ndarray | None = None, n: int = 4000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float, float]:
    """(statistic, low, high): a percentile bootstrap interval, resampling deals.  With
    ``weights`` the statistic is the weighted mean (``stat`` is then ignored)."""
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return math.nan, math.nan, math.nan
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, x.size, size=(n, x.size))
    if weights is None:
        point = float(stat(x))
        boots = np.array([stat(x[i]) for i in idx])
    else:
        w = np.asarray(weights, dtype=np.float64)
        point = float(np.sum(w * x) / np.sum(w))
        boots = np.sum(w[idx] * x[idx], axis=1) / np.sum(w[idx], axis=1)
    a = (1 - level) / 2
    return point, float(np.quantile(boots, a)), float(np.quantile(boots, 1 - a))


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The Wilson 95% interval of a binomial proportion k / n."""
    if n == 0:
        return math.nan, math.nan
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def dkw_band(n: int, level: float = 0.95) -> float:
    """Half-width of the Dvoretzky–Kiefer–Wolfowitz band: the whole empirical CDF of n draws
    lies within this of the true CDF with probability ≥ ``level``."""
    return math.sqrt(math.log(2 / (1 - level)) / (2 * n))


def ecdf(values: Sequence[float] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    x = np.sort(np.asarray(values, dtype=np.float64))
    return x, np.arange(1, x.size + 1) / x.size


def fmt_ci(point: float, low: float, high: float, digits: int = 2) -> str:
    return f"{point:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def open_store(path: str | None, no_store: bool):  # type: ignore[no-untyped-def]
    """The store of solved equilibria (default ``benchmarks/data/equilibria.sqlite``), or None."""
    if no_store:
        return None
    from solver.storage.store import SolutionStore

    p = Path(path) if path else DEFAULT_STORE
    p.parent.mkdir(parents=True, exist_ok=True)
    return SolutionStore(p)


def warm_kernels() -> None:
    """Compile or load the numba kernels before anything is timed."""
    from quintet.game import Deal
    from solver.advisor.equilibrium import equilibrium

    equilibrium(Deal.random(12345), epsilon=5.0, time_limit=30)


def savefig(fig: Any, name: str) -> Path:
    path = HERE / name
    fig.savefig(path, dpi=110)
    return path


class CpuBudget:
    """A stop event set once this process has spent ``seconds`` of CPU time (``time.process_time``,
    all threads) since ``start()``: the solvers' own limits count wall-clock time, which a loaded
    machine stretches.  A watcher thread polls every ``poll`` seconds, so a solver stops within one
    poll plus its own reaction (one LP, one engine poll); ``spent()`` is what it really used."""

    def __init__(self, seconds: float | None, poll: float = 0.01, event: Any = None) -> None:
        import threading

        self.seconds = seconds
        self.poll = poll
        self.event = threading.Event() if event is None else event  # an event the solver already watches
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self.cpu0 = time.process_time()

    def start(self) -> CpuBudget:
        import threading

        self.cpu0 = time.process_time()
        self.event.clear()
        self._done.clear()
        if self.seconds is not None:
            self._thread = threading.Thread(target=self._watch, daemon=True)
            self._thread.start()
        return self

    def _watch(self) -> None:
        assert self.seconds is not None
        while not self._done.wait(self.poll):
            if time.process_time() - self.cpu0 >= self.seconds:
                self.event.set()
                return

    def spent(self) -> float:
        return time.process_time() - self.cpu0

    def left(self) -> float | None:
        return None if self.seconds is None else max(0.0, self.seconds - self.spent())

    def stop(self) -> float:
        """Stop watching; the CPU seconds spent."""
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        return self.spent()

    def __enter__(self) -> CpuBudget:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def add_shard_options(ap: Any, name: str) -> None:
    """The options of a resumable, shardable run: one JSON line per deal in ``--jsonl`` (default
    ``benchmarks/data/NAME.jsonl``); ``--start``/``--stop`` pick positions of the sample (a
    shard); deals already in the file are skipped (resume); ``--report`` only aggregates."""
    ap.add_argument("--jsonl", type=Path, default=DATA / f"{name}.jsonl",
                    help=f"records, one JSON line per deal (default benchmarks/data/{name}.jsonl)")
    ap.add_argument("--start", type=int_at_least(0), default=0, help="first position of the sample to run (a shard)")
    ap.add_argument("--stop", type=int_at_least(0), default=None, help="stop before this position (default: the end)")
    ap.add_argument("--report", action="store_true",
                    help="solve nothing: the RESULTS section, the plot and the summary from the JSON lines")


def comma_list(item: Callable[[str], object], *, skip_empty: bool = False) -> Callable[[str], str]:
    """argparse type: comma-separated items, each one the argparse type ``item`` accepts
    (``positive_int``, …; ``skip_empty``: empty items pass, the script skips them); the text is kept
    as given, for the script reads it and its records keep it so."""

    def parse(text: str) -> str:
        for part in text.split(","):
            if part.strip() or not skip_empty:
                item(part)
        return text

    return parse


def read_jsonl(path: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(runs, records) of a JSON-lines file: the lines with a ``run`` key describe an invocation
    (its provenance), the others are records; a torn last line (a killed run) is ignored."""
    runs: list[dict[str, Any]] = []
    records: list[dict[str, Any]] = []
    if not path.exists():
        return runs, records
    for line in path.read_text().splitlines():
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        (runs if "run" in row and len(row) == 1 else records).append(row)
    return runs, records


def append_jsonl(path: Path, row: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        f.write(json.dumps(row, default=_json_default) + "\n")


def start_shard(path: Path, run: Run, params: dict[str, Any]) -> set[Any]:
    """Record this invocation's provenance in the file; the keys (``key``) already done."""
    _, records = read_jsonl(path)
    append_jsonl(path, {"run": {**run.to_dict(), "params": params}})
    return {r["key"] for r in records}


def provenance(runs: list[dict[str, Any]]) -> str:
    """One paragraph naming every invocation that wrote the records: commands, commits, machines,
    dates and CPU time; warns when a commit was not clean."""
    opened = [r["run"] for r in runs if not r["run"].get("closing")]
    if not opened:
        return "Provenance: none recorded."
    commits = sorted({r["commit"] for r in opened})
    machines = sorted({r["machine"] for r in opened})
    dates = sorted(r["date"] for r in opened)
    cpu = sum(r["run"].get("cpu_seconds", 0.0) for r in runs if r["run"].get("closing"))
    commands = list(dict.fromkeys(r["command"] for r in opened))
    dirty = [c for c in commits if c.endswith("+dirty") or c == "unknown"]
    text = (f"Runs: {len(opened)} invocation(s) of {', '.join(f'`{c}`' for c in commands[:3])}"
            f"{' and others' if len(commands) > 3 else ''}; commit(s) {', '.join(f'`{c}`' for c in commits)}; "
            f"{'; '.join(machines)}; {dates[0]} to {dates[-1]}; {cpu / 3600:.2f} CPU-hours in the invocations "
            "that finished.")
    if dirty:
        text += f" **Not a clean commit: {', '.join(dirty)}.**"
    if len(commits) > 1:
        text += f" **Not one commit: {len(commits)}.**"
    varied = sorted({k for r in opened for k in r.get("params", {}) if k not in SHARD_PARAMS
                     and len({json.dumps(q.get("params", {}).get(k), sort_keys=True) for q in opened}) > 1})
    if varied:
        text += f" **The invocations' parameters differ: {', '.join(varied)}.**"
    return text


SHARD_PARAMS = frozenset({"start", "stop", "jsonl", "no_write", "report", "first_deal", "part", "calibrate"})
"""Parameters that pick a shard, a file or a later part (bench_book's calibration), not how the
records are computed (``provenance`` ignores them)."""


def finish_shard(path: Path, run: Run) -> None:
    """Close this invocation's provenance with its CPU and wall time (a line per invocation)."""
    append_jsonl(path, {"run": {**run.to_dict(), "closing": True}})


def run_dealt_shard(args: Any, params: dict[str, Any], analyse: Callable[[Deal], dict[str, Any]],
                    show: Callable[[dict[str, Any]], str]) -> None:
    """One invocation over a dealt sample (``add_shard_options``): ``analyse`` of each deal
    ``Deal.random(args.seed + i)`` at positions ``args.start`` to ``args.stop`` (at most ``args.deals``)
    not yet in ``args.jsonl``, the kernels warmed first; each record, with its seed, position, CPU
    seconds and commit, is a line of the file and is printed as ``show(record)`` after the deal."""
    run = Run()
    done = start_shard(args.jsonl, run, params)
    warm_kernels()
    stop = args.deals if args.stop is None else min(args.stop, args.deals)
    for i in range(args.start, stop):
        deal = Deal.random(args.seed + i)
        if deal.exposed in done:
            continue
        cpu = time.process_time()
        rec = analyse(deal)
        rec.update(seed=args.seed + i, position=i, cpu=time.process_time() - cpu, commit=run.commit)
        append_jsonl(args.jsonl, rec)
        print(f"{i + 1:4d}/{args.deals} {deal.format():22s} {show(rec)}", flush=True)
    finish_shard(args.jsonl, run)


def dealt_records(args: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(runs, records) of ``args.jsonl``: the records of the sample's seeds only, in seed order."""
    runs, records = read_jsonl(args.jsonl)
    return runs, sorted((r for r in records if args.seed <= r["seed"] < args.seed + args.deals),
                        key=lambda r: r["seed"])


def recorded_values(runs: list[dict[str, Any]], name: str, default: Any) -> str:
    """Parameter ``name`` as the invocations that wrote the records ran it (``read_jsonl``'s runs):
    its distinct values joined by " or " (``:g`` for numbers), ``default`` where none recorded it —
    what a report states, not the reporting command's own option."""
    def number(v: Any) -> Any:  # some scripts record every parameter as text
        try:
            return float(v)
        except (TypeError, ValueError):
            return v

    values = sorted({number(r["run"]["params"][name]) for r in runs
                     if not r["run"].get("closing") and name in r["run"].get("params", {})},
                    key=lambda v: (isinstance(v, str), v)) or [default]  # numbers in order, then text
    return " or ".join(f"{v:g}" if isinstance(v, (int, float)) else str(v) for v in values)


def recorded_params(runs: list[dict[str, Any]], fallback: dict[str, Any]) -> dict[str, Any]:
    """The parameters of the first invocation that wrote the records, shard options aside (``fallback``,
    this command's, where none recorded them): a summary's ``params``."""
    opened = [r["run"] for r in runs if not r["run"].get("closing") and "params" in r["run"]]
    params = opened[0]["params"] if opened else fallback
    return {k: v for k, v in params.items() if k not in SHARD_PARAMS}


def recorded_run(runs: list[dict[str, Any]]) -> Run:
    """The first invocation that wrote the records (``read_jsonl``'s runs), or this one where none did."""
    return Run.from_dict(runs[0]["run"]) if runs else Run()


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval of a binomial proportion k / n (bisection on the
    binomial tails: P(X ≥ k | lo) = P(X ≤ k | hi) = (1 − level) / 2)."""
    if n == 0:
        return math.nan, math.nan
    a = (1 - level) / 2

    def solve(f: Callable[[float], float]) -> float:  # f increasing in p, root in [0, 1]
        lo_, hi_ = 0.0, 1.0
        for _ in range(60):
            mid = (lo_ + hi_) / 2
            lo_, hi_ = (mid, hi_) if f(mid) < 0 else (lo_, mid)
        return (lo_ + hi_) / 2

    lo = 0.0 if k == 0 else solve(lambda p: binom_sf(k, n, p) - a)
    hi = 1.0 if k == n else solve(lambda p: a - binom_cdf(k, n, p))
    return lo, hi


def binom_cdf(k: int, n: int, p: float) -> float:
    """P(X ≤ k) for X ~ Binomial(n, p)."""
    return float(sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(0, k + 1)))


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p)."""
    return float(sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1)))


def median_ci(values: Sequence[float] | np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """(median, low, high): the distribution-free interval of a median from order statistics — the
    ranks j, n + 1 − j with P(Binomial(n, ½) < j) ≤ (1 − level) / 2 (exact coverage ≥ level)."""
    x = np.sort(np.asarray(values, dtype=np.float64))
    n = x.size
    if n == 0:
        return math.nan, math.nan, math.nan
    a = (1 - level) / 2
    j = 0
    while j + 1 <= n and binom_cdf(j, n, 0.5) <= a:  # P(X ≤ j) ≤ a: the (j+1)-th value is a lower bound
        j += 1
    if j == 0:
        return float(np.median(x)), float(x[0]), float(x[-1])
    return float(np.median(x)), float(x[j - 1]), float(x[n - j])


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment of p-values (family-wise error over the family given)."""
    p = np.asarray(pvalues, dtype=np.float64)
    order = np.argsort(p)
    adjusted = np.empty_like(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted.tolist()


def holm_text(pvalues: Sequence[float], draws: int, digits: int = 2) -> list[str]:
    """Holm-adjusted Monte Carlo p-values (each estimated as (1 + b) / (1 + ``draws``)) as text: a
    p whose raw value is the floor 1 / (1 + draws) — no draw as extreme as the data — is a bound,
    not a value, and reads "≤ …"."""
    floor = 1.0 / (draws + 1)
    return [f"≤ {a:.{digits}g}" if raw <= floor * (1 + 1e-9) else f"{a:.{digits}g}"
            for raw, a in zip(pvalues, holm(pvalues), strict=True)]


def sign_flip_p(differences: Sequence[float] | np.ndarray, n: int = 20000, seed: int = 0) -> float:
    """Two-sided p-value of "the mean paired difference is 0": random sign flips of the
    differences (exact in distribution for symmetric differences; one per deal)."""
    d = np.asarray(differences, dtype=np.float64)
    d = d[np.isfinite(d)]
    if d.size == 0 or np.all(d == 0):
        return 1.0
    rng = np.random.default_rng(seed)
    observed = abs(d.mean())
    flips = rng.choice([-1.0, 1.0], size=(n, d.size))
    null = np.abs((flips * d).mean(axis=1))
    return float((1 + np.sum(null >= observed - 1e-15)) / (n + 1))


def sign_test_p(wins: int, losses: int) -> float:
    """Two-sided exact binomial (sign) test of wins vs losses (ties left out): twice the smaller
    tail, at most 1."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    return min(1.0, 2 * binom_cdf(k, n, 0.5))


@dataclass(frozen=True)
class GapShare:
    mean: float  # (b − a) / (c − a) of the means over deals and draws
    low: float  # 95% bootstrap interval (deals and draws resampled, crossed)
    high: float
    per_draw: tuple[float, ...]  # each draw's share (means over deals)


def gap_share(a: list[float], b: list[list[float]], c: list[float], seed: int = 0, resamples: int = 4000) -> GapShare:
    """The share of the gap (c − a) that ``b[draw][deal]`` recovers, (b − a) / (c − a) of the means
    (the one estimator of the Style robustness and Safe exploitation sections).  Each resample
    draws the deals with replacement and, independently, the draws with replacement; its share is
    the mean gain over the chosen (draw, deal) pairs over the mean gap (c − a) over the chosen deals."""
    gap = np.asarray(c, float) - np.asarray(a, float)
    gain = np.asarray(b, float) - np.asarray(a, float)[None, :]
    n_draws, n_deals = gain.shape
    rng = np.random.default_rng(seed)
    i = rng.integers(n_deals, size=(resamples, n_deals))
    j = rng.integers(n_draws, size=(resamples, n_draws))
    with np.errstate(divide="ignore", invalid="ignore"):
        boot = gain[j[:, :, None], i[:, None, :]].mean(axis=(1, 2)) / gap[i].mean(axis=1)
        per_draw = gain.mean(axis=1) / gap.mean()
        mean = gain.mean() / gap.mean()
    boot = boot[np.isfinite(boot)]
    low, high = (np.percentile(boot, [2.5, 97.5]) if boot.size else (np.nan, np.nan))
    return GapShare(float(mean), float(low), float(high), tuple(float(x) for x in per_draw))
