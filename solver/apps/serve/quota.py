"""What one client may ask of ``quintet-serve``, and how long it may take to ask: token buckets
per client for the kinds of request that cost the server (``tables`` created, ``moves`` at a
table, ``solves``, ``mixes``, ``checks``), a bound on the jobs one client has running or waiting in
the worker pool (a table's preparation is its creator's), and on its connections open at once.

A bucket holds ``per_minute`` tokens (a burst that size), refilled at ``per_minute`` a minute;
a request takes one token before its body is read, or is refused with ``TooMany`` (HTTP 429
with ``Retry-After``: the seconds until a token is back).  0 turns a limit off.

**The client** is the connection's peer, or behind a trusted proxy the address it forwarded
(``solver.apps.serve.public.client_address``), keyed by ``client_key``: an IPv4 address, or
the IPv6 network of ``ipv6_prefix`` bits (a /64 by default: one subscriber's addresses are one
client).  The bucket table holds ``MAX_CLIENTS`` clients; a new one takes the place of a client
unseen for a minute (whose buckets are full again: nothing is lost), or when there is none,
shares the buckets of every such newcomer (``NEWCOMERS``): rotating addresses cannot evict the
buckets of the clients the server is counting.

The time a request's head and body may take and the connections open at once are limits of
the same kind, for slow clients (``HEADER_TIMEOUT``, ``BODY_TIMEOUT``, ``MAX_CONNECTIONS``…).
"""

from __future__ import annotations

import ipaddress
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["Limits", "Kind", "TooMany", "RateLimiter", "Counter", "KINDS", "MAX_CLIENTS", "NEWCOMERS", "HEADER_TIMEOUT",
           "BODY_TIMEOUT", "MAX_HEAD_BYTES", "KEEP_ALIVE", "MAX_CONNECTIONS", "SEAT_STREAMS", "REFILL", "client_key"]

Kind = Literal["tables", "moves", "solves", "mixes", "checks"]
KINDS: dict[Kind, str] = {
    "tables": "tables opened",
    "moves": "moves at a table (joins, confirms, next games, rematches)",
    "solves": "solves (best responses, grades, equilibria, draw advice, a table's hints, grades and odds)",
    "mixes": "K-mixes and safe exploitations (a solve each, and a long one)",
    "checks": "show-downs, hands and statistics (answered at once, no solve)",
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
"""Clients whose buckets are kept (one unseen for a minute makes room: its buckets are full)."""
NEWCOMERS = "new clients"
"""The client a newcomer is counted as while the bucket table is full of clients seen within a minute."""
SEAT_STREAMS = 4
"""Event streams one seat of a table may have open at once (its tabs); more: 429."""
REFILL = 60.0
"""Seconds in which any bucket refills completely (its rate is its size a minute)."""


def client_key(address: str, ipv6_prefix: int = 64) -> str:
    """The client an address counts as: an IPv4 address itself (an IPv4-mapped IPv6 one too),
    an IPv6 address its network of ``ipv6_prefix`` bits (``2001:db8:1:2::/64``); anything else
    (a unix socket, "unknown") as it is."""
    try:
        ip = ipaddress.ip_address(address.strip("[]"))
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ip)
    return str(ipaddress.IPv6Network((ip, ipv6_prefix), strict=False))


class TooMany(Exception):
    """A client over one of its limits (HTTP 429): the message names it, ``retry_after`` in seconds."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = max(1, retry_after)


@dataclass(frozen=True)
class Limits:
    """Per client: requests a minute of each kind (0: no limit), jobs running or waiting at
    once (0: no limit), ``connections`` open at once (requests in flight behind a proxy, event
    streams included; 0: no limit), and the IPv6 network that is one client (``ipv6_prefix``
    bits, 1 to 128).  The defaults let a person play, solve and explore freely and keep one
    client from taking a public server."""

    tables: int = 20
    moves: int = 600
    solves: int = 60
    mixes: int = 10
    checks: int = 600
    jobs: int = 4
    connections: int = 16
    ipv6_prefix: int = 64

    @classmethod
    def off(cls) -> Limits:
        """No limit at all (tests, a trusted machine)."""
        return cls(tables=0, moves=0, solves=0, mixes=0, checks=0, jobs=0, connections=0)

    def per_minute(self, kind: Kind) -> int:
        return int(getattr(self, kind))


class RateLimiter:
    """The token buckets of every client (thread-safe); ``max_clients``: clients whose buckets
    are kept (see the module doc)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] | None = None,
                 max_clients: int = MAX_CLIENTS) -> None:
        self.limits = limits
        self.max_clients = max_clients
        self._clock = clock or time.monotonic
        self._lock = threading.Lock()
        # client → (when last seen, kind → (tokens, when)), the least recently seen first
        self._clients: OrderedDict[str, tuple[float, dict[Kind, tuple[float, float]]]] = OrderedDict()

    def take(self, client: str, kind: Kind) -> None:
        """One request of ``kind`` by ``client`` (a ``client_key``): a token taken, or ``TooMany``."""
        rate = self.limits.per_minute(kind)
        if rate <= 0:
            return
        now = self._clock()
        with self._lock:
            buckets = self._buckets(client, now)
            tokens, when = buckets.get(kind, (float(rate), now))
            tokens = min(float(rate), tokens + (now - when) * rate / REFILL)
            if tokens < 1.0:
                buckets[kind] = (tokens, now)
                wait = math.ceil((1.0 - tokens) * REFILL / rate)
                raise TooMany(f"too many {KINDS[kind].split(' (')[0]} from your address: at most {rate} a minute "
                              f"on this server; try again in {wait} s", wait)
            buckets[kind] = (tokens - 1.0, now)

    def _buckets(self, client: str, now: float) -> dict[Kind, tuple[float, float]]:
        """``client``'s buckets, seen now (the lock held): a new client takes the place of one unseen
        for ``REFILL`` seconds, else is counted as ``NEWCOMERS``."""
        if client not in self._clients and len(self._clients) >= self.max_clients:
            oldest, (seen, _) = next(iter(self._clients.items()))
            if now - seen >= REFILL:
                del self._clients[oldest]
            else:
                client = NEWCOMERS
        _, buckets = self._clients.pop(client, (now, {}))
        self._clients[client] = (now, buckets)
        return buckets


class Counter:
    """What each client has open at once (connections, requests in flight), at most ``limit``
    each (0: no limit); used from the event loop only."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.open: dict[str, int] = {}

    def enter(self, client: str) -> bool:
        """One more for ``client``, or False (nothing counted) when it has its ``limit``."""
        held = self.open.get(client, 0)
        if self.limit and held >= self.limit:
            return False
        self.open[client] = held + 1
        return True

    def leave(self, client: str) -> None:
        held = self.open.get(client, 0) - 1
        if held > 0:
            self.open[client] = held
        else:
            self.open.pop(client, None)
