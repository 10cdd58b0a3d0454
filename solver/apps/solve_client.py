"""``quintet-solve``'s front door: the answer of a resident process when one is running, else this one's.

A warm command spends most of its second importing numba and loading cached kernels; a resident
process (``solver.apps.solve_daemon``, started by ``quintet-solve --daemon`` or by ``quintet-serve``)
has them loaded.  This module imports nothing but the standard library, so that reaching it costs
the interpreter's start only.  It connects to the per-user UNIX socket (``socket_path``: never a
network port), hands over its command line, working directory, environment and its standard
streams themselves (file descriptors, ``SCM_RIGHTS``), and the resident process forks a child that
runs ``solver.apps.solve_cli.main`` on them: the same code, so the same answers, JSON, errors and
exit status, written straight to this process's terminal, file or pipe.  Ctrl-C (and SIGTERM,
SIGHUP) is passed on to that child, which stops as a process of its own would.

The resident process is used only when it is safe and current: the socket's folder and the
socket must belong to this user (folder mode 0700), and the process must have been started from
the same code (``build_key``: the project's source files, the interpreter, numba's settings); the
resident process checks the peer's user id itself.  Otherwise — none running, a stale socket, a
process started from another commit, another user's socket — the command runs in this process,
as it always did.  With ``--daemon`` a resident process is started when none is usable (one from
another commit is asked to stop first); ``--stop-daemon`` stops it.
"""

from __future__ import annotations

import array
import hashlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Sequence
from importlib.util import find_spec

__all__ = ["socket_path", "build_key", "main", "DaemonUnusable", "ask_to_stop", "start_daemon", "is_listening",
           "run_remote"]

ENV_SOCKET = "QUINTET_SOCKET"
"""Environment variable: the socket's path (default ``socket_path()``)."""
PROTOCOL = 1
STREAMS = (0, 1, 2)
START_TIMEOUT = 30.0  # seconds for a started resident process to listen
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
PROG = "quintet-solve"
PROJECT_PACKAGES = ("quintet", "solver")
RUNTIME_PACKAGES = ("numba", "numpy", "ortools", "llvmlite")


class DaemonUnusable(Exception):
    """The resident process cannot serve this command (the message says why); solve in-process."""


class SocketRefused(DaemonUnusable):
    """The socket or its folder is not this user's alone: never used, and no resident process is
    started there."""


def socket_path() -> str:
    """This user's socket: ``$QUINTET_SOCKET``, else ``$XDG_RUNTIME_DIR/quintet/solve.sock`` (a
    folder of this user's), else ``/tmp/quintet-UID/solve.sock``."""
    given = os.environ.get(ENV_SOCKET)
    if given:
        return given
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        try:
            info = os.stat(runtime)
            if info.st_uid == os.getuid() and stat.S_ISDIR(info.st_mode):
                return os.path.join(runtime, "quintet", "solve.sock")
        except OSError:
            pass
    return os.path.join("/tmp", f"quintet-{os.getuid()}", "solve.sock")


def check_private(path: str) -> None:
    """The socket and its folder must be this user's, the folder closed to others (mode 0700)."""
    folder = os.path.dirname(path) or "."
    uid = os.getuid()
    info = os.stat(folder)
    if info.st_uid != uid:
        raise SocketRefused(f"the socket folder {folder} belongs to user {info.st_uid}, not to you: refused")
    if info.st_mode & 0o077:
        raise SocketRefused(f"the socket folder {folder} is open to other users (mode {info.st_mode & 0o777:o}): "
                             "refused")
    sock = os.stat(path)
    if sock.st_uid != uid:
        raise SocketRefused(f"the socket {path} belongs to user {sock.st_uid}, not to you: refused")
    if not stat.S_ISSOCK(sock.st_mode):
        raise SocketRefused(f"{path} is not a socket: refused")


def _package_dir(name: str) -> str | None:
    spec = find_spec(name)  # a top-level package: located, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def build_key() -> str:
    """What the resident process and this one must share to give the same answers: the project's
    source files (path, size, modification time), the interpreter, the versions of numba, numpy,
    OR-Tools and llvmlite (their top modules' stamps) and numba's settings (``NUMBA_*``)."""
    h = hashlib.sha256()
    h.update(f"{PROTOCOL}\0{sys.version}\0{sys.executable}\0".encode())
    for name in PROJECT_PACKAGES:
        root = _package_dir(name)
        h.update(f"{name}\0{root}\0".encode())
        if root is None:
            continue
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for f in sorted(files):
                if f.endswith(".py"):
                    info = os.stat(os.path.join(folder, f))
                    h.update(f"{os.path.relpath(os.path.join(folder, f), root)}\0{info.st_size}\0"
                             f"{info.st_mtime_ns}\0".encode())
    for name in RUNTIME_PACKAGES:
        root = _package_dir(name)
        init = os.path.join(root, "__init__.py") if root else None
        stamp = os.stat(init).st_mtime_ns if init and os.path.exists(init) else 0
        h.update(f"{name}\0{root}\0{stamp}\0".encode())
    for key in sorted(k for k in os.environ if k.startswith("NUMBA_")):
        h.update(f"{key}={os.environ[key]}\0".encode())
    return h.hexdigest()


def _stream_info(stream: object) -> dict[str, object] | None:
    """How this process's text stream is set up, so the resident process's child writes the same
    bytes (encoding, errors, line buffering); None when it is not a plain stream."""
    encoding = getattr(stream, "encoding", None)
    if not isinstance(encoding, str):
        return None
    return {"encoding": encoding, "errors": getattr(stream, "errors", "strict"),
            "line_buffering": bool(getattr(stream, "line_buffering", False))}


def _send_line(sock: socket.socket, message: dict[str, object]) -> None:
    sock.sendall(json.dumps(message).encode() + b"\n")


class _Lines:
    """JSON lines from the resident process."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def next(self) -> dict[str, object] | None:
        while b"\n" not in self.buffer:
            data = self.sock.recv(4096)
            if not data:
                return None
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        message = json.loads(line)
        return message if isinstance(message, dict) else None


def _connect(path: str) -> socket.socket:
    try:
        check_private(path)
    except FileNotFoundError:
        raise DaemonUnusable("no resident process") from None
    except OSError as exc:
        raise DaemonUnusable(f"the socket {path}: {exc.strerror}") from None
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        raise DaemonUnusable(f"no resident process listens on {path} ({exc.strerror})") from None
    return sock


def is_listening(path: str | None = None) -> bool:
    """Does a resident process of this user's listen on ``path``?"""
    try:
        _connect(path or socket_path()).close()
    except DaemonUnusable:
        return False
    return True


def _standard_streams() -> list[int]:
    for fd in STREAMS:
        try:
            os.fstat(fd)
        except OSError:
            raise DaemonUnusable(f"standard stream {fd} is closed") from None
    return list(STREAMS)


def run_remote(argv: Sequence[str], path: str | None = None) -> int:
    """Run ``quintet-solve argv`` in the resident process; its exit status.

    ``DaemonUnusable`` before anything has run (the caller then solves in-process)."""
    path = path or socket_path()
    fds = _standard_streams()
    sock = _connect(path)
    with sock:
        header = {"protocol": PROTOCOL, "key": build_key(), "argv": list(argv), "argv0": sys.argv[0] if sys.argv
                  else PROG, "cwd": os.getcwd(), "env": dict(os.environ),
                  "streams": [_stream_info(s) for s in (sys.stdin, sys.stdout, sys.stderr)]}
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        try:
            sock.sendmsg([json.dumps(header).encode() + b"\n"],
                         [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
        except OSError as exc:
            raise DaemonUnusable(f"the resident process did not take the command ({exc.strerror})") from None
        lines = _Lines(sock)
        try:
            reply = lines.next()
        except (OSError, ValueError):
            reply = None
        if reply is None or not reply.get("accepted"):
            reason = reply.get("reason") if reply else "it closed the connection"
            raise DaemonUnusable(f"the resident process refused the command: {reason}")

        def forward(signum: int, frame: object) -> None:
            try:
                _send_line(sock, {"signal": signal.Signals(signum).name})
            except OSError:
                pass

        previous = {s: signal.signal(s, forward) for s in FORWARDED_SIGNALS}
        try:
            while True:
                try:
                    message = lines.next()
                except ValueError:
                    message = None
                if message is None:
                    print(f"{PROG}: error: the resident process stopped before the command finished",
                          file=sys.stderr)
                    return 1
                if "exit" in message:
                    code = message["exit"]
                    return code if isinstance(code, int) else 1
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)


def ask_to_stop(path: str | None = None) -> bool:
    """Ask the resident process on ``path`` to stop (it finishes the commands it runs); True if one
    answered."""
    path = path or socket_path()
    try:
        sock = _connect(path)
    except DaemonUnusable:
        return False
    with sock:
        try:
            _send_line(sock, {"protocol": PROTOCOL, "command": "stop"})
            reply = _Lines(sock).next()
        except (OSError, ValueError):
            return False
    return bool(reply and reply.get("stopping"))


def start_daemon(path: str | None = None, *, wait: float = START_TIMEOUT,
                 detach: bool = True) -> subprocess.Popen[bytes]:
    """Start a resident process on ``path`` and wait until it listens; the process.

    ``detach``: in a session of its own (it outlives this process); else it stays in this process's
    group, for a parent that stops it (``quintet-serve --daemon``).  Its log is the socket's path +
    ``.log``.  ``DaemonUnusable`` if it does not listen within ``wait`` seconds."""
    path = path or socket_path()
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, mode=0o700, exist_ok=True)
    log_path = path + ".log"
    with open(log_path, "ab") as log:
        process = subprocess.Popen([sys.executable, "-m", "solver.apps.solve_daemon", "--socket", path],
                                   stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=detach,
                                   close_fds=True)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            _connect(path).close()
            return process
        except DaemonUnusable:
            if process.poll() is not None:
                break
            time.sleep(0.02)
    raise DaemonUnusable(f"the resident process did not start (see {log_path})")


def _split_options(argv: list[str]) -> tuple[list[str], bool, bool]:
    """(the command line without the front door's options, --daemon, --stop-daemon)."""
    rest = [a for a in argv if a not in ("--daemon", "--stop-daemon")]
    return rest, "--daemon" in argv, "--stop-daemon" in argv


def _in_process(argv: list[str], own: bool) -> int:
    """The command in this process; ``own``: it is the process's own command line (``run_cli``)."""
    from solver.apps.solve_cli import main as solve_main

    if own:
        sys.argv[1:] = argv
        return solve_main(None)
    return solve_main(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """``quintet-solve``: through the resident process when it can serve, else in this process."""
    own = argv is None
    args = list(sys.argv[1:] if argv is None else argv)
    rest, want_daemon, stop = _split_options(args)
    if stop:
        if rest:
            print(f"{PROG}: error: --stop-daemon takes no other arguments", file=sys.stderr)
            return 2
        stopped = ask_to_stop()
        print(f"{PROG}: " + ("the resident process is stopping" if stopped else "no resident process is running"),
              file=sys.stderr)
        return 0
    if want_daemon and not rest:  # `quintet-solve --daemon`: start one for later commands
        if not is_listening():
            try:
                start_daemon()
            except DaemonUnusable as exc:
                print(f"{PROG}: error: --daemon: {exc}", file=sys.stderr)
                return 2
        print(f"{PROG}: the resident process listens on {socket_path()}", file=sys.stderr)
        return 0
    if "-h" in rest or "--help" in rest or not rest:
        return _in_process(args, own)
    try:
        return run_remote(rest)
    except SocketRefused as exc:
        if not want_daemon:
            return _in_process(rest, own)
        print(f"{PROG}: error: --daemon: {exc}", file=sys.stderr)
        return 2
    except DaemonUnusable as exc:
        if not want_daemon:
            return _in_process(rest, own)
        reason = str(exc)
    # --daemon: replace a resident process that cannot serve (another commit's), start one, ask it
    if "refused the command" in reason:
        ask_to_stop()
    try:
        start_daemon()
        return run_remote(rest)
    except DaemonUnusable as exc:
        print(f"{PROG}: error: --daemon: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
