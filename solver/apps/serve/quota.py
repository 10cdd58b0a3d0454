"""What one client may ask of ``quintet-serve``, and how long it may take to ask: token buckets
per client address for the kinds of request that cost the server (``tables`` created, ``moves`` at a table, ``solves``,
``mixes``), and a bound on the jobs one client has running or waiting in the worker pool.

A bucket holds ``per_minute`` tokens (a burst that size), refilled at ``per_minute`` a minute;
a request takes one token, or is refused with ``TooMany`` (HTTP 429 with ``Retry-After``: the
seconds until a token is back).  0 turns a limit off.  The client is the connection's peer, or
behind a trusted proxy the address it forwarded (``solver.apps.serve.public.client_address``).
The time a request's head and body may take and the connections open at once are limits of
the same kind, for slow clients (``HEADER_TIMEOUT``, ``BODY_TIMEOUT``, ``MAX_CONNECTIONS``…).
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["Limits", "Kind", "TooMany", "RateLimiter", "KINDS", "MAX_CLIENTS", "HEADER_TIMEOUT", "BODY_TIMEOUT",
           "MAX_HEAD_BYTES", "KEEP_ALIVE", "MAX_CONNECTIONS"]

Kind = Literal["tables", "moves", "solves", "mixes"]
KINDS: dict[Kind, str] = {
    "tables": "tables opened",
    "moves": "moves at a table (joins, confirms, next games, rematches)",
    "solves": "solves (best responses, grades, equilibria, draw advice, a table's hints, grades and odds)",
    "mixes": "K-mixes and safe exploitations (a solve each, and a long one)",
}
HEADER_TIMEOUT = 10.0
"""Seconds from a request's first byte (or its connection's start) to the end of its headers
(``solver.apps.serve.connections``: a slower client's connection is closed)."""
BODY_TIMEOUT = 30.0
"""Seconds a request body may take to arrive (408 after)."""
MAX_HEAD_BYTES = 16 * 1024
"""Bytes of a request line and its headers (more: 400)."""
KEEP_ALIVE = 5.0
"""Seconds an idle connection is kept between two requests."""
MAX_CONNECTIONS = 1000
"""Open connections at most, event streams included (more: 503)."""
MAX_CLIENTS = 100_000
"""Clients whose buckets are kept (the least recently seen are forgotten first: a full bucket)."""


class TooMany(Exception):
    """A client over one of its limits (HTTP 429): the message names it, ``retry_after`` in seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


@dataclass(frozen=True)
class Limits:
    """Per client: requests a minute of each kind (0: no limit) and jobs running or waiting at
    once (0: no limit).  The defaults let a person play, solve and explore freely and keep one
    client from taking a public server."""

    tables: int = 20
    moves: int = 600
    solves: int = 60
    mixes: int = 10
    jobs: int = 4

    @classmethod
    def off(cls) -> Limits:
        """No limit at all (tests, a trusted machine)."""
        return cls(0, 0, 0, 0, 0)

    def per_minute(self, kind: Kind) -> int:
        return int(getattr(self, kind))


class RateLimiter:
    """The token buckets of every client (thread-safe)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] | None = None) -> None:
        self.limits = limits
        self._clock = clock or time.monotonic
        self._lock = threading.Lock()
        self._buckets: OrderedDict[tuple[str, Kind], tuple[float, float]] = OrderedDict()  # (tokens, when)

    def take(self, client: str, kind: Kind) -> None:
        """One request of ``kind`` by ``client``: a token taken, or ``TooMany``."""
        rate = self.limits.per_minute(kind)
        if rate <= 0:
            return
        now = self._clock()
        key = (client, kind)
        with self._lock:
            tokens, when = self._buckets.pop(key, (float(rate), now))
            tokens = min(float(rate), tokens + (now - when) * rate / 60.0)
            if tokens < 1.0:
                self._buckets[key] = (tokens, now)
                wait = math.ceil((1.0 - tokens) * 60.0 / rate)
                raise TooMany(f"too many {KINDS[kind].split(' (')[0]} from your address: at most {rate} a minute "
                              f"on this server; try again in {wait} s", wait)
            self._buckets[key] = (tokens - 1.0, now)
            while len(self._buckets) > MAX_CLIENTS:
                self._buckets.popitem(last=False)
