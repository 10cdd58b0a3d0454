"""A game of Quintet against the computer or a person: the state machine behind ``quintet-play``
and the tables of ``quintet-serve``.

    deal = Deal.random(7)
    computer = Computer.choose(deal, "greedy", seed=7)     # the computer lays its packets first
    game = GameSession(deal, computer, seed=7)
    game.place(5, "Ah Kh Qh Jh Th"); game.undo(); game.hint(); game.swap("Ah", "9c"); …
    game.confirm("Th Td Tc 7d 7c | …")                     # or place all five and confirm()
    while game.phase is Phase.SHOWDOWN:
        game.reveal()                                      # slot by slot
    # or all at once: game.play_out("Th Td Tc 7d 7c | …") → the reveals
    game.record(...)                                       # the game as a GameRecord

Phases: ``PLACING`` (place, clear, swap, undo, advice: hint, grade, odds, the K-mix ``mix_hint``;
``HINTING`` while a hint or grade is computed, so a front-end running it in the background
refuses other moves) →
``confirm`` → ``SHOWDOWN`` (``reveal`` one slot at a time) → ``OVER``.  Against a ``Person`` (a
friend at a ``quintet-serve`` table) the other arrangement is not known when the player
confirms: ``confirm`` → ``WAITING`` → ``face(their arrangement)`` → ``SHOWDOWN``.  Each action has ``verify_x``
(raises ``PlayError`` with a one-sentence reason), ``can_x`` (a bool) and ``x`` (does it and
returns a frozen record), as in pokerkit.

The computer's **model** is the distribution its arrangement is drawn from, as the player
may know it: the equilibrium mix (not the sample drawn from it), the uniform model, or the
one arrangement a deterministic strategy (greedy, a best response) plays.  Hints, grades,
odds and the regret all refer to that model; against the equilibrium, ``mix_hint(K)`` is the
least exploitable mix of at most K arrangements found (``solver.advisor.sparse``): a way to play
the equilibrium's safety with a die and a few arrangements, and ``odds`` carries its plans.  A
person's model is not known: hints refer to the model a ``Person`` is given (a table gives the
deal's equilibrium), and a game against a person has no regret.  The deal's tables and the
model's marginals are built on the first piece of advice, so a game played without advice (a
server replaying its flow) never builds them.
"""

from __future__ import annotations

import datetime as _dt
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

import numpy as np

from quintet.cards import CardError, cards_of, format_cards, mask_of, parse_cards
from quintet.evaluator import evaluate
from quintet.faults import InputError
from quintet.game import Arrangement, ArrangementError, Deal, Showdown, SlotResult, showdown
from quintet.rules import Rules
from solver.advisor.advice import Grade, Solution, complete, grade
from solver.advisor.equilibrium import EquilibriumResult
from solver.advisor.mix import HandShare
from solver.advisor.plans import Plan, plans
from solver.advisor.sparse import SparseEquilibrium, sparse_equilibrium
from solver.games.sparse_mix import SparseRecord
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import FixedMarginals, OpponentModel
from solver.storage.records import GameRecord

from .computer import Computer

if TYPE_CHECKING:
    from solver.advisor.schema import OddsOut

__all__ = [
    "MIX_HINT_ROLL_STREAM",
    "PlayError",
    "Phase",
    "Person",
    "Move",
    "Odds",
    "Reveal",
    "GameSession",
]


def _now() -> _dt.datetime:
    """Now, UTC — or ``$SOURCE_DATE_EPOCH`` (seconds since 1970) when set, the reproducible-builds
    convention: the manual's transcripts show the same times at every run."""
    fixed = os.environ.get("SOURCE_DATE_EPOCH", "")
    if fixed.isdigit():
        return _dt.datetime.fromtimestamp(int(fixed), _dt.UTC)
    return _dt.datetime.now(_dt.UTC)


class PlayError(InputError):
    """A command that is not legal now; the message is one sentence saying why."""


class Phase(Enum):
    PLACING = "placing"  # building the arrangement; advice available
    HINTING = "hinting"  # a hint or grade is being computed (placing waits for it)
    WAITING = "waiting"  # confirmed; the person across has not shown their arrangement yet
    SHOWDOWN = "showdown"  # confirmed; slots are revealed one at a time
    OVER = "over"  # every slot revealed


MIX_HINT_ROLL_STREAM = 2
"""The stream of the game's seed whose die roll picks the arrangement of a ``hint K`` (a stream
the computer's own draw does not use, so the two picks are independent)."""


# ----------------------------------------------------------------------------- records of actions


@dataclass(frozen=True)
class Move:
    """A change of one slot (``place``, ``clear`` or an ``undo`` of one); masks, 0 = empty."""

    slot: int  # 1-based
    before: int
    after: int


@dataclass(frozen=True)
class Odds:
    """Per slot, the hands of the computer's model with their probabilities, most likely first;
    against the equilibrium, its plans (hand category per slot, most likely first) and its size."""

    model: str
    slots: tuple[tuple[HandShare, ...], ...]
    plans: tuple[Plan, ...] = ()
    arrangements: int = 0  # in the equilibrium's mix (0: not the equilibrium)

    def to_model(self) -> OddsOut:
        """The odds' JSON (a table's ``POST …/odds``)."""
        from solver.advisor.schema import OddsOut, model_of
        return model_of(OddsOut, self)


@dataclass(frozen=True)
class Reveal:
    """One slot of the show-down and the game's score after it."""

    result: SlotResult  # A = the player, B = the computer
    player_points: float
    computer_points: float


# ----------------------------------------------------------------------------- the game


@dataclass(frozen=True)
class Person:
    """A person across the table (a friend at a ``quintet-serve`` table): their arrangement is
    known only once both have confirmed (``GameSession.face``).  ``model`` is what hints refer
    to (None: no advice); it is not the person's model, so a game against a person has no regret."""

    spec: str = "friend"  # the record's ``opponent``
    model: OpponentModel | None = None
    description: str = "a friend"
    arrangement: None = None  # never known in advance


@dataclass
class GameSession:
    """One game: the deal, the other side's hidden arrangement, the player's slots (see module doc)."""

    deal: Deal
    computer: Computer | Person  # the other side: the computer, or a person
    game: int = 1
    seed: int = 0
    time_limit: float | None = None  # seconds, for each hint/grade/regret search
    phase: Phase = field(default=Phase.PLACING, init=False)
    slots: list[int] = field(init=False)  # the player's packets (masks), 0 = empty
    hints: list[str] = field(default_factory=list, init=False)  # advice commands used, in order
    _history: list[tuple[Move, ...]] = field(default_factory=list, init=False, repr=False)  # a step: its moves
    _tables: DealTables | None = field(default=None, init=False, repr=False)  # built on first advice
    _model: FixedMarginals | None = field(default=None, init=False, repr=False)
    _arrangement: Arrangement | None = field(default=None, init=False, repr=False)
    _other: Arrangement | None = field(default=None, init=False, repr=False)  # the other side's arrangement
    _showdown: Showdown | None = field(default=None, init=False, repr=False)
    _revealed: int = field(default=0, init=False, repr=False)
    _regret: Grade | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.computer.arrangement is not None:
            self.computer.arrangement.validate(self.deal)
        self._other = self.computer.arrangement
        self.slots = [0] * self.rules.n_slots

    def _advice(self) -> tuple[DealTables, FixedMarginals]:
        """The deal's tables and the model's marginals (built once, on the first advice)."""
        if self._tables is None or self._model is None:
            model = self.computer.model
            if model is None:
                raise PlayError("there is no advice in this game")
            self._tables = DealTables.build(self.deal)
            self._model = FixedMarginals(model.name, model.marginals(self._tables))
        return self._tables, self._model

    @property
    def advice(self) -> bool:
        """Whether hints, grades and odds are available (against a person: when given a model)."""
        return self.computer.model is not None

    @property
    def regret_known(self) -> bool:
        """Whether the game has a regret: the advice's model is the other side's own (the computer's)."""
        return isinstance(self.computer, Computer)

    @property
    def other(self) -> Arrangement | None:
        """The other side's arrangement once it may be seen (the show-down), else None."""
        return self._other if self.phase in (Phase.SHOWDOWN, Phase.OVER) else None

    @property
    def rules(self) -> Rules:
        return self.deal.rules

    @property
    def unplaced(self) -> int:
        """The live cards in no slot (a mask)."""
        return self.deal.live & ~mask_of(c for p in self.slots for c in cards_of(p))

    @property
    def placed(self) -> dict[int, int]:
        """Filled slots (1-based) → packet masks."""
        return {s + 1: p for s, p in enumerate(self.slots) if p}

    @property
    def arrangement(self) -> Arrangement | None:
        """The confirmed arrangement (None while placing)."""
        return self._arrangement

    def _format(self, mask: int) -> str:
        return format_cards(mask, self.rules.deck)

    def _require(self, phase: Phase, doing: str) -> None:
        if self.phase is not phase:
            now = {Phase.PLACING: "you are still placing your packets", Phase.HINTING: "a hint is being computed",
                   Phase.WAITING: "you have confirmed; the other side has not shown its packets yet",
                   Phase.SHOWDOWN: "the show-down is under way", Phase.OVER: "this game is over"}[self.phase]
            raise PlayError(f"cannot {doing}: {now}")

    def _check_slot(self, slot: int) -> int:
        if not 1 <= slot <= self.rules.n_slots:
            raise PlayError(f"there is no slot {slot} (slots are 1-{self.rules.n_slots})")
        return slot - 1

    # -------------------------------------------------------------- the other side

    def verify_seat(self, computer: Computer) -> None:
        """``seat`` is allowed: placing (not yet confirmed) and the other side not known yet."""
        self._require(Phase.PLACING, "seat the computer")
        if self._other is not None:
            raise PlayError("the other side has laid its packets already")
        try:
            computer.arrangement.validate(self.deal)
        except ArrangementError as exc:
            raise PlayError(f"the computer's arrangement: {exc}") from None

    def seat(self, computer: Computer) -> Computer:
        """The computer has laid its packets, chosen while the player was placing (a session
        started with a ``Person`` standing in for it: ``quintet-play`` shows the deal while the
        computer's equilibrium is solved)."""
        self.verify_seat(computer)
        self.computer = computer
        self._other = computer.arrangement
        self._model = None  # advice now refers to the computer's model
        return computer

    # -------------------------------------------------------------- placing

    def verify_place(self, slot: int, cards: str | int) -> int:
        """The packet's mask if ``cards`` may go in ``slot`` now; else ``PlayError``."""
        self._require(Phase.PLACING, "place cards")
        s = self._check_slot(slot)
        size = self.rules.hand_size
        if isinstance(cards, str):
            try:
                mask = mask_of(parse_cards(cards, self.rules.deck, what=f"cards for slot {slot}"))
            except CardError as exc:
                raise PlayError(str(exc)) from None
        else:
            mask = int(cards)
        n = mask.bit_count()
        if n != size:
            raise PlayError(f"a packet has {size} cards, got {n}" + (f" ({self._format(mask)})" if n else ""))
        exposed = mask & self.deal.exposed
        if exposed:
            raise PlayError(f"{self._format(exposed)} {'is' if exposed.bit_count() == 1 else 'are'} exposed "
                            "(out of play)")
        for other, packet in enumerate(self.slots):
            if other != s and packet & mask:
                taken = self._format(packet & mask)
                raise PlayError(f"{taken} {'is' if (packet & mask).bit_count() == 1 else 'are'} already in "
                                f"slot {other + 1} (clear {other + 1} or undo first)")
        return mask

    def can_place(self, slot: int, cards: str | int) -> bool:
        try:
            self.verify_place(slot, cards)
        except PlayError:
            return False
        return True

    def place(self, slot: int, cards: str | int) -> Move:
        """Put five live cards in ``slot`` (replacing what was there)."""
        mask = self.verify_place(slot, cards)
        return self._apply(Move(slot, self.slots[slot - 1], mask))[0]

    def verify_clear(self, slot: int) -> None:
        self._require(Phase.PLACING, "clear a slot")
        s = self._check_slot(slot)
        if not self.slots[s]:
            raise PlayError(f"slot {slot} is already empty")

    def can_clear(self, slot: int) -> bool:
        try:
            self.verify_clear(slot)
        except PlayError:
            return False
        return True

    def clear(self, slot: int) -> Move:
        self.verify_clear(slot)
        return self._apply(Move(slot, self.slots[slot - 1], 0))[0]

    def _card(self, text: str | int, what: str) -> int:
        if not isinstance(text, str):
            return int(text)
        try:
            cards = parse_cards(text, self.rules.deck, what=what)
        except CardError as exc:
            raise PlayError(str(exc)) from None
        if len(cards) != 1:
            raise PlayError(f"{what}: one card, got {len(cards)}")
        return cards[0]

    def _slot_of(self, card: int) -> int | None:
        """The slot (0-based) holding ``card``, None when it is not placed."""
        return next((s for s, p in enumerate(self.slots) if p >> card & 1), None)

    def verify_swap(self, card_a: str | int, card_b: str | int) -> tuple[Move, ...]:
        """The moves ``swap`` would make (one per slot it changes); else ``PlayError``."""
        self._require(Phase.PLACING, "swap cards")
        a, b = self._card(card_a, "the first card"), self._card(card_b, "the second card")
        for card in (a, b):
            if self.deal.exposed >> card & 1:
                raise PlayError(f"{self._format(1 << card)} is exposed (out of play)")
        if a == b:
            raise PlayError(f"a swap needs two different cards, got {self._format(1 << a)} twice")
        slot_a, slot_b = self._slot_of(a), self._slot_of(b)
        if slot_a is None and slot_b is None:
            raise PlayError(f"neither {self._format(1 << a)} nor {self._format(1 << b)} is in a slot")
        if slot_a is not None and slot_a == slot_b:
            raise PlayError(f"{self._format(1 << a)} and {self._format(1 << b)} are both in slot {slot_a + 1}: "
                            "a swap moves cards between slots")
        swapped = (1 << a) | (1 << b)
        return tuple(Move(s + 1, self.slots[s], self.slots[s] ^ swapped)
                     for s in sorted(x for x in (slot_a, slot_b) if x is not None))

    def can_swap(self, card_a: str | int, card_b: str | int) -> bool:
        try:
            self.verify_swap(card_a, card_b)
        except PlayError:
            return False
        return True

    def swap(self, card_a: str | int, card_b: str | int) -> tuple[Move, ...]:
        """Exchange two cards: both in slots, each goes to the other's slot; one in a slot and
        the other not placed, the other takes its place.  One step for ``undo``; the moves
        made, one per slot changed."""
        return self._apply(*self.verify_swap(card_a, card_b))

    def _apply(self, *moves: Move) -> tuple[Move, ...]:
        for move in moves:
            self.slots[move.slot - 1] = move.after
        self._history.append(moves)
        return moves

    def verify_undo(self) -> None:
        self._require(Phase.PLACING, "undo")
        if not self._history:
            raise PlayError("nothing to undo")

    def can_undo(self) -> bool:
        try:
            self.verify_undo()
        except PlayError:
            return False
        return True

    def undo(self) -> tuple[Move, ...]:
        """Take back the last ``place``, ``clear`` or ``swap``; returns the moves that undo it
        (one per slot it changed)."""
        self.verify_undo()
        last = self._history.pop()
        for move in last:
            self.slots[move.slot - 1] = move.before
        return tuple(Move(m.slot, m.after, m.before) for m in last)

    # -------------------------------------------------------------- advice

    def verify_hint(self) -> dict[int, int]:
        """The slots a hint keeps (all five filled: none, the hint is the best arrangement)."""
        self._require(Phase.PLACING, "give a hint")
        return {} if all(self.slots) else self.placed

    def hint(self, stop_event: threading.Event | None = None) -> Solution:
        """The best completion of the placed slots against the computer's model (with nothing
        placed, or all five slots filled, the best arrangement)."""
        kept = self.verify_hint()
        tables, model = self._advice()
        self.hints.append("hint")
        with self._hinting():
            return complete(self.deal, kept, model, time_limit=self.time_limit, stop_event=stop_event,
                            tables=tables)

    @property
    def equilibrium(self) -> EquilibriumResult | None:
        """The deal's equilibrium when the computer plays it (None otherwise)."""
        return self.computer.equilibrium if isinstance(self.computer, Computer) else None

    def verify_mix_hint(self) -> EquilibriumResult:
        self._require(Phase.PLACING, "give a hint")
        if self.equilibrium is None:
            raise PlayError("'hint K' mixes K arrangements against the equilibrium: play --opponent equilibrium "
                            "('hint' alone completes your slots)")
        return self.equilibrium

    def mix_hint(self, k: int, stop_event: threading.Event | None = None,
                 progress: Callable[[SparseRecord], None] | None = None) -> SparseEquilibrium:
        """The least exploitable mix of at most ``k`` whole arrangements found, certified, from the
        computer's equilibrium (the placed slots are not kept: a mix is of whole arrangements);
        its die roll is the game's seed's (``SparseEquilibrium.roll(seed)``).  ``progress``
        receives each mix certified on the way."""
        eq = self.verify_mix_hint()
        self.hints.append(f"hint {k}")
        with self._hinting():
            return sparse_equilibrium(self.deal, k, equilibrium=eq, time_limit=self.time_limit,
                                      stop_event=stop_event, progress=progress)

    @contextmanager
    def _hinting(self) -> Iterator[None]:
        self.phase = Phase.HINTING
        try:
            yield
        finally:
            self.phase = Phase.PLACING

    def _filled(self, doing: str) -> Arrangement:
        """The five placed packets, or ``PlayError`` naming the empty slots."""
        empty = [str(s + 1) for s, p in enumerate(self.slots) if not p]
        if empty:
            raise PlayError(f"cannot {doing}: slot{'s' if len(empty) > 1 else ''} {', '.join(empty)} "
                            f"{'are' if len(empty) > 1 else 'is'} still empty")
        return Arrangement(tuple(self.slots))

    def verify_grade(self) -> Arrangement:
        self._require(Phase.PLACING, "grade")
        return self._filled("grade (it rates five filled slots; 'hint' completes them)")

    def grade(self, stop_event: threading.Event | None = None) -> Grade:
        """Value, optimum, regret and best two-card swap of the five placed slots."""
        arrangement = self.verify_grade()
        _, model = self._advice()
        self.hints.append("grade")
        with self._hinting():
            return grade(self.deal, arrangement, model, time_limit=self.time_limit, stop_event=stop_event)

    def odds(self, top: int | None = 4) -> Odds:
        """The computer's model per slot: the ``top`` likeliest hands (by name; None: every hand
        it plays there) and their odds."""
        self._require(Phase.PLACING, "show the odds")
        tables, model = self._advice()
        self.hints.append("odds")
        marginals = model.marginals(tables)
        _, first = np.unique(tables.classes, return_index=True)  # a packet of each rank class
        names: dict[int, str] = {}
        category: dict[str, str] = {}
        slots = []
        for row in marginals:
            acc: dict[str, float] = {}
            for c in np.flatnonzero(row > 1e-12).tolist():
                if c not in names:
                    value = evaluate(int(tables.masks[first[c]]), self.rules)
                    names[c] = value.description
                    category[value.description] = value.category.slug
                acc[names[c]] = acc.get(names[c], 0.0) + float(row[c])
            likeliest = sorted(acc.items(), key=lambda kv: -kv[1])[:top]
            slots.append(tuple(HandShare(h, category[h], p) for h, p in likeliest))
        eq = self.equilibrium
        if eq is None:
            return Odds(model.name, tuple(slots))
        return Odds(model.name, tuple(slots), tuple(plans(eq.mix, self.rules)), len(eq.mix))

    # -------------------------------------------------------------- confirming and the show-down

    def verify_confirm(self, arrangement: str | Arrangement | None = None) -> Arrangement:
        """The arrangement ``confirm`` would lay (the given one, else the five placed slots)."""
        self._require(Phase.PLACING, "confirm")
        if arrangement is None:
            return self._filled("confirm")
        try:
            laid = Arrangement.parse(arrangement, self.rules) if isinstance(arrangement, str) else arrangement
            laid.validate(self.deal)
        except (ArrangementError, CardError) as exc:
            raise PlayError(str(exc)) from None
        return laid

    def can_confirm(self, arrangement: str | Arrangement | None = None) -> bool:
        try:
            self.verify_confirm(arrangement)
        except PlayError:
            return False
        return True

    def confirm(self, arrangement: str | Arrangement | None = None) -> Arrangement:
        """Lay the arrangement face down (``play`` gives it whole; ``done`` takes the slots):
        the show-down begins, or against a person whose packets are not known yet, ``WAITING``."""
        laid = self.verify_confirm(arrangement)
        self.slots = list(laid.packets)
        self._arrangement = laid
        if self._other is None:
            self.phase = Phase.WAITING
        else:
            self._begin_showdown(self._other)
        return laid

    def _begin_showdown(self, other: Arrangement) -> None:
        assert self._arrangement is not None
        self._showdown = showdown(self._arrangement, other, self.deal)
        self._other = other
        self.phase = Phase.SHOWDOWN

    def verify_face(self, arrangement: str | Arrangement) -> Arrangement:
        """The other side's arrangement as ``face`` would take it; else ``PlayError``."""
        self._require(Phase.WAITING, "face the other side's packets")
        try:
            other = Arrangement.parse(arrangement, self.rules) if isinstance(arrangement, str) else arrangement
            other.validate(self.deal)
        except (ArrangementError, CardError) as exc:
            raise PlayError(f"the other side's arrangement: {exc}") from None
        return other

    def face(self, arrangement: str | Arrangement) -> Arrangement:
        """The person across has confirmed too: their packets meet yours (the show-down begins)."""
        other = self.verify_face(arrangement)
        self._begin_showdown(other)
        return other

    def verify_reveal(self) -> None:
        self._require(Phase.SHOWDOWN, "reveal a slot")

    def reveal(self) -> Reveal:
        """Turn over the next pair of packets."""
        self.verify_reveal()
        assert self._showdown is not None
        self._revealed += 1
        shown = self._showdown.slots[: self._revealed]
        if self._revealed == len(self._showdown.slots):
            self.phase = Phase.OVER
        return Reveal(shown[-1], sum(s.points_a for s in shown), sum(s.points_b for s in shown))

    def verify_play_out(self, arrangement: str | Arrangement | None = None,
                        other: str | Arrangement | None = None) -> tuple[Arrangement, Arrangement]:
        """The two arrangements ``play_out`` would show down (yours, the other side's); else
        ``PlayError``.  ``other`` is the person across's (refused against the computer, whose
        packets are laid already)."""
        laid = self.verify_confirm(arrangement)
        if self._other is not None:
            if other is not None:
                raise PlayError("cannot face another arrangement: the computer's packets are laid already")
            return laid, self._other
        if other is None:
            raise PlayError("cannot play the game out: the other side's arrangement is not known yet")
        try:
            theirs = Arrangement.parse(other, self.rules) if isinstance(other, str) else other
            theirs.validate(self.deal)
        except (ArrangementError, CardError) as exc:
            raise PlayError(f"the other side's arrangement: {exc}") from None
        return laid, theirs

    def can_play_out(self, arrangement: str | Arrangement | None = None,
                     other: str | Arrangement | None = None) -> bool:
        try:
            self.verify_play_out(arrangement, other)
        except PlayError:
            return False
        return True

    def play_out(self, arrangement: str | Arrangement | None = None,
                 other: str | Arrangement | None = None) -> tuple[Reveal, ...]:
        """The rest of the game at once: ``confirm`` (``arrangement``, else the placed slots),
        ``face`` the person across's ``other`` arrangement, ``reveal`` every slot; the reveals in
        slot order (the score after the last is the game's)."""
        laid, theirs = self.verify_play_out(arrangement, other)
        self.confirm(laid)
        if self.phase is Phase.WAITING:
            self.face(theirs)
        reveals = []
        while self.phase is Phase.SHOWDOWN:
            reveals.append(self.reveal())
        return tuple(reveals)

    @property
    def result(self) -> Showdown:
        """The whole show-down (once the game is over)."""
        self._require(Phase.OVER, "give the result")
        assert self._showdown is not None
        return self._showdown

    def regret(self, stop_event: threading.Event | None = None) -> Grade:
        """The played arrangement graded against the computer's model (computed once)."""
        self._require(Phase.OVER, "compute the regret")
        if not self.regret_known:
            raise PlayError("a game against a person has no regret: their model is not known")
        if self._regret is None:
            assert self._arrangement is not None
            _, model = self._advice()
            self._regret = grade(self.deal, self._arrangement, model, time_limit=self.time_limit,
                                 stop_event=stop_event)
        return self._regret

    def record(self, stop_event: threading.Event | None = None, *, time: _dt.datetime | None = None) -> GameRecord:
        """The finished game as a ``GameRecord`` (with its regret against the computer, None
        against a person; ``time`` defaults to now, UTC, or ``$SOURCE_DATE_EPOCH``).  The
        record's ``computer`` is the other side's arrangement."""
        result = self.result
        assert self._arrangement is not None and self._other is not None
        moment = (time or _now()).astimezone(_dt.UTC)
        graded = self.regret(stop_event) if self.regret_known else None
        return GameRecord(
            game=self.game, seed=self.seed, time=moment.strftime("%Y-%m-%dT%H:%M:%SZ"), opponent=self.computer.spec,
            deal=self.deal, player=self._arrangement, computer=self._other, showdown=result,
            hints=tuple(self.hints), regret=None if graded is None else graded.regret,
            slot_regret=None if graded is None else graded.slot_regrets,
            mix=None if self.equilibrium is None else self.equilibrium.mix_hash,
        )
