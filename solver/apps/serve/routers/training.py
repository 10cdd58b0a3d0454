"""The games' review, statistics and training puzzles (``quintet-play review``, ``stats`` and
``puzzle``): ``POST /api/review``, ``POST /api/stats``, ``GET /api/puzzles``, ``POST
/api/puzzles/grade``.  Each is computed by the one module of its concept (``solver.play.review``,
``statistics``, ``puzzle``); the records are ``quintet-play --record``'s JSON lines (the Play
tab's downloads are the same), read by ``GameRecord.from_dict``.

A review grades an arrangement with the exact engines and wants the deal's equilibrium: it runs
in the worker pool — at once (200) when the equilibrium is in the store to the target ε or not
wanted, else as a job (202, followed as ``POST /api/solve``'s are).  The statistics are
arithmetic (answered here); a puzzle is drawn here (the shipped set's near the player's rating, or
the store's) and its answer graded in the pool's quick lane — with the player's rating moved by a
rated puzzle's first answer (``solver.play.puzzle_set.rate``: the page keeps the rating).
Reviews and puzzles are solver work: a client's solves (its rate limit, its
jobs, cancelled when it disconnects), off on a play-only server (403); the statistics answer there too.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Query, Request
from pydantic import BeforeValidator, Field
from starlette.concurrency import run_in_threadpool

from quintet.game import Arrangement, ArrangementError, Deal
from quintet.seeds import SEED_MAX, fresh_seed
from solver.advisor.equilibrium import certified_within, kept_for_play, stored_exploitability
from solver.advisor.limits import (
    EPSILON_MAX,
    MAX_RECORDS,
    MAX_WINDOW,
    PLAY_EPSILON,
    PLAY_TIME_LIMIT,
    RATING_MAX,
    RATING_MIN,
    START_RATING,
    TIME_LIMIT_MAX,
    LimitError,
)
from solver.advisor.schema import OneOf, PuzzleOut, PuzzleResultOut, ReviewOut, StatsOut
from solver.apps.serve.errors import JsonBodyRoute, error_responses, rate_limit
from solver.apps.serve.models import MAX_NAME_LENGTH, ArrangementText, Cards, JobCreatedOut, RulesIn, _Strict, integral
from solver.apps.serve.routers.solve import echo, job_created
from solver.apps.serve.state import AppState, app_state, solver_on
from solver.apps.serve.training import PuzzleGradeTask, ReviewTask
from solver.play.puzzle import SOURCES, PuzzleError, draw_puzzle, puzzle_opponents
from solver.play.statistics import WINDOW, statistics
from solver.storage.records import GameRecord, records_from_json

__all__ = ["router", "ReviewIn", "StatsIn", "PlayerIn", "PuzzleGradeIn"]

router = APIRouter(route_class=JsonBodyRoute)
State = Annotated[AppState, Depends(app_state)]
PuzzleOpponent = Annotated[str, OneOf(puzzle_opponents)]
PuzzleSource = Annotated[str, OneOf(lambda: SOURCES)]
MAX_EXCLUDE_LENGTH = 4000  # characters: every puzzle of a set of a few hundred


class ReviewIn(_Strict):
    """``quintet-play review``'s question: one game record."""

    record: dict[str, Any] = Field(description="a game record as quintet-play --record writes it (one JSON line of "
                                               "the records file, or of the Play tab's download)")
    equilibrium: bool = Field(default=True, description="grade the arrangement against the deal's equilibrium too "
                                                        "(solved if the store does not hold it)")
    epsilon: float | None = Field(default=None, ge=0, le=EPSILON_MAX, allow_inf_nan=False,
                                  description=f"the equilibrium's target exploitability (default {PLAY_EPSILON:g})")
    time_limit: float | None = Field(default=None, gt=0, le=TIME_LIMIT_MAX, allow_inf_nan=False,
                                     description=f"seconds for the equilibrium and each grade (default "
                                                 f"{PLAY_TIME_LIMIT:g})")
    rules: RulesIn = Field(default=RulesIn(), description="the rule set the game was played under (default classic)")


class StatsIn(_Strict):
    """``quintet-play stats``'s question: game records."""

    records: list[dict[str, Any]] = Field(max_length=MAX_RECORDS, description=(
        f"game records as quintet-play --record writes them, at most {MAX_RECORDS}"))
    window: Annotated[int, Field(ge=1, le=MAX_WINDOW), BeforeValidator(integral)] = Field(
        default=WINDOW, description=f"games per block of the trend (default {WINDOW})")
    rules: RulesIn = Field(default=RulesIn(), description="the rule set (default classic)")


class PlayerIn(_Strict):
    """The player's rating, kept by the client (the page: in its browser)."""

    rating: float = Field(ge=RATING_MIN, le=RATING_MAX, allow_inf_nan=False, description="the player's rating")
    games: Annotated[int, Field(ge=0, le=10**6), BeforeValidator(integral)] = Field(
        description="rated puzzles the player has answered before")


class PuzzleGradeIn(_Strict):
    """A puzzle's answer (``quintet-play puzzle``)."""

    exposed: Cards = Field(description="the puzzle's deal, as GET /api/puzzles gave it")
    opponent: PuzzleOpponent = Field(default="equilibrium")
    arrangement: ArrangementText | None = Field(description="the answer; null gives up (the best arrangement)")
    source: PuzzleSource = Field(default="set", description="where GET /api/puzzles took it from: set (a deal not "
                                                            "in the set is looked up in the store) or store")
    player: PlayerIn | None = Field(default=None, description="the player's rating: a rated puzzle's answer moves "
                                                              "it (send it with the first answer only; a retry is "
                                                              "not rated)")
    time_limit: float | None = Field(default=None, gt=0, le=TIME_LIMIT_MAX, allow_inf_nan=False,
                                     description=f"seconds for the grade (default {PLAY_TIME_LIMIT:g})")
    rules: RulesIn = Field(default=RulesIn(), description="the rule set (default classic)")


def _time_limit(state: AppState, asked: float | None) -> float:
    cap = state.config.max_time_limit
    limit = PLAY_TIME_LIMIT if asked is None else asked
    if cap is not None and limit > cap:
        if asked is not None:
            raise LimitError(f"time_limit: at most {cap:g} seconds on this server, got {asked:g}")
        limit = cap
    return limit


@router.post("/api/review", tags=["training"], operation_id="review", response_model=ReviewOut,
             response_description="exactly what quintet-play review --json prints",
             responses={202: {"model": JobCreatedOut, "description": "the deal's equilibrium is not in the store: "
                              "the review is a job, followed with its secret (its result: the review)",
                              "headers": {"Location": {"description": "/api/jobs/ID", "schema": {"type": "string"}}}},
                        **error_responses(400, 403, 413, 422, 429, 500, 503)}, dependencies=[Depends(solver_on)],
             openapi_extra=rate_limit("solves"))
async def review(body: ReviewIn, state: State, http: Request) -> Any:
    """A finished game reviewed: each slot's packets and hands, who scored and why, the regret
    against the computer's model and against the deal's equilibrium, the best arrangement and
    the best two-card swap."""
    rules = body.rules.to_rules()
    record = GameRecord.from_dict(body.record, rules)  # RecordError (a ValueError): 400
    epsilon = (PLAY_EPSILON if body.epsilon is None else body.epsilon) if body.equilibrium else None
    task = ReviewTask(record, epsilon, _time_limit(state, body.time_limit))

    def stored() -> bool:
        quality = stored_exploitability(record.deal, state.store())
        return kept_for_play(record.deal, state.store()) or (
            quality is not None and certified_within(quality, epsilon))  # type: ignore[arg-type]

    client = state.client(http)
    long = epsilon is not None and not await run_in_threadpool(stored)
    job = state.pool.submit(task, lane="long" if long else "quick", request=echo(body) | {"record": "…"},
                            owner=client)
    if long:
        return job_created(state, job, http)
    return await state.answer(job, http)


@router.post("/api/stats", tags=["training"], operation_id="stats", response_model=StatsOut,
             response_description="exactly what quintet-play stats --json prints",
             responses=error_responses(400, 413, 422, 429), openapi_extra=rate_limit("checks"))
async def stats(body: StatsIn) -> StatsOut:
    """Session statistics of game records: games, points, the mean regret and its trend, per
    slot where the points go."""
    rules = body.rules.to_rules()

    def compute() -> StatsOut:
        return statistics(records_from_json(body.records, rules, limit=MAX_RECORDS), body.window).to_model()

    return await run_in_threadpool(compute)


@router.get("/api/puzzles", tags=["training"], operation_id="puzzle", response_model=PuzzleOut,
            responses=error_responses(400, 403, 404, 422), dependencies=[Depends(solver_on)])
async def puzzle(state: State,
                 seed: int | None = Query(None, ge=0, le=SEED_MAX,
                                          description=f"picks the puzzle, 0 to {SEED_MAX} (default: a fresh one)"),
                 opponent: Annotated[PuzzleOpponent, Query(description="the opponent to answer")] = "equilibrium",
                 source: Annotated[PuzzleSource, Query(description="set: the shipped puzzles, rated, near `rating` "
                                                       "(default); store: the server's solved deals, unrated")] = "set",
                 rating: float = Query(START_RATING, ge=RATING_MIN, le=RATING_MAX, allow_inf_nan=False,
                                       description="the player's rating: a set's puzzle is drawn near it"),
                 exclude: str = Query("", max_length=MAX_EXCLUDE_LENGTH, pattern=r"^[0-9]*(,[0-9]+)*$",
                                      description="the set's puzzles to leave out while others remain (numbers, "
                                                  "comma-separated: those solved)"),
                 rules: str = Query("classic", max_length=MAX_NAME_LENGTH, description="rule set")) -> PuzzleOut:
    """A "find the best arrangement" puzzle: one of the shipped set's near the player's rating,
    or of the store's solved deals, drawn with ``seed`` (quintet-play puzzle --seed)."""
    r = RulesIn(name=rules).to_rules()
    chosen = fresh_seed() if seed is None else seed
    left_out = frozenset(int(n) for n in exclude.split(",") if n)

    def pick() -> PuzzleOut:
        store = state.store() if source == "store" else None
        try:
            return draw_puzzle(store, r, chosen, opponent, source=source, rating=rating, exclude=left_out).to_model()
        except PuzzleError as exc:  # the server's path is not the client's business
            if store is None:
                raise
            raise HTTPException(404, str(exc).replace(f"the store {str(store.path)!r}", "the server's store")) from None

    return await run_in_threadpool(pick)


@router.post("/api/puzzles/grade", tags=["training"], operation_id="grade_puzzle", response_model=PuzzleResultOut,
             responses=error_responses(400, 403, 413, 422, 429, 500, 503), dependencies=[Depends(solver_on)],
             openapi_extra=rate_limit("solves"))
async def grade_puzzle(body: PuzzleGradeIn, state: State, http: Request) -> Any:
    """A puzzle's answer graded exactly (its regret against the best arrangement, proven by an
    exact engine); ``arrangement`` null gives up and answers the best arrangement."""
    rules = body.rules.to_rules()
    deal = Deal.from_exposed(body.exposed, rules)
    arrangement = None
    if body.arrangement is not None:
        try:
            arrangement = Arrangement.parse(body.arrangement, rules)
            arrangement.validate(deal)
        except ArrangementError as exc:
            raise ArrangementError(f"arrangement: {exc}") from None
    player = None if body.player is None else (body.player.rating, body.player.games)
    task = PuzzleGradeTask(deal, body.opponent, arrangement, _time_limit(state, body.time_limit), player, body.source)
    return await state.answer(state.pool.submit(task, lane="quick", request=echo(body), owner=state.client(http)),
                              http)

