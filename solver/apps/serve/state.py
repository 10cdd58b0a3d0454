"""What the endpoints of ``quintet-serve`` share: the configuration, the worker pool, the store
connections, and whether the server is stopping.

``stop_requested()`` is the server's way to say it is stopping (``cli.Server.handle_exit``, on
Ctrl-C, and the application's lifespan at its end): open event streams then send their last
event and end, and requests waiting for a quick answer give up with 503 — so the server stops
at once instead of waiting out its graceful-shutdown timeout.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import Request

from solver.apps.serve.jobs import Job, Unavailable, WorkerPool
from solver.apps.serve.public import Public
from solver.apps.serve.tables.service import TablesConfig, TableService
from solver.storage.store import SolutionStore, default_store_path

__all__ = ["ServeConfig", "AppState", "app_state"]

MAX_BODY_BYTES = 1 << 20


@dataclass(frozen=True)
class ServeConfig:
    """``workers`` processes; ``queue_size`` waiting tasks per lane; the store of solved
    equilibria (default ``$QUINTET_STORE`` or the user cache directory); ``max_body_bytes`` per
    request; ``warm_up``: workers load the compiled kernels before taking tasks;
    ``tables``: the tables file, their time to live and the most open at once;
    ``max_time_limit``: the most seconds one solve (and one recheck) may take on this server —
    a request asking for more is refused, one asking for no limit gets this one (None: no cap
    beyond the solver's own defaults); ``public``: the server's address as the world sees it
    (public URL, trusted proxies, host names: ``solver.apps.serve.public``)."""

    workers: int = 2
    queue_size: int = 32
    store: Path = field(default_factory=default_store_path)
    max_body_bytes: int = MAX_BODY_BYTES
    warm_up: bool = True
    max_time_limit: float | None = None
    tables: TablesConfig = field(default_factory=TablesConfig)  # the tables file, TTL, most open tables
    public: Public = field(default_factory=Public)


class AppState:
    """The application's shared state (``app.state.quintet``)."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.pool = self._new_pool()
        self.tables = TableService(config.tables, self.pool, config.store)
        self._stores = threading.local()  # one store connection per server thread (SQLite)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self.stopping = False

    def _new_pool(self) -> WorkerPool:
        c = self.config
        return WorkerPool(c.workers, queue_size=c.queue_size, store_path=c.store, warm_up=c.warm_up)

    def store(self) -> SolutionStore:
        if getattr(self._stores, "store", None) is None:
            self._stores.store = SolutionStore(self.config.store)
        return self._stores.store

    # ------------------------------------------------------------------ stopping

    def start(self) -> None:
        """The application starts (in its event loop): a new worker pool (an application may be
        started again after it stopped, as test clients do), not stopping."""
        self._loop = asyncio.get_running_loop()
        self._stopping = asyncio.Event()
        self.stopping = False
        if self.pool.started:
            self.pool = self._new_pool()
            self.tables = TableService(self.config.tables, self.pool, self.config.store)
        self.pool.start()

    def stop_requested(self) -> None:
        """The server is stopping: callable from any thread and from a signal handler (it takes
        no lock; the loop is woken through ``call_soon_threadsafe``)."""
        self.stopping = True
        loop, event = self._loop, self._stopping
        if loop is not None and event is not None and not loop.is_closed():
            loop.call_soon_threadsafe(event.set)
            loop.call_soon_threadsafe(self.tables.stop_streams)  # in the loop: it takes the tables' lock

    async def wait_stopping(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the server to stop; whether it is stopping."""
        if self.stopping or self._stopping is None:
            return self.stopping
        try:
            await asyncio.wait_for(self._stopping.wait(), timeout)
        except TimeoutError:
            pass
        return self.stopping

    async def finished(self, job: Job, *, poll: float = 0.25) -> bool:
        """Wait until ``job`` is finished (True) or the server is stopping (False)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def wake(_: Job) -> None:
            loop.call_soon_threadsafe(lambda: None if done.done() else done.set_result(None))

        job.add_done_callback(wake)
        while not done.done():
            if self.stopping:
                return job.finished
            try:
                await asyncio.wait_for(asyncio.shield(done), poll)
            except TimeoutError:
                pass
        return True

    async def answer(self, job: Job) -> Any:
        """Wait for a quick job: its answer (``Job.outcome``: its error raised as its kind), or
        ``Unavailable`` when the server stops first (the job is cancelled)."""
        if not await self.finished(job):
            self.pool.cancel(job.id)
            raise Unavailable("the server is stopping")
        return job.outcome()

    async def settle(self, job: Job, timeout: float) -> None:
        """Give a cancelled job up to ``timeout`` seconds to finish (its solver stops within one)."""
        deadline = asyncio.get_running_loop().time() + timeout
        while not job.finished and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)


def app_state(request: Request) -> AppState:
    """The FastAPI dependency that gives an endpoint the shared state."""
    state: AppState = request.app.state.quintet
    return state
