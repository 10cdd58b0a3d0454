"""``python -m quintet.draw.cfr``: train the heads-up strategy of a rule set and write its file.

    python -m quintet.draw.cfr [--rules NAME] [--iterations N] [--ship | --out FILE]

Under the default terms (``quintet poker``'s).  Without ``--out`` the file goes where
``strategy_for`` looks for it (the user's store, ``quintet.draw.cfr.strategy.store_dir``);
``--ship`` writes it into the package (``quintet/draw/cfr/data``), which is how the shipped file
of ``draw36-joker-11`` was made.  Prints the header: the iterations, CPU seconds and the
exploitability in the abstract game.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ...cliutil import needs_extra
from ...rules import RULE_SETS, get_rules
from ..game import Terms
from .strategy import ITERATIONS, store_dir, strategy_key, train


def main(argv: list[str] | None = None) -> int:
    with needs_extra("python -m quintet.draw.cfr", "play"):
        from tqdm import tqdm
    parser = argparse.ArgumentParser(prog="python -m quintet.draw.cfr", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="draw36-joker-11",
                        choices=sorted(n for n, r in RULE_SETS.items() if r.is_variant))
    parser.add_argument("--iterations", type=int, default=ITERATIONS)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--ship", action="store_true", help="write into the package's data directory")
    where.add_argument("--out", type=Path, help="write this file")
    args = parser.parse_args(argv)
    if args.iterations < 1:
        parser.error(f"--iterations must be at least 1, got {args.iterations}")
    rules, terms = get_rules(args.rules), Terms()
    name = f"{strategy_key(rules, terms)}.npz"
    path = args.out or (Path(__file__).parent / "data" / name if args.ship else store_dir() / name)
    with tqdm(total=args.iterations, desc="CFR+ iterations", unit="it", file=sys.stderr) as bar:
        strategy = train(rules, terms, iterations=args.iterations, progress=lambda done, total: bar.update(1))
    strategy.save(path)
    print(json.dumps(strategy.info, indent=1))
    print(f"wrote {path} ({path.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
