"""Deal sources of a batch: exposed masks from files, seeded random samples, the whole book,
and the store key (suit-canonical exposed mask) they are solved under."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from quintet.faults import InputError
from quintet.game import Deal
from quintet.rules import CLASSIC, Rules
from quintet.seeds import SEED_MAX, check_seed
from quintet.symmetry import (
    all_canonical_exposed,
    canonical_exposed,
    canonical_masks_array,
    count_canonical_deals,
    symmetry_group,
)
from solver.advisor.limits import LimitError

__all__ = ["DealFileError", "canonical_key", "canonical_keys", "random_deals", "book_sample", "all_deals",
           "read_deal_file"]


class DealFileError(InputError):
    """A line of a deals file that is not a deal (one line naming the file and the line)."""


def canonical_key(exposed: int, rules: Rules = CLASSIC) -> int:
    """The store key of a deal: its suit-canonical exposed mask."""
    return canonical_exposed(exposed, rules.deck, group=symmetry_group(rules))[0]


def canonical_keys(exposed: Sequence[int], rules: Rules = CLASSIC) -> tuple[list[int], int]:
    """The distinct canonical keys of ``exposed`` (masks) in first-seen order, and how many
    masks were suit-equivalent to an earlier one."""
    if rules.deck.mask_bits <= 64:
        canon = canonical_masks_array(np.array([int(m) for m in exposed], dtype=np.uint64), rules.deck,
                                      group=symmetry_group(rules))
        return _dedupe(int(k) for k in canon.tolist())
    return _dedupe(canonical_key(int(m), rules) for m in exposed)  # pragma: no cover - no such deck today


def _dedupe(keys: Iterable[int]) -> tuple[list[int], int]:
    seen: set[int] = set()
    out = []
    duplicates = 0
    for k in keys:
        if k in seen:
            duplicates += 1
        else:
            seen.add(k)
            out.append(k)
    return out, duplicates


def random_deals(n: int, seed: int, rules: Rules = CLASSIC) -> list[int]:
    """``n`` distinct canonical keys of random deals, as dealt: the deals of the seeds ``seed``,
    ``seed + 1``, … (``Deal.random``, the deal ``quintet-play --seed`` deals), skipping any whose
    class is already drawn, so the first key is that of ``Deal.random(seed)``."""
    check_seed(seed, "--seed")
    n_classes = count_canonical_deals(rules.deck, rules.n_exposed, group=symmetry_group(rules))
    if n > n_classes:
        raise LimitError(f"only {n_classes} canonical deals exist, cannot draw {n}")
    out: list[int] = []
    seen: set[int] = set()
    s = seed
    while len(out) < n:
        if s > SEED_MAX:
            raise LimitError(f"the seeds from {seed} to {SEED_MAX} hold only {len(out)} distinct deals; "
                             f"use a smaller --seed")
        key = canonical_key(Deal.random(s, rules).exposed, rules)
        s += 1
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def all_deals(rules: Rules = CLASSIC) -> list[int]:
    """Every suit-canonical deal (the book), in ascending mask order."""
    return [int(m) for m in all_canonical_exposed(rules.deck, rules.n_exposed, group=symmetry_group(rules))]


def book_sample(n: int, seed: int, rules: Rules = CLASSIC) -> list[int]:
    """``n`` canonical deals drawn uniformly from all classes (the book's jobs), seeded."""
    allc = all_canonical_exposed(rules.deck, rules.n_exposed, group=symmetry_group(rules))
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(allc), size=min(n, len(allc)), replace=False)
    return [int(allc[i]) for i in pick]


def read_deal_file(path: str | Path, rules: Rules = CLASSIC) -> list[int]:
    """Exposed masks from a file of lines of exposed cards (``-`` = stdin); blank lines and
    ``#`` comments are ignored.  A bad line raises ``DealFileError`` naming it."""
    text = sys.stdin.read() if str(path) == "-" else Path(path).read_text(encoding="utf-8")
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            out.append(Deal.from_exposed(line, rules).exposed)
        except ValueError as exc:
            raise DealFileError(f"{path}: line {number}: {exc}") from None
    return out
