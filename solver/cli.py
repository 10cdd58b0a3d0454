"""``quintet-solve`` — the best arrangement for a deal, given its seven exposed cards.

    quintet-solve 8h 7h 9d Ts 7s Qc Jc
    quintet-solve "8h 7h 9d Ts 7s Qc Jc" --opponent uniform:0.3,greedy:0.7 --json
    quintet-solve 8h 7h 9d Ts 7s Qc Jc --fix "5=Ah Kh Qh Jh Th"      # complete a partial arrangement
    quintet-solve 8h 7h 9d Ts 7s Qc Jc --grade "9s 9c 8s 8c 7c | …"  # grade an arrangement

Input errors print one line on stderr and exit 2.  Ctrl-C stops the search and prints the
best arrangement found so far with its proven bound.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from quintet.cliutil import OneLineParser, UsageError, add_rules_arguments, print_json, rules_from_args, run_cli
from quintet.game import Deal

from .api import ENGINES, Grade, Solution, complete, grade
from .opponents import OPPONENT_HELP
from .problem import OBJECTIVES

T = TypeVar("T")


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {text!r}")
    return value


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="quintet-solve",
        description="Best Quintet arrangement against an opponent model, proven optimal.",
    )
    p.add_argument("exposed", nargs="+", metavar="EXPOSED",
                   help="the 7 exposed cards, as one argument or seven (Ah, Td, 10d, 7♠ …)")
    p.add_argument("--opponent", default="uniform", metavar="MODEL", help=f"opponent model: {OPPONENT_HELP}")
    p.add_argument("--objective", default="margin", choices=OBJECTIVES,
                   help="margin: my points − theirs (default); points: my points")
    p.add_argument("--engine", default="auto", choices=ENGINES,
                   help="auto (= search, the faster proven engine), search, or cpsat")
    p.add_argument("--time-limit", type=_positive_float, default=None, metavar="SECONDS",
                   help="stop and return the best found with its bound (default: no limit)")
    p.add_argument("--workers", type=_positive_int, default=1, help="CP-SAT workers (default 1)")
    p.add_argument("--seed", type=_int, default=0, help="random seed (default 0)")
    p.add_argument("--fix", action="append", default=[], metavar="SLOT=PACKET",
                   help="fix a packet to a slot (1-5), e.g. --fix \"5=Ah Kh Qh Jh Th\"; repeatable")
    p.add_argument("--grade", metavar="ARRANGEMENT",
                   help="grade this arrangement (packets separated by '|' or '/'): value, optimum, "
                        "regret, best two-card swap")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--unicode", action="store_true", help="print suits as ♣ ♦ ♥ ♠")
    add_rules_arguments(p)
    return p


def _parse_fixed(items: list[str], n_slots: int) -> dict[int, str]:
    fixed: dict[int, str] = {}
    for item in items:
        slot_text, sep, packet = item.partition("=")
        if not sep or not slot_text.strip().isdigit():
            raise UsageError(f"--fix expects SLOT=PACKET, e.g. \"5=Ah Kh Qh Jh Th\", got {item!r}")
        slot = int(slot_text)
        if not 1 <= slot <= n_slots:
            raise UsageError(f"--fix slot {slot} is not a slot (1..{n_slots})")
        if slot in fixed:
            raise UsageError(f"--fix gives slot {slot} twice")
        fixed[slot] = packet
    return fixed


def _run_interruptible(job: Callable[[threading.Event], T]) -> T:
    """Run ``job(stop_event)`` in a thread; Ctrl-C sets the event and waits for the result."""
    stop = threading.Event()
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["result"] = job(stop)
        except BaseException as exc:  # re-raised in the main thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    while thread.is_alive():
        try:
            thread.join(0.1)
        except KeyboardInterrupt:
            stop.set()
            print("quintet-solve: interrupted, returning the best found so far", file=sys.stderr)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["result"]  # type: ignore[return-value]


def _pct(x: float) -> str:
    return f"{100 * x:6.2f}%"


def format_solution(sol: Solution, *, unicode: bool = False, title: str = "Best arrangement") -> str:
    from quintet.cards import format_cards

    rules = sol.deal.rules
    lines = [
        f"Exposed: {sol.deal.format(unicode=unicode)}    opponent: {sol.opponent}    objective: {sol.objective}",
        f"{title}:",
        f"{'slot':>4} {'pts':>3}  {'cards':<16} {'hand':<30} {'P(win)':>7} {'P(tie)':>7} {'P(loss)':>7}"
        f" {'E[pts]':>7} {'E[margin]':>9}",
    ]
    for s, packet in zip(sol.per_slot, sol.arrangement.packets, strict=True):
        cards = format_cards(packet, rules.deck, unicode=unicode, order="group")
        lines.append(
            f"{s.slot:>4} {s.points:>3}  {cards:<16} {s.hand:<30} {_pct(s.p_win):>7} {_pct(s.p_tie):>7}"
            f" {_pct(s.p_loss):>7} {s.expected_points:7.3f} {s.expected_margin:+9.3f}"
        )
    lines.append(f"Total: expected margin {sol.expected_margin:+.4f}, expected points {sol.expected_points:.4f}")
    if sol.engine == "given":
        return "\n".join(lines)
    if sol.optimal:
        proof = "optimal (proven)"
    else:
        proof = f"not proven optimal: best found {sol.value:.4f}, bound {sol.bound:.4f} (gap {sol.gap:.4f})"
    if sol.interrupted:
        proof += " — interrupted"
    lines.append(f"Proof: {proof}; engine {sol.engine}; {sol.seconds:.3f} s")
    return "\n".join(lines)


def format_grade(g: Grade, *, unicode: bool = False) -> str:
    lines = [format_solution(g.given, unicode=unicode, title="Your arrangement"), ""]
    optimum = f"{g.best.value:.4f}" + ("" if g.best.optimal else f" (bound {g.best.bound:.4f}, unproven)")
    lines.append(f"Value {g.given.value:.4f}; optimum {optimum}; regret {g.regret:.4f}")
    if g.best_swap is None:
        lines.append("No swap of two cards improves this arrangement.")
    else:
        sw = g.best_swap
        lines.append(f"Best two-card swap: {sw.card_a} (slot {sw.slot_a}) ↔ {sw.card_b} (slot {sw.slot_b})"
                     f" → {sw.value:.4f} (+{sw.value - g.given.value:.4f})")
    lines += ["", format_solution(g.best, unicode=unicode, title="Optimal arrangement")]
    return "\n".join(lines)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    rules = rules_from_args(args)
    deal = Deal.from_exposed(args.exposed, rules)
    fixed = _parse_fixed(args.fix, rules.n_slots)
    if args.grade and fixed:
        raise UsageError("--grade and --fix cannot be combined")
    common = dict(objective=args.objective, engine=args.engine, time_limit=args.time_limit,
                  workers=args.workers, seed=args.seed)
    if args.grade:
        g = _run_interruptible(lambda stop: grade(deal, args.grade, args.opponent, stop_event=stop, **common))
        if args.json:
            print_json(g.to_dict())
        else:
            print(format_grade(g, unicode=args.unicode))
        return 0
    sol = _run_interruptible(lambda stop: complete(deal, fixed, args.opponent, stop_event=stop, **common))
    if args.json:
        print_json(sol.to_dict())
    else:
        print(format_solution(sol, unicode=args.unicode))
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli("quintet-solve", _main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
