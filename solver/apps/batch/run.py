"""``run_batch``: store look-ups, the job queue on an executor, commits as results arrive, and
the ``BatchSummary`` (see the package doc for the resumability this gives)."""

from __future__ import annotations

import concurrent.futures as cf
import math
import statistics
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from quintet.cards import format_cards
from quintet.game import Arrangement, Deal
from quintet.rules import CLASSIC, Rules
from solver.advisor.equilibrium import EquilibriumStore, certified_within
from solver.advisor.limits import BATCH_EPSILON, BATCH_TIME_LIMIT, check_epsilon, check_time_limit
from solver.advisor.schema import BatchDealOut, BatchOut, model_of
from solver.apps.batch.deals import canonical_keys
from solver.apps.batch.executors import Executor, PoolExecutor, SerialExecutor, make_executor
from solver.apps.batch.progress import BatchProgress
from solver.apps.batch.tasks import JobResult, solve_job
from solver.storage.store import SolutionStore

__all__ = ["BatchSummary", "run_batch"]


def _duration(seconds: float) -> str:
    """``1h02m``, ``3m05s``, ``42s``; ``?`` when unknown."""
    if not math.isfinite(seconds):
        return "?"
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s" if m else f"{s}s"


@dataclass
class BatchSummary:
    total: int  # distinct canonical deals asked for
    solved: int = 0  # solved in this run, certified ≤ ε
    unconverged: int = 0  # solved in this run and stored, but the time limit came first
    skipped: int = 0  # already certified ≤ ε in the store
    failed: int = 0
    duplicates: int = 0  # asked deals that were suit-equivalent to an earlier one
    stale: int = 0  # deals whose only stored entry was of an earlier certificate version: re-solved
    interrupted: bool = False
    seconds: float = 0.0  # wall time of the solving phase
    startup: float = 0.0  # wall time to start the executor and warm its workers
    executor: str = "local"
    workers: int = 1
    epsilon: float = BATCH_EPSILON
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

    def to_model(self) -> BatchOut:
        """``quintet-batch --json``."""
        cpu = self.cpu_seconds()
        return model_of(BatchOut, self, startup_seconds=self.startup,
                        mean_cpu_seconds=statistics.fmean(cpu) if cpu else None,
                        deals=[model_of(BatchDealOut, r, exploitability=r.exploitability if r.error is None else None)
                               for r in self.results])

    def format(self) -> str:
        cpu = self.cpu_seconds()
        lines = [
            f"Batch: {self.total} distinct deal{'s' if self.total != 1 else ''} at ε ≤ {self.epsilon:g}"
            + (f" ({self.duplicates} suit-equivalent duplicate{'s' if self.duplicates != 1 else ''} merged)"
               if self.duplicates else "")
            + f"; executor {self.executor}, {self.workers} worker{'s' if self.workers != 1 else ''}; "
              f"store {self.store}",
            f"solved {self.solved}, unconverged {self.unconverged}, skipped {self.skipped}, failed {self.failed}"
            + ("  (interrupted)" if self.interrupted else ""),
            f"{self.completed} deals in {_duration(self.seconds)} wall (after {self.startup:.1f} s start-up): "
            f"{self.deals_per_minute:.2f} deals/minute"
            + (f"; CPU per deal mean {statistics.fmean(cpu):.2f} s, median {statistics.median(cpu):.2f} s"
               if cpu else ""),
        ]
        if self.stale:
            lines.append(f"{self.stale} deal(s) were stored by an earlier solver whose exploitability could be "
                         "under-reported: not trusted, solved again (warm-started from the stored mix).")
        if self.unconverged:
            lines.append(f"{self.unconverged} deal(s) reached the time limit before ε ≤ {self.epsilon:g}: "
                         "their best certified mix is stored; run again (or with a longer --time-limit) to improve it.")
        return "\n".join(lines)


def run_batch(
    exposed: Sequence[int],
    *,
    rules: Rules = CLASSIC,
    store: SolutionStore | None,
    epsilon: float = BATCH_EPSILON,
    time_limit: float | None = BATCH_TIME_LIMIT,
    workers: int = 1,
    executor: str = "local",
    scheduler: str | None = None,
    progress: bool | BatchProgress = False,
    in_flight: int | None = None,
    on_result: Callable[[JobResult], None] | None = None,
) -> BatchSummary:
    """Solve the deals ``exposed`` (masks; canonicalized and deduplicated here) into ``store``.

    With ``store=None`` nothing is read or written (a measurement).  Deals certified at
    ``epsilon`` in the store are skipped; every result is committed as it arrives.  At most
    ``in_flight`` jobs (default 2 × workers) are submitted at once, so even the whole book
    needs little memory.  ``progress``: True for a ``BatchProgress`` on stderr.  Ctrl-C
    stops, keeping everything committed, and marks the summary interrupted.
    """
    check_epsilon(epsilon)
    if time_limit is not None:
        check_time_limit(time_limit)
    keys, duplicates = canonical_keys(exposed, rules)
    summary = BatchSummary(total=len(keys), duplicates=duplicates, executor=executor, workers=workers,
                           epsilon=epsilon, store=None if store is None else str(store.path))
    entries = None if store is None else EquilibriumStore(store, rules)
    todo = _jobs_to_run(keys, entries, rules, epsilon, summary)
    bar = progress if isinstance(progress, BatchProgress) else BatchProgress(enabled=bool(progress))
    if not todo:
        return summary
    t_executor = time.perf_counter()
    eng = make_executor(executor, workers, scheduler)
    summary.workers = eng.workers
    try:
        eng.warm(rules)  # start the workers and load the kernels: start-up, not solving time
    except BaseException:
        eng.close()
        raise
    summary.startup = time.perf_counter() - t_executor

    def collect(result: JobResult) -> None:
        note = _collect(result, summary, entries, rules)
        if on_result is not None:
            on_result(result)
        bar.update(summary.completed + summary.failed, note)

    # the serial executor solves inside submit(): one at a time, so each result is committed at once
    limit = 1 if isinstance(eng, SerialExecutor) else in_flight or 2 * eng.workers
    jobs = deque((key, (solve_job, key, rules, epsilon, time_limit, warm_start)) for key, warm_start in todo)
    start = time.perf_counter()
    bar.start(len(todo))
    try:
        _run_jobs(eng, jobs, limit, collect, summary)
    finally:
        summary.seconds = time.perf_counter() - start
        bar.close()
        eng.close(kill=summary.interrupted)  # Ctrl-C: stop solves in flight (solved again next time)
    return summary


def _jobs_to_run(keys: Sequence[int], entries: EquilibriumStore | None, rules: Rules, epsilon: float,
                 summary: BatchSummary) -> list[tuple[int, tuple[Arrangement, ...]]]:
    """(key, warm start) of each deal to solve; counts the skipped and the stale in ``summary``."""
    todo: list[tuple[int, tuple[Arrangement, ...]]] = []
    for key in keys:
        if entries is None:
            todo.append((key, ()))
            continue
        stored = entries.exploitability(key)  # cheap: no record parsed
        if stored is not None and certified_within(stored, epsilon):
            summary.skipped += 1
            continue
        found = entries.look_up(Deal(key, rules), epsilon)  # weaker or stale: warm-start from its mix
        summary.stale += found.stale
        todo.append((key, found.warm_start))
    return todo


def _collect(result: JobResult, summary: BatchSummary, entries: EquilibriumStore | None, rules: Rules) -> str:
    """Count a finished job and commit its record to the store; returns the progress note."""
    summary.results.append(result)
    deal_text = format_cards(result.canonical, rules.deck)
    if result.error is not None:
        summary.failed += 1
        summary.errors.append(f"{deal_text}: {result.error}")
        return f"FAILED {deal_text}: {result.error}"
    if entries is not None and result.record is not None:
        entries.put(result.canonical, result.record, result.exploitability)
    if certified_within(result.exploitability, summary.epsilon):
        summary.solved += 1
    else:
        summary.unconverged += 1
    return f"last: {deal_text} exploitability {result.exploitability:.4f} in {result.seconds:.1f} s"


def _run_jobs(eng: Executor, jobs: deque[tuple[int, tuple[Any, ...]]], limit: int,
              collect: Callable[[JobResult], None], summary: BatchSummary) -> None:
    """Keep at most ``limit`` of ``jobs`` (key, (fn, *args)) running on ``eng`` and ``collect``
    each result as it arrives.  A broken pool is restarted (``PoolExecutor.restart``), else the
    rest fail; Ctrl-C cancels what is queued and marks ``summary`` interrupted."""
    running: dict[Any, int] = {}  # future -> canonical key

    def fill() -> None:
        while jobs and len(running) < limit:
            key, call = jobs[0]
            try:
                future = eng.submit(*call)
            except cf.BrokenExecutor as exc:  # a worker process died: this pool takes no more work
                if running:
                    return  # let the in-flight futures fail first, then come back here
                if isinstance(eng, PoolExecutor) and eng.restart():
                    continue
                summary.failed += len(jobs)
                summary.errors.append(f"the worker pool broke ({exc}); {len(jobs)} deal(s) not attempted")
                jobs.clear()
                return
            jobs.popleft()
            running[future] = key

    try:
        fill()
        while running:
            done, _ = eng.wait_any(set(running))
            for future in done:
                key = running.pop(future)
                try:
                    result: JobResult = future.result()
                except Exception as exc:  # noqa: BLE001 — the worker process died (solve_job never raises)
                    result = JobResult(canonical=key, error=f"worker lost: {type(exc).__name__}: {exc}")
                collect(result)
            fill()
    except KeyboardInterrupt:
        summary.interrupted = True
        for future in running:
            future.cancel()
