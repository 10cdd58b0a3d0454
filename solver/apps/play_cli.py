"""``quintet-play`` — play Quintet against the computer in the terminal, with hints; review the
games, see your statistics, train on puzzles.

    quintet-play                                   # one game against the equilibrium
    quintet-play --games 5 --opponent greedy --record games.jsonl
    quintet-play --opponent style:games.jsonl      # the computer exploits your recorded style
    printf 'hint\\nplay …\\n' | quintet-play --seed 7 --opponent uniform    # scripted
    printf 'odds\\nhint 3\\n' | quintet-play --seed 7     # the equilibrium's plans; a 3-arrangement mix
    quintet-play review games.jsonl --game 3       # a recorded game reviewed
    quintet-play stats                             # your statistics over the games recorded
    quintet-play puzzle --count 5                  # find the best arrangement: the shipped puzzles, rated

The game's rules live in ``solver.play.session`` (``GameSession``); the review, the statistics
and the puzzles in ``solver.play.review``, ``statistics`` and ``puzzle``; what is shown in
``solver.apps.play_views``.  This module reads commands and runs them through the terminal
layer both games share (``quintet.terminal``: colours, Unicode suits, line editing and history
in a terminal, plain text and echoed commands when piped; docs/playing.md).  Bad input gets one
line and the prompt again; Ctrl-C stops a running solve (the best found so far is used), at
the prompt it clears the line; end of input ends the match — finished games are recorded as
they finish (by default in the user data directory, where the statistics come from).

In a terminal the computer's packets are chosen in the background while the deal is shown, so
the player can place while its equilibrium is solved (a line under the prompt says how far it
is); advice and confirming wait for it.  After each game's show-down the program waits for
Enter (or ``review``, ``stats``) before the next game, and after a match it offers another.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TypeVar

from rich.console import Group
from rich.text import Text

from quintet.cliutil import (
    PATH_LIMIT,
    OneLineParser,
    UsageError,
    add_rules_arguments,
    directory_problem,
    integer,
    kept_file,
    number,
    print_json,
    rules_from_args,
    run_cli,
    user_cache_dir,
    user_data_dir,
)
from quintet.game import Arrangement, Deal
from quintet.rules import Rules
from quintet.seeds import SEED_MAX, check_seed, fresh_seed, seed_series
from quintet.terminal import Terminal, command_word, grid
from quintet.text import plural, quote
from solver.advisor.equilibrium import EquilibriumResult, played_equilibrium
from solver.advisor.limits import (
    MAX_GAMES,
    MAX_WINDOW,
    PLAY_EPSILON,
    PLAY_TIME_LIMIT,
    check_epsilon,
    check_games,
    check_time_limit,
    check_window,
)
from solver.apps.interrupt import Background, run_interruptible
from solver.apps.play_commands import COMMANDS, Command, parse_command
from solver.apps.play_views import (
    board,
    grade_text,
    help_text,
    hint_text,
    mix_hint_text,
    odds_text,
    puzzle_answer_text,
    puzzle_heading,
    puzzle_result_text,
    puzzles_summary,
    review_text,
    rules_text,
    showdown_text,
    stats_line,
    stats_text,
    summary_text,
    verdict,
)
from solver.games.double_oracle import IterationRecord
from solver.games.sparse_mix import SparseRecord
from solver.play.computer import Computer, ComputerSpec, EquilibriumProvider, computer_help
from solver.play.puzzle import SOURCES, Puzzle, PuzzleError, PuzzleResult, draw_puzzle, puzzle_opponents
from solver.play.puzzle_set import START_RATING, Progress
from solver.play.review import GameReview, review
from solver.play.session import GameSession, Move, Person, Phase, PlayError
from solver.play.statistics import WINDOW, statistics
from solver.problem.opponent_spec import check_usable
from solver.storage.records import GameRecord, RecordError, append_record, read_records
from solver.storage.store import SolutionStore

__all__ = ["build_parser", "main", "default_records", "default_progress"]

T = TypeVar("T")

PROG = "quintet-play"
SUBCOMMANDS = ("review", "stats", "puzzle")
_ADVICE = ("hint", "grade", "odds")
_NEEDS_COMPUTER = (*_ADVICE, "play", "done")


def default_records() -> Path:
    """Where the games are recorded unless ``--record FILE`` or ``--no-record``: ``games.jsonl``
    in the user data directory (``$XDG_DATA_HOME/quintet``, else ``~/.local/share/quintet``)."""
    return user_data_dir() / "games.jsonl"


def _points(x: float) -> str:
    return f"{x:g}"


class _Quit(Exception):
    """The player ended the match during a game (``quit``, end of input, Ctrl-C while reading a pipe)."""


class _Stop(Exception):
    """The player ended the match between two games (nothing is left unfinished)."""


class _Progress:
    """The latest progress of the computer's solve: on stderr while the program waits for it
    (``foreground``), else kept for the line under the prompt."""

    def __init__(self, term: Terminal, quiet: bool) -> None:
        self.term = term
        self.quiet = quiet
        self.text = ""
        self.foreground = True

    def report(self, text: str) -> None:
        self.text = text
        if self.foreground and not self.quiet:
            self.term.status.update(f"{PROG}: equilibrium solve: {text}")

    def waiting(self) -> None:
        """The program waits for the solve from now on: its progress goes to stderr."""
        self.foreground = True
        if self.text and not self.quiet:
            self.term.status.update(f"{PROG}: equilibrium solve: {self.text}")


@dataclass
class _Match:
    """What a match's games share."""

    term: Terminal
    args: argparse.Namespace
    rules: Rules
    progress: _Progress
    provider: EquilibriumProvider
    records_path: Path | None
    records: list[GameRecord] = field(default_factory=list)
    equilibria: dict[int, EquilibriumResult] = field(default_factory=dict)  # game → its deal's equilibrium


def _interruptible(term: Terminal, job: Callable[[threading.Event], T], what: str) -> T:
    return run_interruptible(job, lambda: term.show(Text(f"Ctrl-C: stopping the {what}; "
                                                         "using the best found so far", style="yellow")))


def _working(m: _Match, what: str, job: Callable[[threading.Event], T],
             detail: Callable[[], str] | None = None) -> T:
    """A search the player waits for (a hint, a grade, a K-mix, a review), with a line on stderr
    saying so after half a second (at a terminal, unless --quiet) — ``detail()`` adds how far
    it is; Ctrl-C stops it."""
    if m.args.quiet:
        return _interruptible(m.term, job, what)

    def line(seconds: float) -> str:
        more = detail() if detail is not None else ""
        return f"{PROG}: {what}, {seconds:.0f} s{', ' + more if more else ''} (Ctrl-C: use the best so far)"

    with m.term.working(line):
        return _interruptible(m.term, job, what)


# ----------------------------------------------------------------------------- the computer


def _equilibrium_provider(term: Terminal, args: argparse.Namespace, progress: _Progress) -> EquilibriumProvider:
    def report(record: IterationRecord) -> None:
        progress.report(f"iteration {record.iteration}, exploitability {record.exploitability:.4f}, "
                        f"{record.seconds:.1f} s")

    def provide(deal: Deal, stop: threading.Event | None) -> EquilibriumResult:
        common = dict(epsilon=args.epsilon, time_limit=args.time_limit, stop_event=stop, progress=report)
        try:
            if args.no_store:
                return played_equilibrium(deal, **common)
            with SolutionStore(args.store) as store:  # opened in the solving thread (SQLite)
                return played_equilibrium(deal, store=store, **common)
        finally:
            term.status.end()

    return provide


def _seat(m: _Match, game: GameSession, pending: Background[Computer] | None, *, wait: bool) -> None:
    """Seat the computer chosen in the background once it is ready (``wait``: wait for it)."""
    if pending is None or isinstance(game.computer, Computer) or not (wait or pending.done):
        return
    if not pending.done:
        m.term.show(Text("Waiting for the computer to lay its packets (Ctrl-C: it stops its solve and plays the "
                         "best found so far)…", style="dim"))
        m.progress.waiting()
    computer = pending.wait(lambda: m.term.show(Text("Ctrl-C: stopping the computer's solve; using the best found "
                                                     "so far", style="yellow")))
    m.progress.foreground = True
    game.seat(computer)
    m.term.show(f"The computer has laid its packets: it plays {computer.description}.")


def _toolbar(m: _Match, pending: Background[Computer]) -> Callable[[], str]:
    def line() -> str:
        if pending.done:
            return " The computer has laid its packets."
        if m.progress.text:
            return f" The computer's equilibrium solve: {m.progress.text}"
        return " The computer is choosing its packets…"
    return line


# ----------------------------------------------------------------------------- commands


def _execute(m: _Match, game: GameSession, command: Command, pending: Background[Computer] | None) -> None:
    term, rules = m.term, game.rules
    name = command.name
    if name in _ADVICE and m.args.no_hints:
        raise PlayError(f"'{name}': hints, grades and odds are off in this match (--no-hints)")
    if name in _NEEDS_COMPUTER:
        if name in ("play", "done"):
            game.verify_confirm(command.text or None)  # an illegal arrangement is refused before any wait
        _seat(m, game, pending, wait=True)
    if name == "slot":
        assert command.slot is not None
        game.place(command.slot, command.text)
        term.show(board(term, game, None))
    elif name == "clear":
        assert command.slot is not None
        game.clear(command.slot)
        term.show(board(term, game, None))
    elif name == "swap":
        a, b = command.text.split()
        term.show(_moves_text(term, "Swapped", game.swap(a, b), rules, ""))
        term.show(board(term, game, None))
    elif name == "undo":
        term.show(_moves_text(term, "Undone", game.undo(), rules, " again"))
        term.show(board(term, game, None))
    elif name == "show":
        term.show(board(term, game, "The board"))
    elif name == "help":
        term.show(help_text())
    elif name == "rules":
        term.show(rules_text(rules))
    elif name == "hint" and command.k is not None:
        k = command.k
        game.verify_mix_hint()
        best: list[float] = []

        def certified(record: SparseRecord) -> None:
            best[:] = [record.best]

        sp = _working(m, f"hint {k}: searching", lambda stop: game.mix_hint(k, stop, certified),
                      lambda: f"the best mix so far exploitable by {best[0]:.4f}" if best else "")
        term.show(mix_hint_text(term, sp, game.seed, set(game.placed)))
    elif name == "hint":
        kept = game.verify_hint()
        full = all(game.slots)
        term.show(hint_text(term, _working(m, "hint: searching", game.hint), set(kept), full=full))
    elif name == "grade":
        game.verify_grade()
        term.show(grade_text(term, _working(m, "grade: searching", game.grade)))
    elif name == "odds":
        term.show(odds_text(term, game.odds(), rules))
    elif name == "play":
        game.confirm(command.text)
    elif name == "done":
        game.confirm()
    elif name == "review":
        _review_in_match(m, command.k)
    elif name == "stats":
        _show_stats(m)
    elif name == "quit":
        raise _Quit
    else:  # pragma: no cover - parse_command knows every command
        raise PlayError(f"unknown command {quote(name)}")


def _moves_text(term: Terminal, what: str, moves: Sequence[Move], rules: Rules, again: str) -> Text:
    """'Undone: slot 1 holds A♣ 7♠ 7♥ 7♦ 7♣ again; slot 2 is empty again.'"""
    line = Text(f"{what}: ")
    for i, mv in enumerate(moves):
        line.append("; " if i else "")
        if mv.after:
            line.append(f"slot {mv.slot} holds ").append_text(term.cards(mv.after, rules.deck)).append(again)
        else:
            line.append(f"slot {mv.slot} is empty{again}")
    return line.append(".")


def _review_in_match(m: _Match, number: int | None) -> None:
    """``review [N]``: game N of this match (default the last finished) reviewed, against the
    computer's model and the deal's equilibrium (solved if need be, through the store)."""
    if not m.records:
        raise PlayError("no game of this match is finished yet: 'review' reviews a finished game")
    n = len(m.records) if number is None else number
    if not 1 <= n <= len(m.records):
        raise PlayError(f"there is no finished game {n} in this match (games 1-{len(m.records)})")
    record = m.records[n - 1]
    eq = m.equilibria.get(n)
    if eq is None:
        m.progress.waiting()
        eq = _interruptible(m.term, lambda stop: m.provider(record.deal, stop), "equilibrium solve")
        m.equilibria[n] = eq
    found = _working(m, "review: grading your arrangement",
                     lambda stop: review(record, equilibrium=eq, time_limit=m.args.time_limit, stop_event=stop))
    m.term.show(review_text(m.term, found))


def _all_records(m: _Match) -> tuple[list[GameRecord], Path | None]:
    """The games recorded (the records file, earlier sessions too), else this match's."""
    path = m.records_path
    if path is None or not path.is_file():
        return list(m.records), None
    try:
        return read_records(path, m.rules, skip_other_rules=True), path
    except RecordError as exc:
        raise PlayError(f"cannot read the records: {exc}") from None


def _show_stats(m: _Match) -> None:
    records, path = _all_records(m)
    m.term.show(stats_text(m.term, statistics(records), path))


def _place_and_confirm(m: _Match, game: GameSession, pending: Background[Computer] | None) -> None:
    """Read commands until the player confirms an arrangement (raises ``_Quit`` to stop)."""
    term = m.term
    while game.phase is Phase.PLACING:
        _seat(m, game, pending, wait=False)
        waiting = pending is not None and not isinstance(game.computer, Computer)
        line = term.read(f"game {game.game} ({len(game.placed)}/{game.rules.n_slots} placed)> ",
                         toolbar=_toolbar(m, pending) if waiting and pending is not None else None)
        if line is None:
            raise _Quit
        try:
            command = parse_command(line, game.rules.n_slots)
            if command is not None:
                _execute(m, game, command, pending)
                term.remember(line)
        except PlayError as exc:
            term.error(str(exc))
        except _Quit:
            raise
        except Exception as exc:  # a bug must not lose the game: report it in one line
            term.error(f"internal error, please report it ({type(exc).__name__}: {exc}); the game goes on")


def _after_game(m: _Match, k: int, last: bool) -> None:
    """At a terminal: wait for Enter before the next game (or the match's summary), so the
    show-down is read; ``review`` and ``stats`` meanwhile.  ``_Stop`` ends the match."""
    if not m.term.line_editing:
        return
    what = "the match's summary" if last else f"game {k + 1}"
    while True:
        line = m.term.read(f"Enter: {what} · review · stats · quit> ")
        word = command_word(line.strip()) if line is not None else "quit"
        try:
            if word == "":
                return
            if word == "quit":
                raise _Stop
            if word == "review":
                _review_in_match(m, k)
            elif word == "stats":
                _show_stats(m)
            elif word == "help":
                m.term.show(f"Enter goes on to {what}; 'review' reviews game {k}; 'stats' shows your statistics; "
                            "'quit' ends the match.")
            else:
                raise PlayError(f"{quote(line)}: press Enter for {what}, or type review, stats or quit")
            if line is not None:
                m.term.remember(line.strip())
        except PlayError as exc:
            m.term.error(str(exc))


# ----------------------------------------------------------------------------- a match


def _play_match(m: _Match, fixed: Deal | None, seed: int) -> bool:
    """One match of ``args.games`` games from ``seed``; True if it was played to the end in a
    terminal (then another match is offered)."""
    term, args = m.term, m.args
    term.show(Text(f"Quintet against the computer: {plural(args.games, 'game')}, seed {seed}. "
                   "Type 'help' for the commands, 'rules' for the rules.", style="bold"))
    m.records.clear()
    m.equilibria.clear()
    ended = False
    try:
        for k in range(1, args.games + 1):
            game_seed = seed + k - 1
            deal = fixed or Deal.random(game_seed, m.rules)
            m.records.append(_play_game(m, deal, k, game_seed))
            _after_game(m, k, last=k == args.games)
    except _Quit:
        term.show(f"Game {len(m.records) + 1} was not finished; it is not recorded.")
        ended = True
    except _Stop:
        ended = True
    if m.records:
        term.show(summary_text(term, m.records, m.rules))
        if m.records_path is not None:
            records, _ = _all_records(m)
            term.show(Text(f"Your record ({m.records_path}): {stats_line(statistics(records))} "
                           "('quintet-play stats' for more.)", style="dim"))
    return not ended and len(m.records) == args.games and term.line_editing


def _play_game(m: _Match, deal: Deal, k: int, seed: int) -> GameRecord:
    """Game ``k`` of the match, from the computer's choice to the record (written at once)."""
    term, args = m.term, m.args

    def choose(stop: threading.Event) -> Computer:
        return Computer.choose(deal, args.opponent, seed=seed, equilibrium=m.provider, time_limit=args.time_limit,
                               stop_event=stop)

    you = sum(r.showdown.points_a for r in m.records)
    them = sum(r.showdown.points_b for r in m.records)
    term.show(Text(f"\nGame {k} of {args.games} (seed {seed}) — match: you {_points(you)}, computer {_points(them)}",
                   style="bold"))
    pending: Background[Computer] | None = None
    if term.line_editing and (args.opponent.plays is None or args.opponent.needs_equilibrium):
        m.progress.foreground = False
        m.progress.text = ""
        pending = Background(choose)
        game = GameSession(deal, Person(spec=args.opponent.label(), description="the computer"), game=k, seed=seed,
                           time_limit=args.time_limit)
        solving = "solving the deal's equilibrium" if args.opponent.needs_equilibrium else "its best response"
        term.show(f"The computer is choosing its packets ({solving}); place yours meanwhile — hints, odds and "
                  "confirming wait for it.")
    else:
        m.progress.waiting()
        computer = _interruptible(term, choose, "computer's solve")
        game = GameSession(deal, computer, game=k, seed=seed, time_limit=args.time_limit)
        term.show(f"The computer plays {computer.description}.")
    term.fresh_suggestions()
    term.show(board(term, game, "The deal"))
    try:
        _place_and_confirm(m, game, pending)
    except _Quit:
        if pending is not None:
            pending.stop()
            pending.wait()
        raise
    reveals = []
    while game.phase is Phase.SHOWDOWN:
        reveals.append(game.reveal())
    term.show(showdown_text(term, game.rules, reveals))
    record = _working(m, "the regret against the computer's model", game.record)
    if game.equilibrium is not None:
        m.equilibria[k] = game.equilibrium
    if m.records_path is not None:
        append_record(m.records_path, record)
    mine, theirs = record.showdown.points_a, record.showdown.points_b
    term.show(Text(f"Game {k}: you {_points(mine)}, computer {_points(theirs)} — {verdict(mine, theirs)}. "
                   f"Match: you {_points(you + mine)}, computer {_points(them + theirs)}.", style="bold"))
    return record


# ----------------------------------------------------------------------------- command lines


def _add_solve_options(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--epsilon", type=number, default=PLAY_EPSILON, metavar="POINTS",
                   help=f"equilibrium: certified exploitability to reach (default {PLAY_EPSILON:g})")
    p.add_argument("--time-limit", type=number, default=PLAY_TIME_LIMIT, metavar="SECONDS",
                   help=f"stop any solve ({what}) after this long and use the best found (default {PLAY_TIME_LIMIT:g})")
    p.add_argument("--store", metavar="PATH", default=None,
                   help="store of solved equilibria (default: $QUINTET_STORE or the user cache directory)")
    p.add_argument("--no-store", action="store_true", help="neither read nor write the store")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def _add_terminal_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--plain", action="store_true",
                   help="plain text and plain line input even in a terminal (NO_COLOR: no colours)")
    p.add_argument("--unicode", action="store_true", help="suits as ♣ ♦ ♥ ♠ in plain text too")


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description="Play Quintet against the computer, with hints. Also: "
                      f"'{PROG} review FILE', '{PROG} stats [FILE]', '{PROG} puzzle' (each with --help).",
                      epilog="Commands during a game: " + ", ".join(COMMANDS) + " (type 'help'; docs/playing.md).")
    p.add_argument("--games", type=integer, default=1, metavar="N",
                   help=f"games in the match, 1..{MAX_GAMES} (default 1)")
    p.add_argument("--seed", type=integer, default=None,
                   help=f"seed of game 1, 0..{SEED_MAX} (game k uses SEED+k-1; default: a random seed, printed)")
    p.add_argument("--exposed", metavar="CARDS", default=None,
                   help="fix the deal: the 7 exposed cards, e.g. \"8h 7h 9d Ts 7s Qc Jc\"")
    p.add_argument("--opponent", default="equilibrium", metavar="MODEL",
                   help=f"the computer (default equilibrium): {computer_help()}")
    p.add_argument("--record", metavar="FILE", default=None,
                   help="append one JSON line per finished game to FILE (default: games.jsonl in the user data "
                        "directory, where the statistics come from)")
    p.add_argument("--no-record", action="store_true", help="record no game")
    p.add_argument("--no-hints", action="store_true", help="hints, grades and odds off (a game on your own)")
    _add_solve_options(p, "the computer's equilibrium or best response, a hint, a grade, a review")
    _add_terminal_options(p)
    add_rules_arguments(p)
    return p


def _check_store_options(args: argparse.Namespace) -> None:
    args.epsilon = check_epsilon(args.epsilon)
    args.time_limit = check_time_limit(args.time_limit)
    if args.no_store and args.store:
        raise UsageError("--store and --no-store cannot be combined")
    if args.store is not None and (problem := directory_problem(args.store)) is not None:
        raise UsageError(f"--store {quote(args.store, PATH_LIMIT)}: {problem}")  # even when no store is needed


def _records_path(args: argparse.Namespace) -> Path | None:
    """The records file of this run: ``--record FILE``, none with ``--no-record``, else the
    default one (``default_records``)."""
    if args.no_record:
        if args.record is not None:
            raise UsageError("--record and --no-record cannot be combined")
        return None
    return kept_file(args.record, default_records().name, "--record")


def _play(argv: Sequence[str]) -> int:
    args = build_parser().parse_args(argv)
    args.games = check_games(args.games)
    _check_store_options(args)
    rules = rules_from_args(args)
    fixed = Deal.from_exposed(args.exposed, rules) if args.exposed is not None else None
    seeds = seed_series(fresh_seed(args.games) if args.seed is None else args.seed, args.games, "--seed", "games")
    args.opponent = ComputerSpec.parse(args.opponent)  # a bad --opponent is one line, before anything is shown
    if args.opponent.target is not None:  # and so is a model file that cannot be used
        check_usable(args.opponent.target, fixed or Deal.random(seeds[0], rules))
    records_path = _records_path(args)
    if args.opponent.needs_equilibrium and not args.no_store:
        SolutionStore(args.store).close()  # the store game 1 needs: a bad one fails now (none is made otherwise)
    term = Terminal.for_streams(plain=args.plain, unicode=args.unicode, history=user_cache_dir() / "play-history",
                                words=list(COMMANDS))
    progress = _Progress(term, args.quiet)
    m = _Match(term, args, rules, progress, _equilibrium_provider(term, args, progress), records_path)
    seed = seeds[0]
    while _play_match(m, fixed, seed) and term.ask("Play another match?"):
        last = seed + args.games - 1
        seed = last + 1 if last + args.games <= SEED_MAX else fresh_seed(args.games)
    return 0


# ----------------------------------------------------------------------------- review, stats, puzzle


def _review_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=f"{PROG} review", description="Review recorded games (quintet-play's records, or the "
                      "page's): each slot's packets and hands, who scored and why, your regret against the computer's "
                      "model and against the deal's equilibrium, the best arrangement and the best swap.")
    p.add_argument("file", metavar="FILE", nargs="?", default=None,
                   help="a records file (JSON lines; default: the games recorded in the user data directory)")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--game", type=integer, default=None, metavar="N",
                       help="the N-th record of the file, 1-based (default: the last)")
    which.add_argument("--all", action="store_true", help="every record of the file")
    p.add_argument("--no-equilibrium", action="store_true",
                   help="no regret against the equilibrium (nothing is solved)")
    p.add_argument("--json", action="store_true", help="print the review as JSON (a list with --all)")
    _add_solve_options(p, "the equilibrium, each grade")
    _add_terminal_options(p)
    add_rules_arguments(p)
    return p


def _records_of(text: str | None, rules: Rules) -> tuple[list[GameRecord], Path]:
    path = Path(text).expanduser() if text is not None else default_records()
    if text is None and not path.is_file():
        raise UsageError(f"no games recorded yet ({path}): play some, or name a records file")
    return read_records(path, rules), path


def _review(argv: Sequence[str]) -> int:
    args = _review_parser().parse_args(argv)
    _check_store_options(args)
    rules = rules_from_args(args)
    records, path = _records_of(args.file, rules)
    if not records:
        raise UsageError(f"{path}: no records")
    if args.all:
        chosen = records
    else:
        n = len(records) if args.game is None else args.game
        if not 1 <= n <= len(records):
            raise UsageError(f"--game {n}: {path} holds records 1 to {len(records)}")
        chosen = [records[n - 1]]
    term = Terminal.for_streams(plain=args.plain or args.json, unicode=args.unicode)
    progress = _Progress(term, args.quiet)
    provider = _equilibrium_provider(term, args, progress)
    reviews: list[GameReview] = []
    for record in chosen:
        reviews.append(_review_one(term, record, None if args.no_equilibrium else provider, args.time_limit))
    if args.json:
        print_json([r.to_dict() for r in reviews] if args.all else reviews[0].to_dict())
    else:
        for r in reviews:
            term.show(review_text(term, r))
    return 0


def _review_one(term: Terminal, record: GameRecord, provider: EquilibriumProvider | None,
                time_limit: float | None) -> GameReview:
    """``record`` reviewed, against its deal's equilibrium from ``provider`` (None: not)."""
    eq = None if provider is None else _interruptible(term, lambda stop: provider(record.deal, stop),
                                                      "equilibrium solve")
    return _interruptible(term, lambda stop: review(record, equilibrium=eq, time_limit=time_limit, stop_event=stop),
                          "review")


def _stats_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=f"{PROG} stats", description="Statistics of recorded games: games, points, the mean "
                      "regret and its trend, per slot where the points go.")
    p.add_argument("file", metavar="FILE", nargs="?", default=None,
                   help="a records file (default: the games recorded in the user data directory)")
    p.add_argument("--window", type=integer, default=WINDOW, metavar="N",
                   help=f"games per block of the trend, 1..{MAX_WINDOW} (default {WINDOW})")
    p.add_argument("--json", action="store_true", help="print the statistics as JSON")
    _add_terminal_options(p)
    add_rules_arguments(p)
    return p


def _stats(argv: Sequence[str]) -> int:
    args = _stats_parser().parse_args(argv)
    args.window = check_window(args.window)
    rules = rules_from_args(args)
    path = Path(args.file).expanduser() if args.file is not None else default_records()
    records = read_records(path, rules, skip_other_rules=args.file is None) if args.file is not None or \
        path.is_file() else []
    stats = statistics(records, args.window)
    if args.json:
        print_json(stats.to_dict())
        return 0
    term = Terminal.for_streams(plain=args.plain, unicode=args.unicode)
    term.show(stats_text(term, stats, path))
    return 0


PUZZLE_WORDS = ("slot", "clear", "swap", "undo", "show", "play", "done", "help", "rules", "quit")
PUZZLE_HELP = (*((COMMANDS[w][0], COMMANDS[w][1]) for w in PUZZLE_WORDS[:-5]),  # play, done: as an answer
               ("play ARRANGEMENT, done", "answer: your five packets (graded exactly; after a miss, change them "
                "and answer again)"),
               ("answer", "give up, or after a miss: show the best arrangement"),
               (COMMANDS["help"][0], COMMANDS["help"][1]), (COMMANDS["rules"][0], COMMANDS["rules"][1]),
               ("quit, q", "end the training"))


def default_progress() -> Path:
    """Where ``quintet-play puzzle`` keeps the player's rating and the puzzles solved unless
    ``--progress FILE`` or ``--no-progress``: ``puzzles.json`` beside the games' records."""
    return user_data_dir() / "puzzles.json"


def _puzzle_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=f"{PROG} puzzle", description="Training: find the best arrangement — the shipped "
                      "puzzles, rated, near your rating (or the deals your store has solved), against their "
                      "equilibrium (or greedy, or uniform); each answer graded exactly, a miss may be retried.")
    p.add_argument("--count", type=integer, default=5, metavar="N", help="puzzles, 1..100 (default 5)")
    p.add_argument("--seed", type=integer, default=None,
                   help=f"seed of puzzle 1, 0..{SEED_MAX} (puzzle k uses SEED+k-1; default: random, printed)")
    p.add_argument("--from", dest="source", default="set", choices=SOURCES,
                   help="set: the shipped puzzles, rated, drawn near your rating (default); store: the deals the "
                        "store has solved (unrated)")
    p.add_argument("--opponent", default="equilibrium", choices=puzzle_opponents(),
                   help="the opponent to answer (default equilibrium: the deal's certified mix; the set's puzzles "
                        "are rated against it only)")
    p.add_argument("--time-limit", type=number, default=PLAY_TIME_LIMIT, metavar="SECONDS",
                   help=f"stop a grade's search after this long (default {PLAY_TIME_LIMIT:g})")
    p.add_argument("--store", metavar="PATH", default=None,
                   help="store of solved equilibria, for --from store (default: $QUINTET_STORE or the user cache "
                        "directory)")
    kept = p.add_mutually_exclusive_group()
    kept.add_argument("--progress", metavar="FILE", default=None,
                      help="your rating and the puzzles solved (default: puzzles.json in the user data directory)")
    kept.add_argument("--no-progress", action="store_true", help="keep no progress (the rating starts at "
                      f"{START_RATING:g} and is not saved)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    _add_terminal_options(p)
    add_rules_arguments(p)
    return p


@dataclass
class _Training:
    """A training's state: the player's progress (where it is kept; None: not kept) and each
    puzzle's first answer, and how many were solved on a retry."""

    progress: Progress
    path: Path | None
    first: list[PuzzleResult] = field(default_factory=list)
    retried: int = 0
    start: float = START_RATING

    def answered(self, result: PuzzleResult) -> None:
        """A puzzle's first answer (or giving up before any): rated, kept."""
        self.first.append(result)
        if result.rating is not None:
            self.progress = self.progress.after(result.puzzle.number, result.rating)
            if self.path is not None:
                self.progress.save(self.path)


def _puzzles(argv: Sequence[str]) -> int:
    args = _puzzle_parser().parse_args(argv)
    if not 1 <= args.count <= 100:
        raise UsageError(f"--count must be from 1 to 100, got {args.count}")
    args.time_limit = check_time_limit(args.time_limit)
    rules = rules_from_args(args)
    seed = check_seed(fresh_seed(args.count) if args.seed is None else args.seed, "--seed")
    seed_series(seed, args.count, "--seed", "puzzles")
    if args.store is not None and (problem := directory_problem(args.store)) is not None:
        raise UsageError(f"--store {quote(args.store, PATH_LIMIT)}: {problem}")
    path = None if args.no_progress else Path(args.progress).expanduser() if args.progress else default_progress()
    training = _Training(Progress.load(path) if path is not None else Progress(), path)
    training.start = training.progress.rating
    with SolutionStore(args.store) if args.source == "store" else nullcontext() as store:
        try:
            draw_puzzle(store, rules, seed, args.opponent, source=args.source)  # a bad choice fails before the board
        except PuzzleError as exc:
            raise UsageError(str(exc)) from None
        term = Terminal.for_streams(plain=args.plain, unicode=args.unicode, history=user_cache_dir() / "play-history",
                                    words=[*PUZZLE_WORDS, "answer"])
        rating = f"; your rating {training.progress.rating:.0f}" if args.source == "set" else ""
        term.show(Text(f"Training: {plural(args.count, 'puzzle')}, seed {seed}{rating}. Type 'help' for the "
                       "commands.", style="bold"))
        m = _Match(term, args, rules, _Progress(term, args.quiet), _no_equilibrium, None)
        for k in range(1, args.count + 1):
            puzzle = draw_puzzle(store, rules, seed + k - 1, args.opponent, source=args.source,
                                 rating=training.progress.rating, exclude=frozenset(training.progress.solved))
            if not _one_puzzle(m, training, puzzle, k):
                break
    if training.first:
        term.show(puzzles_summary(training.first, training.retried, training.start, training.progress.rating
                                  if any(r.rating is not None for r in training.first) else None))
    return 0


def _one_puzzle(m: _Match, training: _Training, puzzle: Puzzle, k: int) -> bool:
    """Play puzzle ``k`` until solved or its answer is shown (a miss may be retried: the answer
    is shown only on 'answer'); False when the player quit."""
    term, args = m.term, m.args
    term.show(puzzle_heading(puzzle, k, args.count, training.progress.rating))
    game = GameSession(puzzle.deal, Person(spec="puzzle", description="the puzzle"), game=k,
                       time_limit=args.time_limit)
    term.fresh_suggestions()
    term.show(board(term, game, "The deal"))
    last: PuzzleResult | None = None
    tries = 0
    while True:
        answer = _answer(m, game, k, tries)
        if answer is None:
            return False
        player = training.progress.player if tries == 0 else None
        if isinstance(answer, str):
            if last is None:
                last = _working(m, "the best arrangement", partial(_give_up, puzzle, args.time_limit, player))
                training.answered(last)
            term.show(puzzle_answer_text(term, last))
            return True
        result = _working(m, "grading your answer", partial(_grade_answer, puzzle, answer, args.time_limit, player))
        if tries == 0:
            training.answered(result)
        else:
            training.retried += result.solved
        tries += 1
        last = result
        term.show(puzzle_result_text(term, result))
        if result.solved:
            return True


def _grade_answer(puzzle: Puzzle, answer: Arrangement, time_limit: float | None, player: tuple[float, int] | None,
                  stop: threading.Event) -> PuzzleResult:
    return puzzle.grade(answer, time_limit=time_limit, stop_event=stop, player=player)


def _give_up(puzzle: Puzzle, time_limit: float | None, player: tuple[float, int] | None,
             stop: threading.Event) -> PuzzleResult:
    return puzzle.give_up(time_limit=time_limit, stop_event=stop, player=player)


def _no_equilibrium(deal: Deal, stop: threading.Event | None) -> EquilibriumResult:
    raise PlayError("no equilibrium is solved here")


def _answer(m: _Match, game: GameSession, k: int, tries: int) -> Arrangement | str | None:
    """Read a puzzle's commands until an answer: the arrangement laid, ``"answer"`` (given up, or
    the answer shown after a miss) or None (quit, the end of input)."""
    term = m.term
    again = f", try {tries + 1}" if tries else ""
    while True:
        line = term.read(f"puzzle {k}{again} ({len(game.placed)}/{game.rules.n_slots} placed)> ")
        if line is None:
            return None
        words = line.split()
        try:
            if words and command_word(words[0]) == "answer":
                if len(words) > 1:
                    raise PlayError("'answer' takes no arguments")
                term.remember(line)
                return "answer"
            if words and command_word(words[0]) == "help":
                table, shown = grid("!", "")
                for usage, what in PUZZLE_HELP:
                    table.add_row(usage, what)
                term.show(Group(Text("Commands (one per line):", style="bold"), shown))
                term.remember(line)
                continue
            command = parse_command(line, game.rules.n_slots)
            if command is None:
                continue
            if command.name not in PUZZLE_WORDS:
                raise PlayError(f"no '{command.name}' in a puzzle: place your packets and 'play' them ('answer' "
                                "gives up and shows the best arrangement)")
            if command.name == "quit":
                return None
            if command.name in ("play", "done"):
                laid = game.verify_confirm(command.text or None)
                term.remember(line)
                return laid
            _execute(m, game, command, None)
            term.remember(line)
        except PlayError as exc:
            term.error(str(exc))


def _main(argv: Sequence[str] | None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        return {"review": _review, "stats": _stats, "puzzle": _puzzles}[args[0]](args[1:])
    return _play(args)


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli(PROG, _main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
