"""The review of a finished game: what happened slot by slot, and what the player's arrangement
was worth — the one place ``quintet-play review``, the game's ``review`` command, ``POST
/api/review`` and the page's Review tab take it from.

    >>> from solver.play.session import GameSession
    >>> from solver.play.computer import Computer
    >>> from quintet.game import Deal
    >>> deal = Deal.random(7)
    >>> game = GameSession(deal, Computer.choose(deal, "greedy", seed=7), seed=7)
    >>> _ = game.play_out("Js Jh 8s 8d 8c | Qs Qh 9h 9d 9c | Ac Kc Qc Jc Tc | Ah Kh Ts 7d 7c | Ad Kd Qd Jd Td")
    >>> r = review(game.record())
    >>> r.slots[0].reason
    'full house beats pair'
    >>> round(r.model.grade.regret, 2), r.model.grade.best_swap is None
    (0.0, True)

A review holds, for each slot, both packets and hands, who scored and why (``reason``); the
player's arrangement graded (``solver.advisor.advice.grade``: its value, the optimum, the
regret, the best arrangement, the best arrangements of the next ``REVIEW_TOP − 1`` plans and the best
two-card swap) against the **computer's model** (the
distribution the computer's arrangement was drawn from: ``solver.play.computer.computer_model``;
none against a person) and against the deal's **equilibrium** when it is given (its certified
mix; ``solve_equilibrium`` through the store gives it).  Against the equilibrium the regret
says how much the arrangement leaves against the best reply to a player no arrangement
exploits by more than the mix's exploitability.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

from quintet.cards import format_cards
from quintet.evaluator import HandValue
from quintet.game import SlotResult
from quintet.jsonable import Jsonable
from quintet.rules import Rules
from solver.advisor.advice import Grade, grade
from solver.advisor.equilibrium import EquilibriumResult
from solver.play.computer import computer_model
from solver.problem.opponents import OpponentError
from solver.storage.records import GameRecord

if TYPE_CHECKING:
    from solver.advisor.schema import RegretOut, ReviewOut, SlotReviewOut

__all__ = ["SlotReview", "SlotRegret", "Regret", "GameReview", "review", "slot_reason", "REVIEW_TOP"]

WINNERS = {"A": "player", "B": "computer", None: None}
REGRET_SHOWN = 0.005  # a regret below this (points of margin) reads 0.00: no slot to blame
REVIEW_TOP = 3  # plans whose best arrangements a review lists (the best's and the next two: ``advice.other_plans``)


def _label(rules: Rules, hand: HandValue) -> str:
    return rules.category_label(hand.category)


def slot_reason(result: SlotResult, rules: Rules) -> str:
    """Why a slot went as it did, in a few words: ``'full house beats two pair'``, ``'both full
    house: jacks over tens beats eights over tens'``, ``'both pair of kings; second kicker:
    queen over jack'`` (``quintet.hands.tie_break``'s words, as the show-down's ``decided_by``),
    ``'equal hands (straight, ace high): nobody scores'``."""
    a, b = result.hand_a, result.hand_b
    if result.winner is None:
        share = f"each scores {result.points_a:g}" if result.points_a else "nobody scores"
        return f"equal hands ({a.description}): {share}"
    won, lost = (a, b) if result.winner == "A" else (b, a)
    label = _label(rules, won)
    if won.category != lost.category:
        return f"{label} beats {_label(rules, lost)}"
    if won.description != lost.description:
        def bare(h: HandValue) -> str:  # 'full house, jacks over tens' → 'jacks over tens'
            return h.description.removeprefix(f"{label}, ")
        return f"both {label}: {bare(won)} beats {bare(lost)}"
    decided = result.tie_break(rules)  # the show-down's own words (``decided_by``)
    if decided is not None:
        return f"both {won.description}; {decided}"
    cards = (format_cards(h.mask, rules.deck, order="group") for h in (won, lost))
    return f"both {won.description}; the other cards decide: {' beats '.join(cards)}"


@dataclass(frozen=True)
class SlotReview:
    """One slot of the show-down, from the player's side."""

    result: SlotResult  # A = the player, B = the computer (or the person across)
    reason: str

    @property
    def winner(self) -> str | None:
        """``player``, ``computer`` or None (a tie)."""
        return WINNERS[self.result.winner]

    def to_model(self, rules: Rules) -> SlotReviewOut:
        from solver.advisor.schema import ReviewHandOut, SlotReviewOut
        r = self.result

        def hand(h: HandValue) -> ReviewHandOut:
            return ReviewHandOut(cards=format_cards(h.mask, rules.deck, order="group").split(), hand=h.description,
                                 category=h.category.slug)

        return SlotReviewOut(slot=r.slot, points=r.weight, winner=self.winner, player_points=r.points_a,  # type: ignore[arg-type]
                             computer_points=r.points_b, player=hand(r.hand_a), computer=hand(r.hand_b),
                             reason=self.reason)


@dataclass(frozen=True)
class SlotRegret:
    """One slot's expected margin (points of margin) in the player's arrangement and in the best;
    ``lost`` = best − yours (the slots' losses sum to the regret; a slot may gain, < 0)."""

    slot: int  # 1-based
    yours: float
    best: float

    @property
    def lost(self) -> float:
        return self.best - self.yours


@dataclass(frozen=True)
class Regret:
    """The player's arrangement graded against one model: ``against`` says which (``model``:
    the computer's model, ``equilibrium``: the deal's equilibrium); ``result`` is the margin
    the game ended with (the player's points minus the other side's); ``exploitability`` is the
    equilibrium's certified one.  Skill and luck apart: ``regret`` is what the arrangement left
    against the best (skill), ``luck`` = result − expected (the draw's share)."""

    against: str
    model: str
    grade: Grade
    result: float
    exploitability: float | None = None

    @property
    def regret(self) -> float:
        return self.grade.regret

    @property
    def expected(self) -> float:
        """The arrangement's expected margin against the model."""
        return self.grade.given.expected_margin

    @property
    def luck(self) -> float:
        return self.result - self.expected

    @property
    def slots(self) -> tuple[SlotRegret, ...]:
        return tuple(SlotRegret(s + 1, mine.expected_margin, best.expected_margin) for s, (mine, best)
                     in enumerate(zip(self.grade.given.per_slot, self.grade.best.per_slot, strict=True)))

    @property
    def worst_slot(self) -> int | None:
        """The slot where most of the regret was made (None: no regret to place)."""
        if self.regret < REGRET_SHOWN:
            return None
        return max(self.slots, key=lambda s: s.lost).slot

    def to_model(self) -> RegretOut:
        from solver.advisor.schema import RegretOut, model_of
        return model_of(RegretOut, self, grade=self.grade.to_model())


@dataclass(frozen=True)
class GameReview(Jsonable):
    """A finished game reviewed (see the module doc); ``notes`` say what could not be reviewed."""

    record: GameRecord
    slots: tuple[SlotReview, ...]
    model: Regret | None  # against the computer's model (None against a person)
    equilibrium: Regret | None  # against the deal's equilibrium (None when not given)
    notes: tuple[str, ...] = ()

    def to_model(self) -> ReviewOut:
        from solver.advisor.schema import ReviewOut
        rules = self.record.deal.rules
        d = self.record.to_dict()
        return ReviewOut(
            game=self.record.game, seed=self.record.seed, time=self.record.time, opponent=self.record.opponent,
            rules=rules.describe(), exposed=d["exposed"], player=d["player"], computer=d["computer"],  # type: ignore[arg-type]
            points={"player": self.record.showdown.points_a, "computer": self.record.showdown.points_b},
            hints=list(self.record.hints), slots=[s.to_model(rules) for s in self.slots],
            model=None if self.model is None else self.model.to_model(),
            equilibrium=None if self.equilibrium is None else self.equilibrium.to_model(),
            notes=list(self.notes))


def review(record: GameRecord, *, equilibrium: EquilibriumResult | None = None, time_limit: float | None = None,
           stop_event: threading.Event | None = None) -> GameReview:
    """Review ``record``: its slots, and the player's arrangement graded against the computer's
    model and against ``equilibrium`` (the deal's; None: not graded against it).  A computer
    that played the equilibrium needs it for its model too.  ``time_limit`` (seconds) bounds
    each grade's search; an unproven optimum makes the regret an upper bound."""
    deal = record.deal
    if equilibrium is not None and equilibrium.deal != deal:
        raise ValueError("the equilibrium given is of another deal")
    rules = deal.rules
    slots = tuple(SlotReview(s, slot_reason(s, rules)) for s in record.showdown.slots)
    notes = []
    model = None
    try:
        opponent = computer_model(record.opponent, record.computer, equilibrium)
    except OpponentError as exc:
        opponent = None
        notes.append(f"no regret against the other side's model: {exc}" if record.opponent != "friend"
                     else "a game against a person: their model is not known, so no regret against it")
    result = record.showdown.points_a - record.showdown.points_b
    if opponent is not None:
        model = Regret("model", opponent.name, grade(deal, record.player, opponent, time_limit=time_limit,
                                                     stop_event=stop_event, top=REVIEW_TOP), result)
    against_eq = None
    if equilibrium is not None:
        if record.opponent == "equilibrium" and model is not None:
            against_eq = Regret("equilibrium", "equilibrium", model.grade, result, equilibrium.exploitability)
            model = Regret("model", model.model, model.grade, result, equilibrium.exploitability)
        else:
            against_eq = Regret("equilibrium", "equilibrium",
                                grade(deal, record.player, equilibrium.opponent(), time_limit=time_limit,
                                      stop_event=stop_event, top=REVIEW_TOP), result, equilibrium.exploitability)
    else:
        notes.append("not graded against the equilibrium: it was not asked for, or not solved")
    if equilibrium is not None and record.mix is not None and equilibrium.mix_hash != record.mix:
        notes.append(f"the mix this game drew from ({record.mix}) is not the one given "
                     f"({equilibrium.mix_hash or 'not kept'}): its regret is against the one given")
    return GameReview(record, slots, model, against_eq, tuple(notes))
