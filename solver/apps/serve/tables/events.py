"""The tables' event streams: who follows which table, and what each is sent.

A subscriber is one open stream of one seat (``GET /api/tables/ID/events``); every event it
gets carries its own seat's view (``seat_view``), so no event shows the other side's cards
before the show-down.  The streams are fed from any thread (requests, the service's thread)
through their event loop; the calls here are made with the service's lock held.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from solver.apps.serve.tables.models import EventKind, TableEventOut, TableView
from solver.apps.serve.tables.store import TableRow

__all__ = ["Subscriber", "TableEvents", "LAST_EVENTS"]

LAST_EVENTS = ("shutdown",)
"""The kinds of event after which a stream ends."""


def _event(kind: EventKind, game: int | None = None, seat: int | None = None, view: TableView | None = None) -> str:
    return TableEventOut(event=kind, game=game, seat=seat, view=view).model_dump_json()


@dataclass(eq=False)
class Subscriber:
    """One open stream: its seat and the queue of its events (kind, the event's JSON)."""

    seat: int
    queue: asyncio.Queue[tuple[EventKind, str]]
    loop: asyncio.AbstractEventLoop

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
    ``view`` builds a seat's view of it (stamped by the service)."""

    def __init__(self, load: Callable[[str], TableRow | None], view: Callable[[TableRow, int], TableView]) -> None:
        self._load = load
        self._view = view
        self._subscribers: dict[str, set[Subscriber]] = {}
        self.stopping = False

    def watched(self, table_id: str) -> bool:
        """Whether a stream follows ``table_id``."""
        return bool(self._subscribers.get(table_id))

    def publish(self, table_id: str, kind: EventKind, game: int | None, seat: int | None = None) -> None:
        """Send ``kind`` to every stream of the table, each with its own seat's view (``seat``:
        the seat that acted)."""
        subscribers = self._subscribers.get(table_id)
        if not subscribers:
            return
        table = self._load(table_id)
        if table is None:
            return
        events: dict[int, str] = {}
        for sub in subscribers:
            if sub.seat not in events:
                events[sub.seat] = _event(kind, game, seat, self._view(table, sub.seat))
            sub.send(kind, events[sub.seat])

    def subscribe(self, table_id: str, sub: Subscriber, view: TableView) -> str:
        """A new stream of ``table_id``: subscribed (or, the server stopping, ended at once);
        its first event, ``view`` (the seat's view now)."""
        first = _event("view", view.game, None, view)
        if self.stopping:
            sub.end()
        else:
            self._subscribers.setdefault(table_id, set()).add(sub)
        return first

    def unsubscribe(self, table_id: str, sub: Subscriber) -> None:
        subscribers = self._subscribers.get(table_id)
        if subscribers is not None:
            subscribers.discard(sub)
            if not subscribers:
                del self._subscribers[table_id]

    def expired(self, table_id: str) -> None:
        """The table is gone: its streams get ``expired`` and end."""
        for sub in self._subscribers.pop(table_id, set()):
            sub.send("expired", _event("expired"))
            sub.end()

    def stop(self) -> None:
        """The server is stopping: every stream gets its last event, and new ones end at once."""
        self.stopping = True
        for subscribers in self._subscribers.values():
            for sub in subscribers:
                sub.end()
