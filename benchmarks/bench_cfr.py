"""Benchmark of the heads-up draw-poker strategy (``quintet.draw.cfr``): solving it, and playing it.

    python benchmarks/bench_cfr.py curve [--iterations N] [--es-seconds S] [--vanilla N] [--ship]
    python benchmarks/bench_cfr.py play [--deals N] [--random-deals N] [--br-deals N] [--table-hands N]
    python benchmarks/bench_cfr.py seeds [--es-seeds N] [--es-iterations N]
    python benchmarks/bench_cfr.py report

Each stage saves its figures under ``benchmarks/data/`` (``cfr_curve.json``, ``cfr_play.json``,
``cfr_es_seeds.json``) with its
provenance (command, commit, machine, date); ``report`` writes the section of ``benchmarks/RESULTS.md``
between ``<!-- cfr:start -->`` and ``<!-- cfr:end -->`` and the plot ``cfr_exploitability.png`` from
them (``curve`` and ``play`` call it too).  The default rule set and terms (``quintet poker``'s).

* **curve** — building the abstract game (hand classes, tree: its size and memory), then CFR+ for
  ``--iterations`` iterations: iterations per CPU second, and the exact exploitability of the average
  strategy in the abstract game (chips a hand, per ante) at iterations 1, 2, 4, … and at the end,
  against CPU time (the measurements excluded).  For the choice of algorithm, on the same game: vanilla
  CFR for ``--vanilla`` iterations and external-sampling MCCFR for ``--es-seconds`` CPU seconds, each
  measured the same way.  ``--ship`` writes the final CFR+ strategy into the package, exactly as
  ``python -m quintet.draw.cfr --ship --iterations N`` does (CFR+ is deterministic: the same file).
* **play** — the shipped strategy at a real table (``quintet.draw.game.State``), stacks of 100 at every
  hand: the CFR bot against the advisor bot over ``--deals`` duplicate deals and against the random bot
  over ``--random-deals`` (every deck played twice, the bots' seats swapped: 2 × deals hands), chips per
  hand with a 95% interval over the deals; the best response to the strategy in the abstract game played in the real
  game against it (``--br-deals`` duplicate deals): a lower bound on the strategy's real exploitability;
  and the CFR bot at a table of four with three advisor bots (``--table-hands`` hands, deep stacks),
  where it plays as the advisor.
* **seeds** — ES-MCCFR's early curve from ``--es-seeds`` seeds (``--seed``, ``--seed`` + 1, …; the
  first is the curve's own seed, so its points must repeat the curve's): the exact exploitability of
  the average strategy after each of the first ``--es-iterations`` iterations (``--walks`` walks per
  player each) — whether a rise along the curve is the sampled average's noise, seen from every seed.
"""

from __future__ import annotations

import argparse
import itertools
import json
import resource
import shlex
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from analysis_common import DATA, Run, save_data, savefig
from benchmark_results import write_section

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from quintet.cliutil import OneLineParser, int_at_least, positive_float, positive_int  # noqa: E402
from quintet.draw.advisor_bot import AdvisorBot  # noqa: E402
from quintet.draw.bots import RandomBot  # noqa: E402
from quintet.draw.cfr.betting import build_game  # noqa: E402
from quintet.draw.cfr.bot import CfrBot  # noqa: E402
from quintet.draw.cfr.classes import hand_classes  # noqa: E402
from quintet.draw.cfr.solve import (  # noqa: E402
    CFRPlus,
    ExternalSampling,
    best_response,
    exploitability,
    uniform_strategy,
)
from quintet.draw.cfr.strategy import strategy_for, strategy_key, train  # noqa: E402
from quintet.draw.game import Phase, State, Terms  # noqa: E402
from quintet.draw.table import Table, play_out  # noqa: E402
from quintet.rules import get_rules  # noqa: E402

RULES = "draw36-joker-11"
STACK = 100
DEEP = 10**9


def checkpoints(n: int) -> set[int]:
    out, k = {n}, 1
    while k < n:
        out.add(k)
        k *= 2
    return out


class Clock:
    """CPU seconds of the solver alone: the measurements in between are subtracted."""

    def __init__(self) -> None:
        self.start = time.process_time()
        self.paused = 0.0

    def seconds(self) -> float:
        return time.process_time() - self.start - self.paused

    def measure(self, tree, strategy) -> float:  # type: ignore[no-untyped-def]
        t0 = time.process_time()
        value = exploitability(tree, strategy).total
        self.paused += time.process_time() - t0
        return value


# ---------------------------------------------------------------- curve -----------------------


def curve(args: argparse.Namespace, run: Run) -> None:
    rules, terms = get_rules(RULES), Terms()
    t0 = time.process_time()
    classes = hand_classes(rules)
    classes_cpu = time.process_time() - t0
    t0 = time.process_time()
    game = build_game(terms, classes)
    tree_cpu = time.process_time() - t0
    tree = game.tree
    arrays = [v for v in tree.__dict__.values() if isinstance(v, np.ndarray)]
    sizes = {"nodes": tree.n_nodes, "decisions": int(len(tree.decisions())), "entries": tree.size,
             "pre_classes": classes.n_pre, "post_classes": classes.n_post,
             "tree_mb": sum(a.nbytes for a in arrays) / 2**20, "solver_mb": 2 * tree.size * 8 / 2**20,
             "classes_cpu": classes_cpu, "tree_cpu": tree_cpu}
    print(f"abstract game: {sizes}", flush=True)

    points: list[dict[str, float]] = []
    marks = checkpoints(args.iterations)

    def monitor(solver: CFRPlus) -> None:
        if solver.iterations in marks:
            e = clock.measure(tree, solver.average())
            points.append({"iterations": solver.iterations, "cpu": clock.seconds(), "exploitability": e})
            print(f"CFR+ {solver.iterations:5d} it {clock.seconds():8.1f} CPU-s  {e:.5f} chips/hand", flush=True)

    clock = Clock()
    strategy = train(rules, terms, iterations=args.iterations, monitor=monitor, game=game)
    total_cpu = points[-1]["cpu"]
    if args.ship:
        path = ROOT / "quintet" / "draw" / "cfr" / "data" / f"{strategy_key(rules, terms)}.npz"
        strategy.save(path)
        print(f"wrote {path} ({path.stat().st_size:,} bytes)", flush=True)

    vanilla: list[dict[str, float]] = []
    solver = CFRPlus(tree, plus=False, linear=False)
    clock = Clock()
    for i in range(1, args.vanilla + 1):
        solver.iterate(1)
        if i in checkpoints(args.vanilla):
            e = clock.measure(tree, solver.average())
            vanilla.append({"iterations": i, "cpu": clock.seconds(), "exploitability": e})
            print(f"CFR   {i:5d} it {clock.seconds():8.1f} CPU-s  {e:.5f}", flush=True)

    sampled: list[dict[str, float]] = []
    es = ExternalSampling(tree, seed=args.seed, walks=args.walks, linear=False)
    clock = Clock()
    target = 1.0
    while clock.seconds() < args.es_seconds:
        es.iterate(1)
        if clock.seconds() >= target or clock.seconds() >= args.es_seconds:
            e = clock.measure(tree, es.average())
            sampled.append({"walks": es.iterations * args.walks * 2, "cpu": clock.seconds(), "exploitability": e})
            print(f"ES    {es.iterations * args.walks * 2:9d} walks {clock.seconds():8.1f} CPU-s  {e:.5f}", flush=True)
            target *= 2
    save_data("cfr_curve", run, {
        "rules": RULES, "terms": terms.to_dict(), "game": sizes, "cfr_plus": points, "vanilla": vanilla,
        "external_sampling": sampled, "walks_per_iteration": args.walks,
        "iterations_per_cpu_second": args.iterations / total_cpu, "info": strategy.info,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "shipped": bool(args.ship),
    })


# ---------------------------------------------------------------- play ------------------------


def duplicate(rules, terms, a, b, deals: int, seed: int, classes=None) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """``a``'s chips over ``deals`` decks each played twice (seats swapped): per hand, 95% interval; with
    ``classes``, how many hands reached a show-down and in how many the two final classes were equal (the
    abstract game calls those a tie)."""
    rng = np.random.default_rng(seed)
    deck = np.array(rules.deck.cards())
    totals = []
    shown = same = 0
    cpu = time.process_time()
    for i in range(deals):
        order = rng.permutation(deck).tolist()
        total = 0
        for seat_a in (0, 1):
            bots = [a, b] if seat_a == 0 else [b, a]
            state = play_out(State(rules, terms, [STACK, STACK], dealer=i % 2, deck=order), bots)
            total += state.stacks[seat_a] - STACK
            if classes is not None and state.history()["showdown"]:
                shown += 1
                same += classes.post_class(state.hands[0]) == classes.post_class(state.hands[1])
        totals.append(total)
    mean = statistics.fmean(totals) / 2
    half = 1.96 * statistics.stdev(totals) / len(totals) ** 0.5 / 2
    out = {"deals": deals, "hands": 2 * deals, "mean": mean, "low": mean - half, "high": mean + half,
           "sd_per_deal": statistics.stdev(totals), "cpu": time.process_time() - cpu}
    if classes is not None:
        out |= {"showdowns": shown, "same_class": same}
    return out


def table_of_four(rules, terms, strategy, hands: int, seed: int) -> dict[str, float]:  # type: ignore[no-untyped-def]
    table = Table(rules, terms, ["cfr", "a1", "a2", "a3"], DEEP, seed=seed)
    bots = [CfrBot(rules, terms, seed, strategy=strategy)] + [AdvisorBot(rules, seed + i) for i in range(1, 4)]
    won = []
    cpu = time.process_time()
    for _ in range(hands):
        before = table.stacks[0]
        table.play_hand(bots)
        won.append(table.stacks[0] - before)
    mean = statistics.fmean(won)
    half = 1.96 * statistics.stdev(won) / len(won) ** 0.5
    return {"hands": hands, "mean": mean, "low": mean - half, "high": mean + half, "cpu": time.process_time() - cpu}


def play(args: argparse.Namespace, run: Run) -> None:
    rules, terms = get_rules(RULES), Terms()
    strategy = strategy_for(rules, terms, build=False)
    out: dict[str, object] = {"rules": RULES, "terms": terms.to_dict(), "stack": STACK, "info": strategy.info}
    cfr = CfrBot(rules, terms, args.seed, strategy=strategy)
    for name, other in (("advisor", AdvisorBot(rules, args.seed + 1)), ("random", RandomBot(args.seed + 2))):
        result = duplicate(rules, terms, cfr, other, args.deals if name == "advisor" else args.random_deals,
                           args.seed, strategy.classes)
        out[name] = result
        print(f"cfr vs {name}: {result}", flush=True)
    tree = strategy.game.tree
    probs = strategy.probabilities()
    t0 = time.process_time()
    best0, choice0 = best_response(tree, probs, 0)
    best1, choice1 = best_response(tree, probs, 1)
    out["abstract_best_response"] = {"best0": best0, "best1": best1, "total": (best0 + best1) / 2,
                                     "cpu": time.process_time() - t0}
    responder = CfrBot(rules, terms, args.seed + 3, strategy=strategy, steps=choice0 + choice1 - probs)
    result = duplicate(rules, terms, responder, CfrBot(rules, terms, args.seed + 4, strategy=strategy),
                       args.br_deals, args.seed + 5)
    out["best_response_bot"] = result
    print(f"best response bot vs cfr: {result}", flush=True)
    out["table_of_four"] = table_of_four(rules, terms, strategy, args.table_hands, args.seed)
    print(f"table of four: {out['table_of_four']}", flush=True)
    t0 = time.process_time()
    state = State(rules, terms, [STACK, STACK], seed=1)
    while state.phase is Phase.ANTES:
        state.post_ante()
    n = 2000
    for _ in range(n):
        cfr.probabilities(state, state.actor)
    out["decision_ms"] = 1000 * (time.process_time() - t0) / n
    save_data("cfr_play", run, out)


# ---------------------------------------------------------------- seeds -----------------------


def es_seeds(args: argparse.Namespace, run: Run) -> None:
    """ES-MCCFR from each seed: the exact exploitability after each of its first iterations (module doc)."""
    rules, terms = get_rules(RULES), Terms()
    tree = build_game(terms, hand_classes(rules)).tree
    runs = []
    for seed in range(args.seed, args.seed + args.es_seeds):
        es = ExternalSampling(tree, seed=seed, walks=args.walks, linear=False)
        points = []
        for _ in range(args.es_iterations):
            es.iterate(1)
            e = exploitability(tree, es.average()).total
            points.append({"walks": es.iterations * args.walks * 2, "exploitability": e})
        runs.append({"seed": seed, "points": points})
        print(f"ES seed {seed}: " + " ".join(f"{p['exploitability']:.5f}" for p in points), flush=True)
    save_data("cfr_es_seeds", run, {"walks_per_iteration": args.walks, "runs": runs,
                                    "uniform": exploitability(tree, uniform_strategy(tree)).total})


def es_seeds_lines(curve: dict, seeds: dict) -> list[str]:  # type: ignore[type-arg]
    """The seeds stage's paragraph: per checkpoint the seeds' range, the rises, the curve's own seed."""
    runs, run = seeds["runs"], seeds["run"]
    walks = [p["walks"] for p in runs[0]["points"]]
    table = np.array([[p["exploitability"] for p in r["points"]] for r in runs])
    rising = [r["seed"] for r in runs if any(b > a for a, b in itertools.pairwise(p["exploitability"]
                                                                                   for p in r["points"]))]
    seed = build_parser().parse_args(shlex.split(curve["run"]["command"])[2:]).seed  # the curve's ES seed
    own = next((r for r in runs if r["seed"] == seed), None)
    above = int((table > seeds["uniform"]).any(axis=1).sum())
    mine = {p["walks"]: p["exploitability"] for p in curve["external_sampling"]}
    shared = [(p["walks"], p["exploitability"], mine[p["walks"]]) for p in (own or {"points": []})["points"]
              if p["walks"] in mine]
    same = sum(abs(a - b) <= 1e-9 for _, a, b in shared)
    cells = "; ".join(f"{w:,} walks: {lo:.3f}–{hi:.3f}" for w, lo, hi in zip(walks, table.min(axis=0),
                                                                             table.max(axis=0), strict=True))
    return ["", f"**ES-MCCFR from {len(runs)} seeds** (`{run['command']}` at commit `{run['commit']}`, "
            f"{run['cpu_seconds'] / 60:.1f} CPU-minutes): the exact exploitability of the average strategy, "
            f"least–greatest over the seeds, after {cells} (the uniform strategy: {seeds['uniform']:.5f}). It "
            f"rises between two checkpoints on {len(rising)} of {len(runs)} seeds"
            f"{' (' + ', '.join(map(str, rising)) + ')' if rising else ''}, and lies above the uniform "
            f"strategy's at some checkpoint on {above} of {len(runs)}: early on most decisions have been sampled "
            "a few times, and their average of a few regret-matching strategies is noise. "
            + (f"The curve's own seed ({seed}) repeats its points exactly at {same} of {len(shared)} shared "
               "checkpoints." if shared else "")]


# ---------------------------------------------------------------- report ----------------------


def _interval(r: dict[str, float]) -> str:
    return f"{r['mean']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}]"


def report() -> None:
    curve_path, play_path = DATA / "cfr_curve.json", DATA / "cfr_play.json"
    lines: list[str] = []
    if curve_path.exists():
        c = json.loads(curve_path.read_text())
        g, run = c["game"], c["run"]
        lines += [
            f"Curve run: `{run['command']}` at commit `{run['commit']}` on {run['date']}; {run['machine']}. "
            f"{run['cpu_seconds'] / 60:.1f} CPU-minutes ({run['wall_seconds'] / 60:.1f} min wall; CPU time "
            "below, `time.process_time`).",
            "",
            f"The abstract game of `{c['rules']}` under the default terms (docs/draw-poker.md, \"The CFR "
            f"strategy\"): {g['pre_classes']} hand classes before the exchange, {g['post_classes']} after it; "
            f"{g['nodes']:,} nodes, {g['decisions']:,} decisions, {g['entries']:,} strategy entries (one per class "
            f"and action of each decision). Building it: the classes {g['classes_cpu']:.1f} CPU-s, the tree "
            f"{g['tree_cpu']:.1f} CPU-s. Memory: the tree {g['tree_mb']:.0f} MB, the solver's regrets and "
            f"average {g['solver_mb']:.0f} MB; the process peaked at {c['peak_rss_mb']:.0f} MB. CFR+: "
            f"{c['iterations_per_cpu_second']:.2f} iterations per CPU second (each iteration walks the whole "
            "tree once per player, vectors over the classes).",
            "",
            "Exact exploitability of the average strategy in the abstract game — what a best responder wins "
            "per hand above the game's value, seated first half the time (NashConv / 2) — in chips a hand "
            f"(ante {c['terms']['ante']}, so also antes a hand), against iterations and CPU seconds of solving:",
            "",
            "| algorithm | iterations (walks) | CPU s | exploitability, chips / hand |",
            "|---|---:|---:|---:|",
        ]
        lines += [f"| CFR+ | {p['iterations']:,} | {p['cpu']:.1f} | {p['exploitability']:.5f} |"
                  for p in c["cfr_plus"]]
        lines += [f"| CFR | {p['iterations']:,} | {p['cpu']:.1f} | {p['exploitability']:.5f} |"
                  for p in c["vanilla"]]
        lines += [f"| ES-MCCFR | ({p['walks']:,}) | {p['cpu']:.1f} | {p['exploitability']:.5f} |"
                  for p in c["external_sampling"]]
        es = [p["exploitability"] for p in c["external_sampling"]]
        rises = [(a, b) for a, b in itertools.pairwise(c["external_sampling"])
                 if b["exploitability"] > a["exploitability"]]
        if rises:
            a, b = rises[0]
            lines += ["", f"ES-MCCFR's exploitability is not monotone: it rises {len(rises)} time"
                      f"{'' if len(rises) == 1 else 's'} along the run (first from {a['exploitability']:.5f} at "
                      f"{a['walks']:,} walks to {b['exploitability']:.5f} at {b['walks']:,}). At this few walks a "
                      f"sampled average strategy is mostly noise (its best figure here is {min(es):.5f}); the row "
                      "is a baseline at equal CPU, not a converged run."]
        seeds_path = DATA / "cfr_es_seeds.json"
        if seeds_path.exists():
            lines += es_seeds_lines(c, json.loads(seeds_path.read_text()))
        info = c["info"]["exploitability"]
        lines += [
            "",
            f"The stored strategy ({c['info']['iterations']} iterations; unreached sets by best response, rows "
            f"of low reach pure, 1/255 steps): exploitability {info['stored']:.5f} chips a hand (the average "
            f"before storing: {info['average']:.5f}); the first player's value {info['value']:+.4f}. "
            "![exploitability against CPU time](cfr_exploitability.png)",
            "",
        ]
    if play_path.exists():
        p = json.loads(play_path.read_text())
        run = p["run"]
        br = p["abstract_best_response"]
        lines += [
            f"Play run: `{run['command']}` at commit `{run['commit']}` on {run['date']}; {run['machine']}. "
            f"{run['cpu_seconds'] / 60:.1f} CPU-minutes ({run['wall_seconds'] / 60:.1f} min wall).",
            "",
            f"The shipped strategy ({p['info']['iterations']} iterations) at a real table "
            f"(`quintet.draw.game.State`, stacks of {p['stack']} at every hand): duplicate deals — each deck "
            "played twice with the seats swapped — chips per hand, mean with a 95% interval over the deals:",
            "",
            "| CFR bot against | hands | chips / hand [95%] | CPU s |",
            "|---|---:|---:|---:|",
            f"| advisor bot | {p['advisor']['hands']:,} | {_interval(p['advisor'])} | {p['advisor']['cpu']:.0f} |",
            f"| random bot | {p['random']['hands']:,} | {_interval(p['random'])} | {p['random']['cpu']:.0f} |",
            "",
            f"Against the advisor {p['advisor']['showdowns']:,} hands reached a show-down; in "
            f"{p['advisor']['same_class']:,} of them ({p['advisor']['same_class'] / p['advisor']['showdowns']:.1%}) "
            "the two final hands were of one class, which the abstract game calls a tie.",
            "",
            "The abstract game's best response to the strategy (worth "
            f"{br['total']:+.4f} chips a hand there) played as a bot in the real game against the CFR bot wins "
            f"{_interval(p['best_response_bot'])} chips a hand over {p['best_response_bot']['hands']:,} hands: it "
            "sees classes as the bot does, so it cannot find what the abstraction loses, and this is no measure of "
            "the real game's exploitability, which is not yet measured. At a table of four (three advisor bots, "
            "deep stacks) the CFR bot plays as the advisor — this row measures the advisor bot: "
            f"{_interval(p['table_of_four'])} chips a hand over {p['table_of_four']['hands']:,} hands. A decision "
            f"of the CFR bot takes {p['decision_ms']:.2f} ms.",
            "",
            "**What was abstracted, and what it costs.** The cards: a player knows the class of his hand "
            f"({p['info']['key']['classes']['post']} classes after the exchange), not the hand; the classes of "
            "the two players are drawn independently (no card removal); two final hands of one class tie; stacks "
            "are deep; nobody folds during the exchange (docs/draw-poker.md, \"The CFR strategy\"). The betting, "
            "the exchange's transitions and the show-down order of classes are exact. The cost, measured: the "
            f"stored strategy is exploitable by {p['info']['exploitability']['stored']:.4f} chips a hand in the "
            "abstract game; in the real game it is not yet measured (the abstract best response above cannot "
            "find what the abstraction loses); and "
            f"{p['advisor']['same_class'] / p['advisor']['showdowns']:.1%} of the show-downs against the advisor "
            "met two hands the abstraction cannot tell apart.",
        ]
    write_section("cfr", "Draw poker heads-up: the CFR strategy, its exploitability, its play", "\n".join(lines))
    if curve_path.exists():
        _plot(json.loads(curve_path.read_text()))
    print("wrote benchmarks/RESULTS.md (section cfr)")


def _plot(c: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2))
    for key, label in (("cfr_plus", "CFR+"), ("vanilla", "CFR"), ("external_sampling", "ES-MCCFR")):
        pts = c[key]
        if pts:
            ax.loglog([p["cpu"] for p in pts], [p["exploitability"] for p in pts], marker="o", label=label)
    ax.set_xlabel("CPU seconds of solving")
    ax.set_ylabel("exploitability, chips a hand (abstract game)")
    ax.set_title(f"{c['rules']}, default terms: exact exploitability of the average strategy")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    savefig(fig, "cfr_exploitability.png")


def build_parser() -> OneLineParser:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage", choices=("curve", "play", "seeds", "report"))
    parser.add_argument("--iterations", type=positive_int, default=1000)
    parser.add_argument("--vanilla", type=positive_int, default=128)
    parser.add_argument("--es-seconds", type=positive_float, default=300.0)
    parser.add_argument("--walks", type=positive_int, default=20_000, help="ES-MCCFR walks per player per iteration")
    parser.add_argument("--es-seeds", type=positive_int, default=5, help="seeds: ES-MCCFR runs (default 5)")
    parser.add_argument("--es-iterations", type=positive_int, default=8,
                        help="seeds: iterations of each run, measured after each (default 8)")
    parser.add_argument("--ship", action="store_true", help="curve: write the final strategy into the package")
    parser.add_argument("--deals", type=int_at_least(2), default=100_000,
                        help="play: duplicate deals against the advisor")
    parser.add_argument("--random-deals", type=int_at_least(2), default=50_000,
                        help="play: duplicate deals against random")
    parser.add_argument("--br-deals", type=int_at_least(2), default=50_000)
    parser.add_argument("--table-hands", type=int_at_least(2), default=10_000)
    parser.add_argument("--seed", type=int_at_least(0), default=2026)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    run = Run(["bench_cfr.py", *(argv if argv is not None else sys.argv[1:])])
    if args.stage == "curve":
        curve(args, run)
    elif args.stage == "play":
        play(args, run)
    elif args.stage == "seeds":
        es_seeds(args, run)
    if not args.no_write:
        report()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
