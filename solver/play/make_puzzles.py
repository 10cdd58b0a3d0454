"""``python -m solver.play.make_puzzles``: deal, solve and keep the puzzles that teach, and
write the shipped set (``solver/play/data/puzzles.json``, ``solver.play.puzzle_set``).

    python -m solver.play.make_puzzles [--seed S | --resume] [--count N] [--budget SECONDS] [--out FILE]

Deals the classic seeds S, S+1, … (each in its canonical suits, once); solves each deal's
equilibrium to ``PLAY_EPSILON`` (``solver.advisor.equilibrium``; deals it does not certify in
``--eq-time`` seconds are skipped), rounds the mix's probabilities to 6 decimals, proves the best
arrangement against that rounded mix (the exact engine; unproven ones are skipped) and keeps the
deal when ``analyse`` says it teaches — until N are kept or ``--budget`` seconds have passed.
``--resume`` keeps the puzzles of ``--out`` (re-analysed: their themes and difficulty by this
code) and deals on from the seed after the last its runs scanned; ``--resume`` with ``--count``
already reached, or ``--budget 0``, scans nothing and only re-analyses (new themes for the
stored puzzles).
The ratings are then given by rank over the whole set (``elo_ratings``).  The file's header
records every run (``PuzzleRunOut``): the command, the commit (``git rev-parse HEAD``; a dirty
tree is refused), the seeds scanned, the counts and the CPU time.  Ctrl-C writes the puzzles
kept so far (the set marked incomplete, the run ending after the last deal scanned, exit 130);
``--resume`` goes on from there.
"""

from __future__ import annotations

import multiprocessing
import os
import resource
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from quintet.cliutil import (
    OneLineParser,
    UsageError,
    float_at_least,
    int_between,
    positive_float,
    positive_int,
    run_cli,
    seed_int,
)
from quintet.game import Arrangement, Deal
from quintet.rules import CLASSIC, Rules
from quintet.symmetry import canonical_exposed, symmetry_group
from solver.advisor.advice import best_response
from solver.advisor.equilibrium import equilibrium
from solver.advisor.limits import PLAY_EPSILON
from solver.advisor.schema import PuzzleEntryOut, PuzzleMistakeOut, PuzzleRunOut, PuzzleSetOut
from solver.play.puzzle_set import GREEDY_MARGIN, MISTAKE_MARGIN, SET_FILE, Analysis, analyse, elo_ratings
from solver.problem.opponents import ArrangementMix

DEFAULT_SEED = 20261204


def _commit(allow_dirty: bool, parser: OneLineParser) -> str:
    root = Path(__file__).resolve().parents[2]
    head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                          check=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, check=True).stdout.strip()
    if dirty and not allow_dirty:
        parser.error("the tree has uncommitted changes; commit first (the file records the commit), "
                     "or --allow-dirty")
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


def _stored(entries: list[PuzzleEntryOut], rules: Rules) -> list[_Kept]:
    """The stored puzzles re-analysed (their themes and difficulty by this code; each must still teach)."""
    kept = []
    for e in entries:
        deal = Deal.from_exposed(e.exposed, rules)
        mix = ArrangementMix(tuple(Arrangement.parse(m, rules) for m in e.mix), tuple(e.weights), name="equilibrium")
        a = analyse(deal, mix, Arrangement.parse(e.best, rules))
        if not a.teaches or abs(a.optimum - e.optimum) > 1e-6:
            raise UsageError(f"--resume: the stored puzzle {e.number} no longer teaches (optimum {a.optimum:+.6f})")
        kept.append((e.seed, deal, mix, a))
    return kept


def main(argv: Sequence[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m solver.play.make_puzzles", description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=seed_int, default=None, help=f"the first deal's seed (default {DEFAULT_SEED})")
    parser.add_argument("--resume", action="store_true",
                        help="keep the puzzles in --out and continue after the last seed its runs scanned")
    parser.add_argument("--count", type=positive_int, default=300,
                        help="puzzles in the set (with --resume, the stored count)")
    parser.add_argument("--budget", type=float_at_least(0), default=None,
                        help="stop dealing after this many seconds (wall)")
    parser.add_argument("--eq-time", type=positive_float, default=30.0, help="seconds for each equilibrium solve")
    parser.add_argument("--br-time", type=positive_float, default=60.0, help="seconds for each best-response proof")
    parser.add_argument("--workers", type=int_between(1, 64), default=1, help="processes (1 to 64)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "data" / SET_FILE)
    parser.add_argument("--allow-dirty", action="store_true", help="run on an uncommitted tree (not for shipping)")
    args = parser.parse_args(argv)
    if args.resume and args.seed is not None:
        parser.error("--resume continues after the stored runs' last seed; --seed starts a new set")
    commit = _commit(args.allow_dirty, parser)
    command = "python -m solver.play.make_puzzles " + shlex.join(sys.argv[1:] if argv is None else argv)
    rules, group = CLASSIC, symmetry_group(CLASSIC)
    start, cpu = time.monotonic(), time.process_time()
    runs: list[PuzzleRunOut] = []
    kept: list[_Kept] = []
    seen: set[int] = set()

    def canonical(seed: int) -> int:
        return canonical_exposed(Deal.random(seed, rules).exposed, rules.deck, group=group)[0]

    if args.resume:
        if not args.out.is_file():
            parser.error(f"--resume: no set at {args.out}")
        stored = PuzzleSetOut.model_validate_json(args.out.read_text(encoding="utf-8"))
        if stored.rules != rules.name or stored.epsilon != PLAY_EPSILON or (
                stored.greedy_margin, stored.mistake_margin) != (GREEDY_MARGIN, MISTAKE_MARGIN):
            parser.error(f"--resume: {args.out} was made with other rules, epsilon or margins")
        runs = list(stored.runs)
        kept = _stored(stored.puzzles, rules)
        seen = {canonical(s) for r in runs for s in range(r.first_seed, r.next_seed)}
    first = runs[-1].next_seed if runs else DEFAULT_SEED if args.seed is None else args.seed
    seed, next_seed, scanned, added, complete, interrupted = first, first, 0, 0, True, False
    pending: dict[int, Future[_Kept | None]] = {}
    print(f"make_puzzles: {len(kept)} kept; dealing from seed {first} (Ctrl-C keeps what is found)", flush=True)
    # each worker a session of its own: where the kernel shares the CPU between sessions (autogroups), a
    # pool in one session gets one share however many workers it has (and Ctrl-C reaches this process only)
    pool = ProcessPoolExecutor(args.workers, initializer=os.setsid)
    try:
        while len(kept) < args.count:
            while len(pending) < 2 * args.workers and not (
                    args.budget is not None and time.monotonic() - start > args.budget):
                c = canonical(seed)
                if c not in seen:
                    seen.add(c)
                    pending[seed] = pool.submit(_solve, seed, c, args.eq_time, args.br_time)
                seed += 1
            if not pending:
                complete = False
                break
            done = min(pending)  # in seed order: the set is the first N that teach, however many workers
            found = pending[done].result()
            del pending[done]
            scanned, next_seed = scanned + 1, done + 1
            if found is not None:
                kept.append(found)
                added += 1
    except KeyboardInterrupt:  # the deals after next_seed are dealt again by --resume
        complete, interrupted = False, True
    finally:
        pool.shutdown(wait=not interrupted, cancel_futures=True)
        if interrupted:  # the workers' solves in progress are abandoned
            for child in multiprocessing.active_children():
                child.terminate()
    cpu_seconds = time.process_time() - cpu + sum(_children_cpu())
    runs.append(PuzzleRunOut(command=command, commit=commit, first_seed=first,
                             next_seed=next_seed, scanned=scanned, kept=added,
                             cpu_seconds=round(cpu_seconds, 1)))
    ratings = elo_ratings([a.difficulty for *_, a in kept])
    puzzles = []
    for number, ((deal_seed, deal, mix, a), rating) in enumerate(zip(kept, ratings, strict=True), start=1):
        kind, arrangement, value = a.mistake
        puzzles.append(PuzzleEntryOut(
            number=number, seed=deal_seed, exposed=deal.format(), mix=[m.format(rules) for m in mix.arrangements],
            weights=list(mix.probabilities), best=a.best.format(rules), optimum=round(a.optimum, 6),
            proven=True, greedy=round(a.greedy, 6), near=a.near, themes=list(a.themes), rating=rating,
            mistake=PuzzleMistakeOut(kind=kind, arrangement=arrangement.format(rules), value=round(value, 6))))
    out = PuzzleSetOut(rules=rules.name, epsilon=PLAY_EPSILON, greedy_margin=GREEDY_MARGIN,
                       mistake_margin=MISTAKE_MARGIN, complete=complete, runs=runs, puzzles=puzzles)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    text = out.model_dump_json()
    part = args.out.with_name(args.out.name + ".part")
    part.write_text(text.replace('{"number"', '\n{"number"') + "\n", encoding="utf-8")
    part.replace(args.out)
    print(f"{len(puzzles)} puzzles ({added} new of {scanned} deals) in {cpu_seconds:.1f} CPU seconds -> {args.out}"
          + (f"; interrupted: --resume deals on from seed {next_seed}" if interrupted else ""), flush=True)
    return 130 if interrupted else 0


if __name__ == "__main__":
    raise SystemExit(run_cli("make_puzzles", main, None))
