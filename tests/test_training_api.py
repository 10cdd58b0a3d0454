"""The review, statistics and puzzles over HTTP (``routers.training``), in process: each answer is
what ``quintet-play review|stats --json`` prints and what ``solver.play.puzzle`` grades; a K-mix
job reports its certifications (``kind`` ``kmix``)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from deals import QUICK
from fastapi.testclient import TestClient
from programs import run_main
from serve_helpers import secret_of, wait_for_workers
from test_review import made_up_equilibrium, played, store_with

from quintet.fingerprint import rules_fingerprint
from quintet.game import Arrangement, Deal
from quintet.symmetry import canonical_exposed
from solver.advisor.equilibrium import STORE_KIND
from solver.advisor.limits import MAX_RECORDS
from solver.advisor.request import SolveRequest
from solver.apps.play_cli import main as play_main
from solver.apps.serve.app import ServeConfig, create_app
from solver.apps.serve.quota import Limits
from solver.apps.serve.worker import SolveTask, run_task
from solver.play.puzzle import pick_puzzle
from solver.storage.records import append_record
from solver.storage.store import SolutionStore

SEED = 7


def without_seconds(obj):
    if isinstance(obj, dict):
        return {k: without_seconds(v) for k, v in obj.items() if k not in ("seconds", "time")}
    if isinstance(obj, list):
        return [without_seconds(v) for v in obj]
    return obj


@pytest.fixture(scope="module")
def store_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("training") / "solutions.sqlite"
    store_with(path, [3, 4])  # two puzzles (made-up mixes)
    with SolutionStore(path) as store:  # game SEED's deal, for the reviews against its "equilibrium"
        deal = Deal.random(SEED)
        canonical, _ = canonical_exposed(deal.exposed)
        store.put(rules_fingerprint(deal.rules), STORE_KIND, canonical,
                  made_up_equilibrium(Deal(canonical)).to_record(), 0.5)
    return path


@pytest.fixture(scope="module")
def client(store_path):
    with TestClient(create_app(ServeConfig(workers=1, store=store_path, limits=Limits.off())),
                    base_url="http://localhost") as c:  # a name the Host allow-list knows
        wait_for_workers(lambda: c.get("/api/health").json(), 1)
        yield c


def cli_json(tmp_path: Path, store: Path, *argv: str) -> object:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("QUINTET_STORE", str(store))
        ran = run_main(play_main, argv)
    assert ran.returncode == 0, ran.stderr
    return json.loads(ran.stdout)


@pytest.mark.server  # the application with its worker
def test_a_review_is_what_quintet_play_review_prints(client, store_path, tmp_path):
    record = played("greedy", seed=SEED)
    path = tmp_path / "games.jsonl"
    append_record(path, record)
    for body, argv in [({"equilibrium": False}, ["--no-equilibrium"]), ({"epsilon": 1.0}, ["--epsilon", "1"])]:
        response = client.post("/api/review", json={"record": record.to_dict(), **body})
        assert response.status_code == 200, response.text
        answer = response.json()
        expected = cli_json(tmp_path, store_path, "review", str(path), "--json", *argv)
        assert without_seconds(answer) == without_seconds(expected)
        assert answer["kind"] == "review" and answer["model"]["grade"]["kind"] == "grade"
    assert answer["equilibrium"]["exploitability"] == 0.5  # the stored (made-up) mix: no solve, no job
    forged = record.to_dict() | {"points": {"player": 25.0, "computer": 0.0}}
    response = client.post("/api/review", json={"record": forged})
    assert response.status_code == 400 and "'points'" in response.json()["error"]
    response = client.post("/api/review", json={"record": record.to_dict() | {"opponent": "br:style:/etc/passwd"},
                                                "equilibrium": False})
    assert response.status_code == 200  # a best response's model is its arrangement: no file is read
    assert response.json()["model"]["model"] == "best response to style:/etc/passwd"


@pytest.mark.server  # the application with its worker
def test_a_review_whose_equilibrium_is_not_stored_is_a_job(client):
    deal = Deal.from_exposed(QUICK)
    from solver.play.computer import Computer
    from solver.play.session import GameSession
    from solver.problem.deal_tables import DealTables
    from solver.problem.opponents import greedy_arrangement

    game = GameSession(deal, Computer.choose(deal, "uniform", seed=1), seed=1)
    game.play_out(greedy_arrangement(DealTables.build(deal)))
    response = client.post("/api/review", json={"record": game.record().to_dict(), "epsilon": 0.05})
    assert response.status_code == 202, response.text
    job = created = response.json()
    assert job["request"]["record"] == "…"  # the record is not echoed back
    while job["status"] not in ("done", "failed", "cancelled"):
        job = client.get(f"/api/jobs/{job['job']}", headers=secret_of(created)).json()
        assert job["progress"] is None or job["progress"]["kind"] == "equilibrium"
    assert job["status"] == "done", job
    assert job["result"]["kind"] == "review" and job["result"]["equilibrium"]["exploitability"] <= 0.05


@pytest.mark.server  # the application with its worker
def test_statistics_are_what_quintet_play_stats_prints(client, store_path, tmp_path):
    records = [played("greedy" if k % 2 else "uniform", seed=SEED + k) for k in range(4)]
    path = tmp_path / "games.jsonl"
    for r in records:
        append_record(path, r)
    response = client.post("/api/stats", json={"records": [r.to_dict() for r in records], "window": 2})
    assert response.status_code == 200, response.text
    assert response.json() == cli_json(tmp_path, store_path, "stats", str(path), "--window", "2", "--json")
    whole = client.post("/api/stats", json={"records": [r.to_dict() for r in records], "window": 2.0})
    assert whole.json() == response.json()  # 2.0 is JSON's integer 2, as JSON Schema counts it
    assert client.post("/api/stats", json={"records": [], "window": 2.5}).status_code == 422
    too_many = client.post("/api/stats", json={"records": [records[0].to_dict()] * (MAX_RECORDS + 1)})
    assert too_many.status_code == 422 and str(MAX_RECORDS) in too_many.json()["error"]
    bad = client.post("/api/stats", json={"records": [records[0].to_dict(), {"exposed": "As"}]})
    assert bad.status_code == 400 and bad.json()["error"].startswith("records: record 2: ")


@pytest.mark.server  # the application with its worker
def test_puzzles_are_drawn_from_the_store_and_graded_exactly(client, store_path):
    response = client.get("/api/puzzles?seed=5&source=store")
    assert response.status_code == 200, response.text
    out = response.json()
    with SolutionStore(store_path) as store:
        puzzle = pick_puzzle(store, Deal.random(1).rules, 5)
    assert out == puzzle.to_dict() and out["kind"] == "puzzle" and out["count"] >= 3
    best = puzzle.solve().arrangement
    graded = client.post("/api/puzzles/grade", json={"exposed": out["exposed"], "arrangement": best.format()})
    assert graded.status_code == 200, graded.text
    assert graded.json()["solved"] and graded.json()["stars"] == 3 and not graded.json()["given_up"]
    worse = Arrangement(best.packets[::-1])
    graded = client.post("/api/puzzles/grade", json={"exposed": out["exposed"], "arrangement": worse.format()})
    expected = puzzle.grade(worse).to_dict()
    expected["puzzle"]["seed"] = None  # graded by its deal, not picked by a seed
    assert without_seconds(graded.json()) == without_seconds(expected)
    given_up = client.post("/api/puzzles/grade", json={"exposed": out["exposed"], "arrangement": None}).json()
    assert given_up["given_up"] and given_up["stars"] == 0 and not given_up["solved"]
    assert given_up["grade"]["best"]["arrangement"] == given_up["grade"]["given"]["arrangement"]
    illegal = client.post("/api/puzzles/grade", json={"exposed": out["exposed"], "arrangement": "As Ks"})
    assert illegal.status_code == 400 and illegal.json()["error"].startswith("arrangement: ")
    other = client.post("/api/puzzles/grade", json={"exposed": "8h 7h 9d Ts 7s Qc Jc", "arrangement": None})
    assert other.status_code == 400 and "is not a puzzle" in other.json()["error"]
    assert client.get("/api/puzzles?opponent=bogus").status_code == 422


@pytest.mark.server  # the application with its worker
def test_an_empty_store_still_has_the_shipped_puzzles(tmp_path):
    with TestClient(create_app(ServeConfig(workers=1, store=tmp_path / "empty.sqlite", warm_up=False)),
                    base_url="http://localhost") as c:
        response = c.get("/api/puzzles")
        assert response.status_code == 200 and response.json()["source"] == "set", response.text
        response = c.get("/api/puzzles?source=store")
        assert response.status_code == 404 and "holds no solved deal" in response.json()["error"]


def test_a_k_mix_reports_its_certifications(store_path):
    """The worker's progress of a K-mix: the equilibrium's iterations, then each mix certified."""
    seen: list[dict] = []
    request = SolveRequest.parse(QUICK, max_support=2, epsilon=0.05, time_limit=60, seed=1, files=False)
    with SolutionStore(store_path) as store:
        answer = run_task(SolveTask(request), lambda: store, threading.Event(), seen.append)
    kinds = [p["kind"] for p in seen]
    assert "kmix" in kinds and kinds.index("kmix") > (kinds.index("equilibrium") if "equilibrium" in kinds else -1)
    kmix = [p for p in seen if p["kind"] == "kmix"]
    assert [p["certified"] for p in kmix] == list(range(1, len(kmix) + 1))
    best = [p["exploitability"] for p in kmix]
    assert best == sorted(best, reverse=True)  # the least so far never rises
    assert answer.kind == "kmix" and answer.exploitability == pytest.approx(best[-1])
