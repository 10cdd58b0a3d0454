"""Differential testing of the exact best-response engines at full size (docs/proofs.md).

A "proven optimal" answer is checked by asking the same question in ways that share as
little reasoning as possible:

* the search with all its pruning rules (as shipped: card prices after 1,000 nodes, so that
  the levels open then are priced late; and with the prices from the root);
* the search with subsets of its rules (``VARIANTS``): each optional rule (4 to 7) is off
  in at least one variant, so a wrong rule shows as a disagreement;
* the basic search (rules 1–3 only, ``BASIC``) where it finishes in time;
* CP-SAT (``solver.engines.cpsat``), an independent model, on a subset (it is slow on large mixes);
* brute force (``tests/brute.py``: hand keys compared one by one, no value tables) on
  reduced instances (two slots fixed, so 756,756 ordered splits of the other 15 cards).

Instances (``instance_stream``) are the opponents that matter: the mixes a double oracle
actually produces on the way to an equilibrium (10–200 arrangements, many equal-class
packets), random weights over its pool, those mixes blended with ``uniform`` and
``greedy``, random populations, and the plain models — on random deals, both objectives,
both tie rules.

``check(instance, …)`` returns a ``Verdict`` listing every disagreement: two proven values
differing by more than ``AGREE``; an unproven answer whose value exceeds the optimum or
whose bound falls below it; an illegal arrangement; a value that is not the arrangement's
own value.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import brute
import numpy as np

from quintet.game import Arrangement, Deal
from quintet.rules import Rules, get_rules
from solver.engines.search import SearchOptions, solve_search
from solver.games.double_oracle import IterationRecord, Response, double_oracle
from solver.games.quintet_game import QuintetGame
from solver.problem.best_response import VALUE_TOLERANCE, BestResponseProblem, EngineResult, slot_values
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import ArrangementMix, Greedy, Mixture, OpponentModel, Uniform, greedy_arrangement

AGREE = 4 * VALUE_TOLERANCE  # two proofs of the optimum must agree this closely

BASIC = SearchOptions(exchange=False, packing_bounds=False, card_prices=False, card_exchanges=False)
VARIANTS: dict[str, SearchOptions] = {
    "all rules": SearchOptions(),
    "all rules, prices from the root": SearchOptions(card_prices_after=0),
    "rules 1-3, 5": SearchOptions(exchange=False, card_prices=False, card_exchanges=False),
    "rules 1-3, 6": SearchOptions(exchange=False, packing_bounds=False, card_exchanges=False),
    "rules 1-4, 6, 7": SearchOptions(packing_bounds=False),
}
"""Search variants run on every instance; rules 4 to 7 are each off in some of them."""


@dataclass(frozen=True)
class Instance:
    """One best-response question: ``problem`` asks for the best reply to ``opponent``."""

    name: str
    kind: str
    deal: Deal
    opponent: OpponentModel
    objective: str
    problem: BestResponseProblem
    support: int  # arrangements in the opponent's mix (0 for uniform)

    @property
    def reduced(self) -> bool:
        return any(p >= 0 for p in self.problem.fixed)


@dataclass
class Verdict:
    instance: Instance
    results: dict[str, EngineResult] = field(default_factory=dict)
    optimum: float | None = None  # the value every proof agrees on
    brute: float | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        parts = [f"{n}: {r.value:.9f}{'' if r.optimal else f' (bound {r.bound:.9f})'} {r.seconds:.2f}s"
                 for n, r in self.results.items()]
        return f"{self.instance.name}: " + "; ".join(parts) + ("" if self.ok else " — " + " | ".join(self.problems))


def make_problem(tables: DealTables, opponent: OpponentModel, objective: str,
                 fixed: Sequence[int] = ()) -> BestResponseProblem:
    rules = tables.rules
    values = slot_values(opponent.marginals(tables), rules.weights, objective, rules.tie_points)
    return BestResponseProblem(tables, values, tuple(fixed))


class _RecordingGame(QuintetGame):
    """QuintetGame that keeps every mix it is asked to best-respond to."""

    def __init__(self, tables: DealTables) -> None:
        super().__init__(tables)
        self.mixes: list[tuple[list[tuple[int, ...]], np.ndarray]] = []

    def best_response(self, support, probabilities, *, time_limit, hint, stop_event) -> Response:
        self.mixes.append((list(support), np.array(probabilities, dtype=np.float64)))
        return super().best_response(support, probabilities, time_limit=time_limit, hint=hint,
                                     stop_event=stop_event)


def double_oracle_mixes(tables: DealTables, *, seconds: float, max_iterations: int = 12
                        ) -> tuple[list[tuple[list[tuple[int, ...]], np.ndarray]], list[tuple[int, ...]]]:
    """The mixes a double oracle asks best responses to on this deal (and its pool)."""
    game = _RecordingGame(tables)
    stop = threading.Event()

    def progress(record: IterationRecord) -> None:
        if record.iteration >= max_iterations:
            stop.set()

    uniform = make_problem(tables, Uniform(), "margin")
    first = solve_search(uniform, time_limit=seconds)
    double_oracle(game, [first.packets], epsilon=1e-6, time_limit=seconds, stop_event=stop,
                  trivial_bound=float(sum(tables.rules.weights)), progress=progress)
    pool = sorted({tuple(s) for support, _ in game.mixes for s in support})
    return game.mixes, pool


def _mix(tables: DealTables, strategies: Sequence[tuple[int, ...]], weights: Sequence[float],
         name: str = "mix") -> ArrangementMix:
    return ArrangementMix(tuple(tables.arrangement_of(s) for s in strategies), tuple(float(w) for w in weights),
                          name=name)


def _random_population(rng: np.random.Generator, deal: Deal, tables: DealTables) -> ArrangementMix:
    g = greedy_arrangement(tables).packets
    arrs = [Arrangement(tuple(g[i] for i in rng.permutation(5))) for _ in range(int(rng.integers(3, 12)))]
    arrs += [brute.random_arrangement(rng, deal) for _ in range(int(rng.integers(1, 10)))]
    return ArrangementMix(tuple(arrs), tuple(float(x) for x in rng.uniform(0.1, 1.0, len(arrs))), name="population")


def instance_stream(seed: int, *, do_seconds: float = 20.0, per_deal: int = 8, reduced_share: float = 0.0,
                    rules_choices: Sequence[Rules] | None = None, first_deal: int = 0) -> Iterator[Instance]:
    """An endless, reproducible stream of instances (see the module doc).

    Each deal yields ``per_deal`` instances; a share ``reduced_share`` of them get two
    random slots fixed (for brute force).  Deal ``k`` draws from its own generator seeded
    ``(seed, k)``, so a sweep splits into shards by ``first_deal``.
    """
    rules_choices = rules_choices or (get_rules("classic"), get_rules("classic", tie_points=0.5))
    deal_no = first_deal
    while True:
        rng = np.random.default_rng([seed, deal_no])
        rules = rules_choices[int(rng.integers(len(rules_choices)))]
        deal = brute.random_deal(rng, rules)
        tables = DealTables.build(deal)
        mixes, pool = double_oracle_mixes(tables, seconds=do_seconds)
        large = [m for m in mixes if len(m[0]) >= 10] or mixes
        for k in range(per_deal):
            kind = ("do-mix", "do-mix", "pool-mix", "do-mix+uniform+greedy", "population", "uniform+greedy",
                    "uniform", "greedy")[k % 8] if k < 8 else str(rng.choice(["do-mix", "pool-mix"]))
            opponent: OpponentModel
            support = 0
            if kind == "do-mix":
                support_s, probs = large[int(rng.integers(len(large)))]
                opponent, support = _mix(tables, support_s, probs, "do-mix"), len(support_s)
            elif kind == "pool-mix":
                size = int(min(len(pool), rng.integers(10, 201)))
                chosen = [pool[i] for i in rng.choice(len(pool), size, replace=False)]
                opponent, support = _mix(tables, chosen, rng.dirichlet(np.full(size, 0.3)), "pool-mix"), size
            elif kind == "do-mix+uniform+greedy":
                support_s, probs = large[int(rng.integers(len(large)))]
                w = rng.dirichlet([4.0, 1.0, 1.0])
                opponent = Mixture((_mix(tables, support_s, probs, "do-mix"), Uniform(), Greedy()), tuple(w))
                support = len(support_s)
            elif kind == "population":
                opponent = _random_population(rng, deal, tables)
                support = len(opponent.arrangements)
            elif kind == "uniform+greedy":
                opponent = Mixture((Uniform(), Greedy()), tuple(rng.dirichlet([1.0, 1.0])))
            elif kind == "uniform":
                opponent = Uniform()
            else:
                opponent, support = Greedy(), 1
            objective = "points" if rng.random() < 0.25 else "margin"
            fixed: tuple[int, ...] = ()
            if rng.random() < reduced_share:
                arr = brute.random_arrangement(rng, deal)
                slots = rng.choice(5, 2, replace=False)
                fixed_l = [-1] * 5
                for s in slots:
                    fixed_l[int(s)] = tables.index_of(arr.packets[int(s)])
                fixed = tuple(fixed_l)
            problem = make_problem(tables, opponent, objective, fixed)
            name = (f"seed {seed} deal {deal_no} ({deal.format()}, ties {rules.tie_points:g}) "
                    f"#{k} {kind} support {support} {objective}{' reduced' if fixed else ''}")
            yield Instance(name, kind, deal, opponent, objective, problem, support)
        deal_no += 1


def check(instance: Instance, *, variants: dict[str, SearchOptions] = VARIANTS, basic_limit: float | None = None,
          cpsat_limit: float | None = None, brute_force: bool = False, time_limit: float = 600.0) -> Verdict:
    """Run the engines on ``instance`` and list every disagreement (see the module doc)."""
    v = Verdict(instance)
    problem = instance.problem
    for name, options in variants.items():
        v.results[name] = solve_search(problem, options=options, time_limit=time_limit)
    if basic_limit is not None:
        v.results["basic (rules 1-3)"] = solve_search(problem, options=BASIC, time_limit=basic_limit)
    if cpsat_limit is not None:
        from solver.engines.cpsat import solve_cpsat

        v.results["cpsat"] = solve_cpsat(problem, time_limit=cpsat_limit)
    deal = instance.deal
    tables = problem.tables
    for name, r in v.results.items():
        masks = tuple(int(tables.masks[p]) for p in r.packets)
        if not brute.is_legal(masks, deal):
            v.problems.append(f"{name}: illegal arrangement")
        if any(f >= 0 and f != p for f, p in zip(problem.fixed, r.packets, strict=True)):
            v.problems.append(f"{name}: changed a fixed slot")
        if abs(r.value - problem.value_of(r.packets)) > 1e-12:
            v.problems.append(f"{name}: value {r.value} is not its arrangement's {problem.value_of(r.packets)}")
        if r.bound < r.value - 1e-12:
            v.problems.append(f"{name}: bound {r.bound} below its value {r.value}")
    if brute_force:
        masks, pv = brute.packet_values(deal, _brute_opponent(instance, tables), instance.objective)
        fixed = [int(tables.masks[p]) if p >= 0 else None for p in problem.fixed]
        v.brute, _ = brute.brute_best(deal, masks, pv, fixed)
    proven = {n: r.value for n, r in v.results.items() if r.optimal}
    if v.brute is not None:
        proven["brute force"] = v.brute
    if proven:
        top = max(proven.values())
        low = min(proven.values())
        v.optimum = top
        if top - low > AGREE:
            v.problems.append("proven values disagree: " + ", ".join(f"{n} {x:.9f}" for n, x in proven.items()))
        for name, r in v.results.items():
            if not r.optimal and (r.value > top + AGREE or r.bound < top - AGREE):
                v.problems.append(f"{name}: unproven value {r.value:.9f} / bound {r.bound:.9f} inconsistent with "
                                  f"the optimum {top:.9f}")
    else:
        v.problems.append("no engine proved an optimum")
    return v


def _brute_opponent(instance: Instance, tables: DealTables) -> list[tuple[object, float]]:
    """The instance's opponent as ``[(component, weight)]`` for tests/brute.py."""

    def parts(model: OpponentModel, weight: float) -> list[tuple[object, float]]:
        if isinstance(model, Uniform):
            return [(brute.UNIFORM, weight)]
        if isinstance(model, Greedy):
            return [(greedy_arrangement(tables), weight)]
        if isinstance(model, ArrangementMix):
            total = sum(model.probabilities)
            return [(a, weight * p / total) for a, p in zip(model.arrangements, model.probabilities, strict=True)]
        if isinstance(model, Mixture):
            total = sum(model.weights)
            pairs = zip(model.components, model.weights, strict=True)
            return [x for m, w in pairs for x in parts(m, weight * w / total)]
        raise TypeError(f"no brute-force form for {model!r}")

    return parts(instance.opponent, 1.0)
