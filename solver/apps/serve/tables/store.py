"""The tables' SQLite file (``quintet-serve --tables PATH``, by default beside the solution store).

Every change is committed before it is answered or announced, so a restart (even a killed
process: WAL journal) loses no confirmed arrangement, no finished game, no score.  Schema::

    tables (id, opponent, games, seed, rules, hints, created, touched,
            matches, invitation, invitation_sha256, reused)
    seats  (table_id, seat, token_sha256, game, joined, rematch)   -- only the SHA-256 of each token
    games  (table_id, game, computer, computer_salt, computer_commitment, computer_description,
            equilibrium, failed, ended)
    plays  (table_id, game, seat, arrangement, salt, commitment, confirmed, hints, record)

A friend's table is created with seat 2 unjoined (``seats.joined`` NULL, its token hash that of a
secret no one was given) and an **invitation**: ``tables.invitation`` (the code, so that seat 1
can be shown the link again until the friend joins; NULL after) and its SHA-256, kept to
recognise a second exchange (``reused`` counts them).  ``matches`` counts the matches played
at the table (a rematch adds one: match m is games ``(m − 1)·games + 1 … m·games``, their seeds
continuing the series); ``seats.rematch`` is 1 once a seat has asked for the next.

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
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

from quintet.faults import Fault
from quintet.game import Deal
from quintet.rules import Rules, get_rules

__all__ = ["TableStore", "TableStoreError", "TableRow", "GameRow", "Side", "token_hash", "SCHEMA_VERSION"]

SCHEMA_VERSION = 2
APPLICATION_ID = 0x51544231  # "QTB1"
FRIEND = "friend"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tables (
    id TEXT PRIMARY KEY, opponent TEXT NOT NULL, games INTEGER NOT NULL, seed INTEGER NOT NULL,
    rules TEXT NOT NULL, hints INTEGER NOT NULL, created REAL NOT NULL, touched REAL NOT NULL,
    matches INTEGER NOT NULL DEFAULT 1, invitation TEXT, invitation_sha256 BLOB, reused INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS tables_touched ON tables (touched);
CREATE TABLE IF NOT EXISTS seats (
    table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE, seat INTEGER NOT NULL,
    token_sha256 BLOB NOT NULL, game INTEGER NOT NULL DEFAULT 1, joined REAL, rematch INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, seat));
CREATE TABLE IF NOT EXISTS games (
    table_id TEXT NOT NULL REFERENCES tables (id) ON DELETE CASCADE, game INTEGER NOT NULL,
    computer TEXT, computer_salt TEXT, computer_commitment TEXT, computer_description TEXT,
    equilibrium REAL, failed TEXT, ended REAL, PRIMARY KEY (table_id, game));
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


@lru_cache(maxsize=4096)
def _random_deal(seed: int, rules: Rules) -> Deal:
    return Deal.random(seed, rules)


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


@dataclass
class Side:
    """One side of one game: its arrangement once confirmed (canonical text) and commitment."""

    arrangement: str | None = None
    salt: str | None = None
    commitment: str | None = None
    confirmed: float | None = None
    hints: list[str] = field(default_factory=list)
    record: dict[str, Any] | None = None

    @property
    def is_confirmed(self) -> bool:
        return self.arrangement is not None


@dataclass
class GameRow:
    """One game of a table: the computer's committed arrangement (computer tables), the
    equilibrium solved for it, each seat's side."""

    game: int
    computer: str | None = None
    computer_salt: str | None = None
    computer_commitment: str | None = None
    computer_description: str | None = None
    equilibrium: float | None = None
    failed: str | None = None
    ended: float | None = None
    plays: dict[int, Side] = field(default_factory=dict)

    def side(self, seat: int) -> Side:
        return self.plays.setdefault(seat, Side())


@dataclass
class TableRow:
    """A table as stored: its terms, each seat's current game, its games."""

    id: str
    opponent: str  # "friend" or the computer's specification (canonical)
    games: int
    seed: int  # game 1's seed
    rules_json: dict[str, Any]  # the rule set: {"name": …, and its options (``RULE_OPTIONS``)}
    hints: bool
    created: float
    touched: float
    seat_games: dict[int, int] = field(default_factory=dict)  # seat → its current game (counted over every match)
    game_rows: dict[int, GameRow] = field(default_factory=dict)
    matches: int = 1  # the matches started at the table (the current one is the last)
    joined: dict[int, bool] = field(default_factory=dict)  # seat → it holds its token (seat 2: invitation exchanged)
    rematch: set[int] = field(default_factory=set)  # the seats that asked for the next match
    invitation: str | None = None  # a friend's table: the code until seat 2 joins
    invitation_hash: bytes | None = None
    reused: int = 0  # exchanges of the invitation refused after seat 2 joined

    @property
    def friend(self) -> bool:
        return self.opponent == FRIEND

    @property
    def seats(self) -> list[int]:
        return [1, 2] if self.friend else [1]

    @cached_property
    def rules(self) -> Rules:
        options = {k: v for k, v in self.rules_json.items() if k != "name"}
        return get_rules(self.rules_json.get("name", "classic"), **options)

    @property
    def first_game(self) -> int:
        """The current match's first game (games are counted over every match)."""
        return (self.matches - 1) * self.games + 1

    @property
    def last_game(self) -> int:
        """The current match's last game."""
        return self.matches * self.games

    def in_match(self, game: int) -> int:
        """``game``'s number in its own match (1 … games)."""
        return (game - 1) % self.games + 1

    def match_over(self, seat: int) -> bool:
        """``seat`` has seen the current match's last show-down."""
        return self.seat_games.get(seat) == self.last_game and self.shown_down(self.last_game)

    def seed_of(self, game: int) -> int:
        return self.seed + game - 1

    def deal(self, game: int) -> Deal:
        return _random_deal(self.seed_of(game), self.rules)

    def row(self, game: int) -> GameRow:
        return self.game_rows.setdefault(game, GameRow(game))

    def other_seat(self, seat: int) -> int:
        return 3 - seat

    def other_side(self, game: int, seat: int) -> Side:
        """The side across from ``seat`` in ``game``: the friend's, or the computer's."""
        row = self.row(game)
        if self.friend:
            return row.side(self.other_seat(seat))
        return Side(arrangement=row.computer, salt=row.computer_salt, commitment=row.computer_commitment,
                    confirmed=None)

    def shown_down(self, game: int) -> bool:
        """Both sides of ``game`` have confirmed."""
        row = self.game_rows.get(game)
        if row is None:
            return False
        seats = self.seats
        return all(row.side(s).is_confirmed for s in seats) and (self.friend or row.computer is not None)


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
            elif version == 1:
                with self._tx() as db:
                    for statement in _MIGRATE_1.strip().split(";\n"):
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

    # ------------------------------------------------------------------ tables

    def create(self, table: TableRow, token_hashes: dict[int, bytes]) -> None:
        """A new table; ``token_hashes`` per seat (an unjoined seat: the hash of a secret no one has)."""
        with self._tx() as db:
            db.execute("INSERT INTO tables VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, 0)",
                       (table.id, table.opponent, table.games, table.seed, json.dumps(table.rules_json),
                        int(table.hints), table.created, table.touched, table.invitation, table.invitation_hash))
            for seat, digest in token_hashes.items():
                db.execute("INSERT INTO seats VALUES (?, ?, ?, 1, ?, 0)",
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
                       "invitation_sha256, reused FROM tables WHERE id = ?", (table_id,)).fetchone()
        if t is None:
            return None
        table = TableRow(t[0], t[1], int(t[2]), int(t[3]), json.loads(t[4]), bool(t[5]), float(t[6]), float(t[7]),
                         matches=int(t[8]), invitation=t[9], invitation_hash=None if t[10] is None else bytes(t[10]),
                         reused=int(t[11]))
        for seat, game, joined, rematch in db.execute("SELECT seat, game, joined, rematch FROM seats "
                                                      "WHERE table_id = ?", (table_id,)):
            table.seat_games[int(seat)] = int(game)
            table.joined[int(seat)] = joined is not None
            if rematch:
                table.rematch.add(int(seat))
        for r in db.execute("SELECT game, computer, computer_salt, computer_commitment, computer_description, "
                            "equilibrium, failed, ended FROM games WHERE table_id = ?", (table_id,)):
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
        """Write a game's own fields (the computer's arrangement, the equilibrium, failure, end)."""
        with self._tx() as db:
            db.execute("INSERT INTO games (table_id, game, computer, computer_salt, computer_commitment, "
                       "computer_description, equilibrium, failed, ended) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                       "ON CONFLICT (table_id, game) DO UPDATE SET computer = excluded.computer, "
                       "computer_salt = excluded.computer_salt, computer_commitment = excluded.computer_commitment, "
                       "computer_description = excluded.computer_description, equilibrium = excluded.equilibrium, "
                       "failed = excluded.failed, ended = excluded.ended",
                       (table_id, row.game, row.computer, row.computer_salt, row.computer_commitment,
                        row.computer_description, row.equilibrium, row.failed, row.ended))

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
