"""The tables' own thread and their work in the worker pool.

Requests run in the server's threads; what comes back from the pool (a job done), the periodic
checks (every ``TICK``: retries, progress, expiry) and the work that must not delay a request
run in the scheduler's one thread.  A task is keyed by ``(table, game, what)``: one job at a time
per key; a task is its table's creator's job (``owner``: counted against the client's jobs);
a full lane, or an owner with its most jobs, is tried again shortly; a pool that cannot run
(broken, stopping) fails the task at once.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from solver.apps.serve.jobs import Job, QueueFull, Unavailable, WorkerPool
from solver.apps.serve.quota import TooMany

__all__ = ["Scheduler", "TaskKey", "Lane", "TICK"]

TICK = 0.5  # seconds between the scheduler's checks (progress, retries, expiry)
TaskKey = tuple[str, int, str]
"""A table's task: (table id, game, what: ``choose``, ``equilibrium``, ``record SEAT``)."""
Lane = Literal["quick", "long"]


@dataclass
class _Retry:
    at: float
    payload: Any
    lane: Lane
    then: Callable[[Job], None]
    failed: Callable[[str], None]
    owner: str | None


@dataclass
class _Pending:
    job: Job | None = None  # None: waiting for room in the lane
    published: int = -1  # the job version whose progress was last announced


@dataclass(frozen=True)
class _Unlocked:
    """Work that takes the lock itself, around its reads and writes."""

    run: Callable[[], None]


class Scheduler:
    """The service's thread (``start``, ``close``) and its jobs.  ``lock`` is the service's: a
    job's continuation and every tick run with it held, and only while ``is_open()``;
    ``tick(now)`` is the service's periodic check; ``warm_up`` runs first, without the lock."""

    def __init__(self, pool: WorkerPool, lock: threading.RLock, *, is_open: Callable[[], bool],
                 tick: Callable[[float], None], warm_up: Callable[[], None] = lambda: None) -> None:
        self.pool = pool
        self.stopping = False  # the server is stopping: finished jobs are dropped (a restart redoes them)
        self._lock = lock
        self._is_open = is_open
        self._tick = tick
        self._warm_up = warm_up
        self._pending: dict[TaskKey, _Pending] = {}
        self._retries: dict[TaskKey, _Retry] = {}
        self._work: queue.Queue[Callable[[], None] | _Unlocked | None] = queue.Queue()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ the thread

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="quintet-serve-tables", daemon=True)
        self._thread.start()

    def close(self, timeout: float = 5.0) -> None:
        self._work.put(None)
        if self._thread is not None:
            self._thread.join(timeout)

    def later(self, work: Callable[[], None], *, locked: bool = True) -> None:
        """Run ``work`` in the scheduler's thread (``locked``: with the lock held; else ``work``
        takes it itself)."""
        self._work.put(work if locked else _Unlocked(work))

    def _run(self) -> None:
        try:
            self._warm_up()
        except Exception:  # noqa: BLE001 — only a warm-up
            traceback.print_exc(file=sys.stderr)
        while True:
            try:
                item = self._work.get(timeout=TICK)
            except queue.Empty:
                item = self._check
            if item is None:
                return
            try:
                if isinstance(item, _Unlocked):
                    item.run()
                else:
                    with self._lock:
                        if self._is_open():
                            item()
            except Exception:  # noqa: BLE001 — a bug must not stop every table: report it and go on
                traceback.print_exc(file=sys.stderr)

    def _check(self) -> None:
        now = time.time()
        for key, retry in list(self._retries.items()):
            if retry.at <= now:
                del self._retries[key]
                self.submit(key, retry.payload, retry.lane, retry.then, retry.failed, owner=retry.owner)
        self._tick(now)

    # ------------------------------------------------------------------ jobs

    def submit(self, key: TaskKey, payload: Any, lane: Lane, then: Callable[[Job], None],
               failed: Callable[[str], None], *, owner: str | None = None, strict: bool = False) -> None:
        """Give ``payload`` to the pool as ``owner``'s job; ``then(job)`` in the scheduler's thread
        once it is done (a full lane, or an owner with its most jobs: tried again shortly — with
        ``strict`` the owner's ``TooMany`` is raised instead; a pool that cannot run it:
        ``failed(why)`` at once)."""
        try:
            job = self.pool.submit(payload, lane=lane, request={"table": "(a table's task)", "task": key[2]},
                                   owner=owner)
        except TooMany:
            if strict:
                raise
            self._retries[key] = _Retry(time.time() + 2, payload, lane, then, failed, owner)
            self._pending.setdefault(key, _Pending())
            return
        except QueueFull as full:
            self._retries[key] = _Retry(time.time() + min(full.retry_after or 1, 2), payload, lane, then, failed, owner)
            self._pending.setdefault(key, _Pending())
            return
        except Unavailable as broken:  # the pool gave up (its workers cannot start) or is stopping
            self._pending.pop(key, None)
            failed(str(broken))
            return
        pending = self._pending.setdefault(key, _Pending())
        pending.job = job

        def done(j: Job) -> None:
            def finish() -> None:
                if self._pending.get(key) is pending:
                    del self._pending[key]
                if self.stopping or j.status == "cancelled":
                    return  # the server is stopping: a restart does this again
                then(j)

            self._work.put(finish)

        job.add_done_callback(done)

    def pending(self, key: TaskKey) -> bool:
        """Whether the task is in the pool or waiting for room there."""
        return key in self._pending

    def progress(self, key: TaskKey) -> dict[str, Any] | None:
        """The running task's last progress (None: none, or not running)."""
        pending = self._pending.get(key)
        return None if pending is None or pending.job is None else pending.job.progress

    def progressed(self, wanted: Callable[[str], bool]) -> list[TaskKey]:
        """The running tasks of the tables ``wanted`` whose progress changed since last asked."""
        out = []
        for key, pending in self._pending.items():
            job = pending.job
            if job is not None and job.version != pending.published and job.progress and wanted(key[0]):
                pending.published = job.version
                out.append(key)
        return out

    def forget(self, table_id: str) -> None:
        """The table is gone: its tasks' answers are dropped, its retries not made."""
        for key in [k for k in self._pending if k[0] == table_id]:
            self._pending.pop(key)
        for key in [k for k in self._retries if k[0] == table_id]:
            self._retries.pop(key)
