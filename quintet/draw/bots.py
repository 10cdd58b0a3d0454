"""Seeded bots for draw poker (``quintet.draw.game``): ``random``, ``advisor`` and ``cfr``.

* ``RandomBot`` — uniform over ``State.legal_actions()`` (every raise and demand amount and
  every set of discards is one action).
* ``AdvisorBot`` (``quintet.draw.advisor_bot``) — exact exchanges, bets from its equity against a
  model of the opponents, a bluff rate.
* ``CfrBot`` (``quintet.draw.cfr.bot``) — heads-up, an equilibrium strategy of the abstract (card-class) game
  solved by CFR+; at a table of three or more still dealt in, the advisor.
"""

from __future__ import annotations

import random

from ..rules import Rules
from ..text import quote
from .advisor_bot import AdvisorBot
from .cfr.bot import CfrBot
from .cfr.strategy import Strategy
from .game import Action, State, Terms

__all__ = ["RandomBot", "BOT_KINDS", "make_bot"]


class RandomBot:
    """Uniform over the legal actions; seeded."""

    kind = "random"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def act(self, state: State) -> Action:
        return self._rng.choice(state.legal_actions())

    def __repr__(self) -> str:
        return f"RandomBot(seed={self.seed})"


BOT_KINDS = ("advisor", "random", "cfr")


def make_bot(kind: str, rules: Rules, seed: int, *, bluff: float = 0.1, terms: Terms | None = None,
             strategy: Strategy | None = None) -> RandomBot | AdvisorBot | CfrBot:
    """A bot by name (``BOT_KINDS``); ``cfr`` plays ``strategy`` (default: the one of these rules and
    ``terms``, ``quintet.draw.cfr.strategy.strategy_for``) heads-up, and as the advisor otherwise."""
    if kind == "random":
        return RandomBot(seed)
    if kind == "advisor":
        return AdvisorBot(rules, seed, bluff=bluff)
    if kind == "cfr":
        return CfrBot(rules, terms or Terms(), seed, strategy=strategy, bluff=bluff)
    raise ValueError(f"unknown bot {quote(kind)} (use {', '.join(BOT_KINDS)})")

