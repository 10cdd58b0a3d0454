"""Plans: a mix of arrangements seen through its structure.

An equilibrium may mix a hundred arrangements, but many of them follow the same *plan* — the
same hand category in each slot ("two pair | full house | flush | straight flush | straight
flush"), differing only in which cards make the hands.  ``plans(mix, rules)`` groups a mix's
arrangements by plan, with each plan's total probability, most likely first, so a reader sees
a few lines instead of a hundred rows.

    >>> from quintet.game import Arrangement
    >>> from quintet.rules import CLASSIC
    >>> a = Arrangement.parse("9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h")
    >>> [p.describe() for p in plans([(1.0, a)], CLASSIC)]
    ['slot 1 two pair | slot 2 three of a kind | slot 3 flush | slot 4 four of a kind | slot 5 straight flush — 100.0%']
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from quintet.evaluator import hand_keys
from quintet.game import Arrangement
from quintet.jsonable import Jsonable
from quintet.rules import Category, Rules

if TYPE_CHECKING:
    from .schema import PlanOut

__all__ = ["Plan", "plans", "plan_of"]


@dataclass(frozen=True)
class Plan(Jsonable):
    """A hand category per slot, the mix's probability of playing it, and how many of the mix's
    arrangements follow it."""

    categories: tuple[Category, ...]
    labels: tuple[str, ...]  # the categories' names in the rule set (``Rules.category_label``)
    probability: float
    arrangements: int

    def describe(self) -> str:
        """One line: ``slot 1 two pair | slot 2 flush | … — 41.0%``."""
        slots = " | ".join(f"slot {s + 1} {label}" for s, label in enumerate(self.labels))
        return f"{slots} — {100 * self.probability:.1f}%"

    def to_model(self) -> PlanOut:
        from .schema import PlanOut, model_of
        return model_of(PlanOut, self, hands=list(self.labels), categories=[c.slug for c in self.categories])


def plan_of(arrangement: Arrangement, rules: Rules) -> tuple[Category, ...]:
    """The hand category of each slot of an arrangement."""
    _, categories = hand_keys(np.array(arrangement.packets, dtype=np.uint64), rules)
    return tuple(Category(int(c)) for c in categories.tolist())


def plans(mix: Sequence[tuple[float, Arrangement]], rules: Rules) -> list[Plan]:
    """The mix's arrangements grouped by plan, most likely first (ties: the plan met first)."""
    total: dict[tuple[Category, ...], float] = {}
    count: dict[tuple[Category, ...], int] = {}
    for probability, arrangement in mix:
        key = plan_of(arrangement, rules)
        total[key] = total.get(key, 0.0) + float(probability)
        count[key] = count.get(key, 0) + 1
    order = sorted(total, key=lambda k: -total[k])  # stable: first met first among equals
    return [Plan(k, tuple(rules.category_label(c) for c in k), total[k], count[k]) for k in order]
