"""``python -m solver.play.make_puzzles``: deal, solve and keep the puzzles that teach, and
write the shipped set (``solver/play/data/puzzles.json``, ``solver.play.puzzle_set``).

    python -m solver.play.make_puzzles [--seed S] [--count N] [--budget SECONDS] [--out FILE]

Deals the classic seeds S, S+1, … (each in its canonical suits, once); solves each deal's
equilibrium to ``PLAY_EPSILON`` (``solver.advisor.equilibrium``; deals it does not certify in
``--eq-time`` seconds are skipped), rounds the mix's probabilities to 6 decimals, proves the best
arrangement against that rounded mix (the exact engine; unproven ones are skipped) and keeps the
deal when ``analyse`` says it teaches — until N are kept or ``--budget`` seconds have passed.
The ratings are then given by rank (``elo_ratings``).  The file's header records the command,
the commit (``git rev-parse HEAD``; a dirty tree is refused) and the counts.
"""

from __future__ import annotations

import argparse
import os
import resource
import shlex
import subprocess
import sys
import time
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from quintet.game import Deal
from quintet.rules import CLASSIC
from quintet.symmetry import canonical_exposed, symmetry_group
from solver.advisor.advice import best_response
from solver.advisor.equilibrium import equilibrium
from solver.advisor.limits import PLAY_EPSILON
from solver.play.puzzle_set import GREEDY_MARGIN, MISTAKE_MARGIN, SET_FILE, Analysis, analyse, elo_ratings
from solver.problem.opponents import ArrangementMix

DEFAULT_SEED = 20261204


def _commit(allow_dirty: bool) -> str:
    root = Path(__file__).resolve().parents[2]
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=True).stdout.strip()
    if dirty and not allow_dirty:
        sys.exit("make_puzzles: the tree has uncommitted changes; commit first (the file records the commit)")
    return head + ("-dirty" if dirty else "")


_Kept = tuple[int, Deal, ArrangementMix, Analysis]


def _solve(seed: int, canonical: int, eq_time: float, br_time: float) -> _Kept | None:
    """The deal of ``seed`` (its canonical form ``canonical``) as a puzzle, or None: not
    certified, not proven, or it does not teach."""
    deal = Deal(canonical, CLASSIC)
    eq = equilibrium(deal, epsilon=PLAY_EPSILON, time_limit=eq_time)
    if not eq.converged:
        return None
    rounded = [(round(p, 6), a) for p, a in eq.mix if round(p, 6) > 0]
    mix = ArrangementMix(tuple(a for _, a in rounded), tuple(p for p, _ in rounded), name="equilibrium")
    best = best_response(deal, mix, time_limit=br_time)
    if not best.optimal:
        return None
    a = analyse(deal, mix, best.arrangement)
    print(f"seed {seed}: optimum {a.optimum:+.3f} greedy {a.greedy:+.3f} {a.mistake[0]} {a.mistake[2]:+.3f} "
          f"near {a.near} {'KEPT' if a.teaches else '-'} {'; '.join(a.themes)}", flush=True)
    return (seed, deal, mix, a) if a.teaches else None


def _children_cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime, usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    from solver.advisor.schema import PuzzleEntryOut, PuzzleMistakeOut, PuzzleSetOut
    parser = argparse.ArgumentParser(prog="python -m solver.play.make_puzzles", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="the first deal's seed")
    parser.add_argument("--count", type=int, default=300, help="puzzles to keep")
    parser.add_argument("--budget", type=float, default=None, help="stop dealing after this many seconds (wall)")
    parser.add_argument("--eq-time", type=float, default=30.0, help="seconds for each equilibrium solve")
    parser.add_argument("--br-time", type=float, default=60.0, help="seconds for each best-response proof")
    parser.add_argument("--workers", type=int, default=1, help="processes")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "data" / SET_FILE)
    parser.add_argument("--allow-dirty", action="store_true", help="run on an uncommitted tree (not for shipping)")
    args = parser.parse_args(argv)
    commit = _commit(args.allow_dirty)
    command = "python -m solver.play.make_puzzles " + shlex.join(sys.argv[1:] if argv is None else argv)
    rules, group = CLASSIC, symmetry_group(CLASSIC)
    start, cpu = time.monotonic(), time.process_time()
    seen: set[int] = set()
    kept: list[tuple[int, Deal, ArrangementMix, Analysis]] = []
    seed, scanned, complete = args.seed, 0, True
    pending: dict[int, Future[_Kept | None]] = {}
    # each worker a session of its own: where the kernel shares the CPU between sessions (autogroups), a
    # pool in one session gets one share however many workers it has
    with ProcessPoolExecutor(args.workers, initializer=os.setsid) as pool:
        while len(kept) < args.count:
            while len(pending) < 2 * args.workers and not (args.budget and time.monotonic() - start > args.budget):
                dealt = Deal.random(seed, rules)
                canonical, _ = canonical_exposed(dealt.exposed, rules.deck, group=group)
                if canonical not in seen:
                    seen.add(canonical)
                    pending[seed] = pool.submit(_solve, seed, canonical, args.eq_time, args.br_time)
                seed += 1
            if not pending:
                complete = False
                break
            first = min(pending)  # in seed order: the set is the first N that teach, however many workers
            found = pending.pop(first).result()
            scanned += 1
            if found is not None:
                kept.append(found)
        for f in pending.values():
            f.cancel()
    cpu_seconds = time.process_time() - cpu + sum(_children_cpu())
    ratings = elo_ratings([a.difficulty for *_, a in kept])
    puzzles = []
    for number, ((deal_seed, deal, mix, a), rating) in enumerate(zip(kept, ratings, strict=True), start=1):
        kind, arrangement, value = a.mistake
        puzzles.append(PuzzleEntryOut(
            number=number, seed=deal_seed, exposed=deal.format(), mix=[m.format(rules) for m in mix.arrangements],
            weights=list(mix.probabilities), best=a.best.format(rules), optimum=round(a.optimum, 6),
            proven=True, greedy=round(a.greedy, 6), near=a.near, themes=list(a.themes), rating=rating,
            mistake=PuzzleMistakeOut(kind=kind, arrangement=arrangement.format(rules), value=round(value, 6))))
    out = PuzzleSetOut(rules=rules.name, command=command, commit=commit, seed=args.seed, scanned=scanned,
                       epsilon=PLAY_EPSILON, greedy_margin=GREEDY_MARGIN, mistake_margin=MISTAKE_MARGIN,
                       cpu_seconds=round(cpu_seconds, 1), complete=complete, puzzles=puzzles)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = out.model_dump_json()
    args.out.write_text(text.replace('{"number"', '\n{"number"') + "\n", encoding="utf-8")
    print(f"{len(puzzles)} puzzles of {scanned} deals in {out.cpu_seconds:g} CPU seconds -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
