"""``quintet-play`` — play Quintet against the computer in the terminal, with hints.

    quintet-play                                   # one game against the equilibrium
    quintet-play --games 5 --opponent greedy --record games.jsonl
    quintet-play --opponent style:games.jsonl      # the computer exploits your recorded style
    printf 'hint\\nplay …\\n' | quintet-play --seed 7 --opponent uniform    # scripted

The game's rules live in ``solver.play.session`` (``GameSession``); this module reads commands and
draws the board: colours, Unicode suits, line editing and history (prompt_toolkit) when
stdin and stdout are a terminal, plain text otherwise (each command echoed after its
prompt, so a transcript reads as a dialogue).  Bad input gets one line and the prompt again;
Ctrl-C stops a running solve (the best found so far is used), at the prompt it clears the
line; end of input ends the match — finished games are recorded as they finish.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

from prompt_toolkit import PromptSession
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.completion import WordCompleter
from prompt_toolkit.history import FileHistory, InMemoryHistory
from rich.console import Console
from rich.text import Text

from quintet.cards import SUIT_SYMBOLS, cards_of, format_card, format_cards, order_cards
from quintet.cliutil import (
    OneLineParser,
    UsageError,
    add_rules_arguments,
    integer,
    positive_float,
    positive_int,
    rules_from_args,
    run_cli,
)
from quintet.evaluator import describe
from quintet.game import Deal
from quintet.rules import Rules
from quintet.seeds import SEED_MAX, fresh_seed, seed_series
from quintet.text import quote
from solver.advisor.advice import Grade, Solution
from solver.advisor.equilibrium import EquilibriumResult, solve_equilibrium
from solver.apps.interrupt import run_interruptible
from solver.games.double_oracle import IterationRecord
from solver.play.computer import Computer, ComputerSpec, EquilibriumProvider
from solver.play.session import (
    COMMANDS,
    Command,
    GameSession,
    Odds,
    Phase,
    PlayError,
    Reveal,
    parse_command,
)
from solver.problem.opponent_spec import OPPONENT_HELP
from solver.problem.opponents import Uniform
from solver.storage.records import GameRecord, append_record
from solver.storage.store import SolutionStore, user_cache_dir

__all__ = ["Terminal", "build_parser", "main"]

T = TypeVar("T")

PROG = "quintet-play"
DEFAULT_EPSILON = 0.05
DEFAULT_TIME_LIMIT = 120.0
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_STYLES = ("bold green", "bold blue", "bold red", "bold")  # a four-colour deck: ♣ ♦ ♥ ♠


# ----------------------------------------------------------------------------- the terminal


class Terminal:
    """Where the game is shown and commands are read.

    ``colour``: rich styles on stdout; ``unicode``: suits as ♣ ♦ ♥ ♠; ``line_editing``:
    prompt_toolkit (history, completion); otherwise lines are read from stdin and echoed
    after the prompt.
    """

    def __init__(self, *, colour: bool, unicode: bool, line_editing: bool,
                 history: Path | None = None) -> None:
        self.colour = colour
        self.unicode = unicode
        self.line_editing = line_editing
        self.console = Console(highlight=False, soft_wrap=True, force_terminal=colour,
                               no_color=not colour, emoji=False, markup=False)
        self._prompt_session: PromptSession[str] | None = None
        if line_editing:
            store: FileHistory | InMemoryHistory = InMemoryHistory()
            if history is not None:
                try:
                    history.parent.mkdir(parents=True, exist_ok=True)
                    history.touch()
                    store = FileHistory(str(history))
                except OSError:
                    pass  # a read-only home: history for this session only
            self._prompt_session = PromptSession(history=store, auto_suggest=AutoSuggestFromHistory(),
                                                 completer=WordCompleter(list(COMMANDS)))

    @classmethod
    def for_streams(cls, *, plain: bool, unicode: bool) -> Terminal:
        """Colour and line editing when stdin/stdout are a terminal (unless ``plain``)."""
        out_tty = sys.stdout.isatty() and not plain
        in_tty = sys.stdin.isatty() and out_tty
        return cls(colour=out_tty and "NO_COLOR" not in os.environ, unicode=unicode or out_tty,
                   line_editing=in_tty, history=user_cache_dir() / "play-history")

    def show(self, text: Text | str) -> None:
        if isinstance(text, str):
            text = Text(text)
        if self.colour:
            self.console.print(text)
        else:
            print(text.plain, flush=True)

    def error(self, message: str) -> None:
        self.show(Text("error: " + message, style="bold red"))

    def read(self, prompt: str) -> str | None:
        """One line of input (None at the end of input); Ctrl-C raises KeyboardInterrupt."""
        if self._prompt_session is not None:
            try:
                return str(self._prompt_session.prompt(prompt))
            except EOFError:
                return None
        line = sys.stdin.readline()
        if not line:
            return None
        line = line.rstrip("\r\n")
        self.show(prompt + line)
        return line

    # -------------------------------------------------------------- drawing cards

    def card(self, card: int, rules: Rules) -> Text:
        deck = rules.deck
        style = "bold magenta" if deck.is_joker(card) else SUIT_STYLES[deck.suit_of(card)]
        return Text(format_card(card, deck, unicode=self.unicode), style=style)

    def packet(self, mask: int, rules: Rules, width: int = 0) -> Text:
        """A packet as a hand reads (largest rank group first), padded to ``width`` columns."""
        out = Text(" ").join(self.card(c, rules) for c in order_cards(mask, rules.deck, "group"))
        if width:
            out.pad_right(max(0, width - out.cell_len))
        return out


# ----------------------------------------------------------------------------- what is shown


def _heading(text: str) -> Text:
    """A bold first line; what is appended after it keeps its own style."""
    out = Text()
    out.append(text, style="bold")
    return out


def _points(x: float) -> str:
    return f"{x:g}"


def _signed(x: float) -> str:
    return f"{0.0 if abs(x) < 0.005 else x:+.2f}"


def _slot_label(rules: Rules, s: int) -> str:
    return f"slot {s + 1} ({rules.weights[s]} pts)"


def board(term: Terminal, game: GameSession, header: str | None) -> Text:
    """The exposed cards, the cards left to place by suit, and the slots."""
    rules = game.rules
    deck = rules.deck
    out = Text()
    if header:
        out.append(header + "\n", style="bold")
        out.append("Exposed (out of play): ")
        out.append(Text(" ").join(term.card(c, rules) for c in order_cards(game.deal.exposed, deck)))
        out.append("\n")
    left = game.unplaced
    out.append(f"Cards to place ({left.bit_count()} of {game.deal.live.bit_count()}):\n")
    for suit in reversed(range(4)):
        cards = [c for c in cards_of(left) if not deck.is_joker(c) and deck.suit_of(c) == suit]
        if cards:
            name = f"{SUIT_SYMBOLS[suit]} {SUIT_NAMES[suit]}" if term.unicode else SUIT_NAMES[suit]
            out.append(f"  {name:<10} ", style=SUIT_STYLES[suit])
            out.append(Text(" ").join(term.card(c, rules) for c in order_cards(cards, deck)))
            out.append("\n")
    jokers = [c for c in cards_of(left) if deck.is_joker(c)]
    if jokers:
        out.append(f"  {'jokers':<10} ")
        out.append(Text(" ").join(term.card(c, rules) for c in jokers))
        out.append("\n")
    out.append("Your slots:")
    for s, packet in enumerate(game.slots):
        out.append(f"\n  {_slot_label(rules, s):<17}")
        if packet:
            out.append(term.packet(packet, rules, 17))
            out.append(describe(packet, rules))
        else:
            out.append("-", style="dim")
    return out


def help_text() -> Text:
    out = _heading("Commands (one per line):\n")
    out.append("\n".join("  " + line for line in COMMANDS.values()))
    out.append("\nCards: Ah, Td or 10d, 7s (upper or lower case, ♣ ♦ ♥ ♠ too), separated by spaces or commas; "
               "packets in 'play' separated by '|' or '/'.")
    return out


def _advice_lines(term: Terminal, sol: Solution, yours: set[int]) -> Text:
    rules = sol.deal.rules
    out = Text()
    for s, (advice, packet) in enumerate(zip(sol.per_slot, sol.arrangement.packets, strict=True)):
        out.append(f"\n  {_slot_label(rules, s):<17}")
        out.append(term.packet(packet, rules, 17))
        out.append(f"{advice.hand:<32}", style="bold" if s + 1 in yours else "")
        out.append(f" win {100 * advice.p_win:5.1f}%  tie {100 * advice.p_tie:5.1f}%  "
                   f"E[margin] {_signed(advice.expected_margin)}")
        if s + 1 in yours:
            out.append("  (yours)", style="dim")
    return out


def _proof(sol: Solution) -> str:
    if sol.optimal:
        return "proven optimal"
    reason = "interrupted" if sol.interrupted else "time limit"
    return f"{reason}: best found, at most {sol.gap:.2f} below the optimum"


def hint_text(term: Terminal, sol: Solution, yours: set[int]) -> Text:
    kept = f"your slot{'s' if len(yours) > 1 else ''} {', '.join(map(str, sorted(yours)))} kept" if yours \
        else "the best arrangement"
    out = _heading(f"Hint against the computer's model ({sol.opponent}) — {kept}; {_proof(sol)}:")
    out.append_text(_advice_lines(term, sol, yours))
    out.append(f"\nExpected margin {_signed(sol.expected_margin)} against the model.\n")
    out.append("To play it: play " + sol.arrangement.format(sol.deal.rules), style="dim")
    return out


def grade_text(term: Terminal, g: Grade) -> Text:
    best = f"{_signed(g.best.value)} ({_proof(g.best)})"
    out = _heading(f"Your arrangement against the computer's model ({g.given.opponent}): expected margin "
                   f"{_signed(g.given.value)}; the best {best}; regret {g.regret:.2f}.")
    out.append_text(_advice_lines(term, g.given, set()))
    if g.best_swap is None:
        out.append("\nNo swap of two cards improves it.")
    else:
        sw = g.best_swap
        out.append(f"\nBest two-card swap: {sw.card_a} (slot {sw.slot_a}) <-> {sw.card_b} (slot {sw.slot_b}) → "
                   f"{_signed(sw.value)} ({_signed(sw.value - g.given.value)}).")
    return out


def odds_text(odds: Odds, rules: Rules) -> Text:
    out = _heading(f"The computer's odds per slot (its model: {odds.model}):")
    for s, hands in enumerate(odds.slots):
        shown = " · ".join(f"{h} {100 * p:.1f}%" for h, p in hands)
        out.append(f"\n  {_slot_label(rules, s):<17}{shown}")
    return out


def reveal_text(term: Terminal, rules: Rules, reveal: Reveal) -> Text:
    r = reveal.result
    s = r.slot - 1
    out = Text(f"  {_slot_label(rules, s):<17}you       ")
    out.append(term.packet(r.hand_a.mask, rules, 17))
    out.append(r.hand_a.description + "\n")
    out.append(" " * 19 + "computer  ")
    out.append(term.packet(r.hand_b.mask, rules, 17))
    out.append(f"{r.hand_b.description:<32}")
    if r.winner == "A":
        out.append(f" you +{_points(r.points_a)}", style="bold green")
    elif r.winner == "B":
        out.append(f" computer +{_points(r.points_b)}", style="bold red")
    else:
        out.append(" tie" + (f" (+{_points(r.points_a)} each)" if r.points_a else ""), style="bold")
    out.append(f"   you {_points(reveal.player_points)} : {_points(reveal.computer_points)} computer")
    return out


def _verdict(player: float, computer: float, what: str = "") -> str:
    """'you win by 11', 'the computer wins the match by 3', 'a draw' …"""
    if player == computer:
        return f"{what} is drawn" if what else "a draw"
    winner = "you win" if player > computer else "the computer wins"
    return f"{winner}{' ' + what if what else ''} by {_points(abs(player - computer))}"


def summary_text(records: Sequence[GameRecord], rules: Rules) -> Text:
    you = sum(r.showdown.points_a for r in records)
    them = sum(r.showdown.points_b for r in records)
    won = sum(r.showdown.points_a > r.showdown.points_b for r in records)
    lost = sum(r.showdown.points_a < r.showdown.points_b for r in records)
    n = len(records)
    out = _heading(f"Match over after {n} game{'s' if n != 1 else ''}: you {_points(you)}, computer {_points(them)} — "
                   f"{_verdict(you, them, 'the match')} (games won {won}, lost {lost}, drawn {n - won - lost}).\n")
    out.append(f"{'game':>4} {'seed':>11}  {'exposed':<21} {'you':>4} {'computer':>8} {'margin':>6} "
               f"{'regret':>7} {'hints':>5}")
    for r in records:
        regret = "-" if r.regret is None else f"{r.regret:.2f}"
        out.append(f"\n{r.game:>4} {r.seed:>11}  {format_cards(r.deal.exposed, rules.deck):<21} "
                   f"{_points(r.showdown.points_a):>4} {_points(r.showdown.points_b):>8} "
                   f"{r.showdown.margin:>+6g} {regret:>7} {len(r.hints):>5}")
    out.append("\nRegret: how much more (expected points of margin) the best response to the computer's model "
               "would have won than your arrangement; 0 = you played a best response.")
    return out


# ----------------------------------------------------------------------------- the game loop


def _interruptible(term: Terminal, job: Callable[[threading.Event], T], what: str) -> T:
    return run_interruptible(job, lambda: term.show(Text(f"Ctrl-C: stopping the {what}; "
                                                         "using the best found so far", style="yellow")))


class _Quit(Exception):
    """The player ended the match (``quit``, end of input, Ctrl-C while reading a pipe)."""


def _execute(term: Terminal, game: GameSession, command: Command) -> None:
    rules = game.rules
    name = command.name
    if name == "slot":
        assert command.slot is not None
        game.place(command.slot, command.text)
        term.show(board(term, game, None))
    elif name == "clear":
        assert command.slot is not None
        game.clear(command.slot)
        term.show(board(term, game, None))
    elif name == "undo":
        move = game.undo()
        what = f"slot {move.slot} holds {format_cards(move.after, rules.deck)} again" if move.after \
            else f"slot {move.slot} is empty again"
        term.show(f"Undone: {what}.")
        term.show(board(term, game, None))
    elif name == "show":
        term.show(board(term, game, "The board"))
    elif name == "help":
        term.show(help_text())
    elif name == "hint":
        game.verify_hint()
        yours = set(game.placed)
        term.show(hint_text(term, _interruptible(term, game.hint, "search"), yours))
    elif name == "grade":
        game.verify_grade()
        term.show(grade_text(term, _interruptible(term, game.grade, "search")))
    elif name == "odds":
        term.show(odds_text(game.odds(), rules))
    elif name == "play":
        game.confirm(command.text)
    elif name == "done":
        game.confirm()
    elif name == "quit":
        raise _Quit
    else:  # pragma: no cover - parse_command knows every command
        raise PlayError(f"unknown command {quote(name)}")


def _place_and_confirm(term: Terminal, game: GameSession) -> None:
    """Read commands until the player confirms an arrangement (raises ``_Quit`` to stop)."""
    while game.phase is Phase.PLACING:
        prompt = f"game {game.game} ({len(game.placed)}/{game.rules.n_slots} placed)> "
        try:
            line = term.read(prompt)
        except KeyboardInterrupt:
            if not term.line_editing:
                raise _Quit from None
            term.show(Text("(Ctrl-C: type 'quit' or press Ctrl-D to leave)", style="dim"))
            continue
        if line is None:
            raise _Quit
        try:
            command = parse_command(line, game.rules.n_slots)
            if command is not None:
                _execute(term, game, command)
        except PlayError as exc:
            term.error(str(exc))
        except _Quit:
            raise
        except Exception as exc:  # a bug must not lose the game: report it in one line
            term.error(f"internal error, please report it ({type(exc).__name__}: {exc}); the game goes on")


def _show_down(term: Terminal, game: GameSession) -> None:
    term.show(Text("Show-down:", style="bold"))
    while game.phase is Phase.SHOWDOWN:
        term.show(reveal_text(term, game.rules, game.reveal()))


def _progress_printer(quiet: bool) -> Callable[[IterationRecord], None] | None:
    if quiet:
        return None
    tty = sys.stderr.isatty()

    def show(record: IterationRecord) -> None:
        line = (f"{PROG}: solving the equilibrium: iteration {record.iteration}, "
                f"exploitability {record.exploitability:.4f}, {record.seconds:.1f} s")
        print(("\r\x1b[K" + line) if tty else line, end="" if tty else "\n", file=sys.stderr, flush=True)

    return show


def _equilibrium_provider(args: argparse.Namespace) -> EquilibriumProvider:
    progress = _progress_printer(args.quiet)

    def provide(deal: Deal, stop: threading.Event | None) -> EquilibriumResult:
        common = dict(epsilon=args.epsilon, time_limit=args.time_limit, stop_event=stop, progress=progress)
        try:
            if args.no_store:
                return solve_equilibrium(deal, **common)
            with SolutionStore(args.store) as store:  # opened in the solving thread (SQLite)
                return solve_equilibrium(deal, store=store, **common)
        finally:
            if progress is not None and sys.stderr.isatty():
                print(file=sys.stderr)

    return provide


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description="Play Quintet against the computer, with hints.",
                      epilog="Commands during a game: " + ", ".join(COMMANDS) + " (type 'help').")
    p.add_argument("--games", type=positive_int, default=1, metavar="N", help="games in the match (default 1)")
    p.add_argument("--seed", type=integer, default=None,
                   help=f"seed of game 1, 0..{SEED_MAX} (game k uses SEED+k-1; default: a random seed, printed)")
    p.add_argument("--exposed", metavar="CARDS", default=None,
                   help="fix the deal: the 7 exposed cards, e.g. \"8h 7h 9d Ts 7s Qc Jc\"")
    p.add_argument("--opponent", default="equilibrium", metavar="MODEL",
                   help="the computer: equilibrium (default: a sample from the certified mix), greedy, uniform "
                        f"(a random arrangement), or a model of you it best-responds to: br:MODEL or {OPPONENT_HELP}")
    p.add_argument("--record", metavar="FILE", default=None,
                   help="append one JSON line per finished game to FILE")
    p.add_argument("--epsilon", type=positive_float, default=DEFAULT_EPSILON, metavar="POINTS",
                   help=f"equilibrium: certified exploitability to reach (default {DEFAULT_EPSILON:g})")
    p.add_argument("--time-limit", type=positive_float, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
                   help="stop any solve (the computer's equilibrium or best response, a hint, a grade) after "
                        f"this long and use the best found (default {DEFAULT_TIME_LIMIT:g})")
    p.add_argument("--store", metavar="PATH", default=None,
                   help="store of solved equilibria (default: $QUINTET_STORE or the user cache directory)")
    p.add_argument("--no-store", action="store_true", help="neither read nor write the store")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--plain", action="store_true", help="plain text and plain line input even in a terminal")
    p.add_argument("--unicode", action="store_true", help="suits as ♣ ♦ ♥ ♠ in plain text too")
    add_rules_arguments(p)
    return p


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    rules = rules_from_args(args)
    if args.no_store and args.store:
        raise UsageError("--store and --no-store cannot be combined")
    fixed = Deal.from_exposed(args.exposed, rules) if args.exposed is not None else None
    seeds = seed_series(fresh_seed(args.games) if args.seed is None else args.seed, args.games, "--seed", "games")
    args.opponent = ComputerSpec.parse(args.opponent)  # a bad --opponent is one line, before anything is shown
    if args.opponent.target is not None:  # and so is a model file that cannot be used
        args.opponent.target.resolve(fixed or Deal.random(seeds[0], rules), extra={"equilibrium": Uniform()})
    if args.record is not None:
        with open(args.record, "a", encoding="utf-8"):
            pass  # fail now, in one line, if the file cannot be written
    seed = seeds[0]
    term = Terminal.for_streams(plain=args.plain, unicode=args.unicode)
    provider = _equilibrium_provider(args)
    records: list[GameRecord] = []
    term.show(Text(f"Quintet against the computer: {args.games} game{'s' if args.games != 1 else ''}, seed {seed}"
                   ". Type 'help' for the commands.", style="bold"))
    try:
        for k in range(1, args.games + 1):
            game_seed = seed + k - 1
            deal = fixed or Deal.random(game_seed, rules)
            records.append(_play_game(term, args, deal, k, game_seed, provider, records))
    except _Quit:
        if len(records) < args.games:
            term.show(f"Game {len(records) + 1} was not finished; it is not recorded.")
    if records:
        term.show(summary_text(records, rules))
    return 0


def _play_game(term: Terminal, args: argparse.Namespace, deal: Deal, k: int, seed: int,
               provider: EquilibriumProvider, earlier: Sequence[GameRecord]) -> GameRecord:
    """Game ``k`` of the match, from the computer's choice to the record (written at once)."""

    def choose(stop: threading.Event) -> Computer:
        return Computer.choose(deal, args.opponent, seed=seed, equilibrium=provider, time_limit=args.time_limit,
                               stop_event=stop)

    computer = _interruptible(term, choose, "computer's solve")
    game = GameSession(deal, computer, game=k, seed=seed, time_limit=args.time_limit)
    you = sum(r.showdown.points_a for r in earlier)
    them = sum(r.showdown.points_b for r in earlier)
    term.show(Text(f"\nGame {k} of {args.games} (seed {seed}) — match: you {_points(you)}, computer {_points(them)}",
                   style="bold"))
    term.show(f"The computer plays {computer.description}.")
    term.show(board(term, game, "The deal"))
    _place_and_confirm(term, game)
    _show_down(term, game)
    record = _interruptible(term, game.record, "regret search")
    if args.record is not None:
        append_record(args.record, record)
    mine, theirs = record.showdown.points_a, record.showdown.points_b
    term.show(Text(f"Game {k}: you {_points(mine)}, computer {_points(theirs)} — {_verdict(mine, theirs)}. "
                   f"Match: you {_points(you + mine)}, computer {_points(them + theirs)}.", style="bold"))
    return record


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(PROG, _main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
