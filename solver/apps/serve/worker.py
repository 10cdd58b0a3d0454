"""The worker process of ``quintet-serve``: solves one task at a time, reports progress.

Runs in a process started with ``spawn`` (``solver.apps.serve.jobs.WorkerPool``).  Protocol, over
two one-way pipes:

* server → worker: ``Task`` or ``None`` (exit);
* worker → server: ``("ready",)`` once warmed up, then per task ``("progress", number,
  record)`` any number of times and one ``("done", number, answer)`` (the answer's response
  model) or ``("error", number, kind, message)`` with ``kind`` ``"input"`` (bad input: the
  one-line message of a ``ValueError``) or ``"internal"``.

Cancel: the server writes the task's number into the shared ``cancel`` value; a watcher
thread sees it within ``POLL_SECONDS`` and sets that task's own stop event (a new one per
task, so a late cancel of a finished task cannot stop the next), and the solver — which
checks it in every phase — returns its best so far (``interrupted``).  The same thread exits
the process when the server is gone.  The worker ignores SIGINT: Ctrl-C in the terminal reaches the whole process
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
from typing import Protocol

from pydantic import BaseModel, ValidationError

from quintet.draw import advise
from quintet.draw.game import Terms
from quintet.faults import Fault
from quintet.rules import Rules
from quintet.text import one_line
from solver.advisor.request import SolveRequest, solve_request
from solver.advisor.schema import DrawOut, KmixProgressOut, ProgressOut
from solver.apps.serve.training import TRAINING_TASKS, TrainingTask
from solver.games.double_oracle import IterationRecord
from solver.games.sparse_mix import SparseRecord
from solver.storage.store import SolutionStore

__all__ = ["Task", "DrawTask", "StrategyTask", "worker_main", "run_task"]

POLL_SECONDS = 0.05
WARM_UP_DEAL = "8h 7h 9d Ts 7s Qc Jc"


@dataclass(frozen=True)
class DrawTask:
    """A draw-advisor question (``quintet draw``): ``known`` and ``objective`` as text."""

    hand: str
    rules: Rules
    known: str | None = None
    objective: str = "expected"


class Runnable(Protocol):
    """A task that runs itself: a table's (``solver.apps.serve.tables.tasks.PlayTask``; the
    server's own, never a client's object)."""

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event) -> dict[str, object]: ...


@dataclass(frozen=True)
class StrategyTask:
    """A heads-up draw-poker position for the equilibrium strategy (``quintet.draw.cfr.bot.position_advice``)."""

    rules: Rules
    terms: Terms
    hand: str
    actions: tuple[str, ...]
    player: str

    def run(self) -> BaseModel:
        from quintet.draw.cfr.bot import position_advice

        return position_advice(self.rules, self.terms, self.hand, self.actions, self.player)


@dataclass(frozen=True)
class Task:
    number: int  # unique per server run, > 0
    payload: SolveRequest | DrawTask | StrategyTask | TrainingTask | Runnable


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


Progress = Callable[[dict[str, object]], None]
"""Where a task's progress goes, as JSON: an equilibrium's iterations (``ProgressOut``, kind
``equilibrium``), a K-mix's certifications (``KmixProgressOut``, kind ``kmix``)."""


def _equilibrium_progress(progress: Progress) -> Callable[[IterationRecord], None]:
    return lambda record: progress(ProgressOut.of(record).model_dump(mode="json"))


def _kmix_progress(progress: Progress) -> Callable[[SparseRecord], None]:
    certified = [0]

    def report(record: SparseRecord) -> None:
        certified[0] += 1
        progress(KmixProgressOut(certified=certified[0], support=record.support, exploitability=max(0.0, record.best),
                                 seconds=record.seconds).model_dump(mode="json"))

    return report


def run_task(payload: SolveRequest | DrawTask | StrategyTask | TrainingTask | Runnable,
             store: Callable[[], SolutionStore], stop: threading.Event,
             progress: Progress) -> BaseModel | dict[str, object]:
    """The answer to one task as its response model (its JSON is what the matching CLI prints
    with ``--json``; a task that runs itself — a table's, ``solver.apps.serve.tables.tasks`` —
    answers its JSON);
    ``store`` opens the store, called only when an equilibrium is needed.  A request that may
    not read files (``files=False``: every request a server takes) is checked again here,
    before anything runs: no term names a file."""
    if isinstance(payload, StrategyTask):
        return payload.run()
    if isinstance(payload, TRAINING_TASKS):
        return payload.run(store, stop, _equilibrium_progress(progress))
    if isinstance(payload, DrawTask):
        return DrawOut.model_validate(
            advise(payload.hand, payload.rules, known=payload.known, objective=payload.objective).to_dict())
    if not isinstance(payload, SolveRequest):
        return payload.run(store, stop)
    if not payload.files:
        payload.opponent.refuse_files()
    return solve_request(payload, store=store() if payload.wants_equilibrium else None, stop_event=stop,
                         progress=_equilibrium_progress(progress), sparse_progress=_kmix_progress(progress)).to_model()


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
        except Fault as exc:  # the server's store, an engine: not the client's input (no path of ours in it)
            message = ("error", number, "internal", one_line(exc.public))
        except ValidationError as exc:  # an answer that does not fit its model: a fault, not the input
            traceback.print_exc(file=sys.stderr)
            message = ("error", number, "internal", one_line(f"{type(exc).__name__}: {exc}"))
        except ValueError as exc:
            message = ("error", number, "input", one_line(exc) or type(exc).__name__)
        except Exception as exc:  # noqa: BLE001 — reported to the server, which answers 500
            traceback.print_exc(file=sys.stderr)
            message = ("error", number, "internal", one_line(f"{type(exc).__name__}: {exc}"))
        current[0] = None
        _send(results, message)
