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

from fastapi import HTTPException, Request

from solver.advisor.limits import SERVE_MAX_TIME_LIMIT, SERVE_QUICK_TIME_LIMIT
from solver.apps.serve.errors import MAX_BODY_BYTES
from solver.apps.serve.jobs import Job, Unavailable, WorkerPool
from solver.apps.serve.public import Public, client_address
from solver.apps.serve.quota import BODY_TIMEOUT, MAX_CONNECTIONS, Kind, Limits, RateLimiter, client_key
from solver.apps.serve.tables.config import TablesConfig
from solver.apps.serve.tables.service import TableService
from solver.storage.store import SolutionStore, default_store_path

__all__ = ["ServeConfig", "AppState", "app_state", "solver_on", "PLAY_ONLY"]

@dataclass(frozen=True)
class ServeConfig:
    """``workers`` processes; ``queue_size`` waiting tasks per lane; the store of solved
    equilibria (default ``$QUINTET_STORE`` or the user cache directory); ``max_body_bytes`` per
    request; ``warm_up``: workers load the compiled kernels before taking tasks;
    ``tables``: the tables file, their time to live and the most open at once;
    ``max_time_limit``: the most seconds one solve (and one recheck) may take on this server —
    a request asking for more is refused, an equilibrium, safe mix or K-mix asking for no limit
    gets this one (None: no cap beyond the solver's own defaults); ``quick_time_limit``: the
    limit of a best response, completion or grade that gives none; ``public``: the server's
    address as the world sees it (public URL, trusted proxies, host names:
    ``solver.apps.serve.public``); ``limits``: what one client may ask (``solver.apps.serve.quota``);
    ``play_only``: the solver API (solves, jobs, draw advice, reviews, puzzles) off — a public server for play;
    ``body_timeout``: seconds a request body may take to arrive (408 after); ``max_connections``:
    open connections on the server past which a request is answered 503."""

    workers: int = 2
    queue_size: int = 32
    store: Path = field(default_factory=default_store_path)
    max_body_bytes: int = MAX_BODY_BYTES
    body_timeout: float = BODY_TIMEOUT
    warm_up: bool = True
    max_time_limit: float | None = SERVE_MAX_TIME_LIMIT
    quick_time_limit: float = SERVE_QUICK_TIME_LIMIT
    tables: TablesConfig = field(default_factory=TablesConfig)  # the tables file, TTL, most open tables
    public: Public = field(default_factory=Public)
    limits: Limits = field(default_factory=Limits)
    play_only: bool = False
    max_connections: int = MAX_CONNECTIONS


class AppState:
    """The application's shared state (``app.state.quintet``)."""

    def __init__(self, config: ServeConfig) -> None:
        self.config = config
        self.limiter = RateLimiter(config.limits)
        self.pool = self._new_pool()
        self.tables = TableService(config.tables, self.pool, config.store)
        self._stores = threading.local()  # one store connection per server thread (SQLite)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self.stopping = False

    def _new_pool(self) -> WorkerPool:
        c = self.config
        return WorkerPool(c.workers, queue_size=c.queue_size, store_path=c.store, warm_up=c.warm_up,
                          max_per_owner=c.limits.jobs)

    def client(self, request: Request) -> str:
        """The client the request counts against (``quota.client_key`` of its address: behind
        trusted proxies, the forwarded client's)."""
        return client_key(client_address(self.config.public, request.scope), self.config.limits.ipv6_prefix)

    def take(self, request: Request, kind: Kind) -> str:
        """Count a request of ``kind`` against its client (``TooMany`` past the client's limit);
        the client."""
        client = self.client(request)
        self.limiter.take(client, kind)
        return client

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

    async def finished(self, job: Job, *, poll: float = 0.25, request: Request | None = None) -> bool:
        """Wait until ``job`` is finished (True) or the server is stopping, or ``request``'s client
        has gone (False)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def wake(_: Job) -> None:
            loop.call_soon_threadsafe(lambda: None if done.done() else done.set_result(None))

        job.add_done_callback(wake)
        while not done.done():
            if self.stopping or (request is not None and await request.is_disconnected()):
                return job.finished
            try:
                await asyncio.wait_for(asyncio.shield(done), poll)
            except TimeoutError:
                pass
        return True

    async def answer(self, job: Job, request: Request | None = None) -> Any:
        """Wait for a quick job: its answer (``Job.outcome``: its error raised as its kind), or
        ``Unavailable`` when the server stops or ``request``'s client disconnects first (the job
        is cancelled: no worker goes on for a client that is gone)."""
        if not await self.finished(job, request=request):
            self.pool.cancel(job.id)
            raise Unavailable("the server is stopping" if self.stopping else "the client disconnected")
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


PLAY_ONLY = ("the solver API is off on this server (quintet-serve --play-only): it serves the tables; run "
             "quintet-serve or quintet-solve on your own machine to solve")


def solver_on(request: Request) -> None:
    """The dependency of the solver's endpoints: 403 on a play-only server."""
    if app_state(request).config.play_only:
        raise HTTPException(403, PLAY_ONLY)
