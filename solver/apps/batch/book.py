"""The book: how many suit-canonical deals there are (Burnside's count, 156,248 for the
classic game) and, from a sample of canonical deals drawn uniformly (each class is one job
of the book) and solved afresh — never read from nor written to the store — an estimate of
the CPU-hours to solve all of them at ε."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from math import comb

from quintet.cards import format_cards
from quintet.rules import CLASSIC, Rules
from quintet.symmetry import count_canonical_deals, symmetry_group
from solver.advisor.equilibrium import certified_within
from solver.advisor.limits import BATCH_EPSILON, BATCH_TIME_LIMIT
from solver.advisor.schema import BookOut, model_of
from solver.advisor.stats import mean_ci95
from solver.apps.batch.deals import book_sample
from solver.apps.batch.run import run_batch

__all__ = ["BookEstimate", "book_estimate"]


@dataclass
class BookEstimate:
    """The book's size and the CPU cost of solving it, estimated from a uniform sample of its deals."""

    rules: str
    canonical_deals: int
    exposed_sets: int
    sample: int
    epsilon: float
    time_limit: float | None
    cpu_seconds: list[float]
    wall_seconds: list[float]
    converged: int
    seed: int
    keys: list[int] = field(default_factory=list)  # the sampled canonical deals, in the order of cpu_seconds

    @property
    def mean_cpu(self) -> float:
        return statistics.fmean(self.cpu_seconds) if self.cpu_seconds else math.nan

    @property
    def cpu_hours(self) -> float:
        return self.canonical_deals * self.mean_cpu / 3600

    @property
    def cpu_hours_ci(self) -> tuple[float, float]:
        """95% interval of the CPU-hours (Student t on the sample mean; ≥ 0); NaN below two deals."""
        if len(self.cpu_seconds) < 2:
            return (math.nan, math.nan)
        mean, half = mean_ci95(self.cpu_seconds)
        scale = self.canonical_deals / 3600
        return (max(0.0, float(mean - half) * scale), float(mean + half) * scale)

    def to_model(self) -> BookOut:
        """``quintet-batch --book --json``."""
        lo, hi = self.cpu_hours_ci
        cpu = sorted(self.cpu_seconds)
        return model_of(
            BookOut, self, deals=[format_cards(k) for k in self.keys],
            mean_cpu_seconds=self.mean_cpu if cpu else None,
            median_cpu_seconds=statistics.median(cpu) if cpu else None,
            max_cpu_seconds=cpu[-1] if cpu else None,
            cpu_hours=self.cpu_hours if cpu else None,
            cpu_hours_ci95=[lo, hi] if cpu and not math.isnan(lo) else None,
            lower_bound=self.converged < len(cpu),
        )

    def format(self) -> str:
        lines = [f"The book ({self.rules}): {self.canonical_deals:,} suit-canonical deals "
                 f"(of {self.exposed_sets:,} exposed sets)."]
        if not self.cpu_seconds:
            return lines[0]
        cpu = sorted(self.cpu_seconds)
        n = len(cpu)
        p90 = cpu[min(n - 1, int(math.ceil(0.9 * n)) - 1)]
        lo, hi = self.cpu_hours_ci
        lines.append(
            f"Measured on {n} canonical deals drawn uniformly (seed {self.seed}), solved afresh at ε ≤ {self.epsilon:g}"
            f" (time limit {self.time_limit:g} s): {self.converged}/{n} certified; CPU seconds per deal: "
            f"mean {self.mean_cpu:.2f}, median {statistics.median(cpu):.2f}, p90 {p90:.2f}, max {cpu[-1]:.2f}.")
        ci = f" (95% CI {lo:,.0f}–{hi:,.0f})" if not math.isnan(lo) else ""
        lines.append(
            f"Estimate for the whole book at ε ≤ {self.epsilon:g}: {self.canonical_deals:,} × {self.mean_cpu:.2f} s "
            f"= {self.cpu_hours:,.0f} CPU-hours{ci}, i.e. {self.cpu_hours / 24:,.1f} days on one core, "
            f"{self.cpu_hours / 64:,.1f} hours on 64 cores.")
        if self.converged < n:
            lines.append(f"{n - self.converged} sampled deal(s) reached the time limit before ε: their time counts as "
                         "the limit, so the estimate is a lower bound.")
        return "\n".join(lines)


def book_estimate(sample: int = 10, *, seed: int = 0, rules: Rules = CLASSIC, epsilon: float = BATCH_EPSILON,
                  time_limit: float | None = BATCH_TIME_LIMIT, workers: int = 1, executor: str = "local",
                  scheduler: str | None = None, progress: bool = False) -> BookEstimate:
    """Count the book and time ``sample`` uniformly drawn canonical deals (no store)."""
    k = rules.n_exposed
    group = symmetry_group(rules)
    count = count_canonical_deals(rules.deck, k, group=group)
    keys = book_sample(sample, seed, rules) if sample else []
    summary = run_batch(keys, rules=rules, store=None, epsilon=epsilon, time_limit=time_limit, workers=workers,
                        executor=executor, scheduler=scheduler, progress=progress) if keys else None
    results = [] if summary is None else [r for r in summary.results if r.error is None]
    return BookEstimate(
        rules=rules.describe(), canonical_deals=count, exposed_sets=comb(rules.deck.size, k), sample=len(results),
        epsilon=epsilon, time_limit=time_limit, cpu_seconds=[r.cpu_seconds for r in results],
        wall_seconds=[r.seconds for r in results],
        converged=sum(certified_within(r.exploitability, epsilon) for r in results),
        seed=seed, keys=[r.canonical for r in results],
    )
