"""The HTTP API's errors by kind (issue 39): only the client's mistakes (``InputError``) answer
400; anything else is a 500 with a fixed line and an id (the traceback in the server's log under
it), never the exception's words; a task past its time limit answers 503 with Retry-After; every
table error has its status by construction."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from quintet.faults import InputError
from solver.apps.serve.app import ServeConfig, create_app
from solver.apps.serve.jobs import PastLimit
from solver.apps.serve.quota import Limits
from solver.apps.serve.tables.errors import NotNow, TableError

SECRET = "/srv/quintet/secret.sqlite"


def client(tmp_path, raises: Exception) -> TestClient:
    """The application (its workers not started) with one more route, which raises ``raises``."""
    app = create_app(ServeConfig(workers=1, warm_up=False, store=tmp_path / "s.sqlite", limits=Limits.off()))

    async def fails() -> None:
        raise raises

    app.add_api_route("/api/fails", fails, methods=["GET"])
    return TestClient(app, base_url="http://localhost", raise_server_exceptions=False)


def test_a_bare_value_error_is_a_500_with_a_fixed_line_and_an_id(tmp_path, capsys):
    r = client(tmp_path, ValueError(f"{SECRET}: could not convert string to float")).get("/api/fails")
    assert r.status_code == 500 and list(r.json()) == ["error"]
    shown = re.fullmatch(r"internal error \(id ([0-9a-f]{12})\)", r.json()["error"])
    assert shown, r.text
    assert SECRET not in r.text and "ValueError" not in r.text
    log = capsys.readouterr().err
    assert f"internal error {shown.group(1)} in GET /api/fails" in log and "Traceback" in log and SECRET in log


def test_an_input_error_is_a_400_in_its_words(tmp_path):
    r = client(tmp_path, InputError("slot 6: slots are 1 to 5")).get("/api/fails")
    assert r.status_code == 400 and r.json() == {"error": "slot 6: slots are 1 to 5"}


def test_a_task_past_its_limit_is_a_503_with_retry_after(tmp_path):
    r = client(tmp_path, PastLimit("the task ran past its time limit of 50 s and was stopped")).get("/api/fails")
    assert r.status_code == 503 and int(r.headers["Retry-After"]) > 0
    assert r.json()["error"].startswith("the task ran past its time limit of 50 s"), r.text


def test_a_table_error_has_its_status_by_construction(tmp_path):
    r = client(tmp_path, NotNow("not now")).get("/api/fails")
    assert r.status_code == 409 and r.json() == {"error": "not now"}
    with pytest.raises(TypeError, match="status"):
        type("Statusless", (TableError,), {})
    with pytest.raises(TypeError, match="an HTTP error status is 400 to 599, got 200"):
        type("NotAnError", (TableError,), {}, status=200)
    assert type("Gone", (TableError,), {}, status=410).status == 410
