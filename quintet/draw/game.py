"""One hand of five-card draw poker as the rule text plays it (docs/draw-poker.md, "The rules implemented").

A ``State`` is a state machine in pokerkit's shape: for every action ``x`` there is
``verify_x(...)`` (raises ``IllegalActionError``, a ``ValueError`` with a sentence),
``can_x(...)`` and ``x(...)``, which applies it and returns a frozen record of what happened.
``state.apply(action)`` / ``legal_actions()`` speak the same actions as ``Action`` values
(bots, the terminal, replaying a history).

The hand, in order (``Phase``):

1. **antes** — every player dealt in (stack ≥ ante) posts the agreed ante (``post_ante``);
   then each receives five cards from the shuffled deck, five at a time, from the dealer's left.
2. **betting before the exchange** (``Terms.betting_before_exchange``, default on) —
   ``circles`` circles (default 3).  A *circle* is one turn for every player still in, in
   seat order from the dealer's left.  On a turn a player says «пас» (``fold``: out of the
   hand) or stakes at least the *current stake* — the previous stake made in this hand,
   initially ``Terms.stake`` — and at most ``Terms.limit``: ``call`` stakes exactly the current
   stake, ``raise_to(n)`` stakes more and makes n the current stake.  Every stake goes into
   the pot; stakes are contributions per turn, not amounts to match.  **No credit**: a player
   whose stack is below the current stake can only fold.
3. **exchange** — each player still in, in turn, discards any number of cards (none: stand
   pat) and draws as many from the stock, once, paying ``Terms.exchange_fee`` per card drawn
   into the pot (no credit: only as many cards as the stack pays for).  When the stock runs
   out, the muck (earlier players' discards and the folded hands; never the discards of the
   player being served) is shuffled into a new stock.
4. **betting after the exchange** — as before, but the show-down comes at once after the
   first circle if nobody raised in it, otherwise after ``circles`` circles; and a player
   may **demand the show-down** (``demand_show_down(n)``, staking n ≥ the current stake):
   the betting ends and each other player still in, in turn after the demander, pays n to
   see (``call``) or folds.  A demand is allowed in the first circle until somebody raises
   in it, and in the last circle; after a raise in the first circle the circles between
   are played out («карты можно открывать лишь по проведении трех кругов игры»).
   A demand above the current stake raises it, and a raise waits for the last circle: in the
   first circle a demand stakes the current stake (``Terms.raising_demand_ends`` keeps the
   earlier reading, where a higher demand there ends the betting at once).
   ``Terms.demand_any_turn`` allows a demand of any stake on any turn of this betting instead.
5. **show-down** (``show_down``) — the best hand per the rule set takes the whole pot; equal
   best hands split it, the odd chips one each to the winners from the dealer's left.

A hand in which every player but one has folded ends at once: the last player takes the pot
unseen (an automatic ``FoldOut`` record).  Chips are integers; stacks never go negative and
``sum(stacks) + pot`` never changes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from ..cards import cards_of, format_card, format_cards, mask_of, parse_card
from ..evaluator import hand_keys
from ..faults import InputError
from ..rules import Rules, get_rules
from ..text import quote

__all__ = [
    "MIN_PLAYERS", "MAX_PLAYERS", "IllegalActionError", "TermsError", "Terms", "Phase", "ActionKind", "Action",
    "AntePosting", "Fold", "Call", "Raise", "Demand", "Exchange", "ShowDown", "FoldOut", "Record",
    "State", "replay",
]


MIN_PLAYERS, MAX_PLAYERS = 2, 6  # «Количество участников: от двух до шести человек»


class IllegalActionError(InputError):
    """An action the rules do not allow now (wrong turn, too small a stake, no credit, …)."""


class TermsError(InputError):
    """Terms or a table the game cannot be played with (limit below the stake, too few players, …)."""


@dataclass(frozen=True)
class Terms:
    """What the players agree on before play (the text's «заранее оговоренная сумма», «оговоренная ставка»).

    * ``ante`` — chips each player puts in the pot before the deal (≥ 1);
    * ``stake`` — the agreed stake: the least a player may stake on a turn at the start of a hand (≥ 1);
    * ``limit`` — the most a player may stake on one turn (≥ ``stake``);
    * ``exchange_fee`` — chips paid into the pot per card drawn in the exchange (≥ 0);
    * ``circles`` — circles of betting before and after the exchange (≥ 1; the text: three);
    * ``betting_before_exchange`` — bet before the exchange too (the text's first description),
      or only after it (the second);
    * ``demand_any_turn`` — a show-down demand on any turn of the betting after the exchange
      (the second description read alone), instead of only in the first circle before anybody
      raises in it and in the last circle (default);
    * ``raising_demand_ends`` — a demand above the current stake in the first circle after the
      exchange ends the betting at once (the earlier reading), instead of being a raise that
      waits for the last circle (default: in the first circle a demand stakes the current stake).
    """

    ante: int = 1
    stake: int = 1
    limit: int = 5
    exchange_fee: int = 0
    circles: int = 3
    betting_before_exchange: bool = True
    demand_any_turn: bool = False
    raising_demand_ends: bool = False

    def __post_init__(self) -> None:
        for name in ("ante", "stake", "limit", "exchange_fee", "circles"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TermsError(f"{name} must be a whole number of chips, got {quote(value)}")
        if self.ante < 1:
            raise TermsError(f"the ante must be at least 1 chip, got {self.ante}")
        if self.stake < 1:
            raise TermsError(f"the stake must be at least 1 chip, got {self.stake}")
        if self.limit < self.stake:
            raise TermsError(f"the limit ({self.limit}) is below the stake ({self.stake})")
        if self.exchange_fee < 0:
            raise TermsError(f"the exchange fee cannot be negative, got {self.exchange_fee}")
        if self.circles < 1:
            raise TermsError(f"there must be at least one circle of betting, got {self.circles}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "ante": self.ante, "stake": self.stake, "limit": self.limit, "exchange_fee": self.exchange_fee,
            "circles": self.circles, "betting_before_exchange": self.betting_before_exchange,
            "demand_any_turn": self.demand_any_turn, "raising_demand_ends": self.raising_demand_ends,
        }


class _Enum(StrEnum):
    def __repr__(self) -> str:  # pastes back as code
        return f"{type(self).__name__}.{self.name}"


class Phase(_Enum):
    ANTES = "antes"
    BETTING_BEFORE = "betting before the exchange"
    EXCHANGE = "exchange"
    BETTING_AFTER = "betting after the exchange"
    SEEING = "paying to see"
    SHOWDOWN = "show-down"
    OVER = "over"


class ActionKind(_Enum):
    ANTE = "ante"
    FOLD = "fold"
    CALL = "call"
    RAISE = "raise"
    DEMAND = "demand"
    EXCHANGE = "exchange"
    SHOW_DOWN = "show-down"


@dataclass(frozen=True, slots=True)
class Action:
    """An action as data: ``amount`` for raise and demand, ``cards`` (the discards) for exchange."""

    kind: ActionKind
    amount: int | None = None
    cards: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class AntePosting:
    seat: int
    amount: int

    def to_dict(self, rules: Rules) -> dict[str, Any]:
        return {"seat": self.seat, "action": "ante", "amount": self.amount}


@dataclass(frozen=True, slots=True)
class Fold:
    seat: int
    phase: Phase
    circle: int

    def to_dict(self, rules: Rules) -> dict[str, Any]:
        return {"seat": self.seat, "action": "fold", "phase": str(self.phase), "circle": self.circle}


@dataclass(frozen=True, slots=True)
class Call:
    """A stake equal to the current stake (in ``Phase.SEEING``: paying the demanded stake to see)."""

    seat: int
    amount: int
    phase: Phase
    circle: int

    def to_dict(self, rules: Rules) -> dict[str, Any]:
        return {"seat": self.seat, "action": "call", "amount": self.amount, "phase": str(self.phase),
                "circle": self.circle}


@dataclass(frozen=True, slots=True)
class Raise:
    """A stake above the current stake; ``amount`` becomes the current stake."""

    seat: int
    amount: int
    phase: Phase
    circle: int

    def to_dict(self, rules: Rules) -> dict[str, Any]:
        return {"seat": self.seat, "action": "raise", "amount": self.amount, "phase": str(self.phase),
                "circle": self.circle}


@dataclass(frozen=True, slots=True)
class Demand:
    """A stake of ``amount`` with the demand to show down: the others pay ``amount`` to see or fold."""

    seat: int
    amount: int
    circle: int

    def to_dict(self, rules: Rules) -> dict[str, Any]:
        return {"seat": self.seat, "action": "demand", "amount": self.amount, "circle": self.circle}


@dataclass(frozen=True, slots=True)
class Exchange:
    """``discarded`` replaced by ``drawn`` (same order), ``fee`` paid; ``reshuffled``: the muck became the stock."""

    seat: int
    discarded: tuple[int, ...]
    drawn: tuple[int, ...]
    fee: int
    reshuffled: bool

    def to_dict(self, rules: Rules) -> dict[str, Any]:
        deck = rules.deck
        return {"seat": self.seat, "action": "exchange", "discard": [format_card(c, deck) for c in self.discarded],
                "draw": [format_card(c, deck) for c in self.drawn], "fee": self.fee, "reshuffled": self.reshuffled}


@dataclass(frozen=True, slots=True)
class ShowDown:
    """The hands still in (seat, card mask, key per the evaluator), the winners and what each received."""

    hands: tuple[tuple[int, int, int], ...]
    winners: tuple[int, ...]
    amounts: tuple[int, ...]

    def to_dict(self, rules: Rules) -> dict[str, Any]:
        return {"action": "show-down", "hands": {str(s): format_cards(m, rules.deck).split() for s, m, _ in self.hands},
                "winners": list(self.winners), "amounts": list(self.amounts)}


@dataclass(frozen=True, slots=True)
class FoldOut:
    """Everyone else folded: ``seat`` takes the pot (``amount``) without showing."""

    seat: int
    amount: int

    def to_dict(self, rules: Rules) -> dict[str, Any]:
        return {"seat": self.seat, "action": "fold-out", "amount": self.amount}


Record = AntePosting | Fold | Call | Raise | Demand | Exchange | ShowDown | FoldOut

_DECK_CARDS: dict[Rules, list[int]] = {}
_FOLD, _CALL, _ANTE, _SHOW_DOWN = (Action(k) for k in (ActionKind.FOLD, ActionKind.CALL, ActionKind.ANTE,
                                                        ActionKind.SHOW_DOWN))
_RAISES: dict[int, Action] = {}
_DEMANDS: dict[int, Action] = {}


def _deck_cards(rules: Rules) -> list[int]:
    """The deck's cards, increasing (cached: read-only)."""
    cards = _DECK_CARDS.get(rules)
    if cards is None:
        cards = _DECK_CARDS[rules] = rules.deck.cards()
    return cards


def _amount_action(cache: dict[int, Action], kind: ActionKind, amount: int) -> Action:
    action = cache.get(amount)
    if action is None:
        action = cache[amount] = Action(kind, amount)
    return action


class State:
    """One hand of draw poker (module doc).  Seats 0..n-1, 2 ≤ n ≤ 6; players with a stack below the ante sit out.

    ``stacks`` are the chips in front of each seat (not in the pot); ``deck`` (top first, every
    card of the rule set's deck once) replaces the seeded shuffle.  Public attributes are read-only
    by convention; they change only through the actions.
    """

    def __init__(self, rules: Rules, terms: Terms, stacks: Sequence[int], *, dealer: int = 0,
                 seed: int | None = None, deck: Sequence[int] | None = None) -> None:
        n = len(stacks)
        if rules.hand_size != 5:
            raise TermsError("draw poker deals five-card hands")
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise TermsError(f"draw poker is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {n} seats")
        if not 0 <= dealer < max(n, 1):
            raise TermsError(f"the dealer must be one of the {n} seats, got {dealer}")
        if any(not isinstance(s, int) or isinstance(s, bool) or s < 0 for s in stacks):
            raise TermsError(f"stacks must be whole numbers of chips ≥ 0, got {list(stacks)}")
        self.rules = rules
        self.terms = terms
        self.seed = seed
        self.dealer = dealer
        self.stacks = list(stacks)
        self.stacks_before = tuple(stacks)
        self.dealt_in = tuple(s >= terms.ante for s in stacks)
        players = sum(self.dealt_in)
        if players < 2:
            raise TermsError(f"a hand needs two players who can pay the ante ({terms.ante}), got {players}")
        size = rules.deck.size
        if size < 5 * players + 5:
            raise TermsError(f"the {size}-card deck seats at most {(size - 5) // 5} players "
                             f"(five cards each and five for an exchange), not {players}")
        self._rng = random.Random(seed)
        self._stacked = deck is not None
        self._deck_order: tuple[int, ...] | None = None
        if deck is None:
            self.stock = list(_deck_cards(rules))  # drawn from at random (a shuffled deck, dealt lazily)
        else:
            self.stock = [int(c) for c in deck]  # top first
            self._deck_order = tuple(self.stock)
            if sorted(self.stock) != _deck_cards(rules):
                raise TermsError(f"the deck must hold every card of the {size}-card deck once")
        self.muck: list[int] = []
        self.hands = [0] * n  # card masks
        self.folded = [not d for d in self.dealt_in]
        self.drawn: list[int | None] = [None] * n  # cards drawn in the exchange (None: not yet)
        self.contributions = [0] * n  # chips each seat put into this pot
        self.pot = 0
        self.phase = Phase.ANTES
        self.circle = 0
        self.current_stake = terms.stake
        self.raised_in_circle = False
        self.demand: Demand | None = None
        self.records: list[Record] = []
        self._queue = self._order_from(dealer)

    # ------------------------------------------------------------------ views ----------

    @property
    def n_seats(self) -> int:
        return len(self.stacks)

    @property
    def actor(self) -> int | None:
        """The seat to act, or None (show-down pending, or the hand is over)."""
        return self._queue[0] if self._queue else None

    @property
    def in_hand(self) -> list[int]:
        """Seats still in the hand (dealt in, not folded), in seat order."""
        return [s for s in range(self.n_seats) if not self.folded[s]]

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    def hand(self, seat: int) -> tuple[int, ...]:
        """The seat's cards (increasing card ints); empty before the deal."""
        return tuple(cards_of(self.hands[seat]))

    def _order_from(self, seat: int) -> list[int]:
        """Seats still in, in turn order starting after ``seat``."""
        n = self.n_seats
        return [(seat + i) % n for i in range(1, n + 1) if not self.folded[(seat + i) % n]]

    # ------------------------------------------------------------------ antes -----------

    def verify_post_ante(self) -> None:
        if self.phase is not Phase.ANTES:
            raise IllegalActionError(f"the antes are posted; it is the {self.phase} now")

    def can_post_ante(self) -> bool:
        return self._can(self.verify_post_ante)

    def post_ante(self) -> AntePosting:
        """The seat to act posts the ante; after the last one the cards are dealt."""
        self.verify_post_ante()
        seat = self._queue.pop(0)
        self._pay(seat, self.terms.ante)
        record = AntePosting(seat, self.terms.ante)
        self.records.append(record)
        if not self._queue:
            self._deal()
        return record

    def _draw(self) -> int:
        """The top card of the stock: the next card of a stacked deck, else a uniformly random one."""
        stock = self.stock
        if self._stacked:
            return stock.pop(0)
        i = int(self._rng.random() * len(stock))
        stock[i], stock[-1] = stock[-1], stock[i]
        return stock.pop()

    def _deal(self) -> None:
        draw = self._draw
        for seat in self._order_from(self.dealer):
            self.hands[seat] = (1 << draw()) | (1 << draw()) | (1 << draw()) | (1 << draw()) | (1 << draw())
        if self.terms.betting_before_exchange:
            self._start_betting(Phase.BETTING_BEFORE)
        else:
            self._start_exchange()

    # ------------------------------------------------------------------ betting ---------

    def _start_betting(self, phase: Phase) -> None:
        self.phase = phase
        self.circle = 1
        self.raised_in_circle = False
        self._queue = self._order_from(self.dealer)

    def _verify_turn(self, what: str, *phases: Phase) -> int:
        """The seat to act, if ``what`` (an action's name) may be done in this phase."""
        if self.phase not in phases:
            if self.phase is Phase.OVER:
                raise IllegalActionError("the hand is over")
            if self.phase is Phase.SEEING:
                raise IllegalActionError(f"no {what} now: the show-down is demanded; pay {self.call_amount} to see "
                                         "(call) or fold")
            raise IllegalActionError(f"no {what} now: it is the {self.phase}")
        return self._queue[0]

    def verify_fold(self) -> None:
        self._verify_turn("folding", Phase.BETTING_BEFORE, Phase.EXCHANGE, Phase.BETTING_AFTER, Phase.SEEING)

    def can_fold(self) -> bool:
        return self._can(self.verify_fold)

    def fold(self) -> Fold:
        """«Пас»: the seat to act leaves the hand; its cards go to the muck."""
        self.verify_fold()
        seat = self._queue.pop(0)
        self.folded[seat] = True
        self.muck.extend(cards_of(self.hands[seat]))
        record = Fold(seat, self.phase, self.circle)
        self.records.append(record)
        remaining = self.in_hand
        if len(remaining) == 1:
            self._fold_out(remaining[0])
        else:
            self._advance()
        return record

    def verify_call(self) -> None:
        seat = self._verify_turn("call", Phase.BETTING_BEFORE, Phase.BETTING_AFTER, Phase.SEEING)
        price = self.call_amount
        if self.stacks[seat] < price:
            raise IllegalActionError(f"seat {seat} cannot pay {price} with {self.stacks[seat]} chips "
                                     "(no credit): fold")

    def can_call(self) -> bool:
        return self._can(self.verify_call)

    @property
    def call_amount(self) -> int:
        """What a call costs now: the current stake, or the demanded stake when paying to see."""
        return self.demand.amount if self.phase is Phase.SEEING and self.demand else self.current_stake

    def call(self) -> Call:
        """Stake the current stake («такую же сумму»); when paying to see, the demanded stake."""
        self.verify_call()
        seat = self._queue.pop(0)
        amount = self.call_amount
        self._pay(seat, amount)
        record = Call(seat, amount, self.phase, self.circle)
        self.records.append(record)
        self._advance()
        return record

    def raise_range(self) -> range:
        """Legal raise amounts for the seat to act (empty when none)."""
        if self.phase not in (Phase.BETTING_BEFORE, Phase.BETTING_AFTER) or not self._queue:
            return range(0)
        return range(self.current_stake + 1, min(self.terms.limit, self.stacks[self._queue[0]]) + 1)

    def verify_raise_to(self, amount: int) -> None:
        seat = self._verify_turn("raise", Phase.BETTING_BEFORE, Phase.BETTING_AFTER)
        self._verify_stake(seat, amount, raising=True)

    def _verify_stake(self, seat: int, amount: int, *, raising: bool) -> None:
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise IllegalActionError(f"a stake is a whole number of chips, got {quote(amount)}")
        low = self.current_stake + 1 if raising else self.current_stake
        if amount < low:
            what = "a raise must stake more than" if raising else "a stake cannot be below"
            raise IllegalActionError(f"{what} the current stake {self.current_stake}: {amount}")
        if amount > self.terms.limit:
            raise IllegalActionError(f"the limit is {self.terms.limit} a turn: {amount} is above it")
        if amount > self.stacks[seat]:
            raise IllegalActionError(
                f"seat {seat} has only {self.stacks[seat]} chips (no credit): cannot stake {amount}")

    def can_raise_to(self, amount: int | None = None) -> bool:
        if amount is None:
            return len(self.raise_range()) > 0
        return self._can(lambda: self.verify_raise_to(amount))

    def raise_to(self, amount: int) -> Raise:
        """Stake ``amount`` > the current stake (≤ the limit); it becomes the current stake."""
        self.verify_raise_to(amount)
        seat = self._queue.pop(0)
        self._pay(seat, amount)
        self.current_stake = amount
        self.raised_in_circle = True
        record = Raise(seat, amount, self.phase, self.circle)
        self.records.append(record)
        self._advance()
        return record

    def demand_range(self) -> range:
        """Legal stakes for a show-down demand by the seat to act (empty when none)."""
        if self.demand_refusal() is not None:
            return range(0)
        top = self.current_stake if self.demand_raise_waits() else self.terms.limit
        return range(self.current_stake, min(top, self.stacks[self._queue[0]]) + 1)

    def demand_raise_waits(self) -> bool:
        """True when a demand may stake only the current stake: the first circle after the exchange,
        where a demand above the stake would be a raise, and a raise there waits for the last circle."""
        terms = self.terms
        return (self.phase is Phase.BETTING_AFTER and self.circle == 1 and terms.circles > 1
                and not terms.demand_any_turn and not terms.raising_demand_ends)

    def demand_refusal(self) -> str | None:
        """Why the seat to act may not demand the show-down now, whatever the stake (None: it may)."""
        phase = self.phase
        if phase is Phase.BETTING_AFTER:
            circle, circles = self.circle, self.terms.circles
            if self.terms.demand_any_turn or circle == circles or (circle == 1 and not self.raised_in_circle):
                return None
            return (f"no show-down demand in circle {circle} of {circles}: the stakes were raised in the first "
                    f"circle after the exchange, so the cards are shown only after all {circles} circles "
                    f"(demand in circle {circles})")
        if phase is Phase.OVER:
            return "the hand is over"
        if phase is Phase.SEEING:
            return f"the show-down is already demanded; pay {self.call_amount} to see (call) or fold"
        if phase is Phase.SHOWDOWN:
            return "no show-down demand now: it is the show-down"
        when = "during the exchange" if phase is Phase.EXCHANGE else "before the exchange"
        return f"no show-down demand {when}: the show-down is demanded in the betting after the exchange"

    def verify_demand_show_down(self, amount: int | None = None) -> None:
        refusal = self.demand_refusal()
        if refusal is not None:
            raise IllegalActionError(refusal)
        stake = self.current_stake
        self._verify_stake(self._queue[0], stake if amount is None else amount, raising=False)
        if amount is not None and amount > stake and self.demand_raise_waits():
            circles = self.terms.circles
            raise IllegalActionError(
                f"a demand above the current stake {stake} raises it, and after a raise in the first circle after "
                f"the exchange the cards are shown only after all {circles} circles: demand {stake} now, or raise "
                f"and demand in circle {circles}")

    def can_demand_show_down(self, amount: int | None = None) -> bool:
        return self._can(lambda: self.verify_demand_show_down(amount))

    def demand_show_down(self, amount: int | None = None) -> Demand:
        """Stake ``amount`` (default: the current stake) and demand the show-down; the others pay it to see or fold."""
        self.verify_demand_show_down(amount)
        stake = self.current_stake if amount is None else amount
        seat = self._queue.pop(0)
        self._pay(seat, stake)
        self.current_stake = stake
        record = Demand(seat, stake, self.circle)
        self.demand = record
        self.records.append(record)
        self.phase = Phase.SEEING
        self._queue = [s for s in self._order_from(seat) if s != seat]
        return record

    def _advance(self) -> None:
        """After a call, raise or fold that left two or more players: the next turn, circle or phase."""
        if self._queue:
            return
        if self.phase is Phase.SEEING:
            self.phase = Phase.SHOWDOWN
        elif self.phase is Phase.EXCHANGE:
            self._start_betting(Phase.BETTING_AFTER)
        elif self.phase is Phase.BETTING_AFTER and self.circle == 1 and not self.raised_in_circle:
            self.phase = Phase.SHOWDOWN
        elif self.circle < self.terms.circles:
            self.circle += 1
            self.raised_in_circle = False
            self._queue = self._order_from(self.dealer)
        elif self.phase is Phase.BETTING_BEFORE:
            self._start_exchange()
        else:
            self.phase = Phase.SHOWDOWN

    # ------------------------------------------------------------------ exchange --------

    def _start_exchange(self) -> None:
        self.phase = Phase.EXCHANGE
        self.circle = 0
        self._queue = self._order_from(self.dealer)

    def max_exchange(self) -> int:
        """The most cards the seat to act may exchange (five, or what its stack pays for)."""
        if self.phase is not Phase.EXCHANGE or not self._queue:
            return 0
        fee = self.terms.exchange_fee
        return 5 if fee == 0 else min(5, self.stacks[self._queue[0]] // fee)

    def verify_exchange(self, cards: Iterable[int] = ()) -> None:
        seat = self._verify_turn("exchange", Phase.EXCHANGE)
        discards = [int(c) for c in cards]
        if len(set(discards)) != len(discards):
            raise IllegalActionError("a card is discarded twice")
        held = self.hands[seat]
        for c in discards:
            if not 0 <= c < 64 or not held >> c & 1:
                raise IllegalActionError(f"seat {seat} does not hold {self._card_text(c)}")
        fee = self.terms.exchange_fee * len(discards)
        if fee > self.stacks[seat]:
            raise IllegalActionError(f"exchanging {len(discards)} cards costs {fee} chips; seat {seat} has "
                                     f"{self.stacks[seat]} (no credit)")

    def can_exchange(self, cards: Iterable[int] = ()) -> bool:
        return self._can(lambda: self.verify_exchange(cards))

    def exchange(self, cards: Iterable[int] = ()) -> Exchange:
        """Discard ``cards`` (none: stand pat) and draw as many from the stock, paying the fee per card."""
        discards = tuple(int(c) for c in cards)
        self.verify_exchange(discards)
        seat = self._queue.pop(0)
        fee = self.terms.exchange_fee * len(discards)
        self._pay(seat, fee)
        reshuffled = False
        drawn: list[int] = []
        for _ in discards:
            if not self.stock:
                self._rng.shuffle(self.muck)
                self.stock, self.muck = self.muck, []
                reshuffled = True
            drawn.append(self._draw())
        self.hands[seat] = (self.hands[seat] & ~mask_of(discards)) | mask_of(drawn)
        self.muck.extend(discards)
        self.drawn[seat] = len(discards)
        record = Exchange(seat, discards, tuple(drawn), fee, reshuffled)
        self.records.append(record)
        self._advance()
        return record

    # ------------------------------------------------------------------ show-down -------

    def verify_show_down(self) -> None:
        if self.phase is not Phase.SHOWDOWN:
            raise IllegalActionError(f"no show-down now: it is the {self.phase}")

    def can_show_down(self) -> bool:
        return self._can(self.verify_show_down)

    def show_down(self) -> ShowDown:
        """Open the hands still in; the best (per the rule set) take the pot, odd chips from the dealer's left."""
        self.verify_show_down()
        seats = self._order_from(self.dealer)  # the dealer's left first: the order of the odd chips
        keys, _ = hand_keys(np.array([self.hands[s] for s in seats], dtype=np.uint64), self.rules)
        best = int(keys.max())
        winners = [s for s, k in zip(seats, keys.tolist(), strict=True) if k == best]
        share, odd = divmod(self.pot, len(winners))
        amounts = [share + (1 if i < odd else 0) for i in range(len(winners))]
        for seat, amount in zip(winners, amounts, strict=True):
            self.stacks[seat] += amount
        self.pot = 0
        order = sorted(range(len(winners)), key=lambda i: winners[i])
        record = ShowDown(
            tuple((s, self.hands[s], int(k)) for s, k in sorted(zip(seats, keys.tolist(), strict=True))),
            tuple(winners[i] for i in order), tuple(amounts[i] for i in order),
        )
        self.records.append(record)
        self.phase = Phase.OVER
        return record

    def _fold_out(self, seat: int) -> None:
        amount = self.pot
        self.stacks[seat] += amount
        self.pot = 0
        self._queue = []
        self.phase = Phase.OVER
        self.records.append(FoldOut(seat, amount))

    # ------------------------------------------------------------------ actions as data --

    def legal_actions(self) -> list[Action]:
        """Every legal action now (each raise and demand amount, each set of discards, separately)."""
        phase = self.phase
        if phase is Phase.OVER:
            return []
        if phase is Phase.SHOWDOWN:
            return [_SHOW_DOWN]
        if phase is Phase.ANTES:
            return [_ANTE]
        actions = [_FOLD]
        if phase is Phase.EXCHANGE:
            subsets: list[tuple[int, ...]] = [()]
            for card in cards_of(self.hands[self._queue[0]]):  # in keep-mask order: bit i = the i-th card
                subsets += [s + (card,) for s in subsets]
            most = self.max_exchange()
            actions += [Action(ActionKind.EXCHANGE, cards=s) for s in subsets if len(s) <= most]
            return actions
        if self.stacks[self._queue[0]] >= self.call_amount:
            actions.append(_CALL)
        actions += [_amount_action(_RAISES, ActionKind.RAISE, a) for a in self.raise_range()]
        actions += [_amount_action(_DEMANDS, ActionKind.DEMAND, a) for a in self.demand_range()]
        return actions

    def verify(self, action: Action) -> None:
        """``verify_x`` for an ``Action`` value."""
        kind = action.kind
        if kind is ActionKind.ANTE:
            self.verify_post_ante()
        elif kind is ActionKind.FOLD:
            self.verify_fold()
        elif kind is ActionKind.CALL:
            self.verify_call()
        elif kind is ActionKind.RAISE:
            self.verify_raise_to(action.amount)  # type: ignore[arg-type]
        elif kind is ActionKind.DEMAND:
            self.verify_demand_show_down(action.amount)
        elif kind is ActionKind.EXCHANGE:
            self.verify_exchange(action.cards)
        else:
            self.verify_show_down()

    def apply(self, action: Action) -> Record:
        """``x`` for an ``Action`` value; returns its record."""
        kind = action.kind
        if kind is ActionKind.ANTE:
            return self.post_ante()
        if kind is ActionKind.FOLD:
            return self.fold()
        if kind is ActionKind.CALL:
            return self.call()
        if kind is ActionKind.RAISE:
            if action.amount is None:
                raise IllegalActionError("a raise needs an amount")
            return self.raise_to(action.amount)
        if kind is ActionKind.DEMAND:
            return self.demand_show_down(action.amount)
        if kind is ActionKind.EXCHANGE:
            return self.exchange(action.cards)
        return self.show_down()

    # ------------------------------------------------------------------ helpers ---------

    def _pay(self, seat: int, amount: int) -> None:
        self.stacks[seat] -= amount
        self.contributions[seat] += amount
        self.pot += amount

    def _card_text(self, card: int) -> str:
        try:
            return format_card(card, self.rules.deck)
        except (IndexError, ValueError):
            return f"card {card}"

    @staticmethod
    def _can(verify: Callable[[], None]) -> bool:
        try:
            verify()
        except IllegalActionError:
            return False
        return True

    def __repr__(self) -> str:
        return (f"<State {self.rules.name} {self.phase} pot={self.pot} stacks={self.stacks} "
                f"actor={self.actor} circle={self.circle} stake={self.current_stake}>")

    # ------------------------------------------------------------------ history ---------

    def history(self) -> dict[str, Any]:
        """The hand as one JSON-ready object (the ``--history`` line; ``replay`` reads it back)."""
        deck = self.rules.deck
        dealt = [s for s in range(self.n_seats) if self.dealt_in[s]]
        showdown = next((r for r in self.records if isinstance(r, ShowDown)), None)
        fold_out = next((r for r in self.records if isinstance(r, FoldOut)), None)
        winners = list(showdown.winners) if showdown else [fold_out.seat] if fold_out else []
        return {
            "rules": self.rules.name,
            "rule_options": _rule_options(self.rules),
            "terms": self.terms.to_dict(),
            "table_size": self.n_seats,
            "dealer": self.dealer,
            "seed": self.seed,
            **({"deck": format_cards(list(self._deck_order), deck, order="given").split()}
               if self._deck_order is not None else {}),
            "seats": [
                {"seat": s, "cards": format_cards(self.hands[s], deck, order="group").split(),
                 "folded": self.folded[s], "stack_before": self.stacks_before[s], "stack_after": self.stacks[s]}
                for s in dealt
            ],
            "sitting_out": [{"seat": s, "stack": self.stacks[s]} for s in range(self.n_seats) if not self.dealt_in[s]],
            "pot": sum(self.contributions),
            "showdown": showdown is not None,
            "winners": winners,
            "actions": [r.to_dict(self.rules) for r in self.records],
        }


_RULE_OPTION_NAMES = ("ace_low_straight", "flush_over_full_house", "tiebreak", "swap_four_straight_flush",
                      "joker_card")


def _rule_options(rules: Rules) -> dict[str, Any]:
    base = get_rules(rules.name)
    return {k: getattr(rules, k) for k in _RULE_OPTION_NAMES if getattr(rules, k) != getattr(base, k)}


def replay(history: str | bytes | Mapping[str, Any]) -> State:
    """Rebuild a hand from its history — a ``--history`` JSON line, or the object (``history()``,
    or a line parsed) — by the same deal (seed, or stacked deck) and every action again.

    A line written before ``Terms.raising_demand_ends`` existed (no such key in its ``terms``) was
    played under that earlier reading and is replayed under it.

    Raises ``IllegalActionError`` (or ``TermsError``) if the history is not a legal hand, and
    ``ValueError`` if it is not a hand's history at all.
    """
    if isinstance(history, str | bytes):
        try:
            history = json.loads(history)
        except json.JSONDecodeError as exc:
            raise ValueError(f"not a JSON line of a hand's history: {exc}") from None
    if not isinstance(history, Mapping):
        raise ValueError(f"a hand's history is a JSON object, got {type(history).__name__}")
    missing = [k for k in ("rules", "terms", "table_size", "dealer", "seed", "seats", "actions") if k not in history]
    if missing:
        raise ValueError(f"not a hand's history: no {quote(missing[0])}")
    rules = get_rules(history["rules"], **history.get("rule_options", {}))
    terms = Terms(**{"raising_demand_ends": True, **history["terms"]})  # older lines: the only reading then
    stacks = [0] * int(history["table_size"])
    for seat in history["seats"]:
        stacks[int(seat["seat"])] = int(seat["stack_before"])
    for seat in history.get("sitting_out", ()):
        stacks[int(seat["seat"])] = int(seat["stack"])
    order = [parse_card(c, rules.deck) for c in history["deck"]] if "deck" in history else None
    state = State(rules, terms, stacks, dealer=int(history["dealer"]), seed=history["seed"], deck=order)
    for entry in history["actions"]:
        kind = entry["action"]
        if kind == "fold-out":
            continue  # automatic, after the last fold
        if kind not in ActionKind.__members__.values():
            raise IllegalActionError(f"unknown action {quote(kind)} in the history")
        if "seat" in entry and state.actor != entry["seat"]:
            raise IllegalActionError(f"the history has seat {entry['seat']} acting when seat {state.actor} is to act")
        cards = tuple(parse_card(c, rules.deck) for c in entry.get("discard", ()))
        amount = entry.get("amount") if kind in (ActionKind.RAISE, ActionKind.DEMAND) else None
        state.apply(Action(ActionKind(kind), amount, cards))
    return state
