"""Soundness sweep: the exact engines against each other at full size (docs/proofs.md).

    python benchmarks/bench_soundness.py                         # 1,000 instances (hours)
    python benchmarks/bench_soundness.py --instances 40 --seed 5 # a quick look
    python benchmarks/bench_soundness.py --jsonl sweep.jsonl     # one line per instance as it goes
    python benchmarks/bench_soundness.py --instances 500 --first-deal 50 --jsonl b.jsonl  # a second shard
    python benchmarks/bench_soundness.py --report a.jsonl b.jsonl  # the shards' summary

Instances come from ``tests/differential.py``: random deals (both tie rules), and per deal
the mixes a double oracle really asks best responses to (10–200 arrangements), random
weights over its pool, those mixes blended with uniform and greedy, random populations,
uniform, greedy; both objectives; a share of them reduced (two slots fixed).  Each instance
runs every search variant of ``differential.VARIANTS`` (rules 4, 5, 6 each off in some);
the basic search (rules 1–3 only) with a time limit; CP-SAT on the instances with small
mixes and on every ``--cpsat-every``-th large one; brute force on the reduced ones.
Any disagreement is printed and counted; the summary (counts, time per variant) goes to
the Soundness section of benchmarks/RESULTS.md.
"""

from __future__ import annotations

import itertools
import json
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

import differential as diff  # noqa: E402
from benchmark_results import cpu_name, write_section  # noqa: E402

from quintet.cliutil import OneLineParser, float_between, int_at_least, positive_float, positive_int  # noqa: E402

LARGE = 20  # a "large mix": at least this many arrangements


ENGINE_CODE = ("solver/engines", "solver/problem", "solver/games", "quintet/cards.py", "quintet/evaluator.py",
               "quintet/game.py", "quintet/hands.py", "quintet/kernels.py", "quintet/rules.py", "quintet/symmetry.py",
               "tests/differential.py", "tests/brute.py")  # the code a sweep tests: engines, evaluator, harness


def engine_changes(commits: list[str]) -> list[str] | None:
    """The files of ``ENGINE_CODE`` that differ between the sweep's first commit and each later one, as
    'path (N lines)', lines added or removed; None where git cannot tell (no history, an unknown commit)."""
    changed: dict[str, str] = {}
    for later in commits[1:]:
        try:
            out = subprocess.run(["git", "diff", "--numstat", commits[0], later, "--", *ENGINE_CODE],
                                 cwd=HERE.parent, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        if out.returncode != 0:
            return None
        for line in out.stdout.splitlines():
            added, removed, path = line.split("\t", 2)
            lines = int(added) + int(removed) if added.isdigit() and removed.isdigit() else "binary"
            changed[path] = f"{path} ({lines} lines)"
    return sorted(changed.values())


def commits_note(commits: list[str]) -> str:
    """Whether the code under test is the same at the sweep's commits (empty for one commit)."""
    if len(commits) < 2:
        return ""
    changed = engine_changes(commits)
    if changed is None:
        return " (whether the engines' code differs between them was not checked: no git history here)"
    if not changed:
        return " — the code under test (the engines, the evaluator and the harness) is identical at them"
    return f" — **the code under test differs between them: {', '.join(changed)}**"


def report(records: list[dict], elapsed: float, command: str) -> tuple[str, int]:
    """The Markdown summary of a sweep's records (one per instance) and its disagreement count."""
    counts: Counter[str] = Counter()
    seconds: dict[str, list[float]] = defaultdict(list)
    failures = [r["summary"] for r in records if not r["ok"]]
    for r in records:
        counts["instances"] += 1
        counts["reduced (brute force)" if r["reduced"] else "full size"] += 1
        if r["support"] >= LARGE and not r["reduced"]:
            counts["large"] += 1
            cpsat = r["results"].get("cpsat")
            counts["large, cpsat"] += cpsat is not None
            counts["large, cpsat proven"] += bool(cpsat and cpsat["optimal"])
        for name, res in r["results"].items():
            seconds[name].append(res["seconds"])
            counts[f"{name}: proven" if res["optimal"] else f"{name}: time limit"] += 1
    commits = sorted({r.get("commit", "") for r in records} - {""})
    lines = [
        f"`{command}` ({elapsed:.0f} s on {cpu_name()}); the sweep's commit: "
        + (", ".join(f"`{c}`" for c in commits) + commits_note(commits) if commits
           else "not recorded (a sweep before the records carried it)")
        + "; its records: `benchmarks/data/` (the JSON lines named in the command).",
        "",
        f"**Disagreements: {len(failures)}** among {counts['instances']} instances "
        f"({counts['full size']} full size, {counts['large']} of them against mixes of "
        f"≥ {LARGE} arrangements, CP-SAT run on {counts['large, cpsat']} of those and proved "
        f"{counts['large, cpsat proven']}; "
        f"{counts['reduced (brute force)']} reduced, checked by brute force).",
        "",
        "| engine | runs | proven | stopped at its limit | median s | p90 s | max s |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, xs in seconds.items():
        xs_sorted = sorted(xs)
        p90 = xs_sorted[min(len(xs) - 1, int(0.9 * len(xs)))]
        lines.append(f"| {name} | {len(xs)} | {counts[f'{name}: proven']} | {counts[f'{name}: time limit']} | "
                     f"{statistics.median(xs):.3f} | {p90:.3f} | {max(xs):.3f} |")
    lines += ["", *_bound_lines(records, len(failures))]
    short = [f"{name} {counts[f'{name}: proven']} of {len(xs)}" for name, xs in seconds.items()
             if counts[f"{name}: time limit"]]
    lines += ["", ("Not every engine proved its optimum on every instance within its limit: " + "; ".join(short) + "."
                   if short else "Every engine proved its optimum on every instance it ran.")]
    if failures:
        lines += ["", "Disagreements:", ""] + [f"- {f}" for f in failures]
    return "\n".join(lines), len(failures)


def _deal(record: dict) -> str:  # type: ignore[type-arg]
    """The deal an instance came from (its name starts "seed S deal D")."""
    words = record["name"].split()
    return " ".join(words[:4]) if words[:1] == ["seed"] and words[2:3] == ["deal"] else record["name"]


def _upper(k: int, n: int) -> float:
    """One-sided 95% upper bound on a rate after k = 0 events in n independent trials: 1 − 0.05^(1/n)."""
    return 1 - 0.05 ** (1 / n) if n else 1.0


def _bound_lines(records: list[dict], failures: int) -> list[str]:  # type: ignore[type-arg]
    """What the sweep says about the error rate, counting only checks that are independent: the
    search's variants share their kernels (a fault in a shared kernel makes them agree), and the
    instances of one deal share its tables, so the unit is an instance checked by an independent
    engine (CP-SAT at full size; brute force on a reduced instance), and then the deal."""
    if failures:
        return [f"{failures} disagreements: see below."]
    full = [r for r in records if not r["reduced"] and r["results"].get("cpsat", {}).get("optimal")]
    brute = [r for r in records if r["reduced"] and r.get("brute") is not None]
    deals_full = {_deal(r) for r in full}
    deals_any = {_deal(r) for r in full + brute}
    n, d = len(full), len(deals_full)
    if n == 0:
        return [f"No disagreement, but CP-SAT proved no full-size instance of this run, so the sweep bounds no error "
                f"rate at full size; brute force checked {len(brute)} reduced instances."]
    return [
        f"No disagreement. What that bounds depends on which checks are independent. The search's variants share "
        f"their kernels, so their agreement on {len(records)} instances is not {len(records)} independent checks; "
        f"the instances of one deal share its tables. Against an independent engine at full size — CP-SAT proved its "
        f"optimum on **{n} instances from {d} deals** — no disagreement bounds the per-instance error rate at "
        f"**{100 * _upper(0, n):.1f}%** (one-sided 95%, exact; rule of three 3/{n} = {100 * 3 / n:.1f}%) if those "
        f"instances were independent, and the per-deal rate (a deal with any wrong answer) at "
        f"**{100 * _upper(0, d):.1f}%** (3/{d} = {100 * 3 / d:.1f}%), which needs no independence within a deal. "
        f"Brute force checked {len(brute)} reduced instances (two slots fixed: a smaller problem, not the full one); "
        f"{len(deals_any)} deals had at least one independent check. These bound the rate for instances like these "
        "(random deals, the double oracle's mixes), not for every opponent."]


def main() -> int:
    p = OneLineParser(description=__doc__.splitlines()[0])
    p.add_argument("--instances", type=positive_int, default=1000)
    p.add_argument("--seed", type=int_at_least(0), default=2026)
    p.add_argument("--first-deal", type=int_at_least(0), default=0,
                   help="start at this deal (to split a sweep into shards)")
    p.add_argument("--per-deal", type=positive_int, default=10, help="instances per deal (default 10)")
    p.add_argument("--do-seconds", type=positive_float, default=30.0, help="double-oracle time per deal for its mixes")
    p.add_argument("--reduced-share", type=float_between(0, 1), default=0.3)
    p.add_argument("--basic-limit", type=positive_float, default=60.0, help="seconds for the basic search (rules 1-3)")
    p.add_argument("--cpsat-limit", type=positive_float, default=120.0)
    p.add_argument("--cpsat-every", type=positive_int, default=10, help="CP-SAT on every k-th large-mix instance")
    p.add_argument("--cpsat-small-every", type=positive_int, default=3, help="CP-SAT on every k-th other instance")
    p.add_argument("--jsonl", type=Path, default=None, help="append one JSON line per instance")
    p.add_argument("--report", type=Path, nargs="+", default=None, metavar="JSONL",
                   help="run nothing: summarize the JSON lines of earlier runs (shards of one sweep; a bare name "
                        "is looked up in benchmarks/data/ too)")
    p.add_argument("--no-write", action="store_true", help="do not update RESULTS.md")
    args = p.parse_args()

    if args.report is not None:
        # a bare name is a file of benchmarks/data/ (as the section's command names them)
        paths = [p_ if p_.exists() or p_.parent != Path() else HERE / "data" / p_ for p_ in args.report]
        missing = [str(p_) for p_ in paths if not p_.is_file()]
        if missing:
            p.error(f"argument --report: no such file: {', '.join(missing)}")
        records = [json.loads(line) for path in paths for line in path.read_text().splitlines() if line]
        elapsed = sum(r.get("elapsed", 0.0) for r in records)
        text, failed = report(records, elapsed, f"python benchmarks/bench_soundness.py --report "
                                                f"{' '.join(p.name for p in args.report)}")
        print(text)
        if not args.no_write:
            write_section("soundness", "Soundness sweep", text)
        return 1 if failed else 0

    records = []
    start = time.perf_counter()
    from analysis_common import git_commit
    commit = git_commit()
    stream = diff.instance_stream(args.seed, do_seconds=args.do_seconds, per_deal=args.per_deal,
                                  reduced_share=args.reduced_share, first_deal=args.first_deal)
    large_seen = small_seen = 0
    for i, inst in enumerate(itertools.islice(stream, args.instances)):
        began = time.perf_counter()
        large = inst.support >= LARGE and not inst.reduced
        if large:
            large_seen += 1
        else:
            small_seen += 1
        seen, every = (large_seen, args.cpsat_every) if large else (small_seen, args.cpsat_small_every)
        cpsat = (seen - 1) % every == 0  # the 1st, (k+1)-th, (2k+1)-th … of each kind (k = 1: every one)
        verdict = diff.check(inst, brute_force=inst.reduced, basic_limit=args.basic_limit,
                             cpsat_limit=args.cpsat_limit if cpsat else None)
        record = {"commit": commit, "name": inst.name, "ok": verdict.ok, "summary": verdict.summary(),
                  "support": inst.support, "reduced": bool(inst.reduced), "optimum": verdict.optimum,
                  "brute": verdict.brute, "problems": verdict.problems, "elapsed": time.perf_counter() - began,
                  "results": {n: {"value": r.value, "bound": r.bound, "optimal": r.optimal, "seconds": r.seconds}
                              for n, r in verdict.results.items()}}
        records.append(record)
        if not verdict.ok:
            print("DISAGREEMENT:", verdict.summary(), flush=True)
        if args.jsonl is not None:
            with args.jsonl.open("a") as f:
                f.write(json.dumps(record) + "\n")
        print(f"{i + 1}/{args.instances} {time.perf_counter() - start:.0f}s "
              f"{'ok' if verdict.ok else 'FAIL'} {inst.name}", file=sys.stderr, flush=True)

    command = f"python benchmarks/bench_soundness.py --instances {args.instances} --seed {args.seed}"
    if args.first_deal:
        command += f" --first-deal {args.first_deal}"
    text, failed = report(records, time.perf_counter() - start, command)
    print(text)
    if not args.no_write:
        write_section("soundness", "Soundness sweep", text)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
