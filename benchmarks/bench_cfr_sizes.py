"""Benchmark: heads-up draw poker's abstraction curve — strategies of several sizes, solved and played.

    python benchmarks/bench_cfr_sizes.py train [--sizes PRExPOST,...] [--target E] [--max-iterations N]
                                               [--max-cpu-minutes M] [--check-every N]
    python benchmarks/bench_cfr_sizes.py play [--only lbr|head-to-head] [--cpu-minutes M] [--wall-minutes W] [--seed S]
    python benchmarks/bench_cfr_sizes.py confirm --sizes BASE,OTHER[,...] --seed S [--hands N] [--wall-minutes W]
    python benchmarks/bench_cfr_sizes.py report

* **train** — for each size (the ``pre`` and ``post`` of ``quintet.draw.cfr.classes.hand_classes``; the
  shipped size is loaded, not retrained), CFR+ until the exact exploitability of the average strategy in its
  abstract game is at most ``--target`` (measured every ``--check-every`` iterations, its CPU time not
  counted) or ``--max-iterations`` / ``--max-cpu-minutes``; the strategy is stored as the package stores it
  (``Strategy.save``, in ``strategy.store_dir()``), with its exploitability and the monotonicity check of
  ``strategy.monotonicity``.  Saved in ``benchmarks/data/cfr_sizes_train.json``.
* **play** — at a real table (stacks of 100, duplicate deals: each deck played twice, the seats swapped):
  the local best response (``quintet.draw.cfr.lbr``) against each size, and each size against each other;
  every match with the control variates of ``quintet.draw.cfr.aivat`` beside plain duplicate.  Each match
  plays 500 deals, then as many as ``--cpu-minutes`` allow (``--wall-minutes`` stops it early, said so).
  Saved in ``benchmarks/data/cfr_sizes_play.json``.
* **confirm** — a pre-registered confirming run on a new seed (refused if it is within ``SEED_SPAN`` of the
  curve's, whose matches use the seeds from there on): the first size of ``--sizes`` against each of the
  others, and the local best response against each of the others, each match exactly ``--hands`` hands
  (``--wall-minutes`` a cap, said so).  The rule, fixed before the run: another size beats the first when the
  interval of its control-variates estimate excludes 0 on its side, the intervals Bonferroni-corrected for
  the number of head-to-heads.  Saved in ``benchmarks/data/cfr_sizes_confirm.json``.
* **report** (``train``, ``play`` and ``confirm`` call it) — the section of ``benchmarks/RESULTS.md`` between
  ``<!-- cfr-sizes:start -->`` and ``<!-- cfr-sizes:end -->`` and the plot ``cfr_sizes.png``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from itertools import combinations
from pathlib import Path

import numpy as np
from analysis_common import DATA, Run, save_data, savefig
from bench_lbr import PILOT, STACK, deal_totals, interval
from benchmark_results import write_section

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from quintet.cliutil import OneLineParser, int_at_least, positive_float, positive_int  # noqa: E402
from quintet.draw.cfr.aivat import Watched, check_same_betting  # noqa: E402
from quintet.draw.cfr.betting import build_game  # noqa: E402
from quintet.draw.cfr.bot import CfrBot  # noqa: E402
from quintet.draw.cfr.classes import POST_CLASSES, PRE_CLASSES, hand_classes  # noqa: E402
from quintet.draw.cfr.lbr import LocalBestResponse  # noqa: E402
from quintet.draw.cfr.solve import CFRPlus, exploitability  # noqa: E402
from quintet.draw.cfr.strategy import Strategy, monotonicity, store_dir, strategy_for, strategy_key, train  # noqa: E402
from quintet.draw.game import Terms  # noqa: E402
from quintet.rules import get_rules  # noqa: E402

RULES = "draw36-joker-11"
SIZES = f"10x10,{PRE_CLASSES}x{POST_CLASSES},70x64"
SHIPPED = (PRE_CLASSES, POST_CLASSES, False, False)
SEED_SPAN = 1000  # the seeds a run of base seed S uses lie in [S, S + SEED_SPAN)


Size = tuple[int, int, bool, bool]  # hand_classes' pre, post, emd and joker


def parse_sizes(text: str) -> list[Size]:
    """'10x10,30x32e,30x32j' -> [(10, 10, False, False), (30, 32, True, False), (30, 32, False, True)] (a final e:
    classes by distribution, ``emd``; a final j, after it or alone: the joker apart, ``joker``;
    ``ValueError`` with a sentence: not that form, or a size below 2, or one given twice)."""
    out = []
    for part in text.split(","):
        word = part.strip()
        joker = word.endswith("j")
        emd = word.removesuffix("j").endswith("e")
        pre, x, post = word.removesuffix("j").removesuffix("e").partition("x")
        if not x or not pre.isdigit() or not post.isdigit():
            raise ValueError(f"a size is PRExPOST, e.g. 10x10 (30x32e: classes by distribution; 30x32j, 30x32ej: the "
                             f"joker apart), got {word!r}")
        if int(pre) < 2 or int(post) < 2:
            raise ValueError(f"a size has at least 2 classes a phase, got {word!r}")
        out.append((int(pre), int(post), emd, joker))
    if len(set(out)) != len(out):
        raise ValueError(f"a size is given twice in {text!r}")
    return out


def size_list(text: str) -> list[Size]:
    """argparse type: ``parse_sizes``, its ``ValueError`` an ``ArgumentTypeError``."""
    try:
        return parse_sizes(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _path(size: Size) -> Path:
    return store_dir() / f"{strategy_key(get_rules(RULES), Terms(), *size)}.npz"


def load(size: Size) -> Strategy:
    """The strategy of a size: the shipped one, or the one ``train`` stored."""
    rules, terms = get_rules(RULES), Terms()
    if size == SHIPPED:
        return strategy_for(rules, terms, build=False)
    return Strategy.load(_path(size), rules, terms)


# ---------------------------------------------------------------- train -----------------------


def train_one(rules, terms, size: Size,  # type: ignore[no-untyped-def]
              args: argparse.Namespace) -> tuple[Strategy, list[dict[str, float]]]:
    """CFR+ on one size until the target (module doc); the strategy, stored, and its measurements."""
    pre, post, emd, joker = size
    game = build_game(terms, hand_classes(rules, pre, post, emd, joker))
    points: list[dict[str, float]] = []
    paused = 0.0
    start = time.process_time()

    def monitor(solver: CFRPlus) -> bool:
        nonlocal paused
        cpu = time.process_time() - start - paused
        last = solver.iterations >= args.max_iterations or cpu > 60 * args.max_cpu_minutes
        if solver.iterations % args.check_every and not last:
            return False
        t1 = time.process_time()
        e = exploitability(game.tree, solver.average()).total
        paused += time.process_time() - t1
        points.append({"iterations": solver.iterations, "cpu": cpu, "exploitability": e})
        print(f"{pre}x{post}: {solver.iterations} it {cpu:.0f} CPU-s {e:.5f}", flush=True)
        return e <= args.target or last

    strategy = train(rules, terms, iterations=args.max_iterations, pre=pre, post=post, emd=emd, joker=joker,
                     monitor=monitor, game=game)
    strategy.save(_path(size))
    return strategy, points


def key(row: dict) -> Size:
    return row["pre"], row["post"], row.get("emd", False), row.get("joker", False)


def as_size(size: list) -> Size:
    """A size saved as a list (older rows: without ``joker``)."""
    return size[0], size[1], size[2], size[3] if len(size) > 3 else False


def train_sizes(args: argparse.Namespace, run: Run) -> None:
    """Train (or load) each size and add its row to the saved ones, a size trained again replacing its row; each
    row keeps the provenance of the run that made it."""
    rules, terms = get_rules(RULES), Terms()
    rows = []
    for size in args.sizes:
        t0 = time.process_time()
        shipped = size == SHIPPED
        if shipped:
            strategy, points = strategy_for(rules, terms, build=False), []
        else:
            strategy, points = train_one(rules, terms, size, args)
        c = strategy.classes
        pre, post, emd, joker = size
        row = {"pre": pre, "post": post, "emd": emd, "joker": joker, "n_pre": c.n_pre, "n_post": c.n_post,
               "shipped": shipped, "entries": int(strategy.game.tree.size), "info": strategy.info, "points": points,
               "monotonicity": {k: float(v) for k, v in monotonicity(strategy).items()},
               "cpu": time.process_time() - t0, "run": run.to_dict()}
        print(f"{pre}x{post}: {row['n_pre']}/{row['n_post']} classes, {strategy.info['exploitability']}, "
              f"{row['monotonicity']}", flush=True)
        rows.append(row)
    path = DATA / "cfr_sizes_train.json"
    saved = json.loads(path.read_text()) if path.exists() else {"sizes": []}
    kept = [r if "run" in r else r | {"run": saved["run"]} for r in saved["sizes"] if key(r) not in args.sizes]
    save_data("cfr_sizes_train", run, {"rules": RULES, "terms": terms.to_dict(), "target": args.target,
                                       "sizes": kept + rows})


# ---------------------------------------------------------------- play ------------------------


def match(rules, terms, a, b, args: argparse.Namespace, seed: int,  # type: ignore[no-untyped-def]
          deals: int | None = None, z: float = 1.96) -> dict[str, object]:
    """``a`` against ``b`` (module doc): plain duplicate and with the control variates, per hand, the interval
    mean ± ``z`` sd; ``deals`` of them, or (None) as many as ``args.cpu_minutes`` allow."""
    stop = time.perf_counter() + 60 * args.wall_minutes
    deal_totals(rules, terms, a, b, 1, np.random.default_rng(seed + 1), stop)  # builds, compiles
    rng = np.random.default_rng(seed)
    t0 = time.process_time()
    totals, corrected = deal_totals(rules, terms, a, b, PILOT, rng, stop)
    per_deal = (time.process_time() - t0) / max(len(totals), 1)
    asked = deals if deals is not None else max(PILOT, int(60 * args.cpu_minutes / per_deal))
    more, more_corrected = deal_totals(rules, terms, a, b, asked - len(totals), rng, stop)
    totals += more
    corrected += more_corrected
    out = interval(totals, asked, z) | {"cpu": time.process_time() - t0, "ms_per_hand": 500 * per_deal}
    out["control_variates"] = interval(corrected, asked, z)
    return out


def lbr_match(rules, terms, strategy: Strategy, size: Size, args: argparse.Namespace,  # type: ignore[no-untyped-def]
              seed: int, deals: int | None = None) -> dict[str, object]:
    """The local best response against one size (``match``)."""
    responder = LocalBestResponse(strategy, args.seed)
    bot = Watched(CfrBot(rules, terms, args.seed + 1, strategy=strategy), responder)
    result = match(rules, terms, responder, bot, args, seed, deals)
    print(f"lbr vs {size}: {result}", flush=True)
    return {"size": list(size)} | result


def head_to_head(rules, terms, strategies: dict[Size, Strategy], s: Size, z: Size,  # type: ignore[no-untyped-def]
                 args: argparse.Namespace, seed: int, deals: int | None = None, zscore: float = 1.96) -> dict:
    """Size ``s`` against size ``z`` (``match``), each bot with its control variates."""
    check_same_betting(strategies[s], strategies[z])
    a = Watched(CfrBot(rules, terms, args.seed + 2, strategy=strategies[s]))
    b = Watched(CfrBot(rules, terms, args.seed + 3, strategy=strategies[z]), a)
    a.other = b
    result = match(rules, terms, a, b, args, seed, deals, zscore)
    print(f"{s} vs {z}: {result}", flush=True)
    return {"a": list(s), "b": list(z)} | result


def confirm(args: argparse.Namespace, run: Run) -> None:
    """The pre-registered confirming run (module doc)."""
    rules, terms = get_rules(RULES), Terms()
    base, others = args.sizes[0], args.sizes[1:]
    strategies = {s: load(s) for s in args.sizes}
    deals = args.hands // 2
    level = 0.05 / len(others)  # Bonferroni over the head-to-heads
    zscore = statistics.NormalDist().inv_cdf(1 - level / 2)
    out: dict[str, object] = {
        "rules": RULES, "stack": STACK, "seed": args.seed, "hands": args.hands, "level": level,
        "rule": f"another size beats {list(base)} when its control-variates interval ({1 - level:.1%}) is below 0",
        "head_to_head": [head_to_head(rules, terms, strategies, base, z, args, args.seed + 100 + 10 * i, deals, zscore)
                         for i, z in enumerate(others)],
        "lbr": [lbr_match(rules, terms, strategies[z], z, args, args.seed + 10 * i, deals)
                for i, z in enumerate(others)],
        "info": {str(list(s)): strategies[s].info for s in args.sizes},
    }
    save_data("cfr_sizes_confirm", run, out)


def play(args: argparse.Namespace, run: Run) -> None:
    rules, terms = get_rules(RULES), Terms()
    trained = json.loads((DATA / "cfr_sizes_train.json").read_text())
    sizes = [key(r) for r in trained["sizes"]]
    strategies = {s: load(s) for s in sizes}
    out: dict[str, list[dict]] = {"lbr": [], "head_to_head": []}
    for i, s in enumerate(sizes if args.only in ("all", "lbr") else []):
        out["lbr"].append(lbr_match(rules, terms, strategies[s], s, args, args.seed + 10 * i))
    for i, (s, z) in enumerate(combinations(sizes, 2) if args.only in ("all", "head-to-head") else []):
        out["head_to_head"].append(head_to_head(rules, terms, strategies, s, z, args, args.seed + 100 + 10 * i))
    path = DATA / "cfr_sizes_play.json"
    saved = json.loads(path.read_text()) if path.exists() else {}
    for kind, rows in out.items():  # the matches of this run, with its provenance; the others' kept
        if rows:
            for r in rows:
                r["run"] = run.to_dict()
        else:
            out[kind] = saved.get(kind, [])
    save_data("cfr_sizes_play", run, {"rules": RULES, "stack": STACK, "seed": args.seed, **out})


# ---------------------------------------------------------------- report ----------------------


def _ci(r: dict[str, float]) -> str:
    return f"{r['mean']:+.4f} [{r['low']:+.4f}, {r['high']:+.4f}]"


def _name(size: list, rows: dict[Size, dict]) -> str:
    r = rows[as_size(size)]
    return f"{r['n_pre']}/{r['n_post']}{' EMD' if r.get('emd') else ''}{' joker apart' if r.get('joker') else ''}"


def report() -> None:
    t = json.loads((DATA / "cfr_sizes_train.json").read_text())
    rows = {key(r): r for r in t["sizes"]}
    runs = list({r["run"]["command"] + r["run"]["commit"]: r["run"] for r in t["sizes"]}.values())
    lines = ["**Training.**", *[Run.from_dict(r).line() for r in runs]] + [
        "",
        f"`{t['rules']}`, default terms. Each size is a card abstraction of `quintet.draw.cfr.classes` (before "
        "the exchange, within groups by the number of cards the best exchange draws, classes by the mean "
        "strength of the final hand, or — EMD — by its whole distribution, clustered by earth mover's "
        "distance; *joker apart*: within each group the hands holding the joker classed apart from the others, the "
        "group's classes numbered by mean strength; after the exchange, by the final hand's percentile), "
        f"solved by CFR+ until the exact exploitability of its average strategy is at most {t['target']} chips a "
        "hand in its own abstract game (measured every few iterations; the shipped size, 35/32, is the shipped "
        "file, not retrained). *Stored*: the strategy as the package stores it (unreached sets by best response, "
        "1/255 steps). *Non-monotone*: the share of decisions where folding is allowed at which a stronger "
        "class stays in (does not fold) less often by more than 0.1 than a weaker one (before the exchange: "
        "within a group), both reached by the strategy's own play; weighted: by the decisions' reach.",
        "",
        "| classes before / after | strategy entries | CFR+ iterations | CPU s (with the checks) | "
        "exploitability (average) | (stored) | non-monotone (weighted) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in t["sizes"]:
        e, m = r["info"]["exploitability"], r["monotonicity"]
        lines.append(f"| {_name(list(key(r)), rows)}{' (shipped)' if r['shipped'] else ''} | {r['entries']:,} | "
                     f"{r['info']['iterations']:,} | {r['info']['cpu_seconds']:.0f} | {e['average']:.5f} | "
                     f"{e['stored']:.5f} | {m['non_monotone']:.1%} ({m['weighted']:.1%}) |")
    path = DATA / "cfr_sizes_play.json"
    if path.exists():
        p = json.loads(path.read_text())
        lines += [
            "",
            "**Play.**",
            *[Run.from_dict(r).line() for r in
              {r["run"]["command"] + r["run"]["date"]: r["run"] for r in p["lbr"] + p["head_to_head"]}.values()],
            "",
            f"At a real table (stacks of {p['stack']}), duplicate deals (each deck played twice, the seats "
            "swapped), chips a hand with a 95% interval over the deals, plain and with the control variates "
            "of `quintet.draw.cfr.aivat` (AIVAT, Burch et al. 2018: at each decision of a CFR bot after the "
            "exchange, the value over its probabilities minus the value after the action it took, exact in the "
            "abstract betting with both real hands; mean 0, so unbiased; the luck of the cards, of the exchange "
            "and of the actions before it stays).",
            "",
            "**The local best response** (`quintet.draw.cfr.lbr`: it sees its own cards and the public line; a "
            "lower bound on the real-game exploitability when its interval is above 0):",
            "",
            "| strategy | hands | duplicate | duplicate + control variates | CPU-ms a hand |",
            "|---|---:|---:|---:|---:|",
        ]
        lines += [f"| {_name(r['size'], rows)} | {r['hands']:,} | {_ci(r)} | {_ci(r['control_variates'])} | "
                  f"{r['ms_per_hand']:.2f} |" for r in p["lbr"]]
        lines += [
            "",
            "**Head to head** (chips a hand the first strategy wins from the second):",
            "",
            "| strategies | hands | duplicate | duplicate + control variates | sd a deal (plain → CV) |",
            "|---|---:|---:|---:|---:|",
        ]
        lines += [f"| {_name(r['a'], rows)} vs {_name(r['b'], rows)} | {r['hands']:,} | {_ci(r)} | "
                  f"{_ci(r['control_variates'])} | {r['sd_per_deal']:.2f} → "
                  f"{r['control_variates']['sd_per_deal']:.2f} |"
                  for r in p["head_to_head"]]
        partial = [r for r in p["lbr"] + p["head_to_head"] if r["deals"] < r["asked"]]
        if partial:
            lines += ["", f"{len(partial)} match(es) stopped early at the wall-clock limit: their hands are fewer "
                      "than their CPU budget allowed."]
        unplayed = [_name(list(s), rows) for s in rows if all(as_size(r["size"]) != s for r in p["lbr"])]
        if unplayed:
            lines += ["", f"Trained, not played: {', '.join(unplayed)} (after the matches above)."]
        _plot(t, p)
        lines += _confirm_lines(rows)
        lines += ["", "What the curve recommends, and what ships: docs/draw-poker.md, \"Abstraction size, and classes "
                  "by distribution\".", "", "![the abstraction curve](cfr_sizes.png)"]
    write_section("cfr-sizes", "Draw poker heads-up: the abstraction curve", "\n".join(lines))
    print("wrote benchmarks/RESULTS.md (section cfr-sizes)")


def _confirm_lines(rows: dict[Size, dict]) -> list[str]:
    """The confirming run's part of the section (none before it ran)."""
    path = DATA / "cfr_sizes_confirm.json"
    if not path.exists():
        return []
    c = json.loads(path.read_text())
    base = _name(c["head_to_head"][0]["a"], rows)
    lines = [
        "",
        "**The confirming run** (pre-registered: the comparison, the seed, the number of hands and the rule were "
        f"committed before it ran; the seed {c['seed']} is new, none of the curve's matches used it).",
        Run.from_dict(c["run"]).line(),
        "",
        f"The rule: {', '.join(_name(r['b'], rows) for r in c['head_to_head'])} beats {base} when the "
        f"{1 - c['level']:.1%} interval of its control-variates estimate lies below 0 (chips a hand {base} wins).",
        "",
        f"| match | hands | duplicate ({1 - c['level']:.1%}) | duplicate + control variates | sd a deal (plain → CV) "
        "| verdict |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for r in c["head_to_head"]:
        cv = r["control_variates"]
        verdict = (f"{_name(r['b'], rows)} better" if cv["high"] < 0 else
                   f"{base} better" if cv["low"] > 0 else "not told apart")
        lines.append(f"| {base} vs {_name(r['b'], rows)} | {r['hands']:,} | {_ci(r)} | {_ci(cv)} | "
                     f"{r['sd_per_deal']:.2f} → {cv['sd_per_deal']:.2f} | {verdict} |")
    for r in c["lbr"]:
        lines.append(f"| local best response vs {_name(r['size'], rows)} | {r['hands']:,} | {_ci(r)} | "
                     f"{_ci(r['control_variates'])} | {r['sd_per_deal']:.2f} → "
                     f"{r['control_variates']['sd_per_deal']:.2f} | "
                     f"{'a lower bound above 0' if r['control_variates']['low'] > 0 else 'contains 0'} |")
    partial = [r for r in c["head_to_head"] + c["lbr"] if r["deals"] < r["asked"]]
    if partial:
        lines += ["", f"{len(partial)} match(es) stopped early at the wall-clock limit."]
    return lines


def _plot(t: dict, p: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = {key(r): r for r in t["sizes"]}
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for emd, what in ((False, "classes by mean"), (True, "classes by distribution (EMD)")):
        points = sorted((r for r in p["lbr"] if rows[as_size(r["size"])].get("emd", False) == emd
                         and not rows[as_size(r["size"])].get("joker", False)),
                        key=lambda r: rows[as_size(r["size"])]["n_post"])
        if not points:
            continue
        x = [rows[as_size(r["size"])]["n_post"] for r in points]
        stored = [rows[as_size(r["size"])]["info"]["exploitability"]["stored"] for r in points]
        cv = [r["control_variates"] for r in points]
        errors = [[c["mean"] - c["low"] for c in cv], [c["high"] - c["mean"] for c in cv]]
        ax.errorbar(x, [c["mean"] for c in cv], yerr=errors, marker="D" if emd else "o", capsize=4,
                    linestyle="none" if emd else "-", label=f"local best response, real game (95%), {what}")
        ax.plot(x, stored, marker="x" if emd else "s", linestyle="none" if emd else "-",
                label=f"exact exploitability in its abstract game, {what}")
    ax.axhline(0.0, color="grey", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("hand classes after the exchange")
    ax.set_ylabel("chips a hand")
    ax.set_title(f"{t['rules']}: exploitability against abstraction size")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    savefig(fig, "cfr_sizes.png")


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("stage", choices=("train", "play", "confirm", "report"))
    parser.add_argument("--sizes", type=size_list, default=SIZES,
                        help="train: PRExPOST,... (hand_classes' pre and post)")
    parser.add_argument("--target", type=positive_float, default=0.005, help="train: stop at this exploitability")
    parser.add_argument("--max-iterations", type=positive_int, default=2000)
    parser.add_argument("--max-cpu-minutes", type=positive_float, default=15.0, help="train: per size")
    parser.add_argument("--check-every", type=positive_int, default=50, help="train: iterations between measurements")
    parser.add_argument("--cpu-minutes", type=positive_float, default=2.0, help="play: per match, sized by a pilot")
    parser.add_argument("--wall-minutes", type=positive_float, default=10.0,
                        help="play: per match, stop early after this")
    parser.add_argument("--only", choices=("all", "lbr", "head-to-head"), default="all",
                        help="play: these matches only (the others' saved results kept)")
    parser.add_argument("--seed", type=int_at_least(0), default=2026)
    parser.add_argument("--hands", type=positive_int, default=60_000, help="confirm: hands a match (two a deal)")
    args = parser.parse_args(argv)
    run = Run(["bench_cfr_sizes.py", *(argv if argv is not None else sys.argv[1:])])
    if args.stage == "train":
        train_sizes(args, run)
    elif args.stage == "play":
        if not (DATA / "cfr_sizes_train.json").exists():
            parser.error("play needs the strategies of `train` first (benchmarks/data/cfr_sizes_train.json)")
        play(args, run)
    elif args.stage == "confirm":
        played = DATA / "cfr_sizes_play.json"
        curve = json.loads(played.read_text())["seed"] if played.exists() else None
        if len(args.sizes) < 2:
            parser.error("confirm: --sizes names the base and at least one other size")
        if curve is not None and abs(args.seed - curve) < SEED_SPAN:
            parser.error(f"confirm: --seed {args.seed} is within {SEED_SPAN} of the curve's ({curve}); take a new one")
        confirm(args, run)
    elif not (DATA / "cfr_sizes_train.json").exists():
        parser.error("nothing to report: run `train` first")
    report()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
