"""Rule sets: a frozen ``Rules`` value carrying every option of RULES.md §1.

The deck and the category table are data (``Rules.deck``, ``Rules.categories``): the
evaluator receives the table as an array mapping each category id to its strength, so a
variant with another deck or another category order needs no change to the kernels'
callers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import IntEnum

from .cards import CLASSIC_DECK, Deck

__all__ = ["Category", "Rules", "CLASSIC", "RULE_SETS", "get_rules", "UnknownRulesError"]


class UnknownRulesError(ValueError):
    """A rule-set name or option value that does not exist."""


class Category(IntEnum):
    """Hand categories, by stable id (ids are not strengths: see ``Rules.categories``)."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    THREE_OF_A_KIND = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    FOUR_OF_A_KIND = 7
    STRAIGHT_FLUSH = 8

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


N_CATEGORY_IDS = len(Category)

# Classic Quintet order, lowest first (RULES.md §1: full house above flush).
_CLASSIC_ORDER = (
    Category.HIGH_CARD,
    Category.PAIR,
    Category.TWO_PAIR,
    Category.THREE_OF_A_KIND,
    Category.STRAIGHT,
    Category.FLUSH,
    Category.FULL_HOUSE,
    Category.FOUR_OF_A_KIND,
    Category.STRAIGHT_FLUSH,
)

TIEBREAKS = ("kickers", "group-only")


@dataclass(frozen=True)
class Rules:
    """A rule set.

    * ``weights`` — points for winning slot 1..5 (default 3, 4, 5, 6, 7);
    * ``tie_points`` — share of a slot's points each player scores when the two packets
      are equal, 0 ≤ share ≤ 0.5 (default 0: nobody scores);
    * ``ace_low_straight`` — A-7-8-9-10 counts as the lowest straight (default off);
    * ``flush_over_full_house`` — swap flush and full house (default off: full house higher);
    * ``tiebreak`` — ``"kickers"`` (equal fours/threes/full-house triples are decided by
      the remaining cards) or ``"group-only"`` (they tie);
    * ``deck`` and ``category_order`` — data: the cards and the categories, lowest first.
    """

    name: str = "classic"
    weights: tuple[int, ...] = (3, 4, 5, 6, 7)
    tie_points: float = 0.0
    ace_low_straight: bool = False
    flush_over_full_house: bool = False
    tiebreak: str = "kickers"
    deck: Deck = CLASSIC_DECK
    category_order: tuple[Category, ...] = field(default=_CLASSIC_ORDER)
    hand_size: int = 5

    def __post_init__(self) -> None:
        if self.tiebreak not in TIEBREAKS:
            raise UnknownRulesError(f"unknown tiebreak {self.tiebreak!r} (use {' or '.join(TIEBREAKS)})")
        if not 0.0 <= self.tie_points <= 0.5:
            raise UnknownRulesError(f"tie_points must be between 0 and 0.5, got {self.tie_points}")
        if len(self.weights) < 1 or any(w <= 0 for w in self.weights):
            raise UnknownRulesError(f"slot weights must be positive, got {self.weights}")
        if sorted(self.category_order) != sorted(set(self.category_order)):
            raise UnknownRulesError("category_order lists a category twice")

    @property
    def n_slots(self) -> int:
        return len(self.weights)

    @property
    def categories(self) -> tuple[Category, ...]:
        """The category table actually in force, lowest first (options applied)."""
        order = list(self.category_order)
        if self.flush_over_full_house and Category.FLUSH in order and Category.FULL_HOUSE in order:
            i, j = order.index(Category.FLUSH), order.index(Category.FULL_HOUSE)
            order[i], order[j] = order[j], order[i]
        return tuple(order)

    def category_strengths(self) -> list[int]:
        """Strength (0 = lowest) of each category id; -1 for ids this table lacks."""
        strengths = [-1] * N_CATEGORY_IDS
        for strength, cat in enumerate(self.categories):
            strengths[int(cat)] = strength
        return strengths

    def with_options(self, **changes: object) -> Rules:
        return replace(self, **changes)  # type: ignore[arg-type]

    def describe(self) -> str:
        parts = [self.name, f"{self.deck.size} cards", "weights " + "/".join(map(str, self.weights))]
        if self.tie_points:
            parts.append(f"ties {self.tie_points:g} each")
        if self.ace_low_straight:
            parts.append("A-low straight")
        if self.flush_over_full_house:
            parts.append("flush > full house")
        parts.append(f"tiebreak {self.tiebreak}")
        return ", ".join(parts)


CLASSIC = Rules()

RULE_SETS: dict[str, Rules] = {
    "classic": CLASSIC,
}


def get_rules(name: str = "classic", **options: object) -> Rules:
    """The rule set called ``name`` with ``options`` applied (e.g. ``tiebreak='group-only'``)."""
    try:
        base = RULE_SETS[name]
    except KeyError:
        raise UnknownRulesError(
            f"unknown rule set {name!r} (known: {', '.join(sorted(RULE_SETS))})"
        ) from None
    unknown = set(options) - {"weights", "tie_points", "ace_low_straight", "flush_over_full_house", "tiebreak"}
    if unknown:
        raise UnknownRulesError(f"unknown rule option {sorted(unknown)[0]!r}")
    return base.with_options(**options) if options else base
