"""The tables' work for the worker processes: the computer's arrangement, a seat's advice, a
finished game's record — each through ``solver.play`` (``Computer``, ``GameSession``), the game
logic of ``quintet-play``.

These are what a table (``solver.apps.serve.tables.work``, and a seat's advice from
``solver.apps.serve.tables.advice``) sends to the worker pool, one small task per action (each a
``worker.WorkerTask``, its answer the action's JSON); the worker rebuilds the seat's game
(``SeatGame``, ``play_session``) and runs it:

* ``Choose`` — ``Computer.choose`` draws the computer's arrangement from the deal's kept mix
  (``played_equilibrium``) with a secret seed, never the deal's (the deal's seed is shown to
  the player): the same seed draws what ``quintet-play --seed`` draws;
* ``Hint``, ``MixHint``, ``Grade``, ``Odds`` — ``GameSession.hint`` / ``mix_hint`` / ``grade`` /
  ``odds`` against the computer's model (``Computer.resume``: the committed arrangement is never
  drawn again), or at a friend's table against the deal's equilibrium (``Person``);
* ``Record`` — the game played out (``GameSession.play_out``) and ``GameSession.record`` with
  its regret: the JSON line ``quintet-play --record`` writes (a computer's table: a friend's
  game has no regret, and the table writes its records itself).

The deal's equilibrium, when one is needed, comes from the store: the table solved it first in
the pool's long lane (``equilibrium`` is its certified exploitability, so the store answers).
"""

from __future__ import annotations

import datetime as _dt
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal

from quintet.game import Arrangement, Deal
from solver.advisor.equilibrium import EquilibriumResult, played_equilibrium
from solver.advisor.limits import PLAY_EPSILON, PLAY_TIME_LIMIT, TABLE_SEARCH_TIME_LIMIT
from solver.apps.serve.tables.rows import FRIEND
from solver.apps.serve.worker import Answer, Progress
from solver.play.computer import Computer, EquilibriumProvider
from solver.play.session import MIX_HINT_ROLL_STREAM, GameSession, Person
from solver.storage.store import SolutionStore

__all__ = ["PlayAction", "SeatGame", "TableTask", "Choose", "Hint", "MixHint", "Odds", "Grade", "Record",
           "play_session"]

PlayAction = Literal["hint", "grade", "odds"]
"""A seat's advice (``advice.advice_task``)."""


def equilibrium_provider(store: Callable[[], SolutionStore], solved: float | None) -> EquilibriumProvider:
    """The deal's mix for play through the store (``played_equilibrium``: the one kept, else the
    equilibrium solved and kept); ``solved``: the certified exploitability already solved (the
    store holds an entry that good, so it answers at once)."""
    epsilon = max(PLAY_EPSILON, solved or 0.0)

    def provide(deal: Deal, stop: threading.Event | None) -> EquilibriumResult:
        return played_equilibrium(deal, epsilon=epsilon, time_limit=PLAY_TIME_LIMIT, store=store(),
                                  stop_event=stop)

    return provide


def play_session(deal: Deal, opponent: str, *, game: int = 1, seed: int = 0, computer: str | None = None,
                 description: str = "", provider: EquilibriumProvider | None = None, advice: bool = False,
                 slots: Sequence[tuple[int, str]] = (), hints: Sequence[str] = ()) -> GameSession:
    """One seat's ``GameSession``: against the computer (its committed ``computer`` arrangement,
    its model rebuilt by ``Computer.resume``) or a friend (``Person``; with ``advice``, hints
    against the deal's equilibrium); ``slots`` placed, ``hints`` already used.

    Without a provider no model is built: the other side is a ``Person`` whose packets are
    faced after the confirm — the game's flow only (confirm, face, reveal; a record without a
    regret), which is all the server's own process does."""
    other: Computer | Person
    if opponent != FRIEND and provider is not None:
        assert computer is not None
        other = Computer.resume(deal, opponent, Arrangement.parse(computer, deal.rules), description,
                                equilibrium=provider, files=False)
    else:
        model = provider(deal, None).opponent() if advice and provider is not None else None
        other = Person(spec=opponent, model=model, description=description or "a friend")
    session = GameSession(deal, other, game=game, seed=seed, time_limit=TABLE_SEARCH_TIME_LIMIT)
    session.hints = list(hints)
    for slot, cards in slots:
        session.place(slot, cards)
    return session


SECONDS = PLAY_TIME_LIMIT + TABLE_SEARCH_TIME_LIMIT
"""The most a table's task runs: at most the deal's equilibrium, then a search."""


@dataclass(frozen=True)
class SeatGame:
    """A seat's game as a worker rebuilds it (``play_session``), against the computer's committed
    arrangement (``computer``; None: not chosen yet) or a friend."""

    deal: Deal
    opponent: str  # "friend" or the computer's specification (canonical)
    game: int = 1
    seed: int = 0  # the deal's seed (the record's)
    computer: str | None = None  # the computer's committed arrangement (canonical text)
    description: str = ""
    equilibrium: float | None = None  # the certified exploitability of the deal's equilibrium in the store
    advice: bool = True

    def session(self, store: Callable[[], SolutionStore], slots: Sequence[tuple[int, str]] = (),
                hints: Sequence[str] = ()) -> GameSession:
        return play_session(self.deal, self.opponent, game=self.game, seed=self.seed, computer=self.computer,
                            description=self.description, provider=equilibrium_provider(store, self.equilibrium),
                            advice=self.advice, slots=slots, hints=hints)


@dataclass(frozen=True)
class TableTask(ABC):
    """A table's task: one action (``run``, each kind its own) in a seat's game (``at``)."""

    at: SeatGame
    seconds: ClassVar[float] = SECONDS

    @abstractmethod
    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        """The action's JSON answer (the worker's contract, ``worker.WorkerTask``)."""


@dataclass(frozen=True)
class Choose(TableTask):
    """The computer's arrangement (``Computer.choose``), drawn with ``draw_seed`` (secret)."""

    draw_seed: int

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        at = self.at
        chosen = Computer.choose(at.deal, at.opponent, seed=self.draw_seed, stop_event=stop, files=False,
                                 equilibrium=equilibrium_provider(store, at.equilibrium),
                                 time_limit=TABLE_SEARCH_TIME_LIMIT)
        return {"arrangement": chosen.arrangement.format(at.deal.rules), "description": chosen.description}


@dataclass(frozen=True)
class Hint(TableTask):
    """``hint``: the best completion of the placed ``slots``."""

    slots: tuple[tuple[int, str], ...] = ()

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        return self.at.session(store, self.slots).hint(stop).to_dict()


@dataclass(frozen=True)
class MixHint(TableTask):
    """``hint K``: the K-mix of the deal's equilibrium and the game's die roll."""

    max_support: int

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        return self.at.session(store).mix_hint(self.max_support, stop).to_dict(self.at.seed, MIX_HINT_ROLL_STREAM)


class Odds(TableTask):
    """``odds``: every hand the model plays in each slot (the page draws the whole of each slot)."""

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        return self.at.session(store).odds(top=None).to_model().model_dump(mode="json")


@dataclass(frozen=True)
class Grade(TableTask):
    """``grade``: the seat's five packets (canonical text), placed and graded."""

    arrangement: str

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        session = self.at.session(store)
        for slot, packet in enumerate(Arrangement.parse(self.arrangement, self.at.deal.rules).packets, start=1):
            session.place(slot, packet)
        return session.grade(stop).to_dict()


@dataclass(frozen=True)
class Record(TableTask):
    """``record``: the game played out with the seat's ``arrangement``, its record with its regret;
    ``hints`` the advice used, in order; ``time`` when the game ended (ISO 8601 UTC)."""

    arrangement: str
    hints: tuple[str, ...] = ()
    time: str | None = None

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        session = self.at.session(store, hints=self.hints)
        session.play_out(Arrangement.parse(self.arrangement, self.at.deal.rules))
        moment = _dt.datetime.fromisoformat(self.time.replace("Z", "+00:00")) if self.time else None
        return session.record(stop, time=moment).to_dict()
