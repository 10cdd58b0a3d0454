"""The ``quintet-serve`` application: the JSON API under ``/api`` and the page at ``/``.

``create_app(ServeConfig(...))`` builds a FastAPI application whose lifespan starts and
stops the worker pool (``solver.apps.serve.jobs``).  Endpoints (field names as in the command
lines' ``--json``):

* ``POST /api/solve`` — ``quintet-solve``: 200 with the answer, or for an equilibrium not in
  the store 202 with a job (``Location: /api/jobs/ID``);
* ``GET /api/jobs/ID`` (poll), ``GET /api/jobs/ID/events`` (server-sent events),
  ``DELETE /api/jobs/ID`` (cancel);
* ``POST /api/showdown``, ``POST /api/hand``, ``POST /api/draw`` — ``quintet showdown``,
  ``hand``, ``draw``;
* ``GET /api/deal?seed=N`` (a seeded random deal), ``GET /api/rules``, ``GET /api/health``;
  ``GET /openapi.json``;
* ``/api/tables`` — play against the computer or a friend (``solver.apps.serve.tables``).

Errors are ``{"error": "one line"}``: 400 for bad cards, arrangements, opponents (the
command lines' wording), 422 for a malformed request (a wrong JSON type, an unknown or
missing field), 404, 405, 413 (body over ``max_body_bytes``), 503 with Retry-After when
the queue is full, 500 only for a fault of the server.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
import traceback
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from quintet.cards import format_cards
from quintet.cli import showdown_report
from quintet.draw.cli import hand_report
from quintet.game import Deal
from quintet.rules import RULE_SETS
from quintet.seeds import SEED_MAX, fresh_seed
from quintet.text import quote
from solver.advisor.equilibrium import certified_within, stored_exploitability
from solver.advisor.request import RequestError, SolveRequest
from solver.apps.serve.jobs import Job, QueueFull, WorkerPool
from solver.apps.serve.models import (
    DealOut,
    DrawIn,
    EquilibriumOut,
    ErrorOut,
    GradeOut,
    HandIn,
    HealthOut,
    JobOut,
    RuleSetOut,
    RulesIn,
    SafeOut,
    ShowdownIn,
    SolutionOut,
    SolveIn,
)
from solver.apps.serve.tables import TablesConfig, TableService, tables_router
from solver.apps.serve.worker import DrawTask
from solver.storage.store import SolutionStore, default_store_path

__all__ = ["ServeConfig", "create_app", "MAX_BODY_BYTES"]

MAX_BODY_BYTES = 1 << 20
EVENT_INTERVAL = 0.25  # seconds between checks of a job for the event stream
STATIC = resources.files("solver.apps.serve") / "static"


@dataclass(frozen=True)
class ServeConfig:
    """``workers`` processes; ``queue_size`` waiting tasks per lane; the store of solved
    equilibria (default ``$QUINTET_STORE`` or the user cache directory)."""

    workers: int = 2
    queue_size: int = 32
    store: Path = field(default_factory=default_store_path)
    max_body_bytes: int = MAX_BODY_BYTES
    warm_up: bool = True  # workers load the compiled kernels before taking tasks
    tables: TablesConfig = field(default_factory=TablesConfig)  # the tables file, TTL, most open tables


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


def _one_line(exc: BaseException) -> str:
    text = str(exc)
    return text.splitlines()[0] if text else type(exc).__name__


# ---------------------------------------------------------------------- request size


class _BodyTooLarge(HTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body is larger than {limit:,} bytes")


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413 (by its Content-Length
    at once, or while it is read)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await _error(413, str(_BodyTooLarge(self.limit).detail))(scope, receive, send)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _BodyTooLarge(self.limit)
            return message

        await self.app(scope, limited, send)


# ---------------------------------------------------------------------- validation errors


def _path(loc: tuple[Any, ...]) -> str:
    """A field path from pydantic's location, without 'body' and union member tags."""
    parts = []
    for p in loc:
        if p == "body":
            continue
        if isinstance(p, int) or (isinstance(p, str) and (p.isidentifier() and p[:1].islower() or p.isdigit())):
            parts.append(str(p))
    return ".".join(parts)


def validation_message(errors: list[Any]) -> str:
    """One line for FastAPI's list of validation errors, naming the field: the deepest error
    (of the members of a union, the one that got furthest into the value)."""
    e = max(errors, key=lambda err: len(err.get("loc", ())))
    kind, loc, msg = e.get("type", ""), tuple(e.get("loc", ())), str(e.get("msg", "invalid"))
    where = _path(loc)
    if kind == "json_invalid":
        return f"request body is not valid JSON ({e.get('ctx', {}).get('error', msg)})"
    if not where and kind in ("model_type", "model_attributes_type", "dict_type"):
        if isinstance(e.get("input"), bytes):
            return "request body must be JSON (Content-Type: application/json) holding an object"
        return "request body must be a JSON object"
    if kind == "missing":
        return f"{where}: required" if where else "request body is missing"
    if kind == "extra_forbidden":
        return f"unknown field {where!r}"
    text = msg[:1].lower() + msg[1:]
    value = e.get("input")
    if kind not in ("cards_type", "arrangement_type") and isinstance(value, (str, int, float, bool)):
        text += f", got {json.dumps(value)}"
    return f"{where}: {text}" if where else text


# ---------------------------------------------------------------------- the application


def create_app(config: ServeConfig | None = None) -> FastAPI:
    """The application; its lifespan runs the worker pool."""
    config = config or ServeConfig()
    pool = WorkerPool(config.workers, queue_size=config.queue_size, store_path=config.store,
                      warm_up=config.warm_up)
    stores = threading.local()  # one store connection per server thread (SQLite)
    tables = TableService(config.tables, pool, config.store)

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        pool.start()
        await run_in_threadpool(tables.start)
        try:
            yield
        finally:
            tables.stop_streams()
            await run_in_threadpool(pool.close)
            await run_in_threadpool(tables.close)

    app = FastAPI(
        title="Quintet solver", version=metadata.version("quintet-solver"), lifespan=lifespan,
        docs_url=None, redoc_url=None,  # their pages load scripts from a CDN; /openapi.json stays
        description="The Quintet arrangement advisor and draw advisor over HTTP (quintet-serve).",
    )
    app.state.pool = pool
    app.state.config = config
    app.state.tables = tables
    app.include_router(tables_router())
    app.add_middleware(BodyLimit, limit=config.max_body_bytes)

    # ------------------------------------------------------------------ errors

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return _error(422, validation_message(list(exc.errors())))

    @app.exception_handler(ValueError)
    async def _bad_input(_: Request, exc: ValueError) -> JSONResponse:
        return _error(400, _one_line(exc))

    @app.exception_handler(QueueFull)
    async def _full(_: Request, exc: QueueFull) -> JSONResponse:
        return _error(503, str(exc), headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 404 and exc.detail == "Not Found":
            message = f"no such page or endpoint: {request.method} {request.url.path}"
        elif exc.status_code == 405:
            message = f"method {request.method} is not allowed on {request.url.path}"
        else:
            message = str(exc.detail)
        return _error(exc.status_code, message, headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _fault(_: Request, exc: Exception) -> JSONResponse:
        traceback.print_exception(exc, file=sys.stderr)
        return _error(500, f"internal error: {type(exc).__name__}: {_one_line(exc)}")

    # ------------------------------------------------------------------ helpers

    def store() -> SolutionStore:
        if getattr(stores, "store", None) is None:
            stores.store = SolutionStore(config.store)
        return stores.store

    def is_stored(request: SolveRequest) -> bool:
        quality = stored_exploitability(request.deal, store())
        return quality is not None and certified_within(quality, request.epsilon)

    async def finished(job: Job) -> Job:
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()

        def wake(_: Job) -> None:
            loop.call_soon_threadsafe(lambda: None if done.done() else done.set_result(None))

        job.add_done_callback(wake)
        await done
        return job

    async def answer(job: Job) -> JSONResponse:
        """Wait for a quick job; its answer, or its error as the matching status."""
        await finished(job)
        if job.status == "done":
            return JSONResponse(job.result)
        if job.status == "cancelled":
            return _error(503, "the server is shutting down")
        if job.error_kind == "input":
            return _error(400, job.error or "bad input")
        return _error(500, f"internal error: {job.error}")

    def job_or_404(job_id: str) -> Job:
        job = pool.get(job_id)
        if job is None:
            raise HTTPException(404, f"no job {quote(job_id)} (unknown, or finished long ago)")
        return job

    errors: dict[int | str, dict[str, Any]] = {
        400: {"model": ErrorOut, "description": "bad input: cards, arrangement, opponent…"},
        422: {"model": ErrorOut, "description": "malformed request: a wrong JSON type, an unknown field…"},
        503: {"model": ErrorOut, "description": "queue full: retry after the Retry-After header's seconds"},
    }

    # ------------------------------------------------------------------ endpoints

    @app.post("/api/solve", tags=["solve"], status_code=200, responses={
        200: {"model": EquilibriumOut | SafeOut | GradeOut | SolutionOut,
              "description": "the answer: exactly what quintet-solve --json prints"},
        202: {"model": JobOut, "description": "an equilibrium solve started: follow the job"},
        **errors})
    async def solve(body: SolveIn) -> Response:
        """``quintet-solve``: the best response to an opponent model, a completion (``fix``),
        a grade (``grade``), the certified equilibrium (``opponent`` ``equilibrium``, the
        default) or a safe exploitation (``max_exploitability``).  An equilibrium not in the
        store, and every safe exploitation, becomes a job (202)."""
        request = _solve_request(body)
        long = request.max_exploitability is not None or (
            request.wants_equilibrium and not await run_in_threadpool(is_stored, request))
        job = pool.submit(request, lane="long" if long else "quick", request=_echo(body))
        if long:
            return JSONResponse(job.to_dict(), status_code=202, headers={"Location": f"/api/jobs/{job.id}"})
        return await answer(job)

    @app.get("/api/jobs/{job_id}", tags=["jobs"], response_model=JobOut, responses={404: {"model": ErrorOut}})
    async def get_job(job_id: str) -> Response:
        """A job: status (queued, running, cancelling, done, cancelled, failed), progress
        (iteration, certified exploitability so far, seconds), the answer when done."""
        return JSONResponse(job_or_404(job_id).to_dict())

    @app.delete("/api/jobs/{job_id}", tags=["jobs"], response_model=JobOut, responses={404: {"model": ErrorOut}})
    async def cancel_job(job_id: str) -> Response:
        """Cancel a job: a waiting one at once; a running one stops within a moment and keeps
        its best certified mix so far as the result (``interrupted``)."""
        job_or_404(job_id)
        job = pool.cancel(job_id)
        assert job is not None
        return JSONResponse(job.to_dict())

    @app.get("/api/jobs/{job_id}/events", tags=["jobs"], responses={
        200: {"content": {"text/event-stream": {}}, "description": "the job's JSON at every change"},
        404: {"model": ErrorOut}})
    async def job_events(job_id: str) -> StreamingResponse:
        """Server-sent events: the job's JSON (as ``GET /api/jobs/ID``) at every change, until
        it is finished."""
        job = job_or_404(job_id)

        async def stream() -> AsyncIterator[str]:
            last = -1
            while True:
                version, done = job.version, job.finished
                if version != last:
                    last = version
                    yield f"event: job\ndata: {json.dumps(job.to_dict())}\n\n"
                if done:
                    return
                await asyncio.sleep(EVENT_INTERVAL)

        return StreamingResponse(stream(), media_type="text/event-stream", headers={"Cache-Control": "no-cache"})

    @app.post("/api/showdown", tags=["game"], responses={200: {"description": "quintet showdown --json"}, **errors})
    def showdown(body: ShowdownIn) -> Response:
        """``quintet showdown``: two arrangements slot by slot."""
        return JSONResponse(showdown_report(body.exposed, body.a, body.b, body.rules.to_rules())[1])

    @app.post("/api/hand", tags=["game"], responses={200: {"description": "quintet hand --json"}, **errors})
    def hand(body: HandIn) -> Response:
        """``quintet hand``: one hand's category, description, key and percentile."""
        return JSONResponse(hand_report(body.hand, body.rules.to_rules())[1])

    @app.post("/api/draw", tags=["draw"], responses={200: {"description": "quintet draw --json"}, **errors})
    async def draw(body: DrawIn) -> Response:
        """``quintet draw``: the draw advisor — all 32 exchanges of a five-card hand, exact."""
        task = DrawTask(body.hand, body.rules.to_rules(), body.known, body.objective)
        return await answer(pool.submit(task, lane="quick", request=_echo(body)))

    @app.get("/api/deal", tags=["game"], response_model=DealOut, responses={400: {"model": ErrorOut}})
    def deal(seed: int | None = Query(None, ge=0, le=SEED_MAX,
                                      description="random seed (default: a fresh one, returned)"),
             rules: str = Query("classic", max_length=64, description="rule set")) -> Response:
        """A random deal (its exposed cards), reproducible from ``seed``: the deal ``quintet-play
        --seed`` and ``quintet-tournament --seed`` deal for it."""
        seed = fresh_seed() if seed is None else seed
        r = RulesIn(name=rules).to_rules()
        d = Deal.random(seed, r)
        return JSONResponse({"seed": seed, "rules": r.name, "exposed": d.format().split(),
                             "live": format_cards(d.live, r.deck).split()})

    @app.get("/api/rules", tags=["game"], response_model=list[RuleSetOut])
    def rules() -> Response:
        """The rule sets: deck and hand categories (lowest first)."""
        return JSONResponse([
            {"name": name, "description": r.describe(), "deck": format_cards(r.deck.full_mask, r.deck).split(),
             "categories": [r.category_label(c) for c in r.categories]}
            for name, r in sorted(RULE_SETS.items(), key=lambda kv: (kv[0] != "classic", kv[0]))
        ])

    @app.get("/api/health", tags=["server"], response_model=HealthOut)
    def health() -> Response:
        """The server's state: workers (ready, busy), waiting and running tasks, the store."""
        stats = pool.stats()
        return JSONResponse({"status": "broken" if stats["broken"] else "ok", "version": app.version, **stats,
                             "store": str(config.store)}, status_code=503 if stats["broken"] else 200)

    # ------------------------------------------------------------------ the page

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(str(STATIC / "index.html"), headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    return app


def _echo(body: BaseModel) -> dict[str, Any]:
    """A request as the job shows it: the fields the client gave."""
    return body.model_dump(mode="json", exclude_unset=True)


def _solve_request(body: SolveIn) -> SolveRequest:
    """The solver's request for ``body``, parsed and checked by the one request model
    (``SolveRequest.parse``, files refused); ``ValueError`` for bad input."""
    if body.workers is not None and body.threads is not None:
        raise RequestError("workers is the old name of threads: give one of them")
    population = None if body.population is None else [
        p if isinstance(p, str) else {"arrangement": p.arrangement, "weight": p.weight} for p in body.population]
    return SolveRequest.parse(
        body.exposed, body.rules.to_rules(), opponent=body.opponent, objective=body.objective, engine=body.engine,
        threads=body.threads if body.workers is None else body.workers, time_limit=body.time_limit,
        seed=body.seed, epsilon=body.epsilon, fix=body.fix, grade=body.grade, population=population,
        style=body.style, verify=body.verify, max_exploitability=body.max_exploitability, files=False)
