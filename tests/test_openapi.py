"""quintet-serve's OpenAPI description is the API: schemathesis generates requests from
``/openapi.json`` (valid ones and invalid ones) against the in-process application and runs all
of its checks on every response — no server error, the status code, content type, headers and
body each as documented, invalid data refused, valid data not refused with 422, 405 with
``Allow`` for a method the path does not have.

The endpoints are the real ones, with two workers of the real pool; the server caps every solve
at ``MAX_SECONDS`` (``ServeConfig.max_time_limit``) and its workers skip their warm-up, so the
run stays within a few minutes.  Valid data may still be refused with 400: the schema says a
card is a string, not which strings are cards (the 400's message is checked elsewhere).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import ignored_auth

from solver.apps.serve.app import ServeConfig, create_app
from solver.apps.serve.public import Public
from solver.apps.serve.quota import Limits

MAX_SECONDS = 2.0
EXAMPLES = 25  # per operation and phase, in the fuzz tier (pytest -m fuzz)
DEFAULT_EXAMPLES = 5  # per operation and phase, in the default run

STORE_DIR = Path(tempfile.mkdtemp(prefix="quintet-openapi-"))
APP = create_app(ServeConfig(workers=2, queue_size=64, store=STORE_DIR / "solutions.sqlite", warm_up=False,
                             max_time_limit=MAX_SECONDS, limits=Limits.off(),
                             public=Public(allowed_hosts=("testserver",))))  # the host schemathesis sends
CONFIG = schemathesis.Config.from_dict({
    "generation": {"mode": "all", "max-examples": EXAMPLES, "deterministic": True},
    "checks": {
        # a table's call without its seat's token is refused before its body is read (401), a made-up
        # token like a table that does not exist (404)
        "positive_data_acceptance": {"expected-statuses": ["2xx", "400", "401", "404"]},
        # a body over the server's limit is refused before it is read: 413 is a refusal too
        "negative_data_rejection": {"expected-statuses": ["400", "401", "404", "405", "413", "422"]},
    },
})
schema = schemathesis.openapi.from_dict(APP.openapi(), config=CONFIG)
schema.app = APP
# Each API operation and generation mode (invalid data: for those that take some) a test of pytest's own
# parametrize, its requests drawn from the operation's strategy (schema.parametrize() gives its tests one
# node id under pytest 9, which pytest-xdist runs as one test).
OPERATIONS = [pytest.param(operation, mode, id=f"{operation.label} {mode.value}")
              for operation in (result.ok() for result in schema.get_all_operations()) for mode in GenerationMode
              if mode is GenerationMode.POSITIVE or operation.body or any(operation.iter_parameters())]


@pytest.fixture(scope="module", autouse=True)
def _stop_the_app():
    """The application's lifespan (its workers) ends with this module; its store is removed."""
    yield
    from schemathesis.python import asgi

    asgi.shutdown_lifespans()
    shutil.rmtree(STORE_DIR, ignore_errors=True)


@pytest.mark.server
@pytest.mark.parametrize("operation, mode", OPERATIONS)
@settings(max_examples=DEFAULT_EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_response_is_as_documented(operation, mode, data):
    data.draw(operation.as_strategy(generation_mode=mode)).call_and_validate(timeout=60)


@pytest.mark.fuzz
@pytest.mark.server
@pytest.mark.parametrize("operation, mode", OPERATIONS)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_response_is_as_documented_at_the_full_count(operation, mode, data):
    data.draw(operation.as_strategy(generation_mode=mode)).call_and_validate(timeout=60)


@pytest.mark.server
def test_a_job_through_its_links_is_as_documented():
    """A 202's links lead to its job: GET, the event stream, DELETE — while it runs and once it
    is finished — each response checked against the schema like the generated ones."""
    solve = schema["/api/solve"]["POST"]
    body = {"exposed": "Ac Kd Kc Qc Jh 8h 8d", "epsilon": 1e-9}  # runs until the cap (or a cancel)
    first = solve.Case(body=body, media_type="application/json").call_and_validate(timeout=60)
    assert first.status_code == 202, first.text
    links = APP.openapi()["paths"]["/api/solve"]["post"]["responses"]["202"]["links"]
    assert {link["operationId"] for link in links.values()} == {"get_job", "cancel_job", "job_events"}
    job = {"job_id": first.json()["job"]}
    key = {"Authorization": f"Bearer {first.json()['secret']}"}
    # a wrong secret answers 404, the same bytes as no such job (documented), not the 401/403 that
    # schemathesis's ignored_auth check expects of a resource that exists

    def call(path: str, method: str):
        return schema[path][method].Case(path_parameters=job, headers=key).call_and_validate(
            timeout=60, excluded_checks=[ignored_auth])

    deadline = time.monotonic() + 60  # the workers start with the application
    while (state := call("/api/jobs/{job_id}", "GET").json())["status"] == "queued":
        assert time.monotonic() < deadline, state
        time.sleep(0.1)
    assert state["status"] == "running", state
    cancelled = call("/api/jobs/{job_id}", "DELETE")
    assert cancelled.json()["status"] in ("cancelling", "cancelled")
    events = call("/api/jobs/{job_id}/events", "GET")
    assert events.headers["content-type"][0].startswith("text/event-stream")
    last = [line for line in events.text.splitlines() if line.startswith("data: ")][-1]
    assert json.loads(last[6:])["status"] == "cancelled"
    done = call("/api/jobs/{job_id}", "GET")
    assert done.json()["status"] == "cancelled" and done.json()["result"]["interrupted"] is True
    call("/api/jobs/{job_id}", "DELETE")


def test_the_schema_documents_errors_as_sent():
    """Every operation documents ``{"error"}`` for its 4xx (never FastAPI's own validation-error
    shape); the bodies' endpoints their 413; the solver's their 503."""
    spec = APP.openapi()
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    error = {"$ref": "#/components/schemas/ErrorOut"}
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            ok = "201" if "201" in responses else "200"  # 201: a table created
            assert ok in responses and responses[ok]["content"], (method, path)
            for code, response in responses.items():
                if code.startswith("4") or code in ("500",) or (code == "503" and path != "/api/health"):
                    assert response["content"]["application/json"]["schema"] == error, (method, path, code)
            if method == "post":
                assert {"413", "422"} <= set(responses), path
    assert {"503", "202"} <= set(spec["paths"]["/api/solve"]["post"]["responses"])
    assert "503" in spec["paths"]["/api/draw"]["post"]["responses"]
    assert "404" in spec["paths"]["/api/jobs/{job_id}"]["delete"]["responses"]


def _request_models() -> list[type]:
    """Every strict (request) model of the server's modules."""
    import importlib
    import inspect
    import pkgutil

    from pydantic import BaseModel

    import solver.apps.serve as serve

    found: dict[str, type] = {}
    for info in pkgutil.walk_packages(serve.__path__, "solver.apps.serve."):
        for obj in vars(importlib.import_module(info.name)).values():
            if inspect.isclass(obj) and issubclass(obj, BaseModel) and obj.model_config.get("strict"):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return list(found.values())


def test_every_integer_field_takes_a_whole_number_written_with_a_fraction():
    """JSON Schema counts 6.0 as an integer, so the documented ``integer`` fields must take it
    (schemathesis sends ``498.0``); a strict model refuses it unless the field says so
    (``models.integral``).  6.5 stays refused."""
    import typing

    from pydantic import ValidationError

    from solver.apps.serve.models import integral

    checked = []
    for model in _request_models():
        for name, field in model.model_fields.items():
            if not (field.annotation is int or int in typing.get_args(field.annotation)):
                continue
            assert any(getattr(m, "func", None) is integral for m in field.metadata), \
                f"{model.__name__}.{name} refuses a whole number written 6.0"
            checked.append(f"{model.__name__}.{name}")
    assert {"TermsIn.ante", "StatsIn.window", "TableIn.games"} <= set(checked)
    from solver.apps.serve.models import TermsIn
    from solver.apps.serve.routers.training import StatsIn

    assert TermsIn.model_validate({"circles": 4.0}).circles == 4
    assert StatsIn.model_validate({"records": [], "window": 498.0}).window == 498
    with pytest.raises(ValidationError):
        TermsIn.model_validate({"circles": 4.5})
