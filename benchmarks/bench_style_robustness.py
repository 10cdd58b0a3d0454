"""Style robustness: the style model on bots outside its family, and its learning curve.

    python benchmarks/bench_style_robustness.py                  # 5 bots, 1–100 records, 5 draws, 15 deals
    python benchmarks/bench_style_robustness.py --deals 3 --draws 2 --records 1,5,20 --no-write

``bench_style.py`` measures one bot (``HabitBot``, noise 0.2), whose habits — strongest
packets first, laid by strength order — are the very features a style model fits.  Here
the fitted ``style:`` model (``solver.problem.style.fit_style`` on the bot's arrangements of
*other* deals) meets five bots, each with an exact policy (or exact per-slot marginals):

* ``habit-0.2``, ``habit-0.5`` — ``bench_style``'s bot at two noise levels (its own family);
* ``greedy-noise`` — the greedy partition, laid weakest to strongest with probability 0.7,
  else in a uniformly random slot order;
* ``slot5-random`` — the strongest packet in slot 5, the other 20 cards split uniformly at
  random into slots 1–4 (exact marginals: each is a uniform 5-subset of the 20);
* ``br-uniform`` — always the best response to the uniform opponent (deterministic).

The learning curve: ``--draws`` independent record sets per bot (draw r: the deals of seeds
``--record-seed`` + 100000·r …, the bot's play from its own random stream), each nested over
``--records`` (the first 1 of the 2, of the 3 …).  A style is fitted on each draw's first n
records.  On ``--deals`` new deals as dealt (``Deal.random`` from ``--seed``; their equilibria
at ε ``--epsilon`` come through the store shared with ``bench_heuristics``) the exact expected
margin won from the bot by (a) the equilibrium mix, (b) the best response to the fitted style,
(c) the best response to the bot's true policy.  The deals' equilibria, the bots' true marginals,
(a) and (c) are computed once and serve every draw; only the fits and (b) repeat per draw.
The recovered share (b − a) / (c − a) of the means over deals and draws gets a 95% percentile
bootstrap interval that resamples the deals and, independently, the draws (a crossed
bootstrap: one draw's records serve every deal, so a draw is resampled whole); the report
gives the range of the per-draw shares too.

Cost: the per-draw part dominates, about 0.4 CPU-s per (bot, draw, count, deal) — the fitted
style's marginals (its 256 sampled partitions of the deal) and the best response to them.  The
rest is small: the bots' play of the records (about 10 CPU-s a draw, most of it br-uniform's best
responses), the fits (about 0.5 CPU-s per bot and draw), the deals' equilibria at ε 0.05 (a few
CPU-s each when not in the store).  The default run (5 bots × 5 draws × 8 counts × 15 deals) is
about 21 CPU-minutes.  Writes the ``style-robustness`` section of RESULTS.md,
``benchmarks/data/style_robustness.json`` and ``benchmarks/style_learning_curve.png``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from itertools import permutations
from math import comb
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from analysis_common import DATA, Run, gap_share, open_store, save_data, savefig, warm_kernels  # noqa: E402
from bench_style import HabitBot  # noqa: E402
from benchmark_results import write_section  # noqa: E402

from quintet.cliutil import OneLineParser, float_at_least, integer, positive_float, positive_int, seed_int  # noqa: E402
from quintet.game import Arrangement, Deal  # noqa: E402
from solver.advisor.advice import best_response, complete  # noqa: E402
from solver.advisor.equilibrium import solve_equilibrium  # noqa: E402
from solver.problem.best_response import expected_margin  # noqa: E402
from solver.problem.deal_tables import DealTables  # noqa: E402
from solver.problem.opponents import ArrangementMix, FixedMarginals, greedy_arrangement  # noqa: E402
from solver.problem.style import fit_style  # noqa: E402

BOTS = ["habit-0.2", "habit-0.5", "greedy-noise", "slot5-random", "br-uniform"]
IN_FAMILY = {"habit-0.2", "habit-0.5"}


@dataclass(frozen=True)
class Bot:
    name: str

    def policy(self, deal: Deal, tables: DealTables) -> list[tuple[float, Arrangement]] | None:
        """The exact distribution over arrangements, or None when only the marginals are exact."""
        if self.name.startswith("habit"):
            return HabitBot(float(self.name.split("-")[1])).policy(deal)
        if self.name == "greedy-noise":
            g = greedy_arrangement(tables)
            orders = list(permutations(range(5)))
            return [(0.7, g)] + [(0.3 / len(orders), Arrangement(tuple(g.packets[i] for i in o))) for o in orders]
        if self.name == "br-uniform":
            return [(1.0, best_response(deal, "uniform", tables=tables).arrangement)]
        return None

    def _strongest(self, tables: DealTables) -> int:
        return int(tables.masks[int(np.argmax(tables.packets.keys.astype(np.int64)))])

    def marginals(self, deal: Deal, tables: DealTables) -> np.ndarray:
        pol = self.policy(deal, tables)
        if pol is not None:
            return ArrangementMix(tuple(a for _, a in pol), tuple(p for p, _ in pol)).marginals(tables)
        top = self._strongest(tables)
        free = (tables.masks.astype(np.int64) & top) == 0  # packets of the other 20 cards
        hist = np.bincount(tables.classes[free], minlength=tables.n_classes).astype(np.float64)
        assert hist.sum() == comb(20, 5)
        out = np.tile(hist / hist.sum(), (5, 1))
        out[4] = 0.0
        out[4, tables.classes[tables.index_of(top)]] = 1.0
        return out

    def play(self, deal: Deal, tables: DealTables, rng: np.random.Generator) -> Arrangement:
        pol = self.policy(deal, tables)
        if pol is not None:
            p = np.array([q for q, _ in pol])
            return pol[int(rng.choice(len(pol), p=p / p.sum()))][1]
        top = self._strongest(tables)
        rest = [c for c in range(deal.rules.deck.size) if (deal.live & ~top) >> c & 1]
        rng.shuffle(rest)
        packets = [sum(1 << c for c in rest[5 * k: 5 * k + 5]) for k in range(4)]
        return Arrangement(tuple(packets) + (top,))


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive_int, default=15, help="new deals as dealt (default 15)")
    ap.add_argument("--seed", type=seed_int, default=2026,
                    help="first seed of the new deals (default 2026)")
    ap.add_argument("--record-seed", type=seed_int, default=900000,
                    help="first seed of the recorded deals of draw 0; draw r starts at it + 100000·r (default 900000)")
    ap.add_argument("--records", type=record_counts, default="1,2,3,5,10,20,50,100",
                    help="record counts of the learning curve, nested within a draw (default 1,2,3,5,10,20,50,100)")
    ap.add_argument("--draws", type=positive_int, default=5, help="independent record sets per bot (default 5)")
    ap.add_argument("--bots", default=",".join(BOTS))
    ap.add_argument("--epsilon", type=float_at_least(0), default=0.05, help="equilibria's certified ε (default 0.05)")
    ap.add_argument("--time-limit", type=positive_float, default=300.0)
    ap.add_argument("--store", default=None)
    ap.add_argument("--no-store", action="store_true")
    ap.add_argument("--report", action="store_true",
                    help="only rewrite the RESULTS section and the plot from benchmarks/data/style_robustness.json")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.report:
        saved = json.loads((DATA / "style_robustness.json").read_text())
        args = argparse.Namespace(**{**saved["params"], "report": True, "no_write": args.no_write})
        sizes = counts(args.records)
        report = make_report(saved["results"], sizes, saved["epsilon"], Run.from_dict(saved["run"]), args)
        print(report)
        if args.no_write:
            return
        plot(saved["results"], sizes, args)
        write_section("style-robustness", "Style models on bots outside their family, and a learning curve", report)
        return
    sizes = counts(args.records)
    bots = [Bot(b) for b in args.bots.split(",")]
    run = Run()
    store = open_store(args.store, args.no_store)
    warm_kernels()
    new = Deal.random_series(args.seed, args.deals)
    new_tables = [DealTables.build(d) for d in new]
    eq_m = []
    eps = []
    for deal, tables in zip(new, new_tables, strict=True):
        eq = solve_equilibrium(deal, epsilon=args.epsilon, time_limit=args.time_limit, store=store)
        eq_m.append(eq.opponent().marginals(tables))
        eps.append(eq.exploitability)
    print(f"equilibria: {run.cpu():.1f} CPU-s", flush=True)
    results, _ = learning_curves(bots, sizes, args.draws, args.record_seed, new, new_tables, eq_m)
    print(f"all: {run.cpu():.1f} CPU-s", flush=True)
    report = make_report(results, sizes, eps, run, args)
    print(report)
    if args.no_write:
        return
    save_data("style_robustness", run, {"params": vars(args), "epsilon": eps, "results": results,
                                        "deals": [d.format() for d in new]})
    plot(results, sizes, args)
    write_section("style-robustness", "Style models on bots outside their family, and a learning curve", report)


def counts(text: str) -> list[int]:
    """The record counts of ``--records``: increasing from 1 up (``ArgumentTypeError`` otherwise)."""
    sizes = [integer(x) for x in text.split(",")]
    if sizes != sorted(set(sizes)) or sizes[0] < 1:
        raise argparse.ArgumentTypeError(f"increasing counts from 1 up, not {text!r}")
    return sizes


def record_counts(text: str) -> str:
    """argparse type of ``--records``: ``counts`` checks it; the text is kept (``counts`` reads it
    again, and the saved parameters keep it so)."""
    counts(text)
    return text


def record_seed_of(record_seed: int, draw: int) -> int:
    """The first seed of draw ``draw``'s recorded deals (draws of up to 100000 records never overlap)."""
    return record_seed + 100000 * draw


def learning_curves(bots: list[Bot], sizes: list[int], draws: int, record_seed: int, new: list[Deal],
                    new_tables: list[DealTables], eq_m: list[np.ndarray],
                    ) -> tuple[dict[str, dict[str, Any]], dict[str, list[list[tuple[Deal, Arrangement]]]]]:
    """Per bot: (a) and (c) per new deal (once), and (b) per record count, draw and deal; with the
    records each draw used (per bot, per draw, ``max(sizes)`` games)."""
    w = [d.rules.weights for d in new]
    cpu = {"records": 0.0, "fits": 0.0, "responses": 0.0}  # CPU seconds of the parts that repeat per draw
    t0 = time.process_time()
    record_deals = []  # per draw: the recorded deals and their tables, shared by the bots
    for r in range(draws):
        deals = Deal.random_series(record_seed_of(record_seed, r), max(sizes))
        record_deals.append([(d, DealTables.build(d)) for d in deals])
    cpu["records"] += time.process_time() - t0
    results: dict[str, dict[str, Any]] = {}
    records: dict[str, list[list[tuple[Deal, Arrangement]]]] = {}
    for bot in bots:
        truth = [bot.marginals(d, t) for d, t in zip(new, new_tables, strict=True)]
        a = [expected_margin(e, tm, wd) for e, tm, wd in zip(eq_m, truth, w, strict=True)]
        c = [expected_margin(respond(d, t, tm), tm, wd) for d, t, tm, wd in zip(new, new_tables, truth, w, strict=True)]
        curve: dict[str, list[list[float]]] = {str(n): [] for n in sizes}
        records[bot.name] = []
        for r in range(draws):
            rng = np.random.default_rng([record_seed_of(record_seed, r), BOTS.index(bot.name)])
            games = [(d, bot.play(d, t, rng)) for d, t in record_deals[r]]
            records[bot.name].append(games)
            for n in sizes:
                t0 = time.process_time()
                style = fit_style(games[:n], seed=0)
                t1 = time.process_time()
                curve[str(n)].append([expected_margin(respond(d, t, style.marginals(t)), tm, wd)
                                      for d, t, tm, wd in zip(new, new_tables, truth, w, strict=True)])
                cpu["fits"] += t1 - t0
                cpu["responses"] += time.process_time() - t1
        for n in sizes:
            s = gap_share(a, curve[str(n)], c)
            print(f"{bot.name:13s} {n:4d} record(s): (a) {np.mean(a):+.2f} (b) {np.mean(curve[str(n)]):+.2f} "
                  f"(c) {np.mean(c):+.2f} share {s.mean:.0%} [{s.low:.0%}, {s.high:.0%}], draws "
                  f"{min(s.per_draw):.0%}–{max(s.per_draw):.0%}", flush=True)
        results[bot.name] = {"a": a, "c": c, "b": curve,
                             "record_seeds": [record_seed_of(record_seed, r) for r in range(draws)]}
    print("CPU seconds of the parts repeated per draw: " + ", ".join(f"{k} {v:.1f}" for k, v in cpu.items()),
          flush=True)
    return results, records


def respond(deal: Deal, tables: DealTables, marginals: np.ndarray) -> np.ndarray:
    """The per-slot marginals of the best response to an opponent with ``marginals``."""
    sol = complete(deal, {}, FixedMarginals("model", marginals), tables=tables)
    return ArrangementMix((sol.arrangement,), (1.0,)).marginals(tables)


def pct(x: float) -> str:
    return "—" if not np.isfinite(x) else f"{100 * x:.0f}"


def make_report(results: dict[str, Any], sizes: list[int], eps: list[float], run: Run, args: argparse.Namespace) -> str:
    draws = len(next(iter(results.values()))["b"][str(sizes[0])])
    lines = [run.line(), "",
             f"{args.deals} new deals as dealt (`Deal.random`, seeds {args.seed}–{args.seed + args.deals - 1}); "
             f"records: {draws} draws per bot, draw r the bot's arrangements of other dealt deals (seeds "
             f"{args.record_seed} + 100000·r …), nested within the draw (the first 1 of the 2 …); equilibria at "
             f"certified ε ≤ {args.epsilon:g} (max {max(eps):.4f}), computed once and shared by the draws. Margins "
             "are the points won from the bot per game, exact from per-slot marginals. Share = (b − a) / (c − a) of "
             "the means over deals and draws; in brackets its 95% bootstrap interval (4,000 resamples, each "
             "drawing the deals with replacement and, independently, the draws with replacement); in parentheses "
             "the lowest and highest share of a single draw (the spread between record sets).", "",
             "| bot | in the style's family | (a) equilibrium | (c) best response to the truth | "
             + " | ".join(f"share, {n} record{'s' if n > 1 else ''}" for n in sizes) + " |",
             "|---|---|---:|---:|" + "---|" * len(sizes)]
    for name, r in results.items():
        cells = []
        for n in sizes:
            s = gap_share(r["a"], r["b"][str(n)], r["c"])
            cells.append(f"{pct(s.mean)}% [{pct(s.low)}, {pct(s.high)}] ({pct(min(s.per_draw))} to "
                         f"{pct(max(s.per_draw))})")
        lines.append(f"| {name} | {'yes' if name in IN_FAMILY else 'no'} | {np.mean(r['a']):+.2f} | "
                     f"{np.mean(r['c']):+.2f} | " + " | ".join(cells) + " |")
    top = str(max(sizes))
    low = [name for name, r in results.items() if not gap_share(r["a"], r["b"][top], r["c"]).low >= 0.9]
    own = [name for name in results if name in IN_FAMILY]
    lines += ["",
              "A share below 0 means the best response to the fitted style wins *less* from the bot than the "
              "equilibrium does (the model is wrong in a way that costs). The 'Style models' section's 99% is one "
              f"bot of the style's own family at one noise level (habit-0.2, 50 records). Here, at {top} records, "
              f"the bots whose interval reaches below 90%: {', '.join(low) or 'none'} (own-family bots: "
              f"{', '.join(own) or 'none'}). The style's features (packet depth, strength order per slot, category "
              "per slot) describe a bot well when its habits are about strength order.", "",
              "![learning curve](style_learning_curve.png)"]
    return "\n".join(lines)


def plot(results: dict[str, Any], sizes: list[int], args: argparse.Namespace) -> Any:
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.8))
    draws = 0
    for j, (name, r) in enumerate(results.items()):
        pts = [gap_share(r["a"], r["b"][str(n)], r["c"]) for n in sizes]
        draws = len(pts[0].per_draw)
        ax.plot(sizes, [100 * s.mean for s in pts], "o-", color=f"C{j}",
                label=f"{name} ({'own family' if name in IN_FAMILY else 'outside the family'})")
        ax.fill_between(sizes, [100 * s.low for s in pts], [100 * s.high for s in pts], color=f"C{j}", alpha=0.15)
        for n, s in zip(sizes, pts, strict=True):  # each draw's share, faint
            ax.plot([n] * len(s.per_draw), [100 * x for x in s.per_draw], ".", color=f"C{j}", alpha=0.35, ms=3)
    ax.axhline(100, color="black", lw=0.7, ls="--")
    ax.axhline(0, color="black", lw=0.7)
    ax.set_xscale("log")
    ax.set_xticks(sizes, [str(n) for n in sizes], fontsize=9)
    ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlim(sizes[0] / 1.25, sizes[-1] * 1.25)
    low = min(ax.get_ylim()[0], -5)
    ax.set_ylim(max(low, -100), 108)
    ax.set_xlabel("recorded games the style is fitted on (log scale)")
    ax.set_ylabel("share of the exploitable gap recovered (%)\n(b − a) / (c − a)")
    ax.set_title(f"Style model learning curves: mean over {args.deals} dealt deals (seeds {args.seed}…) and {draws} "
                 f"record draws; equilibria ε ≤ {args.epsilon:g}\nband: 95% bootstrap (deals and draws resampled); "
                 "dots: single draws", fontsize=9)
    ax.legend(fontsize=8, loc="best")
    fig.tight_layout()
    savefig(fig, "style_learning_curve.png")
    return fig


if __name__ == "__main__":
    main()
