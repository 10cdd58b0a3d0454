"""The tables' event streams: who follows which table, and what each is sent.

A subscriber is one open stream of one seat (``GET /api/tables/ID/events``); every event it
gets carries its own seat's view (``seat_view``), so no event shows the other side's cards
before the show-down.  The open streams are the views' ``presence`` (the other seat connected,
this seat open twice); a stream whose view's presence changed gets a ``presence`` event (after
the event that changed it, if any).

**Heartbeats both ways.**  Every stream gets a ``heartbeat`` event every ``heartbeat`` seconds,
which the seat's page answers (``POST …/alive``; any call of the seat counts: ``heard``).  A
seat with a stream open that has not been heard from for ``silence`` seconds (``LOST_AFTER``
heartbeats) has **lost its connection**: a network frozen silently (a closed lid, lost Wi-Fi)
keeps its stream open here for minutes, and only the missing answers tell.  The other seat's
streams are told (``presence``) on the scheduler's next tick (``check``), and again when the
seat is heard from.  The page, for its part, counts a server silent for as long as lost.

The streams are fed from any thread (requests, the service's thread) through their event loop;
the calls here are made with the service's lock held.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass

from solver.apps.serve.tables.config import LOST_AFTER
from solver.apps.serve.tables.models import EventKind, PresenceOut, TableEventOut, TableView
from solver.apps.serve.tables.rows import TableRow

__all__ = ["Subscriber", "TableEvents", "LAST_EVENTS"]

LAST_EVENTS = ("shutdown",)
"""The kinds of event after which a stream ends."""


def _event(kind: EventKind, game: int | None = None, seat: int | None = None, view: TableView | None = None,
           heartbeat: float | None = None) -> str:
    silence = None if heartbeat is None else LOST_AFTER * heartbeat
    return TableEventOut(event=kind, game=game, seat=seat, view=view, heartbeat=heartbeat,
                         silence=silence).model_dump_json()


@dataclass(eq=False)
class Subscriber:
    """One open stream: its seat and the queue of its events (kind, the event's JSON)."""

    seat: int
    queue: asyncio.Queue[tuple[EventKind, str]]
    loop: asyncio.AbstractEventLoop
    presence: PresenceOut | None = None  # the presence of the last view it was sent

    def send(self, kind: EventKind, data: str) -> None:
        """Queue an event, from any thread (a closed loop: the stream is gone)."""
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, (kind, data))
        except RuntimeError:
            pass

    def end(self) -> None:
        """The stream's last event: the server is stopping (reconnect)."""
        self.send("shutdown", _event("shutdown"))


class TableEvents:
    """The open streams of every table.  ``load`` reads a table as it is now (None: gone),
    ``view`` builds a seat's view of it (stamped by the service); ``heartbeat``: seconds between
    two heartbeats on a stream."""

    def __init__(self, load: Callable[[str], TableRow | None], view: Callable[[TableRow, int], TableView],
                 heartbeat: float) -> None:
        self._load = load
        self._view = view
        self.heartbeat = heartbeat
        self.silence = LOST_AFTER * heartbeat  # seconds a seat with a stream open may be silent
        self._subscribers: dict[str, set[Subscriber]] = {}
        self._heard: dict[tuple[str, int], float] = {}  # (table, seat) with a stream → last heard (monotonic)
        self._lost: dict[str, frozenset[int]] = {}  # table → its lost seats, as its streams were last told
        self.stopping = False

    def watched(self, table_id: str) -> bool:
        """Whether a stream follows ``table_id``."""
        return bool(self._subscribers.get(table_id))

    def streams(self, table_id: str) -> dict[int, int]:
        """The open streams of ``table_id`` per seat."""
        out: dict[int, int] = {}
        for sub in self._subscribers.get(table_id, ()):
            out[sub.seat] = out.get(sub.seat, 0) + 1
        return out

    def heard(self, table_id: str, seat: int) -> None:
        """A call of ``seat`` (a heartbeat answered, a move, a look): present now; a seat that
        was lost is back, and the table's streams are told."""
        if table_id in self._subscribers:
            self._heard[table_id, seat] = time.monotonic()
            if seat in self._lost.get(table_id, ()):
                self._tell(table_id)

    def lost(self, table_id: str) -> frozenset[int]:
        """The seats of ``table_id`` with a stream open that have not been heard from for
        ``silence`` seconds: their connection is lost."""
        now = time.monotonic()
        return frozenset(seat for seat in self.streams(table_id)
                         if now - self._heard.get((table_id, seat), now) > self.silence)

    def check(self) -> None:
        """The scheduler's tick: the streams of every table whose lost seats changed are told."""
        for table_id in list(self._subscribers):
            if self.lost(table_id) != self._lost.get(table_id, frozenset()):
                self._tell(table_id)

    def _tell(self, table_id: str) -> None:
        lost = self.lost(table_id)
        if lost:
            self._lost[table_id] = lost
        else:
            self._lost.pop(table_id, None)
        self.publish(table_id, None, None)

    def publish(self, table_id: str, kind: EventKind | None, game: int | None, seat: int | None = None, *,
                seats: tuple[int, ...] | None = None) -> None:
        """Send ``kind`` to every stream of the table (``seats``: of those seats only), each with
        its own seat's view (``seat``: the seat that acted; ``game`` counted over every match);
        then ``presence`` to every stream whose view's presence changed (``kind`` None: only that)."""
        subscribers = self._subscribers.get(table_id)
        if not subscribers:
            return
        table = self._load(table_id)
        if table is None:
            return
        shown = None if game is None else table.in_match(game)
        views: dict[int, TableView] = {}
        events: dict[tuple[int, EventKind], str] = {}
        for sub in list(subscribers):
            if sub.seat not in views:
                views[sub.seat] = self._view(table, sub.seat)
            view = views[sub.seat]
            sent = []
            if kind is not None and (seats is None or sub.seat in seats):
                sent.append((kind, shown, seat))
            if view.presence != sub.presence:
                sent.append(("presence", None, None))
                sub.presence = view.presence
            for k, g, s in sent:
                if (sub.seat, k) not in events:
                    events[sub.seat, k] = _event(k, g, s, view)
                sub.send(k, events[sub.seat, k])

    def subscribe(self, table_id: str, sub: Subscriber) -> None:
        """A new stream of ``table_id``: subscribed (or, the server stopping, ended at once).
        The caller sends it its first event (``first``) and tells the others (``publish``)."""
        if self.stopping:
            sub.end()
        else:
            self._subscribers.setdefault(table_id, set()).add(sub)
            self._heard[table_id, sub.seat] = time.monotonic()

    def first(self, sub: Subscriber, view: TableView) -> str:
        """A stream's first event: ``view``, the seat's view now (with the heartbeat's period)."""
        sub.presence = view.presence
        return _event("view", view.game, None, view, self.heartbeat)

    def beat(self) -> str:
        """A heartbeat event's data (its period in it): the seat's page answers it."""
        return _event("heartbeat", heartbeat=self.heartbeat)

    def unsubscribe(self, table_id: str, sub: Subscriber) -> bool:
        """Forget a stream; whether it was subscribed."""
        subscribers = self._subscribers.get(table_id)
        if subscribers is None or sub not in subscribers:
            return False
        subscribers.discard(sub)
        if not any(s.seat == sub.seat for s in subscribers):
            self._heard.pop((table_id, sub.seat), None)
        if not subscribers:
            del self._subscribers[table_id]
            self._lost.pop(table_id, None)
        return True

    def expired(self, table_id: str) -> None:
        """The table is gone: its streams get ``expired`` and end."""
        self._lost.pop(table_id, None)
        for seat in (1, 2):
            self._heard.pop((table_id, seat), None)
        for sub in self._subscribers.pop(table_id, set()):
            sub.send("expired", _event("expired"))
            sub.end()

    def stop(self) -> None:
        """The server is stopping: every stream gets its last event, and new ones end at once."""
        self.stopping = True
        for subscribers in self._subscribers.values():
            for sub in subscribers:
                sub.end()
