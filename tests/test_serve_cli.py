"""The ``quintet-serve`` command: starts, serves, stops cleanly on Ctrl-C (also inside tmux,
where Ctrl-C reaches the whole process group), and refuses bad options in one line.

How soon it stops is counted in the CPU seconds the server and its workers spend after Ctrl-C
(a worker that went on solving would spend them), with a generous bound on the wall clock,
which also counts how busy the machine is."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest
from serve_helpers import (
    EXAMPLE,
    ROOT,
    children,
    live_server,
    process_cpu_seconds,
    reaped_cpu_seconds,
    secret_of,
    wait_for_workers,
)

STOP_CPU_SECONDS = 2.0  # what the server and its workers may spend after Ctrl-C (12× the 0.16 s measured alone)
STOP_SECONDS = 10.0  # a hang cap on the wall clock (16× the 0.6 s measured alone): it counts the machine's load too


def stop_with_ctrl_c(proc: subprocess.Popen) -> tuple[str, float, float]:
    """SIGINT (Ctrl-C) to a live server: (its stderr, the CPU seconds it and its workers spent
    after the signal, the wall seconds until it exited).  The CPU is what the code controls
    (a worker that went on solving would spend it); the wall clock also counts the load."""
    before = process_cpu_seconds(proc.pid) + reaped_cpu_seconds()
    started = time.monotonic()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    return err, reaped_cpu_seconds() - before, time.monotonic() - started


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def wait_gone(pids: list[int], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while any(alive(p) for p in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


@pytest.mark.server
def test_serves_then_ctrl_c_stops_everything_even_during_a_solve(tmp_path):
    with live_server("--workers", "1", "--store", str(tmp_path / "s.sqlite")) as (url, proc):
        assert url.startswith("http://127.0.0.1:")  # loopback by default
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 1)
        workers = children(proc.pid)
        assert httpx.get(f"{url}/").status_code == 200
        job = httpx.post(f"{url}/api/solve", json={"exposed": EXAMPLE, "epsilon": 1e-9}).json()
        assert job["status"] in ("queued", "running")
        # a quick answer waits behind it (one worker): when the server stops, the wait ends with 503
        waiting: list[httpx.Response] = []
        asker = threading.Thread(target=lambda: waiting.append(httpx.post(
            f"{url}/api/solve", json={"exposed": EXAMPLE, "opponent": "uniform"}, timeout=30)))
        asker.start()
        time.sleep(1.0)
        err, cpu, wall = stop_with_ctrl_c(proc)
        assert cpu < STOP_CPU_SECONDS and wall < STOP_SECONDS, (cpu, wall)
        asker.join(10)
    assert proc.returncode == 0, err
    assert "Traceback" not in err and "ERROR" not in err, err
    assert waiting[0].status_code == 503 and waiting[0].json() == {"error": "the server is stopping"}
    assert err.strip().splitlines()[-1] == "quintet-serve: stopped"
    assert workers and wait_gone(workers)


def _follow(url: str, job: dict, events: list[dict]) -> None:
    """Read a job's event stream to its end (in a thread)."""
    with httpx.stream("GET", f"{url}/api/jobs/{job['job']}/events", headers=secret_of(job), timeout=30) as stream:
        for line in stream.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))


@pytest.mark.server
def test_ctrl_c_with_event_streams_open(tmp_path):
    """Each open stream gets a final event (its job, cancelled), the server stops at once (STOP_CPU_SECONDS),
    exit status 0, no traceback and no error from uvicorn."""
    with live_server("--workers", "2", "--store", str(tmp_path / "s.sqlite")) as (url, proc):
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 2)
        workers = children(proc.pid)
        hard = [{"exposed": EXAMPLE, "epsilon": 1e-9}, {"exposed": "Ac Kd Kc Qc Jh 8h 8d", "epsilon": 1e-9}]
        created = [httpx.post(f"{url}/api/solve", json=body).json() for body in hard]  # one runs, one waits
        jobs = [job["job"] for job in created]
        streams: dict[str, list[dict]] = {job: [] for job in jobs}
        threads = [threading.Thread(target=_follow, args=(url, job, streams[job["job"]])) for job in created]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + 60
        while not (streams[jobs[0]] and streams[jobs[0]][-1]["progress"]):  # the first is past an iteration
            assert time.monotonic() < deadline, streams
            time.sleep(0.1)
        assert streams[jobs[1]] and streams[jobs[1]][-1]["status"] == "queued"
        err, cpu, wall = stop_with_ctrl_c(proc)
        for thread in threads:
            thread.join(10)
    assert proc.returncode == 0, err
    assert cpu < STOP_CPU_SECONDS and wall < STOP_SECONDS, (cpu, wall, err)
    assert "Traceback" not in err and "ERROR" not in err and "timeout graceful shutdown" not in err, err
    assert err.strip().splitlines()[-1] == "quintet-serve: stopped"
    running, waiting = (streams[job][-1] for job in jobs)
    assert running["status"] == "cancelled" and running["result"]["interrupted"] is True, running
    assert waiting["status"] == "cancelled" and waiting["result"] is None, waiting
    assert len(workers) >= 2 and wait_gone(workers)  # the workers (and multiprocessing's resource tracker)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _cmdline(proc: Path) -> str:
    try:
        return (proc / "cmdline").read_text()
    except OSError:
        return ""


@pytest.mark.tmux
@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_ctrl_c_in_a_terminal_under_tmux(tmp_path):
    session = f"quintet-serve-test-{uuid.uuid4().hex[:8]}"
    port = _free_port()
    command = f"{sys.executable} -m solver.apps.serve.cli --port {port} --workers 1 --store {tmp_path / 's.sqlite'}"
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "200", "-y", "50", "-c", str(ROOT),
                    f"{command}; echo EXIT=$?; sleep 30"], check=True)

    def pane() -> str:
        return subprocess.run(["tmux", "capture-pane", "-p", "-t", session], capture_output=True, text=True).stdout

    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while f"127.0.0.1:{port}/" not in pane():
            assert time.monotonic() < deadline, pane()
            time.sleep(0.2)
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 1)
        server = [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()
                  and _cmdline(p).endswith(f"--port\0{port}\0--workers\0001\0--store\0{tmp_path / 's.sqlite'}\0")]
        assert len(server) == 1
        workers = children(server[0])
        subprocess.run(["tmux", "send-keys", "-t", session, "C-c"], check=True)
        deadline = time.monotonic() + 30
        while "EXIT=" not in pane():
            assert time.monotonic() < deadline, pane()
            time.sleep(0.2)
        text = pane()
        assert "EXIT=0" in text and "quintet-serve: stopped" in text and "Traceback" not in text, text
        assert "died" not in text, text  # the terminal's Ctrl-C reaches the workers too: they leave it to the server
        assert workers and wait_gone(workers)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], capture_output=True)


def run_serve(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "solver.apps.serve.cli", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=60, env=None if env is None else {**os.environ, **env})


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert lines[0].startswith("quintet-serve: error: ")
    return lines[0]


@pytest.mark.parametrize("args, words", [
    (["--workers", "0"], "--workers"),
    (["--port", "-1"], "--port"),
    (["--port", "http"], "--port"),
    (["--port", "65536"], "--port"),
    (["--port", "99999"], "--port"),
    (["--queue-size", "0"], "--queue-size"),
    (["--frobnicate"], "unrecognized arguments"),
    (["--host", "no-such-host.invalid"], "cannot resolve --host"),
])
@pytest.mark.subprocess
def test_bad_options_are_one_line_exit_2(args, words, tmp_path):
    # the default store's directory is tmp_path's: a refused start makes nothing there
    assert words in one_line_error(run_serve(*args, env={"XDG_CACHE_HOME": str(tmp_path)}))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.subprocess
def test_corrupt_store_is_refused_and_left_untouched(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database" * 100)
    before = bad.read_bytes()
    assert "not a SQLite database" in one_line_error(run_serve("--store", str(bad), "--port", "0"))
    assert bad.read_bytes() == before


@pytest.mark.subprocess
def test_port_in_use_is_one_line_exit_2(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        message = one_line_error(run_serve("--port", str(port), "--store", str(tmp_path / "s.sqlite")))
    assert re.search(rf"cannot listen on 127\.0\.0\.1:{port}", message)
