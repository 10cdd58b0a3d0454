"""The resident process behind ``quintet-solve``: kernels loaded once, a fork per command.

    python -m solver.apps.solve_daemon [--socket PATH] [--idle-timeout SECONDS]

Started by ``quintet-solve --daemon`` or by ``quintet-serve``; ``solver.apps.solve_client`` is the
other end and says what each side checks.  It listens on a per-user UNIX socket (folder mode 0700,
socket 0600; one process per socket, held by a lock file), then warms up — runs a few commands to
/dev/null, so that numba's kernels (compiled on a cold cache), OR-Tools and the JSON models are
loaded — and then serves: for each command it checks the peer's user id (``SO_PEERCRED``) and the
build key, and forks a child that takes the client's standard streams, working directory,
environment and command line and runs ``solver.apps.solve_cli.main``, exactly as a process of its
own would.  The child's exit status goes back to the client; a signal the client forwards (Ctrl-C)
goes to the child; a client that goes away takes its child with it (SIGTERM).  A request
``{"command": "stop"}`` stops the process once its children are done, and so does
``--idle-timeout`` seconds (default 3600) without a command.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import gc
import io
import json
import os
import selectors
import signal
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass, field

from solver.apps.solve_client import PROTOCOL, build_key, socket_path

__all__ = ["serve", "main", "WARM_UP"]

IDLE_TIMEOUT = 3600.0
MAX_HEADER = 1 << 20  # bytes of one request's JSON line
EXAMPLE = ["8h", "7h", "9d", "Ts", "7s", "Qc", "Jc"]
WARM_UP = [
    [*EXAMPLE, "--opponent", "uniform", "--json"],
    [*EXAMPLE, "--opponent", "uniform", "--grade", "Th Td Tc 7d 7c | Js Jh Jd 8s 8d | Qs Qh Qd 9h 9c | "
     "Ks Kh Kd Kc 8c | As Ah Ad Ac 9s"],
    [*EXAMPLE, "--opponent", "uniform", "--fix", "5=As Ah Ad Ac 9s"],
    ["Kc", "Qh", "Qd", "Js", "9d", "8s", "7d", "--no-store", "--epsilon", "0.5", "--quiet", "--json"],
]
"""Commands run once at start (output discarded): every kernel and model a quick answer uses."""


def _log(message: str) -> None:
    print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} quintet-solve daemon[{os.getpid()}]: {message}", file=sys.stderr,
          flush=True)


def warm_up() -> None:
    """Run ``WARM_UP`` with the output discarded (kernels, OR-Tools, pydantic models loaded)."""
    from solver.apps.solve_cli import main as solve_main
    from solver.engines.precompile import GROUPS, precompile

    precompile(list(GROUPS))  # a cold cache: compiled in parallel
    for argv in WARM_UP:
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null), contextlib.redirect_stderr(null):
            solve_main(argv)


@dataclass
class _Client:
    """One connection: its request's bytes, file descriptors and, once forked, its child."""

    sock: socket.socket
    buffer: bytes = b""
    fds: list[int] = field(default_factory=list)
    pid: int | None = None


def _peer_uid(sock: socket.socket) -> int:
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def _reply(sock: socket.socket, message: dict[str, object]) -> None:
    with contextlib.suppress(OSError):
        sock.sendall(json.dumps(message).encode() + b"\n")


def _text_stream(fd: int, info: object, write: bool) -> io.TextIOWrapper:
    """A text stream on ``fd`` set up as the client's was (``solve_client._stream_info``)."""
    spec = info if isinstance(info, dict) else {}
    buffered = open(fd, "wb" if write else "rb", closefd=False)  # noqa: SIM115 - the stream owns it
    return io.TextIOWrapper(buffered, encoding=str(spec.get("encoding") or "utf-8"),
                            errors=str(spec.get("errors") or "strict"),
                            line_buffering=bool(spec.get("line_buffering", False)))


def _run_child(request: dict[str, object], fds: list[int]) -> int:
    """In the forked child: become the client's process and run the command; its exit status."""
    for number, fd in enumerate(fds):
        os.dup2(fd, number)
        os.close(fd)
    streams = request.get("streams")
    infos = streams if isinstance(streams, list) and len(streams) == 3 else [None, None, None]
    sys.stdin = _text_stream(0, infos[0], False)
    sys.stdout = _text_stream(1, infos[1], True)
    sys.stderr = _text_stream(2, infos[2], True)
    os.chdir(str(request["cwd"]))
    env = request["env"]
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in env.items()} if isinstance(env, dict) else {})
    argv = [str(a) for a in request["argv"]] if isinstance(request["argv"], list) else []
    sys.argv = [str(request.get("argv0", "quintet-solve")), *argv]
    from solver.apps.solve_cli import main as solve_main

    try:
        return solve_main(argv)
    finally:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()


class Daemon:
    """The accept loop (one thread; a child process per command)."""

    def __init__(self, listener: socket.socket, path: str, lock: io.TextIOWrapper, key: str,
                 idle_timeout: float) -> None:
        self.listener = listener
        self.path = path
        self.lock = lock
        self.key = key
        self.idle_timeout = idle_timeout
        self.uid = os.getuid()
        self.selector = selectors.DefaultSelector()
        self.clients: dict[int, _Client] = {}  # by socket fd
        self.children: dict[int, _Client] = {}  # by pid
        self.stopping = False
        self.served = 0
        self.last_active = time.monotonic()
        self.wake_r, self.wake_w = socket.socketpair()
        self.wake_r.setblocking(False)
        self.wake_w.setblocking(False)

    def run(self) -> None:
        signal.set_wakeup_fd(self.wake_w.fileno(), warn_on_full_buffer=False)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # wakes the selector through the wakeup fd
        signal.signal(signal.SIGTERM, lambda *_: self.stop())
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wake_r, selectors.EVENT_READ, "wake")
        while not (self.stopping and not self.children and not self.clients):
            timeout = None if self.children or self.clients else max(
                0.0, self.idle_timeout - (time.monotonic() - self.last_active))
            for key, _ in self.selector.select(timeout):
                if key.data == "accept":
                    self.accept()
                elif key.data == "wake":
                    with contextlib.suppress(OSError):
                        self.wake_r.recv(4096)
                else:
                    self.readable(key.data)
            self.reap()
            if not self.children and not self.clients and time.monotonic() - self.last_active >= self.idle_timeout:
                _log("idle: stopping")
                self.stop()

    def stop(self) -> None:
        """Take no more commands: the socket and the lock go at once (a new resident process may
        start), the running children finish."""
        if not self.stopping:
            self.stopping = True
            with contextlib.suppress(KeyError, ValueError):
                self.selector.unregister(self.listener)
            self.listener.close()
            with contextlib.suppress(OSError):
                os.unlink(self.path)
            self.lock.close()

    def accept(self) -> None:
        try:
            sock, _ = self.listener.accept()
        except OSError:
            return
        self.last_active = time.monotonic()
        if _peer_uid(sock) != self.uid:
            _reply(sock, {"accepted": False, "reason": "another user's request: refused"})
            sock.close()
            return
        sock.setblocking(False)
        client = _Client(sock)
        self.clients[sock.fileno()] = client
        self.selector.register(sock, selectors.EVENT_READ, client)

    def drop(self, client: _Client) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self.selector.unregister(client.sock)
        self.clients.pop(client.sock.fileno(), None)
        for fd in client.fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        client.fds = []
        client.sock.close()

    def readable(self, client: _Client) -> None:
        try:
            data, ancillary, _, _ = client.sock.recvmsg(65536, socket.CMSG_SPACE(16 * 4))
        except BlockingIOError:
            return
        except OSError:
            data, ancillary = b"", []
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                client.fds += list(struct.unpack(f"{len(payload) // 4}i", payload[:len(payload) // 4 * 4]))
        if not data:  # the client went away: its command with it
            if client.pid is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(client.pid, signal.SIGTERM)
                with contextlib.suppress(KeyError, ValueError):
                    self.selector.unregister(client.sock)  # dropped when its child is reaped
            else:
                self.drop(client)
            return
        client.buffer += data
        while b"\n" in client.buffer:
            line, client.buffer = client.buffer.split(b"\n", 1)
            self.message(client, line)
        if len(client.buffer) > MAX_HEADER:
            _reply(client.sock, {"accepted": False, "reason": "request too long"})
            self.drop(client)

    def message(self, client: _Client, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            _reply(client.sock, {"accepted": False, "reason": "not a request"})
            self.drop(client)
            return
        if client.pid is not None:  # a running command: only signals
            name = message.get("signal")
            if name in ("SIGINT", "SIGTERM", "SIGHUP"):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(client.pid, getattr(signal, str(name)))
            return
        if message.get("protocol") != PROTOCOL:
            _reply(client.sock, {"accepted": False, "reason": f"protocol {message.get('protocol')!r}, not {PROTOCOL}"})
            self.drop(client)
            return
        if message.get("command") == "stop":
            _log("asked to stop")
            _reply(client.sock, {"stopping": True})
            self.drop(client)
            self.stop()
            return
        if message.get("key") != self.key:
            _log("refused a command from other code")
            _reply(client.sock, {"accepted": False, "reason": "started from other code (another commit or settings)"})
            self.drop(client)
            return
        if self.stopping:
            _reply(client.sock, {"accepted": False, "reason": "stopping"})
            self.drop(client)
            return
        if len(client.fds) != 3 or not all(k in message for k in ("argv", "cwd", "env")):
            _reply(client.sock, {"accepted": False, "reason": "a request needs argv, cwd, env and three streams"})
            self.drop(client)
            return
        self.fork(client, message)

    def fork(self, client: _Client, request: dict[str, object]) -> None:
        if threading.active_count() != 1:  # a fork copies only this thread: never fork beside others
            _reply(client.sock, {"accepted": False, "reason": "busy"})
            self.drop(client)
            return
        pid = os.fork()
        if pid == 0:  # the child
            code = 70
            try:
                signal.set_wakeup_fd(-1)
                for s in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP):
                    signal.signal(s, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                self.listener.close()
                for other in list(self.clients.values()):
                    other.sock.close()
                self.wake_r.close()
                self.wake_w.close()
                code = _run_child(request, client.fds)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
            except BaseException:  # noqa: BLE001 - the child must never return into the loop
                with contextlib.suppress(Exception):
                    import traceback
                    traceback.print_exc()
            finally:
                os._exit(code)
        for fd in client.fds:
            os.close(fd)
        client.fds = []
        client.pid = pid
        self.children[pid] = client
        self.served += 1
        _log(f"command {self.served}: pid {pid}")
        _reply(client.sock, {"accepted": True, "pid": pid})

    def reap(self) -> None:
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            client = self.children.pop(pid, None)
            if client is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            _reply(client.sock, {"exit": code if code >= 0 else 128 - code})
            self.last_active = time.monotonic()
            self.drop(client)


def _private_folder(path: str) -> None:
    folder = os.path.dirname(path) or "."
    os.makedirs(folder, mode=0o700, exist_ok=True)
    info = os.stat(folder)
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise SystemExit(f"quintet-solve daemon: {folder} must be yours with mode 0700: not started")


def serve(path: str, idle_timeout: float = IDLE_TIMEOUT, *, warm: bool = True) -> int:
    """Listen on ``path`` and serve until stopped; 0, or 1 when another process already serves it."""
    _private_folder(path)
    lock = open(path + ".lock", "w")  # noqa: SIM115 - held for the process's life
    deadline = time.monotonic() + 10.0
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > deadline:
                _log(f"another resident process holds {path}: not started")
                return 1
            time.sleep(0.05)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)  # we hold the lock: a socket left there is stale
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old_mask = os.umask(0o177)
    try:
        listener.bind(path)
    finally:
        os.umask(old_mask)
    listener.listen(64)
    _log(f"listening on {path}")
    key = build_key()
    if warm:
        started = time.perf_counter()
        warm_up()
        _log(f"warmed up in {time.perf_counter() - started:.1f} s")
    gc.collect()
    gc.freeze()  # the children never collect what the parent made
    daemon = Daemon(listener, path, lock, key, idle_timeout)
    try:
        daemon.run()
    finally:
        daemon.stop()
    _log("stopped")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m solver.apps.solve_daemon", description=__doc__.splitlines()[0])
    ap.add_argument("--socket", default=None, help="the socket's path (default: quintet-solve's)")
    ap.add_argument("--idle-timeout", type=float, default=IDLE_TIMEOUT, metavar="SECONDS",
                    help=f"stop after this long without a command (default {IDLE_TIMEOUT:g})")
    ap.add_argument("--no-warm-up", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # in its own session: Ctrl-C is the clients'
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    return serve(args.socket or socket_path(), args.idle_timeout, warm=not args.no_warm_up)


if __name__ == "__main__":
    raise SystemExit(main())
