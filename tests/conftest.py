"""Shared fixtures: every 5-card hand of the 32-card deck, built independently of quintet; Ctrl-C
at its default for the programs the tests start.  The tiers (the ``fast`` marker on every test
that needs nothing else, ``tiers.require``), the Hypothesis profiles, and the run on ``WORKERS``
processes (pytest-xdist, a file per process at a time)."""

from __future__ import annotations

import os
import signal
import sys
from collections import Counter
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
from deals import QUICK  # noqa: E402

N_HANDS = 201_376  # C(32, 5)

# Hypothesis: no deadline anywhere (a deadline is a speed assertion; pytest-timeout guards hangs).
# "ci" (the default when $CI is set) is derandomized and keeps no database: a run's examples are
# a function of the commit, so a red CI reproduces exactly with HYPOTHESIS_PROFILE=ci.  "dev"
# (the default otherwise) draws new examples every run and replays a failure it found from the
# local database (.hypothesis/) first.  The counts are each test's own (@settings).
settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


WORKERS = 3  # on CI's two cores: the tests wait on servers, browsers and programs a third of the time


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads its options
def pytest_cmdline_main(config: pytest.Config) -> None:
    """``WORKERS`` processes unless told otherwise (``-n N``; ``-n 0`` or ``-p no:xdist``: this process
    alone), each running whole files (``--dist loadfile``: a module's fixtures are made once).
    A run of one file (or of tests in one file) stays in this process: a file is never split."""
    if not config.pluginmanager.has_plugin("xdist") or hasattr(config, "workerinput"):
        return
    option = config.option
    if option.numprocesses is None and not (option.usepdb or option.trace or option.collectonly):
        files = {arg.split("::")[0] for arg in config.args}
        if len(files) > 1 or not all(Path(f).is_file() for f in files):
            option.numprocesses = WORKERS
    if option.numprocesses and option.dist == "no":
        option.dist = "loadfile"
        option.loadscopereorder = False  # the costliest files first (pytest_collection_modifyitems below)


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> Iterator[None]:
    """Marks ``fast`` every test with none of ``tiers.NOT_FAST`` (before -m deselects: "pytest -m
    fast" sees the marker).  Then, on several processes, orders the files that will run costliest
    first, so that no long file starts last while the other process has nothing left (a file's
    cost: its tests, each counted by ``tiers.COST``); in one process the order stays as found."""
    for item in items:
        if not any(item.get_closest_marker(name) for name in tiers.NOT_FAST):
            item.add_marker(pytest.mark.fast)
    yield  # -m and -k deselect here
    twice = [nodeid for nodeid, n in Counter(item.nodeid for item in items).items() if n > 1]
    if twice:  # pytest-xdist would run one of them and count the rest as run
        raise pytest.UsageError(f"{len(twice)} node ids name more than one test, e.g. {twice[0]}")
    if hasattr(config, "workerinput"):
        cost: Counter[str] = Counter()
        for item in items:
            cost[item.nodeid.split("::")[0]] += max((tiers.COST.get(m.name, 1) for m in item.iter_markers()), default=1)
        items.sort(key=lambda item: -cost[item.nodeid.split("::")[0]])  # stable: a file's tests keep their order


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
def worker_pools_need_the_server_marker():
    """A server's worker processes (``WorkerPool.start``: an in-process application whose
    lifespan runs, as under ``TestClient``) are a server's cost: the test needs the ``server``
    marker, like one that starts a live quintet-serve."""
    from solver.apps.serve.jobs import WorkerPool

    start = WorkerPool.start

    def start_with_its_marker(pool: WorkerPool) -> None:
        tiers.require("server")
        start(pool)

    WorkerPool.start = start_with_its_marker  # type: ignore[method-assign]
    yield
    WorkerPool.start = start  # type: ignore[method-assign]


@pytest.fixture(scope="session", autouse=True)
def no_user_cache(tmp_path_factory):
    """The programs and servers the tests start never read or write the user's cache: the store
    and its tables file (``$QUINTET_STORE``), the games' line histories and anything else under
    ``$XDG_CACHE_HOME/quintet`` are paths of the session's (one per process), so what another
    checkout's program left in the user's cache changes nothing."""
    names = ("QUINTET_STORE", "XDG_CACHE_HOME")
    previous = {name: os.environ.get(name) for name in names}
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache-home"))
    os.environ["QUINTET_STORE"] = str(tmp_path_factory.mktemp("no-user-store") / "solutions.sqlite")
    yield
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


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


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium, one a test module (tests/browser_helpers.py)."""
    from browser_helpers import chromium

    with chromium() as b:
        yield b


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


@pytest.fixture(scope="session")
def quick_exact_equilibrium():
    """QUICK's exact equilibrium (ε 0), solved once per session: the modules that recheck,
    thin or stop a solve of it (test_verify, test_sparse, test_stop) share it."""
    from quintet.game import Deal
    from solver.advisor.equilibrium import equilibrium

    eq = equilibrium(Deal.from_exposed(QUICK), epsilon=0.0, time_limit=None)  # proven: no limit (pytest-timeout)
    assert eq.converged and eq.proven
    return eq
