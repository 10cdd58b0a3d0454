"""The tables' event streams: who follows which table, and what each is sent.

A subscriber is one open stream of one seat (``GET /api/tables/ID/events``); every event it
gets carries its own seat's view (``seat_view``), so no event shows the other side's cards
before the show-down.  The open streams are the views' ``presence`` (the other seat connected,
this seat open twice); a stream whose view's presence changed gets a ``presence`` event (after
the event that changed it, if any).  The streams are fed from any thread (requests, the service's thread)
through their event loop; the calls here are made with the service's lock held.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from solver.apps.serve.tables.models import EventKind, PresenceOut, TableEventOut, TableView
from solver.apps.serve.tables.rows import TableRow

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
    ``view`` builds a seat's view of it (stamped by the service)."""

    def __init__(self, load: Callable[[str], TableRow | None], view: Callable[[TableRow, int], TableView]) -> None:
        self._load = load
        self._view = view
        self._subscribers: dict[str, set[Subscriber]] = {}
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

    @staticmethod
    def first(sub: Subscriber, view: TableView) -> str:
        """A stream's first event: ``view``, the seat's view now."""
        sub.presence = view.presence
        return _event("view", view.game, None, view)

    def unsubscribe(self, table_id: str, sub: Subscriber) -> bool:
        """Forget a stream; whether it was subscribed."""
        subscribers = self._subscribers.get(table_id)
        if subscribers is None or sub not in subscribers:
            return False
        subscribers.discard(sub)
        if not subscribers:
            del self._subscribers[table_id]
        return True

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
