"""The game's JSON, defined once: pydantic models of what ``quintet showdown``, ``hand``,
``compare`` and ``draw`` print with ``--json`` — and what the HTTP API sends for them and for
a table's show-down (``solver.advisor.schema`` lists them beside the solver's answers).

Every answer names its ``kind``; every hand its ``category``: the category's machine name
(``Category.slug``: ``full_house``, ``straight_flush``), the same in every rule set, beside the
hand in words.

    >>> from quintet.game import Arrangement, Deal, showdown
    >>> a = Arrangement.parse("9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h")
    >>> out = showdown(a, a, Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc")).to_model()
    >>> out.kind, out.slots[4].a.category, out.slots[4].a.hand
    ('showdown', 'straight_flush', 'straight flush, king high')

The game's own JSON needs no solver: ``quintet`` never imports ``solver``, and this module is
loaded only when JSON is written.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "JsonModel", "dump", "model_of", "absent", "HandOut", "ShowdownSlotOut", "ShowdownOut", "HandValueOut",
    "HandReportOut", "RankedHandOut", "CompareOut", "DrawOptionOut", "DrawOut", "StrategyActionOut",
    "StrategyExchangeOut", "StrategyInfoOut", "DrawStrategyOut",
]


class JsonModel(BaseModel):
    """A JSON object: no field beyond those declared — the one base of every answer's and
    request's model (the game's here, the solver's and the server's derive from it)."""

    model_config = ConfigDict(extra="forbid")


M = TypeVar("M", bound=BaseModel)


def dump(model: BaseModel) -> dict[str, Any]:
    """A model's JSON object (what the command lines print with ``--json``)."""
    return model.model_dump(mode="json")


def model_of(model: type[M], source: object, **values: Any) -> M:
    """``model`` of a result, its fields declared once (the model's): each is its entry in
    ``values``, else ``source``'s attribute of the same name (a dataclass field or a property; a
    nested result is read the same way)."""
    fields = {name: values[name] if name in values else getattr(source, name)
              for name in model.model_fields if name in values or hasattr(source, name)}
    return model.model_validate(fields, from_attributes=True)


def absent(value: object) -> bool:
    """A field left out of the JSON when it is None (``exclude_if``), never sent as null."""
    return value is None


CATEGORY = Field(description="the hand's category, a machine name the same in every rule set: high_card, pair, "
                             "two_pair, three_of_a_kind, straight, flush, full_house, four_of_a_kind, straight_flush, "
                             "five_of_a_kind, colour, straight_colour")


class HandOut(JsonModel):
    """One hand shown down: its cards, category, the hand in words and its strength key."""

    cards: list[str]
    category: str = CATEGORY
    hand: str = Field(description="the hand in words, e.g. 'two pair, nines and eights'")
    key: int = Field(description="the hand's strength key: higher wins")
    decider: str | None = Field(default=None, exclude_if=absent, description=(
        "against a hand of the same name, this hand's card at the place that decided (see decided_by)"))


class ShowdownSlotOut(JsonModel):
    slot: int
    points: int = Field(description="the slot's points at stake")
    a: HandOut
    b: HandOut
    winner: Literal["A", "B"] | None = Field(description="null for a tie")
    decided_by: str | None = Field(default=None, exclude_if=absent, description=(
        "when both hands have the same name and one wins: the place that decides and its ranks, the winner's "
        "first — 'second-highest card: queen over jack' (quintet.hands.tie_break)"))
    points_a: float
    points_b: float


class ShowdownOut(JsonModel):
    """Two arrangements shown down slot by slot (``quintet showdown --json``; at a table of the
    page, A is the seat asking and B the other side)."""

    kind: Literal["showdown"] = "showdown"
    exposed: list[str]
    rules: str = Field(description="the rule set's name")
    rules_description: str
    slots: list[ShowdownSlotOut]
    points_a: float
    points_b: float
    margin: float = Field(description="A's points minus B's")
    winner: Literal["A", "B"] | None = Field(description="null for a tie")


class HandValueOut(JsonModel):
    """One hand evaluated under a rule set."""

    hand: list[str] = Field(description="the cards, grouped (jokers first)")
    category: str = CATEGORY
    category_strength: int = Field(description="the category's index in the rule set's table, lowest 0")
    description: str = Field(description="the hand in words, e.g. 'five of a kind, aces'")
    key: int = Field(description="the hand's strength key: higher wins")
    percentile: float = Field(description="share of the deck's hands this hand beats or ties")
    stand_ins: dict[str, str] = Field(description="joker → the card it plays")


class _HandReportHead(JsonModel):
    kind: Literal["hand"] = "hand"
    rules: str = Field(description="the rule set's name")
    rules_description: str


class HandReportOut(HandValueOut, _HandReportHead):
    """``quintet hand --json``: the kind and rule set, then the hand (fields in this order)."""


class RankedHandOut(HandValueOut):
    """One hand of ``quintet compare``, with its place."""

    index: int = Field(description="the hand's position as given, 1-based")
    place: int = Field(description="1 for the strongest; equal hands share a place")
    tied: bool


class CompareOut(JsonModel):
    """``quintet compare --json``: hands ranked, strongest first."""

    kind: Literal["compare"] = "compare"
    rules: str
    rules_description: str
    hands: list[RankedHandOut]


class DrawOptionOut(JsonModel):
    """One exchange: keep ``keep``, draw ``draw`` cards (exact over every draw)."""

    keep: list[str]
    discard: list[str]
    draw: int
    outcomes: int
    expected_percentile: float
    p_win: float
    p_tie: float
    equity: float
    categories: dict[str, int] = Field(description="final hands per category (count of draws)")
    at_least: dict[str, float] | None = Field(default=None, exclude_if=absent,
                                              description="P(at least each category), in the ranked options")
    p_at_least: float | None = Field(default=None, exclude_if=absent,
                                     description="with the objective at-least:CATEGORY")
    at_least_count: int | None = Field(default=None, exclude_if=absent)


class DrawOut(JsonModel):
    """``quintet draw --json``: the 32 exchanges of a five-card hand, ranked."""

    kind: Literal["draw"] = "draw"
    rules: str
    hand: list[str]
    known: list[str]
    unseen: int
    objective: str
    opponent_model: str
    percentile_of: str
    recommended: dict[str, DrawOptionOut] = Field(description="the best exchange for each objective")
    options: list[DrawOptionOut] = Field(description="all 32 exchanges, best first for the objective")
    seconds: float


class StrategyActionOut(JsonModel):
    """One move at a spot of heads-up draw poker, by the equilibrium strategy."""

    action: str = Field(description="fold, call, raise N, demand N, draw D or stand pat")
    probability: float = Field(description="the strategy's probability of it for the player's class")
    chips: float | None = Field(default=None, exclude_if=absent,
                                description="its worth in chips counted from now (chips already in the pot not "
                                            "counted: a fold is 0) against the other player's range, both then "
                                            "following the strategy")


class StrategyExchangeOut(JsonModel):
    """One exchange: draw ``draw`` cards keeping the best 5 - draw (exact over every draw)."""

    draw: int
    keep: list[str]
    expected_percentile: float = Field(description="the final hand's mean percentile over every draw")
    likeliest: dict[str, float] = Field(description="the final hand's likeliest categories and their chances")


class StrategyInfoOut(JsonModel):
    """The solved strategy: how it was made and how far from an equilibrium of its abstract game."""

    algorithm: str
    iterations: int
    exploitability: float = Field(description="chips a hand a best responder wins above the game's value, in the "
                                              "abstract game (exact)")
    summary: str = Field(description="what the strategy is, in words: its abstraction's sizes and exploitability")


class DrawStrategyOut(JsonModel):
    """The heads-up equilibrium strategy's advice at a spot of draw poker (docs/draw-poker.md, the CFR strategy)."""

    kind: Literal["draw_strategy"] = "draw_strategy"
    rules: str
    player: Literal["first", "second"] = Field(description="first: on the dealer's left, acting first")
    phase: str = Field(description="betting before the exchange, exchange, betting after the exchange, or paying "
                                   "to see")
    hand_class: int = Field(description="the class of the player's hand (its number; class_name says its strength)")
    classes: int
    class_range: list[float] = Field(description="the class's range: the best exchange's mean final percentile "
                                                 "before the exchange, the final hand's percentile after it")
    class_name: str = Field(description="the class in words: its strength among the classes and what it holds")
    actions: list[StrategyActionOut]
    best: str = Field(description="the move advised: the strategy's likeliest among those worth the most chips")
    pot: int
    to_call: int = Field(description="what staying in costs now (0 at the exchange)")
    equity: float = Field(description="the player's chance to win the show-down against the other's range (ties "
                                      "half), after both exchange")
    opponent_classes: list[float] = Field(description="the other player's classes now, by Bayes' rule from the "
                                                      "strategy and his moves")
    exchanges: list[StrategyExchangeOut] = Field(description="at the exchange: each number of cards to draw")
    why: str = Field(description="the strategy's reason, in one line")
    strategy: StrategyInfoOut
