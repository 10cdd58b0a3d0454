"""The advisor's exchange as an exact table, and how strong hands are after it.

``exchange_policy(rules)`` answers, for any five-card hand, the **exact** expected strength of
each of its 32 exchanges — the advisor's ``expected`` objective (``quintet.draw.advise``): the
mean percentile of the final hand among all hands of the deck, over every draw from the deck
minus the hand — in microseconds instead of the advisor's 0.15 s per 54-card hand.  It is the
same number, not an approximation: the per-rule-set table holds, for every set of at most
four cards, the sum of the percentiles of every hand of the deck containing it (built once,
about a second for 54 cards), and inclusion–exclusion over the discarded cards turns 32 of
those sums into the sum over every draw (``quintet.draw.kernels``, section "exchange values").
``best`` breaks ties as ``advise(...).best()`` does: the higher expected strength, then fewer
cards drawn, then the first option in keep-mask order.

``StrengthModel`` describes the hands of players who exchanged by that policy: a seeded
sample of deals, each hand exchanged by ``best`` and completed from the rest of the deck,
recorded by the number of cards drawn.  ``beat(p, drawn)`` is the chance that a hand of
percentile ``p`` beats such an opponent (ties count half) — the advisor bot's equity model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb

import numpy as np

from ..cards import binomial_table
from ..rules import Rules
from . import kernels
from .tables import VariantTables, tables

__all__ = ["ExchangePolicy", "exchange_policy", "StrengthModel", "strength_model"]


@dataclass(frozen=True, eq=False)
class ExchangePolicy:
    """Exact expected strength of every exchange of a hand (module doc); one per rule set.

    ``position_of[card]``: the card's position in the deck (-1 off the deck); ``cell_value``:
    per evaluator cell, 2 · (hands of the deck below + half the hands equal), the integer
    numerator of the percentile over ``2 * n_hands``; ``sums``: its superset sums;
    ``n_draws[d]`` = C(N - 5, d), the number of draws of d cards.
    """

    rules: Rules
    tables: VariantTables
    position_of: np.ndarray
    cell_value: np.ndarray
    sums: np.ndarray
    big_binom: np.ndarray
    set_offsets: np.ndarray
    n_draws: np.ndarray

    def totals(self, hand: Sequence[int]) -> np.ndarray:
        """int64[32]: for keep-mask s (bit i keeps ``hand[i]``), Σ over every draw of ``value2`` of the final hand."""
        cards = self._cards(hand)
        t = self.tables
        c0, c1, c2, c3, c4 = cards.tolist()
        value = self.cell_value[kernels.cell_of(c0, c1, c2, c3, c4, t.card_rank, t.card_suitbit, t.binom, t.offsets)]
        return kernels.exchange_totals(cards, self.position_of, value, self.sums, self.big_binom, self.set_offsets)

    def expected(self, hand: Sequence[int]) -> list[Fraction]:
        """Exact expected percentile of the final hand for each keep-mask 0..31."""
        totals = self.totals(hand)
        denominator = 2 * self.tables.n_hands
        return [Fraction(int(t), denominator * int(self.n_draws[5 - s.bit_count()])) for s, t in enumerate(totals)]

    def ranked(self, hand: Sequence[int], *, max_draw: int = 5) -> list[int]:
        """Keep-masks drawing at most ``max_draw`` cards, best first (ties: fewer cards drawn, then mask order)."""
        expected = self.expected(hand)
        masks = [s for s in range(32) if 5 - s.bit_count() <= max_draw]
        return sorted(masks, key=lambda s: (-expected[s], 5 - s.bit_count(), s))

    def best(self, hand: Sequence[int], *, max_draw: int = 5) -> int:
        """The best keep-mask (bit i keeps ``hand[i]``) drawing at most ``max_draw`` cards (= ``ranked(...)[0]``)."""
        return int(self.best_many(self._cards(hand)[None, :], max_draw=max_draw)[0])

    def best_many(self, hands: np.ndarray, *, max_draw: int = 5) -> np.ndarray:
        """``best`` of each row of an int64 array of hands (five card ints per row, validated by the caller)."""
        t = self.tables
        return kernels.best_exchanges(
            hands, max_draw, self.position_of, t.card_rank, t.card_suitbit, t.binom, t.offsets, self.cell_value,
            self.sums, self.big_binom, self.set_offsets, self.n_draws,
        )

    def percentile(self, mask: int) -> float:
        """Percentile of a five-card hand (mask) among all hands of the deck (0..1)."""
        return float(self.tables.percentiles[self.tables.classes(np.array([mask], dtype=np.uint64))[0]])

    def _cards(self, hand: Sequence[int]) -> np.ndarray:
        cards = np.asarray(hand, dtype=np.int64)
        if (cards.shape != (5,) or np.any(cards < 0) or np.any(cards > 63)
                or np.any(self.position_of[cards] < 0) or np.unique(cards).size != 5):
            raise ValueError(f"an exchange needs five distinct cards of the {self.rules.deck.size}-card deck")
        return cards


@cache
def exchange_policy(rules: Rules) -> ExchangePolicy:
    """The exact exchange table of a draw rule set (built once per rule set, about a second)."""
    if not rules.is_variant:
        raise ValueError(f"the exchange table serves draw rule sets (draw52, draw36-joker, …), not {rules.name}")
    t = tables(rules)
    cards = np.array(rules.deck.cards(), dtype=np.int64)
    n = cards.shape[0]
    position_of = np.full(64, -1, dtype=np.int64)
    position_of[cards] = np.arange(n)
    value2 = 2 * (np.cumsum(t.class_counts) - t.class_counts) + t.class_counts
    cell_value = np.where(t.cell_class >= 0, value2[np.maximum(t.cell_class, 0)], 0).astype(np.int64)
    big_binom = binomial_table(n + 1, 6)
    set_offsets = np.cumsum([0] + [comb(n, k) for k in range(5)]).astype(np.int64)
    sums = kernels.superset_sums(
        cards, t.card_rank, t.card_suitbit, t.binom, t.offsets, cell_value, big_binom, set_offsets
    )
    n_draws = np.array([comb(n - 5, d) for d in range(6)], dtype=np.int64)
    return ExchangePolicy(rules, t, position_of, cell_value, sums, big_binom, set_offsets, n_draws)


@dataclass(frozen=True, eq=False)
class StrengthModel:
    """Final percentiles of hands exchanged by ``ExchangePolicy.best``, by cards drawn (0..5).

    ``by_drawn[d]`` is sorted; ``everyone`` pools them (an opponent who has not exchanged yet).
    """

    rules: Rules
    by_drawn: tuple[np.ndarray, ...]
    everyone: np.ndarray

    def beat(self, percentile: float | np.ndarray, drawn: int | None = None) -> float | np.ndarray:
        """P(a hand of this percentile beats one such opponent) + half P(tie); ``drawn=None``: not yet known."""
        sample = self.everyone if drawn is None or self.by_drawn[drawn].size == 0 else self.by_drawn[drawn]
        below = np.searchsorted(sample, percentile, side="left")
        not_above = np.searchsorted(sample, percentile, side="right")
        return (below + not_above) / (2 * sample.size)


@cache
def strength_model(rules: Rules, samples: int = 20_000, seed: int = 2026) -> StrengthModel:
    """Sample ``samples`` seeded deals, exchange each by the policy, and record the final percentiles."""
    policy = exchange_policy(rules)
    t = policy.tables
    deck = np.array(rules.deck.cards(), dtype=np.int64)
    deals = np.random.default_rng(seed).permuted(np.tile(deck, (samples, 1)), axis=1)[:, :10]
    keeps = policy.best_many(np.ascontiguousarray(deals[:, :5]))
    finals, drawn = kernels.exchanged_hands(deals, keeps)
    percentiles = t.percentiles[t.classes(finals)]
    by_drawn = tuple(np.sort(percentiles[drawn == d]) for d in range(6))
    return StrengthModel(rules, by_drawn, np.sort(percentiles))
