"""``quintet-batch`` — solve many deals into the store: resumable, parallel, or on Dask.

    quintet-batch "8h 7h 9d Ts 7s Qc Jc" "As Ks Qs Js Ts Ah Kh"   # deals as arguments
    quintet-batch --file deals.txt                                # one deal (7 cards) per line
    quintet-batch --random 100 --seed 1 --workers 2               # a seeded random sample
    quintet-batch --all --limit 1000                              # the book, first 1,000 classes
    quintet-batch --random 20 --engine dask                       # on a Dask LocalCluster
    quintet-batch --random 20 --engine dask --scheduler tcp://host:8786
    quintet-batch --book-size --sample 10                         # the book's size and cost

What a batch does
-----------------
Every deal is reduced to its suit-canonical form (``solver.canonical``); suit-equivalent
deals in the list are one job.  A deal whose canonical key already has a record in the store
certified at the requested ε (``quality ≤ epsilon``) is **skipped**; a stored record that is
weaker (an earlier run hit its time limit) warm-starts the new solve.  Each job runs
``solver.equilibrium.equilibrium`` on the canonical deal — exactly what ``solve_equilibrium``
does — in a worker, and the parent process commits its record to the store **as soon as it
arrives**, in its own transaction (``SolutionStore.put``, which keeps the better record).  So
the store always holds every finished deal: kill the batch at any moment, start it again with
the same arguments, and it skips what is done and solves the rest — nothing is lost or solved
twice (a deal in flight when the batch was killed is solved again: its result was never
committed).  Only the parent writes the store, so workers need no access to it — which is
what lets the same work run on a remote Dask cluster.

Engines
-------
* ``local`` (default): ``--workers N`` processes (``spawn``; default: the CPUs this process
  may use).  With one worker the jobs run in the batch process itself.
* ``dask``: a Dask distributed cluster (``pip install 'quintet-solver[dask]'``): a
  ``LocalCluster`` of ``--workers`` single-threaded worker processes by default, or the
  scheduler at ``--scheduler ADDRESS`` (its workers need this package installed).

A progress bar on stderr shows deals done/total, the rate and an ETA (one line per deal when
stderr is not a terminal); at the end a summary: solved, unconverged (stored, but the time
limit came before ε), skipped, failed, and deals per minute.

The book
--------
``--book-size`` prints the exact number of suit-canonical deals (Burnside's count, 156,248
for the classic game) and, from ``--sample`` canonical deals drawn uniformly (each class is
one job of the book) and solved afresh — never read from nor written to the store — an
estimate of the CPU-hours to solve the whole book at ``--epsilon``.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import math
import multiprocessing
import os
import statistics
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from math import comb
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from quintet.cards import format_cards
from quintet.cliutil import (
    OneLineParser,
    UsageError,
    add_rules_arguments,
    int_at_least,
    positive_float,
    print_json,
    rules_from_args,
    run_cli,
)
from quintet.game import Deal
from quintet.rules import CLASSIC, Rules

from .canonical import (
    all_canonical_exposed,
    canonical_exposed,
    canonical_masks_array,
    count_canonical_deals,
    symmetry_group,
)
from .equilibrium import STORE_KIND
from .store import SolutionStore, rules_fingerprint

__all__ = [
    "ENGINES",
    "JobResult",
    "BatchSummary",
    "ProgressBar",
    "canonical_key",
    "random_deals",
    "read_deal_file",
    "book_sample",
    "solve_job",
    "run_batch",
    "book_estimate",
    "BookEstimate",
    "main",
]

ENGINES = ("local", "dask")
DEFAULT_EPSILON = 0.05
DEFAULT_TIME_LIMIT = 600.0


# --------------------------------------------------------------------------- deals


def canonical_key(exposed: int, rules: Rules = CLASSIC) -> int:
    """The store key of a deal: its suit-canonical exposed mask."""
    return canonical_exposed(exposed, rules.deck, group=symmetry_group(rules))[0]


def _n_exposed(rules: Rules) -> int:
    return rules.deck.size - rules.n_slots * rules.hand_size


def random_deals(n: int, seed: int, rules: Rules = CLASSIC) -> list[int]:
    """``n`` distinct canonical keys of random deals, as dealt (uniform over exposed sets),
    reproducible from ``seed``: deals are drawn until ``n`` distinct classes are found."""
    rng = np.random.default_rng(seed)
    cards = np.array(rules.deck.cards())
    k = _n_exposed(rules)
    n_classes = count_canonical_deals(rules.deck, k, group=symmetry_group(rules))
    if n > n_classes:
        raise ValueError(f"only {n_classes} canonical deals exist, cannot draw {n}")
    out: list[int] = []
    seen: set[int] = set()
    while len(out) < n:
        mask = 0
        for c in rng.choice(cards, k, replace=False):
            mask |= 1 << int(c)
        key = canonical_key(mask, rules)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def book_sample(n: int, seed: int, rules: Rules = CLASSIC) -> list[int]:
    """``n`` canonical deals drawn uniformly from all classes (the book's jobs), seeded."""
    allc = all_canonical_exposed(rules.deck, _n_exposed(rules), group=symmetry_group(rules))
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(allc), size=min(n, len(allc)), replace=False)
    return [int(allc[i]) for i in pick]


def read_deal_file(path: str | Path, rules: Rules = CLASSIC) -> list[int]:
    """Exposed masks from a file of lines of exposed cards (``-`` = stdin); blank lines and
    ``#`` comments are ignored.  A bad line raises ``UsageError`` naming it."""
    text = sys.stdin.read() if str(path) == "-" else Path(path).read_text(encoding="utf-8")
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            out.append(Deal.from_exposed(line, rules).exposed)
        except ValueError as exc:
            raise UsageError(f"{path}: line {number}: {exc}") from None
    return out


# --------------------------------------------------------------------------- the job


@dataclass
class JobResult:
    """What a worker sends back for one canonical deal (plain data: pickles anywhere)."""

    canonical: int
    record: dict[str, Any] | None = None  # the store document (EquilibriumResult.to_record)
    exploitability: float = math.inf
    converged: bool = False
    iterations: int = 0
    support: int = 0
    seconds: float = 0.0  # wall time of the solve in the worker
    cpu_seconds: float = 0.0  # CPU time of the worker process during the solve
    worker: str = ""
    error: str | None = None


_WARMED: set[str] = set()
_WARM_UP_DEAL = "As Ks Qs Js Ts Ah Kh"  # solves in well under a second


def _warm_up(rules: Rules) -> None:
    """Load the compiled kernels once per worker process, before any job is timed."""
    from .equilibrium import equilibrium

    if rules.name in _WARMED or rules.is_variant:
        return
    equilibrium(Deal.from_exposed(_WARM_UP_DEAL, rules), epsilon=1.0, time_limit=30)
    _WARMED.add(rules.name)


def _warm_up_quietly(rules: Rules, hold: float = 0.0) -> None:
    try:
        _warm_up(rules)
    except Exception:  # noqa: BLE001, S110 — only a warm-up; the jobs report real errors
        pass
    time.sleep(hold)


def solve_job(canonical: int, rules: Rules, epsilon: float, time_limit: float | None,
              initial: dict[str, Any] | None = None) -> JobResult:
    """Solve one canonical deal (runs in a worker: a local process or a Dask worker).

    ``initial``: a stored (weaker) record to warm-start from.  Never raises: an error is
    returned in ``JobResult.error``.
    """
    import socket

    from .equilibrium import EquilibriumResult, equilibrium

    worker = f"{socket.gethostname()}:{os.getpid()}"
    _warm_up_quietly(rules)  # once per process; not part of the job's times
    cpu0, wall0 = time.process_time(), time.perf_counter()
    try:
        deal = Deal(int(canonical), rules)
        warm = [a for _, a in EquilibriumResult.from_record(deal, initial).mix] if initial else []
        result = equilibrium(deal, epsilon=epsilon, time_limit=time_limit, initial=warm)
        return JobResult(
            canonical=int(canonical), record=result.to_record(), exploitability=result.exploitability,
            converged=result.converged, iterations=result.iterations, support=len(result.mix),
            seconds=time.perf_counter() - wall0, cpu_seconds=time.process_time() - cpu0, worker=worker,
        )
    except Exception as exc:  # noqa: BLE001 — reported per deal, the batch goes on
        return JobResult(canonical=int(canonical), seconds=time.perf_counter() - wall0,
                         cpu_seconds=time.process_time() - cpu0, worker=worker,
                         error=f"{type(exc).__name__}: {exc}")


# --------------------------------------------------------------------------- engines


class _SerialEngine:
    """Jobs run in this process when submitted (one worker)."""

    name = "local"

    def __init__(self) -> None:
        self.workers = 1

    def submit(self, fn: Callable[..., JobResult], *args: Any) -> cf.Future[JobResult]:
        future: cf.Future[JobResult] = cf.Future()
        future.set_result(fn(*args))
        return future

    def warm(self, rules: Rules) -> None:
        _warm_up_quietly(rules)

    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]:
        return set(futures), set()

    def close(self) -> None:
        """Nothing to release: jobs ran in this process."""


def _watch_parent(parent: int) -> None:
    """Worker-side: exit when the batch process is gone (e.g. killed with SIGKILL)."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def _worker_init(parent: int) -> None:
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


class _PoolEngine:
    """A pool of ``workers`` spawned processes."""

    name = "local"

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.restarts = 0
        self.pool = self._new_pool()

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                      initializer=_worker_init, initargs=(os.getpid(),))

    def restart(self) -> bool:
        """Replace a broken pool (a worker died, e.g. killed for memory); at most 3 times."""
        if self.restarts >= 3:
            return False
        self.restarts += 1
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = self._new_pool()
        return True

    def submit(self, fn: Callable[..., JobResult], *args: Any) -> cf.Future[JobResult]:
        return self.pool.submit(fn, *args)

    def warm(self, rules: Rules) -> None:
        """Start every worker and load the kernels there (each warm-up holds its worker a moment)."""
        cf.wait([self.pool.submit(_warm_up_quietly, rules, 0.3) for _ in range(self.workers)])

    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]:
        done, pending = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
        return set(done), set(pending)

    def close(self, *, kill: bool = False) -> None:
        if kill:  # stop solves in flight now (their deals are simply solved again next time)
            for process in list(getattr(self.pool, "_processes", {}).values()):
                process.terminate()
        self.pool.shutdown(wait=True, cancel_futures=True)


class _DaskEngine:
    """Jobs on a Dask distributed cluster: a new LocalCluster, or an existing scheduler."""

    name = "dask"

    def __init__(self, workers: int, scheduler: str | None = None) -> None:
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise UsageError("--engine dask needs dask: pip install 'quintet-solver[dask]'") from None
        import logging

        self.cluster = None
        if scheduler:
            self.client = Client(scheduler)
        else:
            self.cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                        dashboard_address=None, silence_logs=logging.ERROR)
            self.client = Client(self.cluster)
        self.workers = max(1, sum(self.client.nthreads().values()))  # worker threads in the cluster

    def submit(self, fn: Callable[..., JobResult], *args: Any) -> Any:
        return self.client.submit(fn, *args, pure=False)

    def warm(self, rules: Rules) -> None:
        self.client.run(_warm_up_quietly, rules)  # on every worker

    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]:
        from dask.distributed import wait

        done, pending = wait(list(futures), return_when="FIRST_COMPLETED")
        return set(done), set(pending)

    def close(self, *, kill: bool = False) -> None:
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _make_engine(engine: str, workers: int, scheduler: str | None) -> Any:
    if engine == "dask":
        return _DaskEngine(workers, scheduler)
    if engine != "local":
        raise UsageError(f"unknown engine {engine!r} (use {' or '.join(ENGINES)})")
    if scheduler:
        raise UsageError("--scheduler needs --engine dask")
    return _SerialEngine() if workers == 1 else _PoolEngine(workers)


# --------------------------------------------------------------------------- progress


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "?"
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s" if m else f"{s}s"


class ProgressBar:
    """A plain-text progress bar: ``[#####-----] 12/40 deals  3.1/min  ETA 9m02s  last: …``.

    On a terminal it redraws one line (``\\r``); otherwise it prints one line per update.
    """

    def __init__(self, total: int, *, stream: TextIO | None = None, enabled: bool = True, width: int = 24,
                 label: str = "quintet-batch") -> None:
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.width = width
        self.label = label
        self.done = 0
        self.start = time.perf_counter()
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._last_len = 0

    def line(self, note: str = "") -> str:
        elapsed = time.perf_counter() - self.start
        frac = self.done / self.total if self.total else 1.0
        filled = int(round(self.width * frac))
        rate = self.done / elapsed * 60 if elapsed > 0 and self.done else 0.0
        eta = (self.total - self.done) / (rate / 60) if rate > 0 else math.inf
        eta_text = _duration(eta) if self.done < self.total else "0s"
        text = (f"{self.label} [{'#' * filled}{'-' * (self.width - filled)}] {self.done}/{self.total} deals"
                f"  {rate:.1f}/min  elapsed {_duration(elapsed)}  ETA {eta_text}")
        return text + (f"  {note}" if note else "")

    def update(self, done: int, note: str = "") -> None:
        self.done = done
        if not self.enabled:
            return
        text = self.line(note)
        if self.tty:
            pad = max(0, self._last_len - len(text))
            self.stream.write("\r" + text + " " * pad)
            self._last_len = len(text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def finish(self) -> None:
        if self.enabled and self.tty:
            self.stream.write("\n")
            self.stream.flush()


# --------------------------------------------------------------------------- the batch


@dataclass
class BatchSummary:
    total: int  # distinct canonical deals asked for
    solved: int = 0  # solved in this run, certified ≤ ε
    unconverged: int = 0  # solved in this run and stored, but the time limit came first
    skipped: int = 0  # already certified ≤ ε in the store
    failed: int = 0
    duplicates: int = 0  # asked deals that were suit-equivalent to an earlier one
    interrupted: bool = False
    seconds: float = 0.0  # wall time of the solving phase
    startup: float = 0.0  # wall time to start the engine and warm its workers
    engine: str = "local"
    workers: int = 1
    epsilon: float = DEFAULT_EPSILON
    store: str | None = None
    results: list[JobResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def completed(self) -> int:
        return self.solved + self.unconverged

    @property
    def deals_per_minute(self) -> float:
        return self.completed / self.seconds * 60 if self.seconds > 0 else 0.0

    def cpu_seconds(self) -> list[float]:
        return [r.cpu_seconds for r in self.results if r.error is None]

    def to_dict(self) -> dict[str, object]:
        cpu = self.cpu_seconds()
        return {
            "total": self.total, "solved": self.solved, "unconverged": self.unconverged, "skipped": self.skipped,
            "failed": self.failed, "duplicates": self.duplicates, "interrupted": self.interrupted,
            "seconds": self.seconds, "startup_seconds": self.startup, "deals_per_minute": self.deals_per_minute,
            "engine": self.engine,
            "workers": self.workers, "epsilon": self.epsilon, "store": self.store,
            "mean_cpu_seconds": statistics.fmean(cpu) if cpu else None,
            "deals": [
                {"canonical": r.canonical, "exploitability": r.exploitability if r.error is None else None,
                 "converged": r.converged, "iterations": r.iterations, "support": r.support,
                 "seconds": r.seconds, "cpu_seconds": r.cpu_seconds, "worker": r.worker, "error": r.error}
                for r in self.results
            ],
            "errors": self.errors,
        }

    def format(self) -> str:
        cpu = self.cpu_seconds()
        lines = [
            f"Batch: {self.total} distinct deal{'s' if self.total != 1 else ''} at ε ≤ {self.epsilon:g}"
            + (f" ({self.duplicates} suit-equivalent duplicate{'s' if self.duplicates != 1 else ''} merged)"
               if self.duplicates else "")
            + f"; engine {self.engine}, {self.workers} worker{'s' if self.workers != 1 else ''}; store {self.store}",
            f"solved {self.solved}, unconverged {self.unconverged}, skipped {self.skipped}, failed {self.failed}"
            + ("  (interrupted)" if self.interrupted else ""),
            f"{self.completed} deals in {_duration(self.seconds)} wall (after {self.startup:.1f} s start-up): "
            f"{self.deals_per_minute:.2f} deals/minute"
            + (f"; CPU per deal mean {statistics.fmean(cpu):.2f} s, median {statistics.median(cpu):.2f} s"
               if cpu else ""),
        ]
        if self.unconverged:
            lines.append(f"{self.unconverged} deal(s) reached the time limit before ε ≤ {self.epsilon:g}: "
                         "their best certified mix is stored; run again (or with a longer --time-limit) to improve it.")
        return "\n".join(lines)


def _dedupe(keys: Iterable[int]) -> tuple[list[int], int]:
    seen: set[int] = set()
    out = []
    dup = 0
    for k in keys:
        if k in seen:
            dup += 1
        else:
            seen.add(k)
            out.append(k)
    return out, dup


def run_batch(
    exposed: Sequence[int],
    *,
    rules: Rules = CLASSIC,
    store: SolutionStore | None,
    epsilon: float = DEFAULT_EPSILON,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    workers: int = 1,
    engine: str = "local",
    scheduler: str | None = None,
    progress: bool | ProgressBar = False,
    in_flight: int | None = None,
    on_result: Callable[[JobResult], None] | None = None,
) -> BatchSummary:
    """Solve the deals ``exposed`` (masks; canonicalized and deduplicated here) into ``store``.

    With ``store=None`` nothing is read or written (a measurement).  Deals certified at
    ``epsilon`` in the store are skipped; every result is committed as it arrives.  At most
    ``in_flight`` jobs (default 2 × workers) are submitted at once, so even the whole book
    needs little memory.  Ctrl-C stops, keeping everything committed, and marks the summary
    interrupted.
    """
    if not epsilon > 0:
        raise ValueError(f"epsilon must be positive, got {epsilon}")
    if rules.deck.mask_bits <= 64:
        canon = canonical_masks_array(np.array([int(m) for m in exposed], dtype=np.uint64), rules.deck,
                                      group=symmetry_group(rules))
        keys, duplicates = _dedupe(int(k) for k in canon.tolist())
    else:  # pragma: no cover - no such deck today
        keys, duplicates = _dedupe(canonical_key(int(m), rules) for m in exposed)
    fingerprint = rules_fingerprint(rules)
    summary = BatchSummary(total=len(keys), duplicates=duplicates, engine=engine, workers=workers,
                           epsilon=epsilon, store=None if store is None else str(store.path))
    todo: list[tuple[int, dict[str, Any] | None]] = []
    for key in keys:
        if store is None:
            todo.append((key, None))
            continue
        quality = store.quality(fingerprint, STORE_KIND, key)  # cheap: no record parsed
        if quality is not None and quality <= epsilon:
            summary.skipped += 1
        else:  # new, or weaker than asked: solve, warm-started from the stored mix if any
            todo.append((key, None if quality is None else store.get(fingerprint, STORE_KIND, key)))
    bar = progress if isinstance(progress, ProgressBar) else ProgressBar(len(todo), enabled=bool(progress))
    bar.total = len(todo)
    if not todo:
        return summary
    t_engine = time.perf_counter()
    eng = _make_engine(engine, workers, scheduler)
    summary.workers = eng.workers
    try:
        eng.warm(rules)  # start the workers and load the kernels: start-up, not solving time
    except BaseException:
        eng.close()
        raise
    summary.startup = time.perf_counter() - t_engine
    # the serial engine solves inside submit(): one at a time, so each result is committed at once
    limit = 1 if isinstance(eng, _SerialEngine) else in_flight or 2 * eng.workers
    queue = deque(todo)
    running: set[Any] = set()
    owner: dict[Any, int] = {}  # future -> canonical key
    start = time.perf_counter()
    bar.start = start
    kill = False

    def fill() -> None:
        while queue and len(running) < limit:
            key, initial = queue[0]
            try:
                future = eng.submit(solve_job, key, rules, epsilon, time_limit, initial)
            except cf.BrokenExecutor as exc:  # a worker process died: this pool takes no more work
                if running:
                    return  # let the in-flight futures fail first, then come back here
                if isinstance(eng, _PoolEngine) and eng.restart():
                    continue
                summary.failed += len(queue)
                summary.errors.append(f"the worker pool broke ({exc}); {len(queue)} deal(s) not attempted")
                queue.clear()
                return
            queue.popleft()
            running.add(future)
            owner[future] = key

    try:
        fill()
        while running:
            done, running_left = eng.wait_any(running)
            running.clear()
            running.update(running_left)
            for future in done:
                key = owner.pop(future)
                try:
                    result: JobResult = future.result()
                except Exception as exc:  # noqa: BLE001 — the worker process died (solve_job never raises)
                    result = JobResult(canonical=key, error=f"worker lost: {type(exc).__name__}: {exc}")
                summary.results.append(result)
                if result.error is not None:
                    summary.failed += 1
                    deal_text = format_cards(result.canonical, rules.deck)
                    summary.errors.append(f"{deal_text}: {result.error}")
                    note = f"FAILED {deal_text}: {result.error}"
                else:
                    if store is not None and result.record is not None:
                        store.put(fingerprint, STORE_KIND, result.canonical, result.record, result.exploitability)
                    if result.exploitability <= epsilon:
                        summary.solved += 1
                    else:
                        summary.unconverged += 1
                    note = (f"last: {format_cards(result.canonical, rules.deck)} ε {result.exploitability:.4f} "
                            f"in {result.seconds:.1f} s")
                if on_result is not None:
                    on_result(result)
                bar.update(summary.completed + summary.failed, note)
            fill()
    except KeyboardInterrupt:
        summary.interrupted = True
        kill = True
        for future in running:
            future.cancel()
    finally:
        summary.seconds = time.perf_counter() - start
        bar.finish()
        if isinstance(eng, _PoolEngine):
            eng.close(kill=kill)
        else:
            eng.close()
    return summary


# --------------------------------------------------------------------------- the book


@dataclass
class BookEstimate:
    rules: str
    canonical_deals: int
    exposed_sets: int
    sample: int
    epsilon: float
    time_limit: float | None
    cpu_seconds: list[float]
    wall_seconds: list[float]
    converged: int
    seed: int
    keys: list[int] = field(default_factory=list)  # the sampled canonical deals, in the order of cpu_seconds

    @property
    def mean_cpu(self) -> float:
        return statistics.fmean(self.cpu_seconds) if self.cpu_seconds else math.nan

    @property
    def cpu_hours(self) -> float:
        return self.canonical_deals * self.mean_cpu / 3600

    @property
    def cpu_hours_ci(self) -> tuple[float, float]:
        """95% interval of the CPU-hours (Student t on the sample mean; ≥ 0)."""
        from .tournament import t_quantile_975

        n = len(self.cpu_seconds)
        if n < 2:
            return (math.nan, math.nan)
        half = t_quantile_975(n - 1) * statistics.stdev(self.cpu_seconds) / math.sqrt(n)
        scale = self.canonical_deals / 3600
        return (max(0.0, (self.mean_cpu - half) * scale), (self.mean_cpu + half) * scale)

    def to_dict(self) -> dict[str, object]:
        lo, hi = self.cpu_hours_ci
        cpu = sorted(self.cpu_seconds)
        return {
            "rules": self.rules, "canonical_deals": self.canonical_deals, "exposed_sets": self.exposed_sets,
            "sample": self.sample, "seed": self.seed, "epsilon": self.epsilon, "time_limit": self.time_limit,
            "converged": self.converged,
            "cpu_seconds": self.cpu_seconds, "wall_seconds": self.wall_seconds,
            "deals": [format_cards(k) for k in self.keys],
            "mean_cpu_seconds": self.mean_cpu if cpu else None,
            "median_cpu_seconds": statistics.median(cpu) if cpu else None,
            "max_cpu_seconds": cpu[-1] if cpu else None,
            "cpu_hours": self.cpu_hours if cpu else None,
            "cpu_hours_ci95": [lo, hi] if cpu and not math.isnan(lo) else None,
            "lower_bound": self.converged < len(cpu),
        }

    def format(self) -> str:
        lines = [f"The book ({self.rules}): {self.canonical_deals:,} suit-canonical deals "
                 f"(of {self.exposed_sets:,} exposed sets)."]
        if not self.cpu_seconds:
            return lines[0]
        cpu = sorted(self.cpu_seconds)
        n = len(cpu)
        p90 = cpu[min(n - 1, int(math.ceil(0.9 * n)) - 1)]
        lo, hi = self.cpu_hours_ci
        lines.append(
            f"Measured on {n} canonical deals drawn uniformly (seed {self.seed}), solved afresh at ε ≤ {self.epsilon:g}"
            f" (time limit {self.time_limit:g} s): {self.converged}/{n} certified; CPU seconds per deal: "
            f"mean {self.mean_cpu:.2f}, median {statistics.median(cpu):.2f}, p90 {p90:.2f}, max {cpu[-1]:.2f}.")
        ci = f" (95% CI {lo:,.0f}–{hi:,.0f})" if not math.isnan(lo) else ""
        lines.append(
            f"Estimate for the whole book at ε ≤ {self.epsilon:g}: {self.canonical_deals:,} × {self.mean_cpu:.2f} s "
            f"= {self.cpu_hours:,.0f} CPU-hours{ci}, i.e. {self.cpu_hours / 24:,.1f} days on one core, "
            f"{self.cpu_hours / 64:,.1f} hours on 64 cores.")
        if self.converged < n:
            lines.append(f"{n - self.converged} sampled deal(s) reached the time limit before ε: their time counts as "
                         "the limit, so the estimate is a lower bound.")
        return "\n".join(lines)


def book_estimate(sample: int = 10, *, seed: int = 0, rules: Rules = CLASSIC, epsilon: float = DEFAULT_EPSILON,
                  time_limit: float | None = DEFAULT_TIME_LIMIT, workers: int = 1, engine: str = "local",
                  scheduler: str | None = None, progress: bool = False) -> BookEstimate:
    """Count the book and time ``sample`` uniformly drawn canonical deals (no store)."""
    k = _n_exposed(rules)
    group = symmetry_group(rules)
    count = count_canonical_deals(rules.deck, k, group=group)
    keys = book_sample(sample, seed, rules) if sample else []
    summary = run_batch(keys, rules=rules, store=None, epsilon=epsilon, time_limit=time_limit, workers=workers,
                        engine=engine, scheduler=scheduler, progress=progress) if keys else None
    results = [] if summary is None else [r for r in summary.results if r.error is None]
    return BookEstimate(
        rules=rules.describe(), canonical_deals=count, exposed_sets=comb(rules.deck.size, k), sample=len(results),
        epsilon=epsilon, time_limit=time_limit, cpu_seconds=[r.cpu_seconds for r in results],
        wall_seconds=[r.seconds for r in results], converged=sum(r.exploitability <= epsilon for r in results),
        seed=seed, keys=[r.canonical for r in results],
    )


# --------------------------------------------------------------------------- command line


def default_workers() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="quintet-batch",
                      description="Solve many Quintet deals into the store (resumable; local processes or Dask).")
    p.add_argument("deals", nargs="*", metavar="EXPOSED",
                   help='deals, each its 7 exposed cards as one argument ("8h 7h 9d Ts 7s Qc Jc")')
    src = p.add_argument_group("more deals")
    src.add_argument("--file", metavar="PATH", action="append", default=[],
                     help="a file of deals, one line of exposed cards each ('-' = stdin; # comments)")
    src.add_argument("--random", type=int_at_least(1), metavar="N",
                     help="N distinct random deals, as dealt (see --seed)")
    src.add_argument("--seed", type=int, default=0, help="seed of --random and of --book-size's sample (default 0)")
    src.add_argument("--all", action="store_true", help="every suit-canonical deal, in ascending mask order")
    src.add_argument("--limit", type=int_at_least(1), metavar="N", help="only the first N deals of the list")
    p.add_argument("--epsilon", type=positive_float, default=DEFAULT_EPSILON, metavar="POINTS",
                   help=f"certify each deal to this exploitability (default {DEFAULT_EPSILON:g})")
    p.add_argument("--time-limit", type=positive_float, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                   help=f"per deal (default {DEFAULT_TIME_LIMIT:g}); a deal that runs out stores its best "
                        "certified mix and is retried by the next run")
    p.add_argument("--store", metavar="PATH", default=None,
                   help="the store (default: $QUINTET_STORE or the user cache directory)")
    p.add_argument("--engine", choices=ENGINES, default="local",
                   help="local process pool (default) or a Dask distributed cluster")
    p.add_argument("--workers", type=int_at_least(1), default=None, metavar="N",
                   help=f"worker processes (default: the usable CPUs, here {default_workers()})")
    p.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address (default: a new LocalCluster)")
    p.add_argument("--book-size", action="store_true",
                   help="print the number of suit-canonical deals and estimate the CPU-hours of the whole book")
    p.add_argument("--sample", type=int_at_least(0), default=10, metavar="N",
                   help="--book-size: canonical deals to time (default 10; 0 = only count)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    add_rules_arguments(p)
    return p


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    rules = rules_from_args(args)
    workers = args.workers or default_workers()
    if args.scheduler and args.engine != "dask":
        raise UsageError("--scheduler needs --engine dask")
    if args.book_size:
        if args.deals or args.file or args.random or args.all:
            raise UsageError("--book-size takes no deals (it draws --sample of them)")
        est = book_estimate(args.sample, seed=args.seed, rules=rules, epsilon=args.epsilon,
                            time_limit=args.time_limit, workers=workers, engine=args.engine,
                            scheduler=args.scheduler, progress=not args.no_progress)
        if args.json:
            print_json(est.to_dict())
        else:
            print(est.format())
        return 0
    exposed: list[int] = [Deal.from_exposed(text, rules).exposed for text in args.deals]
    for path in args.file:
        exposed += read_deal_file(path, rules)
    if args.random:
        exposed += random_deals(args.random, args.seed, rules)
    if args.all:
        exposed += [int(m) for m in all_canonical_exposed(rules.deck, _n_exposed(rules),
                                                          group=symmetry_group(rules))]
    if not exposed:
        raise UsageError("no deals: give EXPOSED arguments, --file, --random N or --all (or --book-size)")
    if args.limit:
        exposed = exposed[: args.limit]
    with SolutionStore(args.store) as store:
        summary = run_batch(exposed, rules=rules, store=store, epsilon=args.epsilon, time_limit=args.time_limit,
                            workers=workers, engine=args.engine, scheduler=args.scheduler,
                            progress=not args.no_progress)
    if args.json:
        print_json(summary.to_dict())
    else:
        print(summary.format())
        for line in summary.errors[:20]:
            print(f"  failed: {line}")
    if summary.interrupted:
        return 130
    return 1 if summary.failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli("quintet-batch", _main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
