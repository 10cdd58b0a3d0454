"""Tables: Quintet played on ``quintet-serve`` — against the computer, or a friend by a link.

``POST /api/tables`` opens a table (a match of N games) and returns seat 1's secret **token**
and its **link** ``/#play/TABLE/1/TOKEN``; at a friend's table also an **invitation** link
``/#join/TABLE/CODE``, which the friend's page exchanges once for seat 2's own token (``POST
…/join``).  Every other call names its seat by ``Authorization: Bearer TOKEN`` (no token:
401).  Links start with the server's public address (``solver.apps.serve.public``).  The game
and its secrets are the service's (``solver.apps.serve.tables.service``); the service's refusals
get their statuses in ``solver.apps.serve.errors``.

The table's stream is **server-sent events** (``GET /api/tables/ID/events``; the page reads it
with ``fetch`` and a stream reader, as ``EventSource`` cannot send the Authorization header),
with a ``heartbeat`` event every ``--heartbeat-seconds``, which the page answers (``POST
…/alive``): presence from heartbeats both ways (``solver.apps.serve.tables.events``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated, Any, get_args

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.concurrency import run_in_threadpool

from solver.apps.serve.errors import JsonBodyRoute, rate_limit
from solver.apps.serve.models import ErrorOut, GradeOut, SolutionOut, SparseOut
from solver.apps.serve.public import link_warning, public_base
from solver.apps.serve.state import AppState, app_state
from solver.apps.serve.tables.events import LAST_EVENTS, Subscriber
from solver.apps.serve.tables.models import (
    AliveOut,
    ArrangementIn,
    EventKind,
    GradeIn,
    HintIn,
    InvitationOut,
    InvitedOut,
    JoinIn,
    OddsOut,
    ResignIn,
    TableCreatedOut,
    TableEventOut,
    TableIn,
    TableJoinedOut,
    TableView,
)
from solver.apps.serve.tables.service import Links, TableService
from solver.apps.serve.tables.tasks import PlayAction

__all__ = ["router", "NO_TOKEN", "event_stream_schema"]

NO_TOKEN = "a table's calls need its seat's token: send 'Authorization: Bearer TOKEN' (the token of the seat's link)"

router = APIRouter(prefix="/api/tables", tags=["tables"], route_class=JsonBodyRoute)
State = Annotated[AppState, Depends(app_state)]

_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "bad input: an arrangement, cards, an opponent, a seed (one line)"},
    401: {"model": ErrorOut, "description": "no token: send 'Authorization: Bearer TOKEN'"},
    404: {"model": ErrorOut, "description": "no such table, or the token is not one of its seats (the same bytes "
                                            "for both: which tables exist is not told)"},
    413: {"model": ErrorOut, "description": "request body too large"},
    422: {"model": ErrorOut, "description": "malformed request: a wrong JSON type, an unknown field…"},
}
_ERRORS[429] = {"model": ErrorOut, "description": "too many requests from your address (Retry-After)"}
_SEAT_ERRORS: dict[int | str, dict[str, Any]] = {k: _ERRORS[k] for k in (401, 404, 422)}
_MOVE_ERRORS: dict[int | str, dict[str, Any]] = {k: _ERRORS[k] for k in (401, 404, 413, 422, 429)}
_ADVICE_ERRORS: dict[int | str, dict[str, Any]] = {
    **_ERRORS,
    403: {"model": ErrorOut, "description": "hints are off at this table"},
    429: {"model": ErrorOut, "description": "too many requests from your address (Retry-After)"},
    409: {"model": ErrorOut, "description": "not now: confirmed already, or the model is still being prepared"},
    503: {"model": ErrorOut, "description": "the server is busy (Retry-After) or stopping"},
}

_INVITED_ERRORS: dict[int | str, dict[str, Any]] = {
    **{k: _ERRORS[k] for k in (413, 422, 429)},
    404: {"model": ErrorOut, "description": "no such table, or not its invitation (the same bytes for both)"},
    409: {"model": ErrorOut, "description": "the invitation was used already (seat 1 is told)"}}


_bearer = HTTPBearer(auto_error=False, scheme_name="seat token",
                     description="the seat's token (from its link: /#play/TABLE/SEAT/TOKEN)")


def _service(state: State) -> TableService:
    return state.tables


async def _token(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> str:
    if credentials is None:
        raise HTTPException(401, NO_TOKEN, headers={"WWW-Authenticate": "Bearer"})
    return credentials.credentials


def _links(request: Request, state: State) -> Links:
    """Where this request's links start, and the warning that goes with them."""
    base = public_base(state.config.public, request.scope)
    return Links(base, link_warning(base))


Tables = Annotated[TableService, Depends(_service)]
SeatLinks = Annotated[Links, Depends(_links)]
Token = Annotated[str, Depends(_token)]  # the seat's token, checked against the table by ``authenticate``


# ---------------------------------------------------------------------- a table and its seats


@router.post("", status_code=201, response_model=TableCreatedOut, responses={
    **{k: _ERRORS[k] for k in (400, 413, 422, 429)},
    503: {"model": ErrorOut, "description": "the server has its maximum of open tables (Retry-After: seconds "
                                            "until the oldest idle one expires)"}}, openapi_extra=rate_limit("tables"))
def create_table(body: TableIn, tables: Tables, links: SeatLinks, state: State, http: Request) -> TableCreatedOut:
    """Open a table: a match against the computer (one seat) or a friend (two seats).  Your
    seat's token and link are shown once, here; at a friend's table the invitation's link is
    for your friend (GET …/invitation shows it again until they join)."""
    return tables.create(body, links, state.client(http))


@router.post("/{table_id}/join", status_code=201, response_model=TableJoinedOut, responses=_INVITED_ERRORS,
             openapi_extra=rate_limit("moves"))
def join(table_id: str, body: JoinIn, tables: Tables, links: SeatLinks) -> TableJoinedOut:
    """Exchange a friend's table's invitation for seat 2's own token and link (once)."""
    return tables.join(table_id, body.invitation, links)


@router.post("/{table_id}/invited", response_model=InvitedOut, responses=_INVITED_ERRORS,
             openapi_extra=rate_limit("moves"))
def invited(table_id: str, body: JoinIn, tables: Tables) -> InvitedOut:
    """The match an invitation is to, shown before the friend accepts (POST …/join) or declines:
    nothing is taken.  (POST: the code is a secret, kept out of addresses and their logs.)"""
    return tables.invited(table_id, body.invitation)


@router.post("/{table_id}/decline", response_model=InvitedOut, responses=_INVITED_ERRORS,
             openapi_extra=rate_limit("moves"))
def decline(table_id: str, body: JoinIn, tables: Tables) -> InvitedOut:
    """Decline a friend's invitation (the match it is to in the answer): seat 1 is told (a
    'declined' event); it stays valid."""
    return tables.invited(table_id, body.invitation, decline=True)


@router.get("/{table_id}/invitation", response_model=InvitationOut, responses={
    **_SEAT_ERRORS,
    403: {"model": ErrorOut, "description": "the invitation is seat 1's"},
    409: {"model": ErrorOut, "description": "your friend has joined (or the table is against the computer)"}})
def invitation(table_id: str, tables: Tables, token: Token, links: SeatLinks) -> InvitationOut:
    """Seat 1: the invitation's link again, until your friend has joined."""
    return tables.invitation(table_id, tables.authenticate(table_id, token), links)


@router.post("/{table_id}/rematch", response_model=TableView, responses={
    **_MOVE_ERRORS, 409: {"model": ErrorOut, "description": "the match is not over yet"}},
    openapi_extra=rate_limit("moves"))
def rematch(table_id: str, tables: Tables, token: Token) -> TableView:
    """Ask for the next match once this one is over: against the computer it starts at once;
    with a friend once both seats have asked.  Both keep their tokens and links."""
    seat = tables.authenticate(table_id, token)
    return tables.rematch(table_id, seat)


@router.post("/{table_id}/resign", response_model=TableView, responses={
    **_MOVE_ERRORS, 409: {"model": ErrorOut, "description": (
        "the match is over already (and you do not leave); scope game: your game is not being placed")}},
    openapi_extra=rate_limit("moves"))
def resign(table_id: str, tables: Tables, token: Token, body: ResignIn | None = None) -> TableView:
    """Give the current match up: aborted before its first game is over (no result), else
    resigned (the other side wins it); the other seat is told.  With leave, you leave the table
    too.  With scope game, only your current game, before its show-down: it is lost in every slot
    (the other side scores all of its points) and the match goes on."""
    seat = tables.authenticate(table_id, token)
    body = body or ResignIn()
    return tables.resign(table_id, seat, body.leave, body.scope)


@router.post("/{table_id}/alive", response_model=AliveOut, responses=_MOVE_ERRORS, openapi_extra=rate_limit("moves"))
def alive(table_id: str, tables: Tables, token: Token) -> AliveOut:
    """Your page answers a heartbeat of its event stream: your seat is present.  A seat whose
    stream is open but that answers no heartbeat for a while (``LOST_AFTER`` of them) has lost
    its connection: the other seat's presence says so until it is heard from again."""
    tables.authenticate(table_id, token)
    return AliveOut(heartbeat=tables.events.heartbeat, silence=tables.events.silence)


@router.get("/{table_id}", response_model=TableView, responses=_SEAT_ERRORS)
def get_table(table_id: str, tables: Tables, token: Token) -> TableView:
    """Your seat's view: the game, the deal, your arrangement, the other side's confirm and
    commitment, the show-down once both have confirmed, the match."""
    return tables.view(table_id, tables.authenticate(table_id, token))


@router.post("/{table_id}/arrangement", response_model=TableView, responses={
    **_ERRORS, 409: {"model": ErrorOut, "description": "already confirmed, or the game is not ready"}},
    openapi_extra=rate_limit("moves"))
def confirm(table_id: str, body: ArrangementIn, tables: Tables, token: Token) -> TableView:
    """Confirm your arrangement for your current game (final)."""
    seat = tables.authenticate(table_id, token)
    return tables.confirm(table_id, seat, body.arrangement)


@router.post("/{table_id}/next", response_model=TableView, responses={
    **_MOVE_ERRORS, 409: {"model": ErrorOut, "description": "the game is not shown down, or the match is over"}},
    openapi_extra=rate_limit("moves"))
def next_game(table_id: str, tables: Tables, token: Token) -> TableView:
    """Move to the next game once the show-down is there."""
    seat = tables.authenticate(table_id, token)
    return tables.next_game(table_id, seat)


@router.get("/{table_id}/records", responses={
    200: {"content": {"application/x-ndjson": {"schema": {"type": "string"}}},
          "description": "one JSON line per finished game, as quintet-play --record writes them (you are "
                         "'player', the other side 'computer')"},
    **_SEAT_ERRORS})
def records(table_id: str, tables: Tables, token: Token) -> Response:
    """Your finished games as JSON lines (a game appears once its regret is computed)."""
    lines = [json.dumps(r, ensure_ascii=True, separators=(", ", ": ")) + "\n"
             for r in tables.records(table_id, tables.authenticate(table_id, token))]
    return Response("".join(lines), media_type="application/x-ndjson",
                    headers={"Content-Disposition": f'attachment; filename="quintet-{table_id[:8]}.jsonl"'})


# ---------------------------------------------------------------------- the events


_EVENTS_DESCRIPTION = "server-sent events: 'event: KIND', 'data: ' a TableEventOut"


def event_stream_schema(spec: dict[str, Any]) -> dict[str, Any]:
    """The OpenAPI description with the table's event stream described as it is sent: each event
    an ``event`` name and a ``data`` line holding a ``TableEventOut`` (a component like the
    others, so that every reference resolves)."""
    response = spec["paths"]["/api/tables/{table_id}/events"]["get"]["responses"]["200"]
    ref = response["content"].pop("application/json")["schema"]["$ref"]
    response["content"]["text/event-stream"] = {"schema": {
        "type": "object", "required": ["event", "data"], "additionalProperties": False,
        "description": "one server-sent event",
        "properties": {
            "event": {"type": "string", "enum": list(get_args(EventKind))},
            "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": {"$ref": ref}},
        }}}
    return spec


@router.get("/{table_id}/events", responses={
    200: {"model": TableEventOut, "description": _EVENTS_DESCRIPTION},
    **_SEAT_ERRORS})
async def events(table_id: str, tables: Tables, token: Token) -> StreamingResponse:
    """The table's events for your seat (server-sent events; the first is your view; a heartbeat
    every few seconds, which your page answers with POST …/alive)."""
    sub = Subscriber(0, asyncio.Queue(), asyncio.get_running_loop())

    def subscribe() -> str:
        sub.seat = tables.authenticate(table_id, token)
        return tables.subscribe(table_id, sub)

    first = await run_in_threadpool(subscribe)
    every = tables.events.heartbeat
    beat = f"event: heartbeat\ndata: {tables.events.beat()}\n\n"

    async def stream() -> AsyncIterator[str]:
        loop = asyncio.get_running_loop()
        try:
            yield f"event: view\ndata: {first}\n\n"
            due = loop.time() + every  # heartbeats at a fixed pace, whatever else is sent
            while True:
                try:
                    kind, data = await asyncio.wait_for(sub.queue.get(), timeout=max(0.0, due - loop.time()))
                except TimeoutError:
                    due = loop.time() + every
                    yield beat
                    continue
                yield f"event: {kind}\ndata: {data}\n\n"
                if kind in LAST_EVENTS:
                    return
        finally:
            tables.unsubscribe(table_id, sub)

    return StreamingResponse(stream(), media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


# ---------------------------------------------------------------------- advice


async def _advise(state: AppState, http: Request, table_id: str, token: str, action: PlayAction,
                  **given: Any) -> Any:
    """A seat's advice: a quick-lane job of the worker pool (its client's), its answer once done."""
    tables = state.tables

    def task_for() -> tuple[int, Any, int]:
        seat = tables.authenticate(table_id, token)
        return (seat, *tables.advice_task(table_id, seat, action, **given))

    seat, task, game = await run_in_threadpool(task_for)
    client = state.take(http, "mixes") if given.get("max_support") is not None else state.client(http)
    job = tables.pool.submit(task, lane="quick", request={"table": "(a seat's advice)"}, owner=client)
    result = await state.answer(job, http)
    used = action if given.get("max_support") is None else f"hint {given['max_support']}"  # as quintet-play
    await run_in_threadpool(tables.advice_used, table_id, seat, game, used)
    return result


@router.post("/{table_id}/hint", openapi_extra=rate_limit("solves"),
             response_model=SolutionOut | SparseOut, responses=_ADVICE_ERRORS)
async def hint(table_id: str, state: State, token: Token, http: Request, body: HintIn | None = None) -> Any:
    """quintet-play's 'hint': the best completion of the slots you have placed (none: the best
    arrangement) against the computer's model — at a friend's table, the deal's equilibrium;
    with ``max_support`` K, 'hint K': the K-mix of the deal's equilibrium (a SparseOut)."""
    body = body or HintIn()
    return await _advise(state, http, table_id, token, "hint", slots=dict(body.slots), max_support=body.max_support)


@router.post("/{table_id}/grade", openapi_extra=rate_limit("solves"), response_model=GradeOut, responses=_ADVICE_ERRORS)
async def grade(table_id: str, body: GradeIn, state: State, token: Token, http: Request) -> Any:
    """quintet-play's 'grade': value, regret and best two-card swap of five packets (not confirmed)."""
    return await _advise(state, http, table_id, token, "grade", arrangement=body.arrangement)


@router.post("/{table_id}/odds", openapi_extra=rate_limit("solves"), response_model=OddsOut, responses=_ADVICE_ERRORS)
async def odds(table_id: str, state: State, token: Token, http: Request) -> Any:
    """quintet-play's 'odds': per slot, the hands the model plays there and their odds."""
    return await _advise(state, http, table_id, token, "odds")
