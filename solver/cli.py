"""``quintet-solve`` — the best arrangement for a deal, given its exposed cards (seven in Quintet).

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

from quintet.cliutil import (
    OneLineParser,
    UsageError,
    add_rules_arguments,
    integer,
    positive_float,
    positive_int,
    print_json,
    rules_from_args,
    run_cli,
)
from quintet.game import Arrangement, Deal

from .api import ENGINES, Grade, Solution, complete, evaluate_arrangement, grade
from .equilibrium import EquilibriumResult, solve_equilibrium
from .opponents import OPPONENT_HELP, OpponentModel, parse_opponent
from .problem import OBJECTIVES
from .store import SolutionStore
from .tables import DealTables
from .verify import VERIFY_TIME_LIMIT, Verification, verify_equilibrium, verify_solution

T = TypeVar("T")

EQUILIBRIUM_TIME_LIMIT = 600.0


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="quintet-solve",
        description="Best Quintet arrangement against an opponent model, proven optimal.",
    )
    p.add_argument("exposed", nargs="+", metavar="EXPOSED",
                   help="the exposed cards, as one argument or several (Ah, Td, 10d, 7♠ …): 7 in Quintet; "
                        "with --rules drawN… the deck less the 25 live cards (11 of draw36)")
    p.add_argument("--opponent", default="equilibrium", metavar="MODEL",
                   help=f"opponent model: equilibrium (default: print a certified equilibrium mix) | "
                        f"{OPPONENT_HELP}; 'equilibrium' may also appear in a mixture")
    p.add_argument("--objective", default="margin", choices=OBJECTIVES,
                   help="margin: my points − theirs (default); points: my points")
    p.add_argument("--engine", default="auto", choices=ENGINES,
                   help="auto (= search, the faster proven engine), search, or cpsat")
    p.add_argument("--time-limit", type=positive_float, default=None, metavar="SECONDS",
                   help="stop and return the best found with its bound (default: none for a best "
                        f"response, {EQUILIBRIUM_TIME_LIMIT:g} s for the equilibrium)")
    p.add_argument("--epsilon", type=positive_float, default=0.01, metavar="POINTS",
                   help="equilibrium: stop once the certified exploitability is at most this (default 0.01)")
    p.add_argument("--store", metavar="PATH", default=None,
                   help="store of solved equilibria (default: $QUINTET_STORE or the user cache directory)")
    p.add_argument("--no-store", action="store_true", help="neither read nor write the store")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--workers", type=positive_int, default=1, help="CP-SAT workers (default 1)")
    p.add_argument("--seed", type=integer, default=0, help="random seed (default 0)")
    p.add_argument("--fix", action="append", default=[], metavar="SLOT=PACKET",
                   help="fix a packet to a slot (1-5), e.g. --fix \"5=Ah Kh Qh Jh Th\"; repeatable")
    p.add_argument("--grade", metavar="ARRANGEMENT",
                   help="grade this arrangement (packets separated by '|' or '/'): value, optimum, "
                        "regret, best two-card swap")
    p.add_argument("--verify", action="store_true",
                   help="recheck the answer with the other exact engine: a proven optimum, or the equilibrium's "
                        "exploitability (CP-SAT's best response to the mix); exit status 1 if refuted")
    p.add_argument("--verify-time-limit", type=positive_float, default=VERIFY_TIME_LIMIT, metavar="SECONDS",
                   help=f"time for --verify (default {VERIFY_TIME_LIMIT:g} s; inconclusive when it runs out)")
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
    """Run ``job(stop_event)`` in a thread; Ctrl-C sets the event and waits for the result.

    The main thread waits on an Event, not on ``Thread.join``: a join interrupted by Ctrl-C
    can leave ``is_alive()`` wrong (CPython issue 21822).
    """
    stop = threading.Event()
    done = threading.Event()
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["result"] = job(stop)
        except BaseException as exc:  # re-raised in the main thread
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=target, daemon=True).start()
    while not done.is_set():
        try:
            done.wait(0.1)
        except KeyboardInterrupt:
            if not stop.is_set():
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


def _progress(record: dict[str, float]) -> None:
    print(f"quintet-solve: iteration {int(record['iteration'])}: {int(record['pool'])} arrangements, "
          f"support {int(record['support'])}, best response {record['response']:+.4f}, "
          f"exploitability {record['best_exploitability']:.4f}, {record['seconds']:.1f} s", file=sys.stderr, flush=True)


def _equilibrium(args: argparse.Namespace, deal: Deal) -> EquilibriumResult:
    time_limit = EQUILIBRIUM_TIME_LIMIT if args.time_limit is None else args.time_limit
    progress = None if args.quiet else _progress

    def job(stop: threading.Event) -> EquilibriumResult:
        if args.no_store:
            return solve_equilibrium(deal, epsilon=args.epsilon, time_limit=time_limit, stop_event=stop,
                                     progress=progress)
        with SolutionStore(args.store) as store:
            return solve_equilibrium(deal, epsilon=args.epsilon, time_limit=time_limit, store=store,
                                     stop_event=stop, progress=progress)

    return _run_interruptible(job)


def format_equilibrium(eq: EquilibriumResult, *, seed: int = 0, unicode: bool = False, top: int = 10) -> str:
    from quintet.cards import format_cards
    from quintet.evaluator import describe

    rules = eq.deal.rules

    def packets(a: Arrangement) -> str:
        return " | ".join(format_cards(m, rules.deck, unicode=unicode, order="group") for m in a.packets)

    lines = [f"Exposed: {eq.deal.format(unicode=unicode)}    opponent: equilibrium (certified)",
             f"Equilibrium mix: {len(eq.mix)} arrangements"
             + (f" (the {top} most likely shown; --json lists all)" if len(eq.mix) > top else "") + ":"]
    for p, a in eq.mix[:top]:
        lines.append(f"  {100 * p:6.2f}%  {packets(a)}")
    play = eq.sample(seed)
    lines.append(f"Play (sampled from the mix, seed {seed}):")
    for s, m in enumerate(play.packets):
        lines.append(f"  slot {s + 1} ({rules.weights[s]} pts): "
                     f"{format_cards(m, rules.deck, unicode=unicode, order='group'):<16} {describe(m, rules)}")
    lines.append("Per-slot marginals (hand: probability):")
    for s, slot in enumerate(eq.slot_marginals()):
        shown = ", ".join(f"{h} {100 * p:.1f}%" for h, p in slot[:4])
        more = f", … ({len(slot) - 4} more)" if len(slot) > 4 else ""
        lines.append(f"  slot {s + 1} ({rules.weights[s]} pts): {shown}{more}")
    kind = "exact best response" if eq.proven else "proven bound on the best response"
    status = "converged" if eq.converged else f"target ε {eq.epsilon:g} not reached"
    extra = " — interrupted" if eq.interrupted else ""
    source = "answered from the store" if eq.from_store else f"{eq.iterations} iterations, {eq.seconds:.1f} s"
    lines.append(f"Exploitability: {eq.exploitability:.4f} — no arrangement gains more than that against this mix "
                 f"(certified: {kind}; {status}){extra}; {source}")
    return "\n".join(lines)


def _equilibrium_json(eq: EquilibriumResult, seed: int) -> dict[str, object]:
    """The equilibrium's JSON plus the fields every quintet-solve answer has: the sampled
    arrangement to play, its hands and its expected result against the mix; ``optimal`` is
    whether the mix is certified within ε, ``bound`` its certified exploitability."""
    tables = DealTables.build(eq.deal)
    play = eq.sample(seed)
    per_slot, margin, points = evaluate_arrangement(tables, eq.opponent().marginals(tables), play)
    return eq.to_dict(seed=seed) | {
        "objective": "margin",
        "arrangement": play.card_lists(eq.deal.rules),
        "hands": [s.hand for s in per_slot],
        "expected_margin": margin,
        "expected_points": points,
        "per_slot": [s.to_dict() for s in per_slot],
        "optimal": eq.converged,
        "bound": eq.exploitability,
    }


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    rules = rules_from_args(args)
    deal = Deal.from_exposed(args.exposed, rules)
    fixed = _parse_fixed(args.fix, rules.n_slots)
    if args.grade and fixed:
        raise UsageError("--grade and --fix cannot be combined")
    if args.no_store and args.store:
        raise UsageError("--store and --no-store cannot be combined")
    opponent: OpponentModel | str = args.opponent
    if any(part.split(":")[0].strip() == "equilibrium" for part in args.opponent.split(",")):
        eq = _equilibrium(args, deal)
        for note in eq.notes:
            print(f"quintet-solve: {note}", file=sys.stderr)
        if args.opponent.strip() == "equilibrium" and not args.grade and not fixed:
            check = (_run_interruptible(lambda stop: verify_equilibrium(eq, time_limit=args.verify_time_limit,
                                                                        stop_event=stop))
                     if args.verify else None)
            if args.json:
                print_json(_equilibrium_json(eq, args.seed) | _verification_json(check))
            else:
                print(format_equilibrium(eq, seed=args.seed, unicode=args.unicode))
                _print_verification(check)
            return _verification_status(check)
        opponent = parse_opponent(args.opponent, deal, extra={"equilibrium": eq.opponent()})
    common = dict(objective=args.objective, engine=args.engine, time_limit=args.time_limit,
                  workers=args.workers, seed=args.seed)
    if args.grade:
        g = _run_interruptible(lambda stop: grade(deal, args.grade, opponent, stop_event=stop, **common))
        check = _verify(args, g.best, opponent, {})
        if args.json:
            print_json(g.to_dict() | _verification_json(check))
        else:
            print(format_grade(g, unicode=args.unicode))
            _print_verification(check)
        return _verification_status(check)
    sol = _run_interruptible(lambda stop: complete(deal, fixed, opponent, stop_event=stop, **common))
    check = _verify(args, sol, opponent, fixed)
    if args.json:
        print_json(sol.to_dict() | _verification_json(check))
    else:
        print(format_solution(sol, unicode=args.unicode))
        _print_verification(check)
    return _verification_status(check)


def _verify(args: argparse.Namespace, sol: Solution, opponent: OpponentModel | str,
            fixed: dict[int, str]) -> Verification | None:
    if not args.verify:
        return None
    return _run_interruptible(lambda stop: verify_solution(sol, opponent, fixed=fixed,
                                                           time_limit=args.verify_time_limit, stop_event=stop))


def _verification_json(check: Verification | None) -> dict[str, object]:
    return {} if check is None else {"verification": check.to_dict()}


def _print_verification(check: Verification | None) -> None:
    if check is not None:
        print(check.describe())


def _verification_status(check: Verification | None) -> int:
    """Exit status: 1 when an independent recheck refuted the answer, else 0."""
    return 1 if check is not None and check.status == "refuted" else 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli("quintet-solve", _main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
