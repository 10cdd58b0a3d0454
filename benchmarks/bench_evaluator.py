"""Benchmark of the evaluator: rank all 53,130 packets of Quintet deals.

    python benchmarks/bench_evaluator.py [--deals N] [--seed S] [--repeat R] [--no-write]

Measures, on one thread, after JIT warm-up:

* quintet's full API ``quintet.evaluator.rank_packets`` (masks, keys, categories, dense
  rank classes) and its raw kernel ``quintet.kernels.packets32`` alone, over the example
  deal of the rule book (docs/rules.md) and N seeded random deals (7 random exposed cards each);
* the same job with the peer libraries eval7, phevaluator and treys through their public
  APIs (card objects / ids for the 25 live cards built once, then every 5-card combination
  evaluated), plus, for information only, phevaluator's private native entry point.
  The peers rank under 52-card standard poker rules; that is fine for a speed comparison;
* the import time of ``quintet.evaluator`` and the first-call time in two fresh processes
  one after the other, the first with an empty numba cache (it compiles), the second with
  the cache the first one left (it should not compile).

Prints the figures and writes them into ``benchmarks/RESULTS.md`` between the markers
``<!-- evaluator:start -->`` and ``<!-- evaluator:end -->`` (reruns refresh that section
only).  Timings are the best of ``--repeat`` passes.
"""

from __future__ import annotations

import importlib.metadata
import itertools
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from benchmark_results import RESULTS, cpu_name, write_section

ROOT = Path(__file__).resolve().parent.parent

EXAMPLE_EXPOSED = "8h 7h 9d Ts 7s Qc Jc"
RANKS, SUITS = "789TJQKA", "cdhs"
PACKETS_PER_DEAL = 53_130
TARGET_RATE = 100e6
TARGET_RATIO = 25.0
# A peer whose probe says the full job would take longer than this is timed on a subset
# of packets and its per-packet rate extrapolated (said so in the output).
PEER_BUDGET_S = 4.0
PEER_PROBE = 5_000


def card_name(card: int) -> str:
    """quintet's documented layout: card = 8 * suit + rank index (7 = 0 … A = 7)."""
    return RANKS[card % 8] + SUITS[card // 8]


def live_names(live: int) -> list[str]:
    return [card_name(c) for c in range(32) if live >> c & 1]


@dataclass
class Measure:
    name: str
    packets: int
    seconds: float  # best pass
    note: str = ""
    public: bool = True
    passes: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.packets / self.seconds


def best_of(repeat: int, job) -> tuple[float, list[float]]:
    passes = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        job()
        passes.append(time.perf_counter() - t0)
    return min(passes), passes


# ------------------------------------------------------------------ quintet ----------


def bench_quintet(lives: list[int], repeat: int) -> tuple[Measure, Measure, int]:
    from quintet import kernels
    from quintet.evaluator import _classic_tables, rank_packets
    from quintet.rules import CLASSIC

    # warm-up: compiles (or loads from the cache) and builds the rule tables
    for live in lives:
        table = rank_packets(live)
        assert len(table) == PACKETS_PER_DEAL and table.n_classes > 0
    t = _classic_tables(CLASSIC)
    multiset_class, flush_class = t.multiset_class, t.flush_class
    live64 = [np.int64(live) for live in lives]
    for live in live64:
        kernels.packets32(live, multiset_class, flush_class)

    def api():
        for live in lives:
            rank_packets(live)

    def kernel():
        for live in live64:
            kernels.packets32(live, multiset_class, flush_class)

    n = len(lives) * PACKETS_PER_DEAL
    best, passes = best_of(repeat, api)
    full = Measure(
        "quintet rank_packets (masks, keys, categories, dense classes)", n, best, passes=passes
    )
    best, passes = best_of(repeat, kernel)
    raw = Measure(
        "quintet kernels.packets32 (raw kernel: masks, global classes)", n, best, passes=passes
    )
    return full, raw, len(lives)


# -------------------------------------------------------------------- peers ----------


def _time_peer(
    name: str, lives: list[int], repeat: int, make_cards, make_job, note: str, public: bool = True
) -> Measure:
    """make_cards(names) -> the peer's 25 card objects; make_job(combos) -> a callable."""
    decks = [make_cards(live_names(live)) for live in lives]  # built once, outside the timing
    # probe on a subset: is the whole job affordable?
    probe = list(itertools.combinations(decks[0], 5))[:PEER_PROBE]
    job = make_job(probe)
    job()  # warm-up
    t0 = time.perf_counter()
    job()
    per_packet = (time.perf_counter() - t0) / len(probe)
    if per_packet * PACKETS_PER_DEAL * len(lives) * repeat > PEER_BUDGET_S:
        best, passes = best_of(repeat, job)
        return Measure(
            name,
            len(probe),
            best,
            note + f"; timed on {len(probe):,} packets of the example "
            "deal and extrapolated per packet",
            public,
            passes,
        )
    jobs = [make_job(None, deck) for deck in decks]

    def all_deals():
        for j in jobs:
            j()

    best, passes = best_of(repeat, all_deals)
    return Measure(name, PACKETS_PER_DEAL * len(lives), best, note, public, passes)


def bench_peers(lives: list[int], repeat: int) -> list[Measure]:
    out: list[Measure] = []
    comb = itertools.combinations

    try:
        import eval7
    except ImportError:  # pragma: no cover
        eval7 = None
    if eval7 is not None:
        evaluate7 = eval7.evaluate

        def make_job7(combos, deck=None):
            if combos is not None:
                return lambda: [evaluate7(c) for c in combos]
            return lambda: [evaluate7(c) for c in comb(deck, 5)]

        out.append(
            _time_peer(
                "eval7.evaluate (tuples of eval7.Card)",
                lives,
                repeat,
                lambda names: [eval7.Card(n) for n in names],
                make_job7,
                "public API",
            )
        )

    try:
        import phevaluator
    except ImportError:  # pragma: no cover
        phevaluator = None
    if phevaluator is not None:
        from phevaluator.card import Card as PheCard

        def ids(names):
            return [PheCard.to_id(n) for n in names]

        for label, fn in [
            ("phevaluator.evaluate_5cards (int ids)", phevaluator.evaluate_5cards),
            ("phevaluator.evaluate_cards (int ids)", phevaluator.evaluate_cards),
        ]:

            def make_job_phe(combos, deck=None, fn=fn):
                if combos is not None:
                    return lambda: [fn(*c) for c in combos]
                return lambda: [fn(*c) for c in comb(deck, 5)]

            out.append(_time_peer(label, lives, repeat, ids, make_job_phe, "public API"))
        try:
            from phevaluator import _pheval

            native = _pheval.evaluate_5cards

            def make_job_native(combos, deck=None):
                if combos is not None:
                    return lambda: [native(*c) for c in combos]
                return lambda: [native(*c) for c in comb(deck, 5)]

            out.append(
                _time_peer(
                    "phevaluator._pheval.evaluate_5cards (int ids)",
                    lives,
                    repeat,
                    ids,
                    make_job_native,
                    "private C entry point, for information only",
                    public=False,
                )
            )
        except ImportError:  # pragma: no cover
            pass

    try:
        import treys
    except ImportError:  # pragma: no cover
        treys = None
    if treys is not None:
        evaluator = treys.Evaluator()

        def make_job_treys(combos, deck=None):
            ev = evaluator.evaluate
            if combos is not None:
                return lambda: [ev([a, b], [c, d, e]) for a, b, c, d, e in combos]
            return lambda: [ev([a, b], [c, d, e]) for a, b, c, d, e in comb(deck, 5)]

        out.append(
            _time_peer(
                "treys Evaluator.evaluate (hand of 2 + board of 3 ints)",
                lives,
                repeat,
                lambda names: [treys.Card.new(n) for n in names],
                make_job_treys,
                "public API",
            )
        )
    return out


# ----------------------------------------------------------- fresh processes ---------

CHILD = textwrap.dedent(
    """
    import json, time
    t0 = time.perf_counter()
    import quintet.evaluator as ev
    t1 = time.perf_counter()
    from quintet.cards import CLASSIC_DECK, parse_mask
    live = CLASSIC_DECK.full_mask & ~parse_mask({exposed!r})
    t2 = time.perf_counter()
    table = ev.rank_packets(live)
    t3 = time.perf_counter()
    ev.rank_packets(live)
    t4 = time.perf_counter()
    assert len(table) == 53130
    from numba.core.registry import CPUDispatcher
    from quintet import kernels
    hits = misses = 0
    for obj in vars(kernels).values():
        if isinstance(obj, CPUDispatcher):
            hits += sum(obj.stats.cache_hits.values())
            misses += sum(obj.stats.cache_misses.values())
    print(json.dumps({{"import_s": t1 - t0, "first_call_s": t3 - t2, "second_call_s": t4 - t3,
                      "cache_hits": hits, "cache_misses": misses}}))
    """
)


def fresh_processes() -> dict[str, dict[str, float]]:
    code = CHILD.format(exposed=EXAMPLE_EXPOSED)
    results = {}
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        assert not os.listdir(cache)
        for label in ("empty cache", "warm cache"):
            t0 = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-c", code],
                capture_output=True,
                text=True,
                env=env,
                cwd=ROOT,
                timeout=600,
                check=True,
            )
            wall = time.perf_counter() - t0
            data = json.loads(proc.stdout.strip().splitlines()[-1])
            data["process_s"] = wall
            results[label] = data
    return results


# ------------------------------------------------------------------- report ----------


def version(pkg: str) -> str:
    try:
        return importlib.metadata.version(pkg)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def fmt_rate(rate: float) -> str:
    return f"{rate / 1e6:,.1f} M/s" if rate >= 1e6 else f"{rate / 1e3:,.0f} k/s"


def report(
    args,
    n_deals: int,
    full: Measure,
    raw: Measure,
    peers: list[Measure],
    procs: dict[str, dict[str, float]],
) -> str:
    public = [p for p in peers if p.public]
    fastest = max(public, key=lambda p: p.rate) if public else None
    fastest_any = max(peers, key=lambda p: p.rate) if peers else None
    lines = []
    lines.append(
        f"Run: `python benchmarks/bench_evaluator.py --deals {args.deals} --seed {args.seed} "
        f"--repeat {args.repeat}` on {datetime.now(UTC):%Y-%m-%d %H:%M} UTC."
    )
    lines.append("")
    lines.append(
        f"Machine: {cpu_name()}, {os.cpu_count()} logical CPUs; "
        f"Python {platform.python_version()}, "
        f"numba {version('numba')}, numpy {version('numpy')}; eval7 {version('eval7')}, "
        f"phevaluator {version('phevaluator')}, treys {version('treys')}."
    )
    lines.append("")
    lines.append(
        f"Job: all {PACKETS_PER_DEAL:,} packets (5-card subsets of the 25 live cards) of "
        f"{n_deals} deals — the rule book's example deal and {n_deals - 1} random deals "
        f"(seed {args.seed}) — on one thread, after JIT warm-up; best of {args.repeat} passes. "
        "The peers rank under 52-card standard poker rules (fine for a speed comparison)."
    )
    lines.append("")
    lines.append("| evaluator | packets/s | time per deal | vs fastest public peer | note |")
    lines.append("|---|---:|---:|---:|---|")
    for m in [full, raw, *sorted(peers, key=lambda p: -p.rate)]:
        ratio = f"{m.rate / fastest.rate:,.1f}×" if fastest else "n/a"
        per_deal = PACKETS_PER_DEAL / m.rate * 1e3
        lines.append(f"| {m.name} | {fmt_rate(m.rate)} | {per_deal:,.3f} ms | {ratio} | {m.note} |")
    lines.append("")
    cold, warm = procs["empty cache"], procs["warm cache"]
    lines.append(
        "Fresh processes (`import quintet.evaluator`, then `rank_packets` of the example deal), "
        "one after the other with the same new `NUMBA_CACHE_DIR`:"
    )
    lines.append("")
    lines.append(
        "| process | import | first call | second call | whole process "
        "| kernels compiled (cache misses) | kernels loaded from cache (hits) |"
    )
    lines.append("|---|---:|---:|---:|---:|---:|---:|")
    for label, d in procs.items():
        lines.append(
            f"| {label} | {d['import_s'] * 1e3:,.0f} ms | {d['first_call_s'] * 1e3:,.1f} ms | "
            f"{d['second_call_s'] * 1e3:,.2f} ms | {d['process_s']:,.2f} s | "
            f"{d['cache_misses']} | {d['cache_hits']} |"
        )
    lines.append("")
    lines.append("Targets:")
    lines.append("")

    def verdict(ok: bool) -> str:
        return "met" if ok else "**missed**"

    lines.append(
        f"- ≥ {TARGET_RATE / 1e6:.0f} million packets/s on one thread: rank_packets "
        f"{full.rate / 1e6:,.0f} M/s ({verdict(full.rate >= TARGET_RATE)}), raw kernel "
        f"{raw.rate / 1e6:,.0f} M/s ({verdict(raw.rate >= TARGET_RATE)})."
    )
    if fastest is not None:
        r_full, r_raw = full.rate / fastest.rate, raw.rate / fastest.rate
        lines.append(
            f"- ≥ {TARGET_RATIO:.0f}× the fastest peer ({fastest.name}, {fmt_rate(fastest.rate)}): "
            f"rank_packets {r_full:,.0f}× ({verdict(r_full >= TARGET_RATIO)}), raw kernel "
            f"{r_raw:,.0f}× ({verdict(r_raw >= TARGET_RATIO)})."
        )
        if fastest_any is not None and not fastest_any.public:
            lines.append(
                f"  Against the private native entry {fastest_any.name} "
                f"({fmt_rate(fastest_any.rate)}): "
                f"rank_packets {full.rate / fastest_any.rate:,.0f}×, "
                f"raw kernel {raw.rate / fastest_any.rate:,.0f}×."
            )
    compiled = cold["first_call_s"]
    no_compile = warm["cache_misses"] == 0 and warm["cache_hits"] > 0
    lines.append(
        f"- A second process pays no compilation ({verdict(no_compile)}): first call "
        f"{cold['first_call_s'] * 1e3:,.0f} ms with an empty cache ({cold['cache_misses']} kernel "
        f"compilations), {warm['first_call_s'] * 1e3:,.1f} ms with the warm cache "
        f"({warm['cache_misses']} compilations, {warm['cache_hits']} loaded; "
        f"{compiled / max(warm['first_call_s'], 1e-9):,.0f}× less). What remains is numba's "
        "start-up and the rule tables (hand_table32 over the 201,376 hands of the deck)."
    )
    return "\n".join(lines)


def main(argv=None) -> int:
    sys.path.insert(0, str(ROOT))
    from quintet.cliutil import OneLineParser, int_at_least, integer, positive_int

    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--deals", type=int_at_least(0), default=20, help="random deals besides the example (default 20)"
    )
    parser.add_argument(
        "--seed", type=integer, default=2026, help="seed of the random deals (default 2026)"
    )
    parser.add_argument(
        "--repeat", type=positive_int, default=5, help="passes per measurement, best kept (default 5)"
    )
    parser.add_argument(
        "--peer-deals",
        type=positive_int,
        default=3,
        help="deals the peers rank: the example and the first random ones (default 3)",
    )
    parser.add_argument(
        "--no-write", action="store_true", help="print only; leave RESULTS.md alone"
    )
    args = parser.parse_args(argv)

    from quintet.cards import CLASSIC_DECK, parse_mask

    full_mask = CLASSIC_DECK.full_mask
    rng = random.Random(args.seed)
    lives = [full_mask & ~parse_mask(EXAMPLE_EXPOSED)]
    for _ in range(args.deals):
        exposed = rng.sample(range(32), 7)
        lives.append(full_mask & ~sum(1 << c for c in exposed))

    print("fresh processes (empty, then warm numba cache) ...", flush=True)
    procs = fresh_processes()
    print("quintet ...", flush=True)
    full, raw, n_deals = bench_quintet(lives, args.repeat)
    print("peers ...", flush=True)
    peers = bench_peers(lives[: args.peer_deals], args.repeat)
    for p in peers:
        if "extrapolated" not in p.note and p.packets != PACKETS_PER_DEAL * len(
            lives[: args.peer_deals]
        ):
            raise AssertionError(p)
        if "extrapolated" not in p.note:
            p.note += f"; {len(lives[: args.peer_deals])} deals"

    section = report(args, n_deals, full, raw, peers, procs)
    print()
    print(section)
    if not args.no_write:
        write_section("evaluator", "Evaluator", section)
        print(f"\nwritten to {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
