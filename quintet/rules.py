"""Rule sets: a frozen ``Rules`` value carrying every option of the rule book (docs/rules.md).

The deck and the category table are data (``Rules.deck``, ``Rules.categories``): the
evaluator receives the table as an array mapping each category id to its strength, so a
variant with another deck or another category order needs no change to the kernels'
callers.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import IntEnum

from .cards import CLASSIC_DECK, DECK_36, DECK_36_JOKER, DECK_52, DECK_53, DECK_54, Deck
from .faults import InputError
from .text import quote

__all__ = [
    "Category", "Rules", "CLASSIC", "RULE_SETS", "get_rules", "UnknownRulesError",
    "CATEGORY_TABLES", "VARIANT_DECKS",
]


class UnknownRulesError(InputError):
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
    # Variant categories of five-card draw poker (docs/draw-poker.md), ids after the classic nine.
    FIVE_OF_A_KIND = 9  # «покер»: four of a kind plus a joker
    COLOUR = 10  # «цвет»: five cards of one colour (red ♦♥ or black ♣♠)
    STRAIGHT_COLOUR = 11  # «стрит-цвет»: a straight in one colour

    def __repr__(self) -> str:
        return f"Category.{self.name}"

    @property
    def label(self) -> str:
        """The category in words: ``full house`` (a rule set may call it otherwise: ``Rules.category_label``)."""
        return self.name.lower().replace("_", " ")

    @property
    def slug(self) -> str:
        """The category's machine name, the same in every rule set: ``full_house`` (the JSON's
        ``category``; ``Category.from_name`` reads it back)."""
        return self.name.lower()

    @classmethod
    def all(cls) -> tuple[Category, ...]:
        """Every category id, the variant ones included, by id."""
        return tuple(cls)

    @classmethod
    def from_name(cls, text: str) -> Category:
        """A category from a name such as ``flush``, ``full-house``, ``colour``/``color``.

        >>> Category.from_name("full-house"), Category.from_name("quads")
        (Category.FULL_HOUSE, Category.FOUR_OF_A_KIND)
        """
        key = text.strip().lower().replace("-", "_").replace(" ", "_").replace("color", "colour")
        key = _CATEGORY_ALIASES.get(key, key)
        try:
            return cls[key.upper()]
        except KeyError:
            names = ", ".join(c.label.replace(" ", "-") for c in cls.all())
            raise UnknownRulesError(f"unknown category {quote(text)} (known: {names})") from None



_CATEGORY_ALIASES = {
    "high": "high_card", "nothing": "high_card", "one_pair": "pair", "trips": "three_of_a_kind",
    "three": "three_of_a_kind", "set": "three_of_a_kind", "full": "full_house", "fullhouse": "full_house",
    "quads": "four_of_a_kind", "four": "four_of_a_kind", "five": "five_of_a_kind",
    "straightflush": "straight_flush", "straight_in_one_colour": "straight_colour",
}

N_CATEGORY_IDS = len(Category.all())

# Classic Quintet order, lowest first (docs/rules.md: full house above flush).
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

# Category tables of five-card draw poker (docs/draw-poker.md), lowest first.  High card ("no
# category") is at the bottom of every table; five of a kind on top (it needs a joker).
_STANDARD_ORDER = _CLASSIC_ORDER + (Category.FIVE_OF_A_KIND,)
# The 11-category table: pair; two pair; three; full house; colour; flush; straight;
# straight colour; straight flush; four of a kind; five of a kind.
_ORDER_11 = (
    Category.HIGH_CARD,
    Category.PAIR,
    Category.TWO_PAIR,
    Category.THREE_OF_A_KIND,
    Category.FULL_HOUSE,
    Category.COLOUR,
    Category.FLUSH,
    Category.STRAIGHT,
    Category.STRAIGHT_COLOUR,
    Category.STRAIGHT_FLUSH,
    Category.FOUR_OF_A_KIND,
    Category.FIVE_OF_A_KIND,
)
# The 9-category table: high card; pair; two pair; three; straight; full house; four of a
# kind; straight flush («флэш» there); five of a kind.  No flush category.
_ORDER_9 = (
    Category.HIGH_CARD,
    Category.PAIR,
    Category.TWO_PAIR,
    Category.THREE_OF_A_KIND,
    Category.STRAIGHT,
    Category.FULL_HOUSE,
    Category.FOUR_OF_A_KIND,
    Category.STRAIGHT_FLUSH,
    Category.FIVE_OF_A_KIND,
)
# The 11-category table when colour, flush, straight and straight colour are not played
# (the straight flush is then called simply «стрит»): seven named categories.
_ORDER_7 = tuple(c for c in _ORDER_11 if c not in (
    Category.COLOUR, Category.FLUSH, Category.STRAIGHT, Category.STRAIGHT_COLOUR))

CATEGORY_TABLES: dict[str, tuple[Category, ...]] = {
    "classic": _CLASSIC_ORDER,
    "standard": _STANDARD_ORDER,
    "11": _ORDER_11,
    "9": _ORDER_9,
    "7": _ORDER_7,
}

TIEBREAKS = ("kickers", "group-only", "no-kickers")
"""``Rules.tiebreak`` values, each ignoring more of a hand's other cards (``Rules`` doc)."""
RULE_OPTIONS = ("weights", "tie_points", "ace_low_straight", "flush_over_full_house", "tiebreak",
                "swap_four_straight_flush", "joker_card")
"""What ``get_rules`` may change on a named rule set: ``Rules`` fields, and ``joker_card`` (the
deck's ``joker_alias``)."""


@dataclass(frozen=True)
class Rules:
    """A rule set.

    * ``weights`` — points for winning slot 1..5 (default 3, 4, 5, 6, 7);
    * ``tie_points`` — share of a slot's points each player scores when the two packets
      are equal, 0 ≤ share ≤ 0.5 (default 0: nobody scores);
    * ``ace_low_straight`` — A-7-8-9-10 counts as the lowest straight (default off);
    * ``flush_over_full_house`` — swap flush and full house (default off: full house higher);
    * ``tiebreak`` — how far equal hands of one category are compared: ``"kickers"`` (default:
      the group, then every other card), ``"group-only"`` (equal fours, threes and
      full-house triples tie, as the Quintet texts compare them; pairs, two pair, high card
      and flushes keep every card) or ``"no-kickers"`` (as ``group-only``, and also a pair is
      compared by its pair, two pair by the two pairs, high card by its highest card: the
      draw-poker text's «каждый имеет по одной равной двойке … то банк делится»);
    * ``deck`` and ``category_order`` — data: the cards and the categories, lowest first;
    * ``swap_four_straight_flush`` — four of a kind and straight flush trade places in the
      table (the variant of the 11-category table, docs/draw-poker.md; default off);
    * ``joker_card`` (a property; an option of ``get_rules`` and ``with_options``) — the
      ordinary card that plays as the joker, one of the deck's lowest cards («какая-либо
      младшая карта, чаще всего шестерка пик»: ``draw36-joker`` default ``"6s"``); ``""``
      for the other decks.

    Rule sets whose deck has jokers, more than 8 ranks, or categories beyond the classic
    nine (``is_variant``) are ranked by ``quintet.draw`` (64-bit masks); ``classic`` keeps
    the 32-bit kernels of ``quintet.kernels``.
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
    swap_four_straight_flush: bool = False

    def __post_init__(self) -> None:
        if self.tiebreak not in TIEBREAKS:
            raise UnknownRulesError(f"unknown tiebreak {quote(self.tiebreak)} (use {', '.join(TIEBREAKS)})")
        if not 0.0 <= self.tie_points <= 0.5:
            raise UnknownRulesError(f"tie_points must be between 0 and 0.5, got {self.tie_points}")
        if len(self.weights) < 1 or any(w <= 0 for w in self.weights):
            raise UnknownRulesError(f"slot weights must be positive, got {self.weights}")
        if sorted(self.category_order) != sorted(set(self.category_order)):
            raise UnknownRulesError("category_order lists a category twice")

    @property
    def joker_card(self) -> str:
        """The ordinary card that plays as the joker (``"6s"`` in ``draw36-joker``), or ``""``."""
        return self.deck.joker_alias

    @property
    def n_slots(self) -> int:
        return len(self.weights)

    @property
    def game_points(self) -> int:
        """Every slot's points together (25 in Quintet): what a resigned game gives the other
        player (docs/rules.md, a game resigned)."""
        return sum(self.weights)

    @property
    def n_exposed(self) -> int:
        """Cards exposed in a deal: the deck less the cards each player arranges (7 of 32 in Quintet)."""
        return self.deck.size - self.n_slots * self.hand_size

    @property
    def categories(self) -> tuple[Category, ...]:
        """The category table actually in force, lowest first (options applied)."""
        order = list(self.category_order)
        if self.flush_over_full_house and Category.FLUSH in order and Category.FULL_HOUSE in order:
            i, j = order.index(Category.FLUSH), order.index(Category.FULL_HOUSE)
            order[i], order[j] = order[j], order[i]
        if (self.swap_four_straight_flush and Category.FOUR_OF_A_KIND in order
                and Category.STRAIGHT_FLUSH in order):
            i, j = order.index(Category.FOUR_OF_A_KIND), order.index(Category.STRAIGHT_FLUSH)
            order[i], order[j] = order[j], order[i]
        return tuple(order)

    @property
    def is_variant(self) -> bool:
        """True when the draw-poker evaluator (``quintet.draw``, 64-bit masks) ranks this rule set."""
        return (self.deck.field != 8 or self.deck.jokers > 0
                or any(c not in _CLASSIC_ORDER for c in self.category_order))

    def category_label(self, category: Category) -> str:
        """The category's name in this table: its ``label``, except that a straight flush in a
        table without the plain straight (the 7-category table) is called simply «стрит»,
        "straight", as the text says."""
        if (category == Category.STRAIGHT_FLUSH and Category.STRAIGHT not in self.category_order
                and Category.STRAIGHT_FLUSH in self.category_order):
            return Category.STRAIGHT.label
        return category.label

    def category_named(self, text: str) -> Category:
        """The category of this table called ``text`` (``category_label`` first, then ``Category.from_name``)."""
        key = text.strip().lower().replace("-", " ").replace("_", " ")
        for category in self.categories:
            if self.category_label(category) == key:
                return category
        return Category.from_name(text)

    def category_strengths(self) -> list[int]:
        """Strength (0 = lowest) of each category id; -1 for ids this table lacks."""
        strengths = [-1] * N_CATEGORY_IDS
        for strength, cat in enumerate(self.categories):
            strengths[int(cat)] = strength
        return strengths

    def __repr__(self) -> str:
        """``get_rules('classic', tiebreak='group-only')`` for a named rule set with options, else
        the full constructor call: either way it pastes back as code."""
        base = RULE_SETS.get(self.name)
        if base is not None:
            changed = {f.name: getattr(self, f.name) for f in fields(self)
                       if getattr(self, f.name) != getattr(base, f.name)}
            if "deck" in changed and base.joker_card and replace(base.deck, joker_alias=self.joker_card) == self.deck:
                del changed["deck"]
                changed["joker_card"] = self.joker_card
            if set(changed) <= set(RULE_OPTIONS):
                return "get_rules(" + ", ".join([repr(self.name)] + [f"{k}={v!r}" for k, v in changed.items()]) + ")"
        return "Rules(" + ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)) + ")"

    def with_options(self, **changes: object) -> Rules:
        """A copy with ``changes``: ``Rules`` fields, or ``joker_card`` (see the class doc)."""
        if "joker_card" in changes:
            changes["deck"] = self.deck.with_joker_alias(str(changes.pop("joker_card")))
        return replace(self, **changes)  # type: ignore[arg-type]

    def describe(self) -> str:
        size = f"{self.deck.size} cards" + (f" ({self.deck.joker_note})" if self.deck.joker_note else "")
        parts = [self.name, size, "weights " + "/".join(map(str, self.weights))]
        if self.tie_points:
            parts.append(f"ties {self.tie_points:g} each")
        if self.ace_low_straight:
            parts.append("A-low straight")
        if self.flush_over_full_house:
            parts.append("flush > full house")
        if self.swap_four_straight_flush:
            parts.append("four of a kind <> straight flush")
        parts.append(f"tiebreak {self.tiebreak}")
        return ", ".join(parts)


CLASSIC = Rules()

RULE_SETS: dict[str, Rules] = {
    "classic": CLASSIC,
}

# Five-card draw poker variants (docs/draw-poker.md): ``draw<deck>[-<table>]``.
#   decks:  32 (7–A), 36 (6–A), 36-joker (6–A, a six plays as the joker: joker_card, 6♠ by default), 52, 53 (52 + one
#           joker), 54 (52 + two jokers);
#   tables: (none) the standard poker order plus five of a kind on top; -11 the 11-category
#           table; -11-swap the same with four of a kind and straight flush swapped; -9 the
#           9-category table; -7 the 11-category table without colour, flush, straight and
#           straight colour.
VARIANT_DECKS: dict[str, Deck] = {
    "32": CLASSIC_DECK, "36": DECK_36, "36-joker": DECK_36_JOKER,
    "52": DECK_52, "53": DECK_53, "54": DECK_54,
}
_VARIANT_TABLES = {"": ("standard", False), "-11": ("11", False), "-11-swap": ("11", True),
                   "-9": ("9", False), "-7": ("7", False)}


for _deck_name, _deck in VARIANT_DECKS.items():
    for _suffix, (_table, _swap) in _VARIANT_TABLES.items():
        _name = f"draw{_deck_name}{_suffix}"
        RULE_SETS[_name] = Rules(name=_name, deck=_deck, category_order=CATEGORY_TABLES[_table],
                                 swap_four_straight_flush=_swap)


def get_rules(name: str = "classic", **options: object) -> Rules:
    """The rule set called ``name`` with ``options`` (``RULE_OPTIONS``) applied.

    >>> get_rules("classic", tiebreak="group-only")
    get_rules('classic', tiebreak='group-only')
    >>> draw36 = get_rules("draw36")
    >>> draw36.deck.size, draw36.n_exposed
    (36, 11)
    >>> get_rules("draw36-joker-11", joker_card="6h").joker_card
    '6h'
    """
    try:
        base = RULE_SETS[name]
    except KeyError:
        raise UnknownRulesError(
            f"unknown rule set {quote(name)} (known: {', '.join(sorted(RULE_SETS))})"
        ) from None
    unknown = set(options) - set(RULE_OPTIONS)
    if unknown:
        raise UnknownRulesError(f"unknown rule option {quote(sorted(unknown)[0])}")
    return base.with_options(**options) if options else base
