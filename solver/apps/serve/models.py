"""The HTTP API's typed requests and responses (pydantic models; FastAPI's OpenAPI).

Field names are the command lines' (``quintet-solve``, ``quintet showdown|hand|draw``) and
their ``--json`` output's.  Cards are a string (``"8h 7h 9d Ts 7s Qc Jc"``, any notation
the command lines read) or a list of card strings; an arrangement is a string (packets
separated by ``|`` or ``/``) or a list of five packets.  Unknown fields are refused.

Responses: the answers are the response models of ``solver.advisor.schema`` (``SolutionOut``,
``GradeOut``, ``EquilibriumOut``, ``SafeOut``, ``SparseOut``: exactly what ``quintet-solve
--json`` prints; ``ImmediateAnswerOut`` those answered at once, the others come as a job's
result; ``ShowdownOut``, ``HandReportOut``, ``DrawOut``: what ``quintet showdown|hand|draw
--json`` print); the server's own (jobs, health, deals, rule sets, limits, errors) are defined
here.  Every body the server sends is one of these models, so ``/openapi.json`` describes
exactly what is sent.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, PlainValidator, WithJsonSchema, create_model
from pydantic_core import PydanticCustomError

from quintet.draw.game import Terms
from quintet.rules import TIEBREAKS, Rules, get_rules
from quintet.seeds import SEED_MAX
from solver.advisor.limits import MAX_POPULATION, MAX_STYLE_RECORDS, MAX_SUPPORT_MAX, RANGES
from solver.advisor.request import FIELDS, RequestField
from solver.advisor.schema import (
    AnswerOut,
    CompareOut,
    DrawOptionOut,
    DrawOut,
    DrawStrategyOut,
    EquilibriumOut,
    GradeOut,
    HandOut,
    HandReportOut,
    JobProgressOut,
    JsonModel,
    KmixProgressOut,
    MixEntryOut,
    OddsOut,
    OneOf,
    ProgressOut,
    ReviewOut,
    SafeOut,
    ShowdownOut,
    ShowdownSlotOut,
    SlotAdviceOut,
    SlotMarginalOut,
    SolutionOut,
    SolveAnswerOut,
    SparseOut,
    SwapOut,
    VerificationOut,
)
from solver.problem.opponent_spec import MAX_SPEC_LENGTH

__all__ = [
    "Cards", "ArrangementText", "RulesIn", "SolveIn", "PopulationEntry", "ShowdownIn", "HandIn", "DrawIn",
    "TermsIn", "DrawStrategyIn", "DrawStrategyOut",
    "ErrorOut", "JobOut", "JobCreatedOut", "HealthOut", "DealOut", "RuleSetOut", "MAX_CARDS_TEXT", "MAX_NAME_LENGTH",
    # the answers (defined in solver.advisor.schema and, the game's, quintet.schema)
    "SlotAdviceOut", "AnswerOut", "SolutionOut", "SwapOut", "GradeOut", "MixEntryOut", "SlotMarginalOut",
    "EquilibriumOut", "SafeOut", "SparseOut", "ProgressOut", "KmixProgressOut", "VerificationOut", "SolveAnswerOut",
    "OddsOut",
    "ImmediateAnswerOut", "ShowdownOut", "ShowdownSlotOut", "HandOut", "HandReportOut", "CompareOut", "DrawOut",
    "DrawOptionOut",
]

MAX_CARDS_TEXT = 400
"""Characters of a cards or arrangement text (54 cards with separators fit in 200)."""
MAX_CARD_ITEMS = 64
"""Strings in a list of cards; each at most ``MAX_CARD_LENGTH`` characters."""
MAX_CARD_LENGTH = 8
MAX_PACKETS = 16
"""Packets in an arrangement given as a list (five are legal; more are refused by the rules' check)."""
MAX_NAME_LENGTH = 64
"""Characters of a rule set's name or a draw objective."""


def _kind(value: object) -> str:
    """How a JSON value is called in an error message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _cards_text(value: object) -> str:
    if isinstance(value, str):
        if len(value) > MAX_CARDS_TEXT:
            raise PydanticCustomError("cards_length", "at most {limit} characters of cards, got {n}",
                                      {"limit": MAX_CARDS_TEXT, "n": f"{len(value):,}"})
        return value
    if isinstance(value, list) and all(isinstance(c, str) for c in value):
        if len(value) > MAX_CARD_ITEMS or any(len(c) > MAX_CARD_LENGTH for c in value):
            raise PydanticCustomError(
                "cards_length", "a list of at most {items} cards of at most {length} characters each",
                {"items": MAX_CARD_ITEMS, "length": MAX_CARD_LENGTH})
        return " ".join(value)
    raise PydanticCustomError(
        "cards_type", "expected cards as a string (\"8h 7h 9d\") or a list of card strings, got {kind}",
        {"kind": _kind(value) if not isinstance(value, list) else "a list holding something else"},
    )


def _arrangement_text(value: object) -> str:
    if isinstance(value, str):
        return _cards_text(value)
    if isinstance(value, list) and len(value) > MAX_PACKETS:
        raise PydanticCustomError("cards_length", "an arrangement of at most {limit} packets, got {n}",
                                  {"limit": MAX_PACKETS, "n": f"{len(value):,}"})
    if isinstance(value, list):
        try:
            return " | ".join(_cards_text(packet) for packet in value)
        except PydanticCustomError as exc:
            if exc.type == "cards_length":
                raise
    raise PydanticCustomError(
        "arrangement_type",
        "expected an arrangement as a string (packets separated by '|') or a list of five packets, got {kind}",
        {"kind": _kind(value)},
    )


_CARDS_FORMS: list[dict[str, Any]] = [
    {"type": "string", "maxLength": MAX_CARDS_TEXT},
    {"type": "array", "maxItems": MAX_CARD_ITEMS, "items": {"type": "string", "maxLength": MAX_CARD_LENGTH}},
]
_CARDS_SCHEMA = {
    "anyOf": _CARDS_FORMS,
    "description": "cards: \"8h 7h 9d\" or [\"8h\", \"7h\", \"9d\"]",
    "examples": ["8h 7h 9d Ts 7s Qc Jc"],
}
_ARRANGEMENT_SCHEMA = {
    "anyOf": [{"type": "string", "maxLength": MAX_CARDS_TEXT},
              {"type": "array", "maxItems": MAX_PACKETS, "items": {"anyOf": _CARDS_FORMS}}],
    "description": "five packets in slot order: \"9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | …\" or a list of five packets",
}

Cards = Annotated[str, PlainValidator(_cards_text), WithJsonSchema(_CARDS_SCHEMA)]


def integral(value: object) -> object:
    """JSON's ``6.0`` is the integer 6, as JSON Schema says; ``6.5`` stays a float (refused)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# integer fields: a JSON integer, or a number with no fraction (as JSON Schema counts it); the
# range comes before the validator, so that the schema says it as minimum and maximum
Seed = Annotated[int, Field(ge=0, le=SEED_MAX), BeforeValidator(integral)]
MaxSupport = Annotated[int, Field(ge=1, le=MAX_SUPPORT_MAX), BeforeValidator(integral)]
ArrangementText = Annotated[str, PlainValidator(_arrangement_text), WithJsonSchema(_ARRANGEMENT_SCHEMA)]


class _Strict(JsonModel):
    """A request: no field beyond those declared, no JSON type coerced."""

    model_config = ConfigDict(strict=True)


class RulesIn(_Strict):
    """A rule set (``--rules`` and the rule options of the command lines)."""

    name: str = Field(default="classic", max_length=MAX_NAME_LENGTH,
                      description="classic, or a draw rule set such as draw54 (GET /api/rules)")
    tie_points: float | None = Field(default=None, ge=0, le=0.5,
                                     description="share of a tied slot's points each player scores")
    ace_low_straight: bool | None = None
    flush_over_full_house: bool | None = None
    tiebreak: Literal[TIEBREAKS] | None = None  # type: ignore[valid-type]
    swap_four_straight_flush: bool | None = None

    def to_rules(self) -> Rules:
        options = {k: v for k, v in self.model_dump().items() if k != "name" and v is not None}
        return get_rules(self.name, **options)


class PopulationEntry(_Strict):
    arrangement: ArrangementText
    weight: float = Field(default=1.0, gt=0, allow_inf_nan=False)


_EXAMPLE = "8h 7h 9d Ts 7s Qc Jc"
_ARRANGEMENT = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"


def _examples(*examples: dict[str, Any]) -> ConfigDict:
    return ConfigDict(strict=True, json_schema_extra={"examples": list(examples)})


def _request_field(f: RequestField) -> tuple[Any, Any]:
    """The HTTP model's annotation and ``Field`` of a solve request's field (``FIELDS``); a
    registry's names and words are read when a value is checked and when the schema is written."""
    choice = Annotated[str, OneOf(f.choices)] if callable(f.choices) else Literal[f.choices]
    kinds: dict[str, Any] = {
        "cards": Cards, "text": Annotated[str, Field(max_length=MAX_SPEC_LENGTH)], "arrangement": ArrangementText,
        "choice": choice, "fix": Annotated[dict[str, Cards], Field(max_length=5)], "rules": RulesIn,
        "population": Annotated[list[ArrangementText | PopulationEntry], Field(max_length=MAX_POPULATION)],
        "style": Annotated[list[dict[str, Any]], Field(max_length=MAX_STYLE_RECORDS)]}
    if f.kind in ("number", "integer"):
        bounds: dict[str, Any] = dict(RANGES[f.range].bounds())
        kinds[f.kind] = (Annotated[int, Field(**bounds), BeforeValidator(integral)] if f.kind == "integer"
                         else Annotated[float, Field(**bounds, allow_inf_nan=False)])
    kind = kinds[f.kind]
    words: dict[str, Any] = ({"json_schema_extra": lambda schema: schema.update(description=f.words())}
                             if callable(f.help) else {"description": f.help})
    if f.kind == "cards":
        return kind, Field(**words)
    if f.kind == "fix":
        return kind, Field(default_factory=dict, **words)
    if f.kind == "rules":
        return kind, Field(default=RulesIn(), **words)
    if f.default is not None:
        return kind, Field(default=f.default, **words)
    return kind | None, Field(default=None, **words)


class _SolveExamples(_Strict):
    model_config = _examples(
        {"exposed": _EXAMPLE, "opponent": "uniform"},
        {"exposed": _EXAMPLE, "opponent": "greedy", "objective": "points", "fix": {"5": "Ah Kh Qh Jh Th"}},
        {"exposed": _EXAMPLE, "opponent": "uniform:0.5,greedy:0.5", "grade": _ARRANGEMENT},
        {"exposed": "Ac Kh Kd Kc Qd Ts 7s", "epsilon": 0.05},
        {"exposed": "Kc Qh Qd Js 9d 8s 7d", "max_support": 2, "seed": 4},
    )


SolveIn = create_model("SolveIn", __base__=_SolveExamples, __module__=__name__, __doc__=(
    "``quintet-solve``'s arguments (``solver.advisor.request.FIELDS``).  A field left out takes its default; a field "
    "the answer would not use (``seed`` of the search's best response, ``epsilon`` without the equilibrium, "
    "``objective`` of an equilibrium…) is refused with 400, never ignored."),
    **{f.name: _request_field(f) for f in FIELDS})  # type: ignore[call-overload]


class ShowdownIn(_Strict):
    """``quintet showdown``'s arguments."""

    model_config = _examples({"exposed": _EXAMPLE, "a": _ARRANGEMENT, "b": (
        "Th Td Tc 7d 7c | Js Jh Jd 8s 8d | Qs Qh Qd 9s 9h | Ks Kh Kd Kc 8c | As Ah Ad Ac 9c")})

    exposed: Cards
    a: ArrangementText = Field(description="player A's arrangement")
    b: ArrangementText = Field(description="player B's arrangement")
    rules: RulesIn = Field(default=RulesIn(), description="the rule set (default classic)")


class HandIn(_Strict):
    """``quintet hand``'s arguments."""

    model_config = _examples({"hand": "As Ah Ad Ac Jk", "rules": {"name": "draw54"}})

    hand: Cards
    rules: RulesIn = Field(default=RulesIn(), description="the rule set (default classic)")


class DrawIn(_Strict):
    """``quintet draw``'s arguments."""

    model_config = _examples({"hand": "Ah Kh 9h 5h 2c", "rules": {"name": "draw52"}, "objective": "at-least:flush"})

    hand: Cards = Field(description="your five cards")
    known: Cards | None = Field(default=None, description="other cards known to be out of the stock")
    objective: str = Field(default="expected", max_length=MAX_NAME_LENGTH,
                           description="expected | at-least:CATEGORY | beat-random")
    rules: RulesIn = Field(default=RulesIn(), description="the rule set (default classic)")


class TermsIn(_Strict):
    """The terms of a draw-poker table (``quintet poker``'s terms options; ``quintet.draw.game.Terms``)."""

    ante: Annotated[int, Field(ge=1, le=1000), BeforeValidator(integral)] = 1
    stake: Annotated[int, Field(ge=1, le=1000), BeforeValidator(integral)] = 1
    limit: Annotated[int, Field(ge=1, le=1000), BeforeValidator(integral)] = 5
    exchange_fee: Annotated[int, Field(ge=0, le=1000), BeforeValidator(integral)] = 0
    circles: Annotated[int, Field(ge=1, le=10), BeforeValidator(integral)] = 3
    betting_before_exchange: bool = True
    demand_any_turn: bool = False
    raising_demand_ends: bool = False

    def to_terms(self) -> Terms:
        return Terms(**self.model_dump())


MAX_ACTIONS = 64
"""Moves in a heads-up hand's line (a hand has at most about 20)."""


class DrawStrategyIn(_Strict):
    """A position of heads-up draw poker, for the equilibrium strategy's advice."""

    model_config = _examples({"hand": "Ah Kh 9h 5h 2c", "actions": ["call", "raise 3"], "player": "first"})

    hand: Cards = Field(description="your five cards: as dealt before your exchange, your final hand after it")
    actions: list[Annotated[str, Field(max_length=16)]] = Field(
        default=[], max_length=MAX_ACTIONS,
        description="both players' moves from the start, in order: fold, call, raise N, demand N, draw D, stand pat")
    player: Literal["first", "second"] = Field(description="first: on the dealer's left, acting first; second: "
                                                           "the dealer")
    rules: RulesIn = Field(default=RulesIn(name="draw36-joker-11"), description="a draw rule set")
    terms: TermsIn = Field(default=TermsIn(), description="the table's terms")


# ---------------------------------------------------------------------- the server's responses

ImmediateAnswerOut = EquilibriumOut | GradeOut | SolutionOut
"""The answers ``POST /api/solve`` sends at once (200); a safe mix, a K-mix and an equilibrium
not in the store come as a job's result (``JobOut.result``, any ``SolveAnswerOut``)."""


class ErrorOut(JsonModel):
    """Every error: one line naming the problem (never a traceback, never the whole input)."""

    error: str = Field(description="one line naming the problem")


JobResultOut = Annotated[EquilibriumOut | SafeOut | SparseOut | GradeOut | SolutionOut | ReviewOut,
                         Field(discriminator="kind")]
"""A job's answer: any answer of a solve (``SolveAnswerOut``), or a review (``POST /api/review``)."""


class JobOut(JsonModel):
    """A job: an equilibrium solve, a safe exploitation or a K-mix, followed by the client."""

    job: str
    status: Literal["queued", "running", "cancelling", "done", "cancelled", "failed"]
    request: dict[str, Any] = Field(description="the request's fields as the client gave them")
    elapsed: float = Field(description="seconds since the job was submitted")
    progress: JobProgressOut | None = Field(description="the last progress: the equilibrium solve's iteration "
                                                        "(kind 'equilibrium'), then a K-mix's certifications (kind "
                                                        "'kmix'); null before the first, and for a safe exploitation")
    result: JobResultOut | None = Field(
        description="the answer — an equilibrium (EquilibriumOut), a safe mix (SafeOut), a K-mix (SparseOut), a "
                    "review (ReviewOut) — (when cancelled: the best found before, marked interrupted)")
    error: str | None = Field(description="a failed job's one line (a job stopped at the server's time limit: "
                                          "says so beside its result)")


class JobCreatedOut(JobOut):
    """A job just started (202): the job, and its secret."""

    secret: str = Field(description="the job's secret (256 bits, shown once, here): GET, DELETE and the events of "
                                    "the job need it as 'Authorization: Bearer SECRET' — no one else can read or "
                                    "cancel the job")


class HealthOut(JsonModel):
    """The server's state, as anyone may see it: no path, no process id."""

    status: Literal["ok", "broken"]
    version: str
    workers: int
    workers_ready: int
    workers_busy: int
    waiting: dict[str, int]
    running: dict[str, int]
    queue_size: int
    broken: str | None = Field(description="why no worker can run (workers died before they were ready)")
    solver: bool = Field(description="the solver API (solves, jobs, draw advice) is on; off on a play-only server")
    table_ttl: float = Field(description="seconds a table is kept after its last move (quintet-serve --table-ttl)")


class DealOut(JsonModel):
    seed: int
    rules: str
    exposed: list[str]
    live: list[str]


class RuleSetOut(JsonModel):
    name: str
    description: str
    deck: list[str]
    jokers: list[str] = Field(description="the deck's jokers, the first cards of its deck (empty: none)")
    weights: list[int] = Field(description="points for winning each slot, slot 1 first (one per slot)")
    hand_size: int = Field(description="cards in each slot's hand")
    n_exposed: int = Field(description="cards exposed in a deal (out of play)")
    categories: list[str] = Field(description="hand categories, lowest first")
    heads_up: bool = Field(description="a heads-up draw-poker strategy ships for this rule set under the default "
                                       "terms (POST /api/draw/strategy answers at once)")
