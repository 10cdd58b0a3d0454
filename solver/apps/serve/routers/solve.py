"""Solves and jobs: ``POST /api/solve``; ``GET``/``DELETE /api/jobs/ID``; ``GET /api/jobs/ID/events``.

A solve the request can wait for (a best response, a grade, a completion, an equilibrium in the
store) is answered with 200 and exactly what ``quintet-solve --json`` prints; an equilibrium not
in the store, every safe exploitation and every K-mix (``max_support``: always a search)
becomes a job (202 with ``Location``) whose progress the client follows by polling or by
server-sent events, and may cancel.  A job is its client's: the 202 gives its **secret**, which
every call about the job sends as ``Authorization: Bearer SECRET`` (none: 401; a wrong one, or
no such job: the same 404).  Every solve has a time limit (``ServeConfig.quick_time_limit`` for
an answer the request waits for, the ``max_time_limit`` cap for the others); a request whose
client disconnects cancels its solve.
"""

from __future__ import annotations

import dataclasses
import hmac
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import JSONResponse, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from quintet.text import quote
from solver.advisor.equilibrium import certified_within, stored_exploitability
from solver.advisor.request import RequestError, SolveRequest
from solver.advisor.schema import dump
from solver.apps.serve.errors import JsonBodyRoute, error_responses, rate_limit
from solver.apps.serve.jobs import Job
from solver.apps.serve.models import ImmediateAnswerOut, JobCreatedOut, JobOut, KmixProgressOut, ProgressOut, SolveIn
from solver.apps.serve.public import request_origin
from solver.apps.serve.state import AppState, ServeConfig, app_state, solver_on
from solver.apps.serve.worker import SolveTask

__all__ = ["router", "solve_request_of", "job_out", "job_created", "echo", "EVENT_INTERVAL", "STOP_GRACE", "NO_SECRET"]

EVENT_INTERVAL = 0.25  # seconds between checks of a job for its event stream
STOP_GRACE = 0.8  # seconds a stream waits, when the server stops, for its cancelled job to finish

NO_SECRET = "a job's calls need its secret: send 'Authorization: Bearer SECRET' (the secret of its 202 answer)"
_DUMMY_SECRET = "no job has this secret"

router = APIRouter(route_class=JsonBodyRoute, dependencies=[Depends(solver_on)])
State = Annotated[AppState, Depends(app_state)]
_bearer = HTTPBearer(auto_error=False, scheme_name="job secret",
                     description="the job's secret, from the 202 answer that started it")


async def _secret(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> str:
    if credentials is None:
        raise HTTPException(401, NO_SECRET, headers={"WWW-Authenticate": "Bearer"})
    return credentials.credentials


Secret = Annotated[str, Depends(_secret)]


class EventStream(StreamingResponse):
    media_type = "text/event-stream"


def echo(body: BaseModel) -> dict[str, Any]:
    """A request as its job shows it: the fields the client gave."""
    return body.model_dump(mode="json", exclude_unset=True)


def solve_request_of(body: SolveIn, config: ServeConfig) -> SolveRequest:
    """The solver's request for ``body``, parsed and checked by the one request model
    (``SolveRequest.parse``, files refused: a server never opens a path a client sent), within
    the server's time cap (``ServeConfig.max_time_limit``); ``InputError`` for bad input."""
    cap = config.max_time_limit
    if cap is not None:
        for name in ("time_limit", "verify"):
            value = getattr(body, name)
            if value is not None and value > cap:
                raise RequestError(f"{name}: at most {cap:g} seconds on this server, got {value:g}")
    return SolveRequest.parse(**body.model_dump() | {"rules": body.rules.to_rules()}, files=False)


def _progress(progress: dict[str, Any]) -> ProgressOut | KmixProgressOut:
    return KmixProgressOut.model_validate(progress) if progress.get("kind") == "kmix" else \
        ProgressOut.model_validate(progress)


def _limited(request: SolveRequest, long: bool, config: ServeConfig) -> SolveRequest:
    """``request`` with the server's time limit when it gives none: the cap for a job (an
    equilibrium, a safe mix, a K-mix), the quick limit for an answer its request waits for."""
    if request.time_limit is not None:
        return request
    limit = config.max_time_limit if long else config.quick_time_limit
    if limit is None:
        return request
    return dataclasses.replace(request, engine=request.engine.with_time_limit(limit))


def job_out(job: Job) -> JobOut:
    """A job's JSON (``GET /api/jobs/ID``)."""
    return JobOut(job=job.id, status=job.status, request=job.request, elapsed=round(job.elapsed, 3),
                  progress=None if job.progress is None else _progress(job.progress),
                  result=job.result, error=job.error)


def job_created(state: AppState, job: Job, http: Request) -> JSONResponse:
    """The 202 of a job just started: the job and its secret (``JobCreatedOut``; shown once,
    here), and its address (under the page's prefix) as Location."""
    created = JobCreatedOut(**job_out(job).model_dump(), secret=job.secret)
    prefix = request_origin(state.config.public, http.scope).prefix
    return JSONResponse(dump(created), status_code=202,
                        headers={"Location": f"{prefix}/api/jobs/{job.id}"})


def _job(state: AppState, job_id: str, secret: str) -> Job:
    """The job ``job_id`` if ``secret`` is its secret (compared in constant time); else 404, the
    same for no such job."""
    job = state.pool.get(job_id)
    given = secret.encode("utf-8", "surrogatepass")
    if not hmac.compare_digest(given, (_DUMMY_SECRET if job is None else job.secret).encode()) or job is None:
        raise HTTPException(404, f"no job {quote(job_id)} with this secret (unknown, or finished long ago)")
    return job


def _is_stored(state: AppState, request: SolveRequest) -> bool:
    quality = stored_exploitability(request.deal, state.store())
    return quality is not None and certified_within(quality, request.epsilon)


_JOB_LINKS = {
    "GetJob": {"operationId": "get_job", "parameters": {"job_id": "$response.body#/job"},
               "description": "the job's state"},
    "CancelJob": {"operationId": "cancel_job", "parameters": {"job_id": "$response.body#/job"},
                  "description": "cancel it"},
    "JobEvents": {"operationId": "job_events", "parameters": {"job_id": "$response.body#/job"},
                  "description": "follow it"},
}


@router.post("/api/solve", tags=["solve"], operation_id="solve", response_model=ImmediateAnswerOut,
             response_description="the answer: exactly what quintet-solve --json prints",
             responses={202: {"model": JobCreatedOut, "description": "an equilibrium solve, a safe exploitation or a "
                              "K-mix started: follow the job at its Location with its secret (its result: any of the "
                              "answers)",
                              "headers": {"Location": {"description": "/api/jobs/ID", "schema": {"type": "string"}}},
                              "links": _JOB_LINKS},
                        **error_responses(400, 403, 413, 422, 429, 500, 503)}, openapi_extra=rate_limit("solves"))
async def solve(body: SolveIn, state: State, http: Request) -> Any:
    """``quintet-solve``: the best response to an opponent model, a completion (``fix``),
    a grade (``grade``), the certified equilibrium (``opponent`` ``equilibrium``, the
    default), a safe exploitation (``max_exploitability``) or the least exploitable mix of at
    most K arrangements found (``max_support``).  An equilibrium not in the store, every safe
    exploitation and every K-mix becomes a job (202)."""
    mix = body.max_exploitability is not None or body.max_support is not None
    client = state.take(http, "mixes") if mix else state.client(http)  # a mix: a solve and a mix
    request = solve_request_of(body, state.config)
    long = mix or (request.wants_equilibrium and not await run_in_threadpool(_is_stored, state, request))
    request = _limited(request, long, state.config)
    job = state.pool.submit(SolveTask(request), lane="long" if long else "quick", request=echo(body), owner=client)
    if long:
        return job_created(state, job, http)
    return await state.answer(job, http)


@router.get("/api/jobs/{job_id}", tags=["jobs"], operation_id="get_job", response_model=JobOut,
            responses=error_responses(401, 403, 404, 422))
async def get_job(job_id: str, state: State, secret: Secret) -> JobOut:
    """A job: status (queued, running, cancelling, done, cancelled, failed), progress
    (iteration, certified exploitability so far, seconds), the answer when done."""
    return job_out(_job(state, job_id, secret))


@router.delete("/api/jobs/{job_id}", tags=["jobs"], operation_id="cancel_job", response_model=JobOut,
               responses=error_responses(401, 403, 404, 422))
async def cancel_job(job_id: str, state: State, secret: Secret) -> JobOut:
    """Cancel a job: a waiting one at once; a running one stops within a second and keeps its
    best certified mix so far as the result (``interrupted``)."""
    _job(state, job_id, secret)
    job = state.pool.cancel(job_id)
    if job is None:  # finished and forgotten in between
        raise HTTPException(404, f"no job {quote(job_id)} (unknown, or finished long ago)")
    return job_out(job)


_EVENT_SCHEMA = {
    "type": "object", "required": ["event", "data"], "additionalProperties": False,
    "description": "one server-sent event",
    "properties": {
        "event": {"const": "job"},
        "data": {"type": "string", "contentMediaType": "application/json",
                 "contentSchema": {"$ref": "#/components/schemas/JobOut"}},
    },
}


def _event(job: Job) -> str:
    return f"event: job\ndata: {job_out(job).model_dump_json()}\n\n"


async def _events(state: AppState, job: Job) -> AsyncIterator[str]:
    """The job's JSON at every change until it is finished; when the server stops, the job is
    cancelled and its last state (cancelled, with its best so far) is the stream's last event."""
    last = -1
    while True:
        if state.stopping and not job.finished:
            state.pool.cancel(job.id)
            await state.settle(job, STOP_GRACE)
            yield _event(job)
            return
        version, done = job.version, job.finished
        if version != last:
            last = version
            yield _event(job)
        if done:
            return
        await state.wait_stopping(EVENT_INTERVAL)


@router.get("/api/jobs/{job_id}/events", tags=["jobs"], operation_id="job_events", response_class=EventStream,
            responses={
    200: {"content": {"text/event-stream": {"schema": _EVENT_SCHEMA}},
          "description": "server-sent events named 'job', each one's data the job's JSON (as GET /api/jobs/ID), "
                         "at every change until the job is finished; the last event is the finished job"},
    **error_responses(401, 403, 404, 422, beside="text/event-stream")})
async def job_events(job_id: str, state: State, secret: Secret) -> EventStream:
    """Server-sent events: the job's JSON (as ``GET /api/jobs/ID``) at every change, until it
    is finished.  When the server stops, the job is cancelled and the stream ends with it."""
    job = _job(state, job_id, secret)
    return EventStream(_events(state, job), headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})
