"""The tables' work for the worker processes: the computer's arrangement, a seat's advice, a
finished game's record — each through ``solver.play`` (``Computer``, ``GameSession``), the game
logic of ``quintet-play``.

A ``PlayTask`` is what a table (``solver.apps.serve.tables.work``, and a seat's advice from
``solver.apps.serve.tables.service``) sends to the worker pool; the worker rebuilds the game
(``play_session``) and runs one action:

* ``choose`` — ``Computer.choose`` draws the computer's arrangement (with a secret seed, never
  the deal's: the deal's seed is shown to the player);
* ``hint``, ``grade``, ``odds`` — ``GameSession.hint`` / ``grade`` / ``odds`` against the computer's
  model (``Computer.resume``: the committed arrangement is never drawn again), or at a friend's
  table against the deal's equilibrium (``Person``);
* ``record`` — the game played out (``GameSession.play_out``) and ``GameSession.record`` with
  its regret: the JSON line ``quintet-play --record`` writes (a computer's table: a friend's
  game has no regret, and the table writes its records itself).

The deal's equilibrium, when one is needed, comes from the store: the table solved it first in
the pool's long lane (``equilibrium`` is its certified exploitability, so the store answers).
"""

from __future__ import annotations

import datetime as _dt
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from quintet.game import Arrangement, Deal
from solver.advisor.equilibrium import EquilibriumResult, solve_equilibrium
from solver.advisor.limits import PLAY_EPSILON, PLAY_TIME_LIMIT, TABLE_SEARCH_TIME_LIMIT
from solver.apps.serve.tables.rows import FRIEND
from solver.play.computer import Computer, EquilibriumProvider
from solver.play.session import MIX_HINT_ROLL_STREAM, GameSession, Person
from solver.storage.store import SolutionStore

__all__ = ["PlayTask", "PlayAction", "play_session"]

PlayAction = Literal["choose", "hint", "grade", "odds", "record"]


def equilibrium_provider(store: Callable[[], SolutionStore], solved: float | None) -> EquilibriumProvider:
    """The deal's equilibrium through the store; ``solved``: the certified exploitability already
    solved (the store holds an entry that good, so it answers at once)."""
    epsilon = max(PLAY_EPSILON, solved or 0.0)

    def provide(deal: Deal, stop: threading.Event | None) -> EquilibriumResult:
        return solve_equilibrium(deal, epsilon=epsilon, time_limit=PLAY_TIME_LIMIT, store=store(),
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


@dataclass(frozen=True)
class PlayTask:
    """One piece of a table's work for a worker (see the module doc)."""

    action: PlayAction
    deal: Deal
    opponent: str  # "friend" or the computer's specification (canonical)
    game: int = 1
    seed: int = 0  # the deal's seed (the record's)
    draw_seed: int = 0  # choose: the seed of the computer's random draws (secret)
    computer: str | None = None  # the computer's committed arrangement (canonical text)
    description: str = ""
    equilibrium: float | None = None  # the certified exploitability of the deal's equilibrium in the store
    advice: bool = True
    slots: tuple[tuple[int, str], ...] = ()  # hint: the placed slots
    max_support: int | None = None  # hint K: the K-mix of the equilibrium instead (the game's die roll)
    arrangement: str | None = None  # grade, record: the seat's arrangement
    hints: tuple[str, ...] = ()  # record: the advice used, in order
    time: str | None = None  # record: when the game ended (ISO 8601 UTC)

    def run(self, store: Callable[[], SolutionStore], stop: threading.Event) -> dict[str, object]:
        """The action's JSON answer (``ValueError`` with one line for what cannot be done)."""
        provider = equilibrium_provider(store, self.equilibrium)
        rules = self.deal.rules
        if self.action == "choose":
            chosen = Computer.choose(self.deal, self.opponent, seed=self.draw_seed, equilibrium=provider,
                                     time_limit=TABLE_SEARCH_TIME_LIMIT, stop_event=stop, files=False)
            return {"arrangement": chosen.arrangement.format(rules), "description": chosen.description}
        session = play_session(self.deal, self.opponent, game=self.game, seed=self.seed, computer=self.computer,
                               description=self.description, provider=provider, advice=self.advice,
                               slots=self.slots, hints=self.hints)
        if self.action == "hint" and self.max_support is not None:
            return session.mix_hint(self.max_support, stop).to_dict(self.seed, MIX_HINT_ROLL_STREAM)
        if self.action == "hint":
            return session.hint(stop).to_dict()
        if self.action == "odds":
            # every hand the model plays in each slot: the page draws the whole of each slot
            return session.odds(top=None).to_model().model_dump(mode="json")
        assert self.arrangement is not None
        laid = Arrangement.parse(self.arrangement, rules)
        if self.action == "grade":
            for slot, packet in enumerate(laid.packets, start=1):
                session.place(slot, packet)
            return session.grade(stop).to_dict()
        session.play_out(laid)
        moment = _dt.datetime.fromisoformat(self.time.replace("Z", "+00:00")) if self.time else None
        return session.record(stop, time=moment).to_dict()
