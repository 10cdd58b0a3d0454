"""``quintet-serve`` — the advisor's HTTP API and web page, served by one local process.

    quintet-serve                                # http://127.0.0.1:8000/
    quintet-serve --port 8080 --workers 4 --store solutions.sqlite
    quintet-serve --host 0.0.0.0                 # reachable from other machines: only when asked
    quintet-serve --tables tables.sqlite --table-ttl 3600 --max-tables 200
    quintet-serve --public-url https://quintet.example.org   # behind a proxy with TLS: the links' address

``docs/public-server.md`` ("Running a public server") is the operator's page: a proxy, TLS,
the limits, what is exposed.

Ctrl-C stops it cleanly and at once: open event streams get their job's last state (cancelled,
with its best so far) and end, running solves are cancelled, the workers stopped, exit status 0.
A bad option or an unusable store is one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import copy
import os
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import FrameType
from typing import Any

from quintet.cliutil import (
    OneLineParser,
    UsageError,
    int_at_least,
    int_between,
    positive_float,
    positive_int,
    run_cli,
)
from quintet.text import quote
from solver.advisor.limits import SERVE_MAX_TIME_LIMIT, SERVE_QUICK_TIME_LIMIT, check_time_limit
from solver.apps.serve.public import (
    Public,
    PublicError,
    is_loopback_bind,
    link_warning,
    machine_names,
    parse_hosts,
    parse_origins,
    parse_proxies,
    parse_public_url,
    parse_root_path,
)
from solver.apps.serve.quota import (
    BODY_TIMEOUT,
    HEADER_TIMEOUT,
    KEEP_ALIVE,
    KINDS,
    MAX_CONNECTIONS,
    MAX_HEAD_BYTES,
    Limits,
)
from solver.apps.serve.tables.config import (
    DEFAULT_HEARTBEAT,
    DEFAULT_MAX_TABLES,
    DEFAULT_TTL,
    LOST_AFTER,
    TablesConfig,
    tables_path,
)
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
    p.add_argument("--heartbeat-seconds", type=_seconds, default=DEFAULT_HEARTBEAT, metavar="SECONDS",
                   help=f"a table's event stream beats this often and the seat's page answers; a seat silent for "
                        f"{LOST_AFTER:g} heartbeats has lost its connection, and a page that hears nothing as long "
                        f"reconnects (default {DEFAULT_HEARTBEAT:g})")
    g = p.add_argument_group("limits (docs: Running a public server)")
    g.add_argument("--max-time-limit", type=_seconds, default=SERVE_MAX_TIME_LIMIT, metavar="SECONDS",
                   help=f"the most any one solve or recheck may take; a request asking more is refused, a job "
                        f"asking none gets it (default {SERVE_MAX_TIME_LIMIT:g})")
    g.add_argument("--quick-time-limit", type=_seconds, default=SERVE_QUICK_TIME_LIMIT, metavar="SECONDS",
                   help="the limit of a best response, completion or grade that gives none: its request waits for "
                        f"it (default {SERVE_QUICK_TIME_LIMIT:g})")
    defaults = Limits()
    for kind, what in KINDS.items():
        g.add_argument(f"--{kind}-per-minute", type=int_at_least(0), default=defaults.per_minute(kind), metavar="N",
                       help=f"per client address, {what} a minute (a burst of N, then N a minute; 0: no limit; "
                            f"default {defaults.per_minute(kind)})")
    g.add_argument("--jobs-per-client", type=int_at_least(0), default=defaults.jobs, metavar="N",
                   help=f"solves one client may have running or waiting at once, its tables' preparations included "
                        f"(0: no limit; default {defaults.jobs})")
    g.add_argument("--connections-per-client", type=int_at_least(0), default=defaults.connections, metavar="N",
                   help=f"connections one client may have open at once, idle ones and event streams included (behind "
                        f"a proxy: its requests in flight; 0: no limit; default {defaults.connections})")
    g.add_argument("--ipv6-prefix", type=int_between(1, 128), default=defaults.ipv6_prefix, metavar="BITS",
                   help=f"an IPv6 client is its network of this many bits: the addresses of one subscriber share "
                        f"its limits (default {defaults.ipv6_prefix})")
    g.add_argument("--play-only", action="store_true",
                   help="a public server for play: the solver API (solves, jobs, draw advice, reviews, puzzles) "
                        "off (403); the tables, their hints if a table allows them, show-downs, hands, deals and rule "
                        "sets stay")
    g.add_argument("--max-connections", type=positive_int, default=MAX_CONNECTIONS, metavar="N",
                   help=f"open connections on the server at most (event streams included); past them requests are "
                        f"answered 503 (default {MAX_CONNECTIONS})")
    g.add_argument("--header-timeout", type=_seconds, default=HEADER_TIMEOUT, metavar="SECONDS",
                   help=f"a request's line and headers must arrive within this long (a slow client's connection is "
                        f"closed; default {HEADER_TIMEOUT:g}); the line and headers hold {MAX_HEAD_BYTES // 1024} KiB "
                        "at most")
    g.add_argument("--body-timeout", type=_seconds, default=BODY_TIMEOUT, metavar="SECONDS",
                   help=f"a request's body must arrive within this long (408; default {BODY_TIMEOUT:g})")
    g.add_argument("--keep-alive", type=_seconds, default=KEEP_ALIVE, metavar="SECONDS",
                   help=f"an idle connection between two requests is closed after this long (default {KEEP_ALIVE:g})")
    g.add_argument("--access-log", action="store_true",
                   help="log every request on stdout (method, path, status: no token, code or secret is ever in a "
                        "path; default: no access log)")
    g = p.add_argument_group("the server's public address (docs: Running a public server)")
    g.add_argument("--public-url", metavar="URL", default=None,
                   help="https://HOST[:PORT][/PATH]: where the world reaches this server (its proxy); every link "
                        "it makes starts with it (default: $QUINTET_PUBLIC_URL, else each request's own address)")
    g.add_argument("--root-path", metavar="PATH", default="",
                   help="the path the page is served under behind a proxy, e.g. /quintet (default: the root; a "
                        "trusted proxy's X-Forwarded-Prefix says it per request)")
    g.add_argument("--trusted-proxies", metavar="ADDRESSES", action="append", default=None,
                   help="addresses or networks (comma-separated, repeatable) whose Forwarded / X-Forwarded-* "
                        "headers are read: the client's address, scheme, host and prefix (default: loopback, "
                        "127.0.0.0/8 and ::1; 'none': no proxy)")
    g.add_argument("--allowed-hosts", metavar="NAMES", action="append", default=[],
                   help="host names the server answers to besides localhost, IP addresses, the public URL's host "
                        "and (listening beyond loopback) this machine's names: comma-separated, *.example.org for "
                        "subdomains, * for any (the check keeps DNS-rebinding pages out)")
    g.add_argument("--cors-origin", metavar="ORIGINS", action="append", default=[],
                   help="https://APP.EXAMPLE.ORG: a web origin whose pages may call this API (comma-separated, "
                        "repeatable; default: none, no CORS — only the server's own page)")
    p.add_argument("--daemon", action="store_true",
                   help="also run quintet-solve's resident process (this user's UNIX socket, $QUINTET_SOCKET) while "
                        "the server runs: quintet-solve then answers without loading numba; stopped with the server")
    return p


def _seconds(text: str) -> float:
    try:
        return check_time_limit(float(text), "seconds")
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc) if "seconds" in str(exc) else f"not a number: {text!r}") from None


def limits_of(args: argparse.Namespace) -> Limits:
    return Limits(**{kind: getattr(args, f"{kind}_per_minute") for kind in KINDS}, jobs=args.jobs_per_client,
                  connections=args.connections_per_client, ipv6_prefix=args.ipv6_prefix)


def public_of(args: argparse.Namespace) -> Public:
    """The server's public address from the options (``UsageError`` naming a bad one)."""
    try:
        url = args.public_url if args.public_url is not None else os.environ.get("QUINTET_PUBLIC_URL") or None
        return Public(
            public_url=None if url is None else parse_public_url(
                url, "--public-url" if args.public_url is not None else "$QUINTET_PUBLIC_URL"),
            root_path=parse_root_path(args.root_path),
            trusted_proxies=parse_proxies(args.trusted_proxies) if args.trusted_proxies is not None
            else Public().trusted_proxies,
            allowed_hosts=parse_hosts(args.allowed_hosts),
            cors_origins=parse_origins(args.cors_origin),
            machine_names=() if is_loopback_bind(args.host) else machine_names(),
        )
    except PublicError as exc:
        raise UsageError(str(exc)) from None


def exposure(host: str, port: int, public: Public) -> list[str]:
    """What the operator should know when the server listens beyond this machine without a public URL."""
    if is_loopback_bind(host) or public.public_url is not None:
        return []
    return [f"quintet-serve: listening on {host} port {port} without --public-url: anyone who reaches this machine "
            "there can open tables, play, and start solves (the solver API: --play-only turns it off); the "
            "connection is plain http (no TLS: tokens cross the network readable); links follow each request's "
            "address. For the internet put a proxy with TLS in front and give --public-url (docs: Running a public "
            "server)."]


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
    public = public_of(args)
    store = Path(args.store).expanduser() if args.store else default_store_path()
    tables = TablesConfig(Path(args.tables).expanduser() if args.tables else tables_path(store), args.table_ttl,
                          args.max_tables, args.heartbeat_seconds)
    sock = _bind(args.host, args.port)  # a host or port refused before anything is made on disk
    try:
        SolutionStore(store).close()  # an unusable store is reported now, in one line
        TableStore(tables.path or tables_path(store)).close()  # and so is an unusable tables file
    except TableStoreError as exc:
        sock.close()
        raise UsageError(str(exc)) from None
    except BaseException:
        sock.close()
        raise

    import uvicorn  # the web stack is imported only once the options are good

    from solver.apps.serve.app import ServeConfig, create_app
    from solver.apps.serve.connections import protocol

    app = create_app(ServeConfig(workers=args.workers, queue_size=args.queue_size, store=store, tables=tables,
                                 public=public, limits=limits_of(args), max_time_limit=args.max_time_limit,
                                 quick_time_limit=args.quick_time_limit, play_only=args.play_only,
                                 body_timeout=args.body_timeout, max_connections=args.max_connections))
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
    links = f"; links {public.public_url}/" if public.public_url else ""
    print(f"quintet-serve: http://{shown}:{port}/ (API under /api, OpenAPI at /openapi.json){links}; "
          f"{args.workers} worker{'s' if args.workers > 1 else ''}; store {store}; tables {tables.path}; Ctrl-C stops",
          file=sys.stderr, flush=True)
    for line in exposure(host, port, public):
        print(line, file=sys.stderr, flush=True)
    if public.public_url and (warning := link_warning(public.public_url)):
        print(f"quintet-serve: --public-url {public.public_url}: {warning}", file=sys.stderr, flush=True)
    config = uvicorn.Config(app, log_config=_log_config(args.access_log), log_level=None, access_log=args.access_log,
                            timeout_graceful_shutdown=3, http=protocol(args.header_timeout, public, limits_of(args)),
                            timeout_keep_alive=max(1, round(args.keep_alive)),
                            h11_max_incomplete_event_size=MAX_HEAD_BYTES,  # --max-connections: the application's 503
                            proxy_headers=False)  # the application reads them, from --trusted-proxies only
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


def _log_config(access_log: bool) -> dict[str, Any]:
    """uvicorn's logging: its warnings and errors on stderr; with ``access_log`` every request on
    stdout (paths hold no secret: tokens, codes and job secrets travel in headers and bodies)."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["loggers"]["uvicorn"]["level"] = "WARNING"
    config["loggers"]["uvicorn.error"] = {"level": "WARNING"}
    config["loggers"]["uvicorn.access"]["level"] = "INFO" if access_log else "WARNING"
    return config


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
