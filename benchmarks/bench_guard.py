"""Another client's answers while one client attacks quintet-serve (issue 41), over loopback.

    python benchmarks/bench_guard.py                  # writes the "guard" section of RESULTS.md
    python benchmarks/bench_guard.py --seconds 5 --no-write

Starts ``quintet-serve --port 0 --workers 1 --play-only --trusted-proxies 127.0.0.9`` (a fresh store
and tables file, the default limits).  The attacker connects from 127.0.0.1 (and, as a proxy
forwarding other addresses, from 127.0.0.9); another client, from 127.0.0.2, asks ``GET
/api/health`` one request after the other on one kept-alive connection for ``--seconds`` each:

0. alone (the floor);
1. **bodies**: the attacker sends ``POST /api/showdown`` with ``"[" + "[],"*340000 + "[]]"`` (1 MB)
   back to back on one kept-alive connection (before issue 41: 3.8 s to answer each, and the
   other client's health at a median of 8.5 s);
2. **connections**: the attacker opens 60 event streams on its own table and 60 idle sockets
   (before: 39 streams took 39 of the 40 connections allowed, every other client got 503);
3. **addresses**: through the proxy, the attacker opens a table from each of 30 addresses of one
   IPv6 /64 (before: all 30 opened), then rotates through 3,000 other /64s;
4. **preparations**: the attacker opens 20 tables of 100 games with a friend's hints in one
   second, each wanting an equilibrium (before: 20 solves queued in the long lane).

Each row gives what the attacker got and the other client's health latency (median, p95, the
slowest, answers that were not 200).  The machine's load is reported: the figures are wall-clock
times on a machine that may be shared.
"""

from __future__ import annotations

import asyncio
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import httpx  # noqa: E402
from benchmark_results import machine_load, write_section  # noqa: E402

from quintet.cliutil import OneLineParser, positive_float  # noqa: E402

ATTACK = b"[" + b"[]," * 340_000 + b"[]]"
ATTACKER, PROBER, PROXY = "127.0.0.1", "127.0.0.2", "127.0.0.9"
JSON = {"Content-Type": "application/json"}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def probe(url: str, seconds: float) -> tuple[list[float], Counter[int]]:
    """``GET /api/health`` from the other client, one after the other: latencies and statuses."""
    latencies: list[float] = []
    statuses: Counter[int] = Counter()
    transport = httpx.HTTPTransport(local_address=PROBER)
    with httpx.Client(base_url=url, transport=transport, timeout=60) as client:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            start = time.perf_counter()
            try:
                statuses[client.get("/api/health").status_code] += 1
            except httpx.TransportError:
                statuses[0] += 1
            latencies.append(time.perf_counter() - start)
            time.sleep(0.02)
    return latencies, statuses


def under(url: str, seconds: float, attack: Callable[[threading.Event], str]) -> tuple[list[float], Counter[int], str]:
    """Run ``attack(stop)`` in a thread while the other client probes: (latencies, statuses, what it got)."""
    stop = threading.Event()
    got: list[str] = []
    thread = threading.Thread(target=lambda: got.append(attack(stop)), daemon=True)
    thread.start()
    time.sleep(0.5)  # the attack under way
    latencies, statuses = probe(url, seconds)
    stop.set()
    thread.join(120)
    return latencies, statuses, got[0] if got else "(the attack did not finish)"


def bodies(url: str) -> Callable[[threading.Event], str]:
    def attack(stop: threading.Event) -> str:
        statuses: Counter[int] = Counter()
        transport = httpx.HTTPTransport(local_address=ATTACKER)
        with httpx.Client(base_url=url, transport=transport, timeout=60,
                          limits=httpx.Limits(max_connections=1)) as client:
            while not stop.is_set():
                try:
                    statuses[client.post("/api/showdown", content=ATTACK, headers=JSON).status_code] += 1
                except httpx.TransportError:
                    statuses[0] += 1
        return ", ".join(f"{n} × {s or 'closed'}" for s, n in sorted(statuses.items()))
    return attack


def connections(url: str) -> Callable[[threading.Event], str]:
    def attack(stop: threading.Event) -> str:
        async def run() -> str:
            transport = httpx.AsyncHTTPTransport(local_address=ATTACKER)
            limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
            async with httpx.AsyncClient(base_url=url, transport=transport, timeout=30, limits=limits) as client:
                created = (await client.post("/api/tables", json={"opponent": "friend"})).json()
                seat = {"Authorization": f"Bearer {created['token']}"}
                opened: Counter[int] = Counter()
                streams = []
                for _ in range(60):
                    try:
                        request = client.build_request("GET", f"/api/tables/{created['table']}/events", headers=seat)
                        response = await client.send(request, stream=True)
                        opened[response.status_code] += 1
                        streams.append(response)
                    except httpx.TransportError:
                        opened[0] += 1
                host, port = url.split("//")[1].split(":")
                sockets, kept = [], 0
                for _ in range(60):
                    s = socket.socket()
                    s.bind((ATTACKER, 0))
                    s.connect((host, int(port)))
                    sockets.append(s)
                await asyncio.sleep(0.5)
                for s in sockets:
                    s.setblocking(False)
                    try:
                        kept += s.recv(1) != b""
                    except BlockingIOError:
                        kept += 1  # still open, nothing sent: kept
                    except OSError:
                        pass
                while not stop.is_set():
                    await asyncio.sleep(0.1)
                for s in sockets:
                    s.close()
                for response in streams:
                    await response.aclose()
                return (f"event streams: {opened[200]} opened, {sum(opened.values()) - opened[200]} refused; "
                        f"idle sockets: {kept} of 60 kept open")
        return asyncio.run(run())
    return attack


def addresses(url: str) -> Callable[[threading.Event], str]:
    def attack(stop: threading.Event) -> str:
        transport = httpx.HTTPTransport(local_address=PROXY)
        with httpx.Client(base_url=url, transport=transport, timeout=60) as client:
            one = Counter(client.post("/api/tables", json={"opponent": "friend"},
                                      headers={"X-Forwarded-For": f"2001:db8:41:1::{i + 1:x}"}).status_code
                          for i in range(30))
            rotated: Counter[int] = Counter()
            for i in range(3000):
                if stop.is_set():
                    break
                rotated[client.post("/api/showdown", content=b"{}", headers={
                    **JSON, "X-Forwarded-For": f"2001:db8:{i // 65536 + 100:x}:{i % 65536:x}::1"}).status_code] += 1
            return (f"30 addresses of one /64: {one[201]} tables opened, {one[429]} refused (429); "
                    f"{sum(rotated.values())} requests from as many other /64s")
    return attack


def preparations(url: str) -> Callable[[threading.Event], str]:
    def attack(stop: threading.Event) -> str:
        transport = httpx.HTTPTransport(local_address=ATTACKER)
        with httpx.Client(base_url=url, transport=transport, timeout=60) as client:
            statuses = Counter(client.post("/api/tables", json={"opponent": "friend", "hints": True, "games": 100,
                                                                 "seed": 1000 + 100 * i}).status_code
                               for i in range(20))
            health = client.get("/api/health").json()
            long = health["waiting"]["long"] + health["running"]["long"]
            stop.wait(600)
            return (f"20 tables of 100 games with hints: {statuses[201]} opened, {statuses[429]} refused (429); "
                    f"{long} equilibria in the long lane")
    return attack


def summary(latencies: list[float]) -> tuple[str, str, str]:
    return (f"{statistics.median(latencies) * 1000:.1f} ms", f"{percentile(latencies, 0.95) * 1000:.1f} ms",
            f"{max(latencies) * 1000:.0f} ms")


def main() -> None:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=positive_float, default=10.0,
                        help="seconds of probing per attack (default 10)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-guard-"))
    command = ["--port", "0", "--workers", "1", "--play-only", "--trusted-proxies", PROXY,
               "--store", str(tmp / "solutions.sqlite"), "--tables", str(tmp / "tables.sqlite")]
    proc = subprocess.Popen([sys.executable, "-m", "solver.apps.serve.cli", *command], cwd=ROOT,
                            stderr=subprocess.PIPE, text=True)
    rows = []
    try:
        assert proc.stderr is not None
        url = re.search(r"(http://\S+)/ ", proc.stderr.readline()).group(1)  # type: ignore[union-attr]
        deadline = time.monotonic() + 120
        while httpx.get(f"{url}/api/health").json()["workers_ready"] < 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        latencies, statuses = probe(url, args.seconds)
        rows.append(("0. none (the floor)", "—", latencies, statuses))
        for name, attack in (("1. 1 MB bodies to /api/showdown, back to back", bodies(url)),
                             ("2. event streams and idle sockets", connections(url)),
                             ("3. rotating IPv6 addresses", addresses(url)),
                             ("4. tables wanting equilibria (--play-only)", preparations(url))):
            latencies, statuses, got = under(url, args.seconds, attack)
            rows.append((name, got, latencies, statuses))
            print(f"{name}: {got}; health {' / '.join(summary(latencies))}; {dict(statuses)}", flush=True)
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
    table = ["| attack | what the attacker got | health median | p95 | slowest | answers not 200 |",
             "|---|---|---|---|---|---|"]
    for name, got, latencies, statuses in rows:
        median, p95, slowest = summary(latencies)
        table.append(f"| {name} | {got} | **{median}** | {p95} | {slowest} | "
                     f"{sum(statuses.values()) - statuses[200]} of {sum(statuses.values())} |")
    body = "\n".join([
        f"`python benchmarks/bench_guard.py --seconds {args.seconds:g}` — {machine_load()}. Loopback HTTP to "
        f"`quintet-serve {' '.join(command[2:7])}` with the default limits (fresh store and tables file). The "
        f"attacker connects from {ATTACKER} (and as a trusted proxy from {PROXY}); another client, from {PROBER}, "
        f"asks `GET /api/health` one request after the other for {args.seconds:g} s during each attack. Issue 41's "
        "figures before: attack 1 kept the other client's health at a median of 8.5 s (15 ms alone); attack 2 "
        "left every other client 503; attack 3 opened 30 tables from one /64 against a limit of 3 a minute; "
        "attack 4 queued 20 equilibria.",
        "",
        *table,
        "",
        "Wall-clock times on a machine that may be shared (the load average above): the other client's "
        "latency includes whatever else ran.",
    ])
    print(body)
    if not args.no_write:
        write_section("guard", "quintet-serve under attack: another client's answers (issue 41)", body)


if __name__ == "__main__":
    main()
