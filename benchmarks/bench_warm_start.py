"""Warm starts of the equilibrium on the slowest dealt deals (issue 40, direction 3), A/B
against the cold solve of today (``columns``), with ``bench_compact_lp.py``'s harness:

* ``neighbour`` — first the *nearest solved deal* is solved cold (``neighbour-source`` rows:
  its cost, which the book pays anyway): the same exposed set but one card, that card's rank in
  another suit (the first such deal, from the lowest exposed card, that is not a suit
  relabelling of the target); ``neighbour-rank`` the same with the card one rank up or down in
  its suit.  Then the target starts from the neighbour's final pool, mapped
  card by card (the two swapped cards exchanged: a bijection of the live cards, so every mapped
  arrangement is legal on the target): its mix's arrangements and one slot order of every other
  pool partition, as ``equilibrium(initial=…)`` (the working set; every slot order in the pool);
* ``structure`` — the target starts from the structured arrangements the project has: the
  greedy player's, the exact best response to it, and the local-search optima
  (``local_search.improving_partitions``) against the uniform and the greedy opponent from
  those and the best response to uniform (partitions; every slot order joins the pool).

    python benchmarks/bench_warm_start.py                   # the 20 slowest dealt deals
    python benchmarks/bench_warm_start.py --deals 10 --start 0 --out warm_start_a

Forms interleaved deal by deal (the order reversed every other deal); CPU seconds
(``time.process_time``) of this one process; the set-up of a warm start (mapping, structured
seeds) is inside the target's total.  ``--table`` prints the table of ``benchmarks/data/<--out>.jsonl``.
"""

from __future__ import annotations

import json
import statistics
import time
from typing import Any

import numpy as np
from analysis_common import DATA
from bench_compact_lp import solve, table

import solver.advisor.equilibrium as eq_module
from quintet.cards import cards_of
from quintet.cliutil import OneLineParser, float_at_least, int_at_least, positive_float, positive_int
from quintet.game import Arrangement, Deal
from quintet.symmetry import canonical_exposed, symmetry_group
from solver.engines.base import DEFAULT_ENGINE
from solver.engines.base import solve as engine_solve
from solver.engines.local_search import improving_partitions
from solver.problem.best_response import BestResponseProblem, slot_values
from solver.problem.deal_tables import DealTables
from solver.problem.opponents import Greedy, Uniform, greedy_arrangement

FORMS = ("columns", "neighbour", "neighbour-rank", "structure")
NEIGHBOURS = {"neighbour": "suit", "neighbour-rank": "rank"}
RANKS = 8  # a classic card is suit · 8 + rank


def neighbour_of(deal: Deal, kind: str) -> tuple[Deal, int, int]:
    """(the neighbour, the target's card it lacks, the card it has instead): the first exposed card
    (lowest rank first) that, moved to another suit (``kind`` "suit": the same rank) or to the
    next rank up or down (``kind`` "rank": the same suit), gives a deal not suit-equivalent to
    ``deal``."""
    group = symmetry_group(deal.rules)
    own = canonical_exposed(deal.exposed, deal.rules.deck, group=group)[0]
    for card in sorted(cards_of(deal.exposed), key=lambda c: (c % RANKS, c)):
        suit, rank = divmod(card, RANKS)
        moves = ([s * RANKS + rank for s in range(4)] if kind == "suit" else
                 [suit * RANKS + r for r in (rank + 1, rank - 1) if 0 <= r < RANKS])
        for other in moves:
            if deal.exposed >> other & 1:
                continue
            exposed = deal.exposed & ~(1 << card) | 1 << other
            if canonical_exposed(exposed, deal.rules.deck, group=group)[0] != own:
                return Deal(exposed, deal.rules), card, other
    raise ValueError(f"no neighbour for {deal.format()}")


def mapped_pool(found: dict[str, Any], source: Deal, target: Deal, card: int, other: int) -> list[Arrangement]:
    """The source's final mix and one slot order of each other partition of its pool, on the
    target: ``card`` (live in the source) becomes ``other`` (live in the target)."""
    source_tables = DealTables.build(source)

    def moved(mask: int) -> int:
        return mask & ~(1 << card) | 1 << other if mask >> card & 1 else mask

    mix = [a for _, a in found["result"].mix]
    seen = {frozenset(a.packets) for a in mix}
    rest = []
    for s in found["pool"]:
        a = source_tables.arrangement_of(s)
        if frozenset(a.packets) not in seen:
            seen.add(frozenset(a.packets))
            rest.append(a)
    out = [Arrangement(tuple(moved(m) for m in a.packets)) for a in mix + rest]
    for a in out:
        a.validate(target)  # a bijection of the live cards: never fails
    return out


def structured(deal: Deal) -> list[Arrangement]:
    """The greedy arrangement, the exact best response to it, and the local-search optima against
    the uniform and the greedy opponent from those and the best response to uniform."""
    tables = DealTables.build(deal)
    greedy = tuple(tables.index_of(m) for m in greedy_arrangement(tables).packets)
    problems = [BestResponseProblem(tables, slot_values(model.marginals(tables), deal.rules.weights, "margin"))
                for model in (Uniform(), Greedy())]
    starts = [greedy] + [engine_solve(p, DEFAULT_ENGINE.with_time_limit(60.0), None, None).packets for p in problems]
    found = {frozenset(s): s for s in starts}
    for p in problems:
        for _, s in improving_partitions(p, starts, min_gain=-np.inf, limit=len(starts)):
            found.setdefault(frozenset(s), s)
    return [tables.arrangement_of(s) for s in found.values()]


def summary(rows: list[dict[str, Any]], forms: list[str]) -> str:
    """Per form, over the deals every form finished: median and max CPU s, median iterations,
    restricted-game s and exact best-response s; for a neighbour form also the target and its
    neighbour together (the cost when the neighbour is solved only to warm-start the target)."""
    by = {(r["exposed"], r["form"]): r for r in rows}
    wanted = forms + [f"{f}-source" for f in forms if f in NEIGHBOURS]
    deals = [d for d in dict.fromkeys(r["exposed"] for r in rows) if all((d, f) in by for f in wanted)]
    lines = [f"{len(deals)} deals", "| form | median CPU s | max CPU s | sum CPU s | median iterations | "
             "median restricted s | median exact s | faster than columns |", "|---|---|---|---|---|---|---|---|"]
    for f in wanted + [f"{f}+source" for f in forms if f in NEIGHBOURS]:
        if f.endswith("+source"):
            t = [by[d, f[:-7]]["cpu_seconds"] + by[d, f"{f[:-7]}-source"]["cpu_seconds"] for d in deals]
            lines.append(f"| {f} | {statistics.median(t):.2f} | {max(t):.2f} | {sum(t):.1f} | – | – | – | "
                         f"{sum(x < by[d, 'columns']['cpu_seconds'] for x, d in zip(t, deals, strict=True))} |")
            continue
        rs = [by[d, f] for d in deals]
        t = [r["cpu_seconds"] for r in rs]
        lines.append(f"| {f} | {statistics.median(t):.2f} | {max(t):.2f} | {sum(t):.1f} | "
                     f"{statistics.median(r['iterations'] for r in rs):.1f} | "
                     f"{statistics.median(r['restricted_seconds'] for r in rs):.2f} | "
                     f"{statistics.median(r['exact_seconds'] for r in rs):.2f} | "
                     f"{sum(r['cpu_seconds'] < by[r['exposed'], 'columns']['cpu_seconds'] for r in rs)} |")
    return "\n".join(lines)


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive_int, default=20, help="the slowest this many dealt deals (default 20)")
    ap.add_argument("--start", type=int_at_least(0), default=0, help="skip this many of the slowest first (default 0)")
    ap.add_argument("--form", nargs="+", choices=FORMS, default=list(FORMS))
    ap.add_argument("--epsilon", type=float_at_least(0), default=0.01)
    ap.add_argument("--time-limit", type=positive_float, default=3000.0, help="wall seconds per solve (default 3000)")
    ap.add_argument("--first-response-limit", type=positive_float, default=60.0,
                    help="wall seconds of the first exact best response (default 60)")
    ap.add_argument("--out", default="warm_start", help="data file name; with --table, names joined by commas")
    ap.add_argument("--table", action="store_true", help="only print the table of the data file")
    args = ap.parse_args()
    out = DATA / f"{args.out}.jsonl"
    forms = args.form
    if args.table:
        rows = [json.loads(line) for name in args.out.split(",")
                for line in (DATA / f"{name}.jsonl").read_text().splitlines()]
        print(table(rows, forms + [f"{f}-source" for f in forms if f in NEIGHBOURS]))
        print(summary(rows, forms))
        return
    records = [json.loads(line) for line in (DATA / "equilibrium-dealt.jsonl").read_text().splitlines()]
    dealt = sorted((r for r in records if "exposed" in r and not r["example"]), key=lambda r: -r["cpu_seconds"])
    eq_module.equilibrium(Deal.from_exposed("As Ks Qs Js Ts Ah Kh"), epsilon=1.0)  # compile the kernels
    out.write_text("")
    limits = (args.epsilon, args.time_limit, args.first_response_limit)
    for i, rec in enumerate(dealt[args.start:args.deals], start=args.start):
        deal = Deal.from_exposed(rec["exposed"])
        rows = []
        for form in (forms if i % 2 == 0 else forms[::-1]):
            initial: list[Arrangement] = []
            t0 = time.process_time()
            if form in NEIGHBOURS:
                source, card, other = neighbour_of(deal, NEIGHBOURS[form])
                found: dict[str, Any] = {}
                rows.append({**solve(source.format(), "columns", *limits, found=found),
                             "exposed": rec["exposed"], "form": f"{form}-source", "source": source.format()})
                t0 = time.process_time()
                initial = mapped_pool(found, source, deal, card, other)
            elif form == "structure":
                initial = structured(deal)
            setup = time.process_time() - t0
            row = solve(rec["exposed"], "columns", *limits, initial=initial)
            rows.append({**row, "form": form, "setup_seconds": setup, "cpu_seconds": row["cpu_seconds"] + setup,
                         "initial": len(initial)})
        with out.open("a") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
