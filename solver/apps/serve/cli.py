"""``quintet-serve`` — the advisor's HTTP API and web page, served by one local process.

    quintet-serve                                # http://127.0.0.1:8000/
    quintet-serve --port 8080 --workers 4 --store solutions.sqlite
    quintet-serve --host 0.0.0.0                 # reachable from other machines: only when asked
    quintet-serve --tables tables.sqlite --table-ttl 3600 --max-tables 200

Ctrl-C stops it cleanly and at once: open event streams get their job's last state (cancelled,
with its best so far) and end, running solves are cancelled, the workers stopped, exit status 0.
A bad option or an unusable store is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from quintet.cliutil import OneLineParser, UsageError, int_between, positive_float, positive_int, run_cli
from quintet.text import quote
from solver.apps.serve.tables.service import DEFAULT_MAX_TABLES, DEFAULT_TTL, TablesConfig, tables_path
from solver.apps.serve.tables.store import TableStore, TableStoreError
from solver.storage.store import SolutionStore, default_store_path

__all__ = ["build_parser", "main"]

_served = False  # set once the server ran and stopped cleanly


def build_parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="quintet-serve",
                      description="The Quintet advisor as an HTTP JSON API and a web page (FastAPI + uvicorn).")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int_between(0, 65535), default=8000, help="port (default 8000; 0: any free port)")
    p.add_argument("--workers", type=positive_int, default=2,
                   help="solver worker processes (default 2; with 2 or more, equilibrium jobs use at most "
                        "all but one, so quick answers never wait behind them)")
    p.add_argument("--queue-size", type=positive_int, default=32, metavar="N",
                   help="waiting tasks per lane (quick answers, equilibrium jobs) before 503 (default 32)")
    p.add_argument("--store", metavar="PATH", default=None,
                   help="store of solved equilibria (default: $QUINTET_STORE or the user cache directory)")
    p.add_argument("--tables", metavar="PATH", default=None,
                   help="SQLite file of the tables played on the page (default: beside the store, "
                        "STORE-tables.sqlite)")
    p.add_argument("--table-ttl", type=positive_float, default=DEFAULT_TTL, metavar="SECONDS",
                   help=f"an idle table expires after this long (default {DEFAULT_TTL:g}: a day)")
    p.add_argument("--max-tables", type=positive_int, default=DEFAULT_MAX_TABLES, metavar="N",
                   help=f"open tables at most; more are refused with 503 (default {DEFAULT_MAX_TABLES})")
    p.add_argument("--daemon", action="store_true",
                   help="also run quintet-solve's resident process (this user's UNIX socket, $QUINTET_SOCKET) while "
                        "the server runs: quintet-solve then answers without loading numba; stopped with the server")
    return p


def _bind(host: str, port: int) -> socket.socket:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError(f"cannot resolve --host {quote(host)}: {exc.strerror}") from None
    family, kind, proto, _, address = infos[0]
    # proto must say TCP: asyncio sets TCP_NODELAY on accepted connections only then (without
    # it, every response after the first on a kept-alive connection waits ~40 ms for an ACK)
    sock = socket.socket(family, kind, proto or socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def _start_resident() -> subprocess.Popen[bytes] | None:
    """quintet-solve's resident process for the server's life (``solve_client.start_daemon``); None,
    with a line, when one is running already or it cannot start."""
    from solver.apps.solve_client import DaemonUnusable, is_listening, socket_path, start_daemon

    path = socket_path()
    if is_listening(path):
        print(f"quintet-serve: --daemon: quintet-solve's resident process already listens on {path}", file=sys.stderr,
              flush=True)
        return None
    try:
        process = start_daemon(path, detach=False)
    except DaemonUnusable as exc:
        print(f"quintet-serve: --daemon: {exc}", file=sys.stderr, flush=True)
        return None
    print(f"quintet-serve: quintet-solve's resident process listens on {path}", file=sys.stderr, flush=True)
    return process


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    store = Path(args.store).expanduser() if args.store else default_store_path()
    SolutionStore(store).close()  # an unusable store is reported now, in one line
    tables = TablesConfig(Path(args.tables).expanduser() if args.tables else tables_path(store), args.table_ttl,
                          args.max_tables)
    try:
        TableStore(tables.path or tables_path(store)).close()  # and so is an unusable tables file
    except TableStoreError as exc:
        raise UsageError(str(exc)) from None
    sock = _bind(args.host, args.port)

    import uvicorn  # the web stack is imported only once the options are good

    from solver.apps.serve.app import ServeConfig, create_app

    app = create_app(ServeConfig(workers=args.workers, queue_size=args.queue_size, store=store, tables=tables))
    state = app.state.quintet

    class Server(uvicorn.Server):
        """uvicorn's server, telling the application first when it is asked to stop (Ctrl-C):
        its event streams end and its waiting requests give up, so no connection is left for
        uvicorn's graceful-shutdown timeout to cut."""

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            state.stop_requested()
            super().handle_exit(sig, frame)

    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"quintet-serve: http://{shown}:{port}/ (API under /api, OpenAPI at /openapi.json); "
          f"{args.workers} worker{'s' if args.workers > 1 else ''}; store {store}; tables {tables.path}; Ctrl-C stops",
          file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=3, access_log=False)
    resident = _start_resident() if args.daemon else None

    try:
        Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn re-raises the Ctrl-C it handled, after a clean shutdown
        pass
    finally:
        if resident is not None:
            resident.terminate()  # it finishes the commands it runs, then stops
            resident.wait()
    print("quintet-serve: stopped", file=sys.stderr, flush=True)
    global _served
    _served = True
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    status = run_cli("quintet-serve", _main, argv)
    if _served:
        # stopped cleanly: the workers are joined, every store write committed, the streams ended;
        # the interpreter's own teardown of the solver's modules would take another second or two
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
