"""The HTTP API's typed requests and responses (pydantic models; FastAPI's OpenAPI).

Field names are the command lines' (``quintet-solve``, ``quintet showdown|hand|draw``) and
their ``--json`` output's.  Cards are a string (``"8h 7h 9d Ts 7s Qc Jc"``, any notation
the command lines read) or a list of card strings; an arrangement is a string (packets
separated by ``|`` or ``/``) or a list of five packets.  Unknown fields are refused.

The response models describe what the endpoints return; the answers themselves are the
solver's ``to_dict`` objects, passed through unchanged (so ``POST /api/solve`` is exactly
``quintet-solve --json``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

from quintet.rules import TIEBREAKS, Rules, get_rules
from quintet.seeds import SEED_MAX
from solver.advisor.limits import (
    EPSILON_MAX,
    MAX_EXPLOITABILITY_MAX,
    MAX_POPULATION,
    MAX_STYLE_RECORDS,
    TIME_LIMIT_MAX,
)
from solver.engines.base import ENGINE_NAMES, MAX_THREADS
from solver.problem.best_response import OBJECTIVES
from solver.problem.opponent_spec import MAX_SPEC_LENGTH

__all__ = [
    "Cards", "ArrangementText", "RulesIn", "SolveIn", "PopulationEntry", "ShowdownIn", "HandIn", "DrawIn",
    "ErrorOut", "SlotAdviceOut", "AnswerOut", "SolutionOut", "SwapOut", "GradeOut", "MixEntryOut", "SlotMarginalOut",
    "EquilibriumOut", "SafeOut", "ProgressOut", "JobOut", "HealthOut", "DealOut", "RuleSetOut",
]


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
        return value
    if isinstance(value, list) and all(isinstance(c, str) for c in value):
        return " ".join(value)
    raise PydanticCustomError(
        "cards_type", "expected cards as a string (\"8h 7h 9d\") or a list of card strings, got {kind}",
        {"kind": _kind(value) if not isinstance(value, list) else "a list holding something else"},
    )


def _arrangement_text(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        try:
            return " | ".join(_cards_text(packet) for packet in value)
        except PydanticCustomError:
            pass
    raise PydanticCustomError(
        "arrangement_type",
        "expected an arrangement as a string (packets separated by '|') or a list of five packets, got {kind}",
        {"kind": _kind(value)},
    )


_CARDS_SCHEMA = {
    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}],
    "description": "cards: \"8h 7h 9d\" or [\"8h\", \"7h\", \"9d\"]",
    "examples": ["8h 7h 9d Ts 7s Qc Jc"],
}
_ARRANGEMENT_SCHEMA = {
    "anyOf": [{"type": "string"}, {"type": "array", "items": _CARDS_SCHEMA}],
    "description": "five packets in slot order: \"9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | …\" or a list of five packets",
}

Cards = Annotated[str, PlainValidator(_cards_text), WithJsonSchema(_CARDS_SCHEMA)]
ArrangementText = Annotated[str, PlainValidator(_arrangement_text), WithJsonSchema(_ARRANGEMENT_SCHEMA)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class RulesIn(_Strict):
    """A rule set (``--rules`` and the rule options of the command lines)."""

    name: str = Field(default="classic", description="classic, or a draw rule set such as draw54 (GET /api/rules)")
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


class SolveIn(_Strict):
    """``quintet-solve``'s arguments.  A field left out takes its default; a field the answer
    would not use (``seed`` of the search's best response, ``epsilon`` without the
    equilibrium, ``objective`` of an equilibrium…) is refused with 400, never ignored."""

    exposed: Cards = Field(description="the 7 exposed cards")
    opponent: str = Field(default="equilibrium", max_length=MAX_SPEC_LENGTH, description=(
        "equilibrium (default) | uniform | greedy | population (the arrangements in 'population') | style (a "
        "style fitted on the records in 'style') | a mixture such as uniform:0.3,greedy:0.7; no files"))
    objective: Literal[OBJECTIVES] | None = Field(  # type: ignore[valid-type]
        default=None, description="a best response, completion or grade: margin (default) or points")
    engine: Literal[ENGINE_NAMES] | None = Field(  # type: ignore[valid-type]
        default=None, description="the exact engine: auto (default, = search), search or cpsat")
    epsilon: float | None = Field(default=None, ge=0, le=EPSILON_MAX, allow_inf_nan=False,
                                  description="equilibrium: stop once the certified exploitability is at most "
                                              "this (points; default 0.01)")
    time_limit: float | None = Field(default=None, gt=0, le=TIME_LIMIT_MAX, allow_inf_nan=False,
                                     description="seconds (default: none for a best response, 600 for an "
                                                 "equilibrium or a safe mix)")
    threads: int | None = Field(default=None, ge=1, le=MAX_THREADS, description="CP-SAT's threads (engine cpsat)")
    workers: int | None = Field(default=None, ge=1, le=MAX_THREADS, deprecated=True,
                                description="the old name of 'threads', accepted until the next release")
    seed: int | None = Field(default=None, ge=0, le=SEED_MAX, description=(
        "random seed: the arrangement drawn from an equilibrium or safe mix, and CP-SAT's seed (default 0)"))
    fix: dict[str, Cards] = Field(default_factory=dict, max_length=5,
                                  description="slot (\"1\"..\"5\") → packet: complete the rest")
    grade: ArrangementText | None = Field(default=None, description="an arrangement to grade")
    population: list[ArrangementText | PopulationEntry] | None = Field(
        None, max_length=MAX_POPULATION,
        description="observed arrangements (optionally weighted): the opponent 'population'")
    style: list[dict[str, Any]] | None = Field(
        None, max_length=MAX_STYLE_RECORDS,
        description="game records (objects with 'exposed' and 'player', as quintet-play --record writes them): "
                    "the opponent 'style'")
    rules: RulesIn = Field(default=RulesIn(), description="the rule set (default classic)")
    max_exploitability: float | None = Field(
        default=None, ge=0, le=MAX_EXPLOITABILITY_MAX, allow_inf_nan=False,
        description="safe exploitation: the mix that does best against the opponent model among those no "
                    "arrangement beats by more than this (points; 0: the best equilibrium against the model)")
    verify: float | None = Field(default=None, gt=0, le=TIME_LIMIT_MAX, allow_inf_nan=False,
                                 description="seconds for an independent recheck of the answer by the other exact "
                                             "engine (quintet-solve --verify)")


class ShowdownIn(_Strict):
    """``quintet showdown``'s arguments."""

    exposed: Cards
    a: ArrangementText = Field(description="player A's arrangement")
    b: ArrangementText = Field(description="player B's arrangement")
    rules: RulesIn = Field(default=RulesIn(), description="the rule set (default classic)")


class HandIn(_Strict):
    """``quintet hand``'s arguments."""

    hand: Cards
    rules: RulesIn = Field(default=RulesIn(), description="the rule set (default classic)")


class DrawIn(_Strict):
    """``quintet draw``'s arguments."""

    hand: Cards = Field(description="your five cards")
    known: Cards | None = Field(default=None, description="other cards known to be out of the stock")
    objective: str = Field(default="expected", description="expected | at-least:CATEGORY | beat-random")
    rules: RulesIn = Field(default=RulesIn(), description="the rule set (default classic)")


# ---------------------------------------------------------------------- responses


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ErrorOut(_Out):
    error: str = Field(description="one line naming the problem")


class SlotAdviceOut(_Out):
    slot: int
    points: int
    cards: list[str]
    hand: str
    p_win: float
    p_tie: float
    p_loss: float
    expected_points: float
    expected_margin: float


class VerificationOut(_Out):
    """An independent recheck (``solver.advisor.verify.Verification``)."""

    status: Literal["confirmed", "refuted", "inconclusive"]
    claim: Literal["optimum", "exploitability"]
    claimed: float
    engine: str
    found: float
    bound: float
    proven: bool
    seconds: float


class AnswerOut(_Out):
    """The fields every ``quintet-solve --json`` answer has."""

    exposed: list[str]
    live: list[str]
    rules: str
    opponent: str
    objective: str
    arrangement: list[list[str]] = Field(description="five packets in slot order (for the equilibrium: the "
                                         "arrangement drawn from the mix to play)")
    hands: list[str]
    expected_margin: float
    expected_points: float
    per_slot: list[SlotAdviceOut]
    optimal: bool = Field(description="proven optimal (for the equilibrium: certified within epsilon)")
    bound: float = Field(description="proven bound on the objective (for the equilibrium: the certified "
                                     "exploitability)")
    interrupted: bool
    seconds: float
    verification: VerificationOut | None = None


class SolutionOut(AnswerOut):
    """A best response or completion (``Solution.to_dict``)."""

    gap: float
    engine: str


class SwapOut(_Out):
    card_a: str
    slot_a: int
    card_b: str
    slot_b: int
    value: float
    arrangement: list[list[str]]


class GradeOut(_Out):
    """A grade (``Grade.to_dict``)."""

    given: SolutionOut
    value: float
    optimum: float
    optimum_proven: bool
    bound: float
    regret: float
    best_swap: SwapOut | None
    best: SolutionOut
    verification: VerificationOut | None = None


class MixEntryOut(_Out):
    probability: float
    arrangement: list[list[str]]
    hands: list[str]


class SlotMarginalOut(_Out):
    hand: str
    probability: float


class EquilibriumOut(AnswerOut):
    """The certified equilibrium (``quintet-solve --json`` with the equilibrium)."""

    opponent: Literal["equilibrium"]
    mix: list[MixEntryOut] = Field(description="the mix, most likely first")
    slot_marginals: list[list[SlotMarginalOut]]
    exploitability: float = Field(description="certified: no arrangement gains more than this (points)")
    exploitability_proven: bool
    epsilon: float
    converged: bool
    iterations: int
    pool_size: int
    from_store: bool
    notes: list[str] = Field(description="one-line remarks, e.g. a stale stored answer solved again")


class SafeOut(_Out):
    """A safe exploitation (``quintet-solve --max-exploitability``)."""

    exposed: list[str]
    live: list[str]
    rules: str
    opponent: str
    objective: Literal["margin"]
    max_exploitability: float
    mix: list[MixEntryOut] = Field(description="the mix, most likely first")
    arrangement: list[list[str]] = Field(description="an arrangement drawn from the mix to play")
    hands: list[str]
    exploitability: float = Field(description="certified: no arrangement gains more than this (points), "
                                              "at most max_exploitability")
    expected_margin: float = Field(description="the mix's expected margin against the opponent model")
    margin_bound: float = Field(description="no mix within the limit does better against the model")
    equilibrium_margin: float
    best_response_margin: float
    optimal: bool
    interrupted: bool
    iterations: int
    seconds: float
    verification: VerificationOut | None = None


class ProgressOut(_Out):
    iteration: int
    exploitability: float = Field(description="the best certified exploitability so far (points)")
    support: int
    pool_size: int
    seconds: float


class JobOut(_Out):
    job: str
    status: Literal["queued", "running", "cancelling", "done", "cancelled", "failed"]
    request: dict[str, Any]
    elapsed: float = Field(description="seconds since the job was submitted")
    progress: ProgressOut | None
    result: EquilibriumOut | SafeOut | GradeOut | SolutionOut | None = Field(
        description="the answer (when cancelled: the best found before, marked interrupted)")
    error: str | None


class HealthOut(_Out):
    status: Literal["ok", "broken"]
    version: str
    workers: int
    workers_ready: int
    workers_busy: int
    waiting: dict[str, int]
    running: dict[str, int]
    queue_size: int
    worker_pids: list[int]
    broken: str | None = Field(description="why no worker can run (workers died before they were ready)")
    store: str


class DealOut(_Out):
    seed: int
    rules: str
    exposed: list[str]
    live: list[str]


class RuleSetOut(_Out):
    name: str
    description: str
    deck: list[str]
    categories: list[str] = Field(description="hand categories, lowest first")
