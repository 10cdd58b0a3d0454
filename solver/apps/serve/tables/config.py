"""Where a server keeps its tables, for how long, and how often their streams beat
(``quintet-serve --tables``, ``--table-ttl``, ``--max-tables``, ``--heartbeat-seconds``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["TablesConfig", "tables_path", "DEFAULT_TTL", "DEFAULT_MAX_TABLES", "DEFAULT_HEARTBEAT", "LOST_AFTER"]

DEFAULT_TTL = 24 * 3600.0  # seconds an idle table is kept
DEFAULT_MAX_TABLES = 1000
DEFAULT_HEARTBEAT = 15.0  # seconds between two heartbeats on a seat's event stream
LOST_AFTER = 2.5
"""Heartbeats a seat's page may miss: a seat with a stream open but not heard from for this many
heartbeat intervals has lost its connection (for the other seat), and a page that hears nothing
from the server for as long says so and reconnects."""


@dataclass(frozen=True)
class TablesConfig:
    """``path`` of the tables file (None: beside the solution store), the idle time after which
    a table expires (seconds), the most tables open at once, the seconds between two heartbeats
    on an event stream (each answered by the seat's page: ``LOST_AFTER``)."""

    path: Path | None = None
    ttl: float = DEFAULT_TTL
    max_tables: int = DEFAULT_MAX_TABLES
    heartbeat: float = DEFAULT_HEARTBEAT

    @property
    def silence(self) -> float:
        """Seconds after which a seat not heard from has lost its connection."""
        return LOST_AFTER * self.heartbeat


def tables_path(store: Path) -> Path:
    """The tables file beside a solution store: ``solutions.sqlite`` → ``solutions-tables.sqlite``."""
    return store.with_name(f"{store.stem}-tables.sqlite")
