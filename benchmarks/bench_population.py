"""Population benchmark: deals as dealt vs suit classes drawn uniformly — exact, no solving.

    python benchmarks/bench_population.py                 # exact over the whole book + 20,000 dealt deals
    python benchmarks/bench_population.py --dealt 2000 --no-write

Two samples appear in this project's results:

* **as dealt** — ``Deal.random(seed)`` (quintet-play, the tournament, ``random_deals``): a
  uniformly random 7-card exposed set, so a suit class has probability ∝ its *orbit size*
  (the number of distinct suit relabellings, 24 / |stabilizer|);
* **classes uniformly** — ``book_sample`` (``bench_equilibrium``, the book estimate): every
  one of the 156,248 suit-canonical classes equally likely — right for the book's cost (one
  solve per class), not for "what a player meets".

This script counts, exactly over all 156,248 classes, the share of each orbit size under
both populations (and the over-weighting factor class-uniform / as dealt), checks that the
orbits add up to C(32, 7), and draws ``--dealt`` deals with ``Deal.random`` to show the
sampler matches the exact "as dealt" shares (Wilson intervals).  Writes the ``population``
section of RESULTS.md, ``benchmarks/data/population.json`` and ``benchmarks/population_orbits.png``.
"""

from __future__ import annotations

import sys
from collections import Counter
from math import comb
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from analysis_common import Run, save_data, savefig, wilson  # noqa: E402
from benchmark_results import write_section  # noqa: E402

from quintet.cards import CLASSIC_DECK  # noqa: E402
from quintet.cliutil import OneLineParser, positive_int, seed_int  # noqa: E402
from quintet.game import Deal  # noqa: E402
from quintet.symmetry import all_canonical_exposed, canonical_mask, suit_permutations  # noqa: E402


def orbit_sizes(masks: np.ndarray) -> np.ndarray:
    """24 / |stabilizer| of each mask (vectorized over the 24 suit permutations)."""
    field = CLASSIC_DECK.field
    fmask = np.uint64((1 << field) - 1)
    arr = masks.astype(np.uint64)
    fields = [(arr >> np.uint64(field * s)) & fmask for s in range(4)]
    fixed = np.zeros(arr.shape, dtype=np.int64)
    for perm in suit_permutations():
        image = np.zeros_like(arr)
        for s in range(4):
            image |= fields[s] << np.uint64(field * perm[s])
        fixed += image == arr
    return 24 // fixed


def main() -> None:
    ap = OneLineParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dealt", type=positive_int, default=20000,
                    help="deals drawn with Deal.random to check (default 20000)")
    ap.add_argument("--seed", type=seed_int, default=2026, help="first seed of the dealt deals")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    run = Run()
    masks = all_canonical_exposed()
    orbits = orbit_sizes(masks)
    total = int(orbits.sum())
    assert total == comb(32, 7), (total, comb(32, 7))
    sizes = sorted(set(orbits.tolist()))
    by_class = {s: int((orbits == s).sum()) for s in sizes}
    dealt_share = {s: by_class[s] * s / total for s in sizes}
    class_share = {s: by_class[s] / len(masks) for s in sizes}
    # how the sampler deals: orbit of each dealt deal's class
    canon_orbit = dict(zip(masks.tolist(), orbits.tolist(), strict=True))
    drawn = Counter(canon_orbit[canonical_mask(Deal.random(args.seed + i).exposed)] for i in range(args.dealt))
    mean_orbit_dealt = sum(s * dealt_share[s] for s in sizes)
    lines = [run.line(), "",
             f"Exact over all {len(masks):,} suit classes (orbits add up to C(32, 7) = {total:,}: checked). "
             "*As dealt* = `Deal.random` (a uniformly random exposed set: a class weighs its orbit size); "
             "*classes uniformly* = `book_sample` (each class once: the book's cost). "
             f"Check column: {args.dealt:,} deals of seeds {args.seed}… drawn with `Deal.random` "
             "(95% Wilson intervals).",
             "",
             "| orbit size (24 / stabilizer) | classes | share of classes (class-uniform) | share as dealt (exact) | "
             f"`Deal.random` sample of {args.dealt:,} | over-weighting (class-uniform / as dealt) |",
             "|---:|---:|---:|---:|---:|---:|"]
    for s in sizes:
        k = drawn.get(s, 0)
        lo, hi = wilson(k, args.dealt)
        lines.append(f"| {s} | {by_class[s]:,} | {100 * class_share[s]:.2f}% | {100 * dealt_share[s]:.2f}% | "
                     f"{100 * k / args.dealt:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}] | "
                     f"{class_share[s] / dealt_share[s]:.2f}× |")
    sym = [s for s in sizes if s < 24]
    lines += ["",
              f"Suit-symmetric classes (orbit < 24): {100 * sum(class_share[s] for s in sym):.1f}% of a class-uniform "
              f"sample but {100 * sum(dealt_share[s] for s in sym):.1f}% of dealt deals. A class-uniform sample "
              f"over-weights orbit-12 deals {class_share[12] / dealt_share[12]:.2f}× and under-weights the "
              f"asymmetric (orbit-24) ones {class_share[24] / dealt_share[24]:.2f}×. Mean orbit size: "
              f"{len(masks) and total / len(masks):.2f} over classes, {mean_orbit_dealt:.2f} as dealt.",
              "",
              "Which results use which population: the tournament, `bench_heuristics`, `bench_convergence`, "
              "`bench_uniqueness`, `bench_style_robustness` and `bench_safe` deal *as dealt* (`Deal.random`); "
              "`bench_equilibrium` and the book estimate of `bench_batch` draw *classes uniformly* (the cost of "
              "the book, one solve per class). To turn a dealt sample into a class-uniform estimate, weight each "
              "deal by 1 / orbit size, and the reverse (both are shown in the Heuristics section).",
              "", "![orbit sizes](population_orbits.png)"]
    report = "\n".join(lines)
    print(report)
    if args.no_write:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4))
    x = np.arange(len(sizes))
    ax.bar(x - 0.2, [100 * class_share[s] for s in sizes], 0.4, label="classes uniformly (book_sample)")
    ax.bar(x + 0.2, [100 * dealt_share[s] for s in sizes], 0.4, label="as dealt (exact)")
    err = np.array([[100 * (drawn.get(s, 0) / args.dealt - wilson(drawn.get(s, 0), args.dealt)[0]),
                     100 * (wilson(drawn.get(s, 0), args.dealt)[1] - drawn.get(s, 0) / args.dealt)] for s in sizes]).T
    ax.errorbar(x + 0.2, [100 * drawn.get(s, 0) / args.dealt for s in sizes], yerr=err, fmt="k.", capsize=3,
                label=f"Deal.random sample, n = {args.dealt:,} (95% Wilson)")
    ax.set_xticks(x, [str(s) for s in sizes])
    ax.set_yscale("log")
    ax.set_xlabel("orbit size of the deal's suit class (24 / |stabilizer|)")
    ax.set_ylabel("share of deals (%, log scale)")
    ax.set_title(f"Two populations of deals: exact over all {len(masks):,} classes (sample seed {args.seed})")
    ax.legend(fontsize=8)
    fig.tight_layout()
    savefig(fig, "population_orbits.png")
    save_data("population", run, {
        "classes": len(masks), "exposed_sets": total,
        "orbit_sizes": sizes, "classes_by_orbit": by_class, "class_share": class_share, "dealt_share": dealt_share,
        "dealt_sample": {"n": args.dealt, "seed": args.seed, "counts": dict(drawn)},
    })
    write_section("population", "Populations: deals as dealt vs classes uniformly", report)


if __name__ == "__main__":
    main()
