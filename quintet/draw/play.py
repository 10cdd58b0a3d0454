"""``quintet poker``: five-card draw poker at the terminal, against bots, or bots alone.

A person sits in seat 0 ("you") against ``--players - 1`` bots; on each turn the program
shows the cards, the pot, the stake and the legal moves and reads one command line:
``fold`` (``pass``, ``пас``), ``call``, ``raise N``, ``demand [N]``, ``exchange CARDS``
(cards by name, ``7c Kd``, or by position 1–5), ``stand``, ``hint`` (the advisor's exchange and
the chance of the best hand at the show-down), ``stacks``, ``stats``, ``help`` (``?``, ``h``),
``rules``, ``quit`` (``q``).  The
terminal layer is ``quintet-play``'s (``quintet.terminal``): colour and ♣ ♦ ♥ ♠ in a terminal
(``--plain`` or ``NO_COLOR`` turn them off), line editing and a history of accepted commands,
plain text with each command echoed after its prompt when piped.  A bad line gets one line of
explanation and the prompt again (an empty line: just the prompt again); Ctrl-C at the prompt
clears the line; ``quit``, Ctrl-D or the end of input ends the match with the standings.
Messages are English; ``пас`` is accepted as a command too.

``--bots-only`` plays ``--hands`` hands unattended and prints a summary; ``--history FILE``
appends one JSON line per hand (``State.history`` plus the hand number and names) — at the
terminal by default ``poker-hands.jsonl`` in the user data directory, where the statistics
(``quintet.draw.stats``; the ``stats`` command, ``--stats``) come from.  A match is dealt from
``--seed`` (default: a random seed, printed); in a terminal, a match that ends because a
player is out of chips offers another.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from math import comb
from pathlib import Path
from typing import Any, TextIO

from rich.console import Group, RenderableType
from rich.text import Text

from ..cards import order_cards, parse_cards
from ..cliutil import (
    TIEBREAK_HELP,
    UsageError,
    int_at_least,
    integer,
    kept_file,
    number,
    user_cache_dir,
    user_data_dir,
)
from ..evaluator import describe
from ..rules import RULE_SETS, TIEBREAKS, Category, Rules
from ..seeds import SEED_MAX, check_seed, fresh_seed
from ..terminal import SHARED_HELP, Terminal, command_word, grid, unknown_command
from ..text import plural, quote, signed
from .advisor_bot import AdvisorBot
from .bots import BOT_KINDS, make_bot
from .cfr.strategy import Strategy
from .game import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    Action,
    ActionKind,
    AntePosting,
    Call,
    Demand,
    Exchange,
    Fold,
    FoldOut,
    IllegalActionError,
    Phase,
    Raise,
    Record,
    ShowDown,
    State,
    Terms,
)
from .stats import HistoryError, PokerStats, poker_stats, read_history
from .table import Agent, Table

__all__ = ["add_command", "run"]

DEFAULT_RULES = "draw36-joker-11"
POKER_RULE_SETS = sorted(name for name, rules in RULE_SETS.items() if rules.is_variant)
COMMAND_HELP = (
    ("fold, pass", "leave the hand"),
    ("call", "stake the current stake (when paying to see: the demanded stake)"),
    ("raise N", "stake N chips, more than the current stake, at most the limit"),
    ("demand [N]", "after the exchange: stake N (default the current stake) and demand the show-down (in the "
                   "first circle, at the current stake, until somebody raises, and in the last circle, unless the "
                   "table plays --demand-any-turn)"),
    ("exchange CARDS", "discard these cards (names like 7c Kd, or positions 1-5) and draw as many"),
    ("stand", "exchange nothing (keep all five cards)"),
    ("hint", "the advisor's exchange and your chance of the best hand at the show-down; heads-up, the "
             "CFR strategy's moves, each one's worth in chips and why"),
    ("stacks", "everybody's chips"),
    ("stats", "your statistics over the hands recorded (this match and earlier ones)"),
    *SHARED_HELP,
)
"""The person's commands as (how it is typed, what it does): the rows of ``help``."""
WORDS = ("fold", "pass", "call", "raise", "demand", "exchange", "stand", "hint", "stacks", "stats", "help", "rules",
         "quit")


def help_text() -> RenderableType:
    table, shown = grid("!", "")
    for usage, what in COMMAND_HELP:
        table.add_row(usage, what)
    return Group(Text("Commands (one per line):", style="bold"), shown)


def rules_text(rules: Rules, terms: Terms) -> RenderableType:
    """The rules of five-card draw as this table plays them, in a few lines."""
    fee = f"{terms.exchange_fee} a card" if terms.exchange_fee else "free"
    circles = f"{plural(terms.circles, 'circle')} of betting"
    betting = f"{circles} before the exchange and after it" if terms.betting_before_exchange \
        else f"the exchange at once, then {circles}"
    demand = demand_when(terms)
    table, shown = grid("!", "")
    table.add_row("Ante", f"everybody puts {terms.ante} in the pot and gets five cards.")
    table.add_row("Betting", f"{betting}. On a turn: fold, or stake from the current stake (at first "
                             f"{terms.stake}) up to {terms.limit}; call stakes the current stake again, raise N "
                             "makes N the stake. No credit: who cannot pay can only fold.")
    table.add_row("Exchange", f"once, each player still in discards any cards and draws as many ({fee}).")
    table.add_row("Show-down", "if nobody raises in the first circle after the exchange, the cards are shown; "
                               f"a demand of N ({demand}) ends the betting: each other player pays N to see or "
                               "folds. The best hand takes the pot; equal best hands split it.")
    table.add_row("Hands", "strongest first: " + ", ".join(rules.category_label(c) for c in reversed(rules.categories))
                  + ".")
    for name, what in _category_notes(rules):
        table.add_row("", f"{name}: {what}")
    if rules.deck.jokers:
        card = f"the {rules.deck.joker_alias} is the joker: it stands" if rules.deck.joker_alias else (
            "the jokers are wild: each stands" if rules.deck.jokers > 1 else "the joker is wild: it stands")
        table.add_row("Joker", f"{card} for any card you like, even one you hold (four aces and a joker are five "
                               "aces; a joker with four hearts makes a flush).")
    return Group(Text(f"Five-card draw poker: {_deck_text(rules)}:", style="bold"), shown)


def demand_when(terms: Terms) -> str:
    """When a show-down demand is allowed under these terms, in a phrase."""
    if terms.demand_any_turn or terms.circles == 1:
        return "on any turn after the exchange"
    first = "" if terms.raising_demand_ends else " at the current stake"
    return f"in circle 1 after the exchange{first} until somebody raises, and in circle {terms.circles}"


def _category_notes(rules: Rules) -> list[tuple[str, str]]:
    """What the categories a newcomer may not know are, in this table (and where a colour and a
    flush stand against a full house)."""
    notes = []
    cats = list(rules.categories)
    if Category.COLOUR in cats:
        above = [rules.category_label(c) for c in cats[:cats.index(Category.COLOUR)]][-1:]
        notes.append(("colour", "five cards of one colour, red (♦ ♥) or black (♣ ♠), not all of one suit"
                      + (f"; it ranks above {above[0]}" if above else "")))
    if Category.STRAIGHT_COLOUR in cats:
        notes.append(("straight colour", "a straight in one colour, not all of one suit"))
    if Category.FLUSH in cats and Category.FULL_HOUSE in cats and cats.index(Category.FLUSH) > cats.index(
            Category.FULL_HOUSE):
        notes.append(("flush", "five cards of one suit; here it beats a full house"))
    if Category.FIVE_OF_A_KIND in cats:
        notes.append(("five of a kind", "four of a rank and a joker"))
    return notes


def _deck_text(rules: Rules) -> str:
    """'draw36-joker-11 (36 cards, the six of spades (6s) plays as the joker)'."""
    deck = rules.deck
    joker = f", {deck.joker_note}" if deck.joker_alias else (
        f", {plural(deck.jokers, 'joker')}" if deck.jokers else "")
    return f"{rules.name} ({deck.size} cards{joker})"


class EndOfMatch(Exception):
    """The person quit or the input ended."""


def add_command(sub: Any) -> None:
    """Register ``quintet poker`` on the ``quintet`` command's subparsers."""
    p = sub.add_parser(
        "poker",
        help="play five-card draw poker against bots (or watch bots play)",
        description="Five-card draw poker as the rule text plays it (docs/draw-poker.md). "
        "You sit in seat 0 against bots; --bots-only plays unattended. The bots play rules of thumb (advisor, "
        "random), except cfr heads-up: an equilibrium of a card abstraction computed by CFR+, not of the real "
        "game; at a table of three or more a cfr bot plays as the advisor.",
    )
    table = p.add_argument_group("the table")
    table.add_argument("--players", type=int_at_least(2), default=4, help="players at the table, 2-6 (default 4)")
    table.add_argument("--bots", default="advisor", metavar="KIND[,KIND…]",
                       help=f"the bots: {', '.join(BOT_KINDS)} (cfr: heads-up only, an equilibrium of a card "
                       "abstraction; with three or more players it plays as the advisor), one for all or one per "
                       "bot seat (default advisor)")
    table.add_argument("--bots-only", action="store_true", help="no person: bots in every seat")
    table.add_argument("--hands", type=int_at_least(1), default=None,
                       help="hands to play (default: --bots-only 100; at the terminal until the match ends)")
    table.add_argument("--chips", type=int_at_least(1), default=100, help="each player's chips (default 100)")
    table.add_argument("--seed", type=integer, default=None,
                       help=f"seed of the deals and the bots, 0..{SEED_MAX} (default: a random seed, printed)")
    table.add_argument("--bluff", type=number, default=0.1, help="advisor bots' bluff rate per hand (default 0.1)")
    table.add_argument("--history", metavar="FILE",
                       help="append one JSON line per hand to FILE (default at the terminal: poker-hands.jsonl in the "
                            "user data directory, where your statistics come from)")
    table.add_argument("--no-history", action="store_true", help="record no hand")
    table.add_argument("--stats", action="store_true",
                       help="print your statistics over the hands recorded (the --history file) and exit")
    table.add_argument("--plain", action="store_true",
                       help="plain text and plain line input even in a terminal (NO_COLOR: no colours)")
    table.add_argument("--unicode", action="store_true", help="suits as ♣ ♦ ♥ ♠ in plain text too")
    terms = p.add_argument_group("terms (agreed before play)")
    terms.add_argument("--ante", type=int_at_least(1), default=Terms.ante, help="ante per hand (default 1)")
    terms.add_argument("--stake", type=int_at_least(1), default=Terms.stake,
                       help="the agreed stake: the least stake of a turn at the start of a hand (default 1)")
    terms.add_argument("--limit", type=int_at_least(1), default=Terms.limit,
                       help="the most a player may stake on one turn (default 5)")
    terms.add_argument("--exchange-fee", type=int_at_least(0), default=Terms.exchange_fee,
                       help="chips paid into the pot per card exchanged (default 0)")
    terms.add_argument("--circles", type=int_at_least(1), default=Terms.circles,
                       help="circles of betting before and after the exchange (default 3)")
    terms.add_argument("--betting-before-exchange", action=argparse.BooleanOptionalAction,
                       default=Terms.betting_before_exchange,
                       help="bet before the exchange as well as after it (default: yes)")
    terms.add_argument("--demand-any-turn", action="store_true", default=Terms.demand_any_turn,
                       help="allow a show-down demand on any turn after the exchange (default: in the first "
                       "circle until somebody raises, and in the last circle)")
    terms.add_argument("--raising-demand-ends", action="store_true", default=Terms.raising_demand_ends,
                       help="a demand above the current stake in the first circle after the exchange ends the "
                       "betting at once (default: it is a raise, which waits for the last circle; a demand in the "
                       "first circle stakes the current stake)")
    rules = p.add_argument_group("hand values")
    rules.add_argument("--rules", default=DEFAULT_RULES, choices=POKER_RULE_SETS,
                       help=f"a draw rule set (default {DEFAULT_RULES}: 36 cards, the 6s is the joker, 11 categories)")
    rules.add_argument("--ace-low-straight", action="store_true", default=None,
                       help="the ace also plays below the lowest rank in a straight")
    rules.add_argument("--flush-over-full-house", action="store_true", default=None,
                       help="flush ranks above full house")
    rules.add_argument("--tiebreak", choices=TIEBREAKS, default=None, help=TIEBREAK_HELP)
    rules.add_argument("--swap-four-straight-flush", action="store_true", default=None,
                       help="four of a kind and straight flush trade places in the table")
    rules.add_argument("--joker-card", default=None, metavar="CARD",
                       help="with draw36-joker…: the lowest card that plays as the joker, 6c 6d 6h or 6s (default 6s)")
    p.set_defaults(tie_points=None)


# ---------------------------------------------------------------------------- output --------


class Screen:
    """How the session prints, through the shared terminal (``quintet.terminal``): cards and names."""

    def __init__(self, rules: Rules, names: Sequence[str], term: Terminal) -> None:
        self.rules = rules
        self.names = list(names)
        self.term = term

    def say(self, text: RenderableType = "") -> None:
        self.term.show(text)

    def cards(self, cards: int | Sequence[int], order: str = "group") -> Text:
        return self.term.cards(cards if isinstance(cards, int) else list(cards), self.rules.deck, order)

    def card(self, card: int) -> Text:
        return self.term.card(card, self.rules.deck)

    def stacks(self, stacks: Sequence[int]) -> str:
        return " · ".join(f"{name} {chips}" for name, chips in zip(self.names, stacks, strict=True))

    def hand(self, mask: int) -> list[int]:
        """The cards of a hand in the order it is shown (largest rank group first): positions 1-5."""
        return order_cards(mask, self.rules.deck, "group")

    def verb(self, seat: int, verb: str) -> str:
        """The verb (given as for 'bot2': 'calls') agreeing with the seat's name: 'call' for 'you'."""
        return verb[:-1] if self.names[seat] == "you" else verb

    def who(self, seat: int, verb: str) -> str:
        """'bot2 calls', 'you call'."""
        return f"{self.names[seat]} {self.verb(seat, verb)}"

    def record(self, state: State, record: Record, *, reveal: int | None) -> None:
        """One line (a few for a show-down) for what just happened; ``reveal``: the person's seat."""
        pot = "" if state.over else f" · pot {state.pot}"
        if isinstance(record, Fold):
            self.say(f"{self.who(record.seat, 'folds')}{pot}")
        elif isinstance(record, Call):
            if record.phase is Phase.SEEING:
                self.say(f"{self.who(record.seat, 'pays')} {record.amount} to see{pot}")
            else:
                self.say(f"{self.who(record.seat, 'calls')} {record.amount}{pot}")
        elif isinstance(record, Raise):
            self.say(f"{self.who(record.seat, 'raises')} to {record.amount}{pot}")
        elif isinstance(record, Demand):
            self.say(f"{self.who(record.seat, 'stakes')} {record.amount} and {self.verb(record.seat, 'demands')} "
                     f"the show-down{pot}")
        elif isinstance(record, Exchange):
            self._exchange(state, record, reveal)
        elif isinstance(record, ShowDown):
            won = dict(zip(record.winners, record.amounts, strict=True))
            table, shown = grid("!", "!", "", "!")
            for seat, mask, _ in record.hands:
                tail = f"{self.verb(seat, 'wins')} {won[seat]}" if seat in won else ""
                table.add_row(self.names[seat], self.cards(mask), describe(mask, self.rules),
                              Text(tail, style="bold green" if seat == reveal else "bold"))
            self.say(Group("Show-down:", shown))
        elif isinstance(record, FoldOut):
            self.say(f"{self.who(record.seat, 'takes')} the pot of {record.amount} (everyone else folded)")

    def _exchange(self, state: State, record: Exchange, reveal: int | None) -> None:
        n = len(record.discarded)
        if n == 0:
            what = Text(self.who(record.seat, "stands") + " pat")
        else:
            what = Text(f"{self.who(record.seat, 'exchanges')} {plural(n, 'card')}")
            if record.fee:
                what.append(f", paying {record.fee}")
        if record.seat == reveal and n:
            what.append(": ").append_text(self.cards(record.discarded, "given")).append(" -> ")
            what.append_text(self.cards(record.drawn, "given"))
        if record.reshuffled:
            what.append(" (the stock ran out: the muck was shuffled into a new stock)")
        self.say(what)
        if record.seat == reveal and n:
            mask = state.hands[reveal]
            self.say(Text.assemble("Your cards now: ", self.cards(mask), f" ({describe(mask, self.rules)})"))


# ---------------------------------------------------------------------------- the person ----


class TerminalPlayer:
    """The person in a seat: reads one command per line until it is a legal action.

    ``read(prompt)`` gives the next line (None at the end of input; default: the terminal's),
    and each accepted command is remembered in the terminal's history."""

    def __init__(self, screen: Screen, rules: Rules, seed: int, terms: Terms,
                 read: Callable[[str], str | None] | None = None,
                 stats: Callable[[], RenderableType] | None = None, strategy: Strategy | None = None) -> None:
        self.screen = screen
        self.rules = rules
        self.terms = terms
        self.read = read or screen.term.read
        self.seed = seed
        self.stats = stats
        self.strategy = strategy  # heads-up: the CFR strategy, for hint
        self._advisor: AdvisorBot | None = None

    def act(self, state: State) -> Action:
        self.show_turn(state)
        while True:
            line = self.read("> ")
            if line is None:
                raise EndOfMatch
            try:
                action = self.parse(line, state)
                if action is not None:
                    state.verify(action)
                self.screen.term.remember(line)
                if action is not None:
                    return action
            except EndOfMatch:
                raise
            except ValueError as exc:
                self.screen.term.error(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)

    def show_turn(self, state: State) -> None:
        seat = state.actor
        assert seat is not None
        say = self.screen.say
        stack = state.stacks[seat]
        if state.phase is Phase.EXCHANGE:
            hand = self.screen.hand(state.hands[seat])
            numbered = Text("  ").join(Text(f"{i}:").append_text(self.screen.card(c)) for i, c in enumerate(hand, 1))
            fee = state.terms.exchange_fee
            cost = f"{fee} a card" if fee else "free"
            say(Text(f"Exchange · pot {state.pot} · your stack {stack} · your cards ").append_text(numbered))
            say(f"Your move: exchange CARDS (up to {state.max_exchange()}, {cost}) | stand | fold | hint")
            return
        if state.phase is Phase.SEEING:
            assert state.demand is not None
            say(f"Pay {state.call_amount} to see · pot {state.pot} · your stack {stack}")
        else:
            when = "before" if state.phase is Phase.BETTING_BEFORE else "after"
            say(Text(f"Circle {state.circle} of {state.terms.circles}, {when} the exchange · pot {state.pot} · "
                     f"stake {state.current_stake} · your stack {stack} · your cards ")
                .append_text(self.screen.cards(state.hands[seat])))
        moves = ["fold"]
        if stack >= state.call_amount:
            moves.append(f"call {state.call_amount}")
            left = stack - state.call_amount
            if state.phase is not Phase.SEEING and left < state.current_stake:
                say(Text(f"Careful: a call leaves you {plural(left, 'chip')}, less than the stake of "
                         f"{state.current_stake}: no credit, so if the betting goes on you can only fold.",
                         style="yellow"))
        else:
            moves.append(f"(no credit: you cannot pay {state.call_amount})")
        raises, demands = state.raise_range(), state.demand_range()
        if raises:
            moves.append(f"raise {_span(raises)}")
        if demands:
            moves.append(f"demand {_span(demands)}")
        elif state.phase is Phase.BETTING_AFTER and state.demand_refusal() is not None:
            moves.append(f"(a raise in circle 1: demand in circle {state.terms.circles})")
        say("Your move: " + " | ".join(moves) + " | hint")

    def parse(self, line: str, state: State) -> Action | None:
        """An action from one command line, or None after an empty line or an informational command
        (hint, help, stacks)."""
        words = line.strip().split()
        if not words:
            return None
        verb, rest = command_word(words[0]), words[1:]
        if verb in ("quit", "help", "rules", "stacks", "hint", "stats"):
            _no_arguments(verb, rest)
        if verb == "quit":
            raise EndOfMatch
        if verb == "help":
            self.screen.say(help_text())
            return None
        if verb == "rules":
            self.screen.say(rules_text(self.rules, self.terms))
            return None
        if verb == "hint":
            self.hint(state)
            return None
        if verb == "stacks":
            self.screen.say("Stacks: " + self.screen.stacks(state.stacks) + f" · pot {state.pot}")
            return None
        if verb == "stats":
            self.screen.say(self.stats() if self.stats is not None else Text("No hands are recorded (--no-history)."))
            return None
        if verb in ("fold", "pass", "пас", "f"):
            _no_arguments(verb, rest)
            return Action(ActionKind.FOLD)
        if verb in ("call", "c", "see"):
            _no_arguments(verb, rest)
            return Action(ActionKind.CALL)
        if verb in ("raise", "r", "bet"):
            if len(rest) != 1:
                raise ValueError("raise needs one amount, e.g. raise 3")
            return Action(ActionKind.RAISE, _chips(rest[0]))
        if verb in ("demand", "d", "show"):
            if len(rest) > 1:
                raise ValueError("demand takes at most one amount, e.g. demand 5")
            return Action(ActionKind.DEMAND, _chips(rest[0]) if rest else None)
        if verb in ("stand", "keep"):
            _no_arguments(verb, rest)
            return Action(ActionKind.EXCHANGE)
        if verb in ("exchange", "x", "discard", "draw"):
            return Action(ActionKind.EXCHANGE, cards=self._discards(rest, state))
        raise ValueError(unknown_command(words[0], WORDS))

    def _discards(self, words: list[str], state: State) -> tuple[int, ...]:
        if state.phase is not Phase.EXCHANGE or state.actor is None:
            raise IllegalActionError(f"no exchange now: it is the {state.phase}")
        if not words:
            raise ValueError("exchange needs the cards to discard (e.g. exchange 7c Kd, or exchange 4 5); "
                             "to keep all five, type stand")
        hand = self.screen.hand(state.hands[state.actor])
        positions = [w for w in words if w.isdigit()]
        if positions and len(positions) != len(words):
            raise ValueError("name the cards either all by position (1-5) or all by card (7c Kd)")
        if positions:
            bad = [p for p in positions if not 1 <= int(p) <= 5]
            if bad:
                raise ValueError(f"position {bad[0]} is not 1-5")
            if len(set(positions)) != len(positions):
                raise ValueError("a position is given twice")
            return tuple(hand[int(p) - 1] for p in positions)
        cards = parse_cards(" ".join(words), self.rules.deck, what="cards to exchange")
        missing = [c for c in cards if c not in hand]
        if missing:
            raise IllegalActionError(f"you do not hold {self.screen.card(missing[0]).plain}")
        return tuple(cards)

    def hint(self, state: State) -> None:
        """The advisor's exchange (exact: expected percentile of the final hand) and the current equity."""
        seat = state.actor
        assert seat is not None
        if self._advisor is None:
            self._advisor = AdvisorBot(self.rules, self.seed, bluff=0.0)
        advisor = self._advisor
        say = self.screen.say
        mask = state.hands[seat]
        say(Text.assemble("Your hand: ", self.screen.cards(mask), f" — {describe(mask, self.rules)}, percentile "
                          f"{100 * advisor.policy.percentile(mask):.1f}% among all {comb(self.rules.deck.size, 5):,} "
                          "hands"))
        if state.drawn[seat] is None:
            hand = self.screen.hand(mask)
            expected = advisor.policy.expected(hand)
            most = 5 if not state.terms.exchange_fee else min(5, state.stacks[seat] // state.terms.exchange_fee)
            table, shown = grid("", ">")
            for keep in advisor.policy.ranked(hand, max_draw=most)[:3]:
                discards = [c for i, c in enumerate(hand) if not keep >> i & 1]
                kept = [c for c in hand if c not in discards]
                what = Text("stand pat") if not discards else Text("exchange ").append_text(
                    self.screen.cards(discards, "given"))
                if discards and kept:
                    what.append(" (keep ").append_text(self.screen.cards(kept, "given")).append(")")
                table.add_row(what, f"{100 * float(expected[keep]):.2f}%")
            say(Group("Advisor's exchange (exact expected percentile of the final hand):", shown))
        opponents = len(state.in_hand) - 1
        how = "if everybody exchanges as it would" if state.drawn[seat] is None else "from what each drew"
        say(f"Chance of the best hand at the show-down: {100 * advisor.equity(state, seat):.1f}% against the "
            f"{plural(opponents, 'player')} still in (an even share: {100 / (opponents + 1):.1f}%) — the advisor "
            f"bot's estimate {how}, all staying to the end; ties count half.")
        if self.strategy is not None and sum(state.dealt_in) == 2:
            self.strategy_hint(state, seat)

    def strategy_hint(self, state: State, seat: int) -> None:
        """The heads-up strategy here: its action probabilities for your class, each action's worth in chips counted
        from now, what each exchange draws to, and why, in a line (``quintet.draw.cfr.bot.spot_advice``)."""
        from .cfr.bot import likeliest, spot_advice

        assert self.strategy is not None
        say = self.screen.say
        say("The strategy: computing…")
        advice = spot_advice(self.strategy, state, seat)
        shown = sorted(advice.actions, key=lambda a: (-(a.value or 0.0), -a.probability))
        table, rows = grid("", ">", ">")
        for a in shown:
            table.add_row(a.text, f"{100 * a.probability:.0f}%", "–" if a.value is None else f"{signed(a.value)} chips")
        say(Group(f"The heads-up strategy ({advice.class_name}) — each move, its probability, and its worth counted "
                  "from now (chips already in the pot not counted, so folding is 0) against his range, both then "
                  "playing the strategy:", rows))
        say(f"Your equity against his range: {100 * advice.equity:.0f}% — his hand as the strategy's play so far "
            "implies (the advisor's chance above takes any hand he would exchange to).")
        if advice.exchanges:
            table, rows = grid("", ">", "")
            for option in advice.exchanges:
                kept = Text("stand pat") if option.drawn == 0 else Text(f"draw {option.drawn}")
                if option.keep and option.drawn:
                    kept.append(" (keep ").append_text(self.screen.cards(list(option.keep), "group")).append(")")
                chances = ", ".join(f"{name} {100 * p:.0f}%" for name, p in likeliest(option.at_least))
                table.add_row(kept, f"mean {100 * option.expected:.1f}%", chances)
            say(Group("Each exchange (the final hand's exact mean percentile, its likeliest categories):", rows))
        say(f"Why: {advice.why}")


def _span(values: range) -> str:
    return str(values[0]) if len(values) == 1 else f"{values[0]}-{values[-1]}"


def _chips(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"not a whole number of chips: {quote(text)}") from None


def _no_arguments(verb: str, rest: list[str]) -> None:
    if rest:
        raise ValueError(f"{verb} takes no argument, got {quote(' '.join(rest))}")


# ---------------------------------------------------------------------------- the session ---


def _terms(args: argparse.Namespace) -> Terms:
    return Terms(ante=args.ante, stake=args.stake, limit=args.limit, exchange_fee=args.exchange_fee,
                 circles=args.circles, betting_before_exchange=args.betting_before_exchange,
                 demand_any_turn=args.demand_any_turn, raising_demand_ends=args.raising_demand_ends)


def _bot_kinds(text: str, count: int) -> list[str]:
    kinds = [k.strip().lower() for k in text.split(",") if k.strip()]
    bad = [k for k in kinds if k not in BOT_KINDS]
    if bad or not kinds:
        raise UsageError(f"unknown bot {quote(bad[0] if bad else text)} (use {', '.join(BOT_KINDS)})")
    if len(kinds) == 1:
        return kinds * count
    if len(kinds) != count:
        raise UsageError(f"--bots names {len(kinds)} bots but there are {count} bot seats")
    return kinds


def default_history() -> Path:
    """Where the person's hands are recorded unless ``--history FILE`` or ``--no-history``:
    ``poker-hands.jsonl`` in the user data directory."""
    return user_data_dir() / "poker-hands.jsonl"


def _history_path(args: argparse.Namespace, person: bool) -> Path | None:
    if args.history and args.no_history:
        raise UsageError("--history and --no-history cannot be combined")
    if args.no_history or args.stats or (not person and not args.history):
        return None  # --stats reads the history, writes nothing
    return kept_file(args.history, default_history().name, "--history")


_WAYS = {"up": "rising", "down": "falling"}


def stats_text(stats: PokerStats, path: Path | None) -> RenderableType:
    """The person's statistics over the hands recorded (``quintet.draw.stats``)."""
    where = f" ({path})" if path is not None else ""
    if not stats.hands:
        return Text(f"No hands recorded yet{where}.")
    t = stats.chips
    assert t.mean is not None
    trend = ""
    if t.recent is not None and t.earlier is not None:
        trend = (f"; the last {t.window} hands {signed(t.recent)} a hand, the {plural(t.count - t.window, 'hand')} "
                 f"before {signed(t.earlier)} ({_WAYS.get(t.direction or '', 'steady')})")
    table, shown = grid("!", "hands>", "chips>")
    for o in stats.outcomes:
        table.add_row(o.what, str(o.hands), f"{o.chips:+d}")
    return Group(Text(f"Your hands{where}: {plural(stats.hands, 'hand')} — won {stats.won}, split {stats.split}; "
                      f"chips {stats.net:+d} ({signed(t.mean)} a hand{trend}).", style="bold"),
                 Text("How they ended (where the chips go):"), shown)


def _print_stats(path: Path, term: Terminal) -> int:
    """``--stats``: the statistics of the history file, then exit."""
    try:
        lines = read_history(path) if path.is_file() or path != default_history() else []
    except HistoryError as exc:
        raise UsageError(str(exc)) from None
    term.show(stats_text(poker_stats(lines), path))
    return 0


def run(args: argparse.Namespace, rules: Rules, *, term: Terminal | None = None) -> int:
    """``quintet poker``: validate the options, seat the players, play (on ``term``, by default
    the terminal of the standard streams)."""
    if not MIN_PLAYERS <= args.players <= MAX_PLAYERS:
        raise UsageError(f"draw poker is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got {args.players}")
    if not 0.0 <= args.bluff <= 1.0:
        raise UsageError(f"--bluff is a probability between 0 and 1, got {args.bluff}")
    terms = _terms(args)
    person = not args.bots_only
    kinds = _bot_kinds(args.bots, args.players - person)
    names = (["you"] if person else []) + [f"bot{i}" for i in range(1, len(kinds) + 1)]
    seed = fresh_seed() if args.seed is None else check_seed(args.seed, "--seed")
    path = _history_path(args, person)
    term = term or Terminal.for_streams(plain=args.plain, unicode=args.unicode,
                                        history=user_cache_dir() / "poker-history", words=WORDS)
    if args.stats:
        return _print_stats(Path(args.history) if args.history else default_history(), term)
    strategy = _cfr_strategy(rules, terms, args.players, Screen(rules, names, term)) if "cfr" in kinds else \
        _stored_strategy(rules, terms) if person and args.players == 2 else None
    with open(path, "a", encoding="utf-8") if path else nullcontext() as history:
        while True:
            table = Table(rules, terms, names, args.chips, seed=seed)
            screen = Screen(rules, names, term)

            def stats(path: Path | None = path) -> RenderableType:
                try:
                    return stats_text(poker_stats(read_history(path)), path) if path else Text("No hands recorded.")
                except HistoryError as exc:
                    return Text(f"error: {exc}", style="bold red")

            agents: list[Agent] = [TerminalPlayer(screen, rules, seed, terms, stats=stats, strategy=strategy)
                                   ] if person else []
            agents += [make_bot(kind, rules, seed=seed * 1000 + i + 1, bluff=args.bluff, terms=terms,
                                strategy=strategy)
                       for i, kind in enumerate(kinds)]
            if not person:
                return _unattended(table, agents, screen, kinds, args, history, seed)
            broke = _interactive(table, agents, screen, kinds, args, history, seed)
            if path is not None:
                screen.say(Text(f"Your record: {_stats_line(poker_stats(read_history(path)))} ('stats' at the "
                                "table, or quintet poker --stats, for more.)", style="dim"))
            seed = seed + 1 if seed < SEED_MAX else 0
            if not (broke and term.line_editing and term.ask(f"Play again: a new match, seed {seed}?")):
                return 0


def _stats_line(stats: PokerStats) -> str:
    return (f"{plural(stats.hands, 'hand')} recorded, chips {stats.net:+d}"
            + (f" ({signed(stats.chips.mean)} a hand)" if stats.chips.mean is not None else "") + ".")


def _cfr_strategy(rules: Rules, terms: Terms, players: int, screen: Screen) -> Strategy | None:
    """The strategy of the cfr bots: heads-up, found or trained now (a progress bar on stderr); at a bigger
    table only if stored already (the bots play as the advisor until a hand is dealt to two)."""
    from tqdm import tqdm

    from .cfr import strategy as solved

    found = _stored_strategy(rules, terms)
    if found is not None or players > 2:
        return found
    try:
        solved.check_size(terms)
        screen.say(f"Solving the heads-up strategy of these rules and terms, once (stored in {solved.store_dir()}) …")
        with tqdm(total=solved.ITERATIONS, desc="CFR+", unit="it", file=sys.stderr, leave=False) as bar:
            return solved.strategy_for(rules, terms, progress=lambda done, total: bar.update(1))
    except solved.StrategyError as exc:
        raise UsageError(f"--bots cfr: {exc}") from None


def _stored_strategy(rules: Rules, terms: Terms) -> Strategy | None:
    """The heads-up strategy if shipped or stored (for hint), without training one."""
    from .cfr.strategy import StrategyError, strategy_for

    try:
        return strategy_for(rules, terms, build=False)
    except StrategyError:
        return None


def _describe_table(table: Table, kinds: list[str], screen: Screen, chips: int, seed: int) -> None:
    rules, terms = table.rules, table.terms
    bots = ", ".join(f"{n} ({k})" for n, k in zip(table.names[-len(kinds):], kinds, strict=True))
    screen.say(f"Five-card draw poker: {_deck_text(rules)}; {bots}; {chips} chips each; seed {seed}.")
    fee = f"{terms.exchange_fee} a card" if terms.exchange_fee else "free"
    when = "before and after the exchange" if terms.betting_before_exchange else "after the exchange"
    demand = demand_when(terms)
    screen.say(f"Terms: ante {terms.ante}; stakes {terms.stake}-{terms.limit} a turn, never below the previous stake; "
               f"{plural(terms.circles, 'circle')} {when}; exchange {fee}; show-down demands {demand}; no credit.")
    if "cfr" in kinds:
        screen.say("cfr: heads-up, an equilibrium of a card abstraction computed by CFR+ (docs/draw-poker.md, "
                   "the CFR strategy)" + ("." if len(table.names) == 2 else "; in a hand dealt to three or more it "
                                          "plays as the advisor, by rules of thumb."))


def _write(history: TextIO | None, table: Table, state: State, kinds: Sequence[str]) -> None:
    if history is None:
        return
    line = table.history_line(state)
    offset = len(table.names) - len(kinds)
    for seat in line["seats"]:
        seat["player"] = "person" if seat["seat"] < offset else kinds[seat["seat"] - offset]
        if offset and seat["player"] != "person" and seat["folded"]:
            del seat["cards"]  # the table never showed a folded bot's hand to the person
    history.write(json.dumps(line, ensure_ascii=False) + "\n")
    history.flush()


def _interactive(table: Table, agents: list[Agent], screen: Screen, kinds: list[str], args: argparse.Namespace,
                 history: TextIO | None, seed: int) -> bool:
    """One match with the person in seat 0; True if it ended because a player ran out of chips
    (not by ``quit``, the end of input or ``--hands``)."""
    _describe_table(table, kinds, screen, args.chips, seed)
    screen.say("You are seat 0. Type help for the commands, rules for the rules.")
    started = list(table.stacks)
    broke = False
    try:
        while not table.over and (args.hands is None or table.hands_played < args.hands):
            if table.stacks[0] < table.terms.ante:
                screen.say("You are out of chips.")
                broke = True
                break
            hand_no = table.hands_played + 1
            dealer = table.names[table.next_dealer]
            screen.say()
            screen.say(Text(f"== Hand {hand_no} · dealer {dealer} · stacks: {screen.stacks(table.stacks)} ==",
                            style="bold"))

            def observe(state: State, record: Record) -> None:
                if not isinstance(record, AntePosting):
                    screen.record(state, record, reveal=0)
                elif state.phase is not Phase.ANTES:  # the last ante: the cards are dealt
                    mask = state.hands[0]
                    screen.say(Text.assemble(f"Antes in · pot {state.pot} · your cards ", screen.cards(mask),
                                             f" ({describe(mask, table.rules)})"))

            state = table.play_hand(agents, observe)
            _write(history, table, state, kinds)
            for seat, chips in enumerate(table.stacks):
                if state.dealt_in[seat] and chips < table.terms.ante:
                    who = "You have" if seat == 0 else f"{table.names[seat]} has"
                    screen.say(f"{who} too few chips for the ante and leave{'' if seat == 0 else 's'} the table.")
        broke = broke or table.over
    except (EndOfMatch, KeyboardInterrupt):  # quit, the end of input, or Ctrl-C away from the prompt
        screen.say()
        screen.say("Match ended by you (an unfinished hand does not count).")
    _summary(table, screen, started)
    return broke


def _unattended(table: Table, agents: list[Agent], screen: Screen, kinds: list[str], args: argparse.Namespace,
                history: TextIO | None, seed: int) -> int:
    hands = 100 if args.hands is None else args.hands
    _describe_table(table, kinds, screen, args.chips, seed)
    started = list(table.stacks)
    won: list[list[int]] = [[] for _ in table.names]  # each seat's chips won in each hand it was dealt
    clock = time.perf_counter()
    while not table.over and table.hands_played < hands:
        before = table.seated
        state = table.play_hand(agents)
        _write(history, table, state, kinds)
        for seat in before:
            won[seat].append(state.stacks[seat] - state.stacks_before[seat])
            if table.stacks[seat] < table.terms.ante:
                screen.say(f"hand {table.hands_played}: {table.names[seat]} has too few chips for the ante "
                           "and leaves the table")
    seconds = time.perf_counter() - clock
    rate = table.hands_played / seconds if seconds > 0 else float("inf")
    screen.say(f"{plural(table.hands_played, 'hand')} in {seconds:.2f} s ({rate:,.0f} hands/s).")
    _summary(table, screen, started, won)
    return 0


def _summary(table: Table, screen: Screen, started: list[int], won: list[list[int]] | None = None) -> None:
    """The standings; with ``won`` (each seat's chips won per hand), each seat's mean a hand with a 95%
    confidence interval (± 1.96 standard errors over the hands it played)."""
    hands = table.hands_played
    why = "fewer than two players can pay the ante" if table.over else f"{plural(hands, 'hand')} played"
    standings, shown = grid("!", ">", ">", ">", ">")
    for seat, name in enumerate(table.names):
        net = table.stacks[seat] - started[seat]
        per_hand = f"{signed(net / hands)} a hand" if hands else ""
        interval = ""
        if won is not None and len(won[seat]) >= 2:
            half = 1.96 * statistics.stdev(won[seat]) / len(won[seat]) ** 0.5
            mean = statistics.fmean(won[seat])
            per_hand = f"{signed(mean)} a hand"
            interval = f"95% [{signed(mean - half)}, {signed(mean + half)}]"
        standings.add_row(name, f"{table.stacks[seat]} chips", f"{net:+d}", per_hand, interval)
    screen.say(Group(Text(f"Match over: {why}.", style="bold"), shown))
