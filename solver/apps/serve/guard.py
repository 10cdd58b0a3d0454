"""What every request passes and every response carries, in one ASGI middleware (``Guard``):

* **the head's size** — a request line and headers over ``MAX_HEAD_BYTES`` get ``431``;
* **connections** — past ``max_connections`` open on the server (``connections`` counts them
  for each request) a request gets ``503``; past ``Limits.connections`` requests in flight of
  one client (event streams included: behind a proxy, its connections) ``429``;
* **the host** — a request whose host (after a trusted proxy's, ``solver.apps.serve.public``)
  is not one the server answers to is refused with ``400`` (a DNS-rebinding page cannot reach
  a server on this machine through a name of its own);
* **cross-site requests** — a request that changes state (any method but GET, HEAD, OPTIONS)
  sent by a page of another site is refused with ``403``: its ``Origin`` must be the server's
  own (or one of ``--cors-origin``), and without ``Origin`` its ``Sec-Fetch-Site`` must be
  ``same-origin`` or ``none`` (a client that sends neither — curl, a script — is not a
  browser page).  Bodies that a form could send (``text/plain``, form types) are refused by
  the body checks (``errors.JsonBodyRoute``, 422), every route alike;
* **the root path** — under ``--root-path /quintet`` a request for ``/quintet/…`` is the
  request for ``/…`` (a proxy that does not strip the prefix);
* **headers on every response** — a ``Content-Security-Policy`` that allows the page's own
  scripts and styles only (no inline script, no other origin, no framing), ``X-Content-Type-
  Options: nosniff``, ``Referrer-Policy: no-referrer``, ``X-Frame-Options: DENY``,
  ``Cross-Origin-Opener-Policy`` and ``-Resource-Policy``; ``Cache-Control: no-store`` on every
  answer of the API that does not say otherwise (seat views, tokens, job secrets).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from solver.apps.serve.public import Public, PublicError, client_address, request_origin
from solver.apps.serve.quota import MAX_CONNECTIONS, MAX_HEAD_BYTES, Counter, Limits, client_key

__all__ = ["Guard", "SECURITY_HEADERS", "CROSS_SITE", "SAFE_METHODS", "OPEN_CONNECTIONS"]

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
       "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS: dict[str, str] = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")
OPEN_CONNECTIONS = "quintet.connections"
"""The scope's extension that says how many connections the server has open (``connections``)."""
CROSS_SITE = ("a request from a page of another site ({what}) is refused: the server's calls that change "
              "anything answer its own page only (an operator may allow an origin with --cors-origin)")


def _header(scope: Mapping[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


class Guard:
    """The middleware (see the module doc).  ``public``: the server's address and host names;
    ``error(status, message, headers)``: the ASGI response of one error (``errors.error_response``);
    ``limits``: a client's connections and how clients are keyed; ``max_connections``: the server's."""

    def __init__(self, app: ASGIApp, public: Public, error: Any, limits: Limits | None = None,
                 max_connections: int = MAX_CONNECTIONS) -> None:
        self.app = app
        self.public = public
        self.error = error
        self.limits = limits or Limits()
        self.max_connections = max_connections
        self.in_flight = Counter(self.limits.connections)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        root = self.public.root_path
        if root and not scope.get("root_path"):
            scope = dict(scope, root_path=root)  # Starlette routes /root/… as /… and builds its URLs under it
        api = (scope["path"][len(root):] if root and scope["path"].startswith(root + "/") else scope["path"])
        api_call = api.startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                for name, value in SECURITY_HEADERS.items():
                    if name.encode() not in present:
                        headers.append((name.encode(), value.encode()))
                if api_call and b"cache-control" not in present:
                    headers.append((b"cache-control", b"no-store"))
                message = dict(message, headers=headers)
            await send(message)

        refusal = self._refusal(scope)
        if refusal is not None:
            retry = {"Retry-After": "5"} if refusal[0] == 503 else None
            await self.error(*refusal, retry)(scope, receive, send_with_headers)
            return
        client = client_key(client_address(self.public, scope), self.limits.ipv6_prefix)
        if not self.in_flight.enter(client):
            await self.error(429, f"your address has {self.in_flight.limit} requests open at once (event streams "
                             "included), the most one client may have on this server: close one",
                             {"Retry-After": "5"})(scope, receive, send_with_headers)
            return
        try:
            await self.app(scope, receive, send_with_headers)
        finally:
            self.in_flight.leave(client)

    def _refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, message) of a request the server does not answer, or None."""
        connections = (scope.get("extensions") or {}).get(OPEN_CONNECTIONS, 0)
        if connections > self.max_connections:
            return 503, f"the server has its maximum of {self.max_connections:,} open connections; try again shortly"
        head = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"") + sum(
            len(k) + len(v) + 4 for k, v in scope.get("headers", ()))
        if head > MAX_HEAD_BYTES:
            return 431, f"the request's line and headers hold {head:,} bytes, more than the {MAX_HEAD_BYTES:,} allowed"
        try:
            origin = request_origin(self.public, scope)
        except PublicError as exc:
            return 400, str(exc)
        if not self.public.host_allowed(origin.host):
            shown = origin.host if len(origin.host) <= 60 else origin.host[:57] + "…"
            return 400, (f"this server does not answer to the host {shown!r}: open it by its own address (an operator "
                         "adds names with --allowed-hosts or --public-url)")
        if scope["method"] in SAFE_METHODS:
            return None
        sent_origin = _header(scope, b"origin")
        if sent_origin is not None:
            allowed = {origin.origin, *self.public.cors_origins}
            if self.public.public_origin:
                allowed.add(self.public.public_origin)
            if sent_origin.lower().rstrip("/") not in allowed:
                shown = sent_origin if len(sent_origin) <= 60 else sent_origin[:57] + "…"
                if sent_origin.lower().split("://")[-1].split(":")[0] == origin.host.lower().split(":")[0]:
                    return 403, (f"the page's origin {shown!r} is not the server's own {origin.origin!r}: behind a "
                                 "proxy, give --public-url, or let the proxy send X-Forwarded-Proto and -Host from a "
                                 "--trusted-proxies address")
                return 403, CROSS_SITE.format(what=f"Origin {shown!r}")
            return None
        site = _header(scope, b"sec-fetch-site")
        if site is not None and site.lower() not in ("same-origin", "none"):
            return 403, CROSS_SITE.format(what=f"Sec-Fetch-Site {site[:20]!r}")
        return None
