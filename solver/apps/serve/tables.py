"""Tables: Quintet played on ``quintet-serve`` — against the computer, or a friend by a link.

``POST /api/tables`` opens a table (a match of N games) and returns one secret **token** per
seat, and its **link** ``/#play/TABLE/SEAT/TOKEN``.  Every other call names its seat by
``Authorization: Bearer TOKEN``.  The game itself is ``solver.play``'s, as in ``quintet-play``:
the computer is a ``Computer`` (drawn with ``Computer.choose`` in the worker pool), each seat's
game a ``GameSession`` (replayed here for its flow, rebuilt in a worker for advice and the
record: ``solver.apps.serve.table_tasks``).

How a table keeps its secrets:

* **Tokens** — ``secrets.token_urlsafe(32)`` (256 bits) per seat; the tables file stores only
  their SHA-256, compared with ``hmac.compare_digest`` against every seat of the table (and
  a stand-in for a missing table).  Table ids are ``secrets.token_urlsafe(16)`` (128 bits).
  A link carries the token in its fragment (after ``#``), which browsers never send, so it
  reaches no access log; tokens are never logged nor put in a message.  No token → 401; the
  other seat's token, a made-up one, a table that does not exist or has expired → the same
  404, byte for byte.
* **Per-seat views** — everything a seat receives (views, events, errors) is built from
  ``seat_view(table, seat)``: before both sides have confirmed, the other side's cards are
  not in it (its commitment is), and no error names them.  The computer's arrangement stays
  in the server (the tables file) until the show-down.
* **Commitments** — ``solver.play.commitment``: the computer's arrangement is drawn at the
  start of the game (with a secret seed, never the deal's, which is shown) and its SHA-256
  over ``SALT:ARRANGEMENT`` shown at once; a seat's is shown to the friend across when it
  confirms; salts and arrangements are revealed at the show-down.

The table's stream is **server-sent events** (``GET /api/tables/ID/events``; the page reads it
with ``fetch`` and a stream reader, as ``EventSource`` cannot send the Authorization header).
Tables live in SQLite (``solver.apps.serve.table_store``); idle tables expire after the TTL;
at most ``max_tables`` are open (503 with Retry-After past it).
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import math
import queue
import re
import secrets
import sys
import threading
import time
import traceback
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from quintet.cards import format_cards
from quintet.game import Arrangement, Deal
from quintet.rules import Rules
from quintet.seeds import SEED_MAX, fresh_seed, seed_series
from solver.advisor.limits import parse_slot
from solver.advisor.request import SolveRequest
from solver.advisor.schema import EquilibriumOut
from solver.apps.serve.jobs import Job, QueueFull, Unavailable, WorkerPool
from solver.apps.serve.models import ErrorOut, GradeOut, ProgressOut, SolutionOut, SparseOut
from solver.apps.serve.table_models import (
    AdviceOut,
    ArrangementIn,
    DealViewOut,
    FinishedGameOut,
    GradeIn,
    HandOut,
    HintIn,
    OddsOut,
    ScoreOut,
    SeatOut,
    ShowdownOut,
    ShowdownSlotOut,
    SideOut,
    TableCreatedOut,
    TableEventOut,
    TableIn,
    TableStatus,
    TableView,
)
from solver.apps.serve.table_store import FRIEND, TableRow, TableStore, token_hash
from solver.apps.serve.table_tasks import (
    EQUILIBRIUM_EPSILON,
    EQUILIBRIUM_TIME_LIMIT,
    PlayAction,
    PlayTask,
    play_session,
)
from solver.play.commitment import commit
from solver.play.computer import ComputerSpec
from solver.play.session import Phase, PlayError, Reveal
from solver.problem.opponents import Uniform

__all__ = ["TablesConfig", "TableService", "tables_router", "seat_view", "tables_path", "NOT_FOUND", "NO_TOKEN",
           "DEFAULT_TTL", "DEFAULT_MAX_TABLES"]

DEFAULT_TTL = 24 * 3600.0  # seconds an idle table is kept
DEFAULT_MAX_TABLES = 1000
NOT_FOUND = "no such table, or this token is not one of its seats"
NO_TOKEN = "a table's calls need its seat's token: send 'Authorization: Bearer TOKEN' (the token of the seat's link)"
TICK = 0.5  # seconds between the service's checks (progress, retries, expiry)
KEEP_ALIVE = 15.0  # seconds between comments on an idle event stream
TOUCH_EVERY = 1.0  # seconds: a table's last use is written at most this often
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,128}")
_TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


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


def _now() -> float:
    return time.time()


def _iso(moment: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


# ---------------------------------------------------------------------- the game's flow, replayed


@lru_cache(maxsize=4096)
def _reveals(deal: Deal, mine: str, theirs: str) -> tuple[Reveal, ...]:
    """The show-down of two confirmed arrangements, slot by slot: ``GameSession`` confirm,
    face, reveal (the flow of ``quintet-play``'s game)."""
    session = play_session(deal, FRIEND)
    session.confirm(mine)
    session.face(theirs)
    out = []
    while session.phase is Phase.SHOWDOWN:
        out.append(session.reveal())
    return tuple(out)


def _warm_up() -> None:
    """Replay one game and its record, so that the first real show-down does not pay for
    loading the hand evaluator."""
    deal = Deal.random(0)
    cards = format_cards(deal.live, deal.rules.deck).split()
    mine = " | ".join(" ".join(cards[5 * k:5 * k + 5]) for k in range(5))
    theirs = " | ".join(" ".join(cards[k::5]) for k in range(5))
    session = play_session(deal, FRIEND)
    session.confirm(mine)
    session.face(theirs)
    while session.phase is Phase.SHOWDOWN:
        session.reveal()
    session.record()


@lru_cache(maxsize=8192)
def _card_lists(text: str, rules: Rules) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(p) for p in Arrangement.parse(text, rules).card_lists(rules))


def _lists(text: str, deal: Deal) -> list[list[str]]:
    return [list(p) for p in _card_lists(text, deal.rules)]


@lru_cache(maxsize=4096)
def _deal_out(deal: Deal) -> tuple[list[str], list[str]]:
    """The deal's exposed and live cards as the API writes them."""
    return deal.format().split(), format_cards(deal.live, deal.rules.deck).split()


def _showdown_out(deal: Deal, mine: str, theirs: str) -> ShowdownOut:
    deck = deal.rules.deck
    slots = []
    for r in _reveals(deal, mine, theirs):
        s = r.result
        slots.append(ShowdownSlotOut(
            slot=s.slot, points=s.weight,
            you=HandOut(cards=format_cards(s.hand_a.mask, deck).split(), hand=s.hand_a.description),
            other=HandOut(cards=format_cards(s.hand_b.mask, deck).split(), hand=s.hand_b.description),
            winner={"A": "you", "B": "other", None: None}[s.winner],
            you_points=s.points_a, other_points=s.points_b, you_total=r.player_points,
            other_total=r.computer_points))
    return ShowdownOut(slots=slots, you=slots[-1].you_total, other=slots[-1].other_total)


# ---------------------------------------------------------------------- the one view


def table_status(table: TableRow, seat: int, game: int) -> TableStatus:
    row = table.row(game)
    if not table.friend and row.computer is None:
        return "failed" if row.failed else "preparing"
    if not row.side(seat).is_confirmed:
        return "placing"
    return "showdown" if table.other_side(game, seat).is_confirmed else "waiting"


def seat_view(table: TableRow, seat: int, progress: dict[str, Any] | None = None, revision: int = 0) -> TableView:
    """What ``seat`` may see of ``table``: the one function every view and event goes through.

    The other side's arrangement and salt are in it only once both have confirmed (the
    show-down); before, only whether it confirmed and its commitment.  ``progress``: the
    equilibrium solve's progress while the game is being prepared; ``revision``: the view's
    stamp (``TableService`` gives each view a larger one than the last)."""
    game = table.seat_games.get(seat, 1)
    row = table.row(game)
    deal = table.deal(game)
    rules = deal.rules
    mine = row.side(seat)
    other = table.other_side(game, seat)
    both = mine.is_confirmed and other.is_confirmed
    status = table_status(table, seat, game)
    you = SideOut(confirmed=mine.is_confirmed, commitment=mine.commitment,
                  arrangement=_lists(mine.arrangement, deal) if mine.arrangement else None, salt=mine.salt)
    theirs = SideOut(confirmed=other.is_confirmed, commitment=other.commitment if other.is_confirmed else None,
                     arrangement=_lists(other.arrangement, deal) if both and other.arrangement else None,
                     salt=other.salt if both else None)
    finished = []
    for g in range(1, min(game, table.games) + 1):
        if not table.shown_down(g):
            continue
        g_deal = table.deal(g)
        g_mine, g_other = table.row(g).side(seat), table.other_side(g, seat)
        assert g_mine.arrangement is not None and g_other.arrangement is not None
        last = _reveals(g_deal, g_mine.arrangement, g_other.arrangement)[-1]
        record = g_mine.record
        finished.append(FinishedGameOut(
            game=g, seed=table.seed_of(g), exposed=_deal_out(g_deal)[0], you=last.player_points,
            other=last.computer_points, regret=None if record is None else record.get("regret"),
            record="ready" if record is not None else "computing"))
    if table.friend:
        against = f"the deal's equilibrium (certified within {EQUILIBRIUM_EPSILON:g} points)" if table.hints else None
        ready = row.equilibrium is not None
        description = "a friend"
    else:
        against = f"the computer's model ({table.opponent})" if table.hints else None
        ready = row.computer is not None
        description = row.computer_description or f"the computer: {table.opponent}"
    return TableView(
        table=table.id, revision=revision, seat=seat, opponent=table.opponent, description=description,
        games=table.games,
        game=game, other_game=table.seat_games.get(table.other_seat(seat)) if table.friend else None,
        status=status, over=both and game >= table.games, can_next=both and game < table.games,
        deal=DealViewOut(seed=table.seed_of(game), rules=rules.name, exposed=_deal_out(deal)[0],
                         live=_deal_out(deal)[1]),
        you=you, other=theirs,
        showdown=_showdown_out(deal, mine.arrangement, other.arrangement)
        if both and mine.arrangement and other.arrangement else None,
        score=ScoreOut(you=sum(f.you for f in finished), other=sum(f.other for f in finished)),
        finished=finished,
        advice=AdviceOut(on=table.hints, against=against, ready=table.hints and ready,
                         mixes=table.hints and _mixes(table)),
        preparing=ProgressOut.model_validate(progress)
        if progress and (status == "preparing" or (table.friend and table.hints and not ready)) else None,
        error=row.failed,
    )


def _mixes(table: TableRow) -> bool:
    """Whether a seat may ask a K-mix (quintet-play's 'hint K'): the computer plays from the deal's
    equilibrium (a friend's table has no computer)."""
    return not table.friend and ComputerSpec.parse(table.opponent, files=False).needs_equilibrium


# ---------------------------------------------------------------------- the service


class TablesFull(Exception):
    def __init__(self, limit: int, retry_after: int) -> None:
        super().__init__(f"the server has its maximum of {limit:,} open tables; try again later")
        self.retry_after = retry_after


def _http(status: int, message: str) -> HTTPException:
    return HTTPException(status, message)


_SHUTDOWN = ("shutdown", None)
_EXPIRED = "expired"


@dataclass(eq=False)
class _Subscriber:
    seat: int
    queue: asyncio.Queue[tuple[str, str | None]]
    loop: asyncio.AbstractEventLoop


@dataclass
class _Retry:
    at: float
    payload: Any
    lane: Literal["quick", "long"]
    then: Callable[[Job], None]


@dataclass(frozen=True)
class _Unlocked:
    """Work for the service's thread that takes the lock itself, around its reads and writes."""

    run: Callable[[], None]


@dataclass
class _Pending:
    job: Job | None = None  # None: waiting for room in the lane
    published: int = -1  # the job version last announced


@dataclass
class TableService:
    """The tables of one server: the tables file, the work given to the worker pool, the
    event streams.  Thread-safe: requests run in the server's threads, completions and the
    periodic checks in the service's own thread; one lock serialises them."""

    config: TablesConfig
    pool: WorkerPool
    store_path: Path
    path: Path = field(init=False)
    _lock: threading.RLock = field(default_factory=threading.RLock, init=False, repr=False)
    _db: TableStore | None = field(default=None, init=False, repr=False)
    _subscribers: dict[str, set[_Subscriber]] = field(default_factory=dict, init=False, repr=False)
    _pending: dict[tuple[str, int, str], _Pending] = field(default_factory=dict, init=False, repr=False)
    _retries: dict[tuple[str, int, str], _Retry] = field(default_factory=dict, init=False, repr=False)
    _work: queue.Queue[Callable[[], None] | _Unlocked | None] = field(default_factory=queue.Queue, init=False,
                                                                      repr=False)
    _thread: threading.Thread | None = field(default=None, init=False, repr=False)
    _stopping: bool = field(default=False, init=False, repr=False)
    _next_sweep: float = field(default=0.0, init=False, repr=False)
    _touched: dict[str, float] = field(default_factory=dict, init=False, repr=False)  # last touch written
    _revision: int = field(default=0, init=False, repr=False)  # the last view's stamp (µs since the epoch)

    def __post_init__(self) -> None:
        self.path = self.config.path or tables_path(self.store_path)

    # ------------------------------------------------------------------ life

    def start(self) -> None:
        """Open the tables file, drop expired tables, resume the work of the others (a restart:
        games still to prepare, records still to write), start the service's thread."""
        with self._lock:
            self._db = TableStore(self.path)
            self._sweep()
            for table_id in self._db.ids():
                table = self._db.load(table_id)
                if table is not None:
                    self._resume(table)
        self._thread = threading.Thread(target=self._run, name="quintet-serve-tables", daemon=True)
        self._thread.start()

    def stop_streams(self) -> None:
        """The server is stopping: every event stream gets its last event and ends."""
        with self._lock:
            self._stopping = True
            for subscribers in self._subscribers.values():
                for sub in subscribers:
                    self._send(sub, _SHUTDOWN)

    def close(self) -> None:
        self.stop_streams()
        self._work.put(None)
        if self._thread is not None:
            self._thread.join(5)
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    @property
    def db(self) -> TableStore:
        if self._db is None:
            raise RuntimeError("the tables are not open (the server is starting or stopping)")
        return self._db

    def open_tables(self) -> int:
        with self._lock:
            return self.db.count()

    def _run(self) -> None:
        try:
            _warm_up()  # the first show-down loads the hand evaluator: not in a player's confirm (no lock held)
        except Exception:  # noqa: BLE001 — only a warm-up
            traceback.print_exc(file=sys.stderr)
        while True:
            try:
                item = self._work.get(timeout=TICK)
            except queue.Empty:
                item = self._tick
            if item is None:
                return
            try:
                if isinstance(item, _Unlocked):
                    item.run()
                else:
                    with self._lock:
                        if self._db is not None:
                            item()
            except Exception:  # noqa: BLE001 — a bug must not stop every table: report it and go on
                traceback.print_exc(file=sys.stderr)

    def _tick(self) -> None:
        now = _now()
        for key, retry in list(self._retries.items()):
            if retry.at <= now:
                del self._retries[key]
                self._submit(key, retry.payload, retry.lane, retry.then)
        for (table_id, game, _), pending in self._pending.items():
            job = pending.job
            if job is not None and job.version != pending.published and job.progress and table_id in self._subscribers:
                pending.published = job.version
                self._publish(table_id, "preparing", game)
        if now >= self._next_sweep:
            self._sweep()

    def _sweep(self) -> None:
        """Drop the tables idle for longer than the TTL (their streams get ``expired``)."""
        now = _now()
        self._next_sweep = now + min(60.0, max(0.5, self.config.ttl / 4))
        gone = self.db.idle(now - self.config.ttl)
        if not gone:
            return
        self.db.delete(gone)
        for table_id in gone:
            self._touched.pop(table_id, None)
            for key in [k for k in self._pending if k[0] == table_id]:
                self._pending.pop(key)
            for key in [k for k in self._retries if k[0] == table_id]:
                self._retries.pop(key)
            for sub in self._subscribers.pop(table_id, set()):
                self._send(sub, (_EXPIRED, TableEventOut(event="expired", game=None, seat=None,
                                                          view=None).model_dump_json()))
                self._send(sub, _SHUTDOWN)

    # ------------------------------------------------------------------ the worker pool

    def _submit(self, key: tuple[str, int, str], payload: Any, lane: Literal["quick", "long"],
                then: Callable[[Job], None]) -> None:
        """Give ``payload`` to the pool; ``then(job)`` in the service's thread once it is done (a
        full lane: tried again shortly)."""
        pending = self._pending.setdefault(key, _Pending())
        try:
            job = self.pool.submit(payload, lane=lane, request={"table": "(a table's task)", "task": key[2]})
        except QueueFull as full:
            self._retries[key] = _Retry(_now() + min(full.retry_after or 1, 2), payload, lane, then)
            return
        except Unavailable as broken:  # the pool gave up (its workers cannot start) or is stopping
            self._pending.pop(key, None)
            self._failed(key, str(broken))
            return
        pending.job = job

        def done(j: Job) -> None:
            def finish() -> None:
                if self._pending.get(key) is pending:
                    del self._pending[key]
                if self._stopping or j.status == "cancelled":
                    return  # the server is stopping: a restart does this again
                then(j)

            self._work.put(finish)

        job.add_done_callback(done)

    def _failed(self, key: tuple[str, int, str], error: str) -> None:
        table_id, game, what = key
        table = self.db.load(table_id)
        if table is None:
            return
        if what == "record":
            print(f"quintet-serve: a game's record could not be written: {error}", file=sys.stderr, flush=True)
            return
        row = table.row(game)
        row.failed = error
        self.db.save_game(table_id, row)
        self._publish(table_id, "failed", game)

    def _job_error(self, key: tuple[str, int, str], job: Job) -> bool:
        if job.status == "done" and job.result is not None:
            return False
        self._failed(key, job.error or "the task failed")
        return True

    def _progress(self, table: TableRow, game: int) -> dict[str, Any] | None:
        pending = self._pending.get((table.id, game, "equilibrium"))
        return None if pending is None or pending.job is None else pending.job.progress

    def _view(self, table: TableRow, seat: int, progress: dict[str, Any] | None = None) -> TableView:
        """``seat_view`` stamped with a revision larger than every earlier view's (the lock is
        held: views are built in the order of the state they show).  Microseconds of the clock,
        so a restarted server goes on above the old stamps; exact as a JavaScript number."""
        self._revision = max(self._revision + 1, time.time_ns() // 1000)
        return seat_view(table, seat, progress, self._revision)

    # ------------------------------------------------------------------ preparing a game

    def _resume(self, table: TableRow) -> None:
        for game in table.seat_games.values():
            self._prepare(table, game)
            if table.shown_down(game):
                self._prepare(table, game + 1)
        for game in range(1, table.games + 1):
            if table.shown_down(game):
                for seat in table.seats:
                    if table.row(game).side(seat).record is None:
                        self._write_record(table, game, seat)

    def _prepare(self, table: TableRow, game: int) -> None:
        """Start what game ``game`` needs before it is played: the computer's arrangement (after
        the deal's equilibrium when its model needs one), or at a friend's table with hints the
        deal's equilibrium.  Idempotent."""
        if game > table.games:
            return
        row = table.row(game)
        if row.failed:
            return
        deal = table.deal(game)
        if table.friend:
            if table.hints and row.equilibrium is None:
                self._solve_equilibrium(table.id, game, deal)
            return
        if row.computer is not None:
            return
        spec = ComputerSpec.parse(table.opponent, files=False)
        if spec.needs_equilibrium and row.equilibrium is None:
            self._solve_equilibrium(table.id, game, deal)
            return
        key = (table.id, game, "choose")
        if key in self._pending:
            return
        task = PlayTask("choose", deal, table.opponent, game=game, seed=table.seed_of(game),
                        draw_seed=secrets.randbelow(SEED_MAX + 1), equilibrium=row.equilibrium)
        self._submit(key, task, "quick", lambda job: self._chosen(key, job))

    def _solve_equilibrium(self, table_id: str, game: int, deal: Deal) -> None:
        key = (table_id, game, "equilibrium")
        if key in self._pending:
            return
        request = SolveRequest.parse(deal.format(), deal.rules, opponent="equilibrium", epsilon=EQUILIBRIUM_EPSILON,
                                     time_limit=EQUILIBRIUM_TIME_LIMIT, files=False)
        self._submit(key, request, "long", lambda job: self._solved(key, job))

    def _solved(self, key: tuple[str, int, str], job: Job) -> None:
        if self._job_error(key, job):
            return
        table = self.db.load(key[0])
        if table is None:
            return
        assert isinstance(job.result, EquilibriumOut)  # the answer of an equilibrium request
        row = table.row(key[1])
        row.equilibrium = float(job.result.exploitability)
        self.db.save_game(table.id, row)
        if table.friend:
            self._publish(table.id, "ready", key[1])
        else:
            self._prepare(table, key[1])

    def _chosen(self, key: tuple[str, int, str], job: Job) -> None:
        if self._job_error(key, job):
            return
        table = self.db.load(key[0])
        if table is None:
            return
        assert job.result is not None
        row = table.row(key[1])
        arrangement = Arrangement.parse(str(job.result["arrangement"]), table.rules)
        c = commit(arrangement, table.rules)
        row.computer, row.computer_salt, row.computer_commitment = c.arrangement, c.salt, c.digest
        row.computer_description = str(job.result["description"])
        self.db.save_game(table.id, row)
        self._publish(table.id, "ready", key[1])

    def _write_record(self, table: TableRow, game: int, seat: int) -> None:
        """The game's record from ``seat``'s side, with its regret (a worker grades it); at a
        friend's table both seats' records, without a regret, by the service's thread."""
        if table.friend:
            self._work.put(_Unlocked(lambda: self._write_friend_records(table.id, game)))
            return
        key = (table.id, game, f"record {seat}")
        if key in self._pending:
            return
        row = table.row(game)
        side = row.side(seat)
        assert side.arrangement is not None and row.ended is not None
        task = PlayTask("record", table.deal(game), table.opponent, game=game, seed=table.seed_of(game),
                        computer=row.computer, description=row.computer_description or "",
                        equilibrium=row.equilibrium, arrangement=side.arrangement, hints=tuple(side.hints),
                        time=_iso(row.ended))
        self._submit(key, task, "quick", lambda job: self._recorded(key, seat, job))

    def _recorded(self, key: tuple[str, int, str], seat: int, job: Job) -> None:
        if self._job_error(key, job):
            return
        table = self.db.load(key[0])
        if table is None:
            return
        side = table.row(key[1]).side(seat)
        side.record = job.result
        self.db.save_side(table.id, key[1], seat, side)
        self._publish(table.id, "record", key[1])

    # ------------------------------------------------------------------ events

    def _send(self, sub: _Subscriber, item: tuple[str, str | None]) -> None:
        try:
            sub.loop.call_soon_threadsafe(sub.queue.put_nowait, item)
        except RuntimeError:  # the loop is closed: the stream is gone
            pass

    def _publish(self, table_id: str, kind: str, game: int | None, seat: int | None = None) -> None:
        """Send ``kind`` to every stream of the table, each with its own seat's view."""
        subscribers = self._subscribers.get(table_id)
        if not subscribers:
            return
        table = self.db.load(table_id)
        if table is None:
            return
        views: dict[int, str] = {}
        for sub in subscribers:
            if sub.seat not in views:
                view = self._view(table, sub.seat, self._progress(table, table.seat_games.get(sub.seat, 1)))
                views[sub.seat] = TableEventOut(event=kind, game=game, seat=seat,  # type: ignore[arg-type]
                                                view=view).model_dump_json()
            self._send(sub, (kind, views[sub.seat]))

    def subscribe(self, table_id: str, sub: _Subscriber) -> str:
        """A new stream ``sub``: subscribed, and its first event (the view now)."""
        seat = sub.seat
        with self._lock:
            table = self._authorised(table_id, seat)
            view = self._view(table, seat, self._progress(table, table.seat_games[seat]))
            first = TableEventOut(event="view", game=view.game, seat=None, view=view).model_dump_json()
            if self._stopping:
                self._send(sub, _SHUTDOWN)
            else:
                self._subscribers.setdefault(table_id, set()).add(sub)
        return first

    def unsubscribe(self, table_id: str, sub: _Subscriber) -> None:
        with self._lock:
            subscribers = self._subscribers.get(table_id)
            if subscribers is not None:
                subscribers.discard(sub)
                if not subscribers:
                    del self._subscribers[table_id]

    # ------------------------------------------------------------------ requests

    def authenticate(self, table_id: str, token: str) -> int:
        """The seat ``token`` is for at ``table_id`` (and the table is used: its idle clock
        restarts); else the one 404."""
        with self._lock:
            seat = None
            if _TABLE_ID.fullmatch(table_id) and _TOKEN.fullmatch(token):
                seat = self.db.seat_of(table_id, token)
            else:
                self.db.seat_of("", "")  # the same work as for a real look-up
            if seat is None:
                raise _http(404, NOT_FOUND)
            now = _now()
            if now - self._touched.get(table_id, 0.0) >= TOUCH_EVERY:  # the idle clock restarts (a write a second)
                self._touched[table_id] = now
                self.db.touch(table_id, now)
            return seat

    def _authorised(self, table_id: str, seat: int) -> TableRow:
        table = self.db.load(table_id)
        if table is None:  # expired between the check and now
            raise _http(404, NOT_FOUND)
        return table

    def create(self, body: TableIn, base_url: str) -> TableCreatedOut:
        rules = body.rules.to_rules()
        friend = body.opponent.strip() == FRIEND
        seeds = seed_series(fresh_seed(body.games) if body.seed is None else body.seed, body.games, "seed", "games")
        first = Deal.random(seeds[0], rules)
        if friend:
            opponent = FRIEND
        else:
            spec = ComputerSpec.parse(body.opponent, files=False)
            if spec.target is not None:  # a model that cannot be used is refused now, in one line
                spec.target.resolve(first, files=False, extra={"equilibrium": Uniform()})
            opponent = spec.format()
        table = TableRow(secrets.token_urlsafe(16), opponent, body.games, seeds[0],
                         body.rules.model_dump(mode="json", exclude_none=True), not friend if body.hints is None
                         else body.hints, 0.0, 0.0)
        tokens = {seat: secrets.token_urlsafe(32) for seat in table.seats}
        with self._lock:
            now = table.created = table.touched = _now()
            if self._stopping:
                raise _http(503, "the server is stopping")
            if self.db.count() >= self.config.max_tables:
                self._sweep()
            if self.db.count() >= self.config.max_tables:
                oldest = self.db.oldest_touch() or now
                raise TablesFull(self.config.max_tables, max(1, math.ceil(oldest + self.config.ttl - now)))
            self.db.create(table, {seat: token_hash(t) for seat, t in tokens.items()})
            table.seat_games = {seat: 1 for seat in table.seats}
            self._prepare(table, 1)
        base = base_url.rstrip("/")
        return TableCreatedOut(table=table.id, seats=[
            SeatOut(seat=seat, token=token, url=f"{base}/#play/{table.id}/{seat}/{token}")
            for seat, token in tokens.items()])

    def view(self, table_id: str, seat: int) -> TableView:
        with self._lock:
            table = self._authorised(table_id, seat)
            return self._view(table, seat, self._progress(table, table.seat_games[seat]))

    def confirm(self, table_id: str, seat: int, text: str) -> TableView:
        """Lay ``seat``'s arrangement for its current game: final.  Both confirmed: the show-down."""
        with self._lock:
            table = self._authorised(table_id, seat)
            game = table.seat_games[seat]
            row = table.row(game)
            side = row.side(seat)
            if side.is_confirmed:
                raise _http(409, f"you have already confirmed game {game}: a confirmed arrangement is final")
            status = table_status(table, seat, game)
            if status == "preparing":
                raise _http(409, f"the computer is still preparing game {game}; confirm once it has laid its packets")
            if status == "failed":
                raise _http(409, f"game {game} could not be prepared: {row.failed}")
            deal = table.deal(game)
            laid = play_session(deal, table.opponent).verify_confirm(text)  # PlayError (400): one line, your cards
            c = commit(laid, table.rules)
            side.arrangement, side.salt, side.commitment, side.confirmed = c.arrangement, c.salt, c.digest, _now()
            other = table.other_side(game, seat)
            if not other.is_confirmed:
                self.db.save_side(table.id, game, seat, side)
                self._publish(table.id, "confirmed", game, seat)
                return self._view(table, seat)
            row.ended = side.confirmed
            self.db.show_down(table.id, game, seat, side, row)
            self._publish(table.id, "reveal", game, seat)
            self._write_record(table, game, seat)  # after the reveal: not in its latency
            self._prepare(table, game + 1)  # the next game is ready when the seats get there
            return self._view(table, seat)

    def _write_friend_records(self, table_id: str, game: int) -> None:
        """Both seats' records of a friend's game (no regret: a friend's model is not known).
        Run by the service's thread; the replays run without the lock (confirmed arrangements
        do not change)."""
        with self._lock:
            table = self.db.load(table_id) if self._db is not None else None
        if table is None or not table.shown_down(game):
            return
        deal = table.deal(game)
        row = table.row(game)
        assert row.ended is not None
        records = {}
        for seat in table.seats:
            mine, theirs = row.side(seat), table.other_side(game, seat)
            assert mine.arrangement is not None and theirs.arrangement is not None
            if mine.record is not None:
                continue
            session = play_session(deal, FRIEND, game=game, seed=table.seed_of(game), hints=mine.hints)
            session.confirm(mine.arrangement)
            session.face(theirs.arrangement)
            while session.phase is Phase.SHOWDOWN:
                session.reveal()
            records[seat] = session.record(time=dt.datetime.fromtimestamp(row.ended, dt.UTC)).to_dict()
        if not records:
            return
        with self._lock:
            table = self.db.load(table_id) if self._db is not None else None
            if table is None:
                return
            for seat, record in records.items():
                side = table.row(game).side(seat)
                if side.record is None:
                    side.record = record
                    self.db.save_side(table.id, game, seat, side)
            self._publish(table.id, "record", game)

    def next_game(self, table_id: str, seat: int) -> TableView:
        with self._lock:
            table = self._authorised(table_id, seat)
            game = table.seat_games[seat]
            if not table.shown_down(game):
                raise _http(409, f"game {game} is not over yet: the next game starts once both sides have confirmed")
            if game >= table.games:
                raise _http(409, f"the match is over: it had {table.games} game{'s' if table.games > 1 else ''}")
            self.db.advance(table.id, seat, game + 1)
            table.seat_games[seat] = game + 1
            self._prepare(table, game + 1)
            self._publish(table.id, "next", game + 1, seat)
            return self._view(table, seat, self._progress(table, game + 1))

    def records(self, table_id: str, seat: int) -> list[dict[str, Any]]:
        with self._lock:
            table = self._authorised(table_id, seat)
            out = []
            for game in range(1, table.games + 1):
                record = table.row(game).side(seat).record
                if table.shown_down(game) and record is not None:
                    out.append(record)
            return out

    def advice_task(self, table_id: str, seat: int, action: PlayAction, *, slots: dict[str, str] | None = None,
                    arrangement: str | None = None, max_support: int | None = None) -> tuple[PlayTask, int]:
        """The worker's task for a seat's hint (``max_support``: the K-mix), grade or odds (checked
        here: ``PlayError``, or 403/409 when advice is not for now); returns it and the game it is for."""
        with self._lock:
            table = self._authorised(table_id, seat)
            game = table.seat_games[seat]
            row = table.row(game)
            if not table.hints:
                raise _http(403, "hints, grades and odds are off at this table")
            if row.side(seat).is_confirmed:
                raise _http(409, f"you have confirmed game {game}: hints, grades and odds are for placing")
            status = table_status(table, seat, game)
            if status == "failed":
                raise _http(409, f"game {game} could not be prepared: {row.failed}")
            if status == "preparing" or (table.friend and row.equilibrium is None):
                raise _http(409, "the advice's model is still being prepared (the deal's equilibrium is being "
                                 "solved); try again when the table says it is ready")
            deal = table.deal(game)
            session = play_session(deal, table.opponent)
            placed: list[tuple[int, str]] = []
            if max_support is not None:
                if slots:
                    raise PlayError("max_support: a K-mix is of whole arrangements; send it without slots")
                if table.friend:
                    raise PlayError("max_support: a K-mix mixes the arrangements of the equilibrium a computer "
                                    "plays from, and a friend's table has no computer; a hint without max_support "
                                    "advises against the deal's equilibrium")
                if not _mixes(table):
                    raise PlayError(f"max_support: a K-mix mixes arrangements of the deal's equilibrium, and this "
                                    f"table's computer plays {table.opponent}, not from it; a hint without "
                                    "max_support completes your slots")
            elif action == "hint":
                for key, cards in (slots or {}).items():
                    placed.append((parse_slot(key, deal.rules.n_slots, "slots"), cards))
                for s, cards in placed:
                    session.place(s, cards)
                session.verify_hint()
            laid = None
            if action == "grade":
                assert arrangement is not None
                laid = session.verify_confirm(arrangement).format(deal.rules)
            task = PlayTask(action, deal, table.opponent, game=game, seed=table.seed_of(game), computer=row.computer,
                            description=row.computer_description or "", equilibrium=row.equilibrium,
                            advice=table.hints, slots=tuple(placed), arrangement=laid, max_support=max_support)
            return task, game

    def advice_used(self, table_id: str, seat: int, game: int, action: str) -> None:
        """Note the advice a seat used (the record's ``hints``)."""
        with self._lock:
            table = self.db.load(table_id)
            if table is None:
                return
            side = table.row(game).side(seat)
            side.hints.append(action)
            self.db.save_side(table_id, game, seat, side)


# ---------------------------------------------------------------------- the router


_ERRORS: dict[int | str, dict[str, Any]] = {
    400: {"model": ErrorOut, "description": "bad input: an arrangement, cards, an opponent, a seed (one line)"},
    401: {"model": ErrorOut, "description": "no token: send 'Authorization: Bearer TOKEN'"},
    404: {"model": ErrorOut, "description": "no such table, or the token is not one of its seats (the same bytes "
                                            "for both: which tables exist is not told)"},
    413: {"model": ErrorOut, "description": "request body too large"},
    422: {"model": ErrorOut, "description": "malformed request: a wrong JSON type, an unknown field…"},
}
_SEAT_ERRORS: dict[int | str, dict[str, Any]] = {k: _ERRORS[k] for k in (401, 404, 422)}


_bearer = HTTPBearer(auto_error=False, scheme_name="seat token",
                     description="the seat's token (from its link: /#play/TABLE/SEAT/TOKEN)")


def service(request: Request) -> TableService:
    """The server's tables."""
    tables: TableService = request.app.state.quintet.tables
    return tables


async def _token(credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]) -> str:
    if credentials is None:
        raise HTTPException(401, NO_TOKEN, headers={"WWW-Authenticate": "Bearer"})
    return credentials.credentials


Token = Annotated[str, Depends(_token)]  # the seat's token, checked against the table by ``authenticate``


def _json(model: BaseModel) -> Response:
    """A response model's JSON as it is (built and typed once: not validated again)."""
    return Response(model.model_dump_json(), media_type="application/json")


def tables_router() -> APIRouter:
    """The ``/api/tables`` endpoints (the service is ``request.app.state.quintet.tables``)."""
    router = APIRouter(prefix="/api/tables", tags=["tables"])
    _add_seat_routes(router)
    _add_events_route(router)
    _add_advice_routes(router)
    return router


def _add_seat_routes(router: APIRouter) -> None:
    """Open a table; a seat's view, confirm, next game and records."""

    @router.post("", status_code=201, response_model=TableCreatedOut, responses={
        **{k: _ERRORS[k] for k in (400, 413, 422)},
        503: {"model": ErrorOut, "description": "the server has its maximum of open tables (Retry-After: seconds "
                                                "until the oldest idle one expires)"}})
    def create_table(body: TableIn, request: Request) -> Response:
        """Open a table: a match against the computer (one seat) or a friend (two seats: send seat
        2's link).  Each seat's token is shown once, here."""
        try:
            created = service(request).create(body, str(request.base_url))
            return Response(created.model_dump_json(), status_code=201, media_type="application/json")
        except TablesFull as full:
            raise HTTPException(503, str(full), headers={"Retry-After": str(full.retry_after)}) from None

    @router.get("/{table_id}", response_model=TableView, responses=_SEAT_ERRORS)
    def get_table(table_id: str, request: Request, token: Token) -> Response:
        """Your seat's view: the game, the deal, your arrangement, the other side's confirm and
        commitment, the show-down once both have confirmed, the match."""
        tables = service(request)
        return _json(tables.view(table_id, tables.authenticate(table_id, token)))

    @router.post("/{table_id}/arrangement", response_model=TableView, responses={
        **_ERRORS, 409: {"model": ErrorOut, "description": "already confirmed, or the game is not ready"}})
    def confirm(table_id: str, body: ArrangementIn, request: Request, token: Token) -> Response:
        """Confirm your arrangement for your current game (final)."""
        tables = service(request)
        return _json(tables.confirm(table_id, tables.authenticate(table_id, token), body.arrangement))

    @router.post("/{table_id}/next", response_model=TableView, responses={
        **_SEAT_ERRORS, 413: _ERRORS[413],
        409: {"model": ErrorOut, "description": "the game is not shown down, or the match is over"}})
    def next_game(table_id: str, request: Request, token: Token) -> Response:
        """Move to the next game once the show-down is there."""
        tables = service(request)
        return _json(tables.next_game(table_id, tables.authenticate(table_id, token)))

    @router.get("/{table_id}/records", responses={
        200: {"content": {"application/x-ndjson": {"schema": {"type": "string"}}},
              "description": "one JSON line per finished game, as quintet-play --record writes them (you are "
                             "'player', the other side 'computer')"},
        **_SEAT_ERRORS})
    def records(table_id: str, request: Request, token: Token) -> Response:
        """Your finished games as JSON lines (a game appears once its regret is computed)."""
        tables = service(request)
        lines = [json.dumps(r, ensure_ascii=True, separators=(", ", ": ")) + "\n"
                 for r in tables.records(table_id, tables.authenticate(table_id, token))]
        return Response("".join(lines), media_type="application/x-ndjson",
                        headers={"Content-Disposition": f'attachment; filename="quintet-{table_id[:8]}.jsonl"'})


def _add_events_route(router: APIRouter) -> None:
    """A seat's server-sent events (a keep-alive comment every ``KEEP_ALIVE`` seconds)."""

    @router.get("/{table_id}/events", responses={
        200: {"content": {"text/event-stream": {"schema": TableEventOut.model_json_schema()}},
              "description": "server-sent events: 'event: KIND', 'data: ' a TableEventOut"},
        **_SEAT_ERRORS})
    async def events(table_id: str, request: Request, token: Token) -> StreamingResponse:
        """The table's events for your seat (server-sent events; the first is your view)."""
        tables = service(request)
        sub = _Subscriber(0, asyncio.Queue(), asyncio.get_running_loop())

        def subscribe() -> str:
            sub.seat = tables.authenticate(table_id, token)
            return tables.subscribe(table_id, sub)

        first = await run_in_threadpool(subscribe)

        async def stream() -> AsyncIterator[str]:
            try:
                yield f"event: view\ndata: {first}\n\n"
                while True:
                    try:
                        kind, data = await asyncio.wait_for(sub.queue.get(), timeout=KEEP_ALIVE)
                    except TimeoutError:
                        yield ": keep-alive\n\n"
                        continue
                    if kind == "shutdown":
                        payload = TableEventOut(event="shutdown", game=None, seat=None, view=None).model_dump_json()
                        yield f"event: shutdown\ndata: {payload}\n\n"
                        return
                    yield f"event: {kind}\ndata: {data}\n\n"
            finally:
                tables.unsubscribe(table_id, sub)

        return StreamingResponse(stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


def _add_advice_routes(router: APIRouter) -> None:
    """A seat's advice (hint, grade, odds): a quick-lane job of the worker pool."""
    advice_errors: dict[int | str, dict[str, Any]] = {
        **_ERRORS,
        403: {"model": ErrorOut, "description": "hints are off at this table"},
        409: {"model": ErrorOut, "description": "not now: confirmed already, or the model is still being prepared"},
        503: {"model": ErrorOut, "description": "the server is busy (Retry-After) or stopping"},
    }

    async def advise(request: Request, table_id: str, token: str, action: PlayAction, **given: Any) -> Any:
        tables = service(request)

        def task_for() -> tuple[int, PlayTask, int]:
            seat = tables.authenticate(table_id, token)
            return (seat, *tables.advice_task(table_id, seat, action, **given))

        seat, task, game = await run_in_threadpool(task_for)
        job = tables.pool.submit(task, lane="quick", request={"table": "(a seat's advice)"})
        if not await request.app.state.quintet.finished(job):  # the server's AppState: it is stopping
            tables.pool.cancel(job.id)
            raise HTTPException(503, "the server is stopping")
        if job.status != "done" or job.result is None:
            if job.status == "cancelled":
                raise HTTPException(503, "the server is stopping")
            if job.error_kind == "input":
                raise HTTPException(400, job.error or "bad input")
            raise RuntimeError(job.error or "the advice failed")
        used = action if given.get("max_support") is None else f"hint {given['max_support']}"  # as quintet-play
        await run_in_threadpool(tables.advice_used, table_id, seat, game, used)
        result = job.result
        return Response(result.model_dump_json() if isinstance(result, BaseModel) else json.dumps(result),
                        media_type="application/json")

    @router.post("/{table_id}/hint", response_model=SolutionOut | SparseOut, responses=advice_errors)
    async def hint(table_id: str, request: Request, token: Token, body: HintIn | None = None) -> Any:
        """quintet-play's 'hint': the best completion of the slots you have placed (none: the best
        arrangement) against the computer's model — at a friend's table, the deal's equilibrium;
        with ``max_support`` K, 'hint K': the K-mix of the deal's equilibrium (a SparseOut)."""
        body = body or HintIn()
        return await advise(request, table_id, token, "hint", slots=dict(body.slots), max_support=body.max_support)

    @router.post("/{table_id}/grade", response_model=GradeOut, responses=advice_errors)
    async def grade(table_id: str, body: GradeIn, request: Request, token: Token) -> Any:
        """quintet-play's 'grade': value, regret and best two-card swap of five packets (not confirmed)."""
        return await advise(request, table_id, token, "grade", arrangement=body.arrangement)

    @router.post("/{table_id}/odds", response_model=OddsOut, responses=advice_errors)
    async def odds(table_id: str, request: Request, token: Token) -> Any:
        """quintet-play's 'odds': per slot, the hands the model plays there and their odds."""
        return await advise(request, table_id, token, "odds")
