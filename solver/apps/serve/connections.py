"""The connections of ``quintet-serve``: uvicorn's HTTP/1.1 protocol (h11) with a time limit on
a request's head.

uvicorn closes a connection that stays idle between requests (``timeout_keep_alive``), but
once a byte of a request has come it waits for the rest of its request line and headers for
ever: a client that sends them a byte at a time holds a connection as long as it likes.
``SlowClientProtocol`` closes a connection whose request head (line and headers, at most
``h11_max_incomplete_event_size`` bytes) is not complete ``header_timeout`` seconds after its
first byte, or after the connection opened.  (A slow body is the application's to time:
``errors.BodyLimit``.)
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from solver.apps.serve.quota import HEADER_TIMEOUT

__all__ = ["SlowClientProtocol", "protocol"]


class SlowClientProtocol(H11Protocol):
    """uvicorn's h11 protocol, closing a connection whose request head takes longer than
    ``header_timeout`` seconds (set by ``protocol``)."""

    header_timeout: float = HEADER_TIMEOUT

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._watch_head()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_watching()
        super().connection_lost(exc)

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


def protocol(header_timeout: float) -> type[SlowClientProtocol]:
    """The protocol class for uvicorn's ``http`` option, with its time limit."""
    return type("SlowClientProtocol", (SlowClientProtocol,), {"header_timeout": header_timeout})
