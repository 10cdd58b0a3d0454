"""The worker process of ``quintet-serve``: solves one task at a time, reports progress.

Runs in a process started with ``spawn`` (``solver.apps.serve.jobs.WorkerPool``).  Protocol, over
two one-way pipes:

* server → worker: ``Task`` or ``None`` (exit);
* worker → server: ``("ready",)`` once warmed up, then per task ``("progress", number,
  record)`` any number of times and one ``("done", number, answer)`` or ``("error",
  number, kind, message)`` with ``kind`` ``"input"`` (bad input: the one-line message of a
  ``ValueError``) or ``"internal"``.

Cancel: the server writes the task's number into the shared ``cancel`` value; a watcher
thread sees it within ``POLL_SECONDS`` and sets the solve's ``stop_event``, so the solver
returns its best so far (``interrupted``).  The same thread exits the process when the
server is gone.  The worker ignores SIGINT: Ctrl-C in the terminal reaches the whole process
group, and the server stops its workers itself.
"""

from __future__ import annotations

import os
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

from quintet.draw import advise
from quintet.rules import Rules
from solver.advisor.request import SolveRequest, solve_request
from solver.apps.serve.table_tasks import PlayTask
from solver.games.double_oracle import IterationRecord
from solver.storage.store import SolutionStore, StoreError

__all__ = ["Task", "DrawTask", "worker_main", "run_task"]

POLL_SECONDS = 0.05
WARM_UP_DEAL = "8h 7h 9d Ts 7s Qc Jc"


@dataclass(frozen=True)
class DrawTask:
    """A draw-advisor question (``quintet draw``): ``known`` and ``objective`` as text."""

    hand: str
    rules: Rules
    known: str | None = None
    objective: str = "expected"


@dataclass(frozen=True)
class Task:
    number: int  # unique per server run, > 0
    payload: SolveRequest | DrawTask | PlayTask


class _LazyStore:
    """The worker's store connection, opened on first use (call it)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._store: SolutionStore | None = None

    def __call__(self) -> SolutionStore:
        if self._store is None:
            self._store = SolutionStore(self.path)
        return self._store


def run_task(payload: SolveRequest | DrawTask | PlayTask, store: Callable[[], SolutionStore],
             stop: threading.Event, progress: Callable[[IterationRecord], None]) -> dict[str, object]:
    """The JSON answer to one task (what the matching CLI prints with ``--json``; a table's
    task: ``solver.apps.serve.table_tasks``); ``store`` opens the store, called only when an
    equilibrium is needed."""
    if isinstance(payload, PlayTask):
        return payload.run(store, stop)
    if isinstance(payload, DrawTask):
        return advise(payload.hand, payload.rules, known=payload.known, objective=payload.objective).to_dict()
    return solve_request(payload, store=store() if payload.wants_equilibrium else None, stop_event=stop,
                         progress=progress).to_dict()


def _warm_up() -> None:
    """Load the compiled kernels before the first task (best response and draw advisor)."""
    solve_request(SolveRequest.build(WARM_UP_DEAL, opponent="uniform"))
    advise("Ah Kh Qh Jh 7c", Rules())


def _watch(cancel: Synchronized, current: list[int], stop: threading.Event, parent: int) -> None:
    while True:
        time.sleep(POLL_SECONDS)
        if os.getppid() != parent:  # the server is gone
            os._exit(1)
        if current[0] > 0 and cancel.value == current[0]:
            stop.set()


def worker_main(tasks: Connection, results: Connection, cancel: Synchronized, store_path: Path | None,
                warm_up: bool = True) -> None:
    """The worker's main loop (the target of the spawned process)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    current = [0]  # the running task's number, 0 when idle
    stop = threading.Event()
    threading.Thread(target=_watch, args=(cancel, current, stop, os.getppid()), daemon=True).start()
    if warm_up:
        _warm_up()
    results.send(("ready",))
    store = _LazyStore(store_path)
    while True:
        try:
            task = tasks.recv()
        except EOFError:
            return
        if task is None:
            return
        number = task.number
        stop.clear()
        current[0] = number

        def progress(record: IterationRecord, number: int = number) -> None:
            results.send(("progress", number, record.to_progress()))

        try:
            message: tuple[object, ...] = ("done", number, run_task(task.payload, store, stop, progress))
        except StoreError as exc:  # the server's store, not the client's input
            message = ("error", number, "internal", str(exc).splitlines()[0])
        except ValueError as exc:
            message = ("error", number, "input", str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        except Exception as exc:  # noqa: BLE001 — reported to the server, which answers 500
            traceback.print_exc(file=sys.stderr)
            message = ("error", number, "internal", f"{type(exc).__name__}: {exc}".splitlines()[0])
        current[0] = 0
        results.send(message)
