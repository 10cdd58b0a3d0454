"""What a table needs from the worker pool, and what it does with the answers.

Before a game is played: the computer's arrangement (``choose``, after the deal's equilibrium
when its model needs one, committed at once), or at a friend's table with hints the deal's
equilibrium (the advice's model).  After a show-down: each seat's record (a computer's table:
with its regret, graded by a worker; a friend's: replayed in the scheduler's thread, without a
regret).  A restarted server resumes whatever was left undone.  Every answer is written to the
tables file before it is announced on the table's streams.
"""

from __future__ import annotations

import datetime as dt
import secrets
import sys
import threading
import time
from collections.abc import Callable

from quintet.game import Arrangement, Deal
from quintet.seeds import SEED_MAX
from solver.advisor.limits import PLAY_EPSILON, PLAY_TIME_LIMIT
from solver.advisor.request import SolveRequest
from solver.advisor.schema import EquilibriumOut
from solver.apps.serve.jobs import Job
from solver.apps.serve.tables.events import TableEvents
from solver.apps.serve.tables.rows import FRIEND, TableRow
from solver.apps.serve.tables.scheduler import Lane, Scheduler, TaskKey
from solver.apps.serve.tables.store import TableStore
from solver.apps.serve.tables.tasks import Choose, Record, SeatGame, play_session
from solver.apps.serve.worker import SolveTask, WorkerTask
from solver.play.commitment import commit
from solver.play.computer import ComputerSpec

__all__ = ["TableWork", "iso_time"]


def iso_time(moment: float) -> str:
    """Unix seconds as a record's time: ISO 8601 UTC, to the second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


class TableWork:
    """The tables' tasks.  ``store()`` is the open tables file (None: closed); ``lock`` the
    service's, held by every call here but ``_write_friend_records`` (which takes it itself);
    ``creators``: each table's creator (a client key), whose jobs its preparations are."""

    def __init__(self, store: Callable[[], TableStore | None], lock: threading.RLock, scheduler: Scheduler,
                 events: TableEvents) -> None:
        self._store = store
        self._lock = lock
        self._scheduler = scheduler
        self._events = events
        self.creators: dict[str, str] = {}

    @property
    def db(self) -> TableStore:
        db = self._store()
        if db is None:
            raise RuntimeError("the tables are not open (the server is starting or stopping)")
        return db

    def equilibrium_progress(self, table: TableRow, game: int) -> dict[str, object] | None:
        """The progress of the deal's equilibrium being solved for ``game`` (None: not being solved)."""
        return self._scheduler.progress((table.id, game, "equilibrium"))

    # ------------------------------------------------------------------ before a game

    def resume(self, table: TableRow) -> None:
        """A restart: prepare the games the seats are at (and the next of a shown-down one),
        write the records still missing."""
        for game in table.seat_games.values():
            self.prepare(table, game)
            if table.game_over(game):
                self.prepare(table, game + 1)
        for game in range(1, table.last_game + 1):
            if table.shown_down(game):
                for seat in table.seats:
                    if table.row(game).side(seat).record is None:
                        self.write_record(table, game, seat)

    def prepare(self, table: TableRow, game: int, *, strict: bool = False) -> None:
        """Start what game ``game`` needs before it is played: the computer's arrangement (after
        the deal's equilibrium when its model needs one), or at a friend's table with hints the
        deal's equilibrium — a job of the table's creator (``strict``: ``TooMany`` when the
        creator has its most jobs; else it waits for room).  Idempotent."""
        if game > table.last_game:
            return
        row = table.row(game)
        if row.failed:
            return
        deal = table.deal(game)
        if table.friend:
            if table.hints and row.equilibrium is None:
                self._solve_equilibrium(table.id, game, deal, strict)
            return
        if row.computer is not None:
            return
        spec = ComputerSpec.parse(table.opponent, files=False)
        if spec.needs_equilibrium and row.equilibrium is None:
            self._solve_equilibrium(table.id, game, deal, strict)
            return
        key = (table.id, game, "choose")
        if self._scheduler.pending(key):
            return
        task = Choose(SeatGame(deal, table.opponent, seed=table.seed_of(game), equilibrium=row.equilibrium),
                      secrets.randbelow(SEED_MAX + 1))
        self._submit(key, task, "quick", self._chosen, strict)

    def _solve_equilibrium(self, table_id: str, game: int, deal: Deal, strict: bool) -> None:
        key = (table_id, game, "equilibrium")
        if self._scheduler.pending(key):
            return
        request = SolveRequest.parse(deal.format(), deal.rules, opponent="equilibrium", epsilon=PLAY_EPSILON,
                                     time_limit=PLAY_TIME_LIMIT, files=False)
        self._submit(key, SolveTask(request), "long", self._solved, strict)

    def _submit(self, key: TaskKey, payload: WorkerTask, lane: Lane, then: Callable[[TaskKey, Job], None],
                strict: bool = False) -> None:
        def done(job: Job) -> None:
            if job.status != "done" or job.result is None:
                self._failed(key, job.error or "the task failed")
            else:
                then(key, job)

        self._scheduler.submit(key, payload, lane, done, lambda why: self._failed(key, why),
                               owner=self.creators.get(key[0]), strict=strict)

    def _failed(self, key: TaskKey, error: str) -> None:
        table_id, game, what = key
        table = self.db.load(table_id)
        if table is None:
            return
        if what.startswith("record"):
            print(f"quintet-serve: a game's record could not be written: {error}", file=sys.stderr, flush=True)
            return
        row = table.row(game)
        row.failed = error
        self.db.save_game(table_id, row)
        self._events.publish(table_id, "failed", game)

    def _solved(self, key: TaskKey, job: Job) -> None:
        table = self.db.load(key[0])
        if table is None:
            return
        assert isinstance(job.result, EquilibriumOut)  # the answer of an equilibrium request
        row = table.row(key[1])
        row.equilibrium = float(job.result.exploitability)
        self.db.save_game(table.id, row)
        if table.friend:
            self._events.publish(table.id, "ready", key[1])
        else:
            self.prepare(table, key[1])

    def _chosen(self, key: TaskKey, job: Job) -> None:
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
        self._events.publish(table.id, "ready", key[1])

    # ------------------------------------------------------------------ after a show-down

    def write_record(self, table: TableRow, game: int, seat: int) -> None:
        """The game's record from ``seat``'s side, with its regret (a worker grades it); at a
        friend's table both seats' records, without a regret, by the scheduler's thread."""
        if table.friend:
            self._scheduler.later(lambda: self._write_friend_records(table.id, game), locked=False)
            return
        key = (table.id, game, f"record {seat}")
        if self._scheduler.pending(key):
            return
        row = table.row(game)
        side = row.side(seat)
        assert side.arrangement is not None and row.ended is not None
        at = SeatGame(table.deal(game), table.opponent, game=game, seed=table.seed_of(game), computer=row.computer,
                      description=row.computer_description or "", equilibrium=row.equilibrium)
        task = Record(at, side.arrangement, tuple(side.hints), iso_time(row.ended))
        self._submit(key, task, "quick", lambda k, job: self._recorded(k, seat, job))

    def _recorded(self, key: TaskKey, seat: int, job: Job) -> None:
        table = self.db.load(key[0])
        if table is None:
            return
        side = table.row(key[1]).side(seat)
        side.record = job.result
        self.db.save_side(table.id, key[1], seat, side)
        self._events.publish(table.id, "record", key[1])

    def _write_friend_records(self, table_id: str, game: int) -> None:
        """Both seats' records of a friend's game (no regret: a friend's model is not known).
        The replays run without the lock (confirmed arrangements do not change)."""
        with self._lock:
            db = self._store()
            table = db.load(table_id) if db is not None else None
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
            session.play_out(mine.arrangement, theirs.arrangement)
            records[seat] = session.record(time=dt.datetime.fromtimestamp(row.ended, dt.UTC)).to_dict()
        if not records:
            return
        with self._lock:
            db = self._store()
            table = db.load(table_id) if db is not None else None
            if db is None or table is None:
                return
            for seat, record in records.items():
                side = table.row(game).side(seat)
                if side.record is None:
                    side.record = record
                    db.save_side(table.id, game, seat, side)
            self._events.publish(table.id, "record", game)
