"""Shared fixtures: every 5-card hand of the 32-card deck, built independently of quintet; Ctrl-C
at its default for the programs the tests start.  The tiers (the ``fast`` marker on every test
that needs nothing else, ``tiers.require``) and the Hypothesis profiles."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

TESTS_DIR = Path(__file__).resolve().parent
if str(TESTS_DIR) not in sys.path:
    sys.path.insert(0, str(TESTS_DIR))

import tiers  # noqa: E402 — tests/ is on the path from here on

N_HANDS = 201_376  # C(32, 5)

# Hypothesis: no deadline anywhere (a deadline is a speed assertion; pytest-timeout guards hangs).
# "ci" (the default when $CI is set) is derandomized and keeps no database: a run's examples are
# a function of the commit, so a red CI reproduces exactly with HYPOTHESIS_PROFILE=ci.  "dev"
# (the default otherwise) draws new examples every run and replays a failure it found from the
# local database (.hypothesis/) first.  The counts are each test's own (@settings).
settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.hookimpl(tryfirst=True)  # before -m deselects: "pytest -m fast" sees the marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if not any(item.get_closest_marker(name) for name in (*tiers.NEEDS, *tiers.TIERS)):
            item.add_marker(pytest.mark.fast)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Iterator[None]:
    tiers.current = item
    try:
        return (yield)
    finally:
        tiers.current = None


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


@pytest.fixture(scope="session", autouse=True)
def games_keep_their_records_here(tmp_path_factory):
    """The games record every finished game in the user data directory by default
    (``quintet-play``, ``quintet poker``): during the tests that is a directory of the session's
    own (``XDG_DATA_HOME``, inherited by the programs the tests start), never the user's."""
    previous = os.environ.get("XDG_DATA_HOME")
    os.environ["XDG_DATA_HOME"] = str(tmp_path_factory.mktemp("data-home"))
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop("XDG_DATA_HOME", None)
        else:
            os.environ["XDG_DATA_HOME"] = previous


@pytest.fixture(scope="session", autouse=True)
def no_resident_process(tmp_path_factory):
    """quintet-solve started by a test never finds a resident process of the user's
    (``solver.apps.solve_client``): its socket is a path of the session's, where none listens
    unless a test starts one."""
    previous = os.environ.get("QUINTET_SOCKET")
    os.environ["QUINTET_SOCKET"] = str(tmp_path_factory.mktemp("no-resident") / "solve.sock")
    yield
    if previous is None:
        os.environ.pop("QUINTET_SOCKET", None)
    else:
        os.environ["QUINTET_SOCKET"] = previous


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


QUICK = "Kc Qh Qd Js 9d 8s 7d"
"""The quick deal: its exact equilibrium takes about a second, CP-SAT's recheck of it far longer."""


@pytest.fixture(scope="session")
def quick_exact_equilibrium():
    """QUICK's exact equilibrium (ε 0), solved once per session: the modules that recheck,
    thin or stop a solve of it (test_verify, test_sparse, test_stop) share it."""
    from quintet.game import Deal
    from solver.advisor.equilibrium import equilibrium

    eq = equilibrium(Deal.from_exposed(QUICK), epsilon=0.0, time_limit=300)
    assert eq.converged and eq.proven
    return eq
