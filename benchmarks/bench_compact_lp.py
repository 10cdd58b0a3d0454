"""The restricted game's two forms, A/B on the slowest dealt deals (issue 40, direction 1):
the 120 columns of every partition's slot orders (``--form columns``) against the compact
slot-order LP (``--form orbit``: ``solver.games.lp.solve_slot_order_lp``), and the columns with
a wider cheap oracle (``--form wide``: 48 starts, up to 12 partitions an iteration).

    python benchmarks/bench_compact_lp.py                 # the 20 slowest of equilibrium-dealt.jsonl
    python benchmarks/bench_compact_lp.py --deals 5 --form columns wide

Each deal is solved from scratch by ``solver.advisor.equilibrium.equilibrium`` (ε 0.01), the forms
interleaved deal by deal (the order reversed every other deal), in this one process; CPU seconds of the process
(``time.process_time``) for the whole solve, the restricted games (LPs and pool pricing), the
exact best responses and the cheap oracle.  One line per solve to
``benchmarks/data/<--out>.jsonl``; ``--table`` prints its table (Markdown) — the one in
``benchmarks/data/compact_lp_prototype.md``, whose forms ``orbit`` (``compact_lp_prototype.jsonl``)
and ``wide`` (``compact_lp_wide.jsonl``) are each measured against ``columns`` in their own run.
"""

from __future__ import annotations

import functools
import json
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from analysis_common import DATA

import solver.advisor.equilibrium as eq_module
import solver.games.double_oracle as do_module
from quintet.cliutil import OneLineParser, float_at_least, int_at_least, positive_float, positive_int
from quintet.game import Arrangement, Deal
from solver.games.quintet_game import QuintetGame

FORMS: dict[str, dict[str, Any]] = {"columns": {"orbit_lp": False}, "orbit": {"orbit_lp": True},
                                    "wide": {"orbit_lp": False, "cheap_starts": 48, "cheap_limit": 12}}


class Clock:
    """CPU seconds and calls per part of a solve."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {"restricted": 0.0, "exact": 0.0, "cheap": 0.0}
        self.calls: dict[str, int] = dict.fromkeys(self.seconds, 0)

    def wrap(self, part: str, f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def timed(*args: Any, **kwargs: Any) -> Any:
            t0 = time.process_time()
            try:
                return f(*args, **kwargs)
            finally:
                self.seconds[part] += time.process_time() - t0
                self.calls[part] += 1
        return timed


def solve(exposed: str, form: str, epsilon: float, time_limit: float, first_response_limit: float, *,
          options: dict[str, Any] | None = None, initial: Sequence[Arrangement] = (),
          found: dict[str, Any] | None = None) -> dict[str, Any]:
    """One solve of ``exposed`` from scratch with the form's options (``options`` instead, if
    given), warm-started by ``initial``; ``found`` gets the last restricted game's pool
    (``"pool"``, packet indices) and the result (``"result"``)."""
    clock = Clock()
    restricted = do_module._restricted_equilibrium

    def keep_pool(game: Any, pool_: Any, *args: Any, **kwargs: Any) -> Any:
        if found is not None:
            found["pool"] = list(pool_.strategies)
        return restricted(game, pool_, *args, **kwargs)
    original_do = eq_module.double_oracle

    class TimedGame(QuintetGame):
        best_response = clock.wrap("exact", QuintetGame.best_response)
        improving_responses = clock.wrap("cheap", QuintetGame.improving_responses)

    options_ = do_module.DoubleOracleOptions(first_response_limit=first_response_limit,
                                             **(FORMS[form] if options is None else options))
    do_module._restricted_equilibrium = clock.wrap("restricted", keep_pool)
    eq_module.QuintetGame = TimedGame  # type: ignore[misc]
    eq_module.double_oracle = functools.partial(original_do, options=options_)  # type: ignore[assignment]
    try:
        t0 = time.process_time()
        r = eq_module.equilibrium(Deal.from_exposed(exposed), epsilon=epsilon, time_limit=time_limit,
                                  initial=initial)
        cpu = time.process_time() - t0
    finally:
        do_module._restricted_equilibrium = restricted
        eq_module.QuintetGame = QuintetGame  # type: ignore[misc]
        eq_module.double_oracle = original_do
    if found is not None:
        found["result"] = r
    return {"exposed": exposed, "form": form, "cpu_seconds": cpu, "iterations": r.iterations,
            "exact_calls": clock.calls["exact"], "restricted_calls": clock.calls["restricted"],
            **{f"{k}_seconds": v for k, v in clock.seconds.items()},
            "exploitability": r.exploitability, "converged": r.converged, "support": len(r.mix),
            "pool": r.pool_size}


def table(rows: list[dict[str, Any]], forms: list[str]) -> str:
    by = {(r["exposed"], r["form"]): r for r in rows}
    deals = list(dict.fromkeys(r["exposed"] for r in rows))
    head = "| deal | " + " | ".join(f"{f} it | {f} restricted s | {f} exact s | {f} cheap s | {f} total s | {f} ε"
                                     for f in forms) + " |"
    lines = [head, "|" + "---|" * (1 + 6 * len(forms))]
    for d in deals:
        cells = []
        for f in forms:
            r = by.get((d, f))
            cells += ([str(r["iterations"]), f"{r['restricted_seconds']:.2f}", f"{r['exact_seconds']:.2f}",
                       f"{r['cheap_seconds']:.2f}", f"{r['cpu_seconds']:.2f}", f"{r['exploitability']:.4f}"]
                      if r else ["–"] * 6)
        lines.append(f"| {d} | " + " | ".join(cells) + " |")
    med = []
    for f in forms:
        rs = [by[d, f] for d in deals if (d, f) in by]
        med += [f"{statistics.median(r[k] for r in rs):.{4 if k == 'exploitability' else 2}f}" if rs else "–"
                for k in ("iterations", "restricted_seconds", "exact_seconds", "cheap_seconds", "cpu_seconds",
                          "exploitability")]
    lines.append("| **median** | " + " | ".join(med) + " |")
    return "\n".join(lines)


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=positive_int, default=20, help="the slowest this many dealt deals (default 20)")
    ap.add_argument("--start", type=int_at_least(0), default=0, help="skip this many of the slowest first (default 0)")
    ap.add_argument("--form", nargs="+", choices=FORMS, default=["columns", "orbit"])
    ap.add_argument("--epsilon", type=float_at_least(0), default=0.01)
    ap.add_argument("--time-limit", type=positive_float, default=3000.0,
                    help="wall seconds per solve (default 3000: a shared machine's wall clock must not decide)")
    ap.add_argument("--first-response-limit", type=positive_float, default=60.0,
                    help="wall seconds of the first exact best response (default 60, for the same reason)")
    ap.add_argument("--out", default="compact_lp_prototype")
    ap.add_argument("--table", action="store_true", help="only print the table of the data file")
    args = ap.parse_args()
    out = DATA / f"{args.out}.jsonl"
    if args.table:
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        print(table(rows, args.form))
        return
    records = [json.loads(line) for line in (DATA / "equilibrium-dealt.jsonl").read_text().splitlines()]
    dealt = sorted((r for r in records if "exposed" in r and not r["example"]), key=lambda r: -r["cpu_seconds"])
    forms = args.form
    eq_module.equilibrium(Deal.from_exposed("As Ks Qs Js Ts Ah Kh"), epsilon=1.0)  # compile the kernels
    if not args.start:
        out.write_text("")
    rows = []
    for i, rec in enumerate(dealt[args.start:args.deals], start=args.start):
        for form in (forms if i % 2 == 0 else forms[::-1]):
            row = solve(rec["exposed"], form, args.epsilon, args.time_limit, args.first_response_limit)
            rows.append(row)
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)
    print(table(rows, forms))


if __name__ == "__main__":
    main()
