"""The ``quintet-batch`` command (see the package doc and ``quintet-batch --help``)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from quintet.cliutil import (
    OneLineParser,
    UsageError,
    add_rules_arguments,
    int_at_least,
    integer,
    number,
    print_json,
    rules_from_args,
    run_cli,
)
from quintet.game import Deal
from quintet.seeds import SEED_MAX, check_seed
from solver.advisor.limits import BATCH_EPSILON, BATCH_TIME_LIMIT, check_epsilon, check_time_limit
from solver.apps.batch.book import book_estimate
from solver.apps.batch.deals import all_deals, random_deals, read_deal_file
from solver.apps.batch.executors import EXECUTORS, default_workers
from solver.apps.batch.run import run_batch
from solver.storage.store import SolutionStore

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="quintet-batch",
                      description="Solve many Quintet deals into the store (resumable; local processes or Dask).")
    p.add_argument("deals", nargs="*", metavar="EXPOSED",
                   help='deals, each its exposed cards as one argument ("8h 7h 9d Ts 7s Qc Jc": 7 in Quintet)')
    src = p.add_argument_group("more deals")
    src.add_argument("--file", metavar="PATH", action="append", default=[],
                     help="a file of deals, one line of exposed cards each ('-' = stdin; # comments)")
    src.add_argument("--random", type=int_at_least(1), metavar="N",
                     help="N distinct random deals, as dealt (see --seed)")
    src.add_argument("--seed", type=integer, default=0,
                     help=f"seed, 0..{SEED_MAX}, of --random (the deals of the seeds SEED, SEED+1, …, as "
                          "quintet-play --seed deals them) and of --book-size's sample (default 0)")
    src.add_argument("--all", action="store_true", help="every suit-canonical deal, in ascending mask order")
    src.add_argument("--limit", type=int_at_least(1), metavar="N", help="only the first N deals of the list")
    p.add_argument("--epsilon", type=number, default=BATCH_EPSILON, metavar="POINTS",
                   help=f"certify each deal to this exploitability (default {BATCH_EPSILON:g})")
    p.add_argument("--time-limit", type=number, default=BATCH_TIME_LIMIT, metavar="SECONDS",
                   help=f"per deal (default {BATCH_TIME_LIMIT:g}); a deal that runs out stores its best "
                        "certified mix and is retried by the next run")
    p.add_argument("--store", metavar="PATH", default=None,
                   help="the store (default: $QUINTET_STORE or the user cache directory)")
    p.add_argument("--executor", choices=EXECUTORS, default=None,
                   help="local process pool (default) or a Dask distributed cluster")
    p.add_argument("--workers", type=int_at_least(1), default=None, metavar="N",
                   help=f"worker processes (default: the usable CPUs, here {default_workers()})")
    p.add_argument("--scheduler", metavar="ADDRESS", help="Dask scheduler address (default: a new LocalCluster)")
    p.add_argument("--book-size", action="store_true",
                   help="print the number of suit-canonical deals and estimate the CPU-hours of the whole book")
    p.add_argument("--sample", type=int_at_least(0), default=10, metavar="N",
                   help="--book-size: canonical deals to time (default 10; 0 = only count)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    add_rules_arguments(p)
    return p


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    args.epsilon, args.time_limit = check_epsilon(args.epsilon), check_time_limit(args.time_limit)
    args.executor = args.executor or "local"
    check_seed(args.seed, "--seed")
    rules = rules_from_args(args)
    workers = args.workers or default_workers()
    if args.scheduler and args.executor != "dask":
        raise UsageError("--scheduler needs --executor dask")
    if args.book_size:
        if args.deals or args.file or args.random or args.all:
            raise UsageError("--book-size takes no deals (it draws --sample of them)")
        est = book_estimate(args.sample, seed=args.seed, rules=rules, epsilon=args.epsilon,
                            time_limit=args.time_limit, workers=workers, executor=args.executor,
                            scheduler=args.scheduler, progress=not args.no_progress)
        if args.json:
            print_json(est.to_model())
        else:
            print(est.format())
        return 0
    exposed: list[int] = [Deal.from_exposed(text, rules).exposed for text in args.deals]
    for path in args.file:
        exposed += read_deal_file(path, rules)
    if args.random:
        exposed += random_deals(args.random, args.seed, rules)
    if args.all:
        exposed += all_deals(rules)
    if not exposed:
        raise UsageError("no deals: give EXPOSED arguments, --file, --random N or --all (or --book-size)")
    if args.limit:
        exposed = exposed[: args.limit]
    with SolutionStore(args.store) as store:
        summary = run_batch(exposed, rules=rules, store=store, epsilon=args.epsilon, time_limit=args.time_limit,
                            workers=workers, executor=args.executor, scheduler=args.scheduler,
                            progress=not args.no_progress)
    if args.json:
        print_json(summary.to_model())
    else:
        print(summary.format())
        for line in summary.errors[:20]:
            print(f"  failed: {line}")
    if summary.interrupted:
        return 130
    return 1 if summary.failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    return run_cli("quintet-batch", _main, argv)
