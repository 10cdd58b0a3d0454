"""The CFR bot and its advice: the strategy of the abstract game played at a real table (``quintet.draw.game.State``).

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
page's Draw tab): the seat's class named by strength and what it holds, the strategy's probabilities
for it, the other player's range (his classes, by Bayes' rule from the strategy and his actions), the
chips each action is worth against that range counted from now (before, at and after the exchange),
what each exchange draws to, and a one-line reason that follows from those values.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from ...cards import format_cards, parse_cards
from ...rules import Category, Rules
from ...text import quote, signed
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
from ..tables import tables
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
    build_subtree,
    parse_action,
)
from .classes import draw_values
from .solve import expected_value
from .strategy import UNREACHED, Strategy, StrategyError, shipped_rule_sets, strategy_for
from .tree import PublicTree

if TYPE_CHECKING:
    from ...schema import DrawStrategyOut

__all__ = ["CfrBot", "Line", "line", "follow", "Advice", "ActionAdvice", "ExchangeOption", "spot_advice", "line_advice",
           "position_advice", "action_of", "opponent_range", "likeliest", "class_name", "strategy_summary",
           "INDIFFERENT"]


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
    """Plays the strategy heads-up, the advisor bot otherwise (module doc); seeded.

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
    """One action: its code and text, the strategy's probability, and its value in chips **counted from now**
    (what the player wins or loses from here on, chips already in the pot not counted: folding is worth 0)
    against the other player's range when both then follow the strategy (None: values not asked for)."""

    code: int
    text: str
    probability: float
    value: float | None


@dataclass(frozen=True)
class Advice:
    """The strategy's view of a spot (module doc); ``left_line``: no hand of the player's class reaches here by
    the strategy (the advice is then a best response against the bot's strategy); ``his_line_off``: no hand of
    the other player's reaches here by it (his range is then taken as uniform)."""

    seat: int
    player: int
    phase: str
    hand_class: int
    classes: int
    class_range: tuple[float, float]
    class_name: str
    actions: tuple[ActionAdvice, ...]
    pot: int
    to_call: int
    opponent: tuple[float, ...]
    equity: float
    exchanges: tuple[ExchangeOption, ...]
    left_line: bool
    his_line_off: bool
    why: str
    spot: Phase

    @property
    def likeliest(self) -> ActionAdvice:
        """The strategy's likeliest move."""
        return max(self.actions, key=lambda a: a.probability)

    @property
    def best(self) -> ActionAdvice:
        """The move advised: the strategy's likeliest among those worth the most (within ``INDIFFERENT`` chips);
        without values, its likeliest."""
        return max(self.top, key=lambda a: a.probability)

    @property
    def top(self) -> tuple[ActionAdvice, ...]:
        """The moves worth the most, within ``INDIFFERENT`` chips of the best (all of them without values)."""
        if any(a.value is None for a in self.actions):
            return self.actions
        high = max(a.value for a in self.actions if a.value is not None)
        return tuple(a for a in self.actions if a.value is not None and a.value >= high - INDIFFERENT)

    def to_model(self, strategy: Strategy) -> DrawStrategyOut:
        """The advice as JSON (``quintet.schema.DrawStrategyOut``): what the page's Draw tab receives."""
        from ...schema import DrawStrategyOut, StrategyActionOut, StrategyExchangeOut, StrategyInfoOut

        deck = strategy.rules.deck
        return DrawStrategyOut(
            rules=strategy.rules.name, player="first" if self.player == 0 else "second", phase=str(self.spot),
            hand_class=self.hand_class + 1, classes=self.classes, class_range=list(self.class_range),
            class_name=self.class_name,
            actions=[StrategyActionOut(action=a.text, probability=a.probability, chips=a.value) for a in self.actions],
            best=self.best.text, pot=self.pot, to_call=self.to_call, equity=self.equity,
            opponent_classes=list(self.opponent),
            exchanges=[StrategyExchangeOut(draw=o.drawn, keep=format_cards(list(o.keep), deck, order="group").split(),
                                           expected_percentile=o.expected, likeliest=dict(likeliest(o.at_least)))
                       for o in self.exchanges],
            why=self.why,
            strategy=StrategyInfoOut(algorithm=strategy.info["algorithm"], iterations=strategy.info["iterations"],
                                     exploitability=strategy.info["exploitability"]["stored"],
                                     summary=strategy_summary(strategy)),
        )


INDIFFERENT = 0.05
"""Chips: two moves whose values (counted from now) differ by less are called indifferent (the strategy mixes
them; the stored probabilities' 1/255 steps and the solve's remaining exploitability blur values by about this)."""


def strategy_summary(strategy: Strategy) -> str:
    """What the strategy is, in the honest words the docs use: the sizes of its abstraction and its exact
    exploitability there, both read from the strategy file."""
    c = strategy.classes
    return (f"an equilibrium of an abstraction with {c.n_pre} hand classes before the exchange and {c.n_post} after "
            f"it, exploitable by at most {strategy.info['exploitability']['stored']:.4f} chips a hand in the "
            "abstraction; in the real game only a lower bound is measured, and it shows none")


def class_name(strategy: Strategy, x: int, exchanged: bool) -> str:
    """Class ``x`` in words: its number, its strength among the classes (1st: the strongest; the top third strong,
    the bottom third weak) and what it holds —
    before the exchange what its hands' best exchange draws and its mean final percentile, after it the
    categories and percentiles of its final hands."""
    c = strategy.classes
    if exchanged:
        low, high = (float(v) for v in c.post_range[x])
        rank = c.n_post - x
        t = tables(strategy.rules)
        inside = np.flatnonzero(np.searchsorted(c.post_cuts, t.percentiles, side="left") == x)
        present = {Category(int(v)) for v in t.class_categories[inside].tolist()}
        labels = [strategy.rules.category_label(k) for k in strategy.rules.categories if k in present]
        holds = labels[0] if len(labels) == 1 else f"{labels[0]} to {labels[-1]}"
        what = f"{holds}, percentile {100 * low:.1f}–{100 * high:.1f}%"
        n = c.n_post
    else:
        low, high = (float(v) for v in c.pre_range[x])
        middle = c.pre_range.mean(axis=1)
        rank = 1 + int((middle > middle[x]).sum())
        d = c.group_of(x)
        holds = "its best exchange stands pat" if d == 0 else f"its best exchange draws {d}"
        what = f"{holds}, mean final percentile {100 * low:.0f}–{100 * high:.0f}%"
        n = c.n_pre
    word = "strong" if 3 * rank <= n else "middling" if 3 * rank <= 2 * n else "weak"
    return f"class {x + 1} of {n} ({word}, the {_ordinal(rank) + ' ' if rank > 1 else ''}strongest: {what})"


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def likeliest(at_least: tuple[tuple[str, float], ...], count: int = 2) -> list[tuple[str, float]]:
    """The ``count`` likeliest categories of a final hand, from its chances of each category or better."""
    exact = [(name, p - (at_least[i - 1][1] if i else 0.0)) for i, (name, p) in enumerate(at_least)]
    return sorted((e for e in exact if e[1] > 0), key=lambda e: -e[1])[:count]


def _reach(strategy: Strategy, hand: Line, who: int) -> np.ndarray:
    """How likely each class of player ``who`` is to be here, by the strategy's play of his moves so far
    (the prior times his probabilities, through the exchange's transitions; not normalised)."""
    classes = strategy.classes
    r = classes.prior.copy()
    for spot, offset, code in hand.steps:
        if spot.turn != who:
            continue
        codes = [c for c, _ in strategy.betting.moves(spot)]
        r = r * strategy.block(spot, offset)[:, codes.index(code)]
        if spot.phase == EXCHANGE:
            r = r @ classes.transitions[code - DRAW]
    return r


def opponent_range(strategy: Strategy, hand: Line, who: int) -> np.ndarray:
    """Player ``who``'s classes after the line, by Bayes' rule from the strategy (normalised;
    uniform where the strategy never plays his line)."""
    r = _reach(strategy, hand, who)
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


def spot_advice(strategy: Strategy, state: State, seat: int) -> Advice:
    """The strategy's advice to ``seat`` (whose turn it is) in a heads-up hand (module doc)."""
    hand = line(strategy, state)
    if not isinstance(hand.spot, Spot) or hand.seats[hand.spot.turn] != seat:
        raise ValueError(f"seat {seat} is not to act")
    return line_advice(strategy, state.hand(seat), [code for _, _, code in hand.steps], hand.spot.turn, seat=seat)


def line_advice(strategy: Strategy, cards: Sequence[int], codes: Sequence[int], player: int, *,
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
    theirs = _reach(strategy, hand, 1 - player)
    his_line_off = bool(theirs.sum() < UNREACHED)
    opponent = np.full(theirs.shape, 1.0 / theirs.size) if his_line_off else theirs / theirs.sum()
    mine = np.zeros(classes.n_post if exchanged_me else classes.n_pre)
    mine[x] = 1.0
    equity = _equity(_final(strategy, mine, exchanged_me), _final(strategy, opponent, exchanged_them))
    worth = _action_values(strategy, spot, offset, x, opponent)
    actions = tuple(ActionAdvice(code, action_text(code), float(p), worth[i])
                    for i, ((code, _), p) in enumerate(zip(moves, probs.tolist(), strict=True)))
    to_call = spot.demand if spot.phase == SEEING else 0 if spot.phase == EXCHANGE else spot.stake
    exchanges = _exchange_options(strategy.rules, tuple(cards)) if spot.phase == EXCHANGE else ()
    low, high = (float(v) for v in (classes.post_range[x] if exchanged_me else classes.pre_range[x]))
    advice = Advice(player if seat is None else seat, player, "after" if exchanged_me else "before", x,
                    classes.n_post if exchanged_me else classes.n_pre, (low, high),
                    class_name(strategy, x, exchanged_me), actions, sum(spot.paid), to_call,
                    tuple(float(v) for v in opponent), equity, exchanges,
                    bool(_reach(strategy, hand, player)[x] < UNREACHED), his_line_off, "", _PHASES[spot.phase])
    return replace(advice, why=_why(advice))


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


def _why(a: Advice) -> str:
    """The reason in a line, from the values shown: the move worth the most counted from now, indifference said as
    such (the strategy then mixes), the equity explained, a deviation named."""
    best, top = a.best, a.top
    text = a.class_name
    if a.left_line:
        text += ("; you left the strategy's line (it never plays your class this way), so from here the advice is a "
                 "best response against this bot's strategy")
    if a.his_line_off:
        text += "; his moves are ones the strategy never makes, so his hand is taken as any class alike"
    if best.value is not None:
        if len(top) > 1:
            played = sorted((m for m in top if m.probability >= 0.005), key=lambda m: -m.probability)
            how = f"the strategy mixes {', '.join(f'{m.text} {100 * m.probability:.0f}%' for m in played)}" \
                if len(played) > 1 else f"the strategy plays {best.text}"
            text += (f"; counted from now {_words([m.text for m in top])} are worth the same ({signed(best.value)} "
                     f"chips, within {INDIFFERENT}): indifferent, and {how}")
        else:
            rest = sorted((m for m in a.actions if m is not best), key=lambda m: -(m.value or 0.0))
            text += f"; counted from now {best.text} is worth {signed(best.value)} chips, the most"
            if rest and rest[0].value is not None:
                text += f" (next: {rest[0].text} {signed(rest[0].value)})"
    text += f"; {100 * a.equity:.0f}% equity against his range at the show-down"
    if best.code == FOLD and len(top) == 1 and a.to_call and a.equity > a.to_call / (a.pot + a.to_call):
        text += " — not enough: staying in costs the stake of every later turn, not only this one"
    likeliest = a.likeliest
    if likeliest is not best and likeliest not in top and likeliest.value is not None and best.value is not None:
        text += (f"; the strategy's likeliest move here, {likeliest.text} ({100 * likeliest.probability:.0f}%), is "
                 f"worth {best.value - likeliest.value:.2f} chips less against his range")
    return f"{best.text} {100 * best.probability:.0f}%: {text}"


def _words(items: list[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


CACHED_NODES = 1_000_000
"""The subtrees kept for the values, in nodes at most (about 60 bytes a node)."""


def _subtree(strategy: Strategy, spot: Spot) -> PublicTree:
    """The tree below a spot (cached: the first values at the top of a hand take a few seconds)."""
    cache: dict[Spot, PublicTree] = strategy.__dict__.setdefault("_subtrees", {})
    if spot not in cache:
        if sum(t.n_nodes for t in cache.values()) > CACHED_NODES:
            cache.clear()
        nav = strategy.navigator
        n0, n1 = nav.types(spot, 0), nav.types(spot, 1)
        cache[spot] = build_subtree(strategy.betting, strategy.classes, spot, np.full(n0, 1.0 / n0),
                                    np.full(n1, 1.0 / n1))
    return cache[spot]


def _action_values(strategy: Strategy, spot: Spot, offset: int, x: int, opponent: np.ndarray) -> list[float]:
    """The chips each action at a spot is worth to class x against the other player's range, both following the
    strategy afterwards, counted from now (chips already paid not counted): a walk of each action's subtree."""
    out = []
    player = spot.turn
    classes = strategy.classes
    nav = strategy.navigator
    at = offset + nav.block(spot)
    mine = np.zeros(nav.types(spot, player))
    mine[x] = 1.0
    for code, nxt in strategy.betting.moves(spot):
        if isinstance(nxt, End):
            sign, constant = nxt.payoff()
            value0 = constant
            if nxt.folder < 0:  # the show-down: E[sign(class of player 0 - class of player 1)]
                others = np.arange(opponent.size)
                value0 += sign * float(opponent @ (np.sign(x - others) if player == 0 else np.sign(others - x)))
        else:
            me = mine @ classes.transitions[code - DRAW] if code >= DRAW else mine
            size = nav.entries(nxt)
            value0 = expected_value(_subtree(strategy, nxt), strategy.steps[at: at + size] / 255.0,
                                    (me, opponent) if player == 0 else (opponent, me))
            at += size
        out.append((value0 if player == 0 else -value0) + spot.paid[player])
    return out
