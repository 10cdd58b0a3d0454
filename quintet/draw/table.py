"""A match of draw poker: seats, stacks carried from hand to hand, the dealer's turn, the history.

``Table`` deals hand after hand (``quintet.draw.game.State``) to the players who can still
pay the ante; a player whose stack falls below the ante leaves the table (no credit) and
keeps the chips left.  The deal passes to the next seat still at the table each hand (seat 0
deals the first).  The match is over when fewer than two players can pay the ante.  Each
hand has its own seed, drawn from the match seed, so a match replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ..rules import Rules
from .game import MAX_PLAYERS, MIN_PLAYERS, Action, Phase, Record, State, Terms, TermsError

__all__ = ["Agent", "Table", "play_out"]


class Agent(Protocol):
    """Whoever decides a seat's actions: a bot, or a person at the terminal."""

    def act(self, state: State) -> Action: ...


def play_out(state: State, agents: Sequence[Agent], observe: Callable[[State, Record], None] | None = None) -> State:
    """Play a hand to its end (``Table.play_hand``: antes and the show-down by themselves, every other
    turn ``agents[seat].act(state)``, each record shown to ``observe``); returns ``state``."""
    seen = 0
    while not state.over:
        if state.phase is Phase.ANTES:
            state.post_ante()
        elif state.phase is Phase.SHOWDOWN:
            state.show_down()
        else:
            state.apply(agents[state.actor].act(state))  # type: ignore[index]
        if observe is not None:
            for record in state.records[seen:]:
                observe(state, record)
        seen = len(state.records)
    return state


class Table:
    """Players at one table: ``names[i]`` sits in seat i with ``chips`` (one number, or one per seat)."""

    def __init__(self, rules: Rules, terms: Terms, names: Sequence[str], chips: int | Sequence[int], *,
                 seed: int = 0) -> None:
        if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
            raise TermsError(f"draw poker is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(names)}")
        stacks = [chips] * len(names) if isinstance(chips, int) else list(chips)
        if len(stacks) != len(names):
            raise TermsError(f"{len(names)} players but {len(stacks)} stacks")
        if any(s < terms.ante for s in stacks):
            raise TermsError(f"every player needs at least the ante ({terms.ante}) to sit down")
        size = rules.deck.size
        if size < 5 * len(names) + 5:
            raise TermsError(f"the {size}-card deck seats at most {(size - 5) // 5} players "
                             f"(five cards each and five for an exchange), not {len(names)}")
        self.rules = rules
        self.terms = terms
        self.names = list(names)
        self.stacks = stacks
        self.seed = seed
        self.hands_played = 0
        self.dealer: int | None = None
        self._seeds = random.Random(seed)

    @property
    def seated(self) -> list[int]:
        """Seats still at the table (stack ≥ ante)."""
        return [s for s, chips in enumerate(self.stacks) if chips >= self.terms.ante]

    @property
    def over(self) -> bool:
        return len(self.seated) < 2

    @property
    def next_dealer(self) -> int:
        """Who deals the next hand: seat 0 first, then the next seat still at the table."""
        seated = self.seated
        if self.dealer is None:
            return seated[0]
        return next((s for s in seated if s > self.dealer), seated[0])

    def new_hand(self) -> State:
        """The next hand, dealt by ``next_dealer``."""
        if self.over:
            raise TermsError("the match is over: fewer than two players can pay the ante")
        self.dealer = self.next_dealer
        return State(self.rules, self.terms, self.stacks, dealer=self.dealer, seed=self._seeds.getrandbits(63))

    def play_hand(self, agents: Sequence[Agent], observe: Callable[[State, Record], None] | None = None) -> State:
        """Play one hand to the end and carry the stacks over.

        Antes and the show-down happen by themselves (nobody chooses them); every other turn is
        ``agents[seat].act(state)``.  ``observe(state, record)`` sees each record as it happens,
        the automatic fold-out included.
        """
        state = play_out(self.new_hand(), agents, observe)
        self.finish(state)
        return state

    def finish(self, state: State) -> None:
        """Carry a finished hand's stacks over."""
        if not state.over:
            raise TermsError("the hand is not over")
        self.stacks = list(state.stacks)
        self.hands_played += 1

    def history_line(self, state: State) -> dict[str, Any]:
        """The hand's history (``State.history``) with the hand number and the players' names."""
        line = {"hand": self.hands_played, **state.history()}
        for seat in line["seats"]:
            seat["name"] = self.names[seat["seat"]]
        return line
