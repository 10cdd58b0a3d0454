"""What ``quintet-play`` shows: the board, advice, the show-down, the match's summary, a game's
review, the statistics and the puzzles — rich renderables for the terminal layer
(``quintet.terminal``), laid out to its width.  The numbers come from the one module of each
concept (``solver.play.session``, ``review``, ``statistics``, ``puzzle``); this module only
writes them."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.text import Text

from quintet.cards import SUIT_NAMES, SUIT_SYMBOLS, cards_of, parse_cards
from quintet.evaluator import describe
from quintet.rules import Rules
from quintet.terminal import SUIT_STYLES, Terminal, flow, grid
from quintet.text import plural, signed
from quintet.trend import Trend
from solver.advisor.advice import Grade, Solution, Swap
from solver.advisor.sparse import SparseEquilibrium
from solver.apps.play_commands import COMMANDS
from solver.play.puzzle import CLOSE, NEAR, Puzzle, PuzzleResult
from solver.play.review import GameReview, Regret
from solver.play.session import MIX_HINT_ROLL_STREAM, GameSession, Odds, Reveal
from solver.play.statistics import SessionStats
from solver.problem.opponent_spec import EQUILIBRIUM, opponent_kind
from solver.storage.records import GameRecord

__all__ = [
    "board", "help_text", "rules_text", "hint_text", "grade_text", "mix_hint_text", "odds_text", "showdown_text",
    "summary_text", "swap_text", "verdict", "review_text", "stats_text", "stats_line", "puzzle_heading",
    "puzzle_result_text", "puzzle_answer_text", "puzzles_summary",
]



# ----------------------------------------------------------------------------- pieces


def _heading(text: str) -> Text:
    return Text(text, style="bold")


def _points(x: float) -> str:
    return f"{x:g}"


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
                      f"{100 * advice.p_win:.1f}%", f"{100 * advice.p_tie:.1f}%", signed(advice.expected_margin),
                      style="bold" if mine else "")
    return shown


def _proof(sol: Solution) -> str:
    if sol.optimal:
        return "proven optimal"
    reason = "interrupted" if sol.interrupted else "time limit"
    return f"{reason}: best found, at most {sol.gap:.2f} below the optimum"


def hint_text(term: Terminal, sol: Solution, yours: set[int], *, full: bool = False) -> RenderableType:
    """``hint``: the best completion of ``yours`` (the kept slots, marked ``*``); ``full``: all
    five slots were filled, so the hint is the best arrangement ('grade' rates the player's)."""
    kept = f"your slot{'s' if len(yours) > 1 else ''} {', '.join(map(str, sorted(yours)))} kept (*)" if yours \
        else "the best arrangement"
    parts: list[RenderableType] = []
    if full:
        parts.append(Text("Your five slots are full: the best arrangement ('grade' rates yours).", style="dim"))
    return Group(*parts, _heading(f"Hint against the computer's model ({sol.opponent}) — {kept}; {_proof(sol)}:"),
                 _advice_table(term, sol, yours),
                 Text(f"Expected margin {signed(sol.expected_margin)} against the model."),
                 Text("To play it: play " + sol.arrangement.format(sol.deal.rules), style="dim", no_wrap=True,
                      overflow="ignore"))


def swap_text(term: Terminal, swap: Swap | None, value: float, rules: Rules, *,
              command: bool = True) -> RenderableType:
    """The best two-card swap in one line: the cards coloured, the value after it and the gain;
    ``command``: and a line with the 'swap A B' that makes it."""
    if swap is None:
        return Text("No swap of two cards improves it.")
    arrow, exchange = ("→", "↔") if term.unicode else ("->", "<->")
    line = Text("Best two-card swap: ")
    line.append_text(_named_card(term, swap.card_a, rules)).append(f" (slot {swap.slot_a}) {exchange} ")
    line.append_text(_named_card(term, swap.card_b, rules)).append(f" (slot {swap.slot_b}) {arrow} ")
    line.append(f"{swap.change(value)}.")
    if command:
        return Group(line, Text(f"To make it: swap {swap.card_a} {swap.card_b}", style="dim"))
    return line


def _named_card(term: Terminal, code: str, rules: Rules) -> Text:
    return term.card(parse_cards(code, rules.deck)[0], rules.deck)


def grade_text(term: Terminal, g: Grade) -> RenderableType:
    best = f"{signed(g.best.value)} ({_proof(g.best)})"
    return Group(_heading(f"Your arrangement against the computer's model ({g.given.opponent}): expected margin "
                          f"{signed(g.given.value)}; the best {best}; regret {g.regret:.2f}."),
                 _advice_table(term, g.given, set()), swap_text(term, g.best_swap, g.given.value, g.given.deal.rules))


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
    parts: list[RenderableType] = [_heading(f"Hint: a mix of at most {plural(n, 'arrangement')} against the "
                                            f"equilibrium — {claim}{kept}:")]
    parts += _mix_tables(term, sp)
    roll = sp.roll(seed, MIX_HINT_ROLL_STREAM)
    play = sp.mix[roll.index][1]
    parts.append(Text(f"Die roll (seed {seed}, the hints' stream): {roll.value:.4f} falls in arrangement "
                      f"{roll.index + 1}'s share "
                      f"[{roll.low:.4f}, {roll.high:.4f}): play it."))
    extra = " — interrupted" if sp.interrupted else ""
    parts.append(Text(f"Exploitability {sp.exploitability:.4f} (certified: no arrangement gains more against the "
                      f"mix); the full equilibrium {sp.equilibrium_exploitability:.4f} with "
                      f"{plural(sp.equilibrium_support, 'arrangement')}{extra}."))
    parts.append(Text("To play it: play " + play.format(rules), style="dim", no_wrap=True, overflow="ignore"))
    return Group(*parts)


def _mix_tables(term: Terminal, sp: SparseEquilibrium) -> list[RenderableType]:
    """The K arrangements: one row each when a row fits the terminal; else one column each
    (rows are the slots), as many columns a table as fit, so a packet is never split."""
    rules = sp.deal.rules
    packets = [[term.cards(m, rules.deck) for m in a.packets] for _, a in sp.mix]
    cell = max(c.cell_len for row in packets for c in row)
    if 2 + 3 + 2 + 6 + rules.n_slots * (cell + 2) <= term.width:  # indent, #, share, the slots
        table, shown = grid("#>", "share>", *(f"slot {s + 1}" for s in range(rules.n_slots)))
        for i, ((p, _), row) in enumerate(zip(sp.mix, packets, strict=True), start=1):
            table.add_row(str(i), f"{100 * p:.1f}%", *row)
        return [shown]
    label = max(len(f"slot {rules.n_slots}"), 4)
    per_table = max(1, (term.width - 2 - label) // (max(cell, 12) + 2))
    out: list[RenderableType] = []
    for first in range(0, len(sp.mix), per_table):
        chunk = range(first, min(first + per_table, len(sp.mix)))
        table, shown = grid("!", *(f"#{i + 1} {100 * sp.mix[i][0]:.1f}%!" for i in chunk))
        for s in range(rules.n_slots):
            table.add_row(f"slot {s + 1}", *(packets[i][s] for i in chunk))
        out.append(shown)
    return out


def odds_text(term: Terminal, odds: Odds, rules: Rules, top: int = 5) -> RenderableType:
    labels = [_slot_label(rules, s) for s in range(len(odds.slots))]
    room = term.width - 2 - max(map(len, labels)) - 2  # the indent, the label column, the gap
    table, shown = grid("!", "")
    for label, hands in zip(labels, odds.slots, strict=True):
        table.add_row(label, flow((Text(f"{h.hand} {100 * h.probability:.1f}%") for h in hands), room))
    parts: list[RenderableType] = [_heading(f"The computer's odds per slot (its model: {odds.model}):"), shown]
    if odds.plans:
        more = f", the {top} most likely" if len(odds.plans) > top else ""
        parts.append(Text(f"Its plans (hand category per slot): {plural(odds.arrangements, 'arrangement')} in "
                          f"{plural(len(odds.plans), 'plan')}{more}:"))
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


def verdict(player: float, computer: float, what: str = "") -> str:
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
    return Group(_heading(f"Match over after {plural(n, 'game')}: you {_points(you)}, computer {_points(them)} — "
                          f"{verdict(you, them, 'the match')} (games won {won}, lost {lost}, drawn {drawn})."),
                 shown,
                 Text("Regret: how much more (expected points of margin) the best response to the computer's model "
                      "would have won than your arrangement; 0 = you played a best response."))


# ----------------------------------------------------------------------------- review, statistics, puzzles


def _best_table(term: Terminal, sol: Solution) -> RenderableType:
    """An arrangement's packets, hands and expected margins, one row a slot."""
    rules = sol.deal.rules
    table, shown = grid("slot!", "cards!", "hand", "margin>", indent=4)
    for s, (advice, packet) in enumerate(zip(sol.per_slot, sol.arrangement.packets, strict=True)):
        table.add_row(str(s + 1), term.cards(packet, rules.deck), advice.hand, signed(advice.expected_margin))
    return shown


def _regret_text(term: Terminal, regret: Regret, title: str) -> list[RenderableType]:
    g = regret.grade
    rules = g.given.deal.rules
    head = Text.assemble((title, "bold"), f": your expected margin {signed(g.given.value)}, the best "
                         f"{signed(g.best.value)} ({_proof(g.best)}) — regret ",
                         (f"{g.regret:.2f}", "bold green" if g.regret < 0.005 else "bold"), ".")
    luck = Text(f"  Result {signed(regret.result)} = your expected margin {signed(regret.expected)} + luck "
                f"{signed(regret.luck)}.")
    parts: list[RenderableType] = [head, luck,
                                   Padding(swap_text(term, g.best_swap, g.given.value, rules, command=False),
                                           (0, 0, 0, 2))]
    if g.regret >= 0.005:
        against = "it" if regret.against == "equilibrium" else "the model"
        parts.append(Text(f"  Per slot, your expected margin beside the best arrangement's against {against}:"))
        table, shown = grid("slot!", "yours>", "best>", "lost>", "best cards!", "hand", "", indent=4)
        for s, advice, packet in zip(regret.slots, g.best.per_slot, g.best.arrangement.packets, strict=True):
            table.add_row(str(s.slot), signed(s.yours), signed(s.best), signed(s.lost), term.cards(packet, rules.deck),
                          advice.hand, Text("← the regret was made here", style="bold")
                          if s.slot == regret.worst_slot else "")
        parts.append(shown)
    if g.best.alternatives is not None:
        parts += _plans_text(g)
    return parts


def _plans_text(g: Grade) -> list[RenderableType]:
    """Your plan (the hand category of each slot) beside the best arrangements of the best plans,
    each the best whose plan is none of those above it, with its expected margin."""
    rows = [("yours", g.given), ("1. best", g.best),
            *((f"{rank}.", alt) for rank, alt in enumerate(g.best.alternatives or (), 2))]
    table, shown = grid("!", "margin>", "plan: the hand in each slot", indent=4)
    for label, sol in rows:
        proof = "" if sol is g.given or sol.optimal else f" (best found, bound {signed(sol.bound)})"
        table.add_row(label, signed(sol.expected_margin), " | ".join(sol.plan) + proof)
    return [Text("  Your plan beside the best plans (each the best arrangement whose plan is none of those above it):"),
            shown]


def review_text(term: Terminal, r: GameReview) -> RenderableType:
    """A finished game reviewed: each slot's packets, hands, who scored and why; the regret
    against the computer's model and against the equilibrium, with the best swap and the best
    arrangement (``solver.play.review``)."""
    record = r.record
    rules = record.deal.rules
    mine, theirs = record.showdown.points_a, record.showdown.points_b
    other = "the other side" if record.opponent == "friend" else "the computer"
    parts: list[RenderableType] = [
        _heading(f"Review of game {record.game} (seed {record.seed}, against {record.opponent}, {record.time}): "
                 f"you {_points(mine)}, {other} {_points(theirs)} — {verdict(mine, theirs)}."),
        Text("Exposed: ").append_text(term.cards(record.deal.exposed, rules.deck, "rank"))
        .append(f" · advice asked: {', '.join(record.hints) or 'none'}"),
    ]
    width = max(term.cards(m, rules.deck).cell_len for s in r.slots
                for m in (s.result.hand_a.mask, s.result.hand_b.mask))
    verdicts = []
    for s in r.slots:
        if s.winner == "player":
            verdicts.append((f"you win {_points(s.result.points_a)}", "bold green"))
        elif s.winner == "computer":
            verdicts.append((f"{other} wins {_points(s.result.points_b)}", "bold red"))
        else:
            verdicts.append(("tie", "dim"))
    wide = max(len(what) for what, _ in verdicts)
    for s, (what, style) in zip(r.slots, verdicts, strict=True):
        res = s.result
        head, shown = grid("!", "!", "")  # the reason wraps in its own column, the same for every slot
        head.columns[1].min_width = wide
        head.add_row(f"{_slot_label(rules, res.slot - 1)}:", Text(what, style=style), s.reason)
        table, hands = grid("!", "!", "", indent=4)
        table.columns[1].min_width = width
        for side, hand in (("you", res.hand_a), ("computer" if other == "the computer" else "they", res.hand_b)):
            table.add_row(side, term.cards(hand.mask, rules.deck), hand.description)
        parts += [shown, hands]
    if r.model is not None:
        parts += _regret_text(term, r.model, f"Against the computer's model ({r.model.model})")
    if r.equilibrium is not None:
        title = f"Against the equilibrium (certified exploitability {r.equilibrium.exploitability:.4f})"
        if r.model is not None and r.model.grade is r.equilibrium.grade:
            parts.append(Text(f"{title}: the same — the computer played it.", style="dim"))
        else:
            parts += _regret_text(term, r.equilibrium, title)
    for note in r.notes:
        parts.append(Text(note[0].upper() + note[1:] + ".", style="dim"))
    return Group(*parts)


def _trend_words(t: Trend, what: str) -> str:
    """'mean regret 1.25; the last 10 games 0.80, the 24 before 1.44 (down)'."""
    if t.mean is None:
        return f"no {what} yet"
    text = f"mean {what} {t.mean:.2f}"
    if t.recent is not None and t.earlier is not None:
        way = {"up": "getting worse", "down": "improving", "steady": "steady"}[t.direction or "steady"]
        text += (f"; the last {t.window} games {t.recent:.2f}, the {plural(t.count - t.window, 'game')} before "
                 f"{t.earlier:.2f} ({way})")
    return text


def stats_line(stats: SessionStats) -> str:
    """The statistics in one line (after a match)."""
    if not stats.games:
        return "No games recorded yet."
    worst = stats.worst_slot
    where = f"; most regret made in slot {worst.slot} ({worst.regret:.2f} a game)" if worst and worst.regret else ""
    regrets = "; ".join(f"{_trend_words(o.regret, 'regret')} against {o.opponent}" for o in stats.opponents
                        if o.regret.count)
    return (f"{plural(stats.games, 'game')} recorded: won {stats.won}, lost {stats.lost}, drawn {stats.drawn}"
            f"{'; ' if regrets else ''}{regrets}{where}.")


def stats_text(term: Terminal, stats: SessionStats, source: Path | None) -> RenderableType:
    """The statistics of the games recorded (``solver.play.statistics``): games, points; per
    opponent, the results and the regret's trend; per slot, the regret made there."""
    where = f" ({source})" if source is not None else ""
    if not stats.games:
        return Text(f"No games recorded yet{where}.")
    since = f" since {stats.first[:10]}" if stats.first else ""
    margin = stats.margin.mean or 0.0
    parts: list[RenderableType] = [
        _heading(f"Your games{where}: {plural(stats.games, 'game')}{since} — won {stats.won}, lost {stats.lost}, "
                 f"drawn {stats.drawn}; points {_points(stats.points_player)} : {_points(stats.points_computer)} "
                 f"({signed(margin)} a game)."),
        Text("Regret per opponent (the best reply to the computer's model minus yours, in expected points):"),
    ]
    for o in stats.opponents:
        parts.append(Text(f"  {o.opponent}: {plural(o.games, 'game')} (won {o.won}, lost {o.lost}, drawn {o.drawn}); "
                          f"{_trend_words(o.regret, 'regret')}."))
        blocks = o.regret.blocks
        if len(blocks) > 1:
            w = o.regret.window
            room = term.width - 4 - len(f"by {w} games:") - 2
            parts.append(Text(f"    by {w} games: ").append_text(flow(
                (Text(f"{i * w + 1}-{min((i + 1) * w, o.regret.count)} {b:.2f}") for i, b in enumerate(blocks)),
                room)))
    table, shown = grid("slot>", "pts>", "won>", "lost>", "tied>", "regret>")
    worst = stats.worst_slot
    for s in stats.slots:
        table.add_row(str(s.slot), str(s.points), str(s.won), str(s.lost), str(s.tied),
                      "-" if s.regret is None else f"{s.regret:.2f}",
                      style="bold red" if worst is not None and s is worst else "")
    parts += [Text("Per slot (the mean regret made there a game: the best reply's expected margin minus yours):"),
              shown]
    if worst is not None and worst.regret is not None:
        parts.append(Text(f"Most regret made in slot {worst.slot} ({worst.points} pts): {worst.regret:.2f} a game."))
    return Group(*parts)


def puzzle_heading(puzzle: Puzzle, k: int, count: int, rating: float) -> RenderableType:
    """A puzzle's heading: where it comes from, its rating beside the player's (a rated one), the opponent."""
    kind = opponent_kind(puzzle.opponent)
    what = (f"the deal's equilibrium (a certified mix, exploitability {puzzle.exploitability:.4f})"
            if kind.name == EQUILIBRIUM and puzzle.exploitability is not None else f"{kind.label} ({kind.help})")
    seed = f", seed {puzzle.seed}" if puzzle.seed is not None else ""
    where = (f"puzzle {puzzle.number:,} of the {puzzle.count:,} shipped" if puzzle.source == "set" else
             f"solved deal {puzzle.number:,} of {puzzle.count:,} in the store")
    rated = (f", rated {puzzle.rating} (you: {rating:.0f})" if puzzle.rating is not None else ", unrated")
    return Group(_heading(f"\nPuzzle {k} of {count}{seed}: {where}{rated}."),
                 Text(f"Find the best arrangement against {what}. 'play' or 'done' to answer; 'answer' gives up."))


def _rating_text(result: PuzzleResult) -> Text | None:
    r = result.rating
    if r is None:
        return None
    return Text(f"Rating {r.before:.0f} → {r.after:.0f} ({r.change:+.0f}; the puzzle {r.puzzle}, expected score "
                f"{r.expected:.2f}).")


def _themes_text(result: PuzzleResult) -> Text | None:
    """The answer's themes, each with what it means (shown with the answer only)."""
    parts: list[str | tuple[str, str]] = []
    for t in result.themes:
        parts.extend(("; " if parts else "Themes: ", (t.name, "bold"), f" — {t.about}"))
    return Text.assemble(*parts, ".") if parts else None


def puzzle_result_text(term: Terminal, result: PuzzleResult) -> RenderableType:
    """An answer graded: solved (with the themes), or a miss — its regret, not the answer: the
    player may try again or ask for it (``puzzle_answer_text``)."""
    g = result.grade
    stars = ("★" * result.stars + "☆" * (3 - result.stars)) if term.unicode else f"{result.stars}/3 stars"
    extra = [t for t in (_rating_text(result),) if t is not None]
    if result.solved:
        head = Text.assemble(("Solved", "bold green"), f" {stars}: no arrangement does better — expected margin "
                             f"{signed(g.given.value)} ({_proof(g.best)}).")
        return Group(head, *extra, *[t for t in (_themes_text(result),) if t is not None])
    close = "close" if result.stars == 2 else "near" if result.stars == 1 else "off"
    head = Text.assemble((f"Regret {g.regret:.2f}", "bold"), f" {stars} ({close}: within {CLOSE:g} is close, "
                         f"{NEAR:g} near): your expected margin {signed(g.given.value)}, the best "
                         f"{signed(g.best.value)} ({_proof(g.best)}).")
    return Group(head, *extra, Text("Try again: change your packets and answer, or 'answer' to see the best "
                                    "arrangement."))


def puzzle_answer_text(term: Terminal, result: PuzzleResult) -> RenderableType:
    """A puzzle's answer shown (given up, or after a miss): the best arrangement, the themes and,
    after a miss, the best swap of the last answer."""
    best = result.grade.best
    parts: list[RenderableType] = []
    if result.given_up:
        parts.extend(t for t in (_rating_text(result),) if t is not None)
    else:
        g = result.grade
        parts.append(Padding(swap_text(term, g.best_swap, g.given.value, g.given.deal.rules, command=False),
                             (0, 0, 0, 2)))
    parts.append(Text(f"The best arrangement: expected margin {signed(best.value)} ({_proof(best)}):"))
    parts.append(_best_table(term, best))
    parts.extend(t for t in (_themes_text(result),) if t is not None)
    return Group(*parts)


def puzzles_summary(first: Sequence[PuzzleResult], retried: int, start: float,
                    rating: float | None) -> RenderableType:
    """The training's result by each puzzle's first answer (a puzzle given up has no stars), the
    puzzles solved on a retry, the rating's move (``rating`` None: none was rated)."""
    n = len(first)
    answered = [r for r in first if not r.given_up]
    solved = sum(r.solved for r in answered)
    stars = sum(r.stars for r in answered)
    given_up = n - len(answered)
    mean = f", mean regret {sum(r.grade.regret for r in answered) / len(answered):.2f}" if answered else ""
    gave = f", {given_up} given up" if given_up else ""
    again = f" (and {retried} on a retry)" if retried else ""
    moved = f" Rating {start:.0f} → {rating:.0f}." if rating is not None else ""
    return _heading(f"Puzzles: {n}, solved {solved}{again}{gave}; stars {stars} of {3 * n}{mean}.{moved}")
