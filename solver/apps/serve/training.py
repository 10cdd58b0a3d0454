"""The games' review and training puzzles for the worker processes: what ``POST /api/review``
and ``POST /api/puzzles/grade`` send to the pool (``solver.apps.serve.routers.training``).  Each
task runs the one module of its concept — ``solver.play.review``, ``solver.play.puzzle`` — as
``quintet-play review`` and ``quintet-play puzzle`` do, and answers its response model (``worker.WorkerTask``).

A review wants the deal's mix for play: through the store (``played_equilibrium``: at once when
one is kept or the equilibrium is stored to the target ε, else solved — the router then makes the
request a job of the long lane).  A puzzle's grade reads the shipped set, else the store (a puzzle
is one of their deals)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from quintet.game import Arrangement, Deal
from solver.advisor.equilibrium import played_equilibrium
from solver.apps.serve.worker import Answer, Progress, equilibrium_progress
from solver.play.puzzle import load_puzzle
from solver.play.review import REVIEW_TOP, review
from solver.storage.records import GameRecord
from solver.storage.store import SolutionStore

__all__ = ["ReviewTask", "PuzzleGradeTask"]


@dataclass(frozen=True)
class ReviewTask:
    """A finished game to review; ``epsilon`` None: not against the equilibrium."""

    record: GameRecord
    epsilon: float | None
    time_limit: float

    @property
    def seconds(self) -> float:
        """The most its searches may take: the equilibrium, then a grade against the model and
        one against the equilibrium, each ``REVIEW_TOP`` searches (its best plans) within ``time_limit``."""
        return self.time_limit * (REVIEW_TOP if self.epsilon is None else 1 + 2 * REVIEW_TOP)

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        eq = None
        if self.epsilon is not None:
            eq = played_equilibrium(self.record.deal, epsilon=self.epsilon, time_limit=self.time_limit,
                                    store=store(), stop_event=stop, progress=equilibrium_progress(progress))
        return review(self.record, equilibrium=eq, time_limit=self.time_limit, stop_event=stop).to_model()


@dataclass(frozen=True)
class PuzzleGradeTask:
    """A puzzle's answer to grade: the deal as the puzzle showed it, its opponent, the answer."""

    deal: Deal
    opponent: str
    arrangement: Arrangement | None  # None: given up (the puzzle's best arrangement, solved)
    time_limit: float
    player: tuple[float, int] | None = None  # the player's rating and rated puzzles before (a rated answer)
    source: str = "set"  # where the puzzle came from (solver.play.puzzle.SOURCES)

    @property
    def seconds(self) -> float:
        """The most its searches may take: a grade (and, given up, the best arrangement first)."""
        return self.time_limit * (2 if self.arrangement is None else 1)

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event, progress: Progress) -> Answer:
        puzzle = load_puzzle(store(), self.deal, self.opponent, self.source)
        if self.arrangement is None:
            return puzzle.give_up(time_limit=self.time_limit, stop_event=stop, player=self.player).to_model()
        return puzzle.grade(self.arrangement, time_limit=self.time_limit, stop_event=stop,
                            player=self.player).to_model()
