"""The ``advisor`` bot of ``quintet.draw.bots``: it exchanges by the exact advisor
(``quintet.draw.policy.ExchangePolicy``: the exchange with the highest expected percentile,
the ``expected`` objective of ``quintet.draw.advise``), and bets from its **equity**: the chance its hand beats every
opponent still in, ties counting half.  Each opponent is modelled by ``StrengthModel``
(hands exchanged by the same policy, by the number of cards that opponent drew, or all of
them before it has exchanged), opponents independent of each other; before its own
exchange the bot averages over 64 seeded draws of its own.  On its turn, with ``k``
opponents, the current stake ``s`` and ``r`` turns it expects still to stake (the circles
left), it

- demands the show-down (after the exchange, on a turn that allows it) or else raises when
  the equity is at least 1.5 times its fair share 1 / (k + 1), or the fair share + 0.15 if
  less — the more above, the higher the stake, up to the limit; with equity ≥ 0.5 after the
  exchange it wants the highest stake it may: a demand of it, or a raise to it where a
  demand may stake only the current stake (the first circle after the exchange);
- calls when equity · (pot + (k + 1) · r · s) > r · s, i.e. when staking to the end has
  a positive expectation if everybody keeps calling;
- folds otherwise (and whenever it cannot pay: no credit).

With probability ``bluff`` (default 0.1) per hand it bluffs: it bets as if its equity were
0.9 whatever its cards.  These betting rules are estimates (the equity model ignores what
the opponents' bets say); only the exchange is exact.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from ..rules import Rules
from .game import Action, ActionKind, Phase, State
from .policy import exchange_policy, strength_model

__all__ = ["AdvisorBot"]

BLUFF_EQUITY = 0.9
OWN_DRAW_SAMPLES = 64


@dataclass(frozen=True)
class _HandView:
    """What the advisor worked out about its current hand (recomputed when the cards change)."""

    mask: int
    samples: np.ndarray  # percentiles of its final hand: one value after the exchange, 64 draws before


class AdvisorBot:
    """Exact exchanges, equity-based bets, a bluff rate (module doc); seeded."""

    kind = "advisor"

    def __init__(self, rules: Rules, seed: int = 0, *, bluff: float = 0.1) -> None:
        if not 0.0 <= bluff <= 1.0:
            raise ValueError(f"the bluff rate is a probability between 0 and 1, got {bluff}")
        self.rules = rules
        self.seed = seed
        self.bluff = bluff
        self.policy = exchange_policy(rules)
        self.model = strength_model(rules)
        self._rng = random.Random(seed)
        self._np_rng = np.random.default_rng(seed)
        self._deck = np.array(rules.deck.cards(), dtype=np.int64)
        self._state: State | None = None
        self._view: _HandView | None = None
        self._bluffing = False

    def __repr__(self) -> str:
        return f"AdvisorBot({self.rules.name!r}, seed={self.seed}, bluff={self.bluff})"

    # ------------------------------------------------------------------ the advice ------

    def best_exchange(self, state: State, seat: int) -> tuple[int, ...]:
        """The cards to discard: the exchange with the highest expected percentile that the stack pays for."""
        hand = state.hand(seat)
        fee = state.terms.exchange_fee
        most = 5 if fee == 0 else min(5, state.stacks[seat] // fee)
        keep = self.policy.best(hand, max_draw=most)
        return tuple(c for i, c in enumerate(hand) if not keep >> i & 1)

    def equity(self, state: State, seat: int) -> float:
        """Estimated chance that the seat's hand beats every opponent still in (ties half), per the model."""
        samples = self._view_of(state, seat).samples
        chance = np.ones_like(samples)
        for other in state.in_hand:
            if other != seat:
                chance = chance * self.model.beat(samples, state.drawn[other])
        return float(chance.mean())

    def _view_of(self, state: State, seat: int) -> _HandView:
        if state is not self._state:  # a new hand: decide once whether to bluff in it
            self._state = state
            self._view = None
            self._bluffing = self._rng.random() < self.bluff
        mask = state.hands[seat]
        if self._view is None or self._view.mask != mask:
            self._view = _HandView(mask, self._final_percentiles(state, seat))
        return self._view

    def _final_percentiles(self, state: State, seat: int) -> np.ndarray:
        mask = state.hands[seat]
        discards = () if state.drawn[seat] is not None else self.best_exchange(state, seat)
        if not discards:
            return np.array([self.policy.percentile(mask)])
        keep = np.uint64(mask & ~sum(1 << c for c in discards))
        unseen = np.array([c for c in self._deck.tolist() if not mask >> c & 1], dtype=np.uint64)
        draws = self._np_rng.permuted(np.tile(unseen, (OWN_DRAW_SAMPLES, 1)), axis=1)[:, : len(discards)]
        finals = np.bitwise_or.reduce(np.left_shift(np.uint64(1), draws), axis=1) | keep
        t = self.policy.tables
        return t.percentiles[t.classes(finals)]

    # ------------------------------------------------------------------ acting ----------

    def act(self, state: State) -> Action:
        seat = state.actor
        if seat is None:
            raise ValueError("no seat is to act")
        if state.phase is Phase.EXCHANGE:
            return Action(ActionKind.EXCHANGE, cards=self.best_exchange(state, seat))
        self._view_of(state, seat)
        equity = BLUFF_EQUITY if self._bluffing else self.equity(state, seat)
        opponents = len(state.in_hand) - 1
        stack = state.stacks[seat]
        if state.phase is Phase.SEEING:
            price = state.call_amount
            if stack >= price and equity * (state.pot + price) > price:
                return Action(ActionKind.CALL)
            return Action(ActionKind.FOLD)
        stake = state.current_stake
        if stack < stake:
            return Action(ActionKind.FOLD)
        fair = 1.0 / (opponents + 1)
        top = min(state.terms.limit, stack)
        strength = min(1.0, max(0.0, (equity - fair) / (1.0 - fair)))
        target = stake + round(strength * (top - stake))
        after = state.phase is Phase.BETTING_AFTER
        if equity >= min(1.5 * fair, fair + 0.15):
            wanted = top if after and equity >= 0.5 else max(stake, target)
            demands = state.demand_range()
            if demands and (wanted <= demands[-1] or not state.raise_range()):
                return Action(ActionKind.DEMAND, min(wanted, demands[-1]))
            if wanted > stake:  # a demand may not stake that much now (a raise waits for the last circle)
                return Action(ActionKind.RAISE, wanted)
        turns = state.terms.circles - state.circle + 1 + (0 if after else 1)
        cost = turns * stake
        if equity * (state.pot + (opponents + 1) * cost) > cost:
            return Action(ActionKind.CALL)
        return Action(ActionKind.FOLD)
