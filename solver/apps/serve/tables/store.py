"""The tables' SQLite file (``quintet-serve --tables PATH``, by default beside the solution store); the
records it reads and writes are ``rows``'.

Every change is committed before it is answered or announced, so a restart (even a killed
process: WAL journal) loses no confirmed arrangement, no finished game, no score.  Schema::

    tables (id, opponent, games, seed, rules, hints, created, touched,
            matches, invitation, invitation_sha256, reused, declined, results)
    seats  (table_id, seat, token_sha256, game, joined, rematch, left)   -- only the SHA-256 of each token
    games  (table_id, game, computer, computer_salt, computer_commitment, computer_description,
            equilibrium, failed, ended, resigned)
    plays  (table_id, game, seat, arrangement, salt, commitment, confirmed, hints, record)

A friend's table is created with seat 2 unjoined (``seats.joined`` NULL, its token hash that of a
secret no one was given) and an **invitation**: ``tables.invitation`` (the code, so that seat 1
can be shown the link again until the friend joins; NULL after) and its SHA-256, kept to
recognise a second exchange (``reused`` counts them); ``declined`` is 1 once the friend has declined
it (it stays valid: they may accept it still).  ``matches`` counts the matches played
at the table (a rematch adds one: match m is games ``(m − 1)·games + 1 … m·games``, their seeds
continuing the series); ``seats.rematch`` is 1 once a seat has asked for the next.  ``results``
(JSON) holds each ended match's result, ``{"M": {"how": "played" | "resigned" | "aborted",
"winner": SEAT | 0 (drawn) | null (aborted), "by": SEAT | null (who resigned or aborted)}}``;
``seats.left`` is when a seat left the table (NULL: it has not); ``games.resigned`` the seat that
resigned the game before its show-down (NULL: none; ``ended`` is then when).

``games.computer`` is the computer's arrangement (canonical text), drawn and committed at the
start of the game and shown to no one before the show-down; ``games.equilibrium`` the certified
exploitability of the deal's equilibrium solved for it (the solution store holds the mix);
``plays.record`` the game's JSON record (``GameRecord.to_dict``) from that seat's side.  Times
are Unix seconds.  The file holds secrets (arrangements before their show-down): it is
created readable by its owner only.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import sqlite3
from pathlib import Path

from quintet.faults import Fault
from solver.apps.serve.tables.rows import GameRow, Side, TableRow

__all__ = ["TableStore", "TableStoreError", "token_hash", "secret_matches", "SCHEMA_VERSION"]

SCHEMA_VERSION = 4
APPLICATION_ID = 0x51544231  # "QTB1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY, opponent TEXT NOT NULL, games INTEGER NOT NULL, seed INTEGER NOT NULL,
    rules TEXT NOT NULL, hints INTEGER NOT NULL, created REAL NOT NULL, touched REAL NOT NULL,
    matches INTEGER NOT NULL DEFAULT 1, invitation TEXT, invitation_sha256 BLOB, reused INTEGER NOT NULL DEFAULT 0,
    declined INTEGER NOT NULL DEFAULT 0, results TEXT NOT NULL DEFAULT '{}');
CREATE INDEX IF NOT EXISTS tables_touched ON tables (touched);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE, seat INTEGER NOT NULL,
    token_sha256 BLOB NOT NULL, game INTEGER NOT NULL DEFAULT 1, joined REAL, rematch INTEGER NOT NULL DEFAULT 0,
    left REAL, PRIMARY KEY (table_id, seat));
CREATE TABLE IF NOT EXISTS games (
    table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE, game INTEGER NOT NULL,
    computer TEXT, computer_salt TEXT, computer_commitment TEXT, computer_description TEXT,
    equilibrium REAL, failed TEXT, ended REAL, resigned INTEGER, PRIMARY KEY (table_id, game));
CREATE TABLE IF NOT EXISTS plays (
    table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE, game INTEGER NOT NULL, seat INTEGER NOT NULL,
    arrangement TEXT, salt TEXT, commitment TEXT, confirmed REAL, hints TEXT NOT NULL DEFAULT '[]', record TEXT,
    PRIMARY KEY (table_id, game, seat));
"""
_MIGRATE_1 = """
ALTER TABLE tables ADD COLUMN matches INTEGER NOT NULL DEFAULT 1;
ALTER TABLE tables ADD COLUMN invitation TEXT;
ALTER TABLE tables ADD COLUMN invitation_sha256 BLOB;
ALTER TABLE tables ADD COLUMN reused INTEGER NOT NULL DEFAULT 0;
ALTER TABLE seats ADD COLUMN joined REAL;
ALTER TABLE seats ADD COLUMN rematch INTEGER NOT NULL DEFAULT 0;
UPDATE seats SET joined = (SELECT created FROM tables WHERE tables.id = seats.table_id);
"""
"""Version 1 → 2: invitations and rematches (every seat of a version-1 table holds its token: joined)."""
_MIGRATE_2 = """
ALTER TABLE tables ADD COLUMN declined INTEGER NOT NULL DEFAULT 0;
ALTER TABLE tables ADD COLUMN results TEXT NOT NULL DEFAULT '{}';
ALTER TABLE seats ADD COLUMN left REAL;
"""
"""Version 2 → 3: an invitation declined, the matches' results, a seat that left."""
_MIGRATE_3 = """
ALTER TABLE games ADD COLUMN resigned INTEGER;
"""
"""Version 3 → 4: a game resigned."""
_MIGRATIONS = {1: _MIGRATE_1, 2: _MIGRATE_2, 3: _MIGRATE_3}


class TableStoreError(Fault):
    """A tables file that cannot be used (not SQLite, another program's, damaged): a fault of the
    server's side, never the client's (``quintet.faults``)."""

    def __init__(self, path: object, problem: str) -> None:
        super().__init__(f"{path}: {problem}", public=f"the tables file: {problem}")


def token_hash(token: str) -> bytes:
    """What is stored of a seat's token (and of an invitation): its SHA-256."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).digest()


_DUMMY_HASH = token_hash("no seat")


def secret_matches(given: str, stored: bytes | None) -> bool:
    """Whether ``given`` hashes to ``stored``, compared in constant time (None: against a
    stand-in, the same work)."""
    return hmac.compare_digest(token_hash(given), _DUMMY_HASH if stored is None else stored) and stored is not None


class TableStore:
    """The tables file.  Not thread-safe by itself: the table service serialises every call."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if not self.path.exists():
                fd = os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600)  # secrets inside: the owner only
                os.close(fd)
            self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
            self._db.execute("PRAGMA foreign_keys = ON")
            app_id = self._db.execute("PRAGMA application_id").fetchone()[0]
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            objects = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if app_id == 0 and version == 0 and objects == 0:
                self._db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                self._db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif app_id != APPLICATION_ID:
                raise TableStoreError(self.path, "not a quintet-serve tables file (another program's SQLite)")
            elif version in _MIGRATIONS:
                with self._tx() as db:
                    for step in range(version, SCHEMA_VERSION):
                        for statement in _MIGRATIONS[step].strip().split(";\n"):
                            db.execute(statement.rstrip(";"))
                    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            elif version != SCHEMA_VERSION:
                raise TableStoreError(self.path, f"tables file version {version}, this server reads {SCHEMA_VERSION}")
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")  # WAL: a killed process loses no commit
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise TableStoreError(self.path, f"cannot use it as the tables file ({exc})") from None
        except OSError as exc:
            raise TableStoreError(self.path, f"cannot open the tables file ({exc.strerror or exc})") from None

    def close(self) -> None:
        self._db.close()

    # ------------------------------------------------------------------ transactions

    def _tx(self) -> _Transaction:
        return _Transaction(self._db)

    def transaction(self) -> _Transaction:
        """``with``: the writes inside are one transaction (committed together, or not at all)."""
        return self._tx()

    # ------------------------------------------------------------------ tables

    def create(self, table: TableRow, token_hashes: dict[int, bytes]) -> None:
        """A new table; ``token_hashes`` per seat (an unjoined seat: the hash of a secret no one has)."""
        with self._tx() as db:
            db.execute("INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, 0, 0, '{}')",
                       (table.id, table.opponent, table.games, table.seed, json.dumps(table.rules_json),
                        int(table.hints), table.created, table.touched, table.invitation, table.invitation_hash))
            for seat, digest in token_hashes.items():
                db.execute("INSERT INTO seats VALUES (?, ?, ?, 1, ?, 0, NULL)",
                           (table.id, seat, digest, table.created if table.joined.get(seat) else None))
            db.execute("INSERT INTO games (table_id, game) VALUES (?, 1)", (table.id,))

    def invitation_of(self, table_id: str) -> tuple[str | None, bytes | None]:
        """A friend's table's invitation: (the code while seat 2 has not joined, its SHA-256); (None, None)
        for no such table or no invitation."""
        row = self._db.execute("SELECT invitation, invitation_sha256 FROM tables WHERE id = ?", (table_id,)).fetchone()
        return (None, None) if row is None else (row[0], None if row[1] is None else bytes(row[1]))

    def join(self, table_id: str, seat: int, digest: bytes, now: float) -> None:
        """``seat`` takes its own token (its hash ``digest``); the invitation's code is forgotten."""
        with self._tx() as db:
            db.execute("UPDATE seats SET token_sha256 = ?, joined = ? WHERE table_id = ? AND seat = ?",
                       (digest, now, table_id, seat))
            db.execute("UPDATE tables SET invitation = NULL WHERE id = ?", (table_id,))

    def reused_invitation(self, table_id: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE tables SET reused = reused + 1 WHERE id = ?", (table_id,))

    def declined_invitation(self, table_id: str) -> None:
        with self._tx() as db:
            db.execute("UPDATE tables SET declined = 1 WHERE id = ?", (table_id,))

    def end_match(self, table_id: str, results: dict[str, dict[str, int | str | None]]) -> None:
        """A match has ended: the table's ``results``, all of them."""
        with self._tx() as db:
            db.execute("UPDATE tables SET results = ? WHERE id = ?", (json.dumps(results), table_id))

    def leave(self, table_id: str, seat: int, now: float) -> None:
        with self._tx() as db:
            db.execute("UPDATE seats SET left = ? WHERE table_id = ? AND seat = ?", (now, table_id, seat))

    def ask_rematch(self, table_id: str, seat: int) -> None:
        with self._tx() as db:
            db.execute("UPDATE seats SET rematch = 1 WHERE table_id = ? AND seat = ?", (table_id, seat))

    def start_match(self, table_id: str, matches: int, first_game: int) -> None:
        """The next match: every seat at its first game, no rematch asked."""
        with self._tx() as db:
            db.execute("UPDATE tables SET matches = ? WHERE id = ?", (matches, table_id))
            db.execute("UPDATE seats SET game = ?, rematch = 0 WHERE table_id = ?", (first_game, table_id))
            db.execute("INSERT OR IGNORE INTO games (table_id, game) VALUES (?, ?)", (table_id, first_game))

    def seat_of(self, table_id: str, token: str) -> int | None:
        """The seat whose token this is at ``table_id`` (None: no such table, or not its token).
        Compared in constant time against every seat (two, a missing table too), so the time
        taken tells nothing of which tables exist."""
        rows = self._db.execute("SELECT seat, token_sha256 FROM seats WHERE table_id = ? ORDER BY seat",
                                (table_id,)).fetchall()
        hashes = [(int(s), bytes(h)) for s, h in rows] + [(0, _DUMMY_HASH)] * (2 - len(rows))
        digest = token_hash(token)
        found = None
        for seat, stored in hashes:
            if hmac.compare_digest(digest, stored) and seat:
                found = seat
        return found

    def load(self, table_id: str) -> TableRow | None:
        db = self._db
        t = db.execute("SELECT id, opponent, games, seed, rules, hints, created, touched, matches, invitation, "
                       "invitation_sha256, reused, declined, results FROM tables WHERE id = ?", (table_id,)).fetchone()
        if t is None:
            return None
        table = TableRow(t[0], t[1], int(t[2]), int(t[3]), json.loads(t[4]), bool(t[5]), float(t[6]), float(t[7]),
                         matches=int(t[8]), invitation=t[9], invitation_hash=None if t[10] is None else bytes(t[10]),
                         reused=int(t[11]), declined=bool(t[12]), results=json.loads(t[13]))
        for seat, game, joined, rematch, left in db.execute("SELECT seat, game, joined, rematch, left FROM seats "
                                                            "WHERE table_id = ?", (table_id,)):
            table.seat_games[int(seat)] = int(game)
            table.joined[int(seat)] = joined is not None
            if left is not None:
                table.left.add(int(seat))
            if rematch:
                table.rematch.add(int(seat))
        for r in db.execute("SELECT game, computer, computer_salt, computer_commitment, computer_description, "
                            "equilibrium, failed, ended, resigned FROM games WHERE table_id = ?", (table_id,)):
            table.game_rows[int(r[0])] = GameRow(int(r[0]), *r[1:])
        for p in db.execute("SELECT game, seat, arrangement, salt, commitment, confirmed, hints, record FROM plays "
                            "WHERE table_id = ?", (table_id,)):
            row = table.row(int(p[0]))
            row.plays[int(p[1])] = Side(p[2], p[3], p[4], p[5], json.loads(p[6]), None if p[7] is None
                                        else json.loads(p[7]))
        return table

    def ids(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT id FROM tables ORDER BY created")]

    def count(self) -> int:
        return int(self._db.execute("SELECT count(*) FROM tables").fetchone()[0])

    def oldest_touch(self) -> float | None:
        row = self._db.execute("SELECT min(touched) FROM tables").fetchone()
        return None if row[0] is None else float(row[0])

    def touch(self, table_id: str, now: float) -> None:
        with self._tx() as db:
            db.execute("UPDATE tables SET touched = ? WHERE id = ?", (now, table_id))

    def idle(self, before: float) -> list[str]:
        """The tables last used before ``before``."""
        return [r[0] for r in self._db.execute("SELECT id FROM tables WHERE touched < ?", (before,))]

    def delete(self, table_ids: list[str]) -> None:
        with self._tx() as db:
            db.executemany("DELETE FROM tables WHERE id = ?", [(t,) for t in table_ids])

    # ------------------------------------------------------------------ games

    def save_game(self, table_id: str, row: GameRow) -> None:
        """Write a game's own fields (the computer's arrangement, the equilibrium, failure, end, resignation)."""
        with self._tx() as db:
            db.execute("INSERT INTO games (table_id, game, computer, computer_salt, computer_commitment, "
                       "computer_description, equilibrium, failed, ended, resigned) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                       "ON CONFLICT (table_id, game) DO UPDATE SET computer = excluded.computer, "
                       "computer_salt = excluded.computer_salt, computer_commitment = excluded.computer_commitment, "
                       "computer_description = excluded.computer_description, equilibrium = excluded.equilibrium, "
                       "failed = excluded.failed, ended = excluded.ended, resigned = excluded.resigned",
                       (table_id, row.game, row.computer, row.computer_salt, row.computer_commitment,
                        row.computer_description, row.equilibrium, row.failed, row.ended, row.resigned))

    def save_side(self, table_id: str, game: int, seat: int, side: Side) -> None:
        with self._tx() as db:
            db.execute("INSERT INTO plays VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (table_id, game, seat) "
                       "DO UPDATE SET arrangement = excluded.arrangement, salt = excluded.salt, "
                       "commitment = excluded.commitment, confirmed = excluded.confirmed, hints = excluded.hints, "
                       "record = excluded.record",
                       (table_id, game, seat, side.arrangement, side.salt, side.commitment, side.confirmed,
                        json.dumps(side.hints), None if side.record is None else json.dumps(side.record)))

    def show_down(self, table_id: str, game: int, seat: int, side: Side, row: GameRow) -> None:
        """A seat's confirm that ends the game: its side and the game's end in one transaction."""
        with self._tx():
            self.save_side(table_id, game, seat, side)
            self.save_game(table_id, row)

    def advance(self, table_id: str, seat: int, game: int) -> None:
        with self._tx() as db:
            db.execute("UPDATE seats SET game = ? WHERE table_id = ? AND seat = ?", (game, table_id, seat))
            db.execute("INSERT OR IGNORE INTO games (table_id, game) VALUES (?, ?)", (table_id, game))


class _Transaction:
    """``with``: one transaction (nested ones join the outer one)."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.db = db
        self.outer = False

    def __enter__(self) -> sqlite3.Connection:
        if not self.db.in_transaction:
            self.db.execute("BEGIN IMMEDIATE")
            self.outer = True
        return self.db

    def __exit__(self, kind: object, *exc: object) -> None:
        if not self.outer:
            return
        if kind is None:
            self.db.execute("COMMIT")
        else:
            self.db.execute("ROLLBACK")
