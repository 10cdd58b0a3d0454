"""``quintet-tournament`` — a round robin of Quintet strategies over seeded deals.

    quintet-tournament --deals 20 --seed 2026
    quintet-tournament --deals 20 --json --plot tournament.png
    quintet-tournament --exposed "8h 7h 9d Ts 7s Qc Jc" --strategies greedy,br:uniform,equilibrium

A strategy is spelled as the computer's opponent (``solver.play.computer.ComputerSpec``, from the
registry of opponent models), each defined per deal; the default round robin
(``default_strategies()``) is every registered model's ``tournament`` names:

* ``uniform`` — a uniformly random arrangement (every slot a uniformly random 5-subset);
* ``greedy`` — the naive player of ``solver.problem.opponents.greedy_arrangement`` (pure);
* ``br:uniform``, ``br:greedy`` — the exact best responses to those (pure, proven optimal);
* ``equilibrium`` — the certified ε-equilibrium mix (``solve_equilibrium``, through the
  store), played as the whole mix.

**Nothing is sampled.**  The payoff is additive over slots and the two players choose
independently, so the expected margin of A against B depends only on their per-slot
marginal distributions over rank classes:

    margin(A, B) = Σ_s w_s Σ_{r, r'} P_A(s, r) · P_B(s, r') · sign(r − r')
                 = Σ_s w_s Σ_r P_A(s, r) · (2·F_B(s, r) − P_B(s, r) − 1)

with ``F_B`` B's cumulative distribution.  Every strategy above is a mix of arrangements
(pure ones are a mix of one) or the uniform model, whose marginals are exact
(``Uniform().marginals``), so every entry is an exact expectation.  The only random
element is the choice of deals: the table reports, for each pair, the mean margin per game
over the deals with a 95% confidence interval (Student t across deals).

Exploitability: the equilibrium's certified exploitability ε bounds what *any* strategy can
gain against it, so every entry of the equilibrium's column is ≤ ε on each deal.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from quintet.cards import format_cards
from quintet.cliutil import (
    OneLineParser,
    UsageError,
    add_rules_arguments,
    int_at_least,
    integer,
    needs_extra,
    number,
    print_json,
    rules_from_args,
    run_cli,
)
from quintet.game import Arrangement, Deal
from quintet.seeds import SEED_MAX, check_seed
from quintet.text import plural, quote, signed
from solver.advisor.advice import best_response
from solver.advisor.equilibrium import EquilibriumResult, solve_equilibrium
from solver.advisor.limits import TOURNAMENT_EPSILON, TOURNAMENT_TIME_LIMIT, check_epsilon, check_time_limit
from solver.advisor.schema import (
    BestResponseValueOut,
    DealEquilibriumOut,
    EquilibriumSummaryOut,
    TournamentDealOut,
    TournamentOut,
)
from solver.advisor.stats import mean_ci95
from solver.play.computer import ComputerSpec, EquilibriumProvider, played_model
from solver.problem.best_response import expected_margin
from solver.problem.deal_tables import DealTables
from solver.problem.opponent_spec import opponent_kind, opponent_kinds
from solver.problem.opponents import ArrangementMix, OpponentError
from solver.storage.store import SolutionStore

__all__ = [
    "default_strategies",
    "strategy_label",
    "check_strategies",
    "DealEntry",
    "TournamentResult",
    "margin_matrix",
    "evaluate_deal",
    "run_tournament",
    "plot_heatmap",
    "main",
]



def default_strategies() -> tuple[str, ...]:
    """Every registered model's ``tournament`` names: the models, their best responses, then
    what needs the equilibrium (it is solved)."""
    specs = {n: ComputerSpec.parse(n) for k in opponent_kinds() for n in k.tournament}
    return tuple(sorted(specs, key=lambda n: (specs[n].needs_equilibrium, specs[n].plays is None)))


def strategy_label(name: str) -> str:
    """A few words for a strategy: its model's label, or "best response to …"."""
    spec = ComputerSpec.parse(name)
    return opponent_kind(spec.plays).label if spec.plays is not None else f"best response to {spec.format()[3:]}"


def check_strategies(strategies: Sequence[str]) -> tuple[str, ...]:
    """The strategies in their canonical spelling; ``UsageError`` (one line) for one that is no
    computer's spelling (the old ``br-NAME`` is told its new one), or one given twice."""
    out = []
    for name in strategies:
        try:
            out.append(ComputerSpec.parse(name).format())
        except OpponentError as exc:
            old = name.startswith("br-") and name[3:] in (k.name for k in opponent_kinds())
            hint = f"write br:{name[3:]}" if old else str(exc)
            raise UsageError(f"unknown strategy {quote(name)} ({hint})") from None
    if len(set(out)) != len(out) or not out:
        raise UsageError("--strategies must name each strategy at most once, and at least one")
    return tuple(out)


SAMPLING_NOTE = (
    "Nothing is sampled: every entry is an exact expected margin computed from per-slot marginals "
    "(uniform random via its exact marginals, the equilibrium as its whole mix); only the deals are "
    "a seeded random sample, and the confidence interval is across deals."
)

ROW_MEAN_NOTE = "mean: the row strategy's mean margin against the other strategies (self-play left out)"




def margin_matrix(marginals: Sequence[np.ndarray], weights: Sequence[float]) -> np.ndarray:
    """``M[a, b]`` = expected margin of strategy a against b (every entry computed on its own)."""
    k = len(marginals)
    out = np.zeros((k, k))
    for a in range(k):
        for b in range(k):
            out[a, b] = expected_margin(marginals[a], marginals[b], weights)
    return out


@dataclass
class DealEntry:
    """One deal of the tournament: each strategy's marginals and what defines it."""

    deal: Deal
    strategies: tuple[str, ...]
    marginals: dict[str, np.ndarray]
    matrix: np.ndarray  # M[a, b] for this deal
    arrangements: dict[str, Arrangement] = field(default_factory=dict)  # the pure strategies
    equilibrium: EquilibriumResult | None = None
    best_responses: dict[str, BestResponseValueOut] = field(default_factory=dict)  # br:uniform, br:greedy

    def to_model(self) -> TournamentDealOut:
        rules = self.deal.rules
        eq = self.equilibrium
        equilibrium = None if eq is None else DealEquilibriumOut(
            exploitability=eq.exploitability, converged=eq.converged, proven=eq.proven, support=len(eq.mix),
            from_store=eq.from_store, seconds=eq.seconds)
        return TournamentDealOut(
            exposed=format_cards(self.deal.exposed, rules.deck).split(),
            matrix=self.matrix.tolist(),
            arrangements={k: a.card_lists(rules) for k, a in self.arrangements.items()},
            best_responses=self.best_responses, equilibrium=equilibrium)


def evaluate_deal(deal: Deal, strategies: Sequence[str] | None = None, *,
                  equilibrium_provider: EquilibriumProvider | None = None,
                  time_limit: float | None = None) -> DealEntry:
    """Build every strategy's marginals on one deal and its margin matrix.

    ``equilibrium_provider(deal, None)`` supplies the equilibrium (e.g. ``solve_equilibrium``
    with a store); it is called only when a strategy needs it.  ``time_limit`` caps each
    best-response search (unproven answers are flagged in ``best_responses``).
    """
    names = check_strategies(default_strategies() if strategies is None else strategies)
    specs = [ComputerSpec.parse(n) for n in names]
    tables = DealTables.build(deal)
    eq: EquilibriumResult | None = None
    if any(spec.needs_equilibrium for spec in specs):
        if equilibrium_provider is None:
            raise ValueError("the equilibrium strategy needs an equilibrium_provider")
        eq = equilibrium_provider(deal, None)
    marginals: dict[str, np.ndarray] = {}
    arrangements: dict[str, Arrangement] = {}
    best_responses: dict[str, BestResponseValueOut] = {}
    for name, spec in zip(names, specs, strict=True):
        if spec.plays is not None:
            marginals[name] = played_model(spec.plays, eq).marginals(tables)
            draw = opponent_kind(spec.plays).draw
            if draw is not None and np.all(marginals[name].max(axis=1) == 1.0):  # pure: one arrangement
                arrangements[name] = draw(deal, 0)
        else:
            assert spec.target is not None
            target = spec.target.resolve(deal, equilibrium=None if eq is None else eq.opponent())
            sol = best_response(deal, target, time_limit=time_limit, tables=tables)
            arrangements[name] = sol.arrangement
            best_responses[name] = BestResponseValueOut(optimal=sol.optimal, value=sol.expected_margin)
            marginals[name] = ArrangementMix((sol.arrangement,), (1.0,), name).marginals(tables)
    matrix = margin_matrix([marginals[n] for n in names], deal.rules.weights)
    return DealEntry(deal, names, marginals, matrix, arrangements, eq, best_responses)


@dataclass
class TournamentResult:
    strategies: tuple[str, ...]
    entries: list[DealEntry]
    seconds: float
    seed: int | None = None
    epsilon: float | None = None

    @property
    def per_deal(self) -> np.ndarray:
        """(n_deals, k, k) margin matrices."""
        return np.stack([e.matrix for e in self.entries])

    @property
    def mean(self) -> np.ndarray:
        return self.per_deal.mean(axis=0)

    @property
    def row_mean(self) -> np.ndarray:
        """Each row strategy's mean margin against the *other* strategies: its self-play entry
        (always 0) is left out, so the figure does not shrink with the number of strategies
        (NaN with a single strategy)."""
        k = len(self.strategies)
        if k < 2:
            return np.full(k, np.nan)
        return (self.mean.sum(axis=1) - np.diag(self.mean)) / (k - 1)

    @property
    def ci95(self) -> np.ndarray:
        """Half-width of the 95% confidence interval of the mean (Student t, n − 1 d.f.)."""
        return mean_ci95(self.per_deal)[1]

    def equilibrium_summary(self) -> EquilibriumSummaryOut | None:
        eqs = [d.equilibrium for d in (e.to_model() for e in self.entries) if d.equilibrium is not None]
        if not eqs:
            return None
        eps = [e.exploitability for e in eqs]
        return EquilibriumSummaryOut(
            deals=len(eqs), converged=sum(e.converged for e in eqs), max_exploitability=max(eps),
            mean_exploitability=float(np.mean(eps)), from_store=sum(e.from_store for e in eqs),
            mean_support=float(np.mean([e.support for e in eqs])), target_epsilon=self.epsilon)

    def to_model(self, plot: str | None = None) -> TournamentOut:
        """``quintet-tournament --json`` (``plot``: the heat map written)."""
        mean, ci = self.mean, self.ci95
        return TournamentOut(
            strategies=list(self.strategies),
            labels=[strategy_label(s) for s in self.strategies],
            n_deals=len(self.entries),
            seed=self.seed,
            sampled=False,
            note=SAMPLING_NOTE,
            payoff="row strategy's expected margin (its points minus the column's) per game",
            mean=mean.tolist(),
            ci95=[[None if math.isnan(x) else x for x in row] for row in ci.tolist()],
            row_mean=[None if math.isnan(x) else x for x in self.row_mean.tolist()],
            row_mean_note=ROW_MEAN_NOTE,
            equilibrium=self.equilibrium_summary(),
            deals=[e.to_model() for e in self.entries],
            seconds=self.seconds,
            plot=plot,
        )

    def format_table(self) -> str:
        mean, ci = self.mean, self.ci95
        names = self.strategies
        n = len(self.entries)
        width = max(13, *(len(s) for s in names)) + 1
        cell = 15
        lines = [
            f"Quintet tournament: {n} deal{'s' if n != 1 else ''}"
            + (f" (seed {self.seed})" if self.seed is not None else "")
            + " — the row strategy's expected margin per game against the column strategy",
            "(points; mean over deals ± half-width of the 95% confidence interval, Student t"
            + (f", {n - 1} d.f.)" if n > 1 else "; one deal: no interval)"),
            SAMPLING_NOTE,
            "",
            "row \\ column".ljust(width) + "".join(s.rjust(cell) for s in names) + "mean".rjust(10),
        ]
        for a, row_name in enumerate(names):
            cells = []
            for b in range(len(names)):
                half = ci[a, b]
                text = signed(mean[a, b]) + ("" if math.isnan(half) else f" ±{half:.2f}")
                cells.append(text.rjust(cell))
            row_mean = self.row_mean[a]
            lines.append(row_name.ljust(width) + "".join(cells) + ("-" if math.isnan(row_mean) else
                                                                   signed(row_mean)).rjust(10))
        lines.append(ROW_MEAN_NOTE + ".")
        lines.append("")
        for s in names:
            lines.append(f"  {s}: {strategy_label(s)}")
        summary = self.equilibrium_summary()
        if summary:
            target = f" ≤ {self.epsilon:g}" if self.epsilon is not None else ""
            lines.append(
                f"Equilibrium: exploitability{target} certified on {summary.converged}/{summary.deals} deals "
                f"(max {summary.max_exploitability:.4f}: no strategy gains more than that against it on "
                f"any deal); mean support {summary.mean_support:.1f} arrangements; "
                f"{summary.from_store} answered from the store."
            )
        unproven = [(s, e.deal) for e in self.entries for s, value in e.best_responses.items() if not value.optimal]
        if unproven:
            lines.append(f"Warning: {plural(len(unproven), 'best response')} "
                         f"{'was' if len(unproven) == 1 else 'were'} not proven optimal within the time limit.")
        lines.append(f"{self.seconds:.1f} s.")
        return "\n".join(lines)


def run_tournament(
    deals: Sequence[Deal],
    strategies: Sequence[str] | None = None,
    *,
    epsilon: float = TOURNAMENT_EPSILON,
    time_limit: float | None = TOURNAMENT_TIME_LIMIT,
    store: SolutionStore | None = None,
    equilibrium_provider: EquilibriumProvider | None = None,
    progress: Callable[[int, int, DealEntry], None] | None = None,
    seed: int | None = None,
) -> TournamentResult:
    """Play the round robin of ``strategies`` (default: ``default_strategies()``) on ``deals``.

    The equilibrium comes from ``equilibrium_provider`` if given, else from
    ``solve_equilibrium(deal, epsilon=…, time_limit=…, store=store)``.
    """
    if not deals:
        raise ValueError("a tournament needs at least one deal")
    names = check_strategies(default_strategies() if strategies is None else strategies)
    if equilibrium_provider is None:
        def equilibrium_provider(deal: Deal, stop: threading.Event | None) -> EquilibriumResult:
            return solve_equilibrium(deal, epsilon=epsilon, time_limit=time_limit, store=store, stop_event=stop)

    start = time.perf_counter()
    entries = []
    for i, deal in enumerate(deals):
        entry = evaluate_deal(deal, names, equilibrium_provider=equilibrium_provider, time_limit=time_limit)
        entries.append(entry)
        if progress is not None:
            progress(i + 1, len(deals), entry)
    return TournamentResult(names, entries, time.perf_counter() - start, seed=seed, epsilon=epsilon)


def plot_heatmap(result: TournamentResult, path: str | Path | None = None, *, ax: Any = None) -> Any:
    """A heat map of the mean margins (row vs column) annotated with the 95% intervals.

    Needs matplotlib (the ``bench`` extra).  Draws into ``ax`` if given; saves a PNG to
    ``path`` if given; returns the figure.
    """
    import matplotlib.pyplot as plt

    mean, ci = result.mean, result.ci95
    names = list(result.strategies)
    if ax is None:
        fig, ax = plt.subplots(figsize=(1.6 * len(names) + 2.5, 1.3 * len(names) + 1.5))
    else:
        fig = ax.figure
    vmax = float(np.abs(mean).max()) or 1.0  # a colour scale needs a nonzero range
    image = ax.imshow(mean, cmap="RdBu", vmin=-vmax, vmax=vmax)
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("column strategy (opponent)")
    ax.set_ylabel("row strategy")
    for a in range(len(names)):
        for b in range(len(names)):
            text = signed(mean[a, b]) + ("" if math.isnan(ci[a, b]) else f"\n±{ci[a, b]:.2f}")
            colour = "white" if abs(mean[a, b]) > 0.6 * vmax else "black"
            ax.text(b, a, text, ha="center", va="center", fontsize=8, color=colour)
    n = len(result.entries)
    dealt = "" if result.seed is None else f" as dealt (seeds {result.seed}–{result.seed + n - 1})"
    eps = "" if result.epsilon is None else f", equilibria at ε ≤ {result.epsilon:g}"
    ax.set_title(f"Expected margin per game, row vs column\n{plural(n, 'deal')}{dealt}{eps}; mean ± 95% CI "
                 "(exact, nothing sampled)", fontsize=9)
    fig.colorbar(image, ax=ax, label="row's expected margin against column (points per game)")
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=120)
    return fig


# --------------------------------------------------------------------------- command line


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(
        prog="quintet-tournament",
        description="Round robin of Quintet strategies over seeded deals, with exact expected margins.",
    )
    p.add_argument("--deals", type=int_at_least(0), default=20, metavar="N",
                   help="number of seeded random deals (default 20)")
    p.add_argument("--seed", type=integer, default=2026,
                   help=f"seed of the first random deal, 0..{SEED_MAX}; deal k has seed SEED+k-1, the deal "
                        "quintet-play --seed deals (default 2026)")
    p.add_argument("--exposed", action="append", default=[], metavar="CARDS",
                   help="a deal given by its exposed cards (7 in Quintet; repeatable; played before the random deals)")
    p.add_argument("--strategies", default=",".join(default_strategies()),
                   help=f"comma-separated strategies, spelled as quintet-play --opponent (default: "
                        f"{','.join(default_strategies())})")
    p.add_argument("--epsilon", type=number, default=TOURNAMENT_EPSILON, metavar="POINTS",
                   help=f"target certified exploitability of the equilibrium (default {TOURNAMENT_EPSILON:g})")
    p.add_argument("--time-limit", type=number, default=TOURNAMENT_TIME_LIMIT, metavar="SECONDS",
                   help="per deal: time limit of the equilibrium solve and of each best response "
                        f"(default {TOURNAMENT_TIME_LIMIT:g})")
    p.add_argument("--store", metavar="PATH", default=None,
                   help="store of solved equilibria (default: $QUINTET_STORE or the user cache directory)")
    p.add_argument("--no-store", action="store_true", help="neither read nor write the store")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of the table")
    p.add_argument("--plot", metavar="PATH", default=None, help="write a PNG heat map (needs matplotlib)")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    add_rules_arguments(p)
    return p


def _check_plot(path: str) -> None:
    """``--plot PATH`` in one line now (matplotlib missing, a format it cannot write, a
    directory that does not exist or cannot be written); nothing is created."""
    with needs_extra("quintet-tournament --plot", "bench"):
        import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    target = Path(path)
    suffix = target.suffix[1:].lower()
    formats = Figure().canvas.get_supported_filetypes()
    if suffix and suffix not in formats:
        raise UsageError(f"--plot {quote(path)}: matplotlib cannot write .{suffix} files (use .png)")
    if target.is_dir():
        raise UsageError(f"--plot {quote(path)} is a directory")
    folder = target.parent
    if not folder.is_dir():
        raise UsageError(f"--plot {quote(path)}: no directory {quote(str(folder))}")
    if not os.access(target if target.exists() else folder, os.W_OK):
        raise UsageError(f"--plot {quote(path)} cannot be written")


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    args.epsilon, args.time_limit = check_epsilon(args.epsilon), check_time_limit(args.time_limit)
    if args.no_store and args.store:
        raise UsageError("--store and --no-store cannot be combined")
    rules = rules_from_args(args)
    strategies = check_strategies([s.strip() for s in args.strategies.split(",") if s.strip()])
    deals = ([Deal.from_exposed(text, rules) for text in args.exposed]
             + Deal.random_series(check_seed(args.seed, "--seed"), args.deals, rules))
    if not deals:
        raise UsageError("no deals: give --deals N ≥ 1 or --exposed")
    if args.plot:
        _check_plot(args.plot)  # before the work: a table is never lost to a bad --plot

    def progress(i: int, n: int, entry: DealEntry) -> None:
        if args.quiet:
            return
        eq = ""
        if entry.equilibrium is not None:
            src = "store" if entry.equilibrium.from_store else f"{entry.equilibrium.seconds:.1f} s"
            eq = f", equilibrium exploitability {entry.equilibrium.exploitability:.4f} ({src})"
        print(f"quintet-tournament: deal {i}/{n} {entry.deal.format()}{eq}", file=sys.stderr, flush=True)

    seed = args.seed if args.deals else None
    if args.no_store or not any(ComputerSpec.parse(s).needs_equilibrium for s in strategies):
        result = run_tournament(deals, strategies, epsilon=args.epsilon, time_limit=args.time_limit,
                                progress=progress, seed=seed)
    else:
        with SolutionStore(args.store) as store:
            result = run_tournament(deals, strategies, epsilon=args.epsilon, time_limit=args.time_limit,
                                    store=store, progress=progress, seed=seed)
    if args.plot:
        plot_heatmap(result, args.plot)
    if args.json:
        print_json(result.to_model(str(args.plot) if args.plot else None))
    else:
        print(result.format_table())
        if args.plot:
            print(f"Heat map: {args.plot}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli("quintet-tournament", _main, argv)


if __name__ == "__main__":
    raise SystemExit(main())
