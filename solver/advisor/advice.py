"""The advisor's Python API: best responses, completions of partial arrangements, grades.

    >>> from quintet.game import Deal
    >>> from solver.advisor.advice import best_response
    >>> sol = best_response(Deal.from_exposed("8h 7h 9d Ts 7s Qc Jc"), "uniform")
    >>> sol.optimal, round(sol.expected_margin, 4)
    (True, 24.8669)

Every function returns dataclasses with plain fields; ``to_model`` gives the response model
(``solver.advisor.schema``) and ``to_dict`` its JSON.
Values are exact expectations recomputed in float64 from the opponent's marginals — never
an engine's scaled objective.  ``bound`` is a proven upper bound on the objective.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from quintet.cards import cards_of, format_card, format_cards, mask_of, parse_cards
from quintet.evaluator import evaluate
from quintet.game import Arrangement, Deal, IllegalArrangementError
from quintet.jsonable import Jsonable
from quintet.text import signed
from solver.engines.base import EngineOptionError, EngineOptions, solve
from solver.engines.search import NoArrangementError, class_categories, solve_search
from solver.problem.best_response import (
    FLOAT_NOISE,
    BestResponseProblem,
    EngineResult,
    expected_values,
    outcome_probabilities,
    slot_values,
)
from solver.problem.deal_tables import DealTables
from solver.problem.opponent_spec import parse_opponent
from solver.problem.opponents import OpponentModel

from .mix import answer_fields
from .plans import plan_of

if TYPE_CHECKING:
    from .schema import AlternativeOut, GradeOut, SlotAdviceOut, SolutionOut, SwapOut

__all__ = [
    "engine_options",
    "SlotAdvice",
    "Solution",
    "Swap",
    "Grade",
    "best_response",
    "complete",
    "grade",
    "evaluate_arrangement",
    "fixed_packets",
    "best_response_problem",
    "fixed_indices",
    "other_plans",
]



@dataclass(frozen=True)
class SlotAdvice(Jsonable):
    slot: int  # 1-based
    points: int  # at stake
    cards: tuple[str, ...]
    hand: str  # in words: 'full house, tens over sevens'
    category: str  # the category's machine name (``Category.slug``)
    p_win: float
    p_tie: float
    p_loss: float
    expected_points: float  # points I expect to score in this slot
    expected_margin: float  # my points − theirs, expected

    def to_model(self) -> SlotAdviceOut:
        from .schema import SlotAdviceOut, model_of
        return model_of(SlotAdviceOut, self)


@dataclass(frozen=True)
class Solution(Jsonable):
    """An arrangement with its exact expected result against an opponent model."""

    deal: Deal
    arrangement: Arrangement
    opponent: str
    objective: str
    per_slot: tuple[SlotAdvice, ...]
    expected_margin: float
    expected_points: float
    optimal: bool
    bound: float  # proven upper bound on the objective (expected margin or points)
    seconds: float
    engine: str
    interrupted: bool = False
    stats: dict[str, object] = field(default_factory=dict)
    alternatives: tuple[Solution, ...] | None = None  # the best of each next plan (``other_plans``); None: not asked

    @property
    def value(self) -> float:
        """The objective's value: expected margin or expected points."""
        return self.expected_margin if self.objective == "margin" else self.expected_points

    @property
    def gap(self) -> float:
        return max(0.0, self.bound - self.value)

    @property
    def plan(self) -> tuple[str, ...]:
        """The hand category of each slot, as the rule set names it (``solver.advisor.plans``)."""
        rules = self.deal.rules
        return tuple(rules.category_label(c) for c in plan_of(self.arrangement, rules))

    def to_model(self) -> SolutionOut:
        from .schema import SolutionOut, model_of
        return model_of(SolutionOut, self, **answer_fields(self.deal, self.arrangement),
                        alternatives=None if self.alternatives is None else [
                            a.alternative_model(rank, self.value) for rank, a in enumerate(self.alternatives, 2)])

    def alternative_model(self, rank: int, best: float) -> AlternativeOut:
        """This solution as the ``rank``-th plan's best arrangement, ``best`` the first plan's value."""
        from .schema import AlternativeOut, model_of
        fields = answer_fields(self.deal, self.arrangement)
        return model_of(AlternativeOut, self, rank=rank, arrangement=fields["arrangement"], hands=fields["hands"],
                        categories=fields["categories"], plan=list(self.plan), cost=best - self.value)


def _resolve_opponent(opponent: OpponentModel | str, deal: Deal) -> OpponentModel:
    return parse_opponent(opponent, deal) if isinstance(opponent, str) else opponent


def evaluate_arrangement(tables: DealTables, marginals: np.ndarray, arrangement: Arrangement) -> tuple[
        tuple[SlotAdvice, ...], float, float]:
    """Per-slot advice and (expected margin, expected points) of a legal arrangement."""
    rules = tables.rules
    win, tie, loss = outcome_probabilities(marginals)
    classes = tables.arrangement_classes(arrangement)
    slots = []
    margin = points = 0.0
    for s, (packet, c) in enumerate(zip(arrangement.packets, classes, strict=True)):
        w = rules.weights[s]
        pw, pt, pl = float(win[c, s]), float(tie[c, s]), float(loss[c, s])
        e_margin, e_points = expected_values(pw, pt, pl, w, rules.tie_points)
        margin += e_margin
        points += e_points
        value = evaluate(packet, rules)
        slots.append(SlotAdvice(
            s + 1, w, tuple(format_cards(packet, rules.deck).split()), value.description, value.category.slug,
            pw, pt, pl, e_points, e_margin,
        ))
    return tuple(slots), margin, points


def engine_options(options: EngineOptions | None = None, *, engine: str | None = None,
                   time_limit: float | None = None, threads: int | None = None,
                   seed: int | None = None) -> EngineOptions:
    """``options`` with any of its fields replaced (the Python API's keyword arguments)."""
    base = options or EngineOptions()
    return EngineOptions(
        engine=base.engine if engine is None else engine,
        threads=base.threads if threads is None else threads,
        time_limit=base.time_limit if time_limit is None else time_limit,
        seed=base.seed if seed is None else seed,
    )


def _solution(tables: DealTables, marginals: np.ndarray, opponent: OpponentModel, objective: str,
              result: EngineResult, stop_event: threading.Event | None) -> Solution:
    arrangement = tables.arrangement_of(result.packets)
    per_slot, margin, points = evaluate_arrangement(tables, marginals, arrangement)
    value = margin if objective == "margin" else points
    return Solution(
        tables.deal, arrangement, opponent.name, objective, per_slot, margin, points,
        result.optimal, max(result.bound, value), result.seconds, result.engine,
        interrupted=bool(stop_event is not None and stop_event.is_set()), stats=result.stats,
    )


def _problem(tables: DealTables, marginals: np.ndarray, objective: str,
             fixed: tuple[int, ...] = ()) -> BestResponseProblem:
    rules = tables.rules
    values = slot_values(marginals, rules.weights, objective, rules.tie_points)
    return BestResponseProblem(tables, values, fixed)


def fixed_packets(deal: Deal, fixed: Mapping[int, int | str]) -> dict[int, int]:
    """Check a partial arrangement: ``fixed`` maps slots (1-based) to packets (card masks or
    text such as ``"Ah Kh Qh Jh Th"``); returns slot → mask.

    Raises ``IllegalArrangementError`` for a slot outside 1..n_slots, and for a
    packet that is not five live cards or that overlaps another fixed packet.
    """
    rules = deal.rules
    masks: dict[int, int] = {}
    used = 0
    for slot, packet in fixed.items():
        if not 1 <= int(slot) <= rules.n_slots:
            raise IllegalArrangementError(f"slot {slot} is not a slot (1..{rules.n_slots})")
        mask = (mask_of(parse_cards(packet, rules.deck, what=f"fixed packet for slot {slot}"))
                if isinstance(packet, str) else int(packet))
        n_cards = mask.bit_count()
        bad = mask & ~deal.live
        if n_cards != rules.hand_size or bad or mask & used:
            detail = (
                f"has {n_cards} cards" if n_cards != rules.hand_size
                else f"holds {format_cards(bad, rules.deck)}, not live" if bad
                else f"overlaps another fixed packet in {format_cards(mask & used, rules.deck)}"
            )
            raise IllegalArrangementError(f"fixed packet for slot {slot} {detail}")
        used |= mask
        masks[int(slot)] = mask
    return masks


def best_response(deal: Deal, opponent: OpponentModel | str = "uniform", *, objective: str = "margin",
                  options: EngineOptions | None = None, engine: str | None = None, time_limit: float | None = None,
                  threads: int | None = None, seed: int | None = None, stop_event: threading.Event | None = None,
                  tables: DealTables | None = None, top: int = 1) -> Solution:
    """The arrangement maximizing the expected objective against ``opponent``, with its proof.
    The engine runs as ``options`` says (``EngineOptions``), with ``engine``, ``time_limit``
    (seconds), ``threads`` and ``seed`` replacing its fields when given; ``top`` > 1: the best
    arrangements of the next ``top − 1`` plans too (``other_plans``)."""
    return complete(deal, {}, opponent, objective=objective, options=options, engine=engine, time_limit=time_limit,
                    threads=threads, seed=seed, stop_event=stop_event, tables=tables, top=top)


def complete(deal: Deal, fixed: Mapping[int, int | str], opponent: OpponentModel | str = "uniform", *,
             objective: str = "margin", options: EngineOptions | None = None, engine: str | None = None,
             time_limit: float | None = None, threads: int | None = None, seed: int | None = None,
             stop_event: threading.Event | None = None, tables: DealTables | None = None, top: int = 1) -> Solution:
    """Best completion of a partial arrangement: ``fixed`` maps slots (1-based) to packets.

    A packet is a card mask or text (``"Ah Kh Qh Jh Th"``), checked by ``fixed_packets``.
    ``top`` > 1: the best arrangements of the next ``top − 1`` plans too (``other_plans``).
    """
    tables = tables or DealTables.build(deal)
    opponent_model = _resolve_opponent(opponent, deal)
    marginals = opponent_model.marginals(tables)
    problem = _problem(tables, marginals, objective, fixed_indices(tables, fixed))
    start = time.perf_counter()
    chosen = engine_options(options, engine=engine, time_limit=time_limit, threads=threads, seed=seed)
    result = solve(problem, chosen, None, stop_event)
    result = replace(result, seconds=time.perf_counter() - start)
    solution = _solution(tables, marginals, opponent_model, objective, result, stop_event)
    return other_plans(solution, problem, marginals, opponent_model, top, chosen, stop_event)


def other_plans(first: Solution, problem: BestResponseProblem, marginals: np.ndarray, opponent: OpponentModel,
                top: int, options: EngineOptions, stop_event: threading.Event | None = None) -> Solution:
    """``first`` (the answer to ``problem``) with ``alternatives``: for k = 2 … ``top``, the best
    arrangement whose plan (``solver.advisor.plans``) is none of the k − 1 plans before it — proven
    by the search with those plans banned (``solve_search``'s ``banned``), or, stopped by the
    time limit (each search's, seconds) or ``stop_event``, the best found with its bound.  Fewer
    when the deal has fewer plans.  ``top`` 1: ``first`` as it is.  The plan exclusion is the
    search's: another engine named in ``options`` is refused (``EngineOptionError``)."""
    if top <= 1:
        return first
    if options.resolved != "search":
        raise EngineOptionError(f"top above 1 needs the search engine (it excludes plans), not {options.resolved}")
    tables = problem.tables
    cat = tables.derived("class categories", class_categories)

    def plan(packets: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(int(cat[tables.classes[p]]) for p in packets)

    banned = [plan(tuple(tables.index_of(m) for m in first.arrangement.packets))]
    found: list[Solution] = []
    for _ in range(top - 1):
        start = time.perf_counter()
        try:
            result = solve_search(problem, time_limit=options.time_limit, stop_event=stop_event, banned=tuple(banned))
        except NoArrangementError:
            break
        result = replace(result, seconds=time.perf_counter() - start)
        found.append(_solution(tables, marginals, opponent, first.objective, result, stop_event))
        banned.append(plan(result.packets))
    return replace(first, alternatives=tuple(found))


def fixed_indices(tables: DealTables, fixed: Mapping[int, int | str]) -> tuple[int, ...]:
    """Packet index per slot (−1 = free) of a partial arrangement checked by ``fixed_packets``."""
    fixed_idx = [-1] * tables.n_slots
    for slot, mask in fixed_packets(tables.deal, fixed).items():
        fixed_idx[slot - 1] = tables.index_of(mask)
    return tuple(fixed_idx)


def best_response_problem(deal: Deal, opponent: OpponentModel | str, *, objective: str = "margin",
                          fixed: Mapping[int, int | str] | None = None,
                          tables: DealTables | None = None) -> BestResponseProblem:
    """The question ``complete``/``best_response`` hand to an engine, for engines of one's own
    choice (``solver.engines.base.solve``) or independent rechecks (``solver.advisor.verify``)."""
    tables = tables or DealTables.build(deal)
    marginals = _resolve_opponent(opponent, deal).marginals(tables)
    return _problem(tables, marginals, objective, fixed_indices(tables, fixed or {}))


@dataclass(frozen=True)
class Swap(Jsonable):
    card_a: str
    slot_a: int
    card_b: str
    slot_b: int
    value: float  # the objective after the swap
    arrangement: Arrangement

    def change(self, given: float, digits: int = 2) -> str:
        """The value after the swap and its gain over ``given`` (the arrangement's value), signed
        (``quintet.text.signed``): ``'+23.40 (+0.02)'`` — every front-end's words for a swap's worth."""
        return f"{signed(self.value, digits)} ({signed(self.value - given, digits)})"

    def to_model(self, deal: Deal) -> SwapOut:
        from .schema import SwapOut, model_of
        return model_of(SwapOut, self, arrangement=self.arrangement.card_lists(deal.rules))


@dataclass(frozen=True)
class Grade(Jsonable):
    """How good a given arrangement is against the opponent model."""

    given: Solution
    best: Solution
    best_swap: Swap | None  # the single two-card swap that improves most (None: none improves)

    @property
    def regret(self) -> float:
        """Optimum minus the given arrangement's value (≥ 0); an upper bound if unproven."""
        top = self.best.value if self.best.optimal else self.best.bound
        return max(0.0, top - self.given.value)

    @property
    def slot_regrets(self) -> tuple[float, ...]:
        """Per slot (slot order): the best arrangement's expected margin there minus the given
        one's — where the regret was made (points; a slot may be negative, the sum is the regret
        of a proven optimum)."""
        return tuple(b.expected_margin - g.expected_margin for b, g in zip(self.best.per_slot, self.given.per_slot,
                                                                            strict=True))

    def to_model(self) -> GradeOut:
        from .schema import GradeOut, model_of
        return model_of(GradeOut, self, given=self.given.to_model(), value=self.given.value, optimum=self.best.value,
                        optimum_proven=self.best.optimal, bound=self.best.bound, best=self.best.to_model(),
                        best_swap=None if self.best_swap is None else self.best_swap.to_model(self.given.deal))


def grade(deal: Deal, arrangement: Arrangement | str, opponent: OpponentModel | str = "uniform", *,
          objective: str = "margin", options: EngineOptions | None = None, engine: str | None = None,
          time_limit: float | None = None, threads: int | None = None, seed: int | None = None,
          stop_event: threading.Event | None = None, top: int = 1) -> Grade:
    """Grade an arrangement: its value, the optimum, the regret and the best two-card swap;
    ``top`` > 1: the best arrangements of the next ``top − 1`` plans too (``other_plans``)."""
    rules = deal.rules
    if isinstance(arrangement, str):
        arrangement = Arrangement.parse(arrangement, rules)
    arrangement.validate(deal)
    tables = DealTables.build(deal)
    opponent_model = _resolve_opponent(opponent, deal)
    marginals = opponent_model.marginals(tables)
    problem = _problem(tables, marginals, objective)
    given_idx = tuple(tables.index_of(p) for p in arrangement.packets)
    start = time.perf_counter()
    given_result = EngineResult(given_idx, problem.value_of(given_idx), problem.value_of(given_idx), False,
                                0.0, "given")
    given = _solution(tables, marginals, opponent_model, objective, given_result, None)
    chosen = engine_options(options, engine=engine, time_limit=time_limit, threads=threads, seed=seed)
    result = solve(problem, chosen, given_idx, stop_event)
    result = replace(result, seconds=time.perf_counter() - start)
    best = other_plans(_solution(tables, marginals, opponent_model, objective, result, stop_event), problem,
                       marginals, opponent_model, top, chosen, stop_event)
    return Grade(given, best, _best_swap(tables, problem, arrangement))


def _best_swap(tables: DealTables, problem: BestResponseProblem, arrangement: Arrangement) -> Swap | None:
    deck = tables.rules.deck
    packets = list(arrangement.packets)
    base = problem.value_of([tables.index_of(p) for p in packets])
    best: Swap | None = None
    best_value = base + FLOAT_NOISE  # a swap must gain more than rounding
    for s, t in combinations(range(len(packets)), 2):
        for a in cards_of(packets[s]):
            for b in cards_of(packets[t]):
                ps = packets[s] & ~(1 << a) | (1 << b)
                pt = packets[t] & ~(1 << b) | (1 << a)
                trial = packets.copy()
                trial[s], trial[t] = ps, pt
                value = problem.value_of([tables.index_of(p) for p in trial])
                if value > best_value:
                    best_value = value
                    best = Swap(format_card(a, deck), s + 1, format_card(b, deck), t + 1, value,
                                Arrangement(tuple(trial)))
    return best
