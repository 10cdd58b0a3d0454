"""The examples of ``docs/http-api.md`` are the server's own: each ``$ curl`` command of a
``console`` block is sent to the application (as curl would send it), and the status in its
trailing comment and the body on the lines after it must be what comes back."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from serve_helpers import ROOT

from solver.apps.serve.app import ServeConfig, create_app

DOC = ROOT / "docs" / "http-api.md"


def examples() -> list[tuple[str, int, str]]:
    """(command, status, output) of every ``$ curl`` line of the doc's console blocks."""
    found = []
    for block in re.findall(r"```console\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S):
        lines = block.splitlines()
        for i, line in enumerate(lines):
            if not line.startswith("$ curl "):
                continue
            command, _, status = line[2:].rpartition("  # ")
            output = []
            for following in lines[i + 1:]:
                if following.startswith("$ "):
                    break
                output.append(following)
            found.append((command, int(status), "\n".join(output)))
    return found


def request_of(command: str) -> tuple[str, str, dict[str, str], bytes | None]:
    """(method, path with query, headers, body) of a curl command, as curl sends them."""
    words = shlex.split(command)[1:]
    method, headers, body, url = None, {}, None, None
    while words:
        word = words.pop(0)
        if word in ("-s", "-sN", "-si"):
            continue
        if word == "-H":
            name, _, value = words.pop(0).partition(":")
            headers[name.strip().lower()] = value.strip()
        elif word == "-d":
            body = words.pop(0).encode()
        elif word == "-X":
            method = words.pop(0)
        else:
            url = word
    assert url is not None and url.startswith("localhost:8000/"), command
    if body is not None:
        headers.setdefault("content-type", "application/x-www-form-urlencoded")  # curl's own default
    return method or ("POST" if body is not None else "GET"), url[len("localhost:8000"):], headers, body


EXAMPLES = examples()


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    app = create_app(ServeConfig(workers=1, warm_up=False, store=Path(tmp_path_factory.mktemp("doc")) / "s.sqlite"))
    with TestClient(app, base_url="http://localhost:8000") as c:
        yield c


def test_the_doc_has_examples():
    assert len(EXAMPLES) >= 10
    assert {status for _, status, _ in EXAMPLES} >= {200, 400, 404, 405, 422}


@pytest.mark.server  # the application with its worker
@pytest.mark.parametrize("command, status, output", EXAMPLES, ids=[c[:90] for c, _, _ in EXAMPLES])
def test_a_doc_example_is_what_the_server_sends(client, command, status, output):
    method, path, headers, body = request_of(command)
    response = client.request(method, path, headers=headers, content=body)
    assert response.status_code == status, response.text
    assert response.text == output
    json.loads(output)  # and it is JSON
