"""Shared fixtures: every 5-card hand of the 32-card deck, built independently of quintet; Ctrl-C
at its default for the programs the tests start."""

from __future__ import annotations

import signal
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

N_HANDS = 201_376  # C(32, 5)


@pytest.fixture(scope="session", autouse=True)
def ctrl_c_as_from_a_terminal():
    """The programs the tests start (and Ctrl-C) get SIGINT as from a terminal, even when the
    suite itself was started with SIGINT ignored (in the background by a shell without job
    control): children inherit an ignored SIGINT, and a program rightly keeps ignoring it."""
    if signal.getsignal(signal.SIGINT) != signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)


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
