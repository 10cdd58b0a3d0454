"""Where a batch's jobs run (``--executor``): in-process, a local process pool, or Dask.

Every executor has the same four operations: ``submit(fn, *args)`` → a future, ``warm(rules)``
(start the workers and load the kernels there), ``wait_any(futures)`` → (done, pending) and
``close()``; ``workers`` is the number of jobs it runs at once.
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

from quintet.cliutil import UsageError, needs_extra
from quintet.rules import Rules
from quintet.text import quote
from solver.apps.batch.tasks import JobResult, warm_up_quietly
from solver.apps.interrupt import children_ignore_ctrl_c

__all__ = ["EXECUTORS", "Executor", "SerialExecutor", "PoolExecutor", "DaskExecutor", "make_executor",
           "default_workers"]

EXECUTORS = ("local", "dask")
"""``--executor`` of ``quintet-batch``: where jobs run (the best-response executors are another choice:
``solver.executors.base``)."""


def default_workers() -> int:
    """The CPUs this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


class SerialExecutor:
    """Jobs run in this process when submitted (one worker)."""

    name = "local"

    def __init__(self) -> None:
        self.workers = 1

    def submit(self, fn: Callable[..., JobResult], *args: Any) -> cf.Future[JobResult]:
        future: cf.Future[JobResult] = cf.Future()
        future.set_result(fn(*args))
        return future

    def warm(self, rules: Rules) -> None:
        warm_up_quietly(rules)

    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]:
        return set(futures), set()

    def close(self, *, kill: bool = False) -> None:
        """Nothing to release: jobs ran in this process."""


def _watch_parent(parent: int) -> None:
    """Worker-side: exit when the batch process is gone (e.g. killed with SIGKILL)."""
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(1)


def _worker_init(parent: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the batch process's (also inherited: submit)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


class PoolExecutor:
    """A pool of ``workers`` spawned processes that exit when the batch process dies."""

    name = "local"
    max_restarts = 3

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.restarts = 0
        self.pool = self._new_pool()

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        return cf.ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"),
                                      initializer=_worker_init, initargs=(os.getpid(),))

    def restart(self) -> bool:
        """Replace a broken pool (a worker died, e.g. killed for memory); at most ``max_restarts`` times."""
        if self.restarts >= self.max_restarts:
            return False
        self.restarts += 1
        self.pool.shutdown(wait=False, cancel_futures=True)
        self.pool = self._new_pool()
        return True

    def submit(self, fn: Callable[..., JobResult], *args: Any) -> cf.Future[JobResult]:
        return self._submit(fn, *args)

    def warm(self, rules: Rules) -> None:
        """Start every worker and load the kernels there (each warm-up holds its worker a moment)."""
        cf.wait([self._submit(warm_up_quietly, rules, 0.3) for _ in range(self.workers)])

    def _submit(self, fn: Callable[..., Any], *args: Any) -> cf.Future[Any]:
        """The pool starts a worker in ``submit`` while it has fewer than ``workers`` (the first
        submits, after a restart): that worker leaves Ctrl-C to the batch process."""
        if len(getattr(self.pool, "_processes", None) or ()) >= self.workers:
            return self.pool.submit(fn, *args)
        with children_ignore_ctrl_c():
            return self.pool.submit(fn, *args)

    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]:
        done, pending = cf.wait(futures, return_when=cf.FIRST_COMPLETED)
        return set(done), set(pending)

    def close(self, *, kill: bool = False) -> None:
        """Shut the pool down; ``kill``: stop solves in flight now (their deals are simply
        solved again next time)."""
        if kill:
            for process in list(getattr(self.pool, "_processes", {}).values()):
                process.terminate()
        self.pool.shutdown(wait=True, cancel_futures=True)


class DaskExecutor:
    """Jobs on a Dask distributed cluster: a new LocalCluster, or an existing scheduler."""

    name = "dask"

    def __init__(self, workers: int, scheduler: str | None = None) -> None:
        with needs_extra("quintet-batch --executor dask", "batch"):
            from dask.distributed import Client, LocalCluster
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
        self.client.run(warm_up_quietly, rules)  # on every worker

    def wait_any(self, futures: set[Any]) -> tuple[set[Any], set[Any]]:
        from dask.distributed import wait

        done, pending = wait(list(futures), return_when="FIRST_COMPLETED")
        return set(done), set(pending)

    def close(self, *, kill: bool = False) -> None:
        """Close the client (and the LocalCluster this executor started); jobs in flight end with it."""
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


Executor = SerialExecutor | PoolExecutor | DaskExecutor  # what make_executor returns


def make_executor(executor: str, workers: int, scheduler: str | None = None) -> Executor:
    """The executor called ``executor`` (``EXECUTORS``) with ``workers`` workers."""
    if executor == "dask":
        return DaskExecutor(workers, scheduler)
    if executor != "local":
        raise UsageError(f"unknown executor {quote(executor)} (use {' or '.join(EXECUTORS)})")
    if scheduler:
        raise UsageError("--scheduler needs --executor dask")
    return SerialExecutor() if workers == 1 else PoolExecutor(workers)
