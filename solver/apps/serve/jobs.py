"""Jobs and the worker pool of ``quintet-serve``.

Every solve runs in one of ``workers`` spawned processes (``solver.apps.serve.worker``).  Tasks
wait in two bounded lanes:

* ``quick`` — best responses, grades, completions, answers from the store, draw advice:
  the HTTP request waits for them;
* ``long`` — equilibrium solves, safe exploitations, K-mixes: the client gets a job id and
  follows its progress.

An idle worker takes the oldest quick task first.  With two or more workers, long jobs
occupy at most ``workers - 1`` of them, so quick answers never wait behind a long solve.
A lane holding ``queue_size`` waiting tasks refuses more (``QueueFull``: HTTP 503 with
Retry-After).  Cancelling a waiting job drops it; cancelling a running one makes its
worker's solver stop and return its best so far.  A worker that dies is replaced and its
task fails.  A quick task leaves the registry once answered; finished equilibrium jobs
are kept for the last ``KEEP_FINISHED`` of them.

Every task has a time limit (``limit``, seconds of running): past it the pool cancels it (its
solver returns its best so far), and ``KILL_GRACE`` seconds later, if it is still running,
stops its worker process (a new one takes its place; the task fails).  A job belongs to the
client that asked for it (``owner``): it carries a ``secret`` (256 bits) that only that client
is given, and one owner has at most ``max_per_owner`` jobs running or waiting (``TooMany``).
"""

from __future__ import annotations

import multiprocessing
import secrets
import sys
import threading
import time
import traceback
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Literal

from quintet.faults import Fault, InputError
from solver.apps.interrupt import children_ignore_ctrl_c
from solver.apps.serve.quota import TooMany
from solver.apps.serve.worker import Task, WorkerTask, worker_main

__all__ = ["Job", "JobStatus", "Lane", "Unavailable", "QueueFull", "PastLimit", "Bug", "TaskRefused", "WorkerFault",
           "WorkerPool", "KEEP_FINISHED", "KILL_GRACE", "STOPPED_AT_LIMIT", "LIMIT_MARGIN", "task_limit"]

KEEP_FINISHED = 1000
KILL_GRACE = 10.0
"""Seconds a task cancelled at its time limit has to stop before its worker process is stopped."""
STOPPED_AT_LIMIT = "stopped at the server's time limit of {limit:g} s: the best found by then"
LIMIT_MARGIN = 30.0
"""Seconds a task may run beyond its solver's own limits (loading, the store, the answer) before
the pool cancels it."""


def task_limit(payload: WorkerTask) -> float | None:
    """The seconds a task may run before the pool cancels it: its solver's own limits
    (``WorkerTask.seconds``) and ``LIMIT_MARGIN``; None: a task given no limit."""
    return None if payload.seconds is None else payload.seconds + LIMIT_MARGIN


MAX_START_FAILURES = 3
Lane = Literal["quick", "long"]
ErrorKind = Literal["input", "internal", "bug", "limit"]
"""Why a task failed: its input, a fault (``Fault``), a bug, its time limit (its worker stopped)."""
JobStatus = Literal["queued", "running", "cancelling", "done", "cancelled", "failed"]
FINISHED: tuple[JobStatus, ...] = ("done", "cancelled", "failed")
RETRY_AFTER = {"quick": 1, "long": 10}  # seconds, the Retry-After of a full lane


class Unavailable(Exception):
    """The pool takes no task now (HTTP 503): it is stopping, or its workers cannot start."""

    retry_after: int | None = None


class QueueFull(Unavailable):
    """A lane holds its maximum of waiting tasks."""

    def __init__(self, lane: Lane, size: int) -> None:
        super().__init__(f"the server is busy: {size} {'solves' if lane == 'long' else 'requests'} "
                         "are already waiting; try again shortly")
        self.retry_after = RETRY_AFTER[lane]


class PastLimit(Unavailable):
    """A task that ran past its time limit and did not stop (its worker was stopped): the server
    is too busy for it now, not broken, and the client did nothing wrong — 503 with Retry-After
    (a 422 would blame a request that runs in seconds on a quiet server)."""

    def __init__(self, error: str) -> None:
        super().__init__(f"{error}: the server is too busy for it now; try again later")
        self.retry_after = RETRY_AFTER["long"]


class Bug(Exception):
    """A task that failed for a bug of the server: its message is the fixed line the client is
    told (``worker.INTERNAL_ERROR``, with the id its traceback is logged under) — 500."""


class TaskRefused(InputError):
    """A task its worker refused for its input (the one-line message of the input error)."""


class WorkerFault(Fault):
    """A task that failed on the server's side: its worker died, the store or an engine failed."""


@dataclass(eq=False)
class Job:
    """One task's life: queued → running → done | failed | cancelled (via cancelling)."""

    id: str  # public
    number: int  # the worker protocol's task number
    lane: Lane
    payload: Any  # what the worker solves (released once the job is finished)
    request: dict[str, Any]  # the request as received (JSON), shown in the job's JSON
    owner: str | None = None  # the client that asked for it (None: the server's own, a table's)
    limit: float | None = None  # seconds it may run (None: no limit of the pool's)
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(32))  # its owner's key to it
    started: float | None = None
    timed_out: bool = False  # cancelled at its time limit
    created: float = field(default_factory=time.monotonic)
    status: JobStatus = "queued"
    progress: dict[str, Any] | None = None  # the last iteration's ProgressOut (its JSON)
    result: Any = None  # the answer's response model (SolveAnswerOut, DrawOut)
    error: str | None = None
    error_kind: ErrorKind | None = None
    worker: int | None = None
    finished_at: float | None = None
    version: int = 0  # bumped on every change (the event stream sends each version)
    _callbacks: list[Callable[[Job], None]] = field(default_factory=list)
    _guard: threading.Lock = field(default_factory=threading.Lock)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def elapsed(self) -> float:
        """Seconds since the job was submitted (until it finished)."""
        return (self.finished_at or time.monotonic()) - self.created

    def outcome(self) -> Any:
        """A finished job's answer; else its error raised as its kind: ``TaskRefused`` (its input),
        ``Bug``, ``PastLimit``, ``WorkerFault`` (a fault), ``Unavailable`` once cancelled (the
        server is stopping)."""
        if self.status == "done":
            return self.result
        if self.status == "cancelled":
            raise Unavailable("the server is stopping")
        error = self.error or f"the task ended {self.status}"
        kind = {"input": TaskRefused, "bug": Bug, "limit": PastLimit}.get(self.error_kind or "", WorkerFault)
        raise kind(error)

    def add_done_callback(self, callback: Callable[[Job], None]) -> None:
        """Call ``callback(job)`` once the job is finished (at once if it is); callbacks run
        in the pool's threads and must be quick."""
        with self._guard:
            if not self.finished:
                self._callbacks.append(callback)
                return
        callback(self)

    def _run_callbacks(self) -> None:
        with self._guard:
            callbacks, self._callbacks = self._callbacks, []
        for callback in callbacks:
            callback(self)


@dataclass(eq=False)
class _Worker:
    index: int
    process: Any  # multiprocessing.context.SpawnProcess
    tasks: Connection  # server → worker
    results: Connection  # worker → server
    cancel: Any  # shared int: the number of the task to stop
    ready: bool = False
    job: Job | None = None


class WorkerPool:
    """``workers`` spawned worker processes, two bounded lanes of tasks, the jobs' registry.

    ``start()`` spawns the workers (they warm up in the background); ``close()`` stops them.
    Thread-safe: every method may be called from any thread.
    """

    def __init__(self, workers: int = 2, *, queue_size: int = 32, store_path: Path | None = None,
                 warm_up: bool = True, max_per_owner: int = 0) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if queue_size < 1:
            raise ValueError(f"queue size must be at least 1, got {queue_size}")
        self.n_workers = workers
        self.queue_size = queue_size
        self.store_path = store_path
        self.warm_up = warm_up
        self.max_per_owner = max_per_owner  # jobs running or waiting per owner (0: no limit)
        self.max_long = max(1, workers - 1)
        self._ctx = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self._lanes: dict[Lane, deque[Job]] = {"quick": deque(), "long": deque()}
        self._jobs: dict[str, Job] = {}
        self._finished: deque[str] = deque()
        self._numbers = 0
        self._closing = False
        self._listener: threading.Thread | None = None
        self._start_failures = 0
        self.broken: str | None = None  # why the pool gave up (workers die before they are ready)
        self._wake_recv, self._wake_send = self._ctx.Pipe(duplex=False)  # close() wakes the listener

    # ------------------------------------------------------------------ lifecycle

    @property
    def started(self) -> bool:
        """Whether ``start`` was called (a pool runs once: start, then close)."""
        return self._listener is not None

    def start(self) -> None:
        with self._lock:
            self._workers = [self._spawn(i) for i in range(self.n_workers)]
        self._listener = threading.Thread(target=self._listen, name="quintet-serve-pool", daemon=True)
        self._listener.start()

    def _spawn(self, index: int) -> _Worker:
        task_recv, task_send = self._ctx.Pipe(duplex=False)
        result_recv, result_send = self._ctx.Pipe(duplex=False)
        cancel = self._ctx.Value("q", 0, lock=False)
        process = self._ctx.Process(
            target=worker_main, args=(task_recv, result_send, cancel, self.store_path, self.warm_up),
            name=f"quintet-serve-worker-{index}", daemon=True,
        )
        with children_ignore_ctrl_c():  # Ctrl-C is the server's: it stops the workers itself
            process.start()
        task_recv.close()
        result_send.close()
        return _Worker(index, process, task_send, result_recv, cancel)

    def close(self, timeout: float = 3.0) -> None:
        """Cancel every job, stop the workers (terminated after ``timeout`` seconds)."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            done: list[Job] = []
            for lane in self._lanes.values():
                while lane:
                    done.append(self._finish(lane.popleft(), "cancelled"))
            for w in self._workers:
                if w.job is not None:
                    w.cancel.value = w.job.number
                try:
                    w.tasks.send(None)
                except OSError:
                    pass
            self._wake_send.send(None)
        deadline = time.monotonic() + timeout
        for w in self._workers:
            w.process.join(max(0.0, deadline - time.monotonic()))
            if w.process.is_alive():
                w.process.terminate()
                w.process.join(1.0)
        if self._listener is not None:
            self._listener.join(2.0)
        with self._lock:
            for w in self._workers:
                if w.job is not None:
                    done.append(self._finish(w.job, "cancelled"))
                    w.job = None
                w.tasks.close()
                w.results.close()
            self._wake_send.close()
            self._wake_recv.close()
        self._notify(done)

    # ------------------------------------------------------------------ jobs

    def submit(self, payload: WorkerTask, *, lane: Lane, request: dict[str, Any], owner: str | None = None,
               limit: float | None = None) -> Job:
        """Queue a task (any ``worker.WorkerTask``) of ``owner`` that may run ``limit`` seconds
        (default: ``task_limit``); raises ``QueueFull``, ``TooMany`` (the owner's jobs), or
        ``Unavailable`` when the pool is stopping or broken."""
        if limit is None:
            limit = task_limit(payload)
        with self._lock:
            if self.broken:
                raise Unavailable(self.broken)
            if self._closing:
                raise Unavailable("the server is stopping")
            if owner is not None and self.max_per_owner > 0:
                mine = sum(1 for j in self._jobs.values() if j.owner == owner and not j.finished)
                if mine >= self.max_per_owner:
                    raise TooMany(f"you have {mine} solves running or waiting, the most one client may have on "
                                  "this server: wait for one to finish, or cancel one", 5)
            if len(self._lanes[lane]) >= self.queue_size:
                raise QueueFull(lane, self.queue_size)
            self._numbers += 1
            job = Job(secrets.token_urlsafe(12), self._numbers, lane, payload, request, owner=owner, limit=limit)
            self._jobs[job.id] = job
            self._lanes[lane].append(job)
            self._dispatch()
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        """Cancel a job: a waiting one at once, a running one as soon as its solver stops
        (status ``cancelling`` until then).  None for an unknown id."""
        done: list[Job] = []
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or job.finished or job.status == "cancelling":
                return job
            if job.status == "queued":
                self._lanes[job.lane].remove(job)
                done.append(self._finish(job, "cancelled"))
            else:
                job.status = "cancelling"
                job.version += 1
                for w in self._workers:
                    if w.job is job:
                        w.cancel.value = job.number
        self._notify(done)
        return job

    def pids(self) -> list[int]:
        """The worker processes' ids (for the machine's operator and tests: the API does not show them)."""
        with self._lock:
            return [w.process.pid for w in self._workers]

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {
                "workers": self.n_workers,
                "workers_ready": sum(w.ready for w in self._workers),
                "workers_busy": sum(w.job is not None for w in self._workers),
                "waiting": {lane: len(q) for lane, q in self._lanes.items()},
                "running": {lane: sum(1 for w in self._workers if w.job is not None and w.job.lane == lane)
                            for lane in self._lanes},
                "queue_size": self.queue_size,
                "broken": self.broken,
            }

    # ------------------------------------------------------------------ internals (lock held)

    def _dispatch(self) -> None:
        for w in self._workers:
            if not w.ready or w.job is not None:
                continue
            job = self._next()
            if job is None:
                return
            try:
                w.tasks.send(Task(job.number, job.payload))
            except OSError:  # the worker just died: the job waits for another; its sentinel reports the death
                self._lanes[job.lane].appendleft(job)
                w.ready = False
                continue
            w.job, job.worker, job.status, job.started = job, w.index, "running", time.monotonic()
            job.version += 1

    def _next(self) -> Job | None:
        if self._lanes["quick"]:
            return self._lanes["quick"].popleft()
        running_long = sum(1 for w in self._workers if w.job is not None and w.job.lane == "long")
        if self._lanes["long"] and running_long < self.max_long:
            return self._lanes["long"].popleft()
        return None

    def _finish(self, job: Job, status: JobStatus) -> Job:
        """Mark a job finished; a quick one leaves the registry at once (its answer goes
        back to the waiting request), a long one stays for ``KEEP_FINISHED`` jobs."""
        job.status = status
        job.finished_at = time.monotonic()
        job.version += 1
        job.payload = None
        if job.lane == "quick":
            self._jobs.pop(job.id, None)
            return job
        self._finished.append(job.id)
        while len(self._finished) > KEEP_FINISHED:
            self._jobs.pop(self._finished.popleft(), None)
        return job

    # ------------------------------------------------------------------ listener thread

    def _notify(self, jobs: list[Job]) -> None:
        for job in jobs:
            job._run_callbacks()

    def _listen(self) -> None:
        """The listener thread: messages and deaths of the workers, until ``close``."""
        while True:
            try:
                if not self._listen_once():
                    return
            except Exception:  # noqa: BLE001 — a bug here must not stop every job: report it and go on
                traceback.print_exc(file=sys.stderr)
                time.sleep(0.5)

    def _listen_once(self) -> bool:
        """Wait for the workers once (≤ 0.5 s) and handle what came; False once closing."""
        with self._lock:
            if self._closing:
                return False
            by_conn = {w.results: w for w in self._workers}
            by_sentinel = {w.process.sentinel: w for w in self._workers}
        ready = wait([*by_conn, *by_sentinel, self._wake_recv], timeout=0.5)
        done: list[Job] = []
        with self._lock:
            if self._closing:
                return False
            self._enforce_limits()
            for obj in ready:
                if obj is self._wake_recv:
                    continue
                if obj in by_conn:
                    w = by_conn[obj]
                    try:
                        message = w.results.recv()
                    except (EOFError, OSError):
                        continue  # the sentinel reports the death
                    done += self._handle(w, message)
                elif not by_sentinel[obj].process.is_alive():
                    done += self._replace(by_sentinel[obj])
            self._dispatch()
        self._notify(done)
        return True

    def _enforce_limits(self) -> None:
        """Cancel the running tasks past their time limit; stop the workers of those that have not
        stopped ``KILL_GRACE`` seconds after (their sentinels then report them, ``_replace``)."""
        now = time.monotonic()
        for w in self._workers:
            job = w.job
            if job is None or job.limit is None or job.started is None:
                continue
            over = now - job.started - job.limit
            if over >= 0 and not job.timed_out:
                job.timed_out = True
                job.status = "cancelling"
                job.version += 1
                w.cancel.value = job.number
            elif over >= KILL_GRACE and w.process.is_alive():
                print(f"quintet-serve: worker {w.index} did not stop its task {KILL_GRACE:g} s after its time "
                      f"limit of {job.limit:g} s; stopping the worker", file=sys.stderr, flush=True)
                w.process.kill()

    def _handle(self, w: _Worker, message: tuple[Any, ...]) -> list[Job]:
        kind = message[0]
        if kind == "ready":
            w.ready = True
            return []
        job = w.job
        if job is None or job.number != message[1]:
            return []  # a late message of a task this pool has given up on
        if kind == "progress":
            job.progress = message[2]
            job.version += 1
            return []
        w.job = None
        if kind == "done":
            job.result = message[2]
            if job.timed_out:  # its best so far is its answer
                job.error = STOPPED_AT_LIMIT.format(limit=job.limit)
                return [self._finish(job, "done")]
            return [self._finish(job, "cancelled" if job.status == "cancelling" else "done")]
        job.error_kind, job.error = message[2], message[3]
        return [self._finish(job, "failed")]

    def _replace(self, w: _Worker) -> list[Job]:
        """A worker died: fail its task and start another — unless workers keep dying before
        they are ready (then the pool stops, failing every waiting task)."""
        code = w.process.exitcode
        self._start_failures += not w.ready
        give_up = self._start_failures >= MAX_START_FAILURES
        print(f"quintet-serve: worker {w.index} (pid {w.process.pid}) died (exit code {code})"
              + ("; workers cannot start, giving up" if give_up else "; restarting it"), file=sys.stderr, flush=True)
        failed = [w.job] if w.job is not None else []
        w.tasks.close()
        w.results.close()
        self._workers.remove(w)
        if give_up:
            self.broken = f"the worker processes cannot start (exit code {code})"
            for lane in self._lanes.values():
                failed += lane
                lane.clear()
        else:
            self._workers.append(self._spawn(w.index))
        for job in failed:
            past = f"the task ran past its time limit of {job.limit:g} s and was stopped"
            job.error_kind, job.error = ("limit", past) if job.timed_out else \
                ("internal", self.broken or f"the worker process died (exit code {code})")
        return [self._finish(job, "failed") for job in failed]
