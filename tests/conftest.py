"""Shared fixtures: every 5-card hand of the 32-card deck, built independently of quintet."""

from __future__ import annotations

import sys
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

N_HANDS = 201_376  # C(32, 5)


@pytest.fixture(scope="session")
def all_combos() -> list[tuple[int, ...]]:
    """Every 5-subset of card ints 0..31, in lexicographic order."""
    combos = list(combinations(range(32), 5))
    assert len(combos) == N_HANDS
    return combos


@pytest.fixture(scope="session")
def all_masks(all_combos) -> np.ndarray:
    """The masks of ``all_combos`` (bit ``card`` per card), uint32, same order."""
    arr = np.array(all_combos, dtype=np.int64)
    masks = np.bitwise_or.reduce(np.left_shift(np.int64(1), arr), axis=1)
    return masks.astype(np.uint32)
