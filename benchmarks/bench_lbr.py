"""Benchmark: the real-game exploitability of the shipped heads-up draw-poker strategy, a lower bound.

    python benchmarks/bench_lbr.py run [--deals N] [--cpu-minutes M] [--wall-minutes W] [--seed S]
    python benchmarks/bench_lbr.py report

``run`` plays the local best response (``quintet.draw.cfr.lbr.LocalBestResponse``: it sees its own real
cards and the public line, never the other player's cards) against the CFR bot at a real table
(``quintet.draw.game.State``, stacks of 100 at every hand: nobody runs short) over duplicate deals —
each shuffled deck played twice with the seats swapped, so the luck of the cards cancels within a deal.
It first times 500 deals (1,000 hands), then plays as many deals as ``--cpu-minutes`` allow (at most
``--deals``; ``--wall-minutes`` stops it early on a loaded machine, and the section says so).  The mean
chips a hand the responder wins, with a 95% interval over the deals (normal, the deals independent), is
a lower bound on the strategy's exploitability in the real game.  Saved in ``benchmarks/data/lbr.json``
with the run's provenance; ``report`` (and ``run``) writes the section of ``benchmarks/RESULTS.md``
between ``<!-- lbr:start -->`` and ``<!-- lbr:end -->``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
from analysis_common import DATA, Run, partial_note, save_data
from benchmark_results import write_section

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from quintet.cliutil import OneLineParser, int_at_least, positive_float, positive_int  # noqa: E402
from quintet.draw.cfr.aivat import Watched  # noqa: E402
from quintet.draw.cfr.bot import CfrBot  # noqa: E402
from quintet.draw.cfr.lbr import LocalBestResponse  # noqa: E402
from quintet.draw.cfr.strategy import strategy_for  # noqa: E402
from quintet.draw.game import State, Terms  # noqa: E402
from quintet.draw.table import play_out  # noqa: E402
from quintet.rules import get_rules  # noqa: E402

RULES = "draw36-joker-11"
STACK = 100
PILOT = 500  # deals timed before sizing the run


def deal_totals(rules, terms, a, b, deals: int, rng: np.random.Generator,  # type: ignore[no-untyped-def]
                stop: float) -> tuple[list[int], list[float]]:
    """``a``'s chips over each deck played twice (seats swapped), and the same with the control variates of the
    players that are ``Watched`` (``quintet.draw.cfr.aivat``: ``a``'s added, ``b``'s, seen from its seat,
    subtracted), until ``deals`` or the wall-clock time ``stop`` (``time.perf_counter``)."""
    deck = np.array(rules.deck.cards())
    watched = [p for p in (a, b) if isinstance(p, Watched)]
    totals, corrected = [], []
    for i in range(deals):
        if time.perf_counter() > stop:
            break
        order = rng.permutation(deck).tolist()
        total = 0
        for p in watched:
            p.correction = 0.0
        for seat in (0, 1):
            bots = [a, b] if seat == 0 else [b, a]
            state = play_out(State(rules, terms, [STACK, STACK], dealer=i % 2, deck=order), bots)
            total += state.stacks[seat] - STACK
        totals.append(total)
        corrected.append(total + sum(p.correction if p is a else -p.correction for p in watched))
    return totals, corrected


def interval(totals: list[float], asked: int, z: float = 1.96) -> dict[str, float]:
    """Per hand (a deal is two hands): the mean and its interval over the deals (normal; ``z`` sd, 1.96: 95%)."""
    n = len(totals)
    mean = statistics.fmean(totals) / 2
    half = z * statistics.stdev(totals) / n ** 0.5 / 2
    return {"deals": n, "asked": asked, "hands": 2 * n, "mean": mean, "low": mean - half, "high": mean + half,
            "sd_per_deal": statistics.stdev(totals)}


def run(args: argparse.Namespace, record: Run) -> None:
    rules, terms = get_rules(RULES), Terms()
    strategy = strategy_for(rules, terms, build=False)
    t0 = time.process_time()
    responder = LocalBestResponse(strategy, args.seed)
    bot = Watched(CfrBot(rules, terms, args.seed + 1, strategy=strategy), responder)
    rng = np.random.default_rng(args.seed)
    stop = time.perf_counter() + 60 * args.wall_minutes
    deal_totals(rules, terms, responder, bot, 1, np.random.default_rng(args.seed + 2), stop)  # builds, compiles
    setup = time.process_time() - t0
    t0 = time.process_time()
    totals, corrected = deal_totals(rules, terms, responder, bot, PILOT, rng, stop)
    per_deal = (time.process_time() - t0) / max(len(totals), 1)
    asked = min(args.deals, int(60 * args.cpu_minutes / per_deal))
    print(f"set-up {setup:.1f} CPU-s; {per_deal * 1000:.2f} CPU-ms a deal (2 hands); playing {asked:,} deals",
          flush=True)
    t0 = time.process_time()
    more, more_corrected = deal_totals(rules, terms, responder, bot, asked - len(totals), rng, stop)
    totals += more
    corrected += more_corrected
    result = interval(totals, asked) | {"setup_cpu": setup, "ms_per_hand": 500 * per_deal,
                                        "cpu": time.process_time() - t0 + per_deal * PILOT}
    result["control_variates"] = interval(corrected, asked)
    print(f"local best response vs cfr: {result}", flush=True)
    save_data("lbr", record, {"rules": RULES, "terms": terms.to_dict(), "stack": STACK, "seed": args.seed,
                              "info": strategy.info, "classes": [strategy.classes.n_pre,
                              strategy.classes.n_post], "result": result})


def report() -> None:
    d = json.loads((DATA / "lbr.json").read_text())
    r, run_info, info = d["result"], Run.from_dict(d["run"]), d["info"]
    cv = r["control_variates"]
    lines = partial_note(r["deals"], r["asked"]) + [
        run_info.line(),
        "",
        f"The shipped strategy of `{d['rules']}` (default terms; {info['iterations']} CFR+ iterations; "
        f"{d['classes'][0]} hand classes before the exchange, {d['classes'][1]} after) is exploitable "
        f"by {info['exploitability']['stored']:.6f} chips a hand *in its abstract game*. In the real game a local "
        "best response (`quintet.draw.cfr.lbr`; Lisý & Bowling 2017) — a bot that sees only its own cards and "
        "the public line, plays the abstract best response before the exchange and, after it, the best reply "
        "by an exact expectimax against the strategy's range with its real hand at the show-down — plays the "
        f"CFR bot over {r['deals']:,} duplicate deals ({r['hands']:,} hands, stacks of {d['stack']}, each deck "
        "played twice with the seats swapped):",
        "",
        "| estimate | hands | chips / hand it wins [95%] | sd a deal |",
        "|---|---:|---:|---:|",
        f"| duplicate | {r['hands']:,} | {r['mean']:+.4f} [{r['low']:+.4f}, {r['high']:+.4f}] | "
        f"{r['sd_per_deal']:.2f} |",
        f"| duplicate + control variates | {cv['hands']:,} | {cv['mean']:+.4f} [{cv['low']:+.4f}, "
        f"{cv['high']:+.4f}] | {cv['sd_per_deal']:.2f} |",
        "",
        "The control variates (AIVAT, Burch et al. 2018, for the player whose strategy is known): at each "
        "decision of the CFR bot after the exchange, the responder's expected chips over the bot's actions "
        "minus those after the action it took, computed exactly from both real hands (mean 0 whatever the "
        "values, so the estimate stays unbiased); they remove the luck of the bot's mixed actions after the "
        f"exchange, not that of the cards or of its actions before. A hand takes {r['ms_per_hand']:.2f} CPU-ms "
        "with them.",
        "",
        "The responder is a legal strategy of the real game (it never reads the other player's cards: "
        "`tests/test_lbr.py`), so its mean win is a lower bound on the strategy's real-game exploitability; "
        "an interval that contains 0 bounds nothing. " + (
            f"Here it is a lower bound: the real-game exploitability is at least {cv['low']:+.4f} chips a hand "
            "(95%)." if cv["low"] > 0 else
            f"Here it contains 0: this responder wins less than {cv['high']:.3f} chips a hand (95%) — nothing it "
            "can show; that is no upper bound on the exploitability: a stronger responder may win more.")
        + f" Set-up (the abstract game's tree and both best responses): {r['setup_cpu']:.0f} CPU-s; the match "
        f"{r['cpu'] / 60:.1f} CPU-minutes.",
    ]
    write_section("lbr", "Draw poker heads-up: a local best response in the real game", "\n".join(lines))
    print("wrote benchmarks/RESULTS.md (section lbr)")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage", choices=("run", "report"))
    parser.add_argument("--deals", type=positive_int, default=100_000, help="at most this many duplicate deals")
    parser.add_argument("--cpu-minutes", type=positive_float, default=15.0,
                        help="the match's CPU budget, sized by a pilot")
    parser.add_argument("--wall-minutes", type=positive_float, default=60.0, help="stop early after this (partial)")
    parser.add_argument("--seed", type=int_at_least(0), default=2026)
    args = parser.parse_args(argv)
    if args.stage == "run":
        run(args, Run(["bench_lbr.py", *(argv if argv is not None else sys.argv[1:])]))
    report()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
