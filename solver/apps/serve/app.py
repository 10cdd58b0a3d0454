"""The ``quintet-serve`` application: the JSON API under ``/api`` and the page at ``/``.

``create_app(ServeConfig(...))`` builds a FastAPI application whose lifespan starts and stops
the worker pool (``solver.apps.serve.jobs``) and the tables; its endpoints are four routers, by concern:

* ``routers.solve`` — ``POST /api/solve`` (``quintet-solve``: 200 with the answer, or for an
  equilibrium not in the store 202 with a job), ``GET``/``DELETE /api/jobs/ID``, ``GET
  /api/jobs/ID/events`` (server-sent events);
* ``routers.game`` — ``POST /api/showdown``, ``/api/hand``, ``/api/draw`` (``quintet showdown``,
  ``hand``, ``draw``), ``GET /api/deal?seed=N``, ``GET /api/rules``;
* ``routers.training`` — ``POST /api/review``, ``/api/stats``, ``GET /api/puzzles``, ``POST
  /api/puzzles/grade`` (``quintet-play review``, ``stats``, ``puzzle``);
* ``routers.server`` — ``GET /api/health``, ``GET /api/opponents`` (the opponent models) and the page;
* ``routers.tables`` — ``/api/tables``: play against the computer or a friend by a link (each
  seat named by its token), the table's events as server-sent events (the tables themselves:
  ``solver.apps.serve.tables``).

Every response body is a declared model (``models``; the solver's answers from
``solver.advisor.schema``), so ``GET /openapi.json`` describes exactly what is sent, errors
included: ``{"error": "one line"}`` (``errors``).  ``docs/http-api.md`` is the reference.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib import metadata
from typing import Any

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.concurrency import run_in_threadpool
from starlette.routing import Mount, Route
from starlette.types import ASGIApp

from solver.apps.serve.errors import MAX_BODY_BYTES, BodyLimit, error_response, install_error_handlers
from solver.apps.serve.guard import Guard
from solver.apps.serve.routers import game, server, solve, tables, training
from solver.apps.serve.state import AppState, ServeConfig

__all__ = ["ServeConfig", "create_app", "MAX_BODY_BYTES"]

DESCRIPTION = """The Quintet arrangement advisor and draw advisor over HTTP (quintet-serve).

Requests are JSON (`Content-Type: application/json`). Every error is one line, `{"error": "…"}`:
400 bad input (the command lines' words) or a host the server does not answer to, 401 a table
call without a seat token or a job's without its secret, 403 a cross-site request (or the solver
off on a play-only server), 404 no such endpoint, job or table (a wrong token or secret answers
the same 404), 405 a method the path does not allow (with `Allow`), 413 a body over the limit,
422 a malformed request (not JSON, a wrong type, a number out of range, an unknown or missing
field), 429 a client over its limits (`Retry-After`), 503 a full queue (`Retry-After`) or a
stopping server, 500 only for a fault of the server."""


def create_app(config: ServeConfig | None = None) -> FastAPI:
    """The application; its lifespan runs the worker pool."""
    state = AppState(config or ServeConfig())

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        state.start()
        await run_in_threadpool(state.tables.start)
        try:
            yield
        finally:
            state.stop_requested()
            state.tables.stop_streams()
            await run_in_threadpool(state.pool.close)
            await run_in_threadpool(state.tables.close)

    app = FastAPI(
        title="Quintet solver", version=metadata.version("quintet-solver"), lifespan=lifespan,
        docs_url=None, redoc_url=None,  # their pages load scripts from a CDN; /openapi.json stays
        description=DESCRIPTION,
    )
    app.state.quintet = state
    app.add_middleware(BodyLimit, limit=state.config.max_body_bytes, timeout=state.config.body_timeout)
    public = state.config.public
    if public.cors_origins:  # no CORS unless the operator names the origins
        app.add_middleware(CORSMiddleware, allow_origins=list(public.cors_origins), allow_credentials=False,
                           allow_methods=["GET", "POST", "DELETE"], allow_headers=["Authorization", "Content-Type"],
                           expose_headers=["Location", "Retry-After"], max_age=600)

    routers = (solve.router, game.router, tables.router, training.router, server.router)
    for router in routers:
        app.include_router(router)
    server.mount_page(app)
    own = [route for route in app.router.routes if isinstance(route, (Route, Mount))]  # /openapi.json, /static
    install_error_handlers(app, own + [route for router in routers for route in router.routes])
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = tables.event_stream_schema(generate())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    build = app.build_middleware_stack

    def guarded() -> ASGIApp:  # outside Starlette's own 500: every response gets its headers
        return Guard(build(), public=public, error=error_response, limits=state.config.limits,
                     max_connections=state.config.max_connections)

    app.build_middleware_stack = guarded  # type: ignore[method-assign]
    return app
