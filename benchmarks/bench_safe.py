"""Safe exploitation benchmark: the frontier against three opponent models, and a wrong model.

    python benchmarks/bench_safe.py                                    # 30 dealt deals, 3 models, 5 limits
    python benchmarks/bench_safe.py --deals 2 --limits 0,0.5 --no-write

Deals: ``Deal.random(seed)`` for ``--deals`` seeds from ``--seed`` (as dealt).  Models:

* ``greedy`` — the greedy player;
* ``br-uniform`` — a bot that always plays the best response to ``uniform``;
* ``style`` — a style model (``solver.problem.style.fit_style``) fitted on 50 arrangements of
  ``bench_style``'s ``HabitBot`` (noise 0.2) on other dealt deals.

For each deal, model A and limit D: ``safe_response`` (the restricted Nash response, row and
column generation; proven optimal unless its time limit stops it — counted) — the mix that
does best against A among those no arrangement beats by more than D, starting from the
deal's exact equilibrium (through the store).  Reported: the share of the gap between the
equilibrium's margin against A (D = 0) and the best response's (D = its exploitability)
won at each D; and **what happens when the model is wrong**: the mix trained on A at a limit
D, played against B, as its margin against B minus the equilibrium's margin against B (a
loss when negative; never below −D, since no strategy beats the mix by more than D).
Means with 95% bootstrap intervals over deals.  Writes the ``safe`` section of RESULTS.md,
``benchmarks/data/safe.json``, ``benchmarks/safe_frontier.png`` and ``benchmarks/safe_wrong_model.png``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from analysis_common import (  # noqa: E402
    DATA,
    GapShare,
    Run,
    bootstrap_ci,
    comma_list,
    gap_share,
    open_store,
    partial_note,
    save_data,
    savefig,
    warm_kernels,
)
from bench_style import HabitBot  # noqa: E402
from benchmark_results import write_section  # noqa: E402

from quintet.cliutil import OneLineParser, float_at_least, positive_float, positive_int, seed_int  # noqa: E402
from quintet.game import Deal  # noqa: E402
from solver.advisor.advice import best_response  # noqa: E402
from solver.advisor.safe import safe_response  # noqa: E402
from solver.problem.best_response import expected_margin  # noqa: E402
from solver.problem.deal_tables import DealTables  # noqa: E402
from solver.problem.opponents import ArrangementMix, FixedMarginals, Greedy, OpponentModel  # noqa: E402
from solver.problem.style import StyleModel, fit_style  # noqa: E402

MODELS = ["greedy", "br-uniform", "style"]


def fitted_style(records: int, seed: int) -> StyleModel:
    bot = HabitBot(0.2)
    rng = np.random.default_rng(seed)
    return fit_style([(d, bot.play(d, rng)) for d in Deal.random_series(seed, records)], seed=0)


def models_for(deal: Deal, tables: DealTables, style: StyleModel) -> dict[str, OpponentModel]:
    bru = best_response(deal, "uniform", tables=tables).arrangement
    return {"greedy": Greedy(), "br-uniform": ArrangementMix((bru,), (1.0,), name="br-uniform"),
            "style": FixedMarginals("style", style.marginals(tables))}


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive_int, default=30, help="dealt deals (default 30)")
    ap.add_argument("--seed", type=seed_int, default=6000,
                    help="first seed (Deal.random), default 6000 (not bench_heuristics' deals: this solves ε = 0 "
                         "equilibria into the shared store)")
    ap.add_argument("--limits", type=comma_list(float_at_least(0)), default="0,0.25,0.5,1,2",
                    help="the limits D (points), comma-separated")
    ap.add_argument("--style-records", type=positive_int, default=50)
    ap.add_argument("--style-seed", type=seed_int, default=900000)
    ap.add_argument("--time-limit", type=positive_float, default=600.0, help="seconds per safe response (default 600)")
    ap.add_argument("--store", default=None)
    ap.add_argument("--no-store", action="store_true")
    ap.add_argument("--report", action="store_true",
                    help="only rewrite the RESULTS section and the plot from benchmarks/data/safe.json")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    if args.report:
        saved = json.loads((DATA / "safe.json").read_text())
        args = argparse.Namespace(**{**saved["params"], "report": True, "no_write": args.no_write})
        report = make_report(saved["deals"], saved["limits"], Run.from_dict(saved["run"]), args)
        print(report)
        if args.no_write:
            return
        plot(saved["deals"], saved["limits"], args)
        write_section("safe", "Safe exploitation: three models, and a wrong one", report)
        return
    limits = sorted({float(x) for x in args.limits.split(",")} | {0.0})
    run = Run()
    store = open_store(args.store, args.no_store)
    warm_kernels()
    style = fitted_style(args.style_records, args.style_seed)
    deals = []
    for i in range(args.deals):
        deal = Deal.random(args.seed + i)
        tables = DealTables.build(deal)
        models = models_for(deal, tables, style)
        marg = {name: m.marginals(tables) for name, m in models.items()}
        w = deal.rules.weights
        rec: dict[str, object] = {"seed": args.seed + i, "exposed": deal.format(), "models": {}}
        for a, model in models.items():
            br = best_response(deal, model, tables=tables)
            br_m = ArrangementMix((br.arrangement,), (1.0,)).marginals(tables)
            br_x = best_response(deal, ArrangementMix((br.arrangement,), (1.0,)), tables=tables).expected_margin
            points = []
            for D in limits + ["br"]:
                cpu = time.process_time()
                if D == "br":
                    mix_m, x, opt, label = br_m, br_x, True, br_x
                else:
                    r = safe_response(deal, model, float(D), time_limit=args.time_limit, store=store)
                    mix_m, x, opt, label = r.opponent_model().marginals(tables), r.exploitability, r.optimal, D
                points.append({"limit": label, "exploitability": x, "optimal": opt,
                               "cpu": time.process_time() - cpu,
                               "vs": {b: expected_margin(mix_m, marg[b], w) for b in models}})
            rec["models"][a] = points  # type: ignore[index]
            print(f"{i + 1:3d}/{args.deals} {deal.format():22s} model {a:10s} margin vs model: "
                  + " ".join(f"D={p['limit']:.2f}:{p['vs'][a]:+.2f}" for p in points), flush=True)
        deals.append(rec)
        if not args.no_write:
            save_data("safe", run, {"params": vars(args), "limits": limits, "deals": deals, "complete": False})
    report = make_report(deals, limits, run, args)
    print(report)
    if args.no_write:
        return
    save_data("safe", run, {"params": vars(args), "limits": limits, "deals": deals, "complete": True})
    plot(deals, limits, args)
    write_section("safe", "Safe exploitation: three models, and a wrong one", report)


def shares(deals: list[dict], a: str, j: int) -> GapShare:  # type: ignore[type-arg]
    """The share of the equilibrium → best-response gap against ``a`` won at limit index j: the
    mean gain over the mean gap (``gap_share``, the Style robustness section's estimator)."""
    pts = [d["models"][a] for d in deals]
    return gap_share([p[0]["vs"][a] for p in pts], [[p[j]["vs"][a] for p in pts]], [p[-1]["vs"][a] for p in pts])


def make_report(deals: list[dict], limits: list[float], run: Run, args: argparse.Namespace) -> str:  # type: ignore[type-arg]
    n = len(deals)
    proven = sum(p["optimal"] for d in deals for a in MODELS for p in d["models"][a])
    total = sum(len(d["models"][a]) for d in deals for a in MODELS)
    lines = [run.line(), "", *partial_note(n, args.deals),
             f"{n} deals as dealt (`Deal.random`, seeds {args.seed}–{args.seed + n - 1}); models `greedy`, "
             "`br-uniform` "
             f"(always the best response to uniform), `style` (fitted on {args.style_records} games of bench_style's "
             f"HabitBot, noise 0.2). Each point a `safe_response` at limit D ({proven}/{total} proven "
             f"optimal{'' if proven == total else ', the rest stopped by the time limit'}; D = 'BR' is the plain best "
             "response). Means with 95% bootstrap intervals "
             "over deals. A share is the mean gain over the mean gap, (mean margin at D − mean margin at D = 0) / "
             "(mean best response's margin − mean margin at D = 0) over the deals, with a 95% bootstrap interval over "
             "deals: "
             "the Style robustness section's estimator. D = 0 is the equilibrium that does best against the model "
             "(the safe response at limit 0, proven: every equilibrium is a candidate), so where equilibria differ "
             "against the model the zero is the most favourable of them, not an arbitrary one.", "",
             "Share of the gap (equilibrium → best response, against the model the mix is trained on) won at each "
             "limit D (points):", "",
             "| model | equilibrium's margin vs it | best response's margin | best response's exploitability | "
             + " | ".join(f"D = {D:g}" for D in limits[1:]) + " |",
             "|---|---:|---:|---:|" + "---|" * (len(limits) - 1)]
    for a in MODELS:
        eq = np.array([d["models"][a][0]["vs"][a] for d in deals])
        br = np.array([d["models"][a][-1]["vs"][a] for d in deals])
        bx = np.array([d["models"][a][-1]["exploitability"] for d in deals])
        cells = []
        for j in range(1, len(limits)):
            s = shares(deals, a, j)
            cells.append(f"{100 * s.mean:.0f}% [{100 * s.low:.0f}, {100 * s.high:.0f}]")
        lines.append(f"| {a} | {eq.mean():+.2f} | {br.mean():+.2f} | {bx.mean():.2f} | " + " | ".join(cells) + " |")
    pick = [j for j, D in enumerate(limits) if D == 0.5] or [len(limits) - 1]
    jd = pick[0]
    lines += ["", f"**When the model is wrong** — trained on the row's model at D = {limits[jd]:g} (and as the plain "
              "best response, D = BR), played against the column's: margin minus the equilibrium's margin against the "
              "column model (points per game); mean [95% CI] over deals, then the **worst deal** and the 10th "
              "percentile (a mean hides the deals where the wrong model costs most):", "",
              "| trained on \\ played against | " + " | ".join(MODELS) + " |", "|---|" + "---|" * len(MODELS)]
    worst: dict[str, float] = {}
    for a in MODELS:
        for j, tag in ((jd, f"D = {limits[jd]:g}"), (-1, "BR")):
            cells = []
            for b in MODELS:
                diff = np.array([d["models"][a][j]["vs"][b] - d["models"][b][0]["vs"][b] for d in deals])
                m, lo, hi = bootstrap_ci(diff)
                p10 = np.quantile(diff, 0.1)
                cells.append(f"{m:+.2f} [{lo:+.2f}, {hi:+.2f}]; worst {diff.min():+.2f}, p10 {p10:+.2f}")
                if a != b:
                    worst[tag] = min(worst.get(tag, np.inf), float(diff.min()))
            lines.append(f"| {a}, {tag} | " + " | ".join(cells) + " |")
    own = {tag: min(min(d["models"][a][j]["vs"][b] for d in deals) for a in MODELS for b in MODELS if a != b)
           for j, tag in ((jd, f"D = {limits[jd]:g}"), (-1, "BR"))}
    lines += ["", f"Off the diagonal, the worst deal: the safe mix (D = {limits[jd]:g}) falls "
              f"{-worst[f'D = {limits[jd]:g}']:.2f} points short of the equilibrium's margin, the plain best response "
              f"{-worst['BR']:.2f}; the mix's own margin against the wrong model is never below "
              f"{own[f'D = {limits[jd]:g}']:+.2f} (its guarantee: −{limits[jd]:g}), the plain best response's "
              f"{own['BR']:+.2f}."]
    lines += ["", "The diagonal is the gain where the model is right. Off the diagonal the safe mix's own margin is "
              f"never below −{limits[jd]:g} (no arrangement beats it by more than D), but it can fall short of the "
              "equilibrium's margin by more than D, because the equilibrium too wins from the wrong model's "
              "mistakes; the plain best response's shortfall is bounded only by its exploitability.", "",
              "![safe exploitation frontier](safe_frontier.png)", "", "![wrong model](safe_wrong_model.png)"]
    return "\n".join(lines)


def plot(deals: list[dict], limits: list[float], args: argparse.Namespace) -> None:  # type: ignore[type-arg]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.6))
    for k, a in enumerate(MODELS):
        ms, los, his = [], [], []
        for j in range(len(limits)):
            s = shares(deals, a, j)
            ms.append(100 * s.mean)
            los.append(100 * s.low)
            his.append(100 * s.high)
        ax.plot(limits, ms, "o-", color=f"C{k}", label=f"trained on and played against {a}")
        ax.fill_between(limits, los, his, color=f"C{k}", alpha=0.15)
    ax.set_xscale("symlog", linthresh=0.25)
    ax.set_xticks(limits, [f"{D:g}" for D in limits])
    ax.set_xlabel("limit D on the mix's exploitability (points per game; symlog, linear below 0.25)")
    ax.set_ylabel("share of the equilibrium → best-response gap won (%)")
    ax.set_ylim(-5, 105)
    ax.legend(fontsize=8)
    ax.set_title(f"Safe exploitation frontier: mean over {len(deals)} dealt deals (seeds {args.seed}…), 95% "
                 "bootstrap band", fontsize=9)
    fig.tight_layout()
    savefig(fig, "safe_frontier.png")

    jd = next((j for j, D in enumerate(limits) if D == 0.5), len(limits) - 1)
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    panels = [(axes[0], jd, f"safe mix, D = {limits[jd]:g}"), (axes[1], -1, "plain best response")]
    matrices = [np.array([[np.mean([d["models"][a][j]["vs"][b] - d["models"][b][0]["vs"][b] for d in deals])
                           for b in MODELS] for a in MODELS]) for _, j, _ in panels]
    lim = max(1e-9, max(float(np.abs(M).max()) for M in matrices))  # one colour scale for both panels
    for (ax, _, tag), M in zip(panels, matrices, strict=True):
        im = ax.imshow(M, cmap="RdBu", vmin=-lim, vmax=lim)
        for r in range(len(MODELS)):
            for c in range(len(MODELS)):
                ax.text(c, r, f"{M[r, c]:+.2f}", ha="center", va="center", fontsize=10,
                        color="white" if abs(M[r, c]) > 0.6 * lim else "black")
        ax.set_xticks(range(len(MODELS)), MODELS)
        ax.set_yticks(range(len(MODELS)), MODELS)
        ax.set_xlabel("played against")
        ax.set_ylabel("trained on")
        ax.set_title(tag, fontsize=10)
        fig.colorbar(im, ax=ax, label="margin − equilibrium's margin (points per game)")
    fig.suptitle(f"A wrong model: mean over {len(deals)} dealt deals (seeds {args.seed}…)", fontsize=10)
    fig.tight_layout()
    savefig(fig, "safe_wrong_model.png")


if __name__ == "__main__":
    main()
