"""``quintet`` — the game's command line: ``quintet showdown``; ``quintet hand``, ``compare`` and
``draw`` (hands under any rule set, the draw advisor: ``quintet.draw.cli``).

Every input error is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from unicodedata import east_asian_width

from .cards import format_cards
from .cliutil import OneLineParser, add_rules_arguments, print_json, rules_from_args, run_cli
from .draw import cli as draw_cli
from .evaluator import HandValue
from .game import Showdown
from .reports import showdown_report

ARRANGEMENT_HELP = (
    "five packets of five cards in slot order, packets separated by '|' or '/', "
    "cards by spaces or commas, e.g. \"9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | ...\""
)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="quintet", description="Quintet (Parallel Poker): the game's tools.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    sd = sub.add_parser(
        "showdown",
        help="compare two arrangements slot by slot",
        description="Show down two arrangements of the same deal: " + ARRANGEMENT_HELP + ".",
    )
    sd.add_argument("--exposed", required=True, help="the exposed cards (7 in Quintet), e.g. \"8h 7h 9d Ts 7s Qc Jc\"")
    sd.add_argument("--a", required=True, metavar="ARRANGEMENT", help="player A's arrangement")
    sd.add_argument("--b", required=True, metavar="ARRANGEMENT", help="player B's arrangement")
    sd.add_argument("--json", action="store_true", help="print one JSON object")
    sd.add_argument("--unicode", action="store_true", help="print suits as ♣ ♦ ♥ ♠")
    add_rules_arguments(sd)
    draw_cli.add_commands(sub)
    return parser


def format_showdown(result: Showdown, *, unicode: bool = False) -> str:
    """The show-down as a table: the columns as wide as their longest cell (in terminal cells)."""
    def cell_len(text: str) -> int:  # a wide character (the joker 🃏) takes two cells
        return sum(2 if east_asian_width(ch) in "WF" else 1 for ch in text)

    def cell(h: HandValue) -> str:
        return f"{format_cards(h.mask, unicode=unicode, order='group')} ({h.description})"

    def pad(text: str, width: int) -> str:
        return text + " " * (width - cell_len(text))

    rows = [(cell(s.hand_a), cell(s.hand_b)) for s in result.slots]
    wa, wb = (max(cell_len(text) for text in column) for column in zip(*rows, strict=True))
    lines = [f"{'slot':>4} {'pts':>3}  {pad('A', wa)}  {pad('B', wb)}  winner"]
    for s, (a, b) in zip(result.slots, rows, strict=True):
        lines.append(f"{s.slot:>4} {s.weight:>3}  {pad(a, wa)}  {pad(b, wb)}  {s.winner or 'tie'}")
    verdict = "tie" if result.winner is None else f"{result.winner} wins by {abs(result.margin):g}"
    lines.append(f"A {result.points_a:g} : B {result.points_b:g} — {verdict}")
    return "\n".join(lines)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    rules = rules_from_args(args)
    if args.command in draw_cli.COMMANDS:
        return draw_cli.run(args, rules)
    if args.command == "showdown":
        result = showdown_report(args.exposed, args.a, args.b, rules)
        if args.json:
            print_json(result.to_model())
        else:
            print(format_showdown(result, unicode=args.unicode))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli("quintet", _main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
