"""The tables of one server: a seat's moves (open a table, look, confirm, next game, advice,
records), each checked against the game's state and answered with the seat's view.

The game is ``solver.play``'s, as in ``quintet-play``: the computer is a ``Computer`` (drawn in
the worker pool, ``work``), each seat's game a ``GameSession`` (replayed here for its flow,
``views``; rebuilt in a worker for advice and the record, ``tasks``).  What the service refuses
is a domain error (``errors``; a move the game refuses, ``PlayError``): the HTTP layer
(``solver.apps.serve.routers.tables``) gives each its status.

How a table keeps its secrets:

* **Tokens** — ``secrets.token_urlsafe(32)`` (256 bits) per seat; the tables file stores only
  their SHA-256, compared with ``hmac.compare_digest`` against every seat of the table (and a
  stand-in for a missing table).  Table ids are ``secrets.token_urlsafe(16)`` (128 bits).  A
  link carries the token in its fragment (after ``#``), which browsers never send, so it
  reaches no access log; tokens are never logged nor put in a message.  The other seat's
  token, a made-up one, a table that does not exist or has expired: the same ``NoSuchTable``.
* **Invitations** — no one holds another seat's token: the creator of a friend's table gets
  seat 1's token and an invitation (``secrets.token_urlsafe(16)``, 128 bits) that the friend's
  browser exchanges once for seat 2's own token (``join``), when the friend accepts the match
  it shows (``invited``, which takes nothing; ``decline`` tells seat 1); a second exchange is
  refused and seat 1 told.  Until then seat 1 may be shown the invitation again (``invitation``).
* **Per-seat views** — everything a seat receives (views, events, errors) is built from
  ``seat_view(table, seat)``: before both sides have confirmed, the other side's cards are
  not in it (its commitment is), and no error names them.
* **Commitments** — ``solver.play.commitment``: the computer's arrangement is drawn at the
  start of the game (with a secret seed, never the deal's, which is shown) and its SHA-256
  over ``SALT:ARRANGEMENT`` shown at once; a seat's is shown to the friend across when it
  confirms; salts and arrangements are revealed at the show-down.

Tables live in SQLite (``store``); idle tables expire after the TTL; at most ``max_tables`` are
open (``TablesFull`` past it).
"""

from __future__ import annotations

import math
import re
import secrets
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quintet.game import Arrangement, Deal
from quintet.seeds import SEED_MAX, fresh_seed, seed_series
from solver.apps.serve.jobs import WorkerPool
from solver.apps.serve.quota import SEAT_STREAMS, TooMany
from solver.apps.serve.tables.advice import advice_task
from solver.apps.serve.tables.config import TablesConfig, tables_path
from solver.apps.serve.tables.errors import NoSuchTable, NotNow, NotYours, Stopping, TablesFull
from solver.apps.serve.tables.events import Subscriber, TableEvents
from solver.apps.serve.tables.models import (
    EventKind,
    InvitationOut,
    InvitedOut,
    ResignScope,
    TableCreatedOut,
    TableIn,
    TableJoinedOut,
    TableView,
)
from solver.apps.serve.tables.rows import FRIEND, TableRow
from solver.apps.serve.tables.scheduler import Scheduler
from solver.apps.serve.tables.store import TableStore, secret_matches, token_hash
from solver.apps.serve.tables.tasks import PlayAction, TableTask, play_session
from solver.apps.serve.tables.views import played_result, seat_view, table_status, warm_up
from solver.apps.serve.tables.work import TableWork, iso_time
from solver.play.commitment import commit
from solver.play.computer import ComputerSpec
from solver.problem.opponent_spec import check_usable
from solver.storage.records import resigned_record

__all__ = ["TableService", "Links"]

TOUCH_EVERY = 1.0  # seconds: a table's last use is written at most this often
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,128}")
_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
USED = ("this invitation has been used: the friend it was sent to has joined (seat 1 is told). Ask whoever "
        "invited you for a new table")
JOINED = "your friend has joined: the invitation was used, and is no longer shown"


@dataclass(frozen=True)
class Links:
    """Where the seats' links point: ``base`` (``https://host[:port][/path]``, no trailing slash)
    and the warning to show beside them (None: none)."""

    base: str
    warning: str | None = None

    def seat(self, table: str, seat: int, token: str) -> str:
        return f"{self.base}/#play/{table}/{seat}/{token}"

    def invitation(self, table: str, code: str) -> InvitationOut:
        return InvitationOut(link=f"{self.base}/#join/{table}/{code}", warning=self.warning)


class TableService:
    """The tables of one server: the tables file, their work in the worker pool (``work``, run
    by the ``scheduler``'s thread), their event streams (``events``).  Thread-safe: requests run
    in the server's threads, completions and the periodic checks in the scheduler's thread; one
    lock serialises them."""

    def __init__(self, config: TablesConfig, pool: WorkerPool, store_path: Path) -> None:
        self.config = config
        self.pool = pool
        self.path = config.path or tables_path(store_path)
        self._lock = threading.RLock()
        self._db: TableStore | None = None
        self._next_sweep = 0.0
        self._touched: dict[str, float] = {}  # table → its last touch written
        self._revision = 0  # the last view's stamp (µs since the epoch)
        self.events = TableEvents(lambda table_id: self.db.load(table_id), self._view, config.heartbeat)
        self.scheduler = Scheduler(pool, self._lock, is_open=lambda: self._db is not None, tick=self._tick,
                                   warm_up=warm_up)
        self.work = TableWork(lambda: self._db, self._lock, self.scheduler, self.events)

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        """Open the tables file, drop expired tables, resume the work of the others (a restart:
        games still to prepare, records still to write), start the scheduler's thread."""
        with self._lock:
            self._db = TableStore(self.path)
            self._sweep(time.time())
            for table_id in self._db.ids():
                table = self._db.load(table_id)
                if table is not None:
                    self.work.resume(table)
        self.scheduler.start()  # the first show-down's evaluator is loaded there, not in a player's confirm

    def stop_streams(self) -> None:
        """The server is stopping: every event stream gets its last event and ends."""
        with self._lock:
            self.scheduler.stopping = True
            self.events.stop()

    def close(self) -> None:
        self.stop_streams()
        self.scheduler.close()
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    @property
    def db(self) -> TableStore:
        if self._db is None:
            raise RuntimeError("the tables are not open (the server is starting or stopping)")
        return self._db

    def _tick(self, now: float) -> None:
        """The scheduler's periodic check (lock held): announce the equilibria's progress and the
        seats whose connection was lost, expire."""
        for table_id, game, _ in self.scheduler.progressed(self.events.watched):
            self.events.publish(table_id, "preparing", game)
        self.events.check()
        if now >= self._next_sweep:
            self._sweep(now)

    def _sweep(self, now: float) -> None:
        """Drop the tables idle for longer than the TTL (their streams get ``expired``)."""
        self._next_sweep = now + min(60.0, max(0.5, self.config.ttl / 4))
        gone = self.db.idle(now - self.config.ttl)
        if not gone:
            return
        self.db.delete(gone)
        for table_id in gone:
            self._touched.pop(table_id, None)
            self.work.creators.pop(table_id, None)
            self.scheduler.forget(table_id)
            self.events.expired(table_id)

    def _view(self, table: TableRow, seat: int) -> TableView:
        """``seat_view`` with the equilibrium's progress, stamped with a revision larger than
        every earlier view's (the lock is held: views are built in the order of the state they
        show).  Microseconds of the clock, so a restarted server goes on above the old stamps;
        exact as a JavaScript number."""
        self._revision = max(self._revision + 1, time.time_ns() // 1000)
        progress = self.work.equilibrium_progress(table, table.seat_games.get(seat, table.first_game))
        return seat_view(table, seat, progress, self._revision, self.events.streams(table.id),
                         self.events.lost(table.id))

    # ------------------------------------------------------------------ seats

    def authenticate(self, table_id: str, token: str) -> int:
        """The seat ``token`` is for at ``table_id`` (and the table is used: its idle clock
        restarts; the seat is heard from: present); else ``NoSuchTable`` (seat 2 before the friend
        joined: no token is its)."""
        with self._lock:
            seat = None
            if _TABLE_ID.fullmatch(table_id) and _TOKEN.fullmatch(token):
                seat = self.db.seat_of(table_id, token)
            else:
                self.db.seat_of("", "")  # the same work as for a real look-up
            if seat is None:
                raise NoSuchTable()
            now = time.time()
            if now - self._touched.get(table_id, 0.0) >= TOUCH_EVERY:  # the idle clock restarts (a write a second)
                self._touched[table_id] = now
                self.db.touch(table_id, now)
            self.events.heard(table_id, seat)
            return seat

    def _table(self, table_id: str) -> TableRow:
        table = self.db.load(table_id)
        if table is None:  # expired between the check and now
            raise NoSuchTable()
        return table

    def subscribe(self, table_id: str, sub: Subscriber) -> str:
        """A new stream ``sub``: subscribed, and its first event (the view now); the table's other
        streams are told of the presence.  ``TooMany`` past ``SEAT_STREAMS`` of one seat."""
        with self._lock:
            table = self._table(table_id)
            if self.events.streams(table_id).get(sub.seat, 0) >= SEAT_STREAMS:
                raise TooMany(f"your seat has {SEAT_STREAMS} event streams open already, the most one seat may have: "
                              "close another tab of this table", 5)
            self.events.subscribe(table_id, sub)
            first = self.events.first(sub, self._view(table, sub.seat))
            self.events.publish(table_id, None, None)
            return first

    def unsubscribe(self, table_id: str, sub: Subscriber) -> None:
        """A stream ended: forgotten now, the others told of the presence by the scheduler's thread
        (this is called in the event loop)."""
        with self._lock:
            if self.events.unsubscribe(table_id, sub):
                self.scheduler.later(lambda: self.events.publish(table_id, None, None))

    # ------------------------------------------------------------------ the game

    def create(self, body: TableIn, links: Links, creator: str | None = None) -> TableCreatedOut:
        """Open a table for ``creator`` (a client key, whose jobs the table's preparations are:
        ``TooMany`` when it has its most jobs already): seat 1's token and link (shown once), a
        friend's table's invitation."""
        rules = body.rules.to_rules()
        friend = body.opponent.strip() == FRIEND
        seeds = seed_series(fresh_seed(body.games) if body.seed is None else body.seed, body.games, "seed", "games")
        first = Deal.random(seeds[0], rules)
        if friend:
            opponent = FRIEND
        else:
            spec = ComputerSpec.parse(body.opponent, files=False)
            if spec.target is not None:  # a model that cannot be used is refused now, in one line
                check_usable(spec.target, first, files=False)
            opponent = spec.format()
        table = TableRow(secrets.token_urlsafe(16), opponent, body.games, seeds[0],
                         body.rules.model_dump(mode="json", exclude_none=True), not friend if body.hints is None
                         else body.hints, 0.0, 0.0)
        token = secrets.token_urlsafe(32)
        hashes = {1: token_hash(token)}
        table.joined = {1: True}
        if friend:
            table.invitation = secrets.token_urlsafe(16)
            table.invitation_hash = token_hash(table.invitation)
            hashes[2] = token_hash(secrets.token_urlsafe(32))  # seat 2's, until its own: a secret no one has
            table.joined[2] = False
        with self._lock:
            now = table.created = table.touched = time.time()
            if self.events.stopping:
                raise Stopping()
            if self.db.count() >= self.config.max_tables:
                self._sweep(now)
            if self.db.count() >= self.config.max_tables:
                oldest = self.db.oldest_touch() or now
                raise TablesFull(self.config.max_tables, max(1, math.ceil(oldest + self.config.ttl - now)))
            self.db.create(table, hashes)
            table.seat_games = {seat: 1 for seat in table.seats}
            if creator is not None:
                self.work.creators[table.id] = creator
            try:
                self.work.prepare(table, 1, strict=True)  # the first game only: each next one at a show-down
            except TooMany:
                self.work.creators.pop(table.id, None)
                self.db.delete([table.id])
                raise
        return TableCreatedOut(table=table.id, seat=1, token=token, link=links.seat(table.id, 1, token),
                               warning=links.warning,
                               invitation=links.invitation(table.id, table.invitation) if table.invitation else None)

    def _invited(self, table_id: str, code: str) -> TableRow:
        """The table ``code`` is the invitation to, while seat 2 is free (lock held): ``NoSuchTable``
        for a wrong code or table; ``NotNow`` once the friend has joined (and seat 1 is told)."""
        valid = _TABLE_ID.fullmatch(table_id) is not None and _TOKEN.fullmatch(code) is not None
        stored = self.db.invitation_of(table_id)[1] if valid else None
        if not secret_matches(code, stored):
            raise NoSuchTable()
        table = self._table(table_id)
        if table.joined.get(2):
            self.db.reused_invitation(table_id)
            self.events.publish(table_id, "invitation_reused", None, 2, seats=(1,))
            raise NotNow(USED)
        return table

    def invited(self, table_id: str, code: str, *, decline: bool = False) -> InvitedOut:
        """The match a friend's invitation is to, for the friend to accept or decline: nothing is
        taken.  ``decline``: the friend declines it, and seat 1 is told (it stays valid until seat 2
        joins)."""
        with self._lock:
            table = self._invited(table_id, code)
            if decline:
                self.db.declined_invitation(table_id)
                self.events.publish(table_id, "declined", None, 2, seats=(1,))
            return InvitedOut(table=table_id, games=table.games, match=table.matches, rules=table.rules.name,
                              hints=table.hints)

    def join(self, table_id: str, code: str, links: Links) -> TableJoinedOut:
        """Exchange a friend's table's invitation for seat 2's own token (once: a second
        exchange is ``NotNow``, and seat 1 is told); ``NoSuchTable`` for a wrong code or table."""
        with self._lock:
            self._invited(table_id, code)
            token = secrets.token_urlsafe(32)
            now = time.time()
            self.db.join(table_id, 2, token_hash(token), now)
            self.db.touch(table_id, now)
            self._touched[table_id] = now
            self.events.publish(table_id, "joined", None, 2)
        return TableJoinedOut(table=table_id, seat=2, token=token, link=links.seat(table_id, 2, token),
                              warning=links.warning)

    def invitation(self, table_id: str, seat: int, links: Links) -> InvitationOut:
        """The invitation's link again, for seat 1 until the friend has joined."""
        with self._lock:
            table = self._table(table_id)
            if not table.friend:
                raise NotNow("a table against the computer has no second seat to invite")
            if seat != 1:
                raise NotYours("the invitation is seat 1's to send: you are seat 2")
            if table.invitation is None:
                raise NotNow(JOINED)
            return links.invitation(table_id, table.invitation)

    def rematch(self, table_id: str, seat: int) -> TableView:
        """``seat`` asks for the next match once the current one is over for it: against the
        computer it starts at once, with a friend once both have asked.  The seats keep their
        tokens; the next match's games deal the seeds after this one's."""
        with self._lock:
            table = self._table(table_id)
            if not table.match_over(seat):
                raise NotNow("the match is not over yet: a rematch is asked once its last game is shown down")
            if table.left:
                raise NotNow(f"{'your friend has' if seat not in table.left else 'you have'} left the table: "
                             "open a new one")
            if table.seed + (table.matches + 1) * table.games - 1 > SEED_MAX:
                raise NotNow(f"a rematch would deal seeds past {SEED_MAX}: open a new table")
            if seat not in table.rematch:
                self.db.ask_rematch(table_id, seat)
                table.rematch.add(seat)
                if table.friend and len(table.rematch) < 2:
                    self.events.publish(table_id, "rematch", None, seat)
            if len(table.rematch) == len(table.seats):
                table.matches += 1
                first = table.first_game
                self.db.start_match(table_id, table.matches, first)
                table.rematch.clear()
                table.seat_games = {s: first for s in table.seats}
                self.work.prepare(table, first)
                self.events.publish(table_id, "match", first, seat)
            return self._view(table, seat)

    def view(self, table_id: str, seat: int) -> TableView:
        with self._lock:
            return self._view(self._table(table_id), seat)

    def confirm(self, table_id: str, seat: int, text: str) -> TableView:
        """Lay ``seat``'s arrangement for its current game: final.  Both confirmed: the show-down."""
        with self._lock:
            table = self._table(table_id)
            game = table.seat_games[seat]
            row = table.row(game)
            side = row.side(seat)
            if side.is_confirmed:
                raise NotNow(f"you have already confirmed game {game}: a confirmed arrangement is final")
            status = table_status(table, seat, game)
            if status == "preparing":
                raise NotNow(f"the computer is still preparing game {game}; confirm once it has laid its packets")
            if status == "failed":
                raise NotNow(f"game {game} could not be prepared: {row.failed}")
            if status == "ended":
                raise NotNow(f"the match has ended: it was {table.results[str(table.matches)]['how']}")
            if status == "resigned":
                raise NotNow(f"game {table.in_match(game)} was resigned: it is over (POST …/next for the next game)")
            laid = play_session(table.deal(game), table.opponent).verify_confirm(text)  # PlayError: one line
            c = commit(laid, table.rules)
            side.arrangement, side.salt, side.commitment, side.confirmed = c.arrangement, c.salt, c.digest, time.time()
            if not table.other_side(game, seat).is_confirmed:
                self.db.save_side(table.id, game, seat, side)
                self.events.publish(table.id, "confirmed", game, seat)
                return self._view(table, seat)
            row.ended = side.confirmed
            self.db.show_down(table.id, game, seat, side, row)
            if game == table.last_game:
                table.results[str(table.matches)] = played_result(table)
                self.db.end_match(table.id, table.results)
            self.events.publish(table.id, "reveal", game, seat)
            self.work.write_record(table, game, seat)  # after the reveal: not in its latency
            self.work.prepare(table, game + 1)  # the next game is ready when the seats get there
            return self._view(table, seat)

    def resign(self, table_id: str, seat: int, leave: bool, scope: ResignScope = "match") -> TableView:
        """``seat`` gives the current match up (``scope`` "game": only its current game,
        ``_resign_game``): ``aborted`` before its first game is over (no result), else ``resigned``
        (the other side wins it); the other seat is told.  ``leave``: the seat leaves the table
        too (a ``left`` event; no rematch).  A match over already: only ``leave``."""
        with self._lock:
            table = self._table(table_id)
            if scope == "game":
                if leave:
                    raise NotNow("leaving the table goes with resigning the match (scope match), not a game")
                self._resign_game(table, seat)
                return self._view(table, seat)
            key = str(table.matches)
            if key not in table.results:
                aborted = not any(table.game_over(g) for g in range(table.first_game, table.last_game + 1))
                how: EventKind = "aborted" if aborted else "resigned"
                table.results[key] = {"how": how, "winner": None if aborted else 2 if seat == 1 else 1, "by": seat}
                table.rematch.clear()
                self.db.end_match(table_id, table.results)
                self.events.publish(table_id, how, None, seat)
            elif not leave:
                raise NotNow("the match is over already: nothing to resign")
            if leave and seat not in table.left:
                table.left.add(seat)
                self.db.leave(table_id, seat, time.time())
                self.events.publish(table_id, "left", None, seat)
            return self._view(table, seat)

    def _resign_game(self, table: TableRow, seat: int) -> None:
        """``seat`` resigns its current game before its show-down (lock held): lost in every slot
        (docs/rules.md), each seat's record written at once (``resigned_record``), the other seat
        told (``game_resigned``); the match goes on, or ends if it was its last game."""
        game = table.seat_games[seat]
        status = table_status(table, seat, game)
        if status not in ("placing", "waiting"):
            raise NotNow({"preparing": f"the computer is still preparing game {table.in_match(game)}: resign it once "
                                       "it has laid its packets",
                          "failed": f"game {table.in_match(game)} could not be prepared: nothing to resign",
                          "ended": "the match has ended: nothing to resign",
                          "resigned": f"game {table.in_match(game)} was resigned already",
                          "showdown": f"game {table.in_match(game)} is shown down: only a game before its "
                                      "show-down can be resigned"}[status])
        row = table.row(game)
        row.resigned, row.ended = seat, time.time()
        deal = table.deal(game)
        for s in table.seats:
            mine, theirs = row.side(s), table.other_side(game, s)
            mine.record = resigned_record(
                game=game, seed=table.seed_of(game), time=iso_time(row.ended), opponent=table.opponent, deal=deal,
                player=None if mine.arrangement is None else Arrangement.parse(mine.arrangement, deal.rules),
                computer=None if theirs.arrangement is None else Arrangement.parse(theirs.arrangement, deal.rules),
                by="player" if s == seat else "computer", hints=tuple(mine.hints))
        with self.db.transaction():
            self.db.save_game(table.id, row)
            for s in table.seats:
                self.db.save_side(table.id, game, s, row.side(s))
            if game == table.last_game:
                table.results[str(table.matches)] = played_result(table)
                self.db.end_match(table.id, table.results)
        self.events.publish(table.id, "game_resigned", game, seat)
        self.work.prepare(table, game + 1)  # the next game is ready when the seats get there

    def next_game(self, table_id: str, seat: int) -> TableView:
        with self._lock:
            table = self._table(table_id)
            if table.ended is not None:
                raise NotNow(f"the match has ended: it was {table.ended['how']}")
            game = table.seat_games[seat]
            if not table.game_over(game):
                raise NotNow(f"game {game} is not over yet: the next game starts once both sides have confirmed "
                             "(or one resigned it)")
            if game >= table.last_game:
                raise NotNow(f"the match is over: it had {table.games} game{'s' if table.games > 1 else ''} "
                             "(POST …/rematch asks for another)")
            self.db.advance(table.id, seat, game + 1)
            table.seat_games[seat] = game + 1
            self.work.prepare(table, game + 1)
            self.events.publish(table.id, "next", game + 1, seat)
            return self._view(table, seat)

    def records(self, table_id: str, seat: int) -> list[dict[str, Any]]:
        """The seat's finished games' records (``GameRecord.to_dict``), once written."""
        with self._lock:
            table = self._table(table_id)
            out = []
            for game in range(1, table.last_game + 1):
                record = table.row(game).side(seat).record
                if table.game_over(game) and record is not None:
                    out.append(record)
            return out

    # ------------------------------------------------------------------ advice

    def advice_task(self, table_id: str, seat: int, action: PlayAction, *, slots: dict[str, str] | None = None,
                    arrangement: str | None = None, max_support: int | None = None) -> tuple[TableTask, int]:
        """The worker's task for a seat's advice and the game it is for (``advice.advice_task``)."""
        with self._lock:
            return advice_task(self._table(table_id), seat, action, slots=slots, arrangement=arrangement,
                               max_support=max_support)

    def advice_used(self, table_id: str, seat: int, game: int, action: str) -> None:
        """Note the advice a seat used (the record's ``hints``)."""
        with self._lock:
            table = self.db.load(table_id)
            if table is None:
                return
            side = table.row(game).side(seat)
            side.hints.append(action)
            self.db.save_side(table_id, game, seat, side)
