"""``quintet-play`` — play Quintet against the computer in the terminal, with hints.

    quintet-play                                   # one game against the equilibrium
    quintet-play --games 5 --opponent greedy --record games.jsonl
    quintet-play --opponent style:games.jsonl      # the computer exploits your recorded style
    printf 'hint\\nplay …\\n' | quintet-play --seed 7 --opponent uniform    # scripted
    printf 'odds\\nhint 3\\n' | quintet-play --seed 7     # the equilibrium's plans; a 3-arrangement mix

The game's rules live in ``solver.play.session`` (``GameSession``); this module reads commands and
draws the board through the terminal layer both games share (``quintet.terminal``: colours,
Unicode suits, line editing and history in a terminal, plain text and echoed commands when
piped; docs/playing.md).  Bad input gets one line and the prompt again; Ctrl-C stops a running
solve (the best found so far is used), at the prompt it clears the line; end of input ends the
match — finished games are recorded as they finish.  After a match in a terminal the program
offers another one.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from rich.console import Group, RenderableType
from rich.text import Text

from quintet.cards import SUIT_SYMBOLS, cards_of, format_cards
from quintet.cliutil import (
    OneLineParser,
    UsageError,
    add_rules_arguments,
    integer,
    number,
    rules_from_args,
    run_cli,
    user_cache_dir,
)
from quintet.evaluator import describe
from quintet.game import Deal
from quintet.rules import Rules
from quintet.seeds import SEED_MAX, fresh_seed, seed_series
from quintet.terminal import SUIT_STYLES, Terminal, flow, grid
from quintet.text import quote
from solver.advisor.advice import Grade, Solution
from solver.advisor.equilibrium import EquilibriumResult, solve_equilibrium
from solver.advisor.limits import (
    MAX_GAMES,
    PLAY_EPSILON,
    PLAY_TIME_LIMIT,
    check_epsilon,
    check_games,
    check_time_limit,
)
from solver.advisor.sparse import SparseEquilibrium
from solver.apps.interrupt import run_interruptible
from solver.apps.play_commands import COMMANDS, Command, parse_command
from solver.games.double_oracle import IterationRecord
from solver.play.computer import Computer, ComputerSpec, EquilibriumProvider
from solver.play.session import MIX_HINT_ROLL_STREAM, GameSession, Odds, Phase, PlayError, Reveal
from solver.problem.opponent_spec import OPPONENT_HELP
from solver.problem.opponents import Uniform
from solver.storage.records import GameRecord, append_record
from solver.storage.store import SolutionStore

__all__ = ["build_parser", "main"]

T = TypeVar("T")

PROG = "quintet-play"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


# ----------------------------------------------------------------------------- what is shown


def _heading(text: str) -> Text:
    return Text(text, style="bold")


def _points(x: float) -> str:
    return f"{x:g}"


def _signed(x: float) -> str:
    return f"{0.0 if abs(x) < 0.005 else x:+.2f}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _slot_label(rules: Rules, s: int) -> str:
    return f"slot {s + 1} ({rules.weights[s]} pts)"


def board(term: Terminal, game: GameSession, header: str | None) -> RenderableType:
    """The exposed cards, the cards left to place by suit, and the slots."""
    rules = game.rules
    deck = rules.deck
    parts: list[RenderableType] = []
    if header:
        parts.append(_heading(header))
        parts.append(Text("Exposed (out of play): ").append_text(term.cards(game.deal.exposed, deck, "rank")))
    left = game.unplaced
    parts.append(Text(f"Cards to place ({left.bit_count()} of {game.deal.live.bit_count()}):"))
    suits, shown = grid("!", "!")
    for suit in reversed(range(4)):
        cards = [c for c in cards_of(left) if not deck.is_joker(c) and deck.suit_of(c) == suit]
        if cards:
            name = f"{SUIT_SYMBOLS[suit]} {SUIT_NAMES[suit]}" if term.unicode else SUIT_NAMES[suit]
            suits.add_row(Text(name, style=SUIT_STYLES[suit]), term.cards(cards, deck, "rank"))
    jokers = [c for c in cards_of(left) if deck.is_joker(c)]
    if jokers:
        suits.add_row("jokers", term.cards(jokers, deck, "given"))
    if suits.row_count:
        parts.append(shown)
    parts.append(Text("Your slots:"))
    slots, shown = grid("!", "!", "")
    for s, packet in enumerate(game.slots):
        if packet:
            slots.add_row(_slot_label(rules, s), term.cards(packet, deck), describe(packet, rules))
        else:
            slots.add_row(_slot_label(rules, s), Text("-", style="dim"), "")
    parts.append(shown)
    return Group(*parts)


def help_text() -> RenderableType:
    table, shown = grid("!", "")
    for usage, what in COMMANDS.values():
        table.add_row(usage, what)
    return Group(_heading("Commands (one per line):"), shown,
                 Text("Cards: Ah, Td or 10d, 7s (upper or lower case, ♣ ♦ ♥ ♠ too), separated by spaces or commas; "
                      "packets in 'play' separated by '|' or '/'."))


def rules_text(rules: Rules) -> RenderableType:
    """The rules of Quintet in a few lines, for the rule set being played."""
    n = rules.n_slots
    weights = ", ".join(map(str, rules.weights[:-1])) + f" and {rules.weights[-1]}"
    tie = (f"each player scores {_points(rules.tie_points)} of its points" if rules.tie_points
           else "nobody scores it")
    live = rules.deck.size - rules.n_exposed
    table, shown = grid("!", "")
    table.add_row("The deal", f"{rules.n_exposed} of the {rules.deck.size} cards are dealt face up and are out of "
                              f"play; both players hold the same other {live} cards.")
    table.add_row("Arranging", f"each player splits them into {n} packets of {rules.hand_size}, laid face down in "
                               f"slots 1-{n} worth {weights} points; the computer has laid its packets before you "
                               "start.")
    table.add_row("Show-down", f"slot by slot the two packets meet as poker hands: the better hand scores the slot's "
                               f"points (equal hands: {tie}); the higher total wins the game, and a match adds up "
                               "its games.")
    table.add_row("Hands", "strongest first: " + ", ".join(rules.category_label(c) for c in reversed(rules.categories))
                  + ".")
    return Group(_heading(f"Quintet ({rules.describe()}):"), shown)


def _advice_table(term: Terminal, sol: Solution, yours: set[int]) -> RenderableType:
    """One row a slot (yours marked ``*``): its packet, hand, odds against the model and expected margin."""
    rules = sol.deal.rules
    table, shown = grid("slot!", "cards!", "hand", "win>", "tie>", "margin>")
    for s, (advice, packet) in enumerate(zip(sol.per_slot, sol.arrangement.packets, strict=True)):
        mine = s + 1 in yours
        table.add_row(f"{s + 1}{'*' if mine else ''}", term.cards(packet, rules.deck), advice.hand,
                      f"{100 * advice.p_win:.1f}%", f"{100 * advice.p_tie:.1f}%", _signed(advice.expected_margin),
                      style="bold" if mine else "")
    return shown


def _proof(sol: Solution) -> str:
    if sol.optimal:
        return "proven optimal"
    reason = "interrupted" if sol.interrupted else "time limit"
    return f"{reason}: best found, at most {sol.gap:.2f} below the optimum"


def hint_text(term: Terminal, sol: Solution, yours: set[int]) -> RenderableType:
    kept = f"your slot{'s' if len(yours) > 1 else ''} {', '.join(map(str, sorted(yours)))} kept (*)" if yours \
        else "the best arrangement"
    return Group(_heading(f"Hint against the computer's model ({sol.opponent}) — {kept}; {_proof(sol)}:"),
                 _advice_table(term, sol, yours),
                 Text(f"Expected margin {_signed(sol.expected_margin)} against the model."),
                 Text("To play it: play " + sol.arrangement.format(sol.deal.rules), style="dim", no_wrap=True,
                      overflow="ignore"))


def grade_text(term: Terminal, g: Grade) -> RenderableType:
    best = f"{_signed(g.best.value)} ({_proof(g.best)})"
    if g.best_swap is None:
        swap = "No swap of two cards improves it."
    else:
        sw = g.best_swap
        swap = (f"Best two-card swap: {sw.card_a} (slot {sw.slot_a}) <-> {sw.card_b} (slot {sw.slot_b}) → "
                f"{_signed(sw.value)} ({_signed(sw.value - g.given.value)}).")
    return Group(_heading(f"Your arrangement against the computer's model ({g.given.opponent}): expected margin "
                          f"{_signed(g.given.value)}; the best {best}; regret {g.regret:.2f}."),
                 _advice_table(term, g.given, set()), Text(swap))




def mix_hint_text(term: Terminal, sp: SparseEquilibrium, seed: int, yours: set[int]) -> RenderableType:
    """``hint K``: the K-mix's arrangements with their shares, the die roll of the game's seed (on
    its own stream: the computer draws its arrangement from the seed's first number) and
    the arrangement it picks, the certified exploitability beside the full equilibrium's."""
    rules = sp.deal.rules
    if sp.method == "equilibrium":
        claim = "the full equilibrium fits"
    elif sp.optimal:
        claim = "proven the least exploitable"
    else:
        claim = "best found (not proven the best)"
    kept = "; whole arrangements: your slots are not kept" if yours else ""
    n = sp.max_support
    parts: list[RenderableType] = [_heading(f"Hint: a mix of at most {_plural(n, 'arrangement')} against the "
                                            f"equilibrium — {claim}{kept}:")]
    table, shown = grid("#>", "share>", *(f"slot {s + 1}" for s in range(rules.n_slots)))
    for i, (p, a) in enumerate(sp.mix, start=1):
        table.add_row(str(i), f"{100 * p:.1f}%", *(term.cards(m, rules.deck) for m in a.packets))
    parts.append(shown)
    roll = sp.roll(seed, MIX_HINT_ROLL_STREAM)
    play = sp.mix[roll.index][1]
    parts.append(Text(f"Die roll (seed {seed}, the hints' stream): {roll.value:.4f} falls in arrangement "
                      f"{roll.index + 1}'s share "
                      f"[{roll.low:.4f}, {roll.high:.4f}): play it."))
    extra = " — interrupted" if sp.interrupted else ""
    parts.append(Text(f"Exploitability {sp.exploitability:.4f} (certified: no arrangement gains more against the "
                      f"mix); the full equilibrium {sp.equilibrium_exploitability:.4f} with "
                      f"{_plural(sp.equilibrium_support, 'arrangement')}{extra}."))
    parts.append(Text("To play it: play " + play.format(rules), style="dim", no_wrap=True, overflow="ignore"))
    return Group(*parts)


def odds_text(term: Terminal, odds: Odds, rules: Rules, top: int = 5) -> RenderableType:
    labels = [_slot_label(rules, s) for s in range(len(odds.slots))]
    room = term.width - 2 - max(map(len, labels)) - 2  # the indent, the label column, the gap
    table, shown = grid("!", "")
    for label, hands in zip(labels, odds.slots, strict=True):
        table.add_row(label, flow((Text(f"{h.hand} {100 * h.probability:.1f}%") for h in hands), room))
    parts: list[RenderableType] = [_heading(f"The computer's odds per slot (its model: {odds.model}):"), shown]
    if odds.plans:
        more = f", the {top} most likely" if len(odds.plans) > top else ""
        parts.append(Text(f"Its plans (hand category per slot): {_plural(odds.arrangements, 'arrangement')} in "
                          f"{_plural(len(odds.plans), 'plan')}{more}:"))
        plan_table, plan_shown = grid("share>", "arrangements>", *(f"slot {s + 1}" for s in range(rules.n_slots)))
        for plan in odds.plans[:top]:
            plan_table.add_row(f"{100 * plan.probability:.1f}%", str(plan.arrangements), *plan.labels)
        parts.append(plan_shown)
    return Group(*parts)


def showdown_text(term: Terminal, rules: Rules, reveals: Sequence[Reveal]) -> RenderableType:
    """The show-down, slot by slot: who won it in words and in colour (green you, red the
    computer, dim a tie), both hands, the running score."""
    deck = rules.deck
    width = max(term.cards(m, deck).cell_len for r in reveals for m in (r.result.hand_a.mask, r.result.hand_b.mask))
    parts: list[RenderableType] = [_heading("Show-down:")]
    for reveal in reveals:
        r = reveal.result
        if r.winner == "A":
            verdict, style = f"you win {_points(r.points_a)}", "bold green"
        elif r.winner == "B":
            verdict, style = f"the computer wins {_points(r.points_b)}", "bold red"
        else:
            verdict, style = "tie" + (f", {_points(r.points_a)} each" if r.points_a else ", nobody scores"), "dim"
        parts.append(Text.assemble(f"  {_slot_label(rules, r.slot - 1)}: ", (verdict, style),
                                   f" — you {_points(reveal.player_points)} : "
                                   f"{_points(reveal.computer_points)} computer"))
        table, shown = grid("!", "!", "", indent=4)
        table.columns[1].min_width = width
        for side, hand in (("A", r.hand_a), ("B", r.hand_b)):
            marked = style if r.winner in (side, None) else ""  # the winner's (both, in a tie) in its colour
            table.add_row(Text("you" if side == "A" else "computer", style=marked), term.cards(hand.mask, deck),
                          Text(hand.description, style=marked))
        parts.append(shown)
    return Group(*parts)


def _verdict(player: float, computer: float, what: str = "") -> str:
    """'you win by 11', 'the computer wins the match by 3', 'a draw' …"""
    if player == computer:
        return f"{what} is drawn" if what else "a draw"
    winner = "you win" if player > computer else "the computer wins"
    return f"{winner}{' ' + what if what else ''} by {_points(abs(player - computer))}"


def summary_text(term: Terminal, records: Sequence[GameRecord], rules: Rules) -> RenderableType:
    you = sum(r.showdown.points_a for r in records)
    them = sum(r.showdown.points_b for r in records)
    won = sum(r.showdown.points_a > r.showdown.points_b for r in records)
    lost = sum(r.showdown.points_a < r.showdown.points_b for r in records)
    n = len(records)
    table, shown = grid("game>", "seed>", "exposed!", "you>", "computer>", "margin>", "regret>", "hints>", indent=0)
    for r in records:
        table.add_row(str(r.game), str(r.seed), term.cards(r.deal.exposed, rules.deck, "rank"),
                      _points(r.showdown.points_a), _points(r.showdown.points_b), f"{r.showdown.margin:+g}",
                      "-" if r.regret is None else f"{r.regret:.2f}", str(len(r.hints)))
    drawn = n - won - lost
    return Group(_heading(f"Match over after {_plural(n, 'game')}: you {_points(you)}, computer {_points(them)} — "
                          f"{_verdict(you, them, 'the match')} (games won {won}, lost {lost}, drawn {drawn})."),
                 shown,
                 Text("Regret: how much more (expected points of margin) the best response to the computer's model "
                      "would have won than your arrangement; 0 = you played a best response."))


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
    elif name == "rules":
        term.show(rules_text(rules))
    elif name == "hint" and command.k is not None:
        k = command.k
        game.verify_mix_hint()
        sp = _interruptible(term, lambda stop: game.mix_hint(k, stop), "mix search")
        term.show(mix_hint_text(term, sp, game.seed, set(game.placed)))
    elif name == "hint":
        game.verify_hint()
        yours = set(game.placed)
        term.show(hint_text(term, _interruptible(term, game.hint, "search"), yours))
    elif name == "grade":
        game.verify_grade()
        term.show(grade_text(term, _interruptible(term, game.grade, "search")))
    elif name == "odds":
        term.show(odds_text(term, game.odds(), rules))
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
        line = term.read(f"game {game.game} ({len(game.placed)}/{game.rules.n_slots} placed)> ")
        if line is None:
            raise _Quit
        try:
            command = parse_command(line, game.rules.n_slots)
            if command is not None:
                _execute(term, game, command)
                term.remember(line)
        except PlayError as exc:
            term.error(str(exc))
        except _Quit:
            raise
        except Exception as exc:  # a bug must not lose the game: report it in one line
            term.error(f"internal error, please report it ({type(exc).__name__}: {exc}); the game goes on")


def _show_down(term: Terminal, game: GameSession) -> None:
    reveals = []
    while game.phase is Phase.SHOWDOWN:
        reveals.append(game.reveal())
    term.show(showdown_text(term, game.rules, reveals))


def _equilibrium_provider(term: Terminal, args: argparse.Namespace) -> EquilibriumProvider:
    def progress(record: IterationRecord) -> None:
        term.status.update(f"{PROG}: equilibrium solve: iteration {record.iteration}, "
                           f"exploitability {record.exploitability:.4f}, {record.seconds:.1f} s")

    def provide(deal: Deal, stop: threading.Event | None) -> EquilibriumResult:
        common = dict(epsilon=args.epsilon, time_limit=args.time_limit, stop_event=stop,
                      progress=None if args.quiet else progress)
        try:
            if args.no_store:
                return solve_equilibrium(deal, **common)
            with SolutionStore(args.store) as store:  # opened in the solving thread (SQLite)
                return solve_equilibrium(deal, store=store, **common)
        finally:
            term.status.end()

    return provide


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog=PROG, description="Play Quintet against the computer, with hints.",
                      epilog="Commands during a game: " + ", ".join(COMMANDS) + " (type 'help'; docs/playing.md).")
    p.add_argument("--games", type=integer, default=1, metavar="N",
                   help=f"games in the match, 1..{MAX_GAMES} (default 1)")
    p.add_argument("--seed", type=integer, default=None,
                   help=f"seed of game 1, 0..{SEED_MAX} (game k uses SEED+k-1; default: a random seed, printed)")
    p.add_argument("--exposed", metavar="CARDS", default=None,
                   help="fix the deal: the 7 exposed cards, e.g. \"8h 7h 9d Ts 7s Qc Jc\"")
    p.add_argument("--opponent", default="equilibrium", metavar="MODEL",
                   help="the computer: equilibrium (default: a sample from the certified mix), greedy, uniform "
                        f"(a random arrangement), or a model of you it best-responds to: br:MODEL or {OPPONENT_HELP}")
    p.add_argument("--record", metavar="FILE", default=None,
                   help="append one JSON line per finished game to FILE")
    p.add_argument("--epsilon", type=number, default=PLAY_EPSILON, metavar="POINTS",
                   help=f"equilibrium: certified exploitability to reach (default {PLAY_EPSILON:g})")
    p.add_argument("--time-limit", type=number, default=PLAY_TIME_LIMIT, metavar="SECONDS",
                   help="stop any solve (the computer's equilibrium or best response, a hint, a grade) after "
                        f"this long and use the best found (default {PLAY_TIME_LIMIT:g})")
    p.add_argument("--store", metavar="PATH", default=None,
                   help="store of solved equilibria (default: $QUINTET_STORE or the user cache directory)")
    p.add_argument("--no-store", action="store_true", help="neither read nor write the store")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--plain", action="store_true",
                   help="plain text and plain line input even in a terminal (NO_COLOR: no colours)")
    p.add_argument("--unicode", action="store_true", help="suits as ♣ ♦ ♥ ♠ in plain text too")
    add_rules_arguments(p)
    return p


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    args.games, args.epsilon = check_games(args.games), check_epsilon(args.epsilon)
    args.time_limit = check_time_limit(args.time_limit)
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
    if args.opponent.needs_equilibrium and not args.no_store:
        SolutionStore(args.store).close()  # the store game 1 needs: a bad one fails now (none is made otherwise)
    term = Terminal.for_streams(plain=args.plain, unicode=args.unicode, history=user_cache_dir() / "play-history",
                                words=list(COMMANDS))
    provider = _equilibrium_provider(term, args)
    seed = seeds[0]
    while _play_match(term, args, rules, fixed, seed, provider) and term.ask("Play another match?"):
        last = seed + args.games - 1
        seed = last + 1 if last + args.games <= SEED_MAX else fresh_seed(args.games)
    return 0


def _play_match(term: Terminal, args: argparse.Namespace, rules: Rules, fixed: Deal | None, seed: int,
                provider: EquilibriumProvider) -> bool:
    """One match of ``args.games`` games from ``seed``; True if it was played to the end in a
    terminal (then another match is offered)."""
    term.show(_heading(f"Quintet against the computer: {_plural(args.games, 'game')}, seed {seed}. "
                       "Type 'help' for the commands, 'rules' for the rules."))
    records: list[GameRecord] = []
    try:
        for k in range(1, args.games + 1):
            game_seed = seed + k - 1
            deal = fixed or Deal.random(game_seed, rules)
            records.append(_play_game(term, args, deal, k, game_seed, provider, records))
    except _Quit:
        term.show(f"Game {len(records) + 1} was not finished; it is not recorded.")
    if records:
        term.show(summary_text(term, records, rules))
    return len(records) == args.games and term.line_editing


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
