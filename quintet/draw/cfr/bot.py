"""The CFR bot and its advice: the solved strategy played at a real table (``quintet.draw.game.State``).

A heads-up hand maps onto the abstract game exactly, action by action (``line``): player 0 is
the seat on the dealer's left, every fold, call, raise, demand and payment to see is the same
action, an exchange of d cards is "draw d".  What the abstraction hides is the cards: the bot
finds the class of its hand (``HandClasses``), samples an action from the strategy's
probabilities of that class at that spot, and plays it — the exchange "draw d" by discarding
all but the best 5 - d cards (exact mean percentile).  Where the real game forbids the action
(no credit: the abstract game's stacks are deep) it calls if it can, else folds.

In a hand dealt to three or more the strategy does not apply (it is heads-up): the bot plays
as the advisor bot there (``quintet.draw.advisor_bot.AdvisorBot``), and switches to the strategy in a
hand dealt to two players (at a bigger table, once the others have left it).

``spot_advice(strategy, state, seat)`` explains a spot for a person (``quintet poker``'s ``hint``, the
page's Draw tab): the strategy's probabilities of the seat's class, the pot odds, the other
player's range (his classes, by Bayes' rule from the strategy and his actions), the chips each
action is worth against that range after the exchange, what each exchange draws to, and a
one-line reason.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ...cards import format_cards, parse_cards
from ...rules import Rules
from ...text import quote
from ..advisor import advise
from ..advisor_bot import AdvisorBot
from ..game import (
    Action,
    ActionKind,
    Call,
    Demand,
    Exchange,
    Fold,
    IllegalActionError,
    Phase,
    Raise,
    State,
    Terms,
)
from .betting import (
    AFTER,
    BEFORE,
    CALL,
    DEMAND,
    DRAW,
    EXCHANGE,
    FOLD,
    RAISE,
    SEEING,
    End,
    Spot,
    action_text,
    parse_action,
)
from .classes import draw_values
from .strategy import Strategy, StrategyError, shipped_rule_sets, strategy_for

if TYPE_CHECKING:
    from ...schema import DrawStrategyOut

__all__ = ["CfrBot", "Line", "line", "follow", "Advice", "ActionAdvice", "ExchangeOption", "spot_advice", "line_advice",
           "position_advice", "action_of", "likeliest"]


@dataclass(frozen=True)
class Line:
    """A heads-up hand as a line of the abstract game: the seats of players 0 and 1, and each step as
    (spot, where its block starts, the action code taken); ``spot``/``offset``: where the hand is now."""

    seats: tuple[int, int]
    steps: tuple[tuple[Spot, int, int], ...]
    spot: Spot | End
    offset: int


def _move(record: object) -> tuple[int, int] | None:
    """(seat, action code) of a record of a move (None: an ante, the show-down, a fold-out)."""
    if isinstance(record, Fold):
        return record.seat, FOLD
    if isinstance(record, Call):
        return record.seat, CALL
    if isinstance(record, Raise):
        return record.seat, RAISE + record.amount
    if isinstance(record, Demand):
        return record.seat, DEMAND + record.amount
    if isinstance(record, Exchange):
        return record.seat, DRAW + len(record.discarded)
    return None


def line(strategy: Strategy, state: State) -> Line:
    """The hand so far in the abstract game (``ValueError``: not a heads-up hand, or a line the game lacks)."""
    dealt = [s for s in range(state.n_seats) if state.dealt_in[s]]
    if len(dealt) != 2:
        raise ValueError(f"the strategy is heads-up; this hand was dealt to {len(dealt)} players")
    order = sorted(dealt, key=lambda s: (s - state.dealer - 1) % state.n_seats)
    acted = [move for record in state.records if (move := _move(record)) is not None]
    steps, spot, offset = follow(strategy, [code for _, code in acted])
    for (at, _, _), (seat, _) in zip(steps, acted, strict=True):
        if seat != order[at.turn]:
            raise ValueError(f"seat {seat} acts where the abstract game has player {at.turn}")
    return Line((order[0], order[1]), steps, spot, offset)


def follow(strategy: Strategy, codes: Sequence[int]) -> tuple[tuple[tuple[Spot, int, int], ...], Spot | End, int]:
    """Walk a line of action codes from the root: each step (spot, its block's offset, the code), and where it
    ends (``IllegalActionError`` naming the first action the abstract game does not have there)."""
    nav = strategy.navigator
    spot: Spot | End = strategy.betting.root()
    offset = 0
    steps: list[tuple[Spot, int, int]] = []
    for i, code in enumerate(codes):
        if not isinstance(spot, Spot):
            raise IllegalActionError(f"action {i + 1} ({action_text(code)}) comes after the hand is over")
        try:
            nxt, at = nav.follow(spot, offset, code)
        except ValueError:
            legal = ", ".join(action_text(c) for c, _ in strategy.betting.moves(spot))
            raise IllegalActionError(f"action {i + 1} ({action_text(code)}) is not allowed there (allowed: {legal})") \
                from None
        steps.append((spot, offset, code))
        spot, offset = nxt, at
    return tuple(steps), spot, offset


def hand_class(strategy: Strategy, state: State, seat: int) -> int:
    """The class of the seat's hand: before its exchange by its best exchange, after it by its percentile."""
    if state.drawn[seat] is None:
        return strategy.classes.pre_class(state.hand(seat))
    return strategy.classes.post_class(state.hands[seat])


def action_of(code: int, state: State, seat: int) -> Action:
    """The real action of an abstract action code (``DRAW + d``: discard all but the best 5 - d cards)."""
    if code == FOLD:
        return Action(ActionKind.FOLD)
    if code == CALL:
        return Action(ActionKind.CALL)
    if code >= DRAW:
        hand = state.hand(seat)
        keep = draw_values(state.rules, hand)[0][code - DRAW]
        return Action(ActionKind.EXCHANGE, cards=tuple(c for i, c in enumerate(hand) if not keep >> i & 1))
    if code >= DEMAND:
        return Action(ActionKind.DEMAND, code - DEMAND)
    return Action(ActionKind.RAISE, code - RAISE)


class CfrBot:
    """Plays the solved strategy heads-up, the advisor bot otherwise (module doc); seeded.

    ``steps`` replaces the strategy's probabilities (same layout, uint8 steps of 1/255 or float
    probabilities): how a best response to the strategy plays at a real table.
    """

    kind = "cfr"

    def __init__(self, rules: Rules, terms: Terms, seed: int = 0, *, strategy: Strategy | None = None,
                 steps: np.ndarray | None = None, bluff: float = 0.1, build: bool = True) -> None:
        self.rules = rules
        self.terms = terms
        self.seed = seed
        self.build = build
        self._strategy = strategy
        self._missing = False
        self._steps = steps
        self._rng = random.Random(seed)
        self._fallback = AdvisorBot(rules, seed, bluff=bluff)  # at a table of three or more

    def __repr__(self) -> str:
        return f"CfrBot({self.rules.name!r}, seed={self.seed})"

    @property
    def strategy(self) -> Strategy | None:
        """The strategy, found (or, with ``build``, trained) on first need; None if there is none and
        ``build`` is off (then the bot plays as the advisor)."""
        if self._strategy is None and not self._missing:
            try:
                self._strategy = strategy_for(self.rules, self.terms, build=self.build)
            except StrategyError:
                self._missing = True
        return self._strategy

    def _solved(self) -> Strategy:
        strategy = self.strategy
        if strategy is None:
            raise StrategyError(f"no strategy is stored for {self.rules.name} under these terms")
        return strategy

    def probabilities(self, state: State, seat: int) -> tuple[Line, list[int], np.ndarray]:
        """(the line, the action codes here, their probabilities for the seat's class)."""
        strategy = self._solved()
        hand = line(strategy, state)
        spot = hand.spot
        if not isinstance(spot, Spot) or hand.seats[spot.turn] != seat:
            raise ValueError(f"seat {seat} is not to act in the abstract game")
        codes = [c for c, _ in strategy.betting.moves(spot)]
        x = hand_class(strategy, state, seat)
        if self._steps is None:
            probs = strategy.block(spot, hand.offset)[x]
        else:
            k = len(codes)
            row = self._steps[hand.offset + x * k: hand.offset + (x + 1) * k].astype(np.float64)
            probs = row / row.sum()
        return hand, codes, probs

    def act(self, state: State) -> Action:
        seat = state.actor
        if seat is None:
            raise ValueError("no seat is to act")
        if sum(state.dealt_in) != 2 or self.strategy is None:
            return self._fallback.act(state)
        _, codes, probs = self.probabilities(state, seat)
        code = codes[_pick(self._rng, probs)]
        action = action_of(code, state, seat)
        try:
            state.verify(action)
        except IllegalActionError:  # no credit: the abstract game's stacks are deep
            return Action(ActionKind.CALL) if state.can_call() else Action(ActionKind.FOLD)
        return action


def _pick(rng: random.Random, probs: np.ndarray) -> int:
    u = rng.random()
    total = 0.0
    for i, p in enumerate(probs.tolist()):
        total += p
        if u < total:
            return i
    return int(np.argmax(probs))


# ---------------------------------------------------------------- advice ----------------------


@dataclass(frozen=True)
class ExchangeOption:
    """Drawing ``drawn`` cards: the cards kept, the exact mean percentile of the final hand, and the chance of
    each category or better (strongest first) over every draw."""

    drawn: int
    keep: tuple[int, ...]
    expected: float
    at_least: tuple[tuple[str, float], ...]


@dataclass(frozen=True)
class ActionAdvice:
    """One action: its code and text, the strategy's probability, and (after the exchange) its value in
    chips against the other player's range when both then follow the strategy (None before)."""

    code: int
    text: str
    probability: float
    value: float | None


@dataclass(frozen=True)
class Advice:
    """The strategy's view of a spot (module doc)."""

    seat: int
    player: int
    phase: str
    hand_class: int
    classes: int
    class_range: tuple[float, float]
    actions: tuple[ActionAdvice, ...]
    pot: int
    to_call: int
    pot_odds: float | None
    opponent: tuple[float, ...]
    equity: float
    exchanges: tuple[ExchangeOption, ...]
    why: str
    spot: Phase

    @property
    def best(self) -> ActionAdvice:
        return max(self.actions, key=lambda a: a.probability)

    def to_model(self, strategy: Strategy) -> DrawStrategyOut:
        """The advice as JSON (``quintet.schema.DrawStrategyOut``): what the page's Draw tab receives."""
        from ...schema import DrawStrategyOut, StrategyActionOut, StrategyExchangeOut, StrategyInfoOut

        deck = strategy.rules.deck
        return DrawStrategyOut(
            rules=strategy.rules.name, player="first" if self.player == 0 else "second", phase=str(self.spot),
            hand_class=self.hand_class + 1, classes=self.classes, class_range=list(self.class_range),
            actions=[StrategyActionOut(action=a.text, probability=a.probability, chips=a.value) for a in self.actions],
            best=self.best.text, pot=self.pot, to_call=self.to_call, pot_odds=self.pot_odds, equity=self.equity,
            opponent_classes=list(self.opponent),
            exchanges=[StrategyExchangeOut(draw=o.drawn, keep=format_cards(list(o.keep), deck, order="group").split(),
                                           expected_percentile=o.expected, likeliest=dict(likeliest(o.at_least)))
                       for o in self.exchanges],
            why=self.why,
            strategy=StrategyInfoOut(algorithm=strategy.info["algorithm"], iterations=strategy.info["iterations"],
                                     exploitability=strategy.info["exploitability"]["stored"]),
        )


def likeliest(at_least: tuple[tuple[str, float], ...], count: int = 2) -> list[tuple[str, float]]:
    """The ``count`` likeliest categories of a final hand, from its chances of each category or better."""
    exact = [(name, p - (at_least[i - 1][1] if i else 0.0)) for i, (name, p) in enumerate(at_least)]
    return sorted((e for e in exact if e[1] > 0), key=lambda e: -e[1])[:count]


def _opponent_range(strategy: Strategy, hand: Line, opponent: int) -> np.ndarray:
    """The other player's classes after the line, by Bayes' rule from the strategy (normalised)."""
    classes = strategy.classes
    r = classes.prior.copy()
    for spot, offset, code in hand.steps:
        if spot.turn != opponent:
            continue
        codes = [c for c, _ in strategy.betting.moves(spot)]
        r = r * strategy.block(spot, offset)[:, codes.index(code)]
        if spot.phase == EXCHANGE:
            r = r @ classes.transitions[code - DRAW]
    total = r.sum()
    return r / total if total > 0 else np.full(r.shape, 1.0 / r.size)


def _equity(mine: np.ndarray, theirs: np.ndarray) -> float:
    """P(win) + P(tie) / 2 of a final class drawn from ``mine`` against one from ``theirs``."""
    below = np.cumsum(theirs) - theirs
    return float(np.dot(mine, below + theirs / 2))


def _final(strategy: Strategy, dist: np.ndarray, exchanged: bool) -> np.ndarray:
    """The final-class distribution of pre-exchange classes ``dist`` drawing their best exchange (or itself)."""
    if exchanged:
        return dist
    classes = strategy.classes
    out = np.zeros(classes.n_post)
    for x in np.flatnonzero(dist).tolist():
        out += dist[x] * classes.transitions[classes.group_of(x), x]
    return out


def _exchange_options(rules: Rules, hand: tuple[int, ...]) -> tuple[ExchangeOption, ...]:
    keeps, values = draw_values(rules, hand)
    advice = advise(hand, rules)
    out = []
    for d in range(6):
        kept = tuple(c for i, c in enumerate(hand) if keeps[d] >> i & 1)
        option = advice.option(kept)
        running, at_least = 0, []
        for c in reversed(rules.categories):
            running += option.category_counts[c]
            at_least.append((rules.category_label(c), running / option.n_outcomes))
        out.append(ExchangeOption(d, kept, values[d], tuple(at_least)))
    return tuple(out)


def spot_advice(strategy: Strategy, state: State, seat: int, *, values: bool = True) -> Advice:
    """The strategy's advice to ``seat`` (whose turn it is) in a heads-up hand (module doc)."""
    hand = line(strategy, state)
    if not isinstance(hand.spot, Spot) or hand.seats[hand.spot.turn] != seat:
        raise ValueError(f"seat {seat} is not to act")
    return line_advice(strategy, state.hand(seat), [code for _, _, code in hand.steps], hand.spot.turn,
                       values=values, seat=seat)


def line_advice(strategy: Strategy, cards: Sequence[int], codes: Sequence[int], player: int, *, values: bool = True,
                seat: int | None = None) -> Advice:
    """The advice to ``player`` (0: first to act, on the dealer's left) holding ``cards`` (five card ints: as
    dealt before his exchange, the final hand after it) after the actions ``codes`` of both players from the
    start of the hand (``IllegalActionError`` with a sentence: an action not allowed, a hand over, not his turn)."""
    steps, spot, offset = follow(strategy, codes)
    if not isinstance(spot, Spot):
        raise IllegalActionError("the hand is over: nobody is to act")
    if spot.turn != player:
        raise IllegalActionError(f"it is the {'first' if spot.turn == 0 else 'second'} player's turn, not yours")
    hand = Line((0, 1), steps, spot, offset)
    classes = strategy.classes
    exchanged_me, exchanged_them = spot.exchanged(player), spot.exchanged(1 - player)
    x = classes.post_class(sum(1 << c for c in cards)) if exchanged_me else classes.pre_class(list(cards))
    moves = strategy.betting.moves(spot)
    probs = strategy.block(spot, offset)[x]
    opponent = _opponent_range(strategy, hand, 1 - player)
    mine = np.zeros(classes.n_post if exchanged_me else classes.n_pre)
    mine[x] = 1.0
    equity = _equity(_final(strategy, mine, exchanged_me), _final(strategy, opponent, exchanged_them))
    worth = _action_values(strategy, spot, offset, x, opponent) if values and spot.phase != EXCHANGE \
        and exchanged_me and exchanged_them else None
    actions = tuple(ActionAdvice(code, action_text(code), float(p), None if worth is None else worth[i])
                    for i, ((code, _), p) in enumerate(zip(moves, probs.tolist(), strict=True)))
    to_call = spot.demand if spot.phase == SEEING else 0 if spot.phase == EXCHANGE else spot.stake
    pot = sum(spot.paid)
    low, high = (float(v) for v in (classes.post_range[x] if exchanged_me else classes.pre_range[x]))
    exchanges = _exchange_options(strategy.rules, tuple(cards)) if spot.phase == EXCHANGE else ()
    advice = Advice(player if seat is None else seat, player, "after" if exchanged_me else "before", x,
                    classes.n_post if exchanged_me else classes.n_pre, (low, high), actions, pot, to_call,
                    to_call / (pot + to_call) if to_call else None, tuple(float(v) for v in opponent), equity,
                    exchanges, "", _PHASES[spot.phase])
    return _with_why(advice)


def position_advice(rules: Rules, terms: Terms, hand: str, actions: Sequence[str], player: str) -> DrawStrategyOut:
    """The advice for a position given as text — the one door of every front-end's request: the player's
    five cards (as dealt before his exchange, after it his final hand), both players' moves from the start
    (``parse_action`` words), and ``player`` (``first``: on the dealer's left; ``second``: the dealer).
    Only a shipped or stored strategy is used (none is solved on demand); ``IllegalActionError`` with a
    sentence for a bad position, ``StrategyError`` when there is no strategy for these rules and terms."""
    if player not in ("first", "second"):
        raise IllegalActionError(f"player is first or second, got {quote(player)}")
    cards = parse_cards(hand, rules.deck, count=5, what="cards in a hand")
    codes = [parse_action(a) for a in actions]
    try:
        strategy = strategy_for(rules, terms, build=False)
    except StrategyError:
        shipped = ", ".join(shipped_rule_sets()) or "none"
        raise StrategyError(f"no heads-up strategy is stored for {rules.name} under these terms (shipped for the "
                            f"default terms: {shipped}; quintet poker --players 2 --bots cfr solves and stores "
                            "one)") from None
    return line_advice(strategy, cards, codes, 0 if player == "first" else 1).to_model(strategy)


_PHASES = {BEFORE: Phase.BETTING_BEFORE, EXCHANGE: Phase.EXCHANGE, AFTER: Phase.BETTING_AFTER, SEEING: Phase.SEEING}


def _with_why(a: Advice) -> Advice:
    best = a.best
    share = f"{100 * best.probability:.0f}%"
    if a.phase == "before":
        where = f"class {a.hand_class + 1} of {a.classes} (best exchange: mean final percentile " \
                f"{100 * a.class_range[0]:.0f}–{100 * a.class_range[1]:.0f}%)"
    else:
        where = f"class {a.hand_class + 1} of {a.classes} (percentile {100 * a.class_range[0]:.1f}–" \
                f"{100 * a.class_range[1]:.1f}%)"
    text = f"{where}, {100 * a.equity:.0f}% equity against his range after the exchange"
    if a.pot_odds is not None:
        text += f"; a call needs {100 * a.pot_odds:.0f}% (pot odds)"
    fold = next((x for x in a.actions if x.code == FOLD), None)
    if best.value is not None and fold is not None and fold.value is not None and best is not fold:
        text += f"; {best.text} is worth {best.value - fold.value:+.2f} chips more than folding"
    why = f"{best.text} {share}: {text}"
    return Advice(**{**a.__dict__, "why": why})


def _action_values(strategy: Strategy, spot: Spot, offset: int, x: int, opponent: np.ndarray) -> list[float]:
    """The chips each action at a spot after the exchange is worth to class x against the other player's range,
    both following the strategy afterwards (a walk of the spot's small subtree)."""
    from .betting import build_subtree
    from .solve import expected_value

    out = []
    player = spot.turn
    nav = strategy.navigator
    at = offset + nav.block(spot)
    for _, nxt in strategy.betting.moves(spot):
        mine = np.zeros(strategy.classes.n_post)
        mine[x] = 1.0
        if isinstance(nxt, End):
            sign, constant = nxt.payoff()
            value0 = constant
            if nxt.folder < 0:  # the show-down: E[sign(class of player 0 - class of player 1)]
                others = np.arange(opponent.size)
                value0 += sign * float(opponent @ (np.sign(x - others) if player == 0 else np.sign(others - x)))
            out.append(value0 if player == 0 else -value0)
            continue
        tree = build_subtree(strategy.betting, strategy.classes, nxt, mine if player == 0 else opponent,
                             opponent if player == 0 else mine)
        size = nav.entries(nxt)
        value0 = expected_value(tree, strategy.steps[at: at + size] / 255.0)
        out.append(value0 if player == 0 else -value0)
        at += size
    return out
