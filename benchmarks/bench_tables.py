"""Tables on quintet-serve under load: scripted clients on loopback (asyncio + httpx).

    python benchmarks/bench_tables.py                 # writes the "tables" section of RESULTS.md
    python benchmarks/bench_tables.py --tables 40 --clients 10 --no-write

1. Starts ``quintet-serve --port 0 --workers W`` (a fresh store and tables file).
2. Friends' tables: ``--tables`` tables of ``--games`` games, ``--clients`` of them played at
   once; each table is two scripted seats, each following its event stream (server-sent
   events).  Per game: each seat confirms a random arrangement; the **confirm** latency is the
   POST's round trip, the **reveal** latency the time from sending the second confirm to each
   seat's stream receiving the ``reveal`` event.  Tables created per second, games and tables
   played per second (wall clock of the whole phase).
3. Computer tables (greedy): the same, one seat against the computer drawn in the worker pool
   (the time from creating the table to the computer's commitment: ``ready``); each game's
   record and regret are computed by a worker after the reveal (not waited for here).
4. Memory: the server's resident set before and after opening ``--open`` more tables (one
   seat confirmed at each), per table; the tables file's size per table.
5. Streams: ``--streams`` event streams held open at once (both seats of friends' tables), the
   memory per stream, and the latency of an event (a confirm at one of those tables → the
   other seat's stream) while they are open.
6. Solves: ``--solves`` quick best responses (``POST /api/solve``, uniform, distinct deals) from
   ``--clients`` clients at once: answered per second, p50 / p95.

Every request must answer as expected and every seat must see every reveal; the scores of
each finished game are recomputed by ``quintet.game.showdown``.
"""

from __future__ import annotations

import asyncio
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import httpx  # noqa: E402
from benchmark_results import cpu_name, write_section  # noqa: E402

from quintet.cliutil import OneLineParser, positive_int  # noqa: E402
from quintet.game import Arrangement, Deal, showdown  # noqa: E402
from solver.problem.opponents import random_arrangement  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Stats:
    def __init__(self) -> None:
        self.confirm: list[float] = []
        self.reveal: list[float] = []
        self.ready: list[float] = []
        self.requests = 0
        self.failed: list[str] = []
        self.games = 0
        self.tables = 0
        self.mismatches = 0


async def play_table(client: httpx.AsyncClient, body: dict, stats: Stats) -> None:
    created_at = time.perf_counter()
    r = await client.post("/api/tables", json=body)
    stats.requests += 1
    if r.status_code != 201:
        stats.failed.append(f"create {r.status_code} {r.text[:100]}")
        return
    data = r.json()
    table = data["table"]
    tokens = [data["token"]]
    if data["invitation"]:  # the friend's page exchanges the invitation for seat 2's own token
        joined = await client.post(f"/api/tables/{table}/join",
                                   json={"invitation": data["invitation"]["link"].rsplit("/", 1)[1]})
        stats.requests += 1
        tokens.append(joined.json()["token"])
    seats = [(seat, {"Authorization": f"Bearer {token}"}) for seat, token in enumerate(tokens, start=1)]
    games = body["games"]
    reveal_seen: dict[int, list[float]] = {s: [] for s, _ in seats}
    connected = {s: asyncio.Event() for s, _ in seats}
    ready = {s: asyncio.Event() for s, _ in seats}
    sent_last: dict[int, float] = {}

    async def follow(seat: int, headers: dict) -> None:
        async with client.stream("GET", f"/api/tables/{table}/events", headers=headers) as stream:
            kind = ""
            async for line in stream.aiter_lines():
                if line.startswith("event: "):
                    kind = line[7:]
                    if kind == "reveal":
                        reveal_seen[seat].append(time.perf_counter())
                elif line.startswith("data: "):
                    if kind == "view":
                        connected[seat].set()
                    if kind in ("view", "ready") and json.loads(line[6:])["view"]["status"] != "preparing":
                        ready[seat].set()
                    if kind == "reveal" and len(reveal_seen[seat]) == games:
                        return

    followers = [asyncio.create_task(follow(s, h)) for s, h in seats]
    await asyncio.gather(*(e.wait() for e in connected.values()))
    await asyncio.gather(*(e.wait() for e in ready.values()))
    if body["opponent"] != "friend":
        stats.ready.append(time.perf_counter() - created_at)

    async def confirm(seat: int, headers: dict, game: int, deal: Deal) -> dict:
        arrangement = random_arrangement(deal, 7919 * seat + game).format()
        t = time.perf_counter()
        sent_last[game] = t
        r = await client.post(f"/api/tables/{table}/arrangement", headers=headers, json={"arrangement": arrangement})
        stats.confirm.append(time.perf_counter() - t)
        stats.requests += 1
        if r.status_code != 200:
            stats.failed.append(f"confirm {r.status_code} {r.text[:100]}")
        return r.json()

    for game in range(1, games + 1):
        view = (await client.get(f"/api/tables/{table}", headers=seats[0][1])).json()
        stats.requests += 1
        while view["status"] == "preparing":
            await asyncio.sleep(0.02)
            view = (await client.get(f"/api/tables/{table}", headers=seats[0][1])).json()
        deal = Deal.from_exposed(" ".join(view["deal"]["exposed"]))
        last = {}
        for seat, headers in seats:  # one after the other: the second confirm is the show-down
            last = await confirm(seat, headers, game, deal)
        sd = last.get("showdown")
        mine, theirs = last.get("you", {}).get("arrangement"), last.get("other", {}).get("arrangement")
        if sd and mine and theirs:
            expected = showdown(Arrangement.parse(mine), Arrangement.parse(theirs), deal)
            stats.mismatches += (sd["points_a"], sd["points_b"]) != (expected.points_a, expected.points_b)  # A is you
        stats.games += 1
        while len(reveal_seen[seats[-1][0]]) < game or len(reveal_seen[seats[0][0]]) < game:
            await asyncio.sleep(0.005)
        for seat, _ in seats:
            stats.reveal.append(reveal_seen[seat][game - 1] - sent_last[game])
        if game < games:
            for _, headers in seats:
                r = await client.post(f"/api/tables/{table}/next", headers=headers)
                stats.requests += 1
                if r.status_code != 200:
                    stats.failed.append(f"next {r.status_code}")
    await asyncio.wait_for(asyncio.gather(*followers), 60)
    stats.tables += 1


async def run_phase(url: str, bodies: list[dict], clients: int) -> tuple[Stats, float]:
    stats = Stats()
    queue: asyncio.Queue[dict] = asyncio.Queue()
    for body in bodies:
        queue.put_nowait(body)
    limits = httpx.Limits(max_connections=4 * clients + 8, max_keepalive_connections=4 * clients + 8)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        async def worker() -> None:
            while not queue.empty():
                await play_table(client, queue.get_nowait(), stats)

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        wall = time.perf_counter() - start
    return stats, wall


async def open_tables(url: str, n: int) -> list[tuple[str, str]]:
    out = []
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        for i in range(n):
            r = await client.post("/api/tables", json={"opponent": "friend", "games": 3, "seed": 10_000 + i})
            data = r.json()
            token = data["token"]
            deal = Deal.random(10_000 + i)
            await client.post(f"/api/tables/{data['table']}/arrangement", headers={"Authorization": f"Bearer {token}"},
                              json={"arrangement": random_arrangement(deal, i).format()})
            out.append((data["table"], token))
    return out


async def hold_streams(url: str, n: int, probes: int) -> tuple[float, float, list[float]]:
    """``n`` event streams open at once (both seats of ``n // 2`` friends' tables); the server's
    memory before and with them, and the latencies of ``probes`` confirms reaching the other
    seat's stream while they are all open."""
    limits = httpx.Limits(max_connections=n + 16, max_keepalive_connections=n + 16)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:
        seats: list[tuple[str, str, str]] = []  # (table, seat 1's token, seat 2's)
        for i in range(n // 2):
            data = (await client.post("/api/tables", json={"opponent": "friend", "seed": 20_000 + i})).json()
            code = data["invitation"]["link"].rsplit("/", 1)[1]
            friend = (await client.post(f"/api/tables/{data['table']}/join", json={"invitation": code})).json()
            seats.append((data["table"], data["token"], friend["token"]))
        before = rss_mb(SERVER_PID[0])
        seen: dict[tuple[str, int], asyncio.Queue[float]] = {}
        opened = asyncio.Event()
        count = [0]

        async def follow(table: str, seat: int, token: str) -> None:
            queue = seen.setdefault((table, seat), asyncio.Queue())
            async with client.stream("GET", f"/api/tables/{table}/events",
                                     headers={"Authorization": f"Bearer {token}"}) as stream:
                async for line in stream.aiter_lines():
                    if line == "event: view":
                        count[0] += 1
                        if count[0] == n:
                            opened.set()
                    elif line == "event: confirmed":
                        queue.put_nowait(time.perf_counter())

        tasks = [asyncio.create_task(follow(t, s, tok)) for t, one, two in seats for s, tok in ((1, one), (2, two))]
        await asyncio.wait_for(opened.wait(), 300)
        await asyncio.sleep(1)
        held = rss_mb(SERVER_PID[0])
        latencies = []
        for i, (table, one, _) in enumerate(seats[:probes]):
            deal = Deal.random(20_000 + i)
            sent = time.perf_counter()
            r = await client.post(f"/api/tables/{table}/arrangement", headers={"Authorization": f"Bearer {one}"},
                                  json={"arrangement": random_arrangement(deal, 1).format()})
            assert r.status_code == 200, r.text
            latencies.append(await asyncio.wait_for(seen[table, 2].get(), 60) - sent)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return before, held, latencies


async def solve_many(url: str, n: int, clients: int) -> tuple[float, list[float], int]:
    """``n`` quick best responses (distinct deals, uniform) from ``clients`` clients at once:
    wall clock, latencies, answers that were not 200."""
    bodies = [{"exposed": Deal.random(30_000 + i).format(), "opponent": "uniform"} for i in range(n)]
    latencies: list[float] = []
    failed = [0]
    async with httpx.AsyncClient(base_url=url, timeout=300) as client:
        async def worker() -> None:
            while bodies:
                body = bodies.pop()
                t = time.perf_counter()
                r = await client.post("/api/solve", json=body)
                latencies.append(time.perf_counter() - t)
                failed[0] += r.status_code != 200

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(clients)))
        return time.perf_counter() - start, latencies, failed[0]


SERVER_PID = [0]


def summary(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:.1f} ms / {percentile(values, 0.95) * 1000:.1f} ms"


def main() -> None:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=positive_int, default=200, help="friends' tables played (default 200)")
    parser.add_argument("--computer-tables", type=positive_int, default=50, help="computer tables played (default 50)")
    parser.add_argument("--games", type=positive_int, default=3, help="games per table (default 3)")
    parser.add_argument("--clients", type=positive_int, default=25, help="tables played at once (default 25)")
    parser.add_argument("--workers", type=positive_int, default=2)
    parser.add_argument("--open", type=positive_int, default=2000,
                        help="tables opened for the memory figure (default 2000)")
    parser.add_argument("--streams", type=positive_int, default=600,
                        help="event streams held open at once (default 600)")
    parser.add_argument("--solves", type=positive_int, default=60, help="quick best responses asked (default 60)")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()

    load_before = os.getloadavg()[0]
    tmp = Path(tempfile.mkdtemp(prefix="bench-tables-"))
    tables_file = tmp / "tables.sqlite"
    command = ["--port", "0", "--workers", str(args.workers), "--store", str(tmp / "solutions.sqlite"),
               "--tables-per-minute", "0", "--moves-per-minute", "0", "--solves-per-minute", "0",
               "--jobs-per-client", "0", "--connections-per-client", "0", "--max-connections", str(args.streams + 100),
               "--tables", str(tables_file),
               "--max-tables", str(10 * (args.tables + args.computer_tables + args.open + args.streams))]
    proc = subprocess.Popen([sys.executable, "-m", "solver.apps.serve.cli", *command], cwd=ROOT,
                            stderr=subprocess.PIPE, text=True)
    SERVER_PID[0] = proc.pid
    try:
        assert proc.stderr is not None
        url = re.search(r"(http://\S+)/ ", proc.stderr.readline()).group(1)  # type: ignore[union-attr]
        while True:
            try:
                if httpx.get(f"{url}/api/health").json()["workers_ready"] >= args.workers:
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.2)
        # warm: one table of each kind
        asyncio.run(run_phase(url, [{"opponent": "friend", "games": 1, "seed": 1},
                                    {"opponent": "greedy", "games": 1, "seed": 1}], 2))
        # one table at a time: the latencies without queueing, and the server's floor (GET /api/health)
        alone, _ = asyncio.run(run_phase(url, [{"opponent": "friend", "games": args.games, "seed": 90_000 + 5 * i}
                                               for i in range(10)], 1))
        floor = []
        with httpx.Client(base_url=url) as c:
            for _ in range(50):
                t = time.perf_counter()
                c.get("/api/health")
                floor.append(time.perf_counter() - t)
        print(f"alone: confirm {summary(alone.confirm)}, reveal {summary(alone.reveal)}; GET /api/health "
              f"{summary(floor)}", flush=True)
        friends = [{"opponent": "friend", "games": args.games, "seed": 100 + args.games * i}
                   for i in range(args.tables)]
        f_stats, f_wall = asyncio.run(run_phase(url, friends, args.clients))
        print(f"friends: {f_stats.tables} tables, {f_stats.games} games in {f_wall:.2f} s; confirm p50/p95 "
              f"{summary(f_stats.confirm)}; reveal {summary(f_stats.reveal)}", flush=True)
        computers = [{"opponent": "greedy", "games": args.games, "seed": 50_000 + args.games * i}
                     for i in range(args.computer_tables)]
        c_stats, c_wall = asyncio.run(run_phase(url, computers, args.clients))
        print(f"computer: {c_stats.tables} tables, {c_stats.games} games in {c_wall:.2f} s; confirm p50/p95 "
              f"{summary(c_stats.confirm)}; reveal {summary(c_stats.reveal)}; ready {summary(c_stats.ready)}",
              flush=True)
        before_tables = len(friends) + len(computers) + 2
        rss_before = rss_mb(proc.pid)
        size_before = tables_file.stat().st_size
        t = time.perf_counter()
        opened = asyncio.run(open_tables(url, args.open))
        open_wall = time.perf_counter() - t
        time.sleep(1)
        rss_after = rss_mb(proc.pid)
        size_after = tables_file.stat().st_size + (tables_file.with_name(tables_file.name + "-wal").stat().st_size
                                                   if tables_file.with_name(tables_file.name + "-wal").exists() else 0)
        per_table_kb = (rss_after - rss_before) * 1024 / args.open
        print(f"memory: {rss_before:.0f} → {rss_after:.0f} MB for {args.open} more open tables: "
              f"{per_table_kb:.1f} KB each; tables file {size_after / 1e6:.1f} MB", flush=True)
        del opened
        s_before, s_held, s_latency = asyncio.run(hold_streams(url, args.streams, 20))
        per_stream_kb = (s_held - s_before) * 1024 / args.streams
        print(f"streams: {args.streams} open: {s_before:.0f} → {s_held:.0f} MB, {per_stream_kb:.1f} KB each; a confirm "
              f"reaching the other seat's stream {summary(s_latency)}", flush=True)
        solve_wall, solve_latency, solve_failed = asyncio.run(solve_many(url, args.solves, args.clients))
        print(f"solves: {args.solves} best responses in {solve_wall:.1f} s ({args.solves / solve_wall:.2f}/s), "
              f"{summary(solve_latency)}; not answered {solve_failed}", flush=True)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
    lost = len(f_stats.failed) + len(c_stats.failed) + len(alone.failed) + solve_failed
    wrong = f_stats.mismatches + c_stats.mismatches
    expected_reveals = 2 * f_stats.games + c_stats.games
    seen_reveals = len(f_stats.reveal) + len(c_stats.reveal)
    print(f"requests failed: {lost}; scores differing from showdown: {wrong}; reveals seen {seen_reveals} of "
          f"{expected_reveals}", flush=True)

    import numpy

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
    all_tables = before_tables + args.open
    body = "\n".join([
        f"`python benchmarks/bench_tables.py` — {time.strftime('%Y-%m-%d')}, commit {commit.strip() or '?'}; "
        f"{cpu_name()}, {os.cpu_count()} logical CPUs (load average {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after); Python {platform.python_version()}, "
        f"numpy {numpy.__version__}, httpx {httpx.__version__}. Loopback HTTP to `quintet-serve --workers "
        f"{args.workers}` (fresh store and tables file); scripted asyncio clients, {args.clients} tables played at "
        f"once, each seat following its event stream; {args.games} games a table, random arrangements.",
        "",
        "| measure | friends' tables | computer tables (greedy) |",
        "|---|---|---|",
        f"| tables played | {f_stats.tables} | {c_stats.tables} |",
        f"| wall clock | {f_wall:.2f} s | {c_wall:.2f} s |",
        f"| **tables created and played per second** | **{f_stats.tables / f_wall:.1f}** | "
        f"**{c_stats.tables / c_wall:.1f}** |",
        f"| games played per second | {f_stats.games / f_wall:.1f} | {c_stats.games / c_wall:.1f} |",
        f"| requests answered (failed) | {f_stats.requests} ({len(f_stats.failed)}) | {c_stats.requests} "
        f"({len(c_stats.failed)}) |",
        f"| confirm, p50 / p95 | {summary(f_stats.confirm)} | {summary(c_stats.confirm)} |",
        f"| reveal event (second confirm sent → each seat's stream has it), p50 / p95 | {summary(f_stats.reveal)} | "
        f"{summary(c_stats.reveal)} |",
        f"| table created → the computer's commitment (a worker draws it), p50 / p95 | — | "
        f"{summary(c_stats.ready)} |",
        f"| scores differing from `showdown` / reveals missed | {f_stats.mismatches} / "
        f"{2 * f_stats.games - len(f_stats.reveal)} | {c_stats.mismatches} / {c_stats.games - len(c_stats.reveal)} |",
        "",
        f"One table at a time (10 friends' tables, no other load from this benchmark): confirm p50 / p95 "
        f"{summary(alone.confirm)}, reveal event {summary(alone.reveal)}; the server's floor on this machine, "
        f"`GET /api/health`, {summary(floor)}. The figures above are those of {args.clients} tables at once, with "
        f"the scripted clients (their JSON and their {2 * args.clients} streams) on the same two CPUs.",
        "",
        f"Memory: the server's resident set went from {rss_before:.0f} MB to {rss_after:.0f} MB while "
        f"{args.open} more tables were opened (one seat confirmed at each; {open_wall:.1f} s), "
        f"**{per_table_kb:.1f} KB per open table** (a table lives in the tables file, not in memory: the figure "
        f"is SQLite's page cache and Python's allocator); the tables file holds {all_tables} tables in "
        f"{size_after / 1e6:.1f} MB ({(size_after - size_before) / 1024 / args.open:.1f} KB per table added).",
        "",
        f"Streams: **{args.streams} event streams held open at once** ({args.streams // 2} friends' tables, both "
        f"seats; the server's `--max-connections` {args.streams + 100}): its resident set went from {s_before:.0f} MB "
        f"to {s_held:.0f} MB, **{per_stream_kb:.1f} KB per open stream**; a confirm at one of those tables reached "
        f"the other seat's stream in {summary(s_latency)} (p50 / p95 of 20) while all were open.",
        "",
        f"Solves: **{args.solves / solve_wall:.2f} quick best responses answered per second** ({args.solves} "
        f"distinct deals against `uniform`, {args.clients} clients at once, {args.workers} worker processes), each "
        f"in {summary(solve_latency)} (p50 / p95, queueing included); not answered: {solve_failed}.",
    ])
    print(body)
    shutil.rmtree(tmp, ignore_errors=True)
    if not args.no_write:
        write_section("tables", "quintet-serve tables (play on the page)", body)
        print(f"wrote {HERE / 'RESULTS.md'}")
    if lost or wrong or seen_reveals != expected_reveals:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
