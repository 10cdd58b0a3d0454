"""A server never opens a path that a client sent: every way of opening or probing a file fails
(and is recorded) while every request form with a path in its opponent is parsed — by the one
request model, by the server's request parsing, over HTTP by the in-process application, and by
the worker's task runner — and none is attempted.  The refusal is the same whatever exists on
disk, and quotes no path."""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import os
import os.path
import pathlib
import threading
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from serve_helpers import ARR_A, EXAMPLE, wait_for_workers

from quintet.game import Deal
from solver.advisor.request import SolveRequest
from solver.apps.serve.app import ServeConfig, create_app
from solver.apps.serve.models import SolveIn
from solver.apps.serve.quota import Limits
from solver.apps.serve.routers.solve import solve_request_of
from solver.apps.serve.worker import SolveTask, run_task
from solver.problem.opponent_spec import OpponentSpec

RECORDS = [{"exposed": EXAMPLE.split(), "player": [p.split() for p in ARR_A.split("|")]}]

# what a request may carry beside its opponent: every form of the API's solve requests
FORMS: dict[str, dict[str, object]] = {
    "best response": {},
    "points": {"objective": "points"},
    "grade": {"grade": ARR_A},
    "fix": {"fix": {"1": "9s 9c 8s 8c 7c"}},
    "cpsat": {"engine": "cpsat", "seed": 3},
    "verify": {"verify": 1.0},
    "safe": {"max_exploitability": 0.5},
    "equilibrium target": {"epsilon": 0.05},
    "style data": {"style": RECORDS},
    "population data": {"population": [ARR_A]},
}


@pytest.fixture(scope="module")
def disk(tmp_path_factory) -> dict[str, str]:
    """Paths that exist (a real records file, a real population file, a directory) and not."""
    root = tmp_path_factory.mktemp("files")
    records = root / "games.jsonl"
    records.write_text(json.dumps(RECORDS[0]) + "\n", encoding="utf-8")
    population = root / "field.json"
    population.write_text(json.dumps([ARR_A]), encoding="utf-8")
    return {"records": str(records), "population": str(population), "directory": str(root),
            "missing": str(root / "nothing.json"), "passwd": "/etc/passwd", "environ": "/proc/self/environ",
            "relative": "./x.json"}


def opponents(disk: dict[str, str]) -> dict[str, list[str]]:
    """The opponent specifications naming files, by the model that names one first."""
    paths = list(disk.values())
    return {
        "style": [f"style:{p}" for p in paths] + [f"uniform:0.5,style:{p}:0.5" for p in paths]
        + [f"style:{p}:1,population" for p in paths],
        "population": [f"population:{p}" for p in paths] + [f"population:{p}:1" for p in paths]
        + [f"equilibrium:0.5,population:{p}:0.5" for p in paths] + [f"greedy,population:{p}:2,style" for p in paths],
    }


class Opened(OSError):
    pass


@contextlib.contextmanager
def no_files() -> Iterator[list[str]]:
    """Every open and file probe fails, and is recorded (the list yielded) — in every thread of
    this process, so the in-process application's too."""
    attempts: list[str] = []
    patched = [(builtins, "open"), (io, "open"), (os, "open"), (os, "stat"), (os, "lstat"), (os, "listdir"),
               (os, "scandir"), (os.path, "exists"), (os.path, "isfile"), (os.path, "isdir"),
               (pathlib.Path, "open"), (pathlib.Path, "read_text"), (pathlib.Path, "read_bytes"),
               (pathlib.Path, "is_file"), (pathlib.Path, "exists"), (pathlib.Path, "stat"),
               (pathlib.Path, "is_dir"), (pathlib.Path, "iterdir")]
    saved = [(owner, name, getattr(owner, name)) for owner, name in patched]

    def refuse(name: str):  # noqa: ANN202
        def refused(*args: object, **kwargs: object) -> object:
            attempts.append(f"{name}{args[:1]!r}")
            raise Opened(f"{name} is refused in this test")
        return refused

    try:
        for owner, name in patched:
            setattr(owner, name, refuse(f"{getattr(owner, '__name__', owner)}.{name}"))
        yield attempts
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def _refusal(call) -> str:  # noqa: ANN001
    with pytest.raises(ValueError) as caught:
        call()
    return str(caught.value)


def _check_refusals(messages: dict[str, list[str]], disk: dict[str, str]) -> None:
    for name, texts in messages.items():
        assert len(set(texts)) == 1, (name, set(texts))  # the same whatever exists on disk
        (text,) = set(texts)
        assert text == (f"opponent '{name}' names a file: a server reads no files; send the "
                        + ("records in the field 'style'" if name == "style" else
                           "arrangements in the field 'population'")), text
        assert "/" not in text and not any(p in text for p in disk.values())


def test_the_request_model_and_the_servers_parsing_open_nothing(disk):
    specs = opponents(disk)
    messages: dict[str, list[str]] = {name: [] for name in specs}
    with no_files() as attempts:
        for name, texts in specs.items():
            for spec in texts:
                for extra in FORMS.values():
                    body = {"exposed": EXAMPLE, "opponent": spec, **extra}
                    messages[name].append(_refusal(lambda b=body: solve_request_of(SolveIn.model_validate(b),
                                                                                    ServeConfig())))
                    messages[name].append(_refusal(lambda b=body: SolveRequest.parse(
                        b["exposed"], **{k: v for k, v in b.items() if k != "exposed"}, files=False)))
    assert attempts == []
    _check_refusals(messages, disk)


def test_the_workers_task_runner_opens_nothing(disk):
    """A request that may read no files, built around the parser, is refused by the worker
    before anything runs — the store is never opened either."""
    deal = Deal.from_exposed(EXAMPLE)

    def no_store():  # noqa: ANN202
        raise AssertionError("the store was opened")

    specs = opponents(disk)
    messages: dict[str, list[str]] = {name: [] for name in specs}
    with no_files() as attempts:
        for name, texts in specs.items():
            for spec in texts:
                request = SolveRequest(deal, opponent=OpponentSpec.parse(spec), files=False)
                messages[name].append(_refusal(lambda r=request: run_task(SolveTask(r), no_store, threading.Event(),
                                                                          lambda _: None)))
    assert attempts == []
    _check_refusals(messages, disk)


@pytest.mark.server  # the application with its worker
def test_the_application_over_http_opens_nothing(disk, tmp_path):
    app = create_app(ServeConfig(workers=1, warm_up=False, store=tmp_path / "s.sqlite", limits=Limits.off()))
    specs = opponents(disk)
    messages: dict[str, list[str]] = {name: [] for name in specs}
    with TestClient(app, base_url="http://localhost") as client:
        wait_for_workers(lambda: client.get("/api/health").json(), 1)
        client.post("/api/solve", json={"exposed": EXAMPLE, "opponent": "style:/x"})  # warm the code paths
        with no_files() as attempts:
            for name, texts in specs.items():
                for spec in texts:
                    for extra in FORMS.values():
                        response = client.post("/api/solve", json={"exposed": EXAMPLE, "opponent": spec, **extra})
                        assert response.status_code == 400, response.text
                        messages[name].append(response.json()["error"])
    assert attempts == []
    _check_refusals(messages, disk)


def test_the_guard_sees_an_open(disk):
    """The control: reading a records file the way a command line may is seen (and refused)."""
    with no_files() as attempts:
        with pytest.raises(ValueError):
            SolveRequest.parse(EXAMPLE, opponent=f"style:{disk['records']}", files=True)
    assert attempts, "the guard saw no file access"
