"""Where a server keeps its tables and for how long (``quintet-serve --tables``, ``--table-ttl``,
``--max-tables``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["TablesConfig", "tables_path", "DEFAULT_TTL", "DEFAULT_MAX_TABLES"]

DEFAULT_TTL = 24 * 3600.0  # seconds an idle table is kept
DEFAULT_MAX_TABLES = 1000


@dataclass(frozen=True)
class TablesConfig:
    """``path`` of the tables file (None: beside the solution store), the idle time after which
    a table expires (seconds), the most tables open at once."""

    path: Path | None = None
    ttl: float = DEFAULT_TTL
    max_tables: int = DEFAULT_MAX_TABLES


def tables_path(store: Path) -> Path:
    """The tables file beside a solution store: ``solutions.sqlite`` → ``solutions-tables.sqlite``."""
    return store.with_name(f"{store.stem}-tables.sqlite")
