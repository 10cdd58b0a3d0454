"""quintet-serve under load, over HTTP on loopback.

    python benchmarks/bench_serve.py                  # writes the "serve" section of RESULTS.md
    python benchmarks/bench_serve.py --requests 40 --clients 8 --no-write

1. Starts ``quintet-serve --port 0 --workers W`` (a fresh store) and times its start:
   until it answers, and until its workers are warm.
2. Latency of uniform advice from one client on the warm server (sequential), against the
   same solve in-process (``solver.advisor.request.solve_request``) and a ``quintet-solve`` process
   per question (the command line's cost per answer).
3. The load: ``--requests`` uniform-advice requests over distinct seeded deals from
   ``--clients`` concurrent clients, while ``--jobs`` equilibrium jobs are submitted at once
   (deals found by trying to converge within seconds, ``epsilon`` 0.05, ``time_limit`` 60 s).
   Every answer is checked: each uniform answer equals the in-process one (all fields but the
   timings), each job's mix and certificate equal what ``quintet-solve --json`` then prints
   for the deal (from the store); the store must hold every solved deal.
4. Asking the solved equilibria again (answered from the store), and the server's memory
   (resident set of the server and its workers).
"""

from __future__ import annotations

import asyncio
import json
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
from benchmark_results import machine_load, write_section  # noqa: E402

from quintet.cliutil import OneLineParser, positive_int  # noqa: E402
from quintet.game import Deal  # noqa: E402
from solver.advisor.equilibrium import stored_exploitability  # noqa: E402
from solver.advisor.request import SolveRequest, solve_request  # noqa: E402
from solver.storage.store import SolutionStore  # noqa: E402

EXAMPLE = "8h 7h 9d Ts 7s Qc Jc"
# equilibria that converged to ε ≤ 0.05 within seconds when tried (see the module doc)
JOB_DEALS = ("Ac Kh Kd Kc Qd Ts 7s", "As Ts 9h 9c 8s 7s 7d", "As Ks Qs Js Ts Ah Kh", "Ac Td 9h 9d 9c 8h 8c",
             "Kd Kc Qc Jc 8h 8d 7h")
JOB_EPSILON = 0.05
JOB_TIME_LIMIT = 60.0


def without_seconds(obj: object) -> object:
    if isinstance(obj, dict):
        return {k: without_seconds(v) for k, v in obj.items() if k != "seconds"}
    if isinstance(obj, list):
        return [without_seconds(v) for v in obj]
    return obj


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def distinct_deals(n: int, first_seed: int) -> list[str]:
    seen: set[int] = set()
    out = []
    seed = first_seed
    while len(out) < n:
        deal = Deal.random(seed)
        seed += 1
        if deal.exposed not in seen and deal.format() not in JOB_DEALS:
            seen.add(deal.exposed)
            out.append(deal.format())
    return out


async def load(url: str, deals: list[str], clients: int) -> tuple[list[float], list[dict], float, dict[str, dict]]:
    """The uniform burst from ``clients`` concurrent clients plus the equilibrium jobs."""
    latencies: list[float] = []
    answers: list[dict] = [{}] * len(deals)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(len(deals)):
        queue.put_nowait(i)
    async with httpx.AsyncClient(base_url=url, timeout=600, limits=httpx.Limits(max_connections=clients + 8)) as c:
        jobs = {}
        for deal in JOB_DEALS:
            body = {"exposed": deal, "epsilon": JOB_EPSILON, "time_limit": JOB_TIME_LIMIT}
            r = await c.post("/api/solve", json=body)
            assert r.status_code == 202, r.text
            jobs[deal] = r.json()

        async def client() -> None:
            while not queue.empty():
                i = queue.get_nowait()
                t = time.perf_counter()
                r = await c.post("/api/solve", json={"exposed": deals[i], "opponent": "uniform"})
                latencies.append(time.perf_counter() - t)
                assert r.status_code == 200, (r.status_code, r.text)
                answers[i] = r.json()

        start = time.perf_counter()
        await asyncio.gather(*(client() for _ in range(clients)))
        wall = time.perf_counter() - start
        finished = {}
        while len(finished) < len(jobs):
            for deal, job in jobs.items():
                if deal not in finished:
                    j = (await c.get(f"/api/jobs/{job['job']}")).json()
                    if j["status"] in ("done", "cancelled", "failed"):
                        finished[deal] = j
            await asyncio.sleep(0.5)
    return latencies, answers, wall, finished


def cli_json(*args: str) -> tuple[dict, float]:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "solver.apps.solve_cli", *args, "--json"],
                          capture_output=True, text=True,
                          cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout), time.perf_counter() - t


def main() -> None:
    parser = OneLineParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=positive_int, default=200)
    parser.add_argument("--clients", type=positive_int, default=20)
    parser.add_argument("--workers", type=positive_int, default=2)
    parser.add_argument("--sequential", type=positive_int, default=30, help="single-client requests on the warm server")
    parser.add_argument("--no-write", action="store_true", help="print only; leave RESULTS.md alone")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    store = tmp / "solutions.sqlite"
    t0 = time.perf_counter()
    command = ["--port", "0", "--workers", str(args.workers), "--store", str(store)]
    proc = subprocess.Popen([sys.executable, "-m", "solver.apps.serve.cli", *command], cwd=ROOT, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stderr is not None
        url = re.search(r"(http://\S+)/ ", proc.stderr.readline()).group(1)  # type: ignore[union-attr]
        while True:
            try:
                health = httpx.get(f"{url}/api/health").json()
                break
            except httpx.TransportError:
                time.sleep(0.05)
        t_up = time.perf_counter() - t0
        while health["workers_ready"] < args.workers:
            time.sleep(0.1)
            health = httpx.get(f"{url}/api/health").json()
        t_warm = time.perf_counter() - t0
        print(f"server answers after {t_up:.2f} s, {args.workers} workers warm after {t_warm:.1f} s", flush=True)

        # 2. one client, warm server; the same solves in-process; the CLI per question
        seq_deals = distinct_deals(args.sequential, 5000)
        seq = []
        with httpx.Client(base_url=url, timeout=120) as c:
            c.post("/api/solve", json={"exposed": EXAMPLE, "opponent": "uniform"})
            for deal in seq_deals:
                t = time.perf_counter()
                r = c.post("/api/solve", json={"exposed": deal, "opponent": "uniform"})
                seq.append(time.perf_counter() - t)
                assert r.status_code == 200
        inproc = []
        solve_request(SolveRequest.parse(EXAMPLE, opponent="uniform"))
        for deal in seq_deals:
            t = time.perf_counter()
            solve_request(SolveRequest.parse(deal, opponent="uniform"))
            inproc.append(time.perf_counter() - t)
        cli_times = [cli_json(deal, "--opponent", "uniform", "--no-store")[1] for deal in seq_deals[:5]]
        print(f"sequential HTTP p50 {statistics.median(seq) * 1000:.0f} ms; in-process "
              f"{statistics.median(inproc) * 1000:.0f} ms; quintet-solve process {statistics.median(cli_times):.2f} s",
              flush=True)

        # 3. the load
        deals = distinct_deals(args.requests, 1)
        latencies, answers, wall, jobs = asyncio.run(load(url, deals, args.clients))
        print(f"{len(answers)} requests in {wall:.2f} s: {len(answers) / wall:.1f} req/s, p50 "
              f"{statistics.median(latencies) * 1000:.0f} ms, p95 {percentile(latencies, 0.95) * 1000:.0f} ms",
              flush=True)
        health = httpx.get(f"{url}/api/health").json()
        memory = {"server": rss_mb(proc.pid)}
        memory |= {f"worker {i + 1}": rss_mb(p) for i, p in enumerate(health["worker_pids"])}

        # 4. the equilibria again (store) and the checks
        again = []
        from_store = 0
        with httpx.Client(base_url=url, timeout=120) as c:
            for deal in JOB_DEALS:
                t = time.perf_counter()
                r = c.post("/api/solve", json={"exposed": deal, "epsilon": JOB_EPSILON, "time_limit": JOB_TIME_LIMIT})
                again.append(time.perf_counter() - t)
                from_store += r.status_code == 200 and r.json()["from_store"]
                if r.status_code == 202:  # not converged the first time: a new job, not wanted here
                    c.delete(f"/api/jobs/{r.json()['job']}")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)

    def in_process(deal: str) -> object:
        return without_seconds(solve_request(SolveRequest.parse(deal, opponent="uniform")).to_dict())

    wrong = sum(without_seconds(a) != in_process(d) for d, a in zip(deals, answers, strict=True))
    job_rows = []
    with SolutionStore(store) as s:
        stored = [stored_exploitability(Deal.from_exposed(d), s) for d in JOB_DEALS]
    job_mismatch = 0
    for deal, job in jobs.items():
        result = job["result"]
        # the CLI with the job's own certificate as its target answers from the store
        cli, _ = cli_json(deal, "--epsilon", repr(max(result["exploitability"], JOB_EPSILON)), "--store", str(store))
        same = cli["from_store"] and cli["mix"] == result["mix"] and cli["exploitability"] == result["exploitability"]
        job_mismatch += not same
        job_rows.append(f"| {deal} | {job['status']} | {result['iterations']} | {result['exploitability']:.4f} | "
                        f"{'yes' if result['converged'] else 'no'} | {len(result['mix'])} | {job['elapsed']:.1f} | "
                        f"{'yes' if same else 'NO'} |")
    all_stored = all(q is not None for q in stored)
    print(f"wrong uniform answers: {wrong}; equilibrium jobs differing from the CLI: {job_mismatch}; "
          f"store holds every solved deal: {all_stored}", flush=True)
    print(f"repeated equilibrium asks: p50 {statistics.median(again) * 1000:.0f} ms, max {max(again) * 1000:.0f} ms",
          flush=True)
    print("memory (MB):", {k: round(v) for k, v in memory.items()}, flush=True)

    import numba
    import numpy

    body = "\n".join([
        f"`python benchmarks/bench_serve.py` — {time.strftime('%Y-%m-%d')}; {machine_load()}; "
        f"Python {platform.python_version()}, numba {numba.__version__}, "
        f"numpy {numpy.__version__}, httpx {httpx.__version__}. Loopback HTTP to `quintet-serve --workers "
        f"{args.workers}` (a fresh store).",
        "",
        "| measure | value |",
        "|---|---|",
        f"| start: answers HTTP / workers warm | {t_up:.2f} s / {t_warm:.1f} s |",
        f"| uniform advice, one client, warm server (n={len(seq)}): p50 / p95 | "
        f"{statistics.median(seq) * 1000:.0f} ms / {percentile(seq, 0.95) * 1000:.0f} ms |",
        f"| the same solves in-process (`solve_request`): p50 | {statistics.median(inproc) * 1000:.0f} ms "
        f"(HTTP + worker overhead ×{statistics.median(seq) / statistics.median(inproc):.2f}) |",
        f"| a `quintet-solve --opponent uniform` process per question (n={len(cli_times)}): p50 | "
        f"{statistics.median(cli_times):.2f} s (the server answers "
        f"×{statistics.median(cli_times) / statistics.median(seq):.0f} faster) |",
        f"| load: {len(answers)} uniform requests, {args.clients} concurrent clients, distinct deals, with "
        f"{len(JOB_DEALS)} equilibrium jobs running | {wall:.2f} s, **{len(answers) / wall:.1f} requests/s** |",
        f"| load latency p50 / p95 (queueing included) | {statistics.median(latencies) * 1000:.0f} ms / "
        f"{percentile(latencies, 0.95) * 1000:.0f} ms |",
        f"| answers lost / wrong (each compared with `solve_request`, all fields but timings) | "
        f"{len(deals) - sum(1 for a in answers if a)} / {wrong} |",
        f"| repeated equilibrium asks ({from_store} of {len(again)} answered from the store): p50 / max | "
        f"{statistics.median(again) * 1000:.0f} ms / {max(again) * 1000:.0f} ms |",
        "| resident memory after the load | " + ", ".join(f"{k} {v:.0f} MB" for k, v in memory.items())
        + f"; total {sum(memory.values()):.0f} MB |",
        f"| store holds every solved equilibrium | {'yes' if all_stored else 'NO'} ({len(JOB_DEALS)} deals; best "
        "responses are not stored) |",
        "",
        f"The {len(JOB_DEALS)} equilibrium jobs (submitted at once, `epsilon` {JOB_EPSILON}, `time_limit` "
        f"{JOB_TIME_LIMIT:g} s; deals chosen by trying for quick convergence). With {args.workers} workers, jobs use "
        f"at most {max(1, args.workers - 1)} at a time, so the uniform requests kept a worker; \"same as CLI\": the "
        "job's mix and certificate equal `quintet-solve DEAL --json` afterwards (answered from the store):",
        "",
        "| deal | status | iterations | certified ε | converged | support | seconds (queued + solving) "
        "| same as CLI |",
        "|---|---|---|---|---|---|---|---|",
        *job_rows,
    ])
    print(body)
    shutil.rmtree(tmp, ignore_errors=True)
    if not args.no_write:
        write_section("serve", "quintet-serve (HTTP API)", body)
        print(f"wrote {HERE / 'RESULTS.md'}")
    if wrong or job_mismatch or not all_stored:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
