"""The worker process of ``quintet-serve``: solves one task at a time, reports progress.

Runs in a process started with ``spawn`` (``solver.apps.serve.jobs.WorkerPool``).  Protocol, over
two one-way pipes:

* server → worker: ``Task`` or ``None`` (exit);
* worker → server: ``("ready",)`` once warmed up, then per task ``("progress", number,
  record)`` any number of times and one ``("done", number, answer)`` (the answer's response
  model) or ``("error", number, kind, message)`` with ``kind`` ``"input"`` (bad input: the
  one-line message of a ``quintet.faults.InputError``), ``"internal"`` (a ``Fault``: its public
  line) or ``"bug"`` (anything else: ``INTERNAL_ERROR`` with the id its traceback is logged under).

Every task kind implements one contract, ``WorkerTask``: ``run(store, stop, progress)`` and its
own ``seconds``; the worker and the pool know nothing else of it.

Cancel: the server writes the task's number into the shared ``cancel`` value; a watcher
thread sees it within ``POLL_SECONDS`` and sets that task's own stop event (a new one per
task, so a late cancel of a finished task cannot stop the next), and the solver — which
checks it in every phase — returns its best so far (``interrupted``).  The same thread exits
the process when the server is gone.  The worker ignores SIGINT: Ctrl-C in the terminal reaches the whole process
group, and the server stops its workers itself.
"""

from __future__ import annotations

import os
import secrets
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.sharedctypes import Synchronized
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from quintet.draw import advise
from quintet.draw.game import Terms
from quintet.faults import Fault, InputError
from quintet.rules import Rules
from quintet.text import one_line
from solver.advisor.limits import SERVE_QUICK_TIME_LIMIT
from solver.advisor.request import SolveRequest, solve_request
from solver.advisor.schema import DrawOut, KmixProgressOut, ProgressOut
from solver.games.double_oracle import IterationRecord
from solver.games.sparse_mix import SparseRecord
from solver.storage.store import SolutionStore

__all__ = ["WorkerTask", "Answer", "Progress", "Task", "SolveTask", "DrawTask", "StrategyTask", "worker_main",
           "run_task", "equilibrium_progress", "log_bug", "INTERNAL_ERROR"]

POLL_SECONDS = 0.05
WARM_UP_DEAL = "8h 7h 9d Ts 7s Qc Jc"
INTERNAL_ERROR = "internal error (id {id})"
"""The one line a client is told of a bug of the server (its traceback is in the server's log
under the same id)."""


def log_bug(exc: BaseException, where: str) -> str:
    """Write ``exc``'s traceback to stderr (the server's log) under a new error id; the line the
    client is told (``INTERNAL_ERROR``: never the exception's own words, which may hold a path)."""
    error_id = secrets.token_hex(6)
    trace = "".join(traceback.format_exception(exc))
    print(f"quintet-serve: internal error {error_id} in {where}:\n{trace}", end="", file=sys.stderr, flush=True)
    return INTERNAL_ERROR.format(id=error_id)


Progress = Callable[[dict[str, object]], None]
"""Where a task's progress goes, as JSON: an equilibrium's iterations (``ProgressOut``, kind
``equilibrium``), a K-mix's certifications (``KmixProgressOut``, kind ``kmix``)."""
Answer = BaseModel | dict[str, Any]
"""A task's answer: its response model, or that model's JSON (a table's task: what the tables
file keeps)."""


class WorkerTask(Protocol):
    """The one contract of every task the pool runs (the server's own objects, never a client's):
    ``run`` answers it in the worker process; ``seconds`` is the most its solver's own limits let
    it run (None: no limit; the pool adds ``jobs.LIMIT_MARGIN`` and cancels it past that)."""

    @property
    def seconds(self) -> float | None: ...

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer: ...


def equilibrium_progress(progress: Progress) -> Callable[[IterationRecord], None]:
    """An equilibrium's iterations as ``progress`` JSON (``ProgressOut``)."""
    return lambda record: progress(ProgressOut.of(record).model_dump(mode="json"))


def _kmix_progress(progress: Progress) -> Callable[[SparseRecord], None]:
    certified = [0]

    def report(record: SparseRecord) -> None:
        certified[0] += 1
        progress(KmixProgressOut(certified=certified[0], support=record.support, exploitability=max(0.0, record.best),
                                 seconds=record.seconds).model_dump(mode="json"))

    return report


@dataclass(frozen=True)
class SolveTask:
    """A solve (``quintet-solve``): its answer's response model.  A request that may not read
    files (``files=False``: every request a server takes) is checked again before anything runs:
    no term names a file.  The store is opened only when an equilibrium is needed."""

    request: SolveRequest

    @property
    def seconds(self) -> float | None:
        """The solver's own limits (None: a solve given no limit) and its recheck."""
        r = self.request
        if r.wants_equilibrium or r.max_exploitability is not None or r.max_support is not None:
            solve = r.long_time_limit * (2 if r.max_support is not None else 1)  # a K-mix: two solves
        elif r.time_limit is None:
            return None
        else:
            solve = r.time_limit
        return solve + (r.verify or 0.0)

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        r = self.request
        if not r.files:
            r.opponent.refuse_files()
        return solve_request(r, store=store() if r.wants_equilibrium else None, stop_event=stop,
                             progress=equilibrium_progress(progress),
                             sparse_progress=_kmix_progress(progress)).to_model()


@dataclass(frozen=True)
class DrawTask:
    """A draw-advisor question (``quintet draw``): ``known`` and ``objective`` as text; exact,
    within the server's quick limit (``seconds``)."""

    hand: str
    rules: Rules
    known: str | None = None
    objective: str = "expected"
    seconds: float = SERVE_QUICK_TIME_LIMIT

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        advice = advise(self.hand, self.rules, known=self.known, objective=self.objective)
        return DrawOut.model_validate(advice.to_dict())


@dataclass(frozen=True)
class StrategyTask:
    """A heads-up draw-poker position for the equilibrium strategy (``quintet.draw.cfr.bot.position_advice``),
    within the server's quick limit (``seconds``)."""

    rules: Rules
    terms: Terms
    hand: str
    actions: tuple[str, ...]
    player: str
    seconds: float = SERVE_QUICK_TIME_LIMIT

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        from quintet.draw.cfr.bot import position_advice

        return position_advice(self.rules, self.terms, self.hand, self.actions, self.player)


@dataclass(frozen=True)
class Task:
    number: int  # unique per server run, > 0
    payload: WorkerTask


class _LazyStore:
    """The worker's store connection, opened on first use (call it)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._store: SolutionStore | None = None

    def __call__(self) -> SolutionStore:
        if self._store is None:
            self._store = SolutionStore(self.path)
        return self._store

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None


def run_task(payload: WorkerTask, store: Callable[[], SolutionStore], stop: threading.Event,
             progress: Progress) -> Answer:
    """The answer to one task (its JSON is what the matching CLI prints with ``--json``), through
    the contract (``WorkerTask.run``); ``store`` opens the store, called only when needed."""
    return payload.run(store, stop, progress)


def _warm_up() -> None:
    """Load the compiled kernels before the first task: the search's and CP-SAT's best
    responses (OR-Tools' first import alone takes a second), the draw advisor."""
    solve_request(SolveRequest.parse(WARM_UP_DEAL, opponent="uniform"))
    solve_request(SolveRequest.parse(WARM_UP_DEAL, opponent="greedy", engine="cpsat"))
    advise("Ah Kh Qh Jh 7c", Rules())


def _watch(cancel: Synchronized, current: list[tuple[int, threading.Event] | None], parent: int) -> None:
    while True:
        time.sleep(POLL_SECONDS)
        if os.getppid() != parent:  # the server is gone
            os._exit(1)
        task = current[0]  # read once: (number, that task's stop event), None when idle
        if task is not None and cancel.value == task[0]:
            task[1].set()


def _send(results: Connection, message: tuple[object, ...]) -> None:
    """Send to the server; a server that has gone (its end of the pipe closed) ends the worker."""
    try:
        results.send(message)
    except OSError:
        os._exit(0)


def worker_main(tasks: Connection, results: Connection, cancel: Synchronized, store_path: Path | None,
                warm_up: bool = True) -> None:
    """The worker's main loop (the target of the spawned process)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    current: list[tuple[int, threading.Event] | None] = [None]  # the running task, None when idle
    threading.Thread(target=_watch, args=(cancel, current, os.getppid()), daemon=True).start()
    if warm_up:
        _warm_up()
    _send(results, ("ready",))
    store = _LazyStore(store_path)
    while True:
        try:
            task = tasks.recv()
        except EOFError:
            task = None
        if task is None:  # stop at once: every store write is committed, nothing else to keep
            store.close()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)  # (a normal interpreter exit frees the solver's tables for a second or two)
        number = task.number
        stop = threading.Event()
        current[0] = (number, stop)

        def progress(data: dict[str, object], number: int = number) -> None:
            _send(results, ("progress", number, data))

        try:
            message: tuple[object, ...] = ("done", number, run_task(task.payload, store, stop, progress))
        except InputError as exc:
            message = ("error", number, "input", one_line(exc) or type(exc).__name__)
        except Fault as exc:  # the server's store, an engine: not the client's input (no path of ours in it)
            message = ("error", number, "internal", one_line(exc.public))
        except Exception as exc:  # noqa: BLE001 — a bug: logged here, the server answers 500 with its id
            message = ("error", number, "bug", log_bug(exc, f"worker task {number}"))
        current[0] = None
        _send(results, message)
