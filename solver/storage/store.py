"""An embedded SQLite store of solved deals.

One row per (rules fingerprint, kind, canonical exposed mask): a JSON document (``record``)
plus two indexed columns, ``quality`` (a float, lower is better — e.g. a certified
exploitability) and ``updated`` (Unix time of the last store).  The deal is keyed by its
suit-canonical exposed mask (``quintet.symmetry``), so suit-permuted asks share one row;
records hold answers in canonical suits and the caller maps them back.

Safety
------
* The file is identified as ours by ``PRAGMA application_id`` (``APPLICATION_ID``) and its
  schema by ``PRAGMA user_version`` (``SCHEMA_VERSION``).  An existing non-empty file is
  checked *before* anything is written: random bytes, a damaged database, a database of
  another application or of another schema version raise ``StoreError`` naming the path
  and the problem, and the file is left byte-for-byte untouched (it is inspected through a
  read-only connection).  A missing or empty file is created; its directory must exist (a
  missing one is refused: ``quintet.cliutil.directory_problem``), except the user cache
  directory of the default location, which is made.
* WAL journal mode and a busy timeout (30 s by default) let several processes read and
  write one store; every write runs in one ``BEGIN IMMEDIATE`` transaction, so a writer
  killed mid-transaction leaves the previous committed state (SQLite rolls the partial
  transaction back on the next open).
* ``put`` keeps the best record: it stores only if the key is new or the new quality is
  strictly lower, decided and written inside one transaction.

A ``SolutionStore`` (one SQLite connection) belongs to one process and thread; after
``fork`` open a new one.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quintet.cliutil import directory_problem, user_cache_dir
from quintet.faults import Fault

__all__ = [
    "APPLICATION_ID",
    "SCHEMA_VERSION",
    "StoreError",
    "StoredSolution",
    "SolutionStore",
    "default_store_path",
    "user_cache_dir",
]

# 'QntS' as a big-endian 32-bit integer: identifies Quintet solution stores.
APPLICATION_ID = 0x516E7453
SCHEMA_VERSION = 1
DEFAULT_TIMEOUT = 30.0
_SQLITE_MAGIC = b"SQLite format 3\x00"
_KEY_BITS = 64  # masks up to 64 bits (16-bit suit fields; the 54-card deck's jokers use bit 63)


def _to_sql(canonical: int) -> int:
    """An unsigned 64-bit mask as SQLite's signed 64-bit INTEGER (two's complement)."""
    return canonical - (1 << 64) if canonical >= 1 << 63 else canonical


def _from_sql(value: int) -> int:
    return value + (1 << 64) if value < 0 else value


_WHERE_KEY = "fingerprint = ? AND kind = ? AND canonical = ?"
_SCHEMA = (
    """
    CREATE TABLE solutions (
        fingerprint TEXT    NOT NULL,
        kind        TEXT    NOT NULL,
        canonical   INTEGER NOT NULL,
        quality     REAL    NOT NULL,
        updated     REAL    NOT NULL,
        record      TEXT    NOT NULL,
        PRIMARY KEY (fingerprint, kind, canonical)
    ) WITHOUT ROWID
    """,
    "CREATE INDEX solutions_by_quality ON solutions (fingerprint, kind, quality)",
    "CREATE INDEX solutions_by_updated ON solutions (updated)",
)


class StoreError(Fault):
    """A store that cannot be used (not SQLite, damaged, foreign, busy) or a bad argument: a fault
    of the program's side, never the client's (``quintet.faults``)."""


def default_store_path() -> Path:
    """``$QUINTET_STORE`` if set, else ``solutions.sqlite`` in ``user_cache_dir()``."""
    explicit = os.environ.get("QUINTET_STORE")
    if explicit:
        return Path(explicit).expanduser()
    return user_cache_dir() / "solutions.sqlite"


@dataclass(frozen=True)
class StoredSolution:
    """One row: the key, the record, its quality and when it was stored (Unix time)."""

    fingerprint: str
    kind: str
    canonical: int
    record: dict[str, Any]
    quality: float
    updated: float


def _check_key(fingerprint: str, kind: str, canonical: int) -> tuple[str, str, int]:
    if not isinstance(fingerprint, str) or not fingerprint:
        raise StoreError(f"fingerprint must be a non-empty string, got {fingerprint!r}")
    if not isinstance(kind, str) or not kind:
        raise StoreError(f"kind must be a non-empty string, got {kind!r}")
    if isinstance(canonical, bool):
        raise StoreError(f"canonical mask must be an int, got {canonical!r}")
    try:
        value = int(canonical)
    except (TypeError, ValueError):
        raise StoreError(f"canonical mask must be an int, got {canonical!r}") from None
    if value != canonical or not 0 <= value < 1 << _KEY_BITS:
        raise StoreError(f"canonical mask must be an int in 0..2**64-1, got {canonical!r}")
    return fingerprint, kind, value


def _sql_key(key: tuple[str, str, int]) -> tuple[str, str, int]:
    return key[0], key[1], _to_sql(key[2])


class SolutionStore:
    """A store of solved deals in one SQLite file (see the module documentation).

    ``SolutionStore(path)`` opens or creates the store; use it as a context manager or call
    ``close()``.  ``timeout`` is how long a write waits for another process's write.
    """

    def __init__(
        self, path: str | os.PathLike[str] | None = None, *, timeout: float = DEFAULT_TIMEOUT
    ) -> None:
        self.path = Path(path).expanduser() if path is not None else default_store_path()
        self.timeout = float(timeout)
        self._conn: sqlite3.Connection | None = None
        self._depth = 0
        self._open()

    # ------------------------------------------------------------------ opening

    def _fail(self, problem: str, public: str | None = None) -> StoreError:
        """``public``: the problem as a server may tell it (no path; default ``problem``)."""
        return StoreError(f"solution store {str(self.path)!r}: {problem}",
                          public=f"the solution store: {problem if public is None else public}")

    def _open(self) -> None:
        path = self.path
        if path.exists() and not path.is_file():
            raise self._fail("is not a regular file")
        existing = path.is_file() and path.stat().st_size > 0
        if existing:
            self._inspect_existing()
        elif path.parent == user_cache_dir() and not path.parent.exists():
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise self._fail(f"cannot create directory: {exc.strerror or exc}") from None
        else:
            problem = directory_problem(path)
            if problem is not None:
                raise self._fail(problem, "its directory is missing or not a directory")
        try:
            conn = sqlite3.connect(str(path), timeout=self.timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise self._fail(f"cannot open: {exc}") from None
        self._conn = conn
        try:
            if not existing:
                self._initialize_or_verify()
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":  # e.g. a file system without shared memory
                conn.execute("PRAGMA journal_mode=DELETE")
            conn.execute("PRAGMA synchronous=NORMAL")
        except StoreError:
            self.close()
            raise
        except sqlite3.Error as exc:
            self.close()
            raise self._fail(f"cannot open: {exc}") from None

    def _inspect_existing(self) -> None:
        """Check an existing file without writing to it: header, application id, version."""
        try:
            with open(self.path, "rb") as fh:
                header = fh.read(100)
        except OSError as exc:
            raise self._fail(f"cannot read: {exc.strerror or exc}") from None
        if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
            raise self._fail(
                "is not a SQLite database (corrupt or another kind of file); it was left untouched"
            )
        # The application id sits in the header (offset 68, big-endian).  Ours is written when
        # the store is created, before WAL mode, so the on-disk header always holds it: a
        # foreign database is rejected here without SQLite ever opening it.
        self._check_ids(int.from_bytes(header[68:72], "big"), None)
        uri = self.path.resolve().as_uri() + "?mode=ro"
        try:
            ro = sqlite3.connect(uri, uri=True, timeout=self.timeout, isolation_level=None)
        except sqlite3.Error as exc:
            raise self._fail(f"cannot open: {exc}") from None
        try:
            app_id = ro.execute("PRAGMA application_id").fetchone()[0]
            version = ro.execute("PRAGMA user_version").fetchone()[0]
            tables = {
                r[0] for r in ro.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
        except sqlite3.DatabaseError as exc:
            raise self._fail(
                f"is corrupt or not a SQLite database ({exc}); it was left untouched"
            ) from None
        finally:
            ro.close()
        self._check_ids(app_id, version)
        if "solutions" not in tables:
            raise self._fail(
                "has this program's application id but no solutions table; it was left untouched"
            )

    def _check_ids(self, app_id: int, version: int | None) -> None:
        if app_id != APPLICATION_ID:
            raise self._fail(
                f"is a SQLite database of another application (application_id {app_id:#010x}, "
                f"expected {APPLICATION_ID:#010x}); it was left untouched"
            )
        if version is not None and version != SCHEMA_VERSION:
            raise self._fail(
                f"has store schema version {version}, this program reads version {SCHEMA_VERSION}; "
                "it was left untouched"
            )

    def _initialize_or_verify(self) -> None:
        """Create the schema in an empty database, atomically; verify an existing one."""
        conn = self._require()
        conn.execute("BEGIN IMMEDIATE")
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            n_objects = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if app_id == 0 and version == 0 and n_objects == 0:
                for statement in _SCHEMA:
                    conn.execute(statement)
                conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            else:
                self._check_ids(app_id, version)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise

    def _require(self) -> sqlite3.Connection:
        if self._conn is None:
            raise StoreError(f"solution store {str(self.path)!r} is closed")
        return self._conn

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        if self._conn is not None:
            conn, self._conn = self._conn, None
            conn.close()

    def __enter__(self) -> SolutionStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self._conn is None else "open"
        return f"SolutionStore({str(self.path)!r}, {state})"

    # ------------------------------------------------------------------ transactions

    @contextmanager
    def transaction(self) -> Iterator[SolutionStore]:
        """Group several writes into one ``BEGIN IMMEDIATE`` transaction (nestable).

        Commits when the outermost block ends normally, rolls back on an exception.
        """
        conn = self._require()
        if self._depth:
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise self._fail(f"cannot start a write ({exc})") from None
        self._depth = 1
        try:
            yield self
        except BaseException:
            self._depth = 0
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        self._depth = 0
        try:
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise self._fail(f"commit failed ({exc})") from None

    # ------------------------------------------------------------------ reading

    def get(self, fingerprint: str, kind: str, canonical: int) -> dict[str, Any] | None:
        """The stored record, or None."""
        entry = self.entry(fingerprint, kind, canonical)
        return None if entry is None else entry.record

    def entry(self, fingerprint: str, kind: str, canonical: int) -> StoredSolution | None:
        """The stored row (record, quality, updated), or None."""
        key = _check_key(fingerprint, kind, canonical)
        row = self._query(
            "SELECT record, quality, updated FROM solutions WHERE " + _WHERE_KEY,
            _sql_key(key),
        ).fetchone()
        if row is None:
            return None
        try:
            record = json.loads(row[0])
        except ValueError as exc:
            raise self._fail(f"record {key!r} is not valid JSON ({exc})") from None
        return StoredSolution(key[0], key[1], key[2], record, float(row[1]), float(row[2]))

    def quality(self, fingerprint: str, kind: str, canonical: int) -> float | None:
        """The stored quality, or None (cheaper than ``get``)."""
        key = _check_key(fingerprint, kind, canonical)
        row = self._query(
            "SELECT quality FROM solutions WHERE " + _WHERE_KEY,
            _sql_key(key),
        ).fetchone()
        return None if row is None else float(row[0])

    def has(self, fingerprint: str, kind: str, canonical: int) -> bool:
        return self.quality(fingerprint, kind, canonical) is not None

    def __contains__(self, key: object) -> bool:
        if not isinstance(key, tuple) or len(key) != 3:
            return False
        return self.has(*key)

    def __len__(self) -> int:
        return int(self._query("SELECT count(*) FROM solutions").fetchone()[0])

    def keys(
        self, kind: str | None = None, fingerprint: str | None = None
    ) -> Iterator[tuple[str, str, int]]:
        """``(fingerprint, kind, canonical)`` of every row (optionally of one kind / rule set),
        sorted.  The keys are read in one snapshot when iteration starts."""
        sql = "SELECT fingerprint, kind, canonical FROM solutions"
        conds, args = [], []
        if kind is not None:
            conds.append("kind = ?")
            args.append(kind)
        if fingerprint is not None:
            conds.append("fingerprint = ?")
            args.append(fingerprint)
        if conds:
            sql += " WHERE " + " AND ".join(conds)
        rows = self._query(sql, tuple(args)).fetchall()
        yield from sorted((fp, k, _from_sql(int(c))) for fp, k, c in rows)

    def integrity_check(self) -> str:
        """SQLite's ``PRAGMA integrity_check``: ``'ok'`` or a description of the damage."""
        rows = self._query("PRAGMA integrity_check").fetchall()
        return "\n".join(str(r[0]) for r in rows)

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        try:
            return self._require().execute(sql, args)
        except sqlite3.Error as exc:
            raise self._fail(f"read failed ({exc})") from None

    # ------------------------------------------------------------------ writing

    def put(
        self, fingerprint: str, kind: str, canonical: int, record: dict[str, Any], quality: float
    ) -> bool:
        """Store ``record`` unless an equal or better (lower) quality is already stored.

        The comparison and the write happen in one transaction; returns whether it stored.
        """
        key = _check_key(fingerprint, kind, canonical)
        if not isinstance(record, dict):
            raise StoreError(f"record must be a dict, got {type(record).__name__}")
        try:
            q = float(quality)
        except (TypeError, ValueError):
            raise StoreError(f"quality must be a number, got {quality!r}") from None
        if math.isnan(q):
            raise StoreError("quality must be a number, got NaN")
        try:
            text = json.dumps(record, sort_keys=True, allow_nan=False, separators=(",", ":"))
        except (TypeError, ValueError) as exc:
            raise StoreError(f"record is not JSON-serializable: {exc}") from None
        with self.transaction():
            try:
                cur = self._require().execute(
                    "INSERT INTO solutions"
                    " (fingerprint, kind, canonical, quality, updated, record)"
                    " VALUES (?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (fingerprint, kind, canonical) DO UPDATE SET"
                    " quality = excluded.quality, updated = excluded.updated,"
                    " record = excluded.record"
                    " WHERE excluded.quality < solutions.quality",
                    (*_sql_key(key), q, time.time(), text),
                )
            except sqlite3.Error as exc:
                raise self._fail(f"write failed ({exc})") from None
            return cur.rowcount > 0

    def delete(self, fingerprint: str, kind: str, canonical: int) -> bool:
        """Remove one row; returns whether it existed."""
        key = _check_key(fingerprint, kind, canonical)
        with self.transaction():
            try:
                cur = self._require().execute(
                    "DELETE FROM solutions WHERE " + _WHERE_KEY,
                    _sql_key(key),
                )
            except sqlite3.Error as exc:
                raise self._fail(f"write failed ({exc})") from None
            return cur.rowcount > 0
