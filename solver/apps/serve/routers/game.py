"""The game and draw poker: ``POST /api/showdown``, ``/api/hand``, ``/api/draw`` (``quintet
showdown``, ``hand``, ``draw`` with ``--json``), ``/api/draw/strategy`` (the heads-up
strategy's advice), ``GET /api/deal`` (a seeded deal), ``GET
/api/rules`` (the rule sets) and ``GET /api/limits`` (every default and range)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from quintet.cards import format_cards
from quintet.draw.cfr.strategy import shipped_rule_sets
from quintet.game import Deal
from quintet.reports import hand_report, showdown_report
from quintet.rules import RULE_SETS, Rules, get_rules
from quintet.seeds import SEED_MAX, fresh_seed
from solver.advisor import limits as limits_module
from solver.advisor.schema import LimitsOut
from solver.apps.serve.errors import JsonBodyRoute, error_responses, rate_limit
from solver.apps.serve.models import (
    MAX_NAME_LENGTH,
    DealOut,
    DrawIn,
    DrawOut,
    DrawStrategyIn,
    DrawStrategyOut,
    HandIn,
    HandReportOut,
    RuleSetOut,
    RulesIn,
    ShowdownIn,
    ShowdownOut,
)
from solver.apps.serve.routers.solve import echo
from solver.apps.serve.state import AppState, app_state, solver_on
from solver.apps.serve.worker import DrawTask, StrategyTask

__all__ = ["router"]

router = APIRouter(route_class=JsonBodyRoute)
State = Annotated[AppState, Depends(app_state)]


@router.post("/api/showdown", tags=["game"], operation_id="showdown", response_model=ShowdownOut,
             response_description="exactly what quintet showdown --json prints",
             responses=error_responses(400, 413, 422, 429), openapi_extra=rate_limit("checks"))
def showdown(body: ShowdownIn) -> ShowdownOut:
    """``quintet showdown``: two arrangements slot by slot."""
    return showdown_report(body.exposed, body.a, body.b, body.rules.to_rules()).to_model()


@router.post("/api/hand", tags=["game"], operation_id="hand", response_model=HandReportOut,
             response_description="exactly what quintet hand --json prints",
             responses=error_responses(400, 413, 422, 429), openapi_extra=rate_limit("checks"))
def hand(body: HandIn) -> HandReportOut:
    """``quintet hand``: one hand's category, description, key and percentile."""
    return hand_report(body.hand, body.rules.to_rules())[1]


@router.post("/api/draw", tags=["draw"], operation_id="draw", response_model=DrawOut,
             response_description="exactly what quintet draw --json prints",
             responses=error_responses(400, 403, 413, 422, 429, 500, 503), dependencies=[Depends(solver_on)],
             openapi_extra=rate_limit("solves"))
async def draw(body: DrawIn, state: State, http: Request) -> Any:
    """``quintet draw``: the draw advisor — all 32 exchanges of a five-card hand, exact."""
    client = state.client(http)
    task = DrawTask(body.hand, body.rules.to_rules(), body.known, body.objective, state.config.quick_time_limit)
    return await state.answer(state.pool.submit(task, lane="quick", request=echo(body), owner=client), http)


@router.post("/api/draw/strategy", tags=["draw"], operation_id="draw_strategy", response_model=DrawStrategyOut,
             response_description="the heads-up CFR strategy's advice at the position",
             responses=error_responses(400, 403, 413, 422, 429, 500, 503), dependencies=[Depends(solver_on)],
             openapi_extra=rate_limit("solves"))
async def draw_strategy(body: DrawStrategyIn, state: State, http: Request) -> Any:
    """Heads-up draw poker: what the CFR strategy (an equilibrium of a card abstraction) does at a position —
    its probability of each move for your hand's class, each move's worth in chips counted from now, your
    equity against the other player's range, each exchange's draw, and why (``quintet poker``'s ``hint``)."""
    client = state.client(http)
    task = StrategyTask(body.rules.to_rules(), body.terms.to_terms(), body.hand, tuple(body.actions), body.player,
                        state.config.quick_time_limit)
    return await state.answer(state.pool.submit(task, lane="quick", request=echo(body), owner=client), http)


@router.get("/api/deal", tags=["game"], operation_id="deal", response_model=DealOut,
            responses=error_responses(400, 422))
def deal(seed: int | None = Query(None, ge=0, le=SEED_MAX,
                                  description=f"random seed, 0 to {SEED_MAX} (default: a fresh one, returned)"),
         rules: str = Query("classic", max_length=MAX_NAME_LENGTH, description="rule set")) -> DealOut:
    """A random deal (its exposed cards), reproducible from ``seed``: the deal ``quintet-play
    --seed`` and ``quintet-tournament --seed`` deal for it."""
    seed = fresh_seed() if seed is None else seed
    r = RulesIn(name=rules).to_rules()
    d = Deal.random(seed, r)
    return DealOut(seed=seed, rules=r.name, exposed=d.format().split(), live=format_cards(d.live, r.deck).split())


@router.get("/api/rules", tags=["game"], operation_id="rules", response_model=list[RuleSetOut],
            responses=error_responses(400, 422))
def rule_sets(rules: str | None = Query(None, max_length=MAX_NAME_LENGTH,
                                        description="one rule set's name (default: every one, classic first)")
              ) -> list[RuleSetOut]:
    """The rule sets (``quintet.rules.RULE_SETS``): deck, jokers, slot points, hand size, exposed
    cards and hand categories (lowest first) — everything the page shows of the rules."""
    names = sorted(RULE_SETS, key=lambda n: (n != "classic", n))
    return [_rule_set(r) for r in ([get_rules(rules)] if rules else [RULE_SETS[n] for n in names])]


def _rule_set(r: Rules) -> RuleSetOut:
    deck = format_cards(r.deck.full_mask, r.deck).split()
    return RuleSetOut(name=r.name, description=r.describe(), deck=deck, jokers=deck[:r.deck.jokers],
                      weights=list(r.weights), hand_size=r.hand_size, n_exposed=r.n_exposed,
                      categories=[r.category_label(c) for c in r.categories], heads_up=r.name in shipped_rule_sets())


@router.get("/api/limits", tags=["game"], operation_id="limits", response_model=LimitsOut)
def limits() -> LimitsOut:
    """Every range and default of the numbers the front-ends take (``solver.advisor.limits``):
    the page reads them here."""
    return limits_module.to_model()
