"""Benchmark of the five-card draw variants: 64-bit evaluator and draw advisor.

    python benchmarks/bench_variants.py [--hands N] [--repeat R] [--seed S] [--no-write]

Measures, on one thread, after JIT warm-up (best of ``--repeat`` passes):

* per rule set: the one-time table build (cells, classes, counts over every hand of the
  deck), the throughput of ``quintet.evaluator.hand_keys`` (validated API: uint64 masks in,
  keys and categories out) and of the raw kernel ``quintet.draw.kernels.mask_cells`` on N random hands
  with no joker, one joker and two jokers, and the rate of enumerating every hand of the
  deck (``quintet.draw.kernels.subset_histogram``);
* the draw advisor ``quintet.draw.advise``: all 32 options of a hand (every draw enumerated)
  and the worst single option alone — exchanging all five cards, C(unseen, 5) draws;
* a fresh ``quintet draw … --rules draw54`` process, numba cache warm.

Prints the figures and writes them into ``benchmarks/RESULTS.md`` between the markers
``<!-- variants:start -->`` and ``<!-- variants:end -->`` under ``## Variants`` (reruns
refresh that section only).
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from math import comb
from pathlib import Path

import numpy as np
from benchmark_results import RESULTS, cpu_name, write_section

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from quintet.cliutil import OneLineParser, int_at_least, positive_int  # noqa: E402
from quintet.draw import advise  # noqa: E402
from quintet.draw import kernels as draw_kernels  # noqa: E402
from quintet.draw.tables import tables  # noqa: E402
from quintet.evaluator import hand_keys  # noqa: E402
from quintet.rules import get_rules  # noqa: E402

RULE_SETS = [
    "draw32",
    "draw36",
    "draw36-joker",
    "draw36-11",
    "draw52",
    "draw53",
    "draw54",
    "draw54-11",
    "draw54-9",
]
DRAW_CASES = [
    ("draw54", "Jk 7d 4c Qs 2h"),
    ("draw54-11", "Ah Kh 9h 5h 2c"),
    ("draw53", "As Ad Kd 7c 2s"),
    ("draw52", "Ah Kh 9h 5h 2c"),
    ("draw36-joker", "Jk Ah Kd 9c 7s"),
]


def best_of(repeat: int, job) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        job()
        times.append(time.perf_counter() - start)
    return min(times)


def random_hands(rules, n: int, jokers: int, rng: np.random.Generator) -> np.ndarray | None:
    deck = rules.deck
    if jokers > deck.jokers:
        return None
    ordinary = np.array([c for c in deck.cards() if not deck.is_joker(c)], dtype=np.int64)
    joker_cards = list(deck.joker_cards)[:jokers]
    k = 5 - jokers
    picks = np.argsort(rng.random((n, ordinary.size)), axis=1)[:, :k]
    cards = ordinary[picks]
    masks = np.bitwise_or.reduce(np.left_shift(np.uint64(1), cards.astype(np.uint64)), axis=1)
    for j in joker_cards:
        masks |= np.uint64(1) << np.uint64(j)
    return masks.astype(np.uint64)


def fmt_rate(rate: float) -> str:
    return f"{rate / 1e6:,.1f} M/s"


def bench_rule_set(name: str, n: int, repeat: int, rng) -> dict:
    rules = get_rules(name)
    tables.cache_clear()
    start = time.perf_counter()
    t = tables(rules)
    build = time.perf_counter() - start
    row = {"name": name, "size": rules.deck.size, "classes": t.n_classes, "build": build}
    for jokers in (0, 1, 2):
        masks = random_hands(rules, n, jokers, rng)
        if masks is None:
            row[f"api{jokers}"] = row[f"raw{jokers}"] = None
            continue
        hand_keys(masks[:10], rules)
        api = best_of(repeat, lambda masks=masks: hand_keys(masks, rules))
        raw = best_of(
            repeat,
            lambda masks=masks: draw_kernels.mask_cells(
                masks, t.card_rank, t.card_suitbit, t.binom, t.offsets, t.cell_class
            ),
        )
        row[f"api{jokers}"] = n / api
        row[f"raw{jokers}"] = n / raw
    deck = t.deck_cards
    enum = best_of(
        repeat,
        lambda: draw_kernels.subset_histogram(
            deck, t.card_rank, t.card_suitbit, t.binom, t.offsets, t.cell_class, t.n_classes
        ),
    )
    row["enum"] = comb(rules.deck.size, 5) / enum
    return row


def bench_draw(name: str, hand: str, repeat: int) -> dict:
    rules = get_rules(name)
    advise(hand, rules)  # tables, JIT
    all32 = best_of(repeat, lambda: advise(hand, rules, objective="beat-random"))
    a = advise(hand, rules)
    t = tables(rules)
    unseen = np.array(a.unseen, dtype=np.int64)
    worst = best_of(
        repeat,
        lambda: draw_kernels.subset_histogram(
            unseen, t.card_rank, t.card_suitbit, t.binom, t.offsets, t.cell_class, t.n_classes
        ),
    )
    hands = sum(o.n_outcomes for o in a.options)
    return {
        "name": name,
        "hand": hand,
        "unseen": len(a.unseen),
        "all32": all32,
        "hands": hands,
        "worst": worst,
        "worst_hands": comb(len(a.unseen), 5),
        "best": a.best(),
    }


def fresh_process() -> float:
    cmd = [
        sys.executable,
        "-m",
        "quintet.cli",
        "draw",
        "Jk 7d 4c Qs 2h",
        "--rules",
        "draw54",
        "--top",
        "3",
    ]
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    subprocess.run(cmd, capture_output=True, env=env, check=True, cwd=ROOT)  # warm the cache
    start = time.perf_counter()
    subprocess.run(cmd, capture_output=True, env=env, check=True, cwd=ROOT)
    return time.perf_counter() - start


def report(args, rows: list[dict], draws: list[dict], fresh: float) -> str:
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in ("numba", "numpy"))
    lines = [
        f"Run: `python benchmarks/bench_variants.py --hands {args.hands} --repeat {args.repeat} "
        f"--seed {args.seed}` on {now}.",
        "",
        f"Machine: {cpu_name()}, {os.cpu_count()} logical CPUs; Python {platform.python_version()}, {versions}.",
        "",
        f"Evaluator: {args.hands:,} random hands per column (exactly 0, 1 or 2 jokers), one thread, after JIT; "
        "`hand_keys` = validated API (uint64 masks → keys, categories), raw = `quintet.draw.kernels.mask_cells` "
        "(mask → class). Jokers cost nothing extra: their best substitution is a table cell. "
        "Build = the rule set's tables, once per process (cells with every stand-in tried, then every hand "
        "of the deck enumerated to count classes).",
        "",
        "| rule set | cards | classes | build | hand_keys, no joker | 1 joker | 2 jokers | raw, no joker "
        "| 1 joker | 2 jokers | every hand of the deck |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def cell(x):
        return "—" if x is None else fmt_rate(x)

    for r in rows:
        lines.append(
            f"| {r['name']} | {r['size']} | {r['classes']:,} | {1000 * r['build']:,.0f} ms | {cell(r['api0'])} | "
            f"{cell(r['api1'])} | {cell(r['api2'])} | {cell(r['raw0'])} | {cell(r['raw1'])} | {cell(r['raw2'])} | "
            f"{fmt_rate(r['enum'])} ({comb(r['size'], 5):,} hands) |"
        )
    lines += [
        "",
        "Draw advisor (`quintet.draw.advise`, after JIT and the rule set's tables): all 32 exchanges, every "
        "draw enumerated, with expected percentile, P(win)/P(tie) against a random hand and the category "
        "distribution; the worst case alone is exchanging all five cards (C(unseen, 5) draws).",
        "",
        "| rule set | hand | unseen | final hands (32 options) | all 32 options | exchange all five: draws | time |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for d in draws:
        lines.append(
            f"| {d['name']} | {d['hand']} | {d['unseen']} | {d['hands']:,} | {1000 * d['all32']:,.0f} ms | "
            f"{d['worst_hands']:,} | {1000 * d['worst']:,.0f} ms |"
        )
    worst54 = max(d["all32"] for d in draws if d["name"].startswith("draw54"))
    lines += [
        "",
        f'A fresh `quintet draw "Jk 7d 4c Qs 2h" --rules draw54` process (numba cache warm; imports, tables, '
        f"advice, output): {fresh:.2f} s.",
        "",
        "Target: all 32 options of a 54-card deck in ≤ 1 s after JIT: "
        f"{1000 * worst54:,.0f} ms ({'met' if worst54 <= 1 else 'NOT met'}).",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--hands", type=positive_int, default=1_000_000, help="random hands per evaluator column"
    )
    parser.add_argument("--repeat", type=positive_int, default=5, help="passes per timing (best taken)")
    parser.add_argument("--seed", type=int_at_least(0), default=2026)
    parser.add_argument(
        "--no-write", action="store_true", help="print only; leave RESULTS.md alone"
    )
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    # warm up every kernel once
    bench_rule_set("draw54", 1000, 1, rng)
    rows = [bench_rule_set(name, args.hands, args.repeat, rng) for name in RULE_SETS]
    draws = [bench_draw(name, hand, args.repeat) for name, hand in DRAW_CASES]
    fresh = fresh_process()
    section = report(args, rows, draws, fresh)
    print(section)
    if not args.no_write:
        write_section("variants", "Variants", section)
        print(f"\nwritten to {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
