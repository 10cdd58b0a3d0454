"""``quintet-solve`` — the best arrangement for a deal, given its exposed cards (seven in Quintet).

    quintet-solve 8h 7h 9d Ts 7s Qc Jc
    quintet-solve "8h 7h 9d Ts 7s Qc Jc" --opponent uniform:0.3,greedy:0.7 --json
    quintet-solve 8h 7h 9d Ts 7s Qc Jc --fix "5=Ah Kh Qh Jh Th"      # complete a partial arrangement
    quintet-solve 8h 7h 9d Ts 7s Qc Jc --grade "9s 9c 8s 8c 7c | …"  # grade an arrangement
    quintet-solve 8h 7h 9d Ts 7s Qc Jc --max-support 3                 # the best 3-arrangement mix found

Input errors print one line on stderr and exit 2.  Ctrl-C stops the search and prints the
best arrangement found so far with its proven bound.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Sequence

from quintet.cliutil import (
    OneLineParser,
    UsageError,
    add_rules_arguments,
    integer,
    number,
    print_json,
    rules_from_args,
    run_cli,
)
from quintet.game import Arrangement
from quintet.rules import Rules
from quintet.text import plural, signed
from solver.advisor.advice import Grade, Solution
from solver.advisor.equilibrium import EquilibriumResult, sample_mix
from solver.advisor.limits import VERIFY_TIME_LIMIT
from solver.advisor.plans import plans
from solver.advisor.request import FIELDS, SolveAnswer, SolveRequest, parse_fix_options, solve_request
from solver.advisor.safe import SafeResponse
from solver.advisor.sparse import SparseEquilibrium
from solver.apps.interrupt import run_interruptible
from solver.engines.precompile import groups_for, precompile
from solver.games.double_oracle import IterationRecord
from solver.games.sparse_mix import SparseRecord
from solver.problem.best_response import VALUE_TOLERANCE
from solver.storage.store import SolutionStore

_KINDS: dict[str, dict[str, object]] = {"number": {"type": number}, "integer": {"type": integer},
                                        "fix": {"action": "append", "default": []}}
"""The argparse keywords of a request field's kind (``solver.advisor.request.RequestField``)."""


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="quintet-solve",
        description="Best Quintet arrangement against an opponent model, proven optimal.",
    )
    for f in FIELDS:  # the request's fields, declared once; population and style come from files here
        if f.kind == "cards":
            p.add_argument(f.name, nargs="+", metavar=f.metavar, help=f.words())
        elif f.kind == "rules":
            add_rules_arguments(p)
        elif f.name == "verify":  # a flag here: its seconds are --verify-time-limit
            p.add_argument("--verify", action="store_true", help=f.words())
            p.add_argument("--verify-time-limit", type=number, default=VERIFY_TIME_LIMIT, metavar="SECONDS",
                           help=f"time for --verify (default {VERIFY_TIME_LIMIT:g} s; inconclusive when it runs out)")
        elif f.kind not in ("population", "style"):
            p.add_argument("--" + f.name.replace("_", "-"), metavar=f.metavar or None, choices=f.names() or None,
                           help=f.words(), **{"default": f.default, **_KINDS.get(f.kind, {})})  # type: ignore[arg-type]
    p.add_argument("--store", metavar="PATH", default=None,
                   help="store of solved equilibria (default: $QUINTET_STORE or the user cache directory)")
    p.add_argument("--no-store", action="store_true", help="neither read nor write the store")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--daemon", action="store_true",
                   help="answer through this user's resident process (kernels loaded: a quick answer in a blink), "
                        "starting it if none runs; alone, only start it.  Without it a running one (quintet-solve "
                        "--daemon, quintet-serve --daemon) is used anyway; a command runs here when none can serve")
    p.add_argument("--stop-daemon", action="store_true", help="stop the resident process")
    p.add_argument("--unicode", action="store_true", help="print suits as ♣ ♦ ♥ ♠")
    return p


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
            f" {_pct(s.p_loss):>7} {s.expected_points:7.3f} {signed(s.expected_margin, 3):>9}"
        )
    lines.append(f"Total: expected margin {signed(sol.expected_margin, 4)}, expected points {sol.expected_points:.4f}")
    if sol.engine == "given":
        return "\n".join(lines)
    if sol.optimal:
        proof = "optimal (proven)"
    else:
        proof = (f"not proven optimal: best found {signed(sol.value, 4)}, bound {signed(sol.bound, 4)} "
                 f"(gap {sol.gap:.4f})")
    if sol.interrupted:
        proof += " — interrupted"
    lines.append(f"Proof: {proof}; engine {sol.engine}; {sol.seconds:.3f} s")
    if sol.alternatives is not None:
        lines += _alternative_lines(sol, unicode=unicode)
    return "\n".join(lines)


def _alternative_lines(sol: Solution, *, unicode: bool) -> list[str]:
    """``--top N``: the best arrangement of each next plan, its value, what it costs, its proof."""
    from quintet.cards import format_cards

    rules = sol.deal.rules
    shown = len(sol.alternatives or ())
    lines = ["", f"Plans (hand category per slot), best first: {plural(shown + 1, 'plan')}"
             + ("" if shown else " — no other plan is possible") + ":",
             f"  1. {signed(sol.value, 4)}            {' | '.join(sol.plan)}"]
    for rank, alt in enumerate(sol.alternatives or (), 2):
        proof = "" if alt.optimal else f" — best found, bound {signed(alt.bound, 4)}"
        lines.append(f"{rank:>3}. {signed(alt.value, 4)} ({signed(alt.value - sol.value, 4)})  "
                     f"{' | '.join(alt.plan)}{proof}")
        lines.append(f"{'':14}" + " | ".join(format_cards(m, rules.deck, unicode=unicode, order="group")
                                             for m in alt.arrangement.packets))
    lines.append("Each is the best arrangement (proven unless said) whose plan is none of those above it.")
    return lines


def format_grade(g: Grade, *, unicode: bool = False) -> str:
    lines = [format_solution(g.given, unicode=unicode, title="Your arrangement"), ""]
    optimum = signed(g.best.value, 4) + ("" if g.best.optimal else f" (bound {signed(g.best.bound, 4)}, unproven)")
    lines.append(f"Value {signed(g.given.value, 4)}; optimum {optimum}; regret {g.regret:.4f}")
    if g.best_swap is None:
        lines.append("No swap of two cards improves this arrangement.")
    else:
        sw = g.best_swap
        lines.append(f"Best two-card swap: {sw.card_a} (slot {sw.slot_a}) ↔ {sw.card_b} (slot {sw.slot_b})"
                     f" → {sw.change(g.given.value, 4)}")
    lines += ["", format_solution(g.best, unicode=unicode, title="Optimal arrangement")]
    return "\n".join(lines)


def _progress(record: IterationRecord) -> None:
    print(f"quintet-solve: iteration {record.iteration}: {record.pool_size} arrangements, "
          f"support {record.support}, best response {signed(record.response, 4)}, "
          f"exploitability {record.exploitability:.4f}, {record.seconds:.1f} s", file=sys.stderr, flush=True)


def _sparse_progress(record: SparseRecord) -> None:
    print(f"quintet-solve: K-mix: {record.support} arrangements certified {record.exploitability:.4f} "
          f"(best so far {record.best:.4f}), {record.rows} arrangements known, {record.seconds:.1f} s",
          file=sys.stderr, flush=True)


def _solve(args: argparse.Namespace, request: SolveRequest) -> SolveAnswer:
    progress = None if args.quiet else _progress
    sparse_progress = None if args.quiet else _sparse_progress

    def job(stop: threading.Event) -> SolveAnswer:
        if args.no_store or not request.wants_equilibrium:
            return solve_request(request, stop_event=stop, progress=progress, sparse_progress=sparse_progress)
        with SolutionStore(args.store) as store:
            return solve_request(request, store=store, stop_event=stop, progress=progress,
                                 sparse_progress=sparse_progress)

    return run_interruptible(job, on_interrupt=lambda: print(
        "quintet-solve: interrupted, returning the best found so far", file=sys.stderr))


def _mix_lines(title: str, mix: Sequence[tuple[float, Arrangement]], rules: Rules, *, seed: int, unicode: bool,
               top: int) -> list[str]:
    """A mix for people: its most likely arrangements, then one drawn from it (``sample_mix``)."""
    from quintet.cards import format_cards
    from quintet.evaluator import describe

    def text(m: int) -> str:
        return format_cards(m, rules.deck, unicode=unicode, order="group")

    lines = [f"{title}: {len(mix)} arrangements"
             + (f" (the {top} most likely shown; --json lists all)" if len(mix) > top else "") + ":"]
    lines += [f"  {100 * p:6.2f}%  " + " | ".join(text(m) for m in a.packets) for p, a in mix[:top]]
    lines.append(f"Play (sampled from the mix, seed {seed}):")
    lines += [f"  slot {s + 1} ({rules.weights[s]} pts): {text(m):<16} {describe(m, rules)}"
              for s, m in enumerate(sample_mix(mix, seed).packets)]
    return lines


def format_safe(safe: SafeResponse, *, seed: int = 0, unicode: bool = False, top: int = 10) -> str:
    """The safe response for people: the mix, an arrangement to play, the margins, the certificate."""
    lines = [f"Exposed: {safe.deal.format(unicode=unicode)}    opponent: {safe.opponent}    "
             f"safe: exploitability at most {safe.max_exploitability:g}"]
    lines += _mix_lines("Safe mix", safe.mix, safe.deal.rules, seed=seed, unicode=unicode, top=top)
    lines.append(f"Against {safe.opponent}: expected margin {signed(safe.expected_margin, 4)} "
                 f"(the equilibrium {signed(safe.equilibrium_margin, 4)}, "
                 f"the best response {signed(safe.best_response_margin, 4)})")
    proof = ("optimal within the limit (proven)" if safe.optimal
             else f"not proven optimal: no mix within the limit does better than {signed(safe.margin_bound, 4)}")
    extra = " — interrupted" if safe.interrupted else ""
    lines.append(f"Exploitability: {safe.exploitability:.4f} (certified, at most {safe.max_exploitability:g}); "
                 f"{proof}{extra}; {safe.iterations} iterations, {safe.seconds:.1f} s")
    return "\n".join(lines)


def _plan_lines(mix: Sequence[tuple[float, Arrangement]], rules: Rules, *, top: int = 5) -> list[str]:
    """The mix's plans (``solver.advisor.plans``): the most likely few, one line each."""
    found = plans(mix, rules)
    lines = [f"Plans (hand category per slot): {len(mix)} arrangements in {len(found)} plans"
             + (f", the {top} most likely shown" if len(found) > top else "") + ":"]
    lines += [f"  plan: {plan.describe()} ({plural(plan.arrangements, 'arrangement')})"
              for plan in found[:top]]
    return lines


def format_sparse(sp: SparseEquilibrium, *, seed: int = 0, unicode: bool = False) -> str:
    """A K-mix for people: its arrangements with their plans, the die roll, the play, the certificate."""
    from quintet.cards import format_cards
    from quintet.evaluator import describe

    rules = sp.deal.rules

    def text(m: int) -> str:
        return format_cards(m, rules.deck, unicode=unicode, order="group")

    lines = [f"Exposed: {sp.deal.format(unicode=unicode)}    a mix of at most "
             f"{plural(sp.max_support, 'arrangement')} (opponent: equilibrium)"]
    lines.append(f"Mix: {plural(len(sp.mix), 'arrangement')}:")
    for i, (p, a) in enumerate(sp.mix, start=1):
        lines.append(f"  [{i}] {100 * p:6.2f}%  " + " | ".join(text(m) for m in a.packets))
        lines.append(f"{'':15}hands: " + " | ".join(describe(m, rules) for m in a.packets))
    roll = sp.roll(seed)
    lines.append(f"Die roll (seed {seed}): {roll.value:.4f} in [0, 1) falls in [{roll.low:.4f}, {roll.high:.4f}) "
                 f"→ play arrangement [{roll.index + 1}]:")
    lines += [f"  slot {s + 1} ({rules.weights[s]} pts): {text(m):<16} {describe(m, rules)}"
              for s, m in enumerate(sp.mix[roll.index][1].packets)]
    kind = "exact best response" if sp.proven else "proven bound on the best response"
    if sp.method == "equilibrium":
        claim = "the full equilibrium fits in the limit"
    elif sp.optimal:
        claim = f"proven the least exploitable mix of at most {sp.max_support}"
    else:
        known = (f"no mix of at most {sp.max_support} is exploitable by less than {sp.lower_bound:.4f}"
                 if sp.lower_bound > 0 else "no lower bound above the game's value 0 is known")
        claim = f"the best mix of at most {sp.max_support} found, not proven the best ({known})"
    extra = " — interrupted" if sp.interrupted else ""
    lines.append(f"Exploitability: {sp.exploitability:.4f} — no arrangement gains more than that against this mix "
                 f"(certified: {kind}); {claim}{extra}")
    lines.append(f"The full equilibrium: exploitability {sp.equilibrium_exploitability:.4f} with "
                 f"{sp.equilibrium_support} arrangements; {sp.best_responses} exact best responses, {sp.seconds:.1f} s")
    return "\n".join(lines)


def format_equilibrium(eq: EquilibriumResult, *, seed: int = 0, unicode: bool = False, top: int = 10) -> str:
    rules = eq.deal.rules
    lines = [f"Exposed: {eq.deal.format(unicode=unicode)}    opponent: equilibrium (certified)"]
    lines += _mix_lines("Equilibrium mix", eq.mix, rules, seed=seed, unicode=unicode, top=top)
    lines += _plan_lines(eq.mix, rules)
    lines.append("Per-slot marginals (hand: probability):")
    for s, slot in enumerate(eq.slot_marginals()):
        shown = ", ".join(f"{m.hand} {100 * m.probability:.1f}%" for m in slot[:4])
        more = f", … ({len(slot) - 4} more)" if len(slot) > 4 else ""
        lines.append(f"  slot {s + 1} ({rules.weights[s]} pts): {shown}{more}")
    kind = "exact best response" if eq.proven else "proven bound on the best response"
    if eq.converged:
        status = ("converged: an exact equilibrium, to float tolerance " f"{VALUE_TOLERANCE:g}"
                  if eq.epsilon == 0 else "converged")
    else:
        status = f"target ε {eq.epsilon:g} not reached"
    if eq.exploitability <= VALUE_TOLERANCE:
        shown = "0 (to float tolerance)"  # float sums of an exact equilibrium leave ~1e-14
    else:
        shown = f"{eq.exploitability:.4f}" if eq.exploitability >= 1e-4 else f"{eq.exploitability:.1e}"
    extra = " — interrupted" if eq.interrupted else ""
    source = "answered from the store" if eq.from_store else f"{eq.iterations} iterations, {eq.seconds:.1f} s"
    lines.append(f"Exploitability: {shown} — no arrangement gains more than that against this mix "
                 f"(certified: {kind}; {status}){extra}; {source}")
    return "\n".join(lines)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    if args.stop_daemon:  # the front door (solver.apps.solve_client) takes both before this program runs
        raise UsageError("--stop-daemon takes no other arguments")
    rules = rules_from_args(args)
    if args.no_store and args.store:
        raise UsageError("--store and --no-store cannot be combined")
    given = {f.name: getattr(args, f.name) for f in FIELDS if f.kind not in ("population", "style")}
    request = SolveRequest.parse(**given | {"rules": rules, "fix": parse_fix_options(args.fix),
                                            "verify": args.verify_time_limit if args.verify else None})
    precompile(groups_for(classic_evaluator=rules.deck.field == 8 and rules.hand_size == 5,
                          local_search=request.wants_equilibrium))  # a cold cache: compiled in parallel
    answer = _solve(args, request)
    if isinstance(answer.result, EquilibriumResult):
        for note in answer.result.notes:
            print(f"quintet-solve: {note}", file=sys.stderr)
    if args.json:
        print_json(answer.to_dict())
    else:
        if isinstance(answer.result, EquilibriumResult):
            print(format_equilibrium(answer.result, seed=request.engine.seed, unicode=args.unicode))
        elif isinstance(answer.result, Grade):
            print(format_grade(answer.result, unicode=args.unicode))
        elif isinstance(answer.result, SafeResponse):
            print(format_safe(answer.result, seed=request.engine.seed, unicode=args.unicode))
        elif isinstance(answer.result, SparseEquilibrium):
            print(format_sparse(answer.result, seed=request.engine.seed, unicode=args.unicode))
        else:
            print(format_solution(answer.result, unicode=args.unicode))
        if answer.verification is not None:
            print(answer.verification.describe())
    # exit status 1 when an independent recheck refuted the answer
    return 1 if answer.verification is not None and answer.verification.status == "refuted" else 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli("quintet-solve", _main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
