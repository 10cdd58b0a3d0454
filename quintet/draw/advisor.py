"""Draw advisor for five-card draw poker (docs/draw-poker.md): which cards to exchange.

Given a five-card hand, a rule set and optionally other cards known to be out of the stock
(``known``: seen, folded, burnt), the **unseen** cards are the deck minus the hand minus the
known cards; the stock is treated as a uniformly random ordering of them.  For each of the
32 ways to keep some of the five cards, ``advise`` enumerates **every** draw of the missing
cards from the unseen cards (no sampling) and reports the exact distribution of the final
hand: a count per rank class of the rule set (``class_counts``) and per category
(``category_counts``), out of ``n_outcomes = C(unseen, cards drawn)`` equally likely draws.

Three measures of an option, each an exact fraction:

* **expected strength** (``expected``): the mean *percentile* of the final hand, where a
  hand's percentile is the share of all C(deck, 5) hands of the deck it beats plus half the
  share it ties (0 = the weakest hand, 1 = the strongest; ``quintet.draw.percentile``);
* **at least a category** (``at-least:CATEGORY``): the probability that the final hand's
  category is that category or a higher one in the rule set's table;
* **beating a random hand** (``beat-random``): the final hand against one opponent hand
  drawn uniformly from the unseen cards **independently of our draw** (the opponent's
  cards are not removed from our stock and vice versa: the usual simplification; the
  unseen cards are the only information about the opponent).  ``p_win``/``p_tie`` are the
  probabilities of a stronger / an equal hand; the option's value is the **equity**
  ``p_win + p_tie / 2`` (equal hands split the pot).

The recommended exchange under an objective maximizes its measure; exact ties go to the
higher expected strength, then to drawing fewer cards.

Speed: one numba pass (``kernels.draw_histograms``) evaluates all 3,162,510 final hands of
the 32 options of a 54-card deck (the cell tables of ``quintet.draw.tables`` give each hand's
class without any search over the jokers' stand-ins); the opponent's distribution is the
"exchange all five" row itself.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb

import numpy as np

from ..cards import (
    CardError,
    WrongCardCountError,
    cards_of,
    format_card,
    format_cards,
    mask_of,
    parse_cards,
)
from ..rules import Category, Rules, UnknownRulesError
from ..text import quote
from . import kernels
from .tables import tables

__all__ = ["DrawOption", "DrawAdvice", "Objective", "parse_objective", "advise"]


@dataclass(frozen=True)
class Objective:
    """``expected``, ``beat-random`` or ``at-least`` with a ``target`` category; ``label`` is the
    target's name in the rule set's table (``Rules.category_label``; default its ``label``)."""

    kind: str
    target: Category | None = None
    label: str = field(default="", compare=False)

    @property
    def target_label(self) -> str:
        assert self.target is not None
        return self.label or self.target.label

    def __str__(self) -> str:
        if self.kind == "at-least":
            return f"at-least:{self.target_label.replace(' ', '-')}"
        return self.kind

    def title(self) -> str:
        if self.kind == "expected":
            return (
                "expected strength (mean percentile of the final hand among all hands of the deck)"
            )
        if self.kind == "beat-random":
            return "equity against one random hand from the unseen cards (P(win) + P(tie)/2)"
        return f"probability of at least {self.target_label}"


def parse_objective(text: str, rules: Rules) -> Objective:
    """``expected`` | ``beat-random`` | ``at-least:CATEGORY`` (a category of the rule set's table)."""
    value = text.strip().lower()
    if value in ("expected", "beat-random"):
        return Objective(value)
    if value.startswith("at-least:"):
        category = rules.category_named(value.split(":", 1)[1])
        if category not in rules.categories:
            names = ", ".join(rules.category_label(c).replace(" ", "-") for c in rules.categories)
            raise UnknownRulesError(
                f"category {category.label!r} is not in the {rules.name} table ({names})"
            )
        return Objective("at-least", category, rules.category_label(category))
    raise UnknownRulesError(
        f"unknown objective {quote(text)} (use expected, at-least:CATEGORY or beat-random)"
    )


@dataclass(frozen=True)
class DrawOption:
    """One way to exchange: keep ``keep``, draw ``n_draw`` cards; exact results."""

    keep: tuple[int, ...]
    discard: tuple[int, ...]
    n_draw: int
    n_outcomes: int
    class_counts: np.ndarray = field(repr=False)
    category_counts: dict[Category, int]
    expected: Fraction
    p_win: Fraction
    p_tie: Fraction
    at_least_count: int | None = None

    @property
    def equity(self) -> Fraction:
        return self.p_win + self.p_tie / 2

    @property
    def p_at_least(self) -> Fraction | None:
        if self.at_least_count is None:
            return None
        return Fraction(self.at_least_count, self.n_outcomes)

    def value(self, objective: Objective) -> Fraction:
        if objective.kind == "expected":
            return self.expected
        if objective.kind == "beat-random":
            return self.equity
        p = self.p_at_least
        assert p is not None
        return p

    def to_dict(self, rules: Rules, *, cumulative: bool = True) -> dict[str, object]:
        deck = rules.deck
        out: dict[str, object] = {
            "keep": [format_card(c, deck) for c in self.keep],
            "discard": [format_card(c, deck) for c in self.discard],
            "draw": self.n_draw,
            "outcomes": self.n_outcomes,
            "expected_percentile": float(self.expected),
            "p_win": float(self.p_win),
            "p_tie": float(self.p_tie),
            "equity": float(self.equity),
            "categories": {rules.category_label(c): self.category_counts[c] for c in reversed(rules.categories)},
        }
        if cumulative:
            running = 0
            at_least: dict[str, float] = {}
            for c in reversed(rules.categories):
                running += self.category_counts[c]
                at_least[rules.category_label(c)] = running / self.n_outcomes
            out["at_least"] = at_least
        if self.at_least_count is not None:
            out["p_at_least"] = float(self.at_least_count / self.n_outcomes)
            out["at_least_count"] = self.at_least_count
        return out


@dataclass(frozen=True)
class DrawAdvice:
    """The 32 options (``options``, in order of the keep-mask over the hand's cards), ranked."""

    rules: Rules
    hand: tuple[int, ...]
    known: int
    unseen: tuple[int, ...]
    objective: Objective
    target: Category | None
    options: tuple[DrawOption, ...]
    seconds: float

    def ranked(self, objective: Objective | None = None) -> list[DrawOption]:
        obj = objective or self.objective
        return sorted(
            self.options, key=lambda o: (o.value(obj), o.expected, -o.n_draw), reverse=True
        )

    def best(self, objective: Objective | None = None) -> DrawOption:
        return self.ranked(objective)[0]

    def recommendations(self) -> dict[str, DrawOption]:
        out = {
            "expected": self.best(Objective("expected")),
            "beat-random": self.best(Objective("beat-random")),
        }
        if self.objective.kind == "at-least":
            out[str(self.objective)] = self.best(self.objective)
        return out

    def option(self, keep: str | Iterable[int]) -> DrawOption:
        """The option that keeps exactly these cards (text or card ints)."""
        cards = (
            parse_cards(keep, self.rules.deck) if isinstance(keep, str) else [int(c) for c in keep]
        )
        want = mask_of(cards)
        for o in self.options:
            if mask_of(o.keep) == want:
                return o
        raise CardError(f"cards {format_cards(want, self.rules.deck)} are not all in the hand")

    def to_dict(self) -> dict[str, object]:
        deck = self.rules.deck
        return {
            "rules": self.rules.name,
            "hand": [format_card(c, deck) for c in self.hand],
            "known": format_cards(self.known, deck).split(),
            "unseen": len(self.unseen),
            "objective": str(self.objective),
            "opponent_model": "one hand uniformly random from the unseen cards, independent of our draw",
            "percentile_of": f"all {comb(deck.size, 5):,} hands of the {deck.size}-card deck",
            "recommended": {
                name: o.to_dict(self.rules, cumulative=False)
                for name, o in self.recommendations().items()
            },
            "options": [o.to_dict(self.rules) for o in self.ranked()],
            "seconds": round(self.seconds, 4),
        }


def _hand_cards(hand: str | Iterable[int] | int, rules: Rules) -> list[int]:
    if isinstance(hand, str):
        return parse_cards(hand, rules.deck, count=5, what="cards in a hand")
    cards = list(cards_of(hand)) if isinstance(hand, (int, np.integer)) else [int(c) for c in hand]
    if len(set(cards)) != len(cards):
        raise CardError("duplicate card in hand")
    if len(cards) != 5:
        raise WrongCardCountError(f"expected 5 cards in a hand, got {len(cards)}")
    if mask_of(cards) & ~rules.deck.full_mask:
        raise CardError(f"hand holds cards outside the {rules.deck.size}-card deck")
    return cards


def _known_mask(known: str | Iterable[int] | int | None, hand_mask: int, rules: Rules) -> int:
    if known is None:
        return 0
    if isinstance(known, str):
        cards = parse_cards(known, rules.deck, what="known cards", taken=hand_mask)
    elif isinstance(known, (int, np.integer)):
        cards = list(cards_of(int(known)))
    else:
        cards = [int(c) for c in known]
    mask = mask_of(cards)
    if mask & ~rules.deck.full_mask:
        raise CardError(f"known cards outside the {rules.deck.size}-card deck")
    both = mask & hand_mask
    if both:
        raise CardError(f"known card {format_cards(both, rules.deck)} is in the hand")
    return mask


def advise(
    hand: str | Iterable[int] | int,
    rules: Rules,
    *,
    known: str | Iterable[int] | int | None = None,
    objective: str | Objective = "expected",
) -> DrawAdvice:
    """Exact results of all 32 exchanges of ``hand`` (module doc)."""
    start = time.perf_counter()
    obj = parse_objective(objective, rules) if isinstance(objective, str) else objective
    cards = _hand_cards(hand, rules)
    hand_mask = mask_of(cards)
    known_mask = _known_mask(known, hand_mask, rules)
    unseen_mask = rules.deck.full_mask & ~hand_mask & ~known_mask
    unseen = sorted(cards_of(unseen_mask))
    if len(unseen) < 5:
        raise WrongCardCountError(f"need at least 5 unseen cards to draw from, got {len(unseen)}")

    t = tables(rules)
    hist = kernels.draw_histograms(
        np.array(cards, dtype=np.int64),
        np.array(unseen, dtype=np.int64),
        t.card_rank,
        t.card_suitbit,
        t.binom,
        t.offsets,
        t.cell_class,
        t.n_classes,
    )
    # Opponent: every 5-subset of the unseen cards = the "exchange all five" row.
    opp = hist[0]
    opp_total = comb(len(unseen), 5)
    opp_below = np.cumsum(opp) - opp
    # Percentile numerators: 2 * (deck hands below) + (deck hands equal), over 2 * all hands.
    pct2 = 2 * (np.cumsum(t.class_counts) - t.class_counts) + t.class_counts
    cat_of_class = t.class_categories.astype(np.int64)
    strengths = np.array(rules.category_strengths(), dtype=np.int64)
    class_strength = strengths[cat_of_class]
    target_strength = rules.categories.index(obj.target) if obj.target is not None else None

    options = []
    for s in range(32):
        row = hist[s]
        keep = tuple(c for i, c in enumerate(cards) if (s >> i) & 1)
        discard = tuple(c for i, c in enumerate(cards) if not (s >> i) & 1)
        n_draw = len(discard)
        n_out = comb(len(unseen), n_draw)
        assert int(row.sum()) == n_out
        by_cat = (
            np.bincount(cat_of_class, weights=row, minlength=len(Category.all()))
            .round()
            .astype(np.int64)
        )
        category_counts = {c: int(by_cat[int(c)]) for c in rules.categories}
        expected = Fraction(int(np.dot(row, pct2)), 2 * t.n_hands * n_out)
        p_win = Fraction(int(np.dot(row, opp_below)), n_out * opp_total)
        p_tie = Fraction(int(np.dot(row, opp)), n_out * opp_total)
        at_least = None
        if target_strength is not None:
            at_least = int(row[class_strength >= target_strength].sum())
        options.append(
            DrawOption(
                keep, discard, n_draw, n_out, row, category_counts, expected, p_win, p_tie, at_least
            )
        )
    return DrawAdvice(
        rules,
        tuple(cards),
        known_mask,
        tuple(unseen),
        obj,
        obj.target,
        tuple(options),
        time.perf_counter() - start,
    )
