"""Every JSON answer, defined once: pydantic response models.

Each result produces its model (``Solution.to_model()``, ``Grade.to_model()``,
``EquilibriumResult.to_model(seed)``, ``SafeResponse.to_model(seed)``,
``Verification.to_model()``, ``SolveAnswer.to_model()``) and its ``to_dict()`` is that model's
JSON (``dump``): what ``quintet-solve --json`` prints is what ``POST /api/solve`` sends, and the
OpenAPI description of the HTTP API is generated from these same classes.

    >>> from quintet.game import Deal
    >>> from solver.advisor.advice import best_response
    >>> answer = best_response(Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc"), "uniform").to_model()
    >>> type(answer).__name__, answer.optimal, round(answer.expected_margin, 4)
    ('SolutionOut', True, 24.8669)

Every answer names its ``kind`` (``solution``, ``grade``, ``equilibrium``, ``safe``, ``kmix``;
the game's ``showdown``, ``hand``, ``compare``, ``draw``, ``draw_strategy``; ``tournament``, ``batch``, ``book``;
a table's ``odds``), so a client never guesses it from the fields; every hand names its
``category``, a machine name the same in every rule set (``full_house``: ``Category.slug``),
beside the hand in words.  The game's own models (``ShowdownOut``, ``HandOut``…) live in
``quintet.schema`` (the game needs no solver) and are listed here with the rest.

A field that only some answers carry (``verification``: the independent recheck, when asked
for) is left out of the JSON when it is absent, never sent as ``null``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticCustomError, core_schema

from quintet.schema import (
    CompareOut,
    DrawOptionOut,
    DrawOut,
    DrawStrategyOut,
    HandOut,
    HandReportOut,
    HandValueOut,
    JsonModel,
    RankedHandOut,
    ShowdownOut,
    ShowdownSlotOut,
    absent,
    dump,
    model_of,
)

if TYPE_CHECKING:
    from solver.games.double_oracle import IterationRecord

__all__ = [
    "JsonModel", "SlotAdviceOut", "VerificationOut", "AnswerOut", "AlternativeOut", "SolutionOut", "SwapOut",
    "GradeOut",
    "MixEntryOut", "SlotMarginalOut", "PlanOut", "EquilibriumOut", "SafeOut", "RollOut", "SparseOut", "ProgressOut",
    "SolveAnswerOut", "OddsOut", "RangeOut", "DefaultOut", "LimitsOut", "BestResponseValueOut",
    "DealEquilibriumOut", "TournamentDealOut", "EquilibriumSummaryOut", "TournamentOut", "BatchDealOut", "BatchOut",
    "BookOut", "dump", "model_of", "CATEGORY", "CATEGORIES", "KmixProgressOut", "JobProgressOut", "OneOf",
    # the game's (quintet.schema)
    "HandOut", "ShowdownSlotOut", "ShowdownOut", "HandValueOut", "HandReportOut", "RankedHandOut", "CompareOut",
    "DrawOptionOut", "DrawOut", "DrawStrategyOut",
    # the games' review, statistics and puzzles (solver.play)
    "ReviewHandOut", "SlotReviewOut", "SlotRegretOut", "RegretOut", "ReviewOut", "TrendOut", "SlotStatsOut",
    "OpponentStatsOut", "StatsOut", "PuzzleOut", "PuzzleResultOut", "PuzzleMistakeOut", "PuzzleEntryOut",
    "PuzzleSetOut", "PuzzleRunOut", "ThemeOut", "RatingChangeOut", "PuzzleProgressOut",
]


@dataclass(frozen=True)
class OneOf:
    """``Annotated[str, OneOf(names)]``: a text that must be one of ``names()`` (a registry's:
    engines, opponent models), read when a value is checked and when the schema is written, so a
    name registered after the models were built is accepted and listed (its ``enum``)."""

    names: Callable[[], Sequence[str]]

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> core_schema.CoreSchema:
        return core_schema.no_info_after_validator_function(self._check, handler(source))

    def __get_pydantic_json_schema__(self, schema: core_schema.CoreSchema,
                                     handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        return {**handler(schema), "enum": list(self.names())}

    def _check(self, value: str) -> str:
        if value not in self.names():
            raise PydanticCustomError("literal_error", "Input should be one of {names}",
                                      {"names": ", ".join(repr(n) for n in self.names())})
        return value


CATEGORY = Field(description="the hand's category: a machine name, the same in every rule set (high_card, pair, "
                             "two_pair, …, full_house, straight_flush; quintet.schema)")
CATEGORIES = Field(description="the category of each hand, in the same order (machine names)")


class SlotAdviceOut(JsonModel):
    """One slot of an arrangement against the opponent model."""

    slot: int = Field(description="1-based")
    points: int = Field(description="the slot's points at stake")
    cards: list[str]
    hand: str = Field(description="the hand's description, e.g. 'full house, tens over sevens'")
    category: str = CATEGORY
    p_win: float
    p_tie: float
    p_loss: float
    expected_points: float = Field(description="points expected in this slot")
    expected_margin: float = Field(description="my points minus the opponent's, expected")


class VerificationOut(JsonModel):
    """An independent recheck by the other exact engine (``quintet-solve --verify``)."""

    status: Literal["confirmed", "refuted", "inconclusive"]
    claim: Literal["optimum", "exploitability"]
    claimed: float
    engine: str
    found: float = Field(description="the best value the checking engine found (points)")
    bound: float = Field(description="its proven upper bound on the true value (points)")
    proven: bool
    seconds: float


_VERIFICATION = Field(default=None, exclude_if=absent,
                      description="the independent recheck (present only when asked for with 'verify')")


class AnswerOut(JsonModel):
    """The fields every ``quintet-solve --json`` answer with per-slot advice has."""

    exposed: list[str]
    live: list[str]
    rules: str = Field(description="the rule set, described (name, deck, weights, options)")
    opponent: str
    objective: str
    arrangement: list[list[str]] = Field(description="five packets in slot order (for the equilibrium: the "
                                                     "arrangement drawn from the mix to play)")
    hands: list[str]
    categories: list[str] = CATEGORIES
    expected_margin: float
    expected_points: float
    per_slot: list[SlotAdviceOut]
    optimal: bool = Field(description="proven optimal (for the equilibrium: certified within epsilon)")
    bound: float = Field(description="proven bound on the objective (for the equilibrium: the certified "
                                     "exploitability)")
    interrupted: bool
    seconds: float


class AlternativeOut(JsonModel):
    """The best arrangement of the rank-th best plan (a hand category per slot): the best among
    the arrangements whose plan is none of the plans ranked before it."""

    rank: int = Field(description="2 for the best arrangement of another plan than the answer's, 3 for the next …")
    plan: list[str] = Field(description="the hand category of each slot in words (as the rule set calls it)")
    arrangement: list[list[str]]
    hands: list[str]
    categories: list[str] = CATEGORIES
    per_slot: list[SlotAdviceOut]
    value: float = Field(description="the objective's value (expected margin or points)")
    expected_margin: float
    expected_points: float
    cost: float = Field(description="the answer's value minus this one (points; ≥ 0 when both are proven)")
    optimal: bool = Field(description="proven the best arrangement of a plan not ranked before it (false: the "
                                      "search was stopped; value is the best found, bound its proven bound)")
    bound: float = Field(description="proven bound on the value of every arrangement of a plan not ranked before")
    seconds: float


class SolutionOut(AnswerOut):
    """A best response or a completion (``Solution``)."""

    kind: Literal["solution"] = "solution"
    objective: Literal["margin", "points"]
    gap: float = Field(description="bound minus value: 0 when proven optimal")
    alternatives: list[AlternativeOut] | None = Field(
        default=None, exclude_if=absent, description="with top N > 1: the best arrangement of each of the next N − 1 "
        "plans, best first (fewer when the deal has fewer plans)")
    engine: str = Field(description="the exact engine that answered (search, cpsat; 'given' for a graded "
                                    "arrangement)")
    verification: VerificationOut | None = _VERIFICATION


class SwapOut(JsonModel):
    """A two-card swap between two slots."""

    card_a: str
    slot_a: int
    card_b: str
    slot_b: int
    value: float = Field(description="the objective after the swap")
    arrangement: list[list[str]]


class GradeOut(JsonModel):
    """A graded arrangement (``Grade``)."""

    kind: Literal["grade"] = "grade"
    given: SolutionOut
    value: float
    optimum: float
    optimum_proven: bool
    bound: float
    regret: float = Field(description="optimum minus the given arrangement's value (an upper bound if unproven)")
    best_swap: SwapOut | None = Field(description="the two-card swap that improves most; null when none does")
    best: SolutionOut
    verification: VerificationOut | None = _VERIFICATION


class MixEntryOut(JsonModel):
    """One arrangement of a mix."""

    probability: float
    arrangement: list[list[str]]
    hands: list[str]
    categories: list[str] = CATEGORIES


class SlotMarginalOut(JsonModel):
    """A hand (by its description) played in one slot, and how likely."""

    hand: str
    category: str = CATEGORY
    probability: float


class PlanOut(JsonModel):
    """A plan: the same hand category in each slot, with the mix's total probability of it."""

    hands: list[str] = Field(description="the hand category of each slot in words (as the rule set calls it), in "
                                         "slot order")
    categories: list[str] = CATEGORIES
    probability: float
    arrangements: int = Field(description="how many of the mix's arrangements follow this plan")


class EquilibriumOut(AnswerOut):
    """The certified equilibrium (``EquilibriumResult``) with the arrangement drawn from it to play."""

    kind: Literal["equilibrium"] = "equilibrium"
    opponent: Literal["equilibrium"]
    objective: Literal["margin"]
    mix: list[MixEntryOut] = Field(description="the mix, most likely first")
    slot_marginals: list[list[SlotMarginalOut]]
    plans: list[PlanOut] = Field(description="the mix's arrangements grouped by hand category per slot, "
                                             "most likely first")
    exploitability: float = Field(description="certified: no arrangement gains more than this (points)")
    exploitability_proven: bool
    epsilon: float
    converged: bool
    iterations: int
    pool_size: int
    from_store: bool
    notes: list[str] = Field(description="one-line remarks, e.g. a stale stored answer solved again")
    verification: VerificationOut | None = _VERIFICATION


class SafeOut(JsonModel):
    """A safe exploitation (``SafeResponse``, ``quintet-solve --max-exploitability``)."""

    kind: Literal["safe"] = "safe"
    exposed: list[str]
    live: list[str]
    rules: str
    opponent: str
    objective: Literal["margin"]
    max_exploitability: float
    mix: list[MixEntryOut] = Field(description="the mix, most likely first")
    arrangement: list[list[str]] = Field(description="an arrangement drawn from the mix to play")
    hands: list[str]
    categories: list[str] = CATEGORIES
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
    verification: VerificationOut | None = _VERIFICATION


class RollOut(JsonModel):
    """A seeded die roll over a mix: ``value`` uniform in [0, 1) picks the arrangement whose
    share [low, high) holds it."""

    seed: int
    value: float
    pick: int = Field(description="the arrangement picked, 1-based in the mix's order")
    low: float
    high: float


class SparseOut(JsonModel):
    """The least exploitable mix of at most ``max_support`` arrangements found, certified
    (``SparseEquilibrium``, ``quintet-solve --max-support``)."""

    kind: Literal["kmix"] = "kmix"
    exposed: list[str]
    live: list[str]
    rules: str
    opponent: Literal["equilibrium"]
    objective: Literal["margin"]
    max_support: int = Field(description="K: at most this many arrangements in the mix")
    mix: list[MixEntryOut] = Field(description="the mix, most likely first")
    plans: list[PlanOut]
    roll: RollOut = Field(description="the die roll (the request's seed) that picks the arrangement to play")
    arrangement: list[list[str]] = Field(description="the arrangement the roll picks")
    hands: list[str]
    categories: list[str] = CATEGORIES
    exploitability: float = Field(description="certified: no arrangement gains more than this (points)")
    exploitability_proven: bool
    lower_bound: float = Field(description="proven: no mix of at most max_support arrangements is exploitable "
                                           "by less")
    optimal: bool = Field(description="proven the least exploitable K-mix (exploitability meets lower_bound)")
    best_found: bool = Field(description="the best mix found, not proven the best (not optimal)")
    method: str = Field(description="which start of the search found it")
    equilibrium_exploitability: float = Field(description="the full equilibrium's certified exploitability")
    equilibrium_support: int = Field(description="arrangements in the full equilibrium")
    epsilon: float
    best_responses: int = Field(description="exact best responses computed")
    interrupted: bool
    seconds: float
    verification: VerificationOut | None = _VERIFICATION


class ProgressOut(JsonModel):
    """An equilibrium solve's progress: its last iteration (``ProgressOut.of``)."""

    kind: Literal["equilibrium"] = "equilibrium"
    iteration: int
    exploitability: float = Field(description="the best certified exploitability so far (points)")
    support: int
    pool_size: int
    seconds: float

    @classmethod
    def of(cls, record: IterationRecord) -> ProgressOut:
        """The progress of one iteration of the double oracle."""
        return cls(iteration=record.iteration, exploitability=max(0.0, record.exploitability),
                   support=record.support, pool_size=record.pool_size, seconds=record.seconds)


class KmixProgressOut(JsonModel):
    """A K-mix search's progress, after its equilibrium (``SparseRecord``): the mixes of at most
    K arrangements certified so far and the least exploitability among them."""

    kind: Literal["kmix"] = "kmix"
    certified: int = Field(description="mixes certified so far (each by an exact best response)")
    support: int = Field(description="arrangements in the mix certified last")
    exploitability: float = Field(description="the least certified exploitability so far (points)")
    seconds: float


JobProgressOut = Annotated[ProgressOut | KmixProgressOut, Field(discriminator="kind")]
"""A job's progress: the equilibrium's iterations, then (a K-mix) the mixes certified."""


SolveAnswerOut = Annotated[EquilibriumOut | SafeOut | SparseOut | GradeOut | SolutionOut, Field(discriminator="kind")]
"""Any answer of a solve request (``SolveAnswer.to_model``), told apart by its ``kind``."""


class OddsOut(JsonModel):
    """The hands the other side's model plays in each slot (``quintet-play``'s ``odds``, a table's)."""

    kind: Literal["odds"] = "odds"
    model: str = Field(description="the model the odds are of")
    slots: list[list[SlotMarginalOut]] = Field(description=(
        "per slot, the hands the model plays there and their odds, the likeliest first (a table's: every hand, "
        "so that each slot's odds sum to 1)"))


class RangeOut(JsonModel):
    """The range of one number (``solver.advisor.limits.Range``)."""

    name: str = Field(description="how errors call the number")
    low: float
    high: float
    unit: str
    integer: bool = Field(description="whole numbers only")
    low_open: bool = Field(description="low itself is excluded (more than low)")
    text: str = Field(description="the range in words, as the errors say it: 'from 0 to 25 points'")


class DefaultOut(JsonModel):
    """A default (``solver.advisor.limits.Default``): ``value`` of the field ``field``."""

    field: str
    value: float
    unit: str
    used_by: str


class LimitsOut(JsonModel):
    """Every range and default of the numbers the front-ends take (``solver.advisor.limits``)."""

    kind: Literal["limits"] = "limits"
    ranges: dict[str, RangeOut] = Field(description="by field: epsilon, time_limit, threads, max_exploitability, "
                                                    "max_support, games, seed")
    defaults: dict[str, DefaultOut] = Field(description="by name: SOLVE_EPSILON, SOLVE_TIME_LIMIT, PLAY_EPSILON, …")


# ---------------------------------------------------------------------------- quintet-tournament


class BestResponseValueOut(JsonModel):
    """A best-response strategy of one deal: its value against its model and whether it is proven."""

    optimal: bool = Field(description="proven optimal (false: the time limit stopped the search)")
    value: float = Field(description="its expected margin against the model it answers (points)")


class DealEquilibriumOut(JsonModel):
    """The equilibrium strategy of one deal."""

    exploitability: float = Field(description="certified (points)")
    converged: bool
    proven: bool = Field(description="the exploitability is an exact best response's")
    support: int = Field(description="arrangements in the mix")
    from_store: bool
    seconds: float


class TournamentDealOut(JsonModel):
    """One deal of the tournament: the margin matrix and what defines the strategies."""

    exposed: list[str]
    matrix: list[list[float]] = Field(description="matrix[a][b]: strategy a's expected margin against b")
    arrangements: dict[str, list[list[str]]] = Field(description="the pure strategies' arrangements")
    best_responses: dict[str, BestResponseValueOut] = Field(description="by strategy (br:uniform, br:greedy …)")
    equilibrium: DealEquilibriumOut | None = Field(default=None, exclude_if=absent,
                                                   description="when the equilibrium plays")


class EquilibriumSummaryOut(JsonModel):
    """The equilibria of the tournament's deals, summed up."""

    deals: int
    converged: int
    max_exploitability: float
    mean_exploitability: float
    from_store: int
    mean_support: float
    target_epsilon: float | None


class TournamentOut(JsonModel):
    """``quintet-tournament --json``: every strategy against every other, exact per deal."""

    kind: Literal["tournament"] = "tournament"
    strategies: list[str]
    labels: list[str]
    n_deals: int
    seed: int | None = Field(description="the seed of the random deals (null: the deals were given)")
    sampled: bool = Field(description="always false: nothing is sampled (see note)")
    note: str
    payoff: str
    mean: list[list[float]] = Field(description="mean[a][b] over the deals")
    ci95: list[list[float | None]] = Field(description="half-width of the 95% confidence interval of the mean "
                                                       "(null with one deal)")
    row_mean: list[float | None]
    row_mean_note: str
    equilibrium: EquilibriumSummaryOut | None
    deals: list[TournamentDealOut]
    seconds: float
    plot: str | None = Field(default=None, exclude_if=absent, description="the heat map written (--plot)")


# ---------------------------------------------------------------------------- quintet-batch


class BatchDealOut(JsonModel):
    """One canonical deal of a batch run."""

    canonical: int = Field(description="the suit-canonical deal's key (its exposed cards as a card mask)")
    exploitability: float | None = Field(description="certified (points); null when it failed")
    converged: bool
    iterations: int
    support: int
    seconds: float
    cpu_seconds: float
    worker: str = Field(description="host:pid")
    error: str | None


class BatchOut(JsonModel):
    """``quintet-batch --json``: the run's counts and each deal solved."""

    kind: Literal["batch"] = "batch"
    total: int = Field(description="distinct canonical deals asked for")
    solved: int
    unconverged: int
    skipped: int = Field(description="already certified within epsilon in the store")
    failed: int
    duplicates: int = Field(description="asked deals suit-equivalent to an earlier one")
    stale: int = Field(description="stored by an earlier certificate version: solved again")
    interrupted: bool
    seconds: float
    startup_seconds: float
    deals_per_minute: float
    executor: str
    workers: int
    epsilon: float
    store: str | None
    mean_cpu_seconds: float | None
    deals: list[BatchDealOut]
    errors: list[str]


class BookOut(JsonModel):
    """``quintet-batch --book --json``: the book's size and its CPU cost, estimated from a sample."""

    kind: Literal["book"] = "book"
    rules: str
    canonical_deals: int
    exposed_sets: int
    sample: int
    seed: int
    epsilon: float
    time_limit: float | None
    converged: int
    cpu_seconds: list[float]
    wall_seconds: list[float]
    deals: list[str]
    mean_cpu_seconds: float | None
    median_cpu_seconds: float | None
    max_cpu_seconds: float | None
    cpu_hours: float | None
    cpu_hours_ci95: list[float] | None
    lower_bound: bool = Field(description="some sampled deals hit the time limit: the estimate is a lower bound")


# ----------------------------------------------------------------------------- the games' review, statistics, puzzles


class ReviewHandOut(JsonModel):
    """One side's packet in a reviewed slot."""

    cards: list[str] = Field(description="the packet, largest rank group first")
    hand: str = Field(description="the hand's description")
    category: str = CATEGORY


class SlotReviewOut(JsonModel):
    """One slot of a reviewed show-down, from the player's side."""

    slot: int = Field(description="1-based")
    points: int = Field(description="the slot's points at stake")
    winner: Literal["player", "computer"] | None = Field(description="null: a tie")
    player_points: float
    computer_points: float
    player: ReviewHandOut
    computer: ReviewHandOut = Field(description="the other side's packet (the computer's, or the person's across)")
    reason: str = Field(description="why the slot went so, e.g. 'full house beats two pair'")


class SlotRegretOut(JsonModel):
    """One slot's expected margin in the player's arrangement and in the best (``SlotRegret``)."""

    slot: int = Field(description="1-based")
    yours: float = Field(description="the player's expected margin in this slot (points)")
    best: float = Field(description="the best arrangement's expected margin in this slot (points)")
    lost: float = Field(description="best minus yours; the slots' sum is the regret (negative: this slot gained)")


class RegretOut(JsonModel):
    """The player's arrangement graded against one model: the regret (skill) and the luck."""

    against: Literal["model", "equilibrium"] = Field(description="model: the computer's model; equilibrium: the "
                                                                 "deal's certified equilibrium mix")
    model: str = Field(description="the model's name")
    exploitability: float | None = Field(description="the equilibrium's certified exploitability (null for "
                                                      "another model)")
    regret: float = Field(description="the optimum minus the arrangement's expected margin (an upper bound if "
                                      "the optimum is not proven)")
    expected: float = Field(description="the arrangement's expected margin against the model (points)")
    result: float = Field(description="the margin the game ended with: the player's points minus the other side's")
    luck: float = Field(description="result minus expected: the draw's share of the result, apart from the skill")
    slots: list[SlotRegretOut] = Field(description="per slot, the player's expected margin beside the best's")
    worst_slot: int | None = Field(description="the slot where most of the regret was made (null: no regret)")
    grade: GradeOut = Field(description="value, optimum, best arrangement and best two-card swap")


class ReviewOut(JsonModel):
    """A finished game reviewed (``solver.play.review``)."""

    kind: Literal["review"] = "review"
    game: int
    seed: int
    time: str
    opponent: str
    rules: str = Field(description="the rule set, described")
    exposed: list[str]
    player: list[list[str]]
    computer: list[list[str]]
    points: dict[str, float] = Field(description="{'player': …, 'computer': …}")
    hints: list[str] = Field(description="the advice the player asked for, in order")
    slots: list[SlotReviewOut]
    model: RegretOut | None = Field(description="against the computer's model (null against a person)")
    equilibrium: RegretOut | None = Field(description="against the deal's equilibrium (null when not solved)")
    notes: list[str] = Field(description="what could not be reviewed, and why")


class TrendOut(JsonModel):
    """A series' mean and trend (``quintet.trend.Trend``)."""

    count: int
    mean: float | None
    recent: float | None = Field(description="the mean of the last `window` values (null until there are more)")
    earlier: float | None = Field(description="the mean of the values before them")
    slope: float | None = Field(description="least-squares change per value")
    window: int
    blocks: list[float] = Field(description="means of consecutive blocks of `window` values")
    direction: Literal["up", "down", "steady"] | None


class SlotStatsOut(JsonModel):
    """One slot over the games."""

    slot: int
    points: int
    won: int
    lost: int
    tied: int
    points_won: float
    points_lost: float
    regret: float | None = Field(description="the mean regret made in this slot per game: the best response's "
                                             "expected margin there minus yours (null: no record says)")


class OpponentStatsOut(JsonModel):
    """The games against one opponent."""

    opponent: str = Field(description="the records' opponent")
    games: int
    won: int
    lost: int
    drawn: int
    regret: TrendOut = Field(description="per game with a regret, against this opponent only")


class StatsOut(JsonModel):
    """Session statistics of game records (``solver.play.statistics``)."""

    kind: Literal["stats"] = "stats"
    games: int
    won: int
    lost: int
    drawn: int
    points_player: float
    points_computer: float
    margin: TrendOut = Field(description="the player's points minus the other side's, per game")
    regret: TrendOut = Field(description="per game with a regret (not against a person), every opponent together: "
                                         "per_opponent's are the ones to compare")
    slots: list[SlotStatsOut]
    opponents: dict[str, int] = Field(description="games per opponent")
    per_opponent: list[OpponentStatsOut] = Field(description="results and the regret's trend per opponent, most "
                                                             "games first")
    first: str | None = Field(description="the first game's time (ISO 8601 UTC)")
    last: str | None


class PuzzleOut(JsonModel):
    """A "find the best arrangement" puzzle (``solver.play.puzzle``): one of the shipped set's
    (rated, with themes) or one of the store's solved deals (unrated)."""

    kind: Literal["puzzle"] = "puzzle"
    exposed: list[str] = Field(description="the deal, in the canonical suits the store keeps it in")
    live: list[str]
    rules: str = Field(description="the rule set's name")
    rules_description: str
    opponent: str = Field(description="a puzzle's opponent (solver.play.puzzle.puzzle_opponents)")
    model: str
    exploitability: float | None = Field(description="the equilibrium's certified exploitability (null: another "
                                                      "opponent)")
    source: str = Field(description="where it comes from (solver.play.puzzle.SOURCES): set, the shipped puzzle set; "
                                    "store, the store's solved deals")
    number: int = Field(description="the puzzle's place in its source, 1-based")
    count: int = Field(description="puzzles in its source")
    rating: int | None = Field(description="the puzzle's difficulty on the players' rating scale (null: unrated — "
                                           "a store's deal, or an opponent other than the set's)")
    seed: int | None = Field(description="the seed that picked it (null: asked by its deal)")


class RatingChangeOut(JsonModel):
    """A player's rating moved by one rated puzzle (``solver.play.puzzle_set.rate``)."""

    before: float
    after: float
    change: float
    games: int = Field(description="the player's rated puzzles, this one included")
    puzzle: int = Field(description="the puzzle's rating")
    score: float = Field(description="1 solved, 0.5 within 0.1 points (two stars), 0 otherwise or given up")
    expected: float = Field(description="the score the ratings expected, 0 to 1")


class ThemeOut(JsonModel):
    """A puzzle's teaching point (``solver.play.puzzle_set.THEMES``)."""

    name: str
    about: str = Field(description="what it means, in a sentence")


class PuzzleResultOut(JsonModel):
    """A puzzle's answer graded exactly."""

    kind: Literal["puzzle-result"] = "puzzle-result"
    puzzle: PuzzleOut
    given_up: bool = Field(description="no answer was given: the grade is the best arrangement's")
    solved: bool = Field(description="no arrangement does better (regret 0)")
    stars: int = Field(description="3 solved, 2 within 0.1 points, 1 within 0.5, 0 beyond or given up")
    regret: float
    grade: GradeOut
    themes: list[ThemeOut] = Field(description="what the answer teaches (a rated puzzle's; empty: unrated) — with "
                                               "the answer, never with the puzzle itself")
    rating: RatingChangeOut | None = Field(default=None, exclude_if=absent, description=(
        "the player's rating after this answer (a rated puzzle's first answer, when the player's rating was sent)"))


class PuzzleMistakeOut(JsonModel):
    """A natural arrangement that misses a shipped puzzle (``solver.play.puzzle_set.NATURAL``)."""

    kind: str = Field(description="greedy, greedy_hands (greedy's hands in their best order) or best_hands_in_order "
                                  "(the best hands, weakest in slot 1)")
    arrangement: str
    value: float = Field(description="its expected margin against the puzzle's mix (points)")


class PuzzleEntryOut(JsonModel):
    """One puzzle of the shipped set: a deal, its equilibrium mix and the proven best answer to it."""

    number: int = Field(description="1-based place in the set")
    seed: int = Field(description="the deal's seed (Deal.random); exposed is its suit-canonical form")
    exposed: str
    mix: list[str] = Field(description="the opponent: the deal's equilibrium mix, its arrangements")
    weights: list[float] = Field(description="the mix's probabilities, one per arrangement")
    best: str = Field(description="the best arrangement against the mix")
    optimum: float = Field(description="its expected margin (points) — also the mix's exploitability")
    proven: bool = Field(description="the optimum is proven by the exact engine (only proven ones are shipped)")
    greedy: float = Field(description="greedy's arrangement's expected margin against the mix")
    mistake: PuzzleMistakeOut = Field(description="the most tempting natural arrangement that misses")
    near: int = Field(description="arrangements within 0.1 points of the optimum among the best's slot orders and "
                                  "two-card swaps")
    themes: list[str] = Field(description="what the answer teaches: THEMES names, the main one first")
    rating: int


class PuzzleRunOut(JsonModel):
    """One run of ``python -m solver.play.make_puzzles`` that wrote the shipped set."""

    command: str = Field(description="the command")
    commit: str = Field(description="the commit it was run at")
    first_seed: int = Field(description="the first deal's seed it scanned (deals are the seeds first_seed, …)")
    next_seed: int = Field(description="the seed after the last it scanned: where a --resume starts "
                                       "(first_seed: it scanned none)")
    scanned: int = Field(description="distinct deals it solved")
    kept: int = Field(description="puzzles it added")
    cpu_seconds: float = Field(description="its CPU time (all processes), also re-analysing the stored puzzles")


class PuzzleSetOut(JsonModel):
    """The shipped puzzle set (``solver/play/data/puzzles.json``), with how it was made."""

    kind: Literal["puzzle-set"] = "puzzle-set"
    rules: str
    epsilon: float = Field(description="the equilibrium solves' target exploitability")
    greedy_margin: float = Field(description="a puzzle's optimum beats greedy's arrangement by at least this")
    mistake_margin: float = Field(description="… and every other natural arrangement that misses by at least this")
    complete: bool = Field(description="false: the last run stopped by its time budget before the target count")
    runs: list[PuzzleRunOut] = Field(description="the runs that made it, oldest first (a --resume adds one)")
    puzzles: list[PuzzleEntryOut]


class PuzzleProgressOut(JsonModel):
    """A player's puzzle progress, kept locally (the terminal's file; the page keeps the same in
    its browser)."""

    kind: Literal["puzzle-progress"] = "puzzle-progress"
    rating: float = Field(description="the player's rating (starts at 1500)")
    games: int = Field(description="rated puzzles answered")
    solved: list[int] = Field(description="the set's puzzles solved at the first answer (numbers)")
    missed: list[int] = Field(description="the set's puzzles missed at the first answer, or given up")
