"""The HTTP API's errors: every one a one-line ``{"error": …}`` (``ErrorOut``) with its status.

* ``400`` — bad input that is well-formed JSON of the right types: cards, arrangements,
  opponents, rule sets, options that do not go together (the command lines' words);
* ``404`` — no such endpoint, no such job; ``405`` — a method the path does not allow (with
  ``Allow`` listing those it does);
* ``401`` — a call about a job (or a table) without its secret;
* ``408`` — a body that took longer than the server's limit to arrive (``ServeConfig.body_timeout``);
* ``413`` — a body over the server's limit (by its Content-Length, or while it is read);
  ``431`` — a request line and headers over the server's limit (``guard``);
* ``422`` — a malformed request: a body that is not JSON (wrong Content-Type, not UTF-8, not
  valid JSON, nested too deeply), a wrong JSON type, a number out of its range, an unknown or
  missing field — naming the field;
* ``429`` — the client is over one of its limits (``solver.apps.serve.quota``; with ``Retry-After``);
* ``503`` — the queue is full (with ``Retry-After``) or the server is stopping;
* ``503`` also for a task that ran past its time limit and did not stop (``jobs.PastLimit``);
* ``500`` — only for a fault of the server itself: a ``quintet.faults.Fault`` (a store or
  tables file that cannot be used, a worker process that died, an engine that broke its
  contract), named in one line without the server's paths; anything unforeseen (a bug: a bare
  ``ValueError`` too) is the fixed line ``internal error (id …)``, its traceback in the
  server's log under that id (``worker.log_bug``) — never the exception's own words.

The kinds have one base each: the client's mistakes derive from ``quintet.faults.InputError``
(and request validation: 422) — the only errors answered 400; the server's faults derive from
``Fault`` — a broken store is never "bad input"; a table's refusals (``TableError``) carry
their status.

A message is one line of at most ``quintet.text.MESSAGE_LIMIT`` characters and quotes at most
about ``quintet.text.QUOTE_LIMIT`` characters of what the client sent.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Callable, Coroutine, Iterable, Sequence
from typing import Any

import numpy as np
from anyio import CapacityLimiter, to_thread
from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import BaseRoute, Match, Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from quintet.faults import Fault, InputError
from quintet.text import QUOTE_LIMIT, one_line
from solver.apps.serve.jobs import Bug, Unavailable
from solver.apps.serve.models import ErrorOut
from solver.apps.serve.quota import TooMany
from solver.apps.serve.tables.errors import TableError
from solver.apps.serve.worker import log_bug

__all__ = ["MAX_BODY_BYTES", "MAX_JSON_DEPTH", "MAX_JSON_VALUES", "BodyError", "BodyLimit", "JsonBodyRoute",
           "check_json_body", "rate_limit",
           "error_response", "error_responses", "install_error_handlers", "validation_message"]

MAX_BODY_BYTES = 1 << 20
MAX_JSON_DEPTH = 32
"""Nesting levels of a request body (a full game record inside ``style`` needs 8)."""
MAX_JSON_VALUES = 200_000
"""Values in a request body (500 game records, the most ``/api/stats`` takes: about 110,000)."""
INLINE_BODY_BYTES = 64 * 1024
"""A body larger than this is parsed and validated in a thread, not in the event loop."""
BODY_THREADS = 2
"""Large bodies parsed at once (the others wait their turn; the server's other threads stay free)."""
_BODY_THREADS = CapacityLimiter(BODY_THREADS)

DESCRIPTIONS = {
    400: "bad input: cards, arrangement, opponent, rule set, options that do not go together",
    401: "no secret: send 'Authorization: Bearer SECRET' (the job's, from its 202 answer)",
    403: "the solver API is off on this server (quintet-serve --play-only)",
    404: "no such job (unknown, or finished long ago), or not its secret (the same bytes for both)",
    413: "the request body is larger than the server's limit",
    422: "malformed request: not JSON, a wrong JSON type, a number out of range, an unknown or missing field",
    429: "too many requests from your address (its limit per minute, or its solves at once): retry after the "
         "Retry-After header's seconds",
    500: "a fault of the server itself (its store cannot be used, a worker process died…), in one line",
    503: "the queue is full (retry after the Retry-After header's seconds) or the server is stopping",
}


def error_responses(*codes: int, beside: str | None = None) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` entries: ``ErrorOut`` (JSON) for each status code.  ``beside``:
    the route's own media type when it is not JSON (the errors are JSON all the same)."""
    if beside is None:
        return {code: {"model": ErrorOut, "description": DESCRIPTIONS[code]} for code in codes}
    content = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorOut"}}}
    return {code: {"content": content, "description": DESCRIPTIONS[code]} for code in codes}


def error_response(status: int, message: object, headers: dict[str, str] | None = None) -> JSONResponse:
    """The one error body: ``{"error": one line}``."""
    return JSONResponse(ErrorOut(error=one_line(message) or "error").model_dump(), status_code=status,
                        headers=headers)


def _cut(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as it is, or cut to about ``limit`` characters with its length."""
    return text if len(text) <= limit else f"{text[:limit - 4]}… ({len(text):,} characters)"


# ---------------------------------------------------------------------- request bodies


class BodyError(Exception):
    """A request body that is not a JSON document the API reads (422)."""


class _BodyTooLarge(StarletteHTTPException):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body is larger than {limit:,} bytes")


class _BodyTooSlow(StarletteHTTPException):
    def __init__(self, seconds: float) -> None:
        super().__init__(408, f"the request body took longer than {seconds:g} seconds to arrive")


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413 (by its Content-Length
    at once, or while it is read); one that takes longer than ``timeout`` seconds to arrive
    gets 408."""

    def __init__(self, app: ASGIApp, limit: int, timeout: float) -> None:
        self.app = app
        self.limit = limit
        self.timeout = timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope["headers"]).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.limit:
            await error_response(413, _BodyTooLarge(self.limit).detail)(scope, receive, send)
            return
        seen = 0
        deadline: float | None = None
        complete = False

        async def limited() -> Message:
            nonlocal seen, deadline, complete
            if complete:  # the body is in: what follows is the client's disconnect, whenever it comes
                return await receive()
            loop = asyncio.get_running_loop()
            deadline = deadline or loop.time() + self.timeout
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                raise _BodyTooSlow(self.timeout) from None
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise _BodyTooLarge(self.limit)
                complete = not message.get("more_body", False)
            return message

        await self.app(scope, limited, send)


def _scan(body: bytes) -> None:
    """Refuse, on its bytes and before it is parsed, a body nested deeper than ``MAX_JSON_DEPTH``,
    holding more than ``MAX_JSON_VALUES`` values (commas and containers outside strings), or
    whose top level is an array (every body of the API is an object).  Vectorised: about 10 ms
    a megabyte, whatever the body holds."""
    a = np.frombuffer(body, np.uint8)
    quote = a == 0x22
    if b"\\" in body:  # a quote after an odd run of backslashes is text, not a string's end
        at = np.arange(len(a), dtype=np.int32)
        run = at - np.maximum.accumulate(np.where(a == 0x5C, -1, at))  # backslashes ending at each byte
        quote[1:] &= (run[:-1] & 1) == 0
    outside = a[(np.cumsum(quote, dtype=np.int32) & 1) == 0]  # a string's opening quote counts as inside
    step = _STEP[outside]
    if len(step) and int(np.cumsum(step, dtype=np.int32).max()) > MAX_JSON_DEPTH:
        raise BodyError(f"request body is nested too deeply (at most {MAX_JSON_DEPTH} levels)")
    values = int(np.count_nonzero(outside == 0x2C)) + int(np.count_nonzero(step == 1))
    if values > MAX_JSON_VALUES:
        raise BodyError(f"request body holds {values:,} values, more than the {MAX_JSON_VALUES:,} allowed")
    if _ARRAY.match(body):
        raise BodyError("request body must be a JSON object")


_ARRAY = re.compile(rb"[ \t\r\n]*\[")
_STEP = np.zeros(256, np.int8)
_STEP[[0x5B, 0x7B]] = 1  # [ {
_STEP[[0x5D, 0x7D]] = -1  # ] }
_ESCAPED_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def _lone_surrogate(document: Any) -> tuple[str, str] | None:
    """The first text of ``document`` (a key or a string value) holding a lone surrogate, which
    is not text: (its field's path, the surrogate escaped); None if there is none."""
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                where = f"{path}.{key}" if path else str(key)
                if _surrogate(key):
                    return f"a key of {path or 'the request body'}", _surrogate(key)
                stack.append((item, where))
        elif isinstance(value, list):
            stack.extend((item, f"{path}.{i}" if path else str(i)) for i, item in reversed(list(enumerate(value))))
        elif isinstance(value, str) and _surrogate(value):
            return (path or "request body"), _surrogate(value)
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")


def _surrogate(text: str) -> str:
    """The first lone surrogate of ``text``, escaped (\\udXXX); "" if none."""
    found = _SURROGATE.search(text)
    return "" if found is None else f"\\u{ord(found.group()):04x}"


def check_json_body(body: bytes, content_type: str | None) -> Any:
    """The JSON document of a non-empty body (None for an empty one: the endpoint's model says
    what is missing), or ``BodyError`` naming the problem: another Content-Type, bytes that are
    not UTF-8, an array, too deep or too many values (``_scan``, before parsing), text that is
    not JSON (``NaN`` and ``Infinity`` are read, so that the field that holds one is named), a
    number of too many digits, a string with a lone surrogate (``"\\ud800"`` is valid JSON but
    no text: named by its field)."""
    if not body:
        return None
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media != "application/json" and not (media.startswith("application/") and media.endswith("+json")):
        shown = f"Content-Type {_cut(media, 40)!r}" if media else "no Content-Type"
        raise BodyError(f"request body must be JSON (Content-Type: application/json), got {shown}")
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BodyError(f"request body is not UTF-8 (byte 0x{body[exc.start]:02x} at offset {exc.start:,})") from None
    _scan(body)
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BodyError(f"request body is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:
        raise BodyError(f"request body is nested too deeply (at most {MAX_JSON_DEPTH} levels)") from None
    except ValueError:  # an integer literal of more digits than Python converts
        raise BodyError("request body holds a number with too many digits") from None
    lone = _lone_surrogate(document) if _ESCAPED_SURROGATE.search(body) else None  # none without an escape
    if lone is not None:
        where, escaped = lone
        raise BodyError(f"{_cut(where, 60)}: a lone surrogate ({escaped}) is not text: send Unicode text")
    return document


def rate_limit(kind: str) -> dict[str, Any]:
    """A POST route's ``openapi_extra``: the client's bucket (``quota.KINDS``) its request takes a
    token of before its body is read (shown in the OpenAPI description as ``x-rate-limit``)."""
    return {"x-rate-limit": kind}


class JsonBodyRoute(APIRoute):
    """A route whose body must be a JSON document (``check_json_body``) before FastAPI reads it:
    every malformed body is a 422 naming the problem — a route that takes no body too, so that
    no route of the API takes what a form of another site could send (``text/plain``).

    A POST route takes a token of its client's bucket (``rate_limit``) first, before its body
    is read; a body over ``INLINE_BODY_BYTES`` is parsed and validated against the route's
    model in a thread (at most ``BODY_THREADS`` at once), never in the event loop."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None and not (self.methods or set()) - {"GET", "HEAD"}:
            return handler
        kind = (self.openapi_extra or {}).get("x-rate-limit")
        if kind is None and "POST" in (self.methods or set()):
            raise TypeError(f"POST {self.path}: every POST route declares its rate limit (openapi_extra=rate_limit(…))")
        field = self.body_field

        def read(body: bytes, content_type: str | None) -> Any:
            document = check_json_body(body, content_type)
            if field is not None and document is not None:
                _, errors = field.validate(document, loc=("body",))
                if errors:
                    raise RequestValidationError(errors)
            return document

        async def checked(request: Request) -> Response:
            if kind is not None:
                request.app.state.quintet.take(request, kind)
            try:
                body = await request.body()
            except ClientDisconnect:
                raise BodyError("the request body was cut short (the client disconnected)") from None
            content_type = request.headers.get("content-type")
            if len(body) > INLINE_BODY_BYTES:
                document = await to_thread.run_sync(read, body, content_type, limiter=_BODY_THREADS)
            else:
                document = check_json_body(body, content_type)
            if document is not None:
                request._json = document  # FastAPI reads it from here: the body is parsed once
            return await handler(request)

        return checked


# ---------------------------------------------------------------------- validation errors

_LOCATIONS = ("body", "query", "path", "header", "cookie")


def _path(loc: tuple[Any, ...]) -> str:
    """A field path from pydantic's location, without the location and union member tags."""
    parts = []
    for i, p in enumerate(loc):
        if i == 0 and p in _LOCATIONS:
            continue
        if isinstance(p, int) or (isinstance(p, str) and (p.isidentifier() and p[:1].islower() or p.isdigit())):
            parts.append(str(p))
    return ".".join(parts)


def _shown(value: object) -> str:
    return _cut(json.dumps(value, ensure_ascii=False))


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
        return f"unknown field {_cut(where)!r}"
    text = msg[:1].lower() + msg[1:]
    value = e.get("input")
    if loc[:1] in (("query",), ("path",)) and isinstance(value, str):
        text += f", got {_cut(value)}"  # a query's values are all text: shown as typed
    elif kind not in ("cards_type", "arrangement_type", "cards_length") and isinstance(value, (str, int, float, bool)):
        text += f", got {_shown(value)}"
    return f"{where}: {text}" if where else text


# ---------------------------------------------------------------------- the handlers

def allowed_methods(routes: Iterable[BaseRoute], scope: Scope) -> list[str]:
    """The methods of every route whose path matches the request's (the ``Allow`` of a 405)."""
    methods: set[str] = set()
    for route in routes:
        match, _ = route.matches(scope)
        if match == Match.NONE:
            continue
        if isinstance(route, Mount):
            methods |= {"GET", "HEAD"}
        else:
            methods |= set(getattr(route, "methods", None) or ())
    order = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]
    return sorted(methods, key=lambda m: (order.index(m) if m in order else len(order), m))


def install_error_handlers(app: FastAPI, routes: Sequence[BaseRoute]) -> None:
    """Every error the application sends goes through these: ``ErrorOut``, one line.  ``routes``
    are every route of the application (a 405's ``Allow`` lists the methods of those whose path
    matches)."""

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, validation_message(list(exc.errors())))

    @app.exception_handler(BodyError)
    async def _body(_: Request, exc: BodyError) -> JSONResponse:
        return error_response(422, str(exc))

    @app.exception_handler(ValidationError)
    async def _model_fault(request: Request, exc: ValidationError) -> JSONResponse:
        return await _fault(request, exc)  # the server's own data did not fit its models: a fault

    @app.exception_handler(InputError)
    async def _bad_input(_: Request, exc: InputError) -> JSONResponse:
        return error_response(400, str(exc) or type(exc).__name__)

    @app.exception_handler(Unavailable)
    async def _unavailable(_: Request, exc: Unavailable) -> JSONResponse:
        retry = None if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
        return error_response(503, str(exc), headers=retry)

    @app.exception_handler(TooMany)
    async def _too_many(_: Request, exc: TooMany) -> JSONResponse:
        return error_response(429, str(exc), headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(TableError)
    async def _table(_: Request, exc: TableError) -> JSONResponse:
        retry = None if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
        return error_response(exc.status, str(exc), headers=retry)

    @app.exception_handler(Fault)
    async def _server_fault(_: Request, exc: Fault) -> JSONResponse:
        print(f"quintet-serve: {type(exc).__name__}: {one_line(exc)}", file=sys.stderr)  # the log keeps the path
        return error_response(500, f"internal error: {exc.public}")

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        headers = dict(getattr(exc, "headers", None) or {})
        where = f"{_cut(request.method, 20)} {_cut(request.url.path)}"
        if exc.status_code == 404 and exc.detail == "Not Found":
            message = f"no such page or endpoint: {where}"
        elif exc.status_code == 405:
            message = f"method {_cut(request.method, 20)} is not allowed on {_cut(request.url.path)}"
            headers["Allow"] = ", ".join(allowed_methods(routes, request.scope))
        else:
            message = str(exc.detail)
        return error_response(exc.status_code, message, headers=headers or None)

    @app.exception_handler(Bug)
    async def _worker_bug(_: Request, exc: Bug) -> JSONResponse:
        return error_response(500, str(exc))  # logged by its worker, under the id it names

    @app.exception_handler(Exception)
    async def _fault(request: Request, exc: Exception) -> JSONResponse:
        return error_response(500, log_bug(exc, f"{request.method} {request.url.path}"))
