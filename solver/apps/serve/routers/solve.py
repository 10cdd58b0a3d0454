"""Solves and jobs: ``POST /api/solve``; ``GET``/``DELETE /api/jobs/ID``; ``GET /api/jobs/ID/events``.

A solve the request can wait for (a best response, a grade, a completion, an equilibrium in the
store) is answered with 200 and exactly what ``quintet-solve --json`` prints; an equilibrium not
in the store, every safe exploitation and every K-mix (``max_support``: always a search)
becomes a job (202 with ``Location``) whose progress the client follows by polling or by
server-sent events, and may cancel.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from quintet.text import quote
from solver.advisor.equilibrium import certified_within, stored_exploitability
from solver.advisor.request import RequestError, SolveRequest
from solver.apps.serve.errors import JsonBodyRoute, error_responses
from solver.apps.serve.jobs import Job
from solver.apps.serve.models import ImmediateAnswerOut, JobOut, KmixProgressOut, ProgressOut, SolveIn
from solver.apps.serve.state import AppState, ServeConfig, app_state

__all__ = ["router", "solve_request_of", "job_out", "echo", "EVENT_INTERVAL", "STOP_GRACE"]

EVENT_INTERVAL = 0.25  # seconds between checks of a job for its event stream
STOP_GRACE = 0.8  # seconds a stream waits, when the server stops, for its cancelled job to finish

router = APIRouter(route_class=JsonBodyRoute)
State = Annotated[AppState, Depends(app_state)]


class EventStream(StreamingResponse):
    media_type = "text/event-stream"


def echo(body: BaseModel) -> dict[str, Any]:
    """A request as its job shows it: the fields the client gave."""
    return body.model_dump(mode="json", exclude_unset=True)


def solve_request_of(body: SolveIn, config: ServeConfig) -> SolveRequest:
    """The solver's request for ``body``, parsed and checked by the one request model
    (``SolveRequest.parse``, files refused: a server never opens a path a client sent), within
    the server's time cap (``ServeConfig.max_time_limit``); ``ValueError`` for bad input."""
    time_limit = body.time_limit
    cap = config.max_time_limit
    if cap is not None:
        for name, value in (("time_limit", body.time_limit), ("verify", body.verify)):
            if value is not None and value > cap:
                raise RequestError(f"{name}: at most {cap:g} seconds on this server, got {value:g}")
        time_limit = cap if time_limit is None else time_limit
    population = None if body.population is None else [
        p if isinstance(p, str) else {"arrangement": p.arrangement, "weight": p.weight} for p in body.population]
    return SolveRequest.parse(
        body.exposed, body.rules.to_rules(), opponent=body.opponent, objective=body.objective, engine=body.engine,
        threads=body.threads, time_limit=time_limit,
        seed=body.seed, epsilon=body.epsilon, fix=body.fix, grade=body.grade, population=population,
        style=body.style, verify=body.verify, max_exploitability=body.max_exploitability,
        max_support=body.max_support, files=False)


def _progress(progress: dict[str, Any]) -> ProgressOut | KmixProgressOut:
    return KmixProgressOut.model_validate(progress) if progress.get("kind") == "kmix" else \
        ProgressOut.model_validate(progress)


def job_out(job: Job) -> JobOut:
    """A job's JSON (``GET /api/jobs/ID``)."""
    return JobOut(job=job.id, status=job.status, request=job.request, elapsed=round(job.elapsed, 3),
                  progress=None if job.progress is None else _progress(job.progress),
                  result=job.result, error=job.error)


def _job(state: AppState, job_id: str) -> Job:
    job = state.pool.get(job_id)
    if job is None:
        raise HTTPException(404, f"no job {quote(job_id)} (unknown, or finished long ago)")
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
             responses={202: {"model": JobOut, "description": "an equilibrium solve, a safe exploitation or a K-mix "
                              "started: follow the job at its Location (its result: any of the answers)",
                              "headers": {"Location": {"description": "/api/jobs/ID", "schema": {"type": "string"}}},
                              "links": _JOB_LINKS},
                        **error_responses(400, 413, 422, 500, 503)})
async def solve(body: SolveIn, state: State) -> Any:
    """``quintet-solve``: the best response to an opponent model, a completion (``fix``),
    a grade (``grade``), the certified equilibrium (``opponent`` ``equilibrium``, the
    default), a safe exploitation (``max_exploitability``) or the least exploitable mix of at
    most K arrangements found (``max_support``).  An equilibrium not in the store, every safe
    exploitation and every K-mix becomes a job (202)."""
    request = solve_request_of(body, state.config)
    long = request.max_exploitability is not None or request.max_support is not None or (
        request.wants_equilibrium and not await run_in_threadpool(_is_stored, state, request))
    job = state.pool.submit(request, lane="long" if long else "quick", request=echo(body))
    if long:
        return JSONResponse(job_out(job).model_dump(mode="json"), status_code=202,
                            headers={"Location": f"/api/jobs/{job.id}"})
    return await state.answer(job)


@router.get("/api/jobs/{job_id}", tags=["jobs"], operation_id="get_job", response_model=JobOut,
            responses=error_responses(404, 422))
async def get_job(job_id: str, state: State) -> JobOut:
    """A job: status (queued, running, cancelling, done, cancelled, failed), progress
    (iteration, certified exploitability so far, seconds), the answer when done."""
    return job_out(_job(state, job_id))


@router.delete("/api/jobs/{job_id}", tags=["jobs"], operation_id="cancel_job", response_model=JobOut,
               responses=error_responses(404, 422))
async def cancel_job(job_id: str, state: State) -> JobOut:
    """Cancel a job: a waiting one at once; a running one stops within a second and keeps its
    best certified mix so far as the result (``interrupted``)."""
    _job(state, job_id)
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
    **error_responses(404, 422, beside="text/event-stream")})
async def job_events(job_id: str, state: State) -> EventStream:
    """Server-sent events: the job's JSON (as ``GET /api/jobs/ID``) at every change, until it
    is finished.  When the server stops, the job is cancelled and the stream ends with it."""
    job = _job(state, job_id)
    return EventStream(_events(state, job), headers={"Cache-Control": "no-cache"})
