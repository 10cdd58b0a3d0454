"""quintet-solve through its resident process (solver.apps.solve_daemon) against quintet-solve in a
process of its own: the same output, JSON, errors and exit status; a stale socket, a process started
from other code, another user's socket, concurrent commands, Ctrl-C and a client that dies.

Every test here starts real processes: the installed ``quintet-solve`` (the front door,
``solver.apps.solve_client``) and a resident process on a socket of the test's own
(``$QUINTET_SOCKET``), warmed up once for the module."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytestmark = pytest.mark.subprocess

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ["8h", "7h", "9d", "Ts", "7s", "Qc", "Jc"]
SCRIPT = Path(sys.executable).with_name("quintet-solve")
SLOW_DEAL = ["As", "Ks", "Qc", "Js", "Th", "8d", "7s"]  # an equilibrium of many seconds


def quintet_solve(args: list[str], env: dict[str, str], **kwargs) -> subprocess.CompletedProcess[str]:
    exe = str(SCRIPT) if SCRIPT.exists() else shutil.which("quintet-solve")
    assert exe is not None
    return subprocess.run([exe, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=600, **kwargs)


def normalized(text: str) -> str:
    """Output without the seconds that differ between two runs."""
    text = re.sub(r'"seconds": [0-9.e+-]+', '"seconds": S', text)
    text = re.sub(r"\d+\.\d+ s\b", "S s", text)
    return text


def daemon_log(sock: Path) -> str:
    log = Path(str(sock) + ".log")
    return log.read_text() if log.exists() else ""


def wait_for(condition, what: str, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("resident")
    path.chmod(0o700)
    return path


@pytest.fixture(scope="module")
def store(folder) -> Path:
    return folder / "store.sqlite"


@pytest.fixture(scope="module")
def resident(folder, store):
    """A resident process on the module's socket (started by ``quintet-solve --daemon``), its env."""
    sock = folder / "run" / "solve.sock"
    env = dict(os.environ, QUINTET_SOCKET=str(sock), QUINTET_STORE=str(store))
    started = quintet_solve(["--daemon"], env)
    assert started.returncode == 0, started.stderr
    assert "listens on" in started.stderr
    yield sock, env
    quintet_solve(["--stop-daemon"], env)


@pytest.fixture
def alone(folder, store) -> dict[str, str]:
    """The env of a quintet-solve that finds no resident process."""
    return dict(os.environ, QUINTET_SOCKET=str(folder / "none" / "solve.sock"), QUINTET_STORE=str(store))


def served(sock: Path) -> int:
    return len(re.findall(r"command \d+: pid", daemon_log(sock)))


COMMANDS = {
    "uniform": [*EXAMPLE, "--opponent", "uniform"],
    "uniform json": [*EXAMPLE, "--opponent", "uniform", "--json"],
    "grade": [*EXAMPLE, "--opponent", "uniform", "--grade",
              "Th Td Tc 7d 7c | Js Jh Jd 8s 8d | Qs Qh Qd 9h 9c | Ks Kh Kd Kc 8c | As Ah Ad Ac 9s", "--json"],
    "fix": [*EXAMPLE, "--opponent", "greedy", "--fix", "5=As Ah Ad Ac 9s"],
    "unicode": [*EXAMPLE, "--opponent", "uniform", "--unicode"],
    "equilibrium (stored after its first run)": [*EXAMPLE, "--epsilon", "0.05", "--quiet"],
    "bad card": [*EXAMPLE[:-1], "Xx"],
    "bad epsilon": [*EXAMPLE, "--epsilon", "-1"],
    "unknown option": [*EXAMPLE, "--frobnicate"],
    "help": ["--help"],
}


def test_the_front_door_loads_no_numba():
    """What makes a warm command quick: reaching the resident process costs the interpreter only."""
    probe = ("import sys, solver.apps.solve_client as c; c.build_key(); c.socket_path(); "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'numpy', 'ortools', 'quintet')))")
    ran = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "[]"


@pytest.mark.parametrize("name", list(COMMANDS))
def test_same_output_errors_and_status_as_a_process_of_its_own(name, resident, alone):
    sock, env = resident
    args = COMMANDS[name]
    if "stored" in name:
        quintet_solve(args, alone)  # solved and stored: both answers below come from the store
    before = served(sock)
    own = quintet_solve(args, alone)
    remote = quintet_solve(args, env)
    assert (remote.returncode, normalized(remote.stdout), remote.stderr) == (own.returncode, normalized(own.stdout),
                                                                            own.stderr)
    if name != "help":  # --help never needs the resident process
        assert served(sock) == before + 1, daemon_log(sock)
    if "json" in name:
        assert json.loads(remote.stdout)["optimal"] is True


def test_concurrent_commands_each_get_their_own_answer(resident, alone):
    sock, env = resident
    deals = [EXAMPLE, ["Kc", "Qh", "Qd", "Js", "9d", "8s", "7d"], ["Ah", "Kh", "Qh", "Jh", "Th", "9h", "8h"],
             ["As", "Ad", "Ks", "Kd", "7c", "8c", "9c"]]
    jobs = [[*deal, "--opponent", opponent, "--json"] for deal in deals for opponent in ("uniform", "greedy")]
    before = served(sock)
    with ThreadPoolExecutor(len(jobs)) as pool:
        remote = list(pool.map(lambda a: quintet_solve(a, env), jobs))
    for args, got in zip(jobs, remote, strict=True):
        own = quintet_solve(args, alone)
        assert got.returncode == 0, got.stderr
        assert normalized(got.stdout) == normalized(own.stdout)
    assert served(sock) == before + len(jobs)


def test_ctrl_c_stops_the_command_as_in_its_own_process(resident):
    sock, env = resident
    exe = str(SCRIPT) if SCRIPT.exists() else shutil.which("quintet-solve")
    proc = subprocess.Popen([exe, *SLOW_DEAL, "--no-store"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=ROOT)
    line = proc.stderr.readline()  # the first progress line: the command runs in the resident process
    assert "iteration 1" in line, line
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0
    assert "interrupted, returning the best found so far" in err
    assert "— interrupted" in out
    assert "Exploitability:" in out


def test_a_client_that_dies_takes_its_command_with_it(resident):
    sock, env = resident
    exe = str(SCRIPT) if SCRIPT.exists() else shutil.which("quintet-solve")
    proc = subprocess.Popen([exe, *SLOW_DEAL, "--no-store"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=ROOT)
    assert "iteration 1" in proc.stderr.readline()
    pid = int(re.findall(r"command \d+: pid (\d+)", daemon_log(sock))[-1])
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()

    def gone() -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_for(gone, "the command's process to end")


def test_a_stale_socket_is_solved_in_process_and_replaced_with_daemon(folder, store):
    sock = folder / "stale" / "solve.sock"
    sock.parent.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX)
    dead.bind(str(sock))  # a socket file nobody listens on: a resident process that was killed
    dead.close()
    env = dict(os.environ, QUINTET_SOCKET=str(sock), QUINTET_STORE=str(store))
    ran = quintet_solve([*EXAMPLE, "--opponent", "uniform", "--json"], env)
    assert ran.returncode == 0 and json.loads(ran.stdout)["optimal"] is True
    assert daemon_log(sock) == ""  # nothing started it
    again = quintet_solve([*EXAMPLE, "--opponent", "uniform", "--json", "--daemon"], env)
    try:
        assert again.returncode == 0, again.stderr
        assert normalized(again.stdout) == normalized(ran.stdout)
        assert served(sock) == 1
    finally:
        quintet_solve(["--stop-daemon"], env)


def test_a_resident_process_from_other_code_is_not_used_and_daemon_replaces_it(folder, store, tmp_path):
    old = tmp_path / "old"
    for package in ("quintet", "solver"):
        shutil.copytree(ROOT / package, old / package, ignore=shutil.ignore_patterns("__pycache__"))
    with open(old / "solver" / "apps" / "solve_cli.py", "a") as f:
        f.write("\n# another commit\n")
    sock = folder / "older" / "solve.sock"
    sock.parent.mkdir(mode=0o700)
    env = dict(os.environ, QUINTET_SOCKET=str(sock), QUINTET_STORE=str(store))
    log = open(str(sock) + ".log", "ab")
    older = subprocess.Popen([sys.executable, "-m", "solver.apps.solve_daemon", "--socket", str(sock), "--no-warm-up"],
                             env=dict(env, PYTHONPATH=str(old)), cwd=old, stdout=log, stderr=log,
                             start_new_session=True)
    try:
        wait_for(lambda: "listening on" in daemon_log(sock), "the older resident process")
        ran = quintet_solve([*EXAMPLE, "--opponent", "uniform", "--json"], env)
        assert ran.returncode == 0 and json.loads(ran.stdout)["optimal"] is True
        assert "refused a command from other code" in daemon_log(sock)
        assert served(sock) == 0
        again = quintet_solve([*EXAMPLE, "--opponent", "uniform", "--json", "--daemon"], env)
        assert again.returncode == 0, again.stderr
        assert normalized(again.stdout) == normalized(ran.stdout)
        older.wait(timeout=60)  # asked to stop by --daemon
        assert served(sock) == 1  # the new one served it
    finally:
        quintet_solve(["--stop-daemon"], env)
        if older.poll() is None:
            older.kill()
        older.wait()
        log.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a socket to another user")
def test_another_users_socket_or_request_is_refused(store):
    system_python = shutil.which("python3", path="/usr/bin:/bin")  # one another user may run
    if system_python is None:
        pytest.skip("no system python3 for another user")
    import tempfile
    top = Path(tempfile.mkdtemp(prefix="quintet-other-", dir="/tmp"))
    top.chmod(0o711)  # another user may pass through to the socket's folder
    sock = top / "run" / "solve.sock"
    sock.parent.mkdir(mode=0o700)
    env = dict(os.environ, QUINTET_SOCKET=str(sock), QUINTET_STORE=str(store))
    log = open(str(sock) + ".log", "ab")
    daemon = subprocess.Popen([sys.executable, "-m", "solver.apps.solve_daemon", "--socket", str(sock), "--no-warm-up"],
                              env=env, cwd=ROOT, stdout=log, stderr=log, start_new_session=True)
    nobody = 65534
    try:
        wait_for(lambda: "listening on" in daemon_log(sock), "the resident process")
        # a request from another user: the folder and socket opened to it, the process itself refuses
        sock.parent.chmod(0o711)
        sock.chmod(0o666)
        # (it answers as soon as it accepts the connection, before reading anything)
        probe = ("import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); "
                 "print(s.recv(4096).decode())")
        other = subprocess.run([system_python, "-c", probe, str(sock)], capture_output=True, text=True, timeout=60,
                               user=nobody, cwd="/")
        assert "another user's request: refused" in other.stdout, other.stderr
        sock.parent.chmod(0o700)
        # this user's client with the socket folder given to another user: not used, solved in-process
        os.chown(sock.parent, nobody, -1)
        ran = quintet_solve([*EXAMPLE, "--opponent", "uniform", "--json"], env)
        assert ran.returncode == 0 and json.loads(ran.stdout)["optimal"] is True
        assert served(sock) == 0
        refused = quintet_solve([*EXAMPLE, "--opponent", "uniform", "--daemon"], env)
        assert refused.returncode == 2
        assert f"belongs to user {nobody}, not to you: refused" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
    finally:
        os.chown(sock.parent, os.getuid(), -1)
        daemon.terminate()
        daemon.wait(timeout=60)
        log.close()
        shutil.rmtree(top)


@pytest.mark.server
def test_quintet_serve_daemon_serves_quintet_solve(folder, store, tmp_path):
    sock = folder / "serve" / "solve.sock"
    env = dict(os.environ, QUINTET_SOCKET=str(sock), QUINTET_STORE=str(store))
    serve = shutil.which("quintet-serve") or str(Path(sys.executable).with_name("quintet-serve"))
    server = subprocess.Popen([serve, "--port", "0", "--daemon", "--store", str(store), "--tables",
                               str(tmp_path / "tables.sqlite")], env=env, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while not any("resident process listens" in line for line in lines):
            line = server.stderr.readline()
            assert line, "".join(lines)
            lines.append(line)
        ran = quintet_solve([*EXAMPLE, "--opponent", "uniform", "--json"], env)
        assert ran.returncode == 0 and json.loads(ran.stdout)["optimal"] is True
        assert served(sock) == 1
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=120)
    wait_for(lambda: not sock.exists(), "the resident process to stop with the server")
