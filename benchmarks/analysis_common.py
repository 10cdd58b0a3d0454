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
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
DEFAULT_STORE = DATA / "equilibria.sqlite"  # git-ignored: the equilibria shared by the analysis runs

from benchmark_results import cpu_name  # noqa: E402

from quintet.symmetry import stabilizer  # noqa: E402


def git_commit() -> str:
    """The commit the code ran at (``+dirty`` when tracked code files had uncommitted changes)."""
    try:
        root = HERE.parent
        head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=root,
                                 capture_output=True, text=True, check=True).stdout.splitlines()
        # outputs (RESULTS.md, data, plots, the notebook) do not make the code dirty
        dirty = [line for line in changed if line[3:].endswith((".py", ".toml", ".sh", ".js", ".html"))]
        return head + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine() -> str:
    import numba

    return (f"{cpu_name()}, {os.cpu_count()} logical CPUs (shared with other jobs); Python "
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

    @classmethod
    def from_dict(cls, saved: dict[str, Any]) -> Run:
        """The run that wrote a saved data file (to rewrite its report without recomputing)."""
        run = cls.__new__(cls)
        run.command, run.commit, run.machine, run.date = (saved["command"], saved["commit"], saved["machine"],
                                                          saved["date"])
        run.cpu0, run.wall0 = time.process_time() - saved["cpu_seconds"], time.perf_counter() - saved["wall_seconds"]
        return run

    def cpu(self) -> float:
        return time.process_time() - self.cpu0

    def wall(self) -> float:
        return time.perf_counter() - self.wall0

    def line(self) -> str:
        """The provenance paragraph every RESULTS section starts with."""
        return (f"Run: `{self.command}` at commit `{self.commit}` on {self.date}; {self.machine}. "
                f"This process: {self.cpu() / 60:.1f} CPU-minutes ({self.wall() / 60:.1f} min wall; the machine is "
                f"shared, so every time below is CPU time, `time.process_time`, unless it says wall).")

    def to_dict(self) -> dict[str, object]:
        return {"command": self.command, "commit": self.commit, "machine": self.machine, "date": self.date,
                "cpu_seconds": self.cpu(), "wall_seconds": self.wall()}


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
