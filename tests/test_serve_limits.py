"""quintet-serve fit for the internet (issue 30): every solve has a time limit that the pool
enforces; a client that disconnects cancels its solve; jobs are their client's; per-client
limits answer 429 with Retry-After; /api/health shows no path nor process id."""

from __future__ import annotations

import re
import time

import httpx
import pytest
from fastapi.testclient import TestClient
from serve_helpers import EXAMPLE, live_server, secret_of, wait_for_workers
from stubborn import Patient, Raising, Stubborn, Toy

from solver.apps.serve import jobs
from solver.apps.serve.app import ServeConfig, create_app
from solver.apps.serve.jobs import STOPPED_AT_LIMIT, Bug, PastLimit, TaskRefused, WorkerFault, WorkerPool, task_limit
from solver.apps.serve.quota import Limits, RateLimiter, TooMany

pytestmark = pytest.mark.server  # applications with their worker processes (the tiers)

HARD = {"exposed": EXAMPLE, "epsilon": 1e-9}  # an equilibrium that runs to its limit
# a best response CP-SAT does not prove within a minute (draw54, seed 0: measured 40 s at a 40 s limit)
SLOW = {"exposed": "Jk1 As Ah Ac Kd Qs Qd Js Jd Jc 9s 9h 9c 8h 8d 7s 7c 6s 6d 5s 5h 4s 4h 4c 3d 3c 2s 2h 2c",
        "rules": {"name": "draw54"}, "opponent": "uniform", "engine": "cpsat"}


def wait(predicate, timeout: float = 60.0, what: str = ""):
    deadline = time.monotonic() + timeout
    while not (value := predicate()):
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
    return value


# ---------------------------------------------------------------------- time limits, in the pool


@pytest.fixture()
def pool(tmp_path, monkeypatch):
    monkeypatch.setattr(jobs, "KILL_GRACE", 1.0)
    p = WorkerPool(1, store_path=tmp_path / "s.sqlite", warm_up=False)
    p.start()
    wait(lambda: p.stats()["workers_ready"] == 1, what="the worker")
    yield p
    p.close()


def test_a_task_past_its_limit_is_cancelled_and_answers_its_best(pool):
    job = pool.submit(Patient(), lane="quick", request={}, limit=0.5)
    wait(lambda: job.finished, 30)
    assert job.status == "done" and job.result == {"stopped": True}  # it was asked to stop
    assert job.error == STOPPED_AT_LIMIT.format(limit=0.5)


def test_a_task_that_ignores_its_limit_loses_its_worker(pool):
    [pid] = pool.pids()
    job = pool.submit(Stubborn(), lane="quick", request={}, limit=0.5)
    wait(lambda: job.finished, 30)
    assert job.status == "failed" and job.error == "the task ran past its time limit of 0.5 s and was stopped"
    with pytest.raises(PastLimit) as past:  # its own status (503, Retry-After), not an internal error
        job.outcome()
    assert past.value.retry_after and str(past.value).startswith(job.error)
    wait(lambda: pool.stats()["workers_ready"] == 1, what="a new worker")
    assert pool.pids() != [pid]
    assert pool.submit(Patient(), lane="quick", request={}, limit=0.2) is not None  # the new worker works


def test_the_pool_runs_any_task_kind_of_the_contract(pool):
    """A toy task kind that only implements ``worker.WorkerTask`` runs with its own limit and its
    progress; its errors are reported by kind: a bug as the fixed line with the id its traceback is
    logged under (``worker.log_bug``; never its words), an input error in its words, a fault in its
    public words."""
    from quintet.cards import CardError
    from quintet.faults import Fault

    job = pool.submit(Toy(3), lane="quick", request={})
    assert job.limit == Toy.seconds + jobs.LIMIT_MARGIN
    wait(lambda: job.finished, 30)
    assert job.status == "done" and job.outcome() == {"sum": 6} and job.progress == {"step": 3}

    bug = pool.submit(Raising(ValueError("/srv/secret.sqlite: a bare ValueError")), lane="quick", request={})
    mistake = pool.submit(Raising(CardError("bad card 'Zz'")), lane="quick", request={})
    fault = pool.submit(Raising(Fault("/srv/s.sqlite: locked", public="the store: locked")), lane="quick", request={})
    wait(lambda: bug.finished and mistake.finished and fault.finished, 30)
    assert bug.status == "failed" and re.fullmatch(r"internal error \(id [0-9a-f]{12}\)", bug.error or ""), bug.error
    with pytest.raises(Bug, match=re.escape(bug.error)):
        bug.outcome()
    with pytest.raises(TaskRefused, match="bad card 'Zz'"):
        mistake.outcome()
    with pytest.raises(WorkerFault, match="^the store: locked$"):
        fault.outcome()


def test_every_task_has_a_limit():
    from solver.advisor.request import SolveRequest
    from solver.apps.serve.worker import SolveTask

    quick = SolveRequest.parse(EXAMPLE, opponent="uniform", time_limit=20, verify=5)
    assert task_limit(SolveTask(quick)) == 20 + 5 + jobs.LIMIT_MARGIN
    assert task_limit(SolveTask(SolveRequest.parse(EXAMPLE, time_limit=100))) == 100 + jobs.LIMIT_MARGIN
    assert task_limit(SolveTask(SolveRequest.parse(EXAMPLE, max_support=2, time_limit=100))) == 200 + jobs.LIMIT_MARGIN
    assert task_limit(SolveTask(SolveRequest.parse(EXAMPLE, opponent="uniform"))) is None  # the server always sets one
    # a review (the equilibrium, then two grades, each of REVIEW_TOP plans) and a puzzle's grade (given up: a
    # search, then a grade)
    from test_review import played

    from quintet.game import Deal
    from solver.apps.serve.training import PuzzleGradeTask, ReviewTask
    from solver.play.review import REVIEW_TOP

    assert REVIEW_TOP == 3  # the page's review shows three plans
    record = played("greedy")
    assert task_limit(ReviewTask(record, 0.05, 10.0)) == 70 + jobs.LIMIT_MARGIN
    assert task_limit(ReviewTask(record, None, 10.0)) == 30 + jobs.LIMIT_MARGIN
    assert task_limit(PuzzleGradeTask(Deal.from_exposed(EXAMPLE), "uniform", None, 10.0)) == 20 + jobs.LIMIT_MARGIN


def test_the_server_gives_every_solve_its_time_limit(tmp_path):
    app = create_app(ServeConfig(workers=1, warm_up=False, store=tmp_path / "s.sqlite", limits=Limits.off(),
                                 max_time_limit=50, quick_time_limit=7))
    state = app.state.quintet
    seen = []
    real = state.pool.submit
    state.pool.submit = lambda payload, **kw: seen.append((payload, kw)) or real(payload, **kw)
    with TestClient(app, base_url="http://localhost") as c:
        assert c.post("/api/solve", json={"exposed": EXAMPLE, "opponent": "uniform"}).status_code == 200
        assert c.post("/api/solve", json={"exposed": EXAMPLE, "opponent": "uniform", "time_limit": 30}).status_code \
            == 200
        job = c.post("/api/solve", json=HARD).json()
        c.delete(f"/api/jobs/{job['job']}", headers=secret_of(job))
        refused = c.post("/api/solve", json={**HARD, "time_limit": 51})
        assert refused.status_code == 400 and "at most 50 seconds" in refused.json()["error"]
    limits = [payload.request.time_limit for payload, _ in seen]
    assert limits == [7, 30, 50]  # the quick default, as asked, the cap for a job


# ---------------------------------------------------------------------- a client that goes away


@pytest.mark.server
def test_a_client_that_disconnects_cancels_its_solve(tmp_path):
    with live_server("--workers", "1", "--store", str(tmp_path / "s.sqlite")) as (url, _):
        wait_for_workers(lambda: httpx.get(f"{url}/api/health").json(), 1)
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(f"{url}/api/solve", json={**SLOW, "time_limit": 120}, timeout=3)
        gone = time.monotonic()
        health = lambda: httpx.get(f"{url}/api/health").json()  # noqa: E731
        wait(lambda: health()["workers_busy"] == 0, 30, "the solve was not cancelled")
        assert time.monotonic() - gone < 30  # not the 120 s it asked for
        answer = httpx.post(f"{url}/api/solve", json={"exposed": EXAMPLE, "opponent": "uniform"}, timeout=60)
        assert answer.status_code == 200  # the worker is free


# ---------------------------------------------------------------------- per-client limits


def test_token_buckets_refill():
    now = [0.0]
    limiter = RateLimiter(Limits(tables=2, moves=0), clock=lambda: now[0])
    limiter.take("a", "tables")
    limiter.take("a", "tables")
    with pytest.raises(TooMany) as refused:
        limiter.take("a", "tables")
    assert refused.value.retry_after == 30 and "at most 2 a minute" in str(refused.value)
    limiter.take("b", "tables")  # another client has its own bucket
    for _ in range(1000):
        limiter.take("a", "moves")  # 0: no limit
    now[0] = 29.0
    with pytest.raises(TooMany):
        limiter.take("a", "tables")
    now[0] = 30.0
    limiter.take("a", "tables")  # a token back after 30 s


@pytest.fixture()
def limited(tmp_path):
    app = create_app(ServeConfig(workers=1, warm_up=False, store=tmp_path / "s.sqlite",
                                 limits=Limits(tables=2, moves=3, solves=4, mixes=1, jobs=2)))
    with TestClient(app, base_url="http://localhost", client=("203.0.113.5", 4000)) as c:
        yield c


def too_many(response: httpx.Response, words: str) -> None:
    assert response.status_code == 429, response.text
    assert words in response.json()["error"] and int(response.headers["retry-after"]) >= 1


def test_limits_per_client_are_429_with_retry_after(limited):
    c = limited
    friend = [c.post("/api/tables", json={"opponent": "friend"}) for _ in range(2)]
    assert all(r.status_code == 201 for r in friend)
    too_many(c.post("/api/tables", json={"opponent": "friend"}), "too many tables opened")
    # moves: a join, then the seat's moves
    code = friend[0].json()["invitation"]["link"].rsplit("/", 1)[1]
    assert c.post(f"/api/tables/{friend[0].json()['table']}/join", json={"invitation": code}).status_code == 201
    seat = {"Authorization": f"Bearer {friend[0].json()['token']}"}
    table = friend[0].json()["table"]
    assert c.post(f"/api/tables/{table}/next", headers=seat).status_code == 409
    assert c.post(f"/api/tables/{table}/next", headers=seat).status_code == 409
    too_many(c.post(f"/api/tables/{table}/next", headers=seat), "too many moves")
    assert c.get(f"/api/tables/{table}", headers=seat).status_code == 200  # looking is not limited
    # two jobs at once, then 429; a K-mix a minute
    first, second = (c.post("/api/solve", json={**HARD, "exposed": e}).json()
                     for e in (EXAMPLE, "Ac Kd Kc Qc Jh 8h 8d"))
    too_many(c.post("/api/solve", json={**HARD, "exposed": "Kd Qs Jh Ts 9c 8d 7h"}), "2 solves running or waiting")
    for job in (first, second):
        c.delete(f"/api/jobs/{job['job']}", headers=secret_of(job))
    mix = c.post("/api/solve", json={"exposed": "Kc Qh Qd Js 9d 8s 7d", "max_support": 2})  # a solve and a mix
    assert mix.status_code == 202
    c.delete(f"/api/jobs/{mix.json()['job']}", headers=secret_of(mix.json()))
    too_many(c.post("/api/solve", json={**HARD, "exposed": "Kd Qs Jh Ts 9c 8d 7h"}), "too many solves")
    # another address has its own limits: a K-mix a minute
    other = TestClient(c.app, base_url="http://localhost", client=("203.0.113.6", 4000))
    mix = other.post("/api/solve", json={"exposed": "Kc Qh Qd Js 9d 8s 7d", "max_support": 2})
    assert mix.status_code == 202
    other.delete(f"/api/jobs/{mix.json()['job']}", headers=secret_of(mix.json()))
    too_many(other.post("/api/solve", json={"exposed": "Kc Qh Qd Js 9d 8s 7d", "max_support": 2}), "too many K-mixes")
    assert other.post("/api/tables", json={"opponent": "friend"}).status_code == 201


def test_the_limits_are_counted_by_the_address_a_trusted_proxy_forwards(limited):
    c = limited
    proxy = TestClient(c.app, base_url="http://localhost", client=("127.0.0.1", 4000))
    for _ in range(2):  # behind the (loopback, trusted) proxy: the client it names
        r = proxy.post("/api/tables", json={"opponent": "friend"}, headers={"X-Forwarded-For": "198.51.100.7"})
        assert r.status_code == 201
    too_many(proxy.post("/api/tables", json={"opponent": "friend"}, headers={"X-Forwarded-For": "198.51.100.7"}),
             "tables")
    assert proxy.post("/api/tables", json={"opponent": "friend"},
                      headers={"X-Forwarded-For": "198.51.100.8"}).status_code == 201
    # an untrusted client cannot choose the address it is counted as
    statuses = [c.post("/api/tables", json={"opponent": "friend"}, headers={"X-Forwarded-For": forged}).status_code
                for forged in ("198.51.100.9", "198.51.100.10", "198.51.100.11")]
    assert statuses == [201, 201, 429]


def test_health_shows_no_path_nor_process_id(tmp_path):
    app = create_app(ServeConfig(workers=1, warm_up=False, store=tmp_path / "secret-dir" / "s.sqlite"))
    with TestClient(app, base_url="http://localhost") as c:
        health = wait_for_workers(lambda: c.get("/api/health").json(), 1)
        text = c.get("/api/health").text
    assert "secret-dir" not in text and str(tmp_path) not in text and "pid" not in text
    for pid in app.state.quintet.pool.pids() or [12345678]:
        assert str(pid) not in text
    assert set(health) == {"status", "version", "workers", "workers_ready", "workers_busy", "waiting", "running",
                           "queue_size", "broken", "solver", "table_ttl"}
