"""Shared helpers of the quintet-serve tests: the command lines' JSON in-process, a live
server in a subprocess, waiting for workers."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import tiers
from deals import EXAMPLE  # noqa: F401 — the serve tests take it from here

ROOT = Path(__file__).resolve().parent.parent
# a legal arrangement of the example deal (value below the optimum: it has a best swap)
ARR_A = "9s 9c 8s 8c 7c | Ks Kd Kc Js Tc | Qd Jd Td 8d 7d | As Ah Ad Ac Qs | Kh Qh Jh Th 9h"
# an illegal one: 8c appears twice (and 9c nowhere)
ARR_ILLEGAL = "As Ac Ah 8d 8c | Ks Qs Js 9s 8s | Kh Qh Jh Th 9h | Ad Kd Qd Jd Td | 7d 7c Kc Tc 8c"
# the per-client limits off: a test's one client plays for many (quintet-serve's options)
NO_LIMITS = ("--tables-per-minute", "0", "--moves-per-minute", "0", "--solves-per-minute", "0", "--mixes-per-minute",
             "0", "--checks-per-minute", "0", "--jobs-per-client", "0", "--connections-per-client", "0")
# deals whose equilibrium converges to ε 0.05 within a few seconds (found by trying)
QUICK_DEALS = ("As Ts 9h 9c 8s 7s 7d", "Ac Kh Kd Kc Qd Ts 7s")


def without_seconds(obj: Any) -> Any:
    """``obj`` with every "seconds" field removed (timings differ between two runs)."""
    if isinstance(obj, dict):
        return {k: without_seconds(v) for k, v in obj.items() if k != "seconds"}
    if isinstance(obj, list):
        return [without_seconds(v) for v in obj]
    return obj


def cli_output(main: Callable[[Sequence[str]], int], argv: Sequence[str], capsys: Any) -> tuple[int, str, str]:
    """Run a command line's ``main`` in this process: (exit status, stdout, stderr)."""
    capsys.readouterr()
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def cli_json(main: Callable[[Sequence[str]], int], argv: Sequence[str], capsys: Any) -> Any:
    status, out, err = cli_output(main, [*argv, "--json"], capsys)
    assert status == 0, err
    return json.loads(out)


def cli_error(main: Callable[[Sequence[str]], int], argv: Sequence[str], capsys: Any) -> str:
    """The one-line message a command line prints for bad input (without 'prog: error: ')."""
    status, out, err = cli_output(main, argv, capsys)
    assert status == 2 and out == "", (status, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0].split(": error: ", 1)[1]


def secret_of(job: dict) -> dict[str, str]:
    """The headers of a call about ``job`` (its 202 answer): its secret."""
    return {"Authorization": f"Bearer {job['secret']}"}


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (a live server's workers: the API does not show them)."""
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        out += [int(c) for c in (task / "children").read_text().split()]
    return out


def wait_for_workers(get_health: Callable[[], dict], n: int, timeout: float = 120.0) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        health = get_health()
        if health["workers_ready"] >= n:
            return health
        if time.monotonic() > deadline:
            raise TimeoutError(f"workers not ready after {timeout} s: {health}")
        time.sleep(0.2)


def _processes() -> Iterator[tuple[int, int, float, float]]:
    """(pid, ppid, own CPU seconds, CPU seconds of the children it waited for) of every process, from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:  # gone meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()  # from field 3 (state) on: ppid, …, utime (14) … cstime (17)
        yield (int(entry.name), int(fields[1]), (int(fields[11]) + int(fields[12])) / tick,
               (int(fields[13]) + int(fields[14])) / tick)


def children_cpu_seconds() -> float:
    """CPU seconds (user + system) spent so far by this process's living child processes — an
    in-process server's worker processes — read from /proc.  What a worker does after a cancel is
    counted in these, whatever else the machine is busy with (a wall clock would count the load)."""
    me = os.getpid()
    return sum(own for _, ppid, own, _ in _processes() if ppid == me)


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds so far of process ``pid`` (a live server), its living children (its workers)
    and every child either has waited for."""
    return sum(own + waited for p, ppid, own, waited in _processes() if pid in (p, ppid))


def reaped_cpu_seconds() -> float:
    """CPU seconds of the child processes this process has waited for (and of theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


@contextlib.contextmanager
def live_server(*args: str, timeout: float = 60.0,
                program: Sequence[str] = ("-m", "solver.apps.serve.cli")) -> Iterator[tuple[str, subprocess.Popen]]:
    """``quintet-serve --port 0 ARGS`` in a subprocess (``program``: Python's arguments that run it):
    yields (base URL, process); stopped with SIGINT (Ctrl-C) at the end, killed if it does not stop
    within 20 s.  The test needs the ``server`` marker."""
    tiers.require("server")
    proc = subprocess.Popen([sys.executable, *program, "--port", "0", *args], cwd=ROOT,
                            stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline()
        match = re.search(r"(http://\S+)/ ", line)
        assert match, f"no URL in the first line: {line!r}"
        yield match.group(1), proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@contextlib.contextmanager
def one_worker_server(store: Path) -> Iterator[str]:
    """A live quintet-serve with one worker (a quicker start), no per-client limits and its store at
    ``store``: its base URL, once the worker is up."""
    with live_server("--workers", "1", *NO_LIMITS, "--store", str(store)) as (url, _):
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 1)
        yield url
