"""Benchmark of draw poker (``quintet poker``): hands per second, and the advisor bot's edge.

    python benchmarks/bench_poker.py [--hands N] [--advisor-hands N] [--edge-hands N] [--seed S] [--no-write]

Measures, in one process on one thread, after warm-up (numba caches, the rule set's tables):

* **hands per second** of whole bots-only hands (``Table.play_hand``: antes, three circles,
  the exchange, betting, show-down) with ``random`` bots and with ``advisor`` bots, 4 and 6
  players, ``draw52`` and ``draw54-11``.  The rate is hands per **CPU second** of this process
  (``time.process_time``), so that other work on a shared machine does not count; wall-clock
  rates are printed beside them;
* the exchange decision: the exact table (``ExchangePolicy.best``) against the advisor that
  enumerates every draw (``quintet.draw.advise``), the same answer, as a ratio;
* the one-time build of the exchange table and the opponent model per rule set;
* **the advisor bot against random bots**: one advisor and three random bots (draw52) and one
  advisor and five random bots (draw54-11), ``--edge-hands`` seeded hands each (default
  10,000); stacks so deep nobody goes broke, the deal rotating; chips the advisor wins per
  hand, with a 95% confidence interval (mean ± 1.96 standard errors over hands).

Prints the figures and writes them into ``benchmarks/RESULTS.md`` between
``<!-- poker:start -->`` and ``<!-- poker:end -->`` (``benchmark_results.write_section``).
"""

from __future__ import annotations

import platform
import random
import statistics
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmark_results import cpu_name, write_section

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from quintet.cliutil import OneLineParser, int_at_least, positive_int  # noqa: E402
from quintet.draw import advise  # noqa: E402
from quintet.draw.bots import make_bot  # noqa: E402
from quintet.draw.game import Terms  # noqa: E402
from quintet.draw.policy import exchange_policy, strength_model  # noqa: E402
from quintet.draw.table import Table  # noqa: E402
from quintet.rules import get_rules  # noqa: E402

RULE_SETS = ("draw52", "draw54-11")
DEEP = 10**9  # chips: nobody goes broke


def table_of(rules_name: str, kinds: list[str], seed: int) -> tuple[Table, list]:
    rules = get_rules(rules_name)
    table = Table(rules, Terms(), [f"{k}{i}" for i, k in enumerate(kinds)], DEEP, seed=seed)
    return table, [make_bot(k, rules, seed=seed * 100 + i) for i, k in enumerate(kinds)]


def rate(rules_name: str, kind: str, players: int, hands: int, seed: int) -> tuple[float, float]:
    """(hands per CPU second, hands per wall second) of bots-only play."""
    table, bots = table_of(rules_name, [kind] * players, seed)
    for _ in range(20):
        table.play_hand(bots)
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(hands):
        table.play_hand(bots)
    return hands / (time.process_time() - cpu), hands / (time.perf_counter() - wall)


def edge(rules_name: str, players: int, hands: int, seed: int) -> tuple[float, float, float]:
    """The advisor (seat 0) against random bots: (mean chips per hand, 95% half-width, CPU seconds)."""
    table, bots = table_of(rules_name, ["advisor"] + ["random"] * (players - 1), seed)
    won = []
    cpu = time.process_time()
    for _ in range(hands):
        before = table.stacks[0]
        table.play_hand(bots)
        won.append(table.stacks[0] - before)
    total = sum(table.stacks)
    assert total == players * DEEP, "chips are not conserved"
    return statistics.mean(won), 1.96 * statistics.stdev(won) / len(won) ** 0.5, time.process_time() - cpu


def exchange_speed(rules_name: str, samples: int, seed: int) -> tuple[float, float]:
    """Seconds per decision: (the exact table, ``advise`` enumerating every draw); same answers checked."""
    rules = get_rules(rules_name)
    policy = exchange_policy(rules)
    rng = random.Random(seed)
    hands = [rng.sample(rules.deck.cards(), 5) for _ in range(samples)]
    start = time.process_time()
    for _ in range(50):
        for hand in hands:
            policy.best(hand)
    table_seconds = (time.process_time() - start) / (50 * samples)
    start = time.process_time()
    for hand in hands:
        keep = policy.best(hand)
        assert tuple(c for i, c in enumerate(hand) if keep >> i & 1) == advise(hand, rules).best().keep
    advise_seconds = (time.process_time() - start) / samples
    return table_seconds, advise_seconds


def build_times(rules_name: str) -> tuple[float, float]:
    rules = get_rules(rules_name)
    exchange_policy.cache_clear()
    strength_model.cache_clear()
    start = time.perf_counter()
    exchange_policy(rules)
    middle = time.perf_counter()
    strength_model(rules)
    return middle - start, time.perf_counter() - middle


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=positive_int, default=5000, help="hands per random-bot rate (default 5000)")
    parser.add_argument("--advisor-hands", type=positive_int, default=600,
                        help="hands per advisor-bot rate (default 600)")
    parser.add_argument("--edge-hands", type=int_at_least(2), default=10_000,
                        help="hands per edge measurement (default 10000)")
    parser.add_argument("--seed", type=int_at_least(0), default=2026)
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args(argv)

    builds = {name: build_times(name) for name in RULE_SETS}
    for name in RULE_SETS:  # warm the kernels' caches
        exchange_speed(name, 1, args.seed)
    rates = []
    for name in RULE_SETS:
        for players in (4, 6):
            for kind in ("random", "advisor"):
                hands = args.hands if kind == "random" else args.advisor_hands
                cpu_rate, wall_rate = rate(name, kind, players, hands, args.seed)
                rates.append((name, players, kind, hands, cpu_rate, wall_rate))
                print(f"{name:<10} {players} players {kind:<8} {cpu_rate:8,.0f} hands/CPU-s "
                      f"({wall_rate:,.0f} wall)", flush=True)
    exchanges = {name: exchange_speed(name, 8, args.seed) for name in RULE_SETS}
    for name, (fast, slow) in exchanges.items():
        print(f"{name:<10} exchange decision: table {1e6 * fast:.0f} µs, advise {1e3 * slow:.0f} ms "
              f"({slow / fast:,.0f}x)", flush=True)
    edges = []
    for name, players in (("draw52", 4), ("draw54-11", 6)):
        mean, half, seconds = edge(name, players, args.edge_hands, args.seed)
        edges.append((name, players, mean, half, seconds))
        print(f"{name:<10} advisor vs {players - 1} random bots over {args.edge_hands:,} hands: "
              f"{mean:+.3f} ± {half:.3f} chips a hand (95% CI) [{seconds:.1f} CPU-s]", flush=True)

    if args.no_write:
        return 0
    lines = [
        f"`python benchmarks/bench_poker.py` — {datetime.now(UTC):%Y-%m-%d}, {cpu_name()}, "
        f"Python {platform.python_version()}, one thread. Default terms: ante 1, stakes 1–5 a turn, "
        "three circles before and after the exchange, free exchange. Rates are whole hands per CPU second of "
        "the process (`time.process_time`; the machine is shared, wall-clock rates beside them).",
        "",
        "| rule set | players | bots | hands | hands / CPU-s | hands / wall-s |",
        "|---|---:|---|---:|---:|---:|",
    ]
    lines += [f"| {name} | {players} | {kind} | {hands:,} | {cpu_rate:,.0f} | {wall_rate:,.0f} |"
              for name, players, kind, hands, cpu_rate, wall_rate in rates]
    lines += [
        "",
        "Exchange decision (which cards to exchange, exact expected percentile; the same answer, checked):",
        "",
        "| rule set | exact table (`ExchangePolicy.best`) | every draw enumerated (`advise`) | ratio | "
        "table build (with the evaluator's tables) | opponent model build |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {name} | {1e6 * fast:.0f} µs | {1e3 * slow:.0f} ms | {slow / fast:,.0f}× | "
              f"{builds[name][0]:.2f} s | {builds[name][1]:.2f} s |" for name, (fast, slow) in exchanges.items()]
    lines += [
        "",
        "The advisor bot (seat 0; the deal rotates) against random bots, seeded hands, stacks too deep to go broke; "
        "chips won per hand, mean ± 1.96 standard errors:",
        "",
        "| rule set | table | hands | advisor's chips / hand | 95% CI | CPU s |",
        "|---|---|---:|---:|---|---:|",
    ]
    lines += [f"| {name} | advisor + {players - 1} random | {args.edge_hands:,} | {mean:+.3f} | "
              f"[{mean - half:+.3f}, {mean + half:+.3f}] | {seconds:.1f} |"
              for name, players, mean, half, seconds in edges]
    write_section("poker", "Draw poker: hands per second, the advisor bot's edge", "\n".join(lines))
    print("wrote benchmarks/RESULTS.md (section poker)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
