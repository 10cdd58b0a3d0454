"""The connections of ``quintet-serve``: uvicorn's HTTP/1.1 protocol (h11) with a time limit on
a request's head, a bound on each client's connections, and the server's own answers with the
security headers.

uvicorn closes a connection that stays idle between requests (``timeout_keep_alive``), but
once a byte of a request has come it waits for the rest of its request line and headers for
ever: a client that sends them a byte at a time holds a connection as long as it likes.
``SlowClientProtocol`` closes a connection whose request head (line and headers, at most
``h11_max_incomplete_event_size`` bytes) is not complete ``header_timeout`` seconds after its
first byte, or after the connection opened.  (A slow body is the application's to time:
``errors.BodyLimit``.)

A peer that is not a trusted proxy has at most ``Limits.connections`` connections open at once,
idle and half-open ones included (``quota.client_key``: an IPv6 peer by its network): one more
is closed as soon as it opens, unanswered (it has asked nothing).  Behind a proxy, the
application counts each client's requests in flight instead (``guard``).  Every request carries
the number of connections the server has open (``guard.OPEN_CONNECTIONS``): past
``--max-connections`` the application answers 503.  The 400 uvicorn sends for a request h11
cannot read (a malformed request line, two ``Host`` headers) is the API's one-line JSON error,
with the security headers.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from solver.apps.serve.guard import OPEN_CONNECTIONS, SECURITY_HEADERS
from solver.apps.serve.public import Public
from solver.apps.serve.quota import HEADER_TIMEOUT, Counter, Limits, client_key

__all__ = ["SlowClientProtocol", "protocol", "MALFORMED"]

MALFORMED = "the request could not be read as HTTP/1.1 (a malformed request line or headers, two Host headers…)"


class SlowClientProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head takes longer than
    ``header_timeout`` seconds, and a peer's connections past ``peers.limit`` (set by ``protocol``)."""

    header_timeout: float = HEADER_TIMEOUT
    public: Public = Public()
    ipv6_prefix: int = Limits().ipv6_prefix
    peers: Counter = Counter(0)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None
        self._peer: str | None = None
        app = self.app

        async def counted(scope: Any, receive: Any, send: Any) -> None:
            scope["extensions"] = {**(scope.get("extensions") or {}), OPEN_CONNECTIONS: len(self.connections)}
            await app(scope, receive, send)

        self.app = counted

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        if address is not None and not self.public.trusts(address):
            peer = client_key(address, self.ipv6_prefix)
            if not self.peers.enter(peer):
                transport.close()  # the peer has its most connections open: this one asked nothing yet
                return
            self._peer = peer
        self._watch_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_watching()
        if self._peer is not None:
            self.peers.leave(self._peer)
            self._peer = None
        super().connection_lost(exc)

    def send_400_response(self, msg: str) -> None:
        """uvicorn's answer to a request h11 cannot read: the API's error, with its headers."""
        body = json.dumps({"error": MALFORMED}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close"), (b"cache-control", b"no-store"),
                   *((name.encode(), value.encode()) for name, value in SECURITY_HEADERS.items())]
        for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body),
                      h11.EndOfMessage()):
            try:
                self.transport.write(self.conn.send(event))
            except h11.LocalProtocolError:  # h11 cannot answer in its state: nothing more to send
                break
        self.transport.close()

    def _watch_head(self) -> None:
        """A request head is being read (the peer is IDLE in h11's terms): time it; else stop."""
        reading = self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE
        if reading and self._head_timer is None and not self.transport.is_closing():
            self._head_timer = self.loop.call_later(self.header_timeout, self._too_slow)
        elif not reading:
            self._stop_watching()

    def _stop_watching(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _too_slow(self) -> None:
        self._head_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()  # nothing was asked: no answer is owed


def protocol(header_timeout: float, public: Public | None = None, limits: Limits | None = None
             ) -> type[SlowClientProtocol]:
    """The protocol class for uvicorn's ``http`` option: its time limit, the proxies whose
    connections are not counted per peer, and each peer's most connections (``limits``)."""
    limits = limits or Limits()
    return type("SlowClientProtocol", (SlowClientProtocol,), {
        "header_timeout": header_timeout, "public": public or Public(), "ipv6_prefix": limits.ipv6_prefix,
        "peers": Counter(limits.connections)})
